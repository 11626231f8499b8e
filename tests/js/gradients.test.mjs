// The backward kernels, softmaxBackward and attentionBackward, on every build
// and variant:
//  - the float64 analytic gradients of tests/reference/float64.mjs
//    (attentionGradients, softmaxBackward) against float64 central finite
//    differences of the float64 forward (attentionLoss, softmax), so that the
//    oracle itself is checked;
//  - the kernels against those float64 gradients on random shapes (masks,
//    causal, windows, batch and head axes, shared key/value heads), within the
//    first-order bound registry.inc derives (attentionGradientBounds): the
//    kernels' reduction orders (the scalar dot and cascade, the simd128 GEMM)
//    differ from the reference's left-to-right double sums, so each variant is
//    held to its own bound, never compared with the other;
//  - fast-check properties (fixed seed) within the same bounds.
// PyTorch's gradients are tests/js/torch-gradients.test.mjs.
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

const { U, clog2 } = ref;
const T = (data, shape) => ({ data, shape });
const SEED = 2121;

/**
 * Central differences of f at x along each coordinate: (f(x + h e_i) -
 * f(x - h e_i)) / 2h. Their error is at most h^2/6 max|f'''| (Taylor) plus
 * about 2^-52 |f| / h (the float64 rounding of f): with h = 2^-14, inputs
 * and weights of order 1 and |f'''| below 10^3 here, under 7e-7 plus 2e-12.
 */
const H = 2 ** -14;
function centralDifferences(f, x) {
  return Array.from(x, (_, i) => {
    const xp = Array.from(x);
    const xm = Array.from(x);
    xp[i] += H;
    xm[i] -= H;
    return (f(xp) - f(xm)) / (2 * H);
  });
}
const FD_TOL = (i, want) => 3e-6 * (1 + Math.abs(want));

describe('the float64 gradients against finite differences of the float64 forward', () => {
  test('attentionGradients: dQ, dK, dV of sum dY * attention(Q, K, V) with a mask, causal and a window', () => {
    const r = ref.rng(SEED);
    const cases = [
      { Tq: 3, Tk: 5, dk: 4, dv: 2, opts: {} },
      { Tq: 4, Tk: 4, dk: 3, dv: 3, opts: { causal: true } },
      { Tq: 5, Tk: 6, dk: 2, dv: 3, opts: { causal: true, offset: 1, window: 3 } },
      { Tq: 3, Tk: 4, dk: 3, dv: 2, opts: { masked: true } },
    ];
    for (const { Tq, Tk, dk, dv, opts } of cases) {
      const [Q, K, V, dY] = [Tq * dk, Tk * dk, Tk * dv, Tq * dv].map((n) => Array.from(r.f32(n, -1, 1)));
      const maskValues = r.f32(Tq * Tk, -1, 1);
      const maskAt = opts.masked ? (i, j) => ((i + j) % 3 === 0 ? -Infinity : maskValues[i * Tk + j]) : null;
      const o = { scale: 0.7, ...opts, maskAt };
      const g = ref.attentionGradients(Q, K, V, dY, Tq, Tk, dk, dv, o);
      const label = JSON.stringify({ Tq, Tk, dk, dv, opts });
      expectClose(
        g.dQ,
        centralDifferences((x) => ref.attentionLoss(x, K, V, dY, Tq, Tk, dk, dv, o), Q),
        FD_TOL,
        `${label} dQ`,
      );
      expectClose(
        g.dK,
        centralDifferences((x) => ref.attentionLoss(Q, x, V, dY, Tq, Tk, dk, dv, o), K),
        FD_TOL,
        `${label} dK`,
      );
      expectClose(
        g.dV,
        centralDifferences((x) => ref.attentionLoss(Q, K, x, dY, Tq, Tk, dk, dv, o), V),
        FD_TOL,
        `${label} dV`,
      );
    }
  });

  test('softmaxBackward: dLogits of sum dy * softmax(x)', () => {
    const r = ref.rng(SEED + 1);
    for (const n of [1, 2, 7]) {
      const x = Array.from(r.f32(2 * n, -3, 3));
      const dy = Array.from(r.f32(2 * n, -1, 1));
      const loss = (z) => ref.softmax(z, 2, n).reduce((s, v, i) => s + v * dy[i], 0);
      const { dx } = ref.softmaxBackward(ref.softmax(x, 2, n), dy, 2, n);
      expectClose(dx, centralDifferences(loss, x), FD_TOL, `n=${n}`);
    }
  });
});

/**
 * The kernel's gradients against the float64 ones for tensors of shape
 * [...lead, T, d] with every leading axis full (no broadcasting) or K and V
 * with kvHeads heads: per (batch, head) slice, the reference and its bound;
 * with shared key/value heads the slices of a group add into one dK and dV
 * (their bounds add, with G = the group size).
 */
function checkAttention(ag, variant, { B = 1, H = 1, kvHeads = H, Tq, Tk, dk, dv, scale, causal, window, mask }, r) {
  const lead = [B, H];
  const group = H / kvHeads;
  const Q = r.f32(B * H * Tq * dk);
  const K = r.f32(B * kvHeads * Tk * dk);
  const V = r.f32(B * kvHeads * Tk * dv, -2, 2);
  const dY = r.f32(B * H * Tq * dv);
  const options = {};
  if (scale !== undefined) options.scale = scale;
  if (causal) options.causal = true;
  if (window) options.window = window;
  if (mask) options.mask = T(mask, [B, H, Tq, Tk]);
  const got = ag.attentionBackward(
    T(Q, [...lead, Tq, dk]),
    T(K, [B, kvHeads, Tk, dk]),
    T(V, [B, kvHeads, Tk, dv]),
    T(dY, [...lead, Tq, dv]),
    options,
  );
  expect(got.dQ.shape).toEqual([...lead, Tq, dk]);
  expect(got.dK.shape).toEqual([B, kvHeads, Tk, dk]);
  expect(got.dV.shape).toEqual([B, kvHeads, Tk, dv]);
  const s = scale ?? Math.fround(1 / Math.sqrt(dk));
  const want = { dQ: [], dK: new Array(B * kvHeads * Tk * dk).fill(0), dV: new Array(B * kvHeads * Tk * dv).fill(0) };
  const tol = { dQ: [], dK: want.dK.slice(), dV: want.dV.slice() };
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / group);
      const at = (x, n, width) => Array.from(x.subarray(n * width, (n + 1) * width));
      const qs = at(Q, b * H + h, Tq * dk);
      const ks = at(K, b * kvHeads + hk, Tk * dk);
      const vs = at(V, b * kvHeads + hk, Tk * dv);
      const ys = at(dY, b * H + h, Tq * dv);
      const maskAt = mask ? (i, j) => mask[((b * H + h) * Tq + i) * Tk + j] : null;
      const o = { scale: s, causal: Boolean(causal || window), window: window ?? 0, maskAt };
      const g = ref.attentionGradients(qs, ks, vs, ys, Tq, Tk, dk, dv, o);
      const bound = ref.attentionGradientBounds(g, Tq, Tk, dk, dv, variant, { shared: group });
      want.dQ.push(...g.dQ);
      tol.dQ.push(...bound.dQ);
      for (const [name, width] of [
        ['dK', dk],
        ['dV', dv],
      ]) {
        const base = (b * kvHeads + hk) * Tk * width;
        g[name].forEach((x, n) => {
          want[name][base + n] += x;
          tol[name][base + n] += bound[name][n];
        });
      }
      // A query that sees no key: dQ exactly +0.
      g.blind.forEach((blind, i) => {
        if (!blind) return;
        const row = got.dQ.data.subarray(((b * H + h) * Tq + i) * dk, ((b * H + h) * Tq + i + 1) * dk);
        expect(Array.from(row).every((x) => Object.is(x, 0))).toBe(true);
      });
    }
  const label = JSON.stringify({ B, H, kvHeads, Tq, Tk, dk, dv, causal, window, mask: Boolean(mask) });
  for (const name of ['dQ', 'dK', 'dV']) expectClose(got[name].data, want[name], tol[name], `${label} ${name}`);
}

/** A mask [B, H, Tq, Tk]: values in [-2, 2), -Infinity with probability p, and row `blind` of every slice hidden. */
function randomMask(r, B, H, Tq, Tk, p, blind = -1) {
  const m = r.f32(B * H * Tq * Tk, -2, 2);
  for (let x = 0; x < m.length; x++) if (r() < p || Math.floor(x / Tk) % Tq === blind) m[x] = -Infinity;
  return m;
}

describe.each(CONFIGS)('gradients: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init({ ...cfg.options, logCalls: true });
  });

  test('attentionBackward on random shapes: T around the 64-query block and the 256-key tile, batches and heads', () => {
    const r = ref.rng(SEED + 10);
    for (const shape of [
      { Tq: 1, Tk: 1, dk: 1, dv: 1 },
      { Tq: 5, Tk: 9, dk: 4, dv: 6 },
      { Tq: 67, Tk: 13, dk: 8, dv: 5 },
      { Tq: 3, Tk: 261, dk: 5, dv: 3 },
      { B: 2, H: 3, Tq: 7, Tk: 11, dk: 8, dv: 4 },
      { B: 2, H: 4, kvHeads: 2, Tq: 6, Tk: 10, dk: 4, dv: 4 },
    ])
      checkAttention(ag, cfg.variant, shape, r);
    expect(ag.callLog.at(-1)).toMatchObject({ kernel: 'attention_backward', variant: cfg.variant });
  });

  test('attentionBackward with masks (fully masked rows give zeros), causal, a window and a scale', () => {
    const r = ref.rng(SEED + 20);
    checkAttention(
      ag,
      cfg.variant,
      { B: 2, H: 2, Tq: 6, Tk: 8, dk: 4, dv: 3, mask: randomMask(r, 2, 2, 6, 8, 0.3, 2) },
      r,
    );
    checkAttention(ag, cfg.variant, { Tq: 70, Tk: 70, dk: 4, dv: 4, causal: true }, r);
    checkAttention(ag, cfg.variant, { H: 2, Tq: 9, Tk: 9, dk: 3, dv: 2, window: 3, scale: 2.5 }, r);
    checkAttention(
      ag,
      cfg.variant,
      { Tq: 8, Tk: 8, dk: 3, dv: 3, causal: true, mask: randomMask(r, 1, 1, 8, 8, 0.5) },
      r,
    );
  });

  test('attentionBackward: broadcast inputs get the sum of their slices, boolean and key-padding masks', () => {
    const r = ref.rng(SEED + 30);
    const [B, H, Tq, Tk, dk, dv] = [2, 3, 4, 5, 4, 2];
    const Q = r.f32(Tq * dk);
    const K = r.f32(B * H * Tk * dk);
    const V = r.f32(B * H * Tk * dv);
    const dY = r.f32(B * H * Tq * dv);
    // Key padding as a boolean [B, 1, 1, Tk] (true = attend): batch 1 ignores its last two keys.
    const keep = [true, true, true, true, true, true, true, true, false, false];
    const got = ag.attentionBackward(
      T(Q, [Tq, dk]),
      T(K, [B, H, Tk, dk]),
      T(V, [B, H, Tk, dv]),
      T(dY, [B, H, Tq, dv]),
      {
        mask: T(keep, [B, 1, 1, Tk]),
      },
    );
    expect(got.dQ.shape).toEqual([Tq, dk]);
    const wantQ = new Array(Tq * dk).fill(0);
    const tolQ = new Array(Tq * dk).fill(0);
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H; h++) {
        const n = b * H + h;
        const maskAt = (i, j) => (keep[b * Tk + j] ? 0 : -Infinity);
        const g = ref.attentionGradients(
          Array.from(Q),
          Array.from(K.subarray(n * Tk * dk, (n + 1) * Tk * dk)),
          Array.from(V.subarray(n * Tk * dv, (n + 1) * Tk * dv)),
          Array.from(dY.subarray(n * Tq * dv, (n + 1) * Tq * dv)),
          Tq,
          Tk,
          dk,
          dv,
          { scale: Math.fround(1 / Math.sqrt(dk)), maskAt },
        );
        const bound = ref.attentionGradientBounds(g, Tq, Tk, dk, dv, cfg.variant, { queryShared: B * H });
        g.dQ.forEach((x, e) => (wantQ[e] += x));
        bound.dQ.forEach((x, e) => (tolQ[e] += x));
        // Keys that batch 1 ignores get zero gradients.
        if (b === 1)
          for (const j of [3, 4])
            for (let c = 0; c < dk; c++) expect(Object.is(got.dK.data[(n * Tk + j) * dk + c], 0)).toBe(true);
      }
    expectClose(got.dQ.data, wantQ, tolQ, 'broadcast Q');
  });

  test('softmaxBackward: [n] and [rows, n], every length around the lanes, within its bound', () => {
    const r = ref.rng(SEED + 40);
    for (const shape of [[1], [3], [4], [5], [17], [2, 64], [3, 65], [1, 1000]]) {
      const n = shape.at(-1);
      const rows = shape.length === 2 ? shape[0] : 1;
      const y = Float32Array.from(ref.softmax(r.f32(rows * n, -5, 5), rows, n));
      const dy = r.f32(rows * n, -3, 3);
      const got = ag.softmaxBackward(T(y, shape), T(dy, shape));
      expect(got.shape).toEqual(shape);
      const want = ref.softmaxBackward(y, dy, rows, n);
      const tol = want.sAbs.map((s, i) => (2 * clog2(n) + 1) * U * s + 2 * U * want.dAbs[i] + 2 ** -149);
      expectClose(got.data, want.dx, tol, `shape ${shape}`);
    }
    expect(ag.callLog.at(-1)).toMatchObject({ kernel: 'softmax_backward', variant: cfg.variant });
  });

  test('the kernels against finite differences directly: batches, heads, a mask and causal', () => {
    // The tolerance: the kernel's registry bound (against the exact gradient) plus the finite
    // differences' own error (FD_TOL, see centralDifferences).
    const r = ref.rng(SEED + 50);
    const [B, H, Tq, Tk, dk, dv] = [2, 2, 3, 4, 3, 2];
    const [Q, K, V, dY] = [B * H * Tq * dk, B * H * Tk * dk, B * H * Tk * dv, B * H * Tq * dv].map((n) => r.f32(n));
    const mask = randomMask(r, B, H, Tq, Tk, 0.25);
    const opts = (b, h) => ({
      scale: Math.fround(1 / Math.sqrt(dk)),
      causal: true,
      maskAt: (i, j) => mask[((b * H + h) * Tq + i) * Tk + j],
    });
    const slice = (x, n, w) => Array.from(x.subarray(n * w, (n + 1) * w));
    const got = ag.attentionBackward(
      T(Q, [B, H, Tq, dk]),
      T(K, [B, H, Tk, dk]),
      T(V, [B, H, Tk, dv]),
      T(dY, [B, H, Tq, dv]),
      {
        mask: T(mask, [B, H, Tq, Tk]),
        causal: true,
      },
    );
    // The arguments of the float64 functions for slice (b, h), with input `which` (Q, K or V) taken from x.
    const args = (b, h, which = null, x = null) => {
      const n = b * H + h;
      const get = (name, t, w) => (name === which ? x.slice(n * w, (n + 1) * w) : slice(t, n, w));
      const [q, k, v] = [get('Q', Q, Tq * dk), get('K', K, Tk * dk), get('V', V, Tk * dv)];
      return [q, k, v, slice(dY, n, Tq * dv), Tq, Tk, dk, dv, opts(b, h)];
    };
    const bounds = { dQ: [], dK: [], dV: [] };
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H; h++) {
        const bound = ref.attentionGradientBounds(ref.attentionGradients(...args(b, h)), Tq, Tk, dk, dv, cfg.variant);
        for (const name of ['dQ', 'dK', 'dV']) bounds[name].push(...bound[name]);
      }
    // The loss sum dY * attention over every slice, as a function of one input (the others fixed).
    const fdLoss = (which) => (x) => {
      let L = 0;
      for (let b = 0; b < B; b++)
        for (let h = 0; h < H; h++) {
          L += ref.attentionLoss(...args(b, h, which, x));
        }
      return L;
    };
    for (const [name, t] of [
      ['dQ', Q],
      ['dK', K],
      ['dV', V],
    ]) {
      const fd = centralDifferences(fdLoss(name.slice(1)), Array.from(t));
      expectClose(got[name].data, fd, (i, want) => bounds[name][i] + FD_TOL(i, want), `finite differences ${name}`);
    }
    // softmaxBackward against the finite differences of sum dy * softmax(x).
    const x = Array.from(r.f32(2 * 9, -3, 3));
    const dy = r.f32(2 * 9, -1, 1);
    const y = Float32Array.from(ref.softmax(x, 2, 9));
    const fd = centralDifferences((z) => ref.softmax(z, 2, 9).reduce((a, v, i) => a + v * dy[i], 0), x);
    const want = ref.softmaxBackward(y, dy, 2, 9);
    // y is x's softmax rounded to float32: at most u |y_i| away, which moves dx_i by at most
    // u (|dx_i| + 2 y_i sum_k y_k |dy_k|) to first order.
    expectClose(
      ag.softmaxBackward(T(y, [2, 9]), T(dy, [2, 9])).data,
      fd,
      (i, w) =>
        (2 * clog2(9) + 1) * U * want.sAbs[i] +
        2 * U * want.dAbs[i] +
        U * (want.dAbs[i] + 2 * want.sAbs[i]) +
        FD_TOL(i, w),
    );
  });

  test('attentionBackward: an intermediate dS = scale P (dP - D) beyond float32 is named as such, not dQ', () => {
    const Q = [1, 0, 1, 0, 0, 1, 0, 1];
    const K = [1, 2, 1, 0, -1, -2, 0, 1];
    const V = [3e38, 0, -3e38, 1];
    const dY = [1, 0, 0, 1];
    const [Tq, Tk, dk, dv, scale] = [2, 2, 4, 2, 0.5];
    // float64: every gradient is finite in float32's range, but dP_ij - D_i is not for the entry found here.
    const g = ref.attentionGradients(Q, K, V, dY, Tq, Tk, dk, dv, { scale });
    for (const x of [...g.dQ, ...g.dK, ...g.dV]) expect(Math.abs(x)).toBeLessThan(3.4028234663852886e38);
    let first = -1;
    for (let i = 0; i < Tq && first < 0; i++) {
      const s = [0, 1].map(
        (j) =>
          scale * (Q[i * dk] * K[j * dk] + Q[i * dk + 1] * K[j * dk + 1]) +
          scale * (Q[i * dk + 2] * K[j * dk + 2] + Q[i * dk + 3] * K[j * dk + 3]),
      );
      const e = s.map((x) => Math.exp(x - Math.max(...s)));
      const a = e.map((x) => x / (e[0] + e[1]));
      const dP = [0, 1].map((j) => dY[i * dv] * V[j * dv] + dY[i * dv + 1] * V[j * dv + 1]);
      const D = a[0] * dP[0] + a[1] * dP[1];
      for (let j = 0; j < Tk && first < 0; j++) if (Math.abs(dP[j] - D) > 3.4028234663852886e38) first = i * Tk + j;
    }
    expect(first).toBeGreaterThanOrEqual(0);
    const at = `[${Math.floor(first / Tk)}, ${first % Tk}]`;
    const rows = (x, n) => [x.slice(0, n), x.slice(n)];
    expect(() => ag.attentionBackward(rows(Q, dk), rows(K, dk), rows(V, dv), rows(dY, dv))).toThrow(
      `attentionBackward: dS${at} = scale P (dP - D), the gradient of the scores, overflowed float32`,
    );
    // and the module stays usable
    expect(
      ag.attentionBackward(
        rows(Q, dk),
        rows(K, dk),
        [
          [1, 0],
          [-1, 1],
        ],
        rows(dY, dv),
      ).dQ.shape,
    ).toEqual([2, 4]);
  });

  test('attentionBackward holds no [Tq, Tk] buffer: its peak wasm memory is O(T d)', () => {
    // Bytes above the allocation before the call: Q, K, V, dOutput and dQ, dK, dV (4 * 7 T d), the
    // workspace of registry.inc (64*256 + 2*64 + 2*64*256 + Tq (d_v + 3) floats), and 4 KiB for
    // the dims block and the allocator's headers; at T = n = 2048, d = 16 about 1.3 MiB against
    // the 16 MiB of one [T, T] float grid. (T = 512 on the scalar variants, ten times slower.)
    const n = cfg.variant === 'simd128' ? 2048 : 512;
    const d = 16;
    const r = ref.rng(SEED + 60);
    const x = () => T(r.f32(n * d), [n, d]);
    ag.resetPeakMemory();
    const base = ag.memoryStats().allocatedBytes;
    const got = ag.attentionBackward(x(), x(), x(), x(), { causal: true });
    expect(got.dQ.shape).toEqual([n, d]);
    const stats = ag.memoryStats();
    expect(stats.allocatedBytes).toBe(base);
    const work = 4 * (64 * 256 + 2 * 64 + 2 * 64 * 256 + n * (d + 3));
    const peak = stats.peakAllocatedBytes - base;
    expect(peak).toBeGreaterThanOrEqual(4 * 7 * n * d);
    expect(peak).toBeLessThanOrEqual(4 * 7 * n * d + work + 4096);
    if (n === 2048) expect(peak).toBeLessThan((4 * n * n) / 8);
  });

  test('properties (fast-check): attentionBackward within its bound on random shapes and options', () => {
    const arb = fc.record({
      H: fc.integer({ min: 1, max: 2 }),
      Tq: fc.integer({ min: 1, max: 9 }),
      Tk: fc.integer({ min: 1, max: 9 }),
      dk: fc.integer({ min: 1, max: 9 }),
      dv: fc.integer({ min: 1, max: 6 }),
      causal: fc.boolean(),
      masked: fc.boolean(),
      scale: fc.constantFrom(undefined, 0, -1, 3),
      seed: fc.integer({ min: 0, max: 1e6 }),
    });
    fc.assert(
      fc.property(arb, ({ H, Tq, Tk, dk, dv, causal, masked, scale, seed }) => {
        const r = ref.rng(seed);
        const mask = masked ? randomMask(r, 1, H, Tq, Tk, 0.3) : undefined;
        checkAttention(ag, cfg.variant, { H, Tq, Tk, dk, dv, causal, mask, scale }, r);
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  test('properties (fast-check): softmaxBackward within its bound on random rows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 1e6 }), (n, seed) => {
        const r = ref.rng(seed);
        const y = Float32Array.from(ref.softmax(r.f32(n, -4, 4), 1, n));
        const dy = r.f32(n, -2, 2);
        const want = ref.softmaxBackward(y, dy, 1, n);
        const tol = want.sAbs.map((s, i) => (2 * clog2(n) + 1) * U * s + 2 * U * want.dAbs[i] + 2 ** -149);
        expectClose(ag.softmaxBackward(y, dy).data, want.dx, tol, `n=${n}`);
      }),
      { seed: SEED + 1, numRuns: 60 },
    );
  });
});
