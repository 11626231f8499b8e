// The streaming attention path (online softmax over key tiles: Milakov &
// Gimelshein 2018; Dao et al. 2022, FlashAttention) through the public API,
// on every configuration: the default when neither weights nor scores are
// asked for, `streaming: false` for the materialized [Tq, Tk] path, and the
// option's errors.
//
// Expected values come from a float64 reference written here from the
// formulas (softmax(scale Q K^T + mask) V, Vaswani et al. 2017 §3.2.1-3.2.2).
// Tolerances are the first-order bounds of registry.inc (attention), per
// output element:
//   streaming     (2 D + 2 n_t e + (g + 64 + 4 n_t - 1) u) sum_j a_j |v_j|
//   materialized  (rel + (ceil(log2 Tk) + 5) u (1 + rel)) sum_j a_j |v_j|,
//                 rel = 2 D + 2 e + (2 ceil(log2 Tk) + 3 + c) u, c the roundings
//                 of a weight e_j / s (1 scalar: a division; 2 simd128: 1/s, then
//                 a product)
// with D the row's largest score error plus u |s_j - max|, e the exp bound,
// n_t = ceil(Tk / 256) key tiles, g the tile's value sum (simd128: the
// GEMM's 258 u; scalar: the cascade's 14 u), 64 u the tile's sum of P in
// four lanes. The two paths sum in different orders, so each is held to its
// own bound, never to the other's result.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, init } from './helpers.mjs';
import { rowDot } from './property-bounds.mjs';

const { U, abs, clog2 } = ref;
const TILE = 256; // AG_ATTENTION_TILE_K (src/kernels/kernels.h); queries go in blocks of 64

/** The error constants of one variant (registry.inc: attention, exp; gemm_simd128.h). */
function constants(variant, dk) {
  const simd = variant === 'simd128';
  return {
    // q.k: the scalar dot's pairwise order, or the GEMM's k order.
    scores: simd ? (Math.min(dk, 256) + Math.ceil(dk / 256)) * U : (2 * clog2(dk) + 1) * U,
    // exp: 1 ulp (C library) or 2 ulp (exp4), an ulp being at most 2u.
    exp: simd ? 4 * U : 2 * U,
    // The roundings of a weight e_j / s: a division, or 1/s and a product.
    normalize: simd ? 2 : 1,
    // The value sum of one tile of 256 keys.
    tileSum: simd ? TILE + 2 : clog2(TILE) + 6,
    // The projections (matmul), plus the bias.
    matmul: (n) => (simd ? Math.min(n, 256) + Math.ceil(n / 256) + 1 : 2 * clog2(n) + 2) * U,
  };
}

/**
 * Float64 attention of one slice, Q [Tq, dk], K [Tk, dk], V [Tk, dv] flat,
 * with the bounds of both paths per output. Optional absolute errors of the
 * inputs (qe, ke, ve, same layouts; from projections) are carried through.
 * softcap c > 0 caps each score before the mask, c tanh(x / c): it passes the
 * error of x on at most (tanh' <= 1) and adds at most 6 c u (registry.inc).
 */
function slice(
  Q,
  K,
  V,
  Tq,
  Tk,
  dk,
  dv,
  { scale, softcap = 0, causal = false, maskAt = null, variant, qe = null, ke = null, ve = null },
) {
  const c = constants(variant, dk);
  const nt = Math.ceil(Tk / TILE);
  const Y = new Float64Array(Tq * dv);
  const tolStream = new Float64Array(Tq * dv);
  const tolGrid = new Float64Array(Tq * dv);
  const hidden = new Array(Tq).fill(false);
  let vmax = 0;
  for (let x = 0; x < V.length; x++) vmax = Math.max(vmax, abs(V[x]) + (ve ? ve[x] : 0));
  const s = new Float64Array(Tk);
  const es = new Float64Array(Tk);
  const a = new Float64Array(Tk);
  for (let i = 0; i < Tq; i++) {
    let M = -Infinity;
    for (let j = 0; j < Tk; j++) {
      const extra = maskAt ? maskAt(i, j) : 0;
      if ((causal && j > i) || extra === -Infinity) {
        s[j] = -Infinity;
        continue;
      }
      const { dot, mag, prop } = rowDot(Q, K, i, j, dk, qe, ke);
      const sc = abs(scale);
      s[j] = (softcap > 0 ? softcap * Math.tanh((scale * dot) / softcap) : scale * dot) + extra;
      es[j] = 1.01 * (sc * prop + c.scores * sc * mag + 3 * U * (sc * mag + abs(extra)) + 6 * softcap * U);
      if (s[j] > M) M = s[j];
    }
    if (M === -Infinity) {
      hidden[i] = true; // no visible key: the output row is exactly +0
      continue;
    }
    let D = 0;
    let sum = 0;
    for (let j = 0; j < Tk; j++) {
      if (s[j] === -Infinity) continue;
      D = Math.max(D, es[j] + 1.01 * U * abs(s[j] - M));
      sum += Math.exp(s[j] - M);
    }
    for (let j = 0; j < Tk; j++) a[j] = s[j] === -Infinity ? 0 : Math.exp(s[j] - M) / sum;
    const coeffStream = 2 * D + 2 * nt * c.exp + (c.tileSum + TILE / 4 + 4 * nt - 1) * U;
    const rel = 2 * D + 2 * c.exp + (2 * clog2(Tk) + 3 + c.normalize) * U;
    const coeffGrid = rel + (clog2(Tk) + 5) * U * (1 + rel);
    for (let x = 0; x < dv; x++) {
      let y = 0;
      let ya = 0;
      let ev = 0;
      for (let j = 0; j < Tk; j++) {
        const v = V[j * dv + x];
        const e = ve ? ve[j * dv + x] : 0;
        y += a[j] * v;
        ya += a[j] * (abs(v) + e);
        ev += a[j] * e;
      }
      Y[i * dv + x] = y;
      // Subnormal terms: one rounding of 2^-149 per tile crossed, per key.
      const tiny = 2 * Tk * nt * 2 ** -147 * vmax;
      tolStream[i * dv + x] = 1.01 * (coeffStream * ya + ev) + tiny + 1e-300;
      tolGrid[i * dv + x] = 1.01 * (coeffGrid * ya + ev) + tiny + 1e-300;
    }
  }
  return { Y, tolStream, tolGrid, hidden };
}

/** Asserts |got - want| <= tol element by element (hidden rows exactly +0), reporting the first failure. */
function expectWithin(got, want, tol, hidden, dv, label) {
  let bad = null;
  for (let x = 0; x < want.length && !bad; x++) {
    const row = Math.floor(x / dv);
    if (hidden[row]) {
      if (!Object.is(got[x], 0)) bad = { label, index: x, got: got[x], want: '+0 (no visible key)' };
    } else if (!(abs(got[x] - want[x]) <= tol[x])) {
      bad = { label, index: x, got: got[x], want: want[x], tol: tol[x], diff: abs(got[x] - want[x]) };
    }
  }
  expect(bad).toBeNull();
}

const T = (data, shape) => ({ data, shape });
/** Slice i of n floats of X (one batch or head of a flat tensor). */
const part = (X, i, n) => X.subarray(i * n, (i + 1) * n);

describe.each(CONFIGS)('streaming attention: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init({ ...cfg.options, logCalls: true });
  });

  // Runs attention on one slice both ways and checks each against its bound.
  function checkBothPaths(Tq, Tk, dk, dv, seed, { causal = false, mask = null, maskAt = null } = {}) {
    const r = ref.rng(seed);
    const Q = r.f32(Tq * dk, -1, 1);
    const K = r.f32(Tk * dk, -1, 1);
    const V = r.f32(Tk * dv, -2, 2);
    const scale = Math.fround(1 / Math.sqrt(dk));
    const want = slice(Q, K, V, Tq, Tk, dk, dv, { scale, causal, maskAt, variant: cfg.variant });
    const opts = { causal, ...(mask ? { mask } : {}) };
    const streamed = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), opts);
    expect(streamed.output.shape).toEqual([Tq, dv]);
    expect(streamed.weights).toBeUndefined();
    expectWithin(streamed.output.data, want.Y, want.tolStream, want.hidden, dv, 'streaming');
    const grid = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), { ...opts, streaming: false });
    expectWithin(grid.output.data, want.Y, want.tolGrid, want.hidden, dv, 'materialized');
    return want;
  }

  test('the default streams: T not a multiple of the 256-key tile, several query blocks of 64, long rows', () => {
    const shapes = [
      [70, 300, 16, 8],
      [1, 600, 64, 64],
      [130, 65, 8, 5],
      [64, 256, 64, 64],
      [3, 1000, 5, 3],
      [129, 1, 4, 4],
    ];
    let seed = 100;
    for (const [Tq, Tk, dk, dv] of shapes) checkBothPaths(Tq, Tk, dk, dv, seed++);
    // Streaming: the kernel was called once per call with the same arguments' shapes.
    expect(ag.callLog.at(-1).kernel).toBe('attention');
  });

  test('causal, top-left aligned, with Tq != Tk across tiles', () => {
    checkBothPaths(70, 300, 8, 6, 200, { causal: true });
    checkBothPaths(300, 70, 8, 6, 201, { causal: true });
    checkBothPaths(300, 300, 12, 4, 202, { causal: true });
  });

  test('masks: boolean [Tq, Tk] with whole tiles hidden and fully masked rows (a +0 output), additive [Tk] with -Infinity', () => {
    const Tq = 70;
    const Tk = 3 * TILE + 32;
    // Row i: i % 5 == 0 hides every key; 1 hides the first two tiles; 2 all
    // but the last key (in the short last tile); 3 every other tile; 4 nothing.
    const visible = (i, j) => {
      const kind = i % 5;
      const tile = Math.floor(j / TILE);
      return !(
        kind === 0 ||
        (kind === 1 && tile < 2) ||
        (kind === 2 && j !== Tk - 1) ||
        (kind === 3 && tile % 2 === 1)
      );
    };
    const data = Array.from({ length: Tq * Tk }, (_, x) => visible(Math.floor(x / Tk), x % Tk));
    const want = checkBothPaths(Tq, Tk, 8, 7, 300, {
      mask: T(data, [Tq, Tk]),
      maskAt: (i, j) => (visible(i, j) ? 0 : -Infinity),
    });
    expect(want.hidden.filter(Boolean).length).toBe(14); // rows 0, 5, ..., 65 see nothing
    // Additive [Tk] mask broadcast over the queries, with some -Infinity.
    const add = Float32Array.from({ length: 150 }, (_, j) =>
      j % 7 === 3 ? -Infinity : Math.fround(((j % 11) - 5) / 4),
    );
    checkBothPaths(20, 150, 8, 4, 301, { mask: T(add, [150]), maskAt: (i, j) => add[j] });
  });

  test('values near FLT_MAX / Tk: the unnormalised running sum would overflow, the output does not', () => {
    // V in [1e36, 3e36): sum_j exp(s_j - m) v_j passes 3.4e38 after a few
    // hundred keys; the output, a convex combination of the v_j, is below 3e36.
    const [Tq, Tk, dk, dv] = [5, 1000, 8, 6];
    const r = ref.rng(350);
    const Q = r.f32(Tq * dk);
    const K = r.f32(Tk * dk);
    const V = r.f32(Tk * dv, 1e36, 3e36);
    const scale = Math.fround(1 / Math.sqrt(dk));
    const want = slice(Q, K, V, Tq, Tk, dk, dv, { scale, variant: cfg.variant });
    const res = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]));
    expect(res.output.data.every((y) => Number.isFinite(y) && y > 1e36)).toBe(true);
    expectWithin(res.output.data, want.Y, want.tolStream, want.hidden, dv, 'streaming');
  });

  test('heads read in place: Q [B, h, Tq, d_k] against K and V shared by every head (zero strides)', () => {
    const [B, H, Tq, Tk, dk, dv] = [2, 3, 70, 290, 8, 5];
    const r = ref.rng(400);
    const Q = r.f32(B * H * Tq * dk);
    const K = r.f32(Tk * dk);
    const V = r.f32(Tk * dv, -2, 2);
    const scale = Math.fround(0.5);
    const res = ag.attention(T(Q, [B, H, Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), { scale, causal: true });
    expect(res.output.shape).toEqual([B, H, Tq, dv]);
    for (let s = 0; s < B * H; s++) {
      const want = slice(Q.subarray(s * Tq * dk, (s + 1) * Tq * dk), K, V, Tq, Tk, dk, dv, {
        scale,
        causal: true,
        variant: cfg.variant,
      });
      expectWithin(
        res.output.data.subarray(s * Tq * dv, (s + 1) * Tq * dv),
        want.Y,
        want.tolStream,
        want.hidden,
        dv,
        `slice ${s}`,
      );
    }
  });

  test('softcap: scores c tanh(scale q.k / c) before the mask, on both paths; a masked key stays masked', () => {
    // Logits up to about 30 against caps of 0.5, 4 and 40; an additive [Tk] mask with -Infinity.
    const [Tq, Tk, dk, dv] = [40, 300, 8, 4];
    const add = Float32Array.from({ length: Tk }, (_, j) => (j % 9 === 4 ? -Infinity : Math.fround(((j % 7) - 3) / 2)));
    for (const softcap of [0.5, 4, 40]) {
      const r = ref.rng(500 + softcap);
      const Q = r.f32(Tq * dk, -6, 6);
      const K = r.f32(Tk * dk, -1, 1);
      const V = r.f32(Tk * dv, -2, 2);
      const scale = Math.fround(1 / Math.sqrt(dk));
      const opts = { softcap, causal: true, mask: T(add, [Tk]) };
      const want = slice(Q, K, V, Tq, Tk, dk, dv, {
        scale,
        softcap,
        causal: true,
        maskAt: (i, j) => add[j],
        variant: cfg.variant,
      });
      const streamed = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), opts);
      expectWithin(streamed.output.data, want.Y, want.tolStream, want.hidden, dv, `streaming, softcap ${softcap}`);
      const grid = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), {
        ...opts,
        returnWeights: true,
        returnScores: true,
      });
      expectWithin(grid.output.data, want.Y, want.tolGrid, want.hidden, dv, `materialized, softcap ${softcap}`);
      // Every visible score is within the cap (plus the mask added after it); hidden keys weigh exactly +0.
      for (let i = 0; i < Tq; i++)
        for (let j = 0; j < Tk; j++) {
          const x = i * Tk + j;
          if (j > i || add[j] === -Infinity) {
            expect(Object.is(grid.weights.data[x], 0)).toBe(true);
            expect(grid.scores.data[x]).toBe(-Infinity);
          } else {
            // |c tanh| <= c, then the rounding of the sum with the mask entry.
            const cap = softcap + 2 * U * (softcap + abs(add[j]));
            expect(abs(grid.scores.data[x] - add[j])).toBeLessThanOrEqual(cap);
          }
        }
    }
  });

  test('KV cache: pastKey and pastValue go before K and V, query i sits at P + i, present* are the joined rows', () => {
    // The last Tq rows of a causal sequence of P + Tq tokens, computed with the first P keys and
    // values as the cache, against the float64 reference of those rows over all P + Tq keys; on
    // both paths, with the cache crossing key tiles (P = 500), and with shared heads (2 on 1). P = 0 is the
    // empty cache of a decode's first step: the output of no cache, and present* are K and V.
    const [B, Hq, Hkv, Tq, dk, dv] = [2, 2, 1, 5, 8, 4];
    for (const P of [0, 1, 37, 500]) {
      const Tall = P + Tq;
      const r = ref.rng(600 + P);
      const Q = r.f32(B * Hq * Tq * dk);
      const [pk, nk] = [r.f32(B * Hkv * P * dk), r.f32(B * Hkv * Tq * dk)];
      const [pv, nv] = [r.f32(B * Hkv * P * dv, -2, 2), r.f32(B * Hkv * Tq * dv, -2, 2)];
      const cache = { pastKey: T(pk, [B, Hkv, P, dk]), pastValue: T(pv, [B, Hkv, P, dv]) };
      const scale = Math.fround(1 / Math.sqrt(dk));
      for (const streaming of [true, false]) {
        const res = ag.attention(T(Q, [B, Hq, Tq, dk]), T(nk, [B, Hkv, Tq, dk]), T(nv, [B, Hkv, Tq, dv]), {
          causal: true,
          streaming,
          ...cache,
        });
        expect(res.presentKey.shape).toEqual([B, Hkv, Tall, dk]);
        expect(res.presentValue.shape).toEqual([B, Hkv, Tall, dv]);
        for (let b = 0; b < B; b++) {
          // present = [past; new] along the tokens, exactly.
          expect(part(res.presentKey.data, b, Tall * dk)).toEqual(
            Float32Array.from([...part(pk, b, P * dk), ...part(nk, b, Tq * dk)]),
          );
          expect(part(res.presentValue.data, b, Tall * dv)).toEqual(
            Float32Array.from([...part(pv, b, P * dv), ...part(nv, b, Tq * dv)]),
          );
          const K = part(res.presentKey.data, b, Tall * dk);
          const V = part(res.presentValue.data, b, Tall * dv);
          for (let h = 0; h < Hq; h++) {
            const s = b * Hq + h;
            // Query i sees keys 0..P + i: the causal mask of the whole sequence, rows P.. of it.
            const want = slice(part(Q, s, Tq * dk), K, V, Tq, Tall, dk, dv, {
              scale,
              maskAt: (i, j) => (j > P + i ? -Infinity : 0),
              variant: cfg.variant,
            });
            const tol = streaming ? want.tolStream : want.tolGrid;
            expectWithin(part(res.output.data, s, Tq * dv), want.Y, tol, want.hidden, dv, `P ${P}, b ${b}, h ${h}`);
          }
        }
      }
    }
    expect(ag.callLog.at(-1).args).toMatchObject({ pastKey: [B, Hkv, 500, dk], pastValue: [B, Hkv, 500, dv] });
  });

  test('a decoding step with h_q = 4 h_kv: each query head within its bound, and as if attended alone', () => {
    // One query per head (Tq = 1) on the streaming path, where the kernel takes the four query heads of
    // a key/value head as the rows of one slice. Caches whose length with the new key ends inside a key
    // tile and an f32x4 group (4098 + 1 and 256 + 1 keys; 0 + 1, a first step), d_k = 7 and d_v = 5
    // (channel tails): every head against the float64 reference (its streaming bound), and bit for bit
    // the output of the same head given alone, as a call of one head on the present key and value.
    const [B, Hkv, g, dk, dv] = [2, 2, 4, 7, 5];
    const Hq = g * Hkv;
    const scale = Math.fround(1 / Math.sqrt(dk));
    for (const P of [4098, 256, 0]) {
      const Tall = P + 1;
      const r = ref.rng(900 + P);
      const q = r.f32(B * Hq * dk);
      const [pk, nk] = [r.f32(B * Hkv * P * dk), r.f32(B * Hkv * dk)];
      const [pv, nv] = [r.f32(B * Hkv * P * dv, -2, 2), r.f32(B * Hkv * dv, -2, 2)];
      const res = ag.attention(T(q, [B, Hq, 1, dk]), T(nk, [B, Hkv, 1, dk]), T(nv, [B, Hkv, 1, dv]), {
        causal: true,
        pastKey: T(pk, [B, Hkv, P, dk]),
        pastValue: T(pv, [B, Hkv, P, dv]),
      });
      for (let b = 0; b < B; b++)
        for (let h = 0; h < Hq; h++) {
          const s = b * Hq + h;
          const kv = b * Hkv + Math.floor(h / g);
          const K = part(res.presentKey.data, kv, Tall * dk);
          const V = part(res.presentValue.data, kv, Tall * dv);
          const qh = part(q, s, dk);
          const got = part(res.output.data, s, dv);
          const want = ref.attentionSlice(qh, K, V, 1, Tall, dk, dv, { scale, variant: cfg.variant, streaming: true });
          expectWithin(got, want.Y, want.bound, [false], dv, `P ${P}, b ${b}, h ${h}`);
          const alone = ag.attention(T(qh, [1, dk]), T(K, [Tall, dk]), T(V, [Tall, dv])).output.data;
          expect(got).toEqual(alone);
        }
    }
  });

  test("kvSeqLen: keys past each batch's count are hidden; with causal, query i sits at kvSeqLen[b] - Tq + i", () => {
    // Batch b of a padded key buffer holds lengths[b] valid keys; rows that see none (a negative
    // offset) give +0. Against the reference with the equivalent additive mask, on both paths.
    const [B, H, Tq, Tk, dk, dv] = [3, 2, 4, 300, 8, 4];
    const lengths = [300, 258, 2];
    const r = ref.rng(700);
    const [Q, K, V] = [r.f32(B * H * Tq * dk), r.f32(B * H * Tk * dk), r.f32(B * H * Tk * dv, -2, 2)];
    const scale = Math.fround(1 / Math.sqrt(dk));
    for (const causal of [false, true])
      for (const streaming of [true, false]) {
        const res = ag.attention(T(Q, [B, H, Tq, dk]), T(K, [B, H, Tk, dk]), T(V, [B, H, Tk, dv]), {
          kvSeqLen: lengths,
          causal,
          streaming,
        });
        for (let b = 0; b < B; b++)
          for (let h = 0; h < H; h++) {
            const s = b * H + h;
            const hidden = (i, j) => j >= lengths[b] || (causal && j > lengths[b] - Tq + i);
            const want = slice(part(Q, s, Tq * dk), part(K, s, Tk * dk), part(V, s, Tk * dv), Tq, Tk, dk, dv, {
              scale,
              maskAt: (i, j) => (hidden(i, j) ? -Infinity : 0),
              variant: cfg.variant,
            });
            const tol = streaming ? want.tolStream : want.tolGrid;
            const label = `b ${b}, h ${h}, causal ${causal}, streaming ${streaming}`;
            expectWithin(part(res.output.data, s, Tq * dv), want.Y, tol, want.hidden, dv, label);
          }
      }
    // Batch 2 with causal: 2 keys for 4 queries, so rows 0 and 1 see none (offset -2).
    const res = ag.attention(T(Q, [B, H, Tq, dk]), T(K, [B, H, Tk, dk]), T(V, [B, H, Tk, dv]), {
      kvSeqLen: lengths,
      causal: true,
      returnWeights: true,
    });
    const row = (b, h, i) => part(res.weights.data, (b * H + h) * Tq + i, Tk);
    expect(row(2, 0, 1).every((a) => Object.is(a, 0))).toBe(true);
    expect(row(2, 0, 2).slice(0, 1)).toEqual(Float32Array.of(1));
  });

  test("returnScores 'raw' and 'capped': the scores before the mask (ONNX qk_matmul_output modes 0 and 1)", () => {
    // With a mask, causal and a soft cap, 'raw' is scale q.k at every (i, j) and 'capped' is
    // c tanh(scale q.k / c), masked keys included; the output is that of the call without scores
    // (on the materialized path, which scores ask for).
    const [Tq, Tk, dk, dv, c] = [5, 7, 8, 3, 1.5];
    const r = ref.rng(900);
    const [Q, K, V] = [r.f32(Tq * dk, -2, 2), r.f32(Tk * dk, -2, 2), r.f32(Tk * dv)];
    const mask = T(r.f32(Tq * Tk, -1, 1), [Tq, Tk]);
    const scale = Math.fround(1 / Math.sqrt(dk));
    const opts = { mask, causal: true, softcap: c };
    const plain = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), { ...opts, streaming: false });
    const k = constants(cfg.variant, dk);
    for (const stage of ['raw', 'capped']) {
      const res = ag.attention(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), { ...opts, returnScores: stage });
      expect(res.output.data).toEqual(plain.output.data);
      expect(res.scores.shape).toEqual([Tq, Tk]);
      let bad = null;
      for (let i = 0; i < Tq && !bad; i++)
        for (let j = 0; j < Tk && !bad; j++) {
          const q = part(Q, i, dk);
          const kj = part(K, j, dk);
          const x = scale * ref.dot(q, kj);
          // scale q.k: the variant's dot bound and the product's rounding; tanh passes it on (slope
          // <= 1) and adds at most 6 c u (registry.inc).
          const tol = (k.scores + U) * scale * ref.sumAbsProd(q, kj) + 2 ** -149 + (stage === 'capped' ? 6 * c * U : 0);
          const want = stage === 'raw' ? x : c * Math.tanh(x / c);
          const got = res.scores.data[i * Tk + j];
          if (!(abs(got - want) <= tol)) bad = { stage, i, j, got, want, tol };
        }
      expect(bad).toBeNull();
    }
  });

  test('window: query i sees its last w keys only (sliding window), on both paths, with a KV cache and kvSeqLen', () => {
    // Windows of 1 key, shorter than a tile, longer than one and longer than the sequence; a
    // cache of P keys puts query i at P + i; against the reference with the equivalent additive
    // mask, and the weights' zero pattern read directly.
    const [B, H, Tq, dk, dv] = [2, 2, 70, 8, 4];
    for (const [P, w] of [
      [0, 1],
      [0, 40],
      [530, 300],
      [0, 100],
    ]) {
      const Tall = P + Tq;
      const r = ref.rng(800 + w);
      const [Q, K, V] = [r.f32(B * H * Tq * dk), r.f32(B * H * Tall * dk), r.f32(B * H * Tall * dv, -2, 2)];
      const scale = Math.fround(1 / Math.sqrt(dk));
      const seen = (i, j) => j <= P + i && j > P + i - w;
      const split = (X, d) => {
        const [past, now] = [new Float32Array(B * H * P * d), new Float32Array(B * H * Tq * d)];
        for (let s = 0; s < B * H; s++) {
          past.set(part(X, s, Tall * d).subarray(0, P * d), s * P * d);
          now.set(part(X, s, Tall * d).subarray(P * d), s * Tq * d);
        }
        return [past, now];
      };
      const [[pk, nk], [pv, nv]] = [split(K, dk), split(V, dv)];
      const cache = P ? { pastKey: T(pk, [B, H, P, dk]), pastValue: T(pv, [B, H, P, dv]) } : {};
      for (const streaming of [true, false]) {
        const res = ag.attention(T(Q, [B, H, Tq, dk]), T(nk, [B, H, Tq, dk]), T(nv, [B, H, Tq, dv]), {
          window: w,
          streaming,
          returnWeights: !streaming,
          ...cache,
        });
        for (let s = 0; s < B * H; s++) {
          const want = slice(part(Q, s, Tq * dk), part(K, s, Tall * dk), part(V, s, Tall * dv), Tq, Tall, dk, dv, {
            scale,
            maskAt: (i, j) => (seen(i, j) ? 0 : -Infinity),
            variant: cfg.variant,
          });
          const tol = streaming ? want.tolStream : want.tolGrid;
          expectWithin(part(res.output.data, s, Tq * dv), want.Y, tol, want.hidden, dv, `P ${P}, w ${w}, slice ${s}`);
          if (!streaming) {
            const W = part(res.weights.data, s, Tq * Tall);
            let wrong = null;
            for (let i = 0; i < Tq && !wrong; i++)
              for (let j = 0; j < Tall && !wrong; j++)
                if (seen(i, j) !== W[i * Tall + j] > 0) wrong = { i, j, weight: W[i * Tall + j] };
            expect(wrong).toBeNull();
          }
        }
      }
    }
    expect(ag.callLog.at(-1).kernel).toBe('attention');
    // With kvSeqLen, the window ends at each batch's last valid key: batch 1 has 5 of 9 keys,
    // so its single query (position 4) sees keys 3 and 4 with w = 2.
    const r = ref.rng(880);
    const [Q, K, V] = [r.f32(2 * 4), r.f32(2 * 9 * 4), r.f32(2 * 9 * 3, -2, 2)];
    const res = ag.attention(T(Q, [2, 1, 1, 4]), T(K, [2, 1, 9, 4]), T(V, [2, 1, 9, 3]), {
      window: 2,
      kvSeqLen: [9, 5],
      returnWeights: true,
    });
    const nonzero = (b) => [...part(res.weights.data, b, 9)].flatMap((a, j) => (a > 0 ? [j] : []));
    expect(nonzero(0)).toEqual([7, 8]);
    expect(nonzero(1)).toEqual([3, 4]);
  });

  test('shared key/value heads (GQA, MQA): query head i reads K, V head floor(i h_kv / h_q), on both paths', () => {
    // h_q = 6 query heads on h_kv = 2 (groups of 3), 3 and 1 (multi-query) key/value heads; each
    // output slice against the float64 reference of its query head with its key/value head.
    const [B, Hq, Tq, Tk, dk, dv] = [2, 6, 20, 300, 8, 5];
    const r = ref.rng(450);
    const Q = r.f32(B * Hq * Tq * dk);
    const scale = Math.fround(1 / Math.sqrt(dk));
    for (const Hkv of [2, 3, 1]) {
      const K = r.f32(B * Hkv * Tk * dk);
      const V = r.f32(B * Hkv * Tk * dv, -2, 2);
      const kv = [T(K, [B, Hkv, Tk, dk]), T(V, [B, Hkv, Tk, dv])];
      for (const streaming of [true, false]) {
        const res = ag.attention(T(Q, [B, Hq, Tq, dk]), ...kv, { causal: true, streaming });
        expect(res.output.shape).toEqual([B, Hq, Tq, dv]);
        for (let b = 0; b < B; b++)
          for (let h = 0; h < Hq; h++) {
            const s = b * Hq + h;
            const g = b * Hkv + Math.floor((h * Hkv) / Hq);
            const want = slice(part(Q, s, Tq * dk), part(K, g, Tk * dk), part(V, g, Tk * dv), Tq, Tk, dk, dv, {
              scale,
              causal: true,
              variant: cfg.variant,
            });
            const got = part(res.output.data, s, Tq * dv);
            const tol = streaming ? want.tolStream : want.tolGrid;
            expectWithin(got, want.Y, tol, want.hidden, dv, `h_kv ${Hkv}, b ${b}, h ${h}, streaming ${streaming}`);
          }
      }
    }
    // K and V are passed once: the kernel read them through the shared heads, the log says their shapes.
    expect(ag.callLog.at(-1).args).toMatchObject({ K: [B, 1, Tk, dk], V: [B, 1, Tk, dv] });
    // An h_kv that does not divide h_q, and K and V that disagree, are RangeErrors naming the shapes.
    const q = T(Q, [B, Hq, Tq, dk]);
    const four = (d) => T(new Float32Array(B * 4 * Tk * d), [B, 4, Tk, d]);
    const two = (d) => T(new Float32Array(B * 2 * Tk * d), [B, 2, Tk, d]);
    expect(() => ag.attention(q, four(dk), four(dv))).toThrow(
      /^attention: K and V have h_kv = 4 heads and Q has h_q = 6 \(Q \[2, 6, 20, 8\], K \[2, 4, 300, 8\], V \[2, 4, 300, 5\]\); for shared key\/value heads h_kv must divide h_q/,
    );
    expect(() => ag.attention(q, four(dk), four(dv))).toThrow(RangeError);
    expect(() => ag.attention(q, two(dk), T(new Float32Array(B * Hq * Tk * dv), [B, Hq, Tk, dv]))).toThrow(
      /^attention: V has 6 heads where the other of K and V has h_kv = 2 /,
    );
  });

  test('weights or scores asked for: the materialized path, its weights the softmax kernel of its scores bit for bit', () => {
    const r = ref.rng(500);
    const [Tq, Tk, dk] = [9, 130, 16];
    const Q = T(r.f32(Tq * dk), [Tq, dk]);
    const K = T(r.f32(Tk * dk), [Tk, dk]);
    const V = T(r.f32(Tk * 3), [Tk, 3]);
    const res = ag.attention(Q, K, V, { returnWeights: true, returnScores: true });
    expect(res.weights.shape).toEqual([Tq, Tk]);
    expect(Array.from(ag.softmax(res.scores).data)).toEqual(Array.from(res.weights.data));
    // The output does not depend on which of the two is asked for, nor on streaming: false.
    const base = Array.from(res.output.data);
    expect(Array.from(ag.attention(Q, K, V, { returnScores: true }).output.data)).toEqual(base);
    expect(Array.from(ag.attention(Q, K, V, { returnWeights: true, streaming: false }).output.data)).toEqual(base);
    expect(Array.from(ag.attention(Q, K, V, { streaming: false }).output.data)).toEqual(base);
  });

  test('options.streaming: a boolean, and true cannot come with returnWeights or returnScores (TypeError naming both)', () => {
    const I2 = [
      [1, 0],
      [0, 1],
    ];
    const X8 = { data: new Float32Array(24).fill(0.5), shape: [3, 8] };
    const W8 = { data: new Float32Array(64).fill(0.125), shape: [8, 8] };
    const w = { wQ: W8, wK: W8, wV: W8, wO: W8 };
    const before = ag.heapAllocatedBytes();
    expect(() => ag.attention(I2, I2, I2, { streaming: 'yes' })).toThrow(TypeError);
    expect(() => ag.attention(I2, I2, I2, { streaming: 1 })).toThrow(
      /attention: options\.streaming must be true or false; got number/,
    );
    expect(() => ag.attention(I2, I2, I2, { streaming: true, returnWeights: true })).toThrow(TypeError);
    expect(() => ag.attention(I2, I2, I2, { streaming: true, returnWeights: true })).toThrow(
      /attention: options\.streaming is true, but options\.returnWeights/,
    );
    expect(() => ag.attention(I2, I2, I2, { streaming: true, returnScores: true })).toThrow(
      /attention: options\.streaming is true, but options\.returnScores/,
    );
    expect(() => ag.multiHeadAttention({ query: X8 }, w, { numHeads: 2, streaming: 0 })).toThrow(
      /multiHeadAttention: options\.streaming must be true or false/,
    );
    expect(() =>
      ag.multiHeadAttention({ query: X8 }, w, { numHeads: 2, streaming: true, returnWeights: true }),
    ).toThrow(/multiHeadAttention: options\.streaming is true, but options\.returnWeights/);
    // A [Tq, Tk] grid beyond the 1 GiB heap: a RangeError naming it, before anything is allocated.
    const T = 16385; // 4 T^2 bytes is just over 1 GiB
    const long = { data: new Float32Array(2 * T).fill(0.5), shape: [T, 2] };
    expect(() => ag.attention(long, long, long, { streaming: false })).toThrow(
      /attention: .*the score grid of shape \[16385, 16385\].*1 GiB/,
    );
    const W2 = { data: Float32Array.from([1, 0, 0, 1]), shape: [2, 2] };
    expect(() =>
      ag.multiHeadAttention({ query: long }, { wQ: W2, wK: W2, wV: W2, wO: W2 }, { numHeads: 1, streaming: false }),
    ).toThrow(
      /multiHeadAttention: the materialized path needs one head's \[Tq, Tk\] = \[16385, 16385\] score grid, 1073872900 bytes/,
    );
    expect(ag.heapAllocatedBytes()).toBe(before);
    // The instance is intact, and streaming: true alone is what the default does.
    expect(Array.from(ag.attention(I2, I2, I2, { streaming: true, scale: 0 }).output.data)).toEqual([
      0.5, 0.5, 0.5, 0.5,
    ]);
  });

  test('multi-head attention streams through strided heads: cross-attention, causal, key padding, biases, several tiles', () => {
    const [B, Tq, Tk, d, h] = [2, 70, 300, 24, 3];
    const dk = d / h;
    const c = constants(cfg.variant, dk);
    const r = ref.rng(600);
    const X = r.f32(B * Tq * d);
    const Xk = r.f32(B * Tk * d);
    const Xv = r.f32(B * Tk * d);
    const s = 1 / Math.sqrt(d);
    const W = {};
    for (const k of ['wQ', 'wK', 'wV', 'wO']) W[k] = r.f32(d * d, -2 * s, 2 * s);
    for (const k of ['bQ', 'bK', 'bV', 'bO']) W[k] = r.f32(d, -0.5, 0.5);
    const kpm = Array.from({ length: B * Tk }, (_, x) => x % Tk !== 0 && x % 9 === 4);
    const params = {};
    for (const [k, v] of Object.entries(W)) params[k] = T(v, v.length === d ? [d] : [d, d]);
    const scale = Math.fround(1 / Math.sqrt(dk));
    const call = (streaming) =>
      ag.multiHeadAttention({ query: T(X, [B, Tq, d]), key: T(Xk, [B, Tk, d]), value: T(Xv, [B, Tk, d]) }, params, {
        numHeads: h,
        causal: true,
        keyPaddingMask: T(kpm, [B, Tk]),
        ...(streaming === undefined ? {} : { streaming }),
      });
    const streamed = call(undefined);
    const grid = call(false);
    expect(streamed.output.shape).toEqual([B, Tq, d]);
    const gp = 1.01 * c.matmul(d);
    // Row-vector projection in float64 with its error bound gp * (sum|x w| + |b|).
    const project = (x, rows, w, b) => {
      const { out, mag } = ref.projectRows(x, rows, d, d, w, b);
      return { out, err: mag.map((m) => gp * m) };
    };
    const head = (arr, T, hh) => {
      const outArr = new Float64Array(T * dk);
      for (let t = 0; t < T; t++) for (let x = 0; x < dk; x++) outArr[t * dk + x] = arr[t * d + hh * dk + x];
      return outArr;
    };
    for (let b = 0; b < B; b++) {
      const q = project(X.subarray(b * Tq * d, (b + 1) * Tq * d), Tq, W.wQ, W.bQ);
      const k = project(Xk.subarray(b * Tk * d, (b + 1) * Tk * d), Tk, W.wK, W.bK);
      const v = project(Xv.subarray(b * Tk * d, (b + 1) * Tk * d), Tk, W.wV, W.bV);
      const concat = new Float64Array(Tq * d);
      const errS = new Float64Array(Tq * d);
      const errG = new Float64Array(Tq * d);
      for (let hh = 0; hh < h; hh++) {
        const at = slice(head(q.out, Tq, hh), head(k.out, Tk, hh), head(v.out, Tk, hh), Tq, Tk, dk, dk, {
          scale,
          causal: true,
          maskAt: (i, j) => (kpm[b * Tk + j] ? -Infinity : 0),
          variant: cfg.variant,
          qe: head(q.err, Tq, hh),
          ke: head(k.err, Tk, hh),
          ve: head(v.err, Tk, hh),
        });
        for (let t = 0; t < Tq; t++) {
          for (let x = 0; x < dk; x++) {
            concat[t * d + hh * dk + x] = at.Y[t * dk + x];
            errS[t * d + hh * dk + x] = at.tolStream[t * dk + x];
            errG[t * d + hh * dk + x] = at.tolGrid[t * dk + x];
          }
        }
      }
      // Output projection: the heads' errors through |W_O|, plus its own rounding.
      const y = new Float64Array(Tq * d);
      const tolS = new Float64Array(Tq * d);
      const tolG = new Float64Array(Tq * d);
      for (let t = 0; t < Tq; t++) {
        for (let o = 0; o < d; o++) {
          let acc = W.bO[o];
          let pS = 0;
          let pG = 0;
          let mS = abs(W.bO[o]);
          let mG = mS;
          for (let i = 0; i < d; i++) {
            const wo = abs(W.wO[i * d + o]);
            acc += concat[t * d + i] * W.wO[i * d + o];
            pS += errS[t * d + i] * wo;
            pG += errG[t * d + i] * wo;
            mS += (abs(concat[t * d + i]) + errS[t * d + i]) * wo;
            mG += (abs(concat[t * d + i]) + errG[t * d + i]) * wo;
          }
          y[t * d + o] = acc;
          tolS[t * d + o] = 1.01 * (pS + c.matmul(d) * mS) + 1e-300;
          tolG[t * d + o] = 1.01 * (pG + c.matmul(d) * mG) + 1e-300;
        }
      }
      const none = new Array(Tq).fill(false);
      expectWithin(
        streamed.output.data.subarray(b * Tq * d, (b + 1) * Tq * d),
        y,
        tolS,
        none,
        d,
        `streaming batch ${b}`,
      );
      expectWithin(
        grid.output.data.subarray(b * Tq * d, (b + 1) * Tq * d),
        y,
        tolG,
        none,
        d,
        `materialized batch ${b}`,
      );
    }
  });
});
