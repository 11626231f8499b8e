// Parity: every registry kernel, through the JS API, against the float64
// reference (reference.mjs) for the lengths below, on both variants of the
// SIMD build and on the baseline build. Tolerances come from the error bounds
// stated in src/kernels/registry.inc (u = 2^-24, pairwise sums:
// |error| <= (2 ceil(log2 n) + 1) u sum|terms|); each is derived next to its
// check. Inputs are float32 values, so the reference sees exactly what the
// kernel sees.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';
import { dotDensity } from '../reference/density.mjs';
import * as layers from './layers-bounds.mjs';
import { referenceWithTolerance } from '../reference/transformer.mjs';

const { U, abs, clog2 } = ref;
const LENGTHS = [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4099];
const pairwise = (n) => (2 * clog2(n) + 1) * U;
// The simd128 matmul and matmul_nt (gemm_simd128.h): k order within blocks
// of 256 products, block sums added in k order.
const gemm = (K) => (Math.min(K, 256) + Math.ceil(K / 256)) * U;
const matmulBound = (ag, K) => (ag.variant === 'simd128' ? gemm(K) : pairwise(K));

/** matmul (A B) or, with `nt`, matmul_nt (A Bᵀ, B stored [N, K]) at two shapes with `n` as K, then as N. */
function checkMatmul(ag, n, r, nt) {
  for (const [M, K, N] of [
    [3, n, 5],
    [2, 7, n],
  ]) {
    const A = r.f32(M * K);
    const B = r.f32(K * N);
    const out = ag.matmul({ data: A, shape: [M, K] }, { data: B, shape: nt ? [N, K] : [K, N] }, { transposeB: nt });
    expect(out.shape).toEqual([M, N]);
    const { C, mag } = ref.matmul(A, B, M, K, N, nt);
    // Registry: the scalar variant's pairwise order, or the simd128 GEMM's
    // blocked k order (a different bound for each).
    expectClose(out.data, C, (i) => matmulBound(ag, K) * mag[i]);
  }
}

// One check per registry kernel name; `n` is the length under test.
const PARITY = {
  dot(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // Registry bound for dot.
    expectClose(ag.dot(a, b), ref.dot(a, b), pairwise(n) * ref.sumAbsProd(a, b));
  },
  squared_norm(ag, n, r) {
    const a = r.f32(n);
    expectClose(ag.squaredNorm(a), ref.squaredNorm(a), pairwise(n) * ref.squaredNorm(a));
  },
  norm(ag, n, r) {
    const a = r.f32(n, -3, 3);
    // m*sqrt(sum (a_i/m)^2): a_i/m (u) squared (2u more), a positive pairwise
    // sum, halved by the sqrt, then the sqrt and the product by m (u each).
    expectClose(ag.norm(a), ref.norm(a), ((pairwise(n) + 3 * U) / 2 + 2 * U) * ref.norm(a));
  },
  normalize(ag, n, r) {
    const a = r.f32(n, -3, 3);
    const out = ag.normalize(a);
    expect(out.shape).toEqual([n]);
    // Relative error of the norm (as above) plus the division: per element.
    const rel = (pairwise(n) + 3 * U) / 2 + 3 * U;
    const want = ref.normalize(a);
    expectClose(out.data, want, (i) => rel * abs(want[i]) + U * 1e-30);
  },
  cosine(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // Dot of the scaled vectors (pairwise bound relative to sum|a_i b_i| /
    // (|a||b|) <= 1 by Cauchy-Schwarz) plus the relative errors of the two norms
    // and the scalings, on a value of magnitude <= 1.
    const tol = pairwise(n) + 2 * ((pairwise(n) + 3 * U) / 2 + 3 * U) + 2 * U;
    expectClose(ag.cosine(a, b), ref.cosine(a, b), tol);
  },
  angle(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // 2 atan2(|a^-b^|, |a^+b^|): each unit vector carries the normalize error
    // e (relative, per element); |a^ -+ b^| then have relative error <= 2e plus
    // their own norm error; atan2's derivative wrt relative changes of both
    // arguments is <= 1/2, doubled by the factor 2, plus atan2's own rounding.
    const e = (pairwise(n) + 3 * U) / 2 + 3 * U;
    const tol = 2 * (2 * e + e) + 4 * U;
    expectClose(ag.angle(a, b), ref.angle(a, b), tol);
  },
  scalar_projection(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // a . (b/|b|): the dot bound over sum|a_i b^_i| plus b^'s relative error on each term.
    const bh = ref.normalize(b);
    const mag = ref.sumAbsProd(a, bh);
    expectClose(
      ag.scalarProjection(a, b),
      ref.scalarProjection(a, b),
      (pairwise(n) + (pairwise(n) + 3 * U) / 2 + 3 * U) * mag,
    );
  },
  vector_projection(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // (a . b^) b^: the scalar projection's absolute error times |b^_j| plus
    // the product's rounding and b^_j's own relative error.
    const bh = ref.normalize(b);
    const sp = ref.scalarProjection(a, b);
    const eN = (pairwise(n) + 3 * U) / 2 + 3 * U;
    const eSp = (pairwise(n) + eN) * ref.sumAbsProd(a, bh);
    const want = ref.vectorProjection(a, b);
    const out = ag.vectorProjection(a, b);
    expect(out.shape).toEqual([n]);
    expectClose(out.data, want, (j) => eSp * abs(bh[j]) + (eN + U) * abs(sp * bh[j]));
  },
  squared_distance(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    // Each (a_i - b_i) rounds (u), squared (2u + u), then the pairwise sum.
    expectClose(ag.squaredDistance(a, b), ref.squaredDistance(a, b), (pairwise(n) + 3 * U) * ref.squaredDistance(a, b));
  },
  dot_trace(ag, n, r) {
    const a = r.f32(n);
    const b = r.f32(n);
    const t = ag.dotTrace(a, b);
    // Contract: the trace ends with this instance's dot, bit for bit, which
    // is within dot's registry bound of the reference.
    expect(t.variant).toBe(ag.variant);
    expect(t.steps.at(-1).kind).toBe('total');
    expect(Object.is(t.value, ag.dot(a, b))).toBe(true);
    expectClose(t.value, ref.dot(a, b), pairwise(n) * ref.sumAbsProd(a, b));
    expect(t.trace.shape).toEqual([t.steps.length, 20]);
  },
  weighted_sum(ag, n, r) {
    for (const [T, d] of [
      [n, 3],
      [3, n],
    ]) {
      const alpha = r.f32(T, 0, 1);
      const V = r.f32(T * d);
      const out = ag.weightedSum(alpha, { data: V, shape: [T, d] });
      expect(out.shape).toEqual([d]);
      const { y, mag } = ref.weightedSum(alpha, V, T, d);
      // Registry: the T terms per channel in dot's pairwise order.
      expectClose(out.data, y, (c) => pairwise(T) * mag[c]);
    }
  },
  matmul: (ag, n, r) => checkMatmul(ag, n, r, false),
  matmul_nt: (ag, n, r) => checkMatmul(ag, n, r, true),
  exp(ag, n, r) {
    const x = r.f32(n, -80, 80);
    const out = ag.exp(x);
    const want = ref.exp(x);
    // Registry: relative error <= 4u for results in the normal range.
    expectClose(out.data, want, (i) => 4 * U * want[i]);
  },
  softmax(ag, n, r) {
    const rows = 3;
    const x = r.f32(rows * n, -4, 4);
    const temperature = 0.75;
    // An additive mask with some -Infinity, never a whole row.
    const mask = Float32Array.from({ length: rows * n }, (_, i) =>
      i % n !== 0 && i % 3 === 0 ? -Infinity : i % 5 === 0 ? -0.5 : 0,
    );
    const out = ag.softmax({ data: x, shape: [rows, n] }, { temperature, mask: { data: mask, shape: [rows, n] } });
    expect(out.shape).toEqual([rows, n]);
    const want = ref.softmax(x, rows, n, { temperature, mask });
    // Per weight (relative): z = x/T + mask (2 roundings, on |z| <= 6 so the
    // shifted z - max (|.| <= 12) carries 3 * 12 u), exp 4u, the positive
    // pairwise sum and the normalisation (registry.inc: a division, one
    // rounding, in the scalar variant; 1/sum and a product, two, in simd128).
    const c = ag.variant === 'simd128' ? 2 : 1;
    const rel = 36 * U + 4 * U + pairwise(n) + c * U;
    expectClose(out.data, want, (i) => rel * want[i]);
    // Registry: each row sums to 1 within (2 ceil(log2 n) + 5 + c) u (summed here in float64).
    for (let row = 0; row < rows; row++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += out.data[row * n + i];
      expect(abs(s - 1)).toBeLessThanOrEqual((2 * clog2(n) + 5 + c) * U);
    }
  },
  softmax_naive(ag, n, r) {
    const rows = 2;
    const x = r.f32(rows * n, -4, 4);
    const out = ag.softmaxNaive({ data: x, shape: [rows, n] });
    const want = ref.softmax(x, rows, n);
    // exp (4u; relative) in numerator and sum, the positive pairwise sum, the division.
    expectClose(out.data, want, (i) => (8 * U + pairwise(n) + U) * want[i]);
  },
  log_sum_exp(ag, n, r) {
    const rows = 3;
    const x = r.f32(rows * n, -10, 10);
    const out = ag.logSumExp({ data: x, shape: [rows, n] });
    expect(out.shape).toEqual([rows]);
    const want = ref.logSumExp(x, rows, n);
    // m + log(s): s has relative error (4u exp + pairwise + u|x - m| <= 20u),
    // which log turns into the same absolute error; plus the roundings of the
    // log and of the sum, relative to |m| and |log s| <= log n.
    expectClose(out.data, want, (i) => 24 * U + pairwise(n) + 2 * U * (abs(want[i]) + Math.log(n) + 1));
    // A vector gives a number.
    const one = ag.logSumExp(x.subarray(0, n));
    expect(typeof one).toBe('number');
    expectClose(one, want[0], 24 * U + pairwise(n) + 2 * U * (abs(want[0]) + Math.log(n) + 1));
  },
  entropy_bits(ag, n, r) {
    const x = r.f32(n, -3, 3);
    const p = Float32Array.from(ref.softmax(x, 1, n));
    // -sum p log2 p: each log2 has absolute error <= 2u max(1, |log2 p_i|)
    // (weighted by p_i, which sum to 1), each product u, then the pairwise sum
    // over the terms.
    let mag = 0;
    for (const v of p) if (v > 0) mag += abs(v * Math.log2(v));
    const tol = (pairwise(n) + U) * mag + 2 * U * (mag + 1);
    expectClose(ag.entropy(p), ref.entropyBits(p), tol);
  },
  softmax_jacobian(ag, n, r) {
    const x = r.f32(n, -3, 3);
    const a = Float32Array.from(ref.softmax(x, 1, n));
    const J = ag.softmaxJacobian(a);
    expect(J.shape).toEqual([n, n]);
    // alpha_i (delta_ij - alpha_j): one subtraction and one product (u each,
    // relative), compared element by element without building an n x n array.
    const Jd = J.data;
    const u2 = 2 * U;
    let bad = -1;
    outer: for (let i = 0; i < n; i++) {
      const ai = a[i];
      for (let j = 0; j < n; j++) {
        const d = i === j ? 1 : 0;
        const aj = a[j];
        if (abs(Jd[i * n + j] - ai * (d - aj)) > u2 * ai * (d + aj)) {
          bad = i * n + j;
          break outer;
        }
      }
    }
    expect(bad).toBe(-1);
  },
  rope(ag, n, r) {
    // d = n rounded up to even (every tail of the four-wide loops), 3 rows of T = 4 tokens, both
    // pair layouts, positions from 0 to 2^24; no reduction, so both variants give the same floats.
    const [rows, T, d] = [3, 4, n + (n % 2)];
    const x = r.f32(rows * T * d, -3, 3);
    const positions = [0, 1, 4097, 2 ** 24];
    for (const interleaved of [true, false]) {
      const got = ag.rope({ data: x, shape: [rows, T, d] }, { positions, interleaved });
      expect(got.shape).toEqual([rows, T, d]);
      const want = ref.rope(x, positions, rows, T, d, { interleaved });
      expectClose(
        got.data,
        want.y,
        Array.from(want.mag, (m) => 4 * U * m + 3 * 2 ** -149),
      );
    }
  },
  attention(ag, n, r) {
    // Tk = n (long key axis, masked and causal) and d_k = n (long dot products).
    const cases = [
      { B: 2, Tq: 3, Tk: n, dk: 8, dv: 5, causal: false, mask: true },
      { B: 1, Tq: 2, Tk: 3, dk: n, dv: 4, causal: true, mask: false },
    ];
    for (const c of cases) {
      const Q = r.f32(c.B * c.Tq * c.dk, -2, 2);
      const K = r.f32(c.B * c.Tk * c.dk, -2, 2);
      const V = r.f32(c.B * c.Tk * c.dv, -2, 2);
      const scale = Math.fround(1 / Math.sqrt(c.dk));
      // Boolean [Tq, Tk] mask: key 0 always visible, a pattern elsewhere.
      const bool = Array.from({ length: c.Tq * c.Tk }, (_, i) => i % c.Tk === 0 || (i * 7) % 5 !== 0);
      const res = ag.attention(
        { data: Q, shape: [c.B, c.Tq, c.dk] },
        { data: K, shape: [c.B, c.Tk, c.dk] },
        { data: V, shape: [c.B, c.Tk, c.dv] },
        { causal: c.causal, mask: c.mask ? { data: bool, shape: [c.Tq, c.Tk] } : undefined, returnWeights: true },
      );
      expect(res.output.shape).toEqual([c.B, c.Tq, c.dv]);
      expect(res.weights.shape).toEqual([c.B, c.Tq, c.Tk]);
      for (let b = 0; b < c.B; b++) {
        const sl = (arr, T, d) => arr.subarray(b * T * d, (b + 1) * T * d);
        const want = ref.attentionSlice(
          sl(Q, c.Tq, c.dk),
          sl(K, c.Tk, c.dk),
          sl(V, c.Tk, c.dv),
          c.Tq,
          c.Tk,
          c.dk,
          c.dv,
          {
            scale,
            causal: c.causal,
            maskAt: c.mask ? (i, j) => (bool[i * c.Tk + j] ? 0 : -Infinity) : null,
            variant: ag.variant,
          },
        );
        // First-order bound from reference.attentionSlice (scores, softmax, mixture).
        expectClose(sl(res.output.data, c.Tq, c.dv), want.Y, (i) => want.bound[i] + 1e-30);
        expectClose(sl(res.weights.data, c.Tq, c.Tk), want.A, (i) => want.eRow[Math.floor(i / c.Tk)] * want.A[i]);
      }
    }
  },
  attention_trace(ag, n, r) {
    // Tk = n keys on tiles of 4 (and the production tile), d_k = 3: the output
    // within the streaming bound of registry.inc for n_t = ceil(n / t) tiles
    // (tests/reference/float64.mjs onlineSoftmax derives it).
    const [Tq, dk, dv] = [2, 3, 2];
    const Q = r.f32(Tq * dk, -2, 2);
    const K = r.f32(n * dk, -2, 2);
    const V = r.f32(n * dv, -2, 2);
    const scale = Math.fround(1 / Math.sqrt(dk));
    for (const tileKeys of [4, 256]) {
      const res = ag.attentionTrace(
        { data: Q, shape: [Tq, dk] },
        { data: K, shape: [n, dk] },
        { data: V, shape: [n, dv] },
        {
          tileKeys,
        },
      );
      expect(res.variant).toBe(ag.variant);
      const want = ref.onlineSoftmax(Q, K, V, Tq, n, dk, dv, { scale, tileKeys, variant: ag.variant });
      expect(res.steps.length).toBe(want.steps.length);
      expectClose(res.output.data, want.Y, Array.from(want.yBound));
    }
  },
  multi_head_attention(ag, n, r) {
    // Tk = n keys, d_model = 8, h = 2, batched B = 2, biases, key padding, causal off.
    const B = 2;
    const Tq = 3;
    const Tk = n;
    const d = 8;
    const h = 2;
    const X = r.f32(B * Tq * d);
    const Xk = r.f32(B * Tk * d);
    const Xv = r.f32(B * Tk * d);
    const W = {};
    for (const w of ['wQ', 'wK', 'wV', 'wO']) W[w] = r.f32(d * d, -0.5, 0.5);
    for (const b of ['bQ', 'bK', 'bV', 'bO']) W[b] = r.f32(d, -0.1, 0.1);
    const kpm = Array.from({ length: B * Tk }, (_, i) => i % Tk !== 0 && i % 4 === 1);
    const params = {};
    for (const [k, v] of Object.entries(W)) params[k] = { data: v, shape: v.length === d ? [d] : [d, d] };
    const res = ag.multiHeadAttention(
      {
        query: { data: X, shape: [B, Tq, d] },
        key: { data: Xk, shape: [B, Tk, d] },
        value: { data: Xv, shape: [B, Tk, d] },
      },
      params,
      { numHeads: h, keyPaddingMask: { data: kpm, shape: [B, Tk] }, returnWeights: true },
    );
    expect(res.output.shape).toEqual([B, Tq, d]);
    expect(res.weights.shape).toEqual([B, h, Tq, Tk]);
    for (let b = 0; b < B; b++) {
      const sl = (arr, T) => arr.subarray(b * T * d, (b + 1) * T * d);
      const keyBias = kpm.slice(b * Tk, (b + 1) * Tk).map((m) => (m ? -Infinity : 0));
      const want = ref.mhaOne(sl(X, Tq), sl(Xk, Tk), sl(Xv, Tk), W, Tq, Tk, d, h, {
        scale: Math.fround(1 / Math.sqrt(d / h)),
        keyBias,
        variant: ag.variant,
      });
      // First-order bound propagated through the projections, attention and W_O (reference.mhaOne).
      expectClose(res.output.data.subarray(b * Tq * d, (b + 1) * Tq * d), want.Y, (i) => want.bound[i] + 1e-30);
      const wts = res.weights.data.subarray(b * h * Tq * Tk, (b + 1) * h * Tq * Tk);
      expectClose(wts, want.A, (i) => want.wBound[i]);
    }
  },
  philox_uniform(ag, n) {
    // Bit-exact: an independent Philox4x32-10 (checked against the Random123 answers in random.test.mjs).
    const seed = 0x1234567890abn;
    const counter = 0xfffffffdn; // crosses the 32-bit boundary of the counter
    const out = ag.random.uniform({ seed, counter, n });
    expect(out.shape).toEqual([n]);
    expect(Array.from(out.data)).toEqual(ref.philoxUniform(seed, counter, n));
  },
  philox_normal(ag, n) {
    const seed = 42n;
    const out = ag.random.normal({ seed, counter: 7, n });
    expect(out.shape).toEqual([n]);
    const want = ref.philoxNormal(seed, 7n, n);
    // Box-Muller in float32: the angle 2 pi u2 is rounded twice (2 pi to
    // float, the product), an absolute error <= 2 * 2 pi u that moves the
    // sample by r times that; cosf/sinf add u absolute (times r); r itself
    // (logf, the product by -2, sqrtf) and the final product add 4u relative.
    expectClose(out.data, want, (i) => U * (15 * want.radius[i] + 4 * abs(want[i])));
  },
  random_dot_experiment(ag, n) {
    const d = n;
    const trials = n > 1000 ? 3 : 9;
    for (const measure of ['dot', 'cosine']) {
      const range = measure === 'dot' ? [-2 * Math.sqrt(d), 2 * Math.sqrt(d)] : [-0.5, 0.5];
      const bins = 7;
      const res = ag.randomDotExperiment({ d, trials, seed: 99, measure, bins, range });
      expect(res.samples.shape).toEqual([trials]);
      const s = [];
      // Each trial t draws a and b from counters 2 t ceil(d/4) and (2t + 1) ceil(d/4) (registry).
      const blocks = BigInt(Math.ceil(d / 4));
      for (let t = 0; t < trials; t++) {
        const a = ref.philoxNormal(99n, 2n * BigInt(t) * blocks, d);
        const b = ref.philoxNormal(99n, (2n * BigInt(t) + 1n) * blocks, d);
        // The float32 normals differ from these by at most e_i (see philox_normal);
        // that perturbs the measure by `pert` (first order), on top of the
        // measure's own bound (dot, or cosine as in the cosine check).
        const err = (z) => z.map((v, i) => U * (15 * z.radius[i] + 4 * abs(v)));
        const ea = err(a);
        const eb = err(b);
        let pert = 0;
        for (let i = 0; i < d; i++) pert += ea[i] * abs(b[i]) + abs(a[i]) * eb[i];
        let tol;
        if (measure === 'dot') {
          tol = pairwise(d) * ref.sumAbsProd(a, b) + pert;
        } else {
          const na = ref.norm(a);
          const nb = ref.norm(b);
          let ra = 0;
          let rb = 0;
          for (let i = 0; i < d; i++) {
            ra += (abs(a[i]) * ea[i]) / (na * na);
            rb += (abs(b[i]) * eb[i]) / (nb * nb);
          }
          const cosTol = pairwise(d) + 2 * ((pairwise(d) + 3 * U) / 2 + 3 * U) + 2 * U;
          tol = pert / (na * nb) + (ra + rb) + cosTol;
        }
        const want = measure === 'dot' ? ref.dot(a, b) : ref.cosine(a, b);
        expectClose(res.samples.data[t], want, tol);
        s.push(res.samples.data[t]);
      }
      // Statistics of the returned samples, in float64.
      const mean = s.reduce((x, y) => x + y, 0) / trials;
      const std = Math.sqrt(s.reduce((x, y) => x + (y - mean) ** 2, 0) / trials);
      const rms = Math.sqrt(s.reduce((x, y) => x + y * y, 0) / trials);
      const lo = Math.fround(range[0]);
      const hi = Math.fround(range[1]);
      const counts = new Array(bins).fill(0);
      let out = 0;
      for (const v of s) {
        if (v < lo || v >= hi) out++;
        else counts[Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins))]++;
      }
      const scaleTol = 1e-6 * (rms + 1);
      expectClose([res.mean, res.std, res.rms], [mean, std, rms], scaleTol);
      expect(res.outOfRange).toBe(out);
      expectClose(res.meanAbs, s.reduce((x, y) => x + Math.abs(y), 0) / trials, scaleTol);
      expect(res.histogram.counts.reduce((x, y) => x + y, 0)).toBe(trials - out);
      expect(Array.from(res.histogram.counts)).toEqual(counts);
    }
  },
  dot_density(ag, n, r) {
    // d = n (capped at 4096), n points over +-6 standard deviations, and 0.
    const d = Math.min(n, 4096);
    const x = r.f32(n, -6 * Math.sqrt(d), 6 * Math.sqrt(d));
    x[0] = 0;
    const out = ag.dotProductDensity(x, d);
    expect(out.shape).toEqual([n]);
    // Registry: 2u relative where normal, 2^-149 absolute below; the
    // independent reference (reference-density.mjs) is good to ~1e-11.
    // Every point is computed independently, so the vector loop and its tail
    // are exercised by the first and last points; the float64 quadrature of
    // the reference is slow, so long inputs are checked on those and on every
    // 16th point in between (the kernel still runs on all n).
    const checked = Array.from(x, (_, i) => i).filter((i) => n <= 129 || i < 64 || i >= n - 64 || i % 16 === 0);
    const want = checked.map((i) => dotDensity(x[i], d));
    if (d === 1) {
      expect(out.data[0]).toBe(Infinity);
      want[0] = Infinity;
    }
    const got = Float32Array.from(checked, (i) => out.data[i]);
    expectClose(got, want, (i) => (want[i] === Infinity ? 0 : (2 * U + 1e-11) * want[i] + 2 ** -149));
  },
  greedy_packing(ag, n) {
    // d = n up to 129 (a few hundred candidates), eps = 0.3; recomputed in
    // float64 from the same normals; a decision within the float dot's bound
    // of the threshold could differ, which these seeds do not meet.
    const d = Math.min(n, 129);
    const eps = 0.3;
    const candidates = 300;
    const res = ag.greedyPacking({ d, candidates, epsilon: eps, seed: 11 });
    const blocks = BigInt(Math.ceil(d / 4));
    const kept = [];
    for (let c = 0; c < candidates; c++) {
      const z = ref.philoxNormal(11n, BigInt(c) * blocks, d);
      const u = ref.normalize(z);
      if (kept.every((v) => abs(ref.dot(u, v)) <= eps)) kept.push(u);
    }
    expect(res.kept).toBe(kept.length);
    expect(res.directions.shape).toEqual([kept.length, d]);
    const tol = (pairwise(d) + 20 * U) * 2;
    expectClose(
      res.directions.data,
      kept.flatMap((v) => Array.from(v)),
      tol,
    );
    // Continuing from the first half gives the same count.
    const half = ag.greedyPacking({ d, candidates: candidates / 2, epsilon: eps, seed: 11 });
    const rest = ag.greedyPacking({
      d,
      candidates: candidates / 2,
      epsilon: eps,
      seed: 11,
      first: candidates / 2,
      directions: half.directions,
    });
    expect(rest.kept).toBe(res.kept);
    if (d >= 64) expect(res.kept).toBeGreaterThan(d);
  },
  softmax_backward(ag, n, r) {
    // Two rows of softmax weights of n logits and their gradients; registry bound per element.
    const y = Float32Array.from(ref.softmax(r.f32(2 * n, -4, 4), 2, n));
    const dy = r.f32(2 * n, -2, 2);
    const got = ag.softmaxBackward({ data: y, shape: [2, n] }, { data: dy, shape: [2, n] });
    const want = ref.softmaxBackward(y, dy, 2, n);
    expectClose(got.data, want.dx, (i) => pairwise(n) * want.sAbs[i] + 2 * U * want.dAbs[i] + 2 ** -149);
  },
  attention_backward(ag, n, r) {
    // Tk = n keys (n capped at 1000: the float64 reference is O(Tq Tk d)) and d_k = n, one head each;
    // the registry bound of attention_backward per element (attentionGradientBounds).
    const m = Math.min(n, 1000);
    for (const c of [
      { Tq: 3, Tk: m, dk: 8, dv: 5, causal: false },
      { Tq: 4, Tk: 4, dk: m, dv: 3, causal: true },
    ]) {
      const [Q, K, V, dY] = [c.Tq * c.dk, c.Tk * c.dk, c.Tk * c.dv, c.Tq * c.dv].map((k) => r.f32(k, -1, 1));
      const got = ag.attentionBackward(
        { data: Q, shape: [c.Tq, c.dk] },
        { data: K, shape: [c.Tk, c.dk] },
        { data: V, shape: [c.Tk, c.dv] },
        { data: dY, shape: [c.Tq, c.dv] },
        { causal: c.causal },
      );
      const scale = Math.fround(1 / Math.sqrt(c.dk));
      const g = ref.attentionGradients(Q, K, V, dY, c.Tq, c.Tk, c.dk, c.dv, { scale, causal: c.causal });
      const bound = ref.attentionGradientBounds(g, c.Tq, c.Tk, c.dk, c.dv, ag.variant);
      for (const name of ['dQ', 'dK', 'dV']) expectClose(got[name].data, g[name], bound[name]);
    }
  },
  matmul_tn(ag, n, r) {
    for (const [M, K, N] of [
      [3, n, 5],
      [n, 7, 2],
    ]) {
      const A = r.f32(K * M);
      const B = r.f32(K * N);
      const out = ag.matmul({ data: A, shape: [K, M] }, { data: B, shape: [K, N] }, { transposeA: true });
      expect(out.shape).toEqual([M, N]);
      const At = new Float32Array(M * K);
      for (let k = 0; k < K; k++) for (let i = 0; i < M; i++) At[i * K + k] = A[k * M + i];
      const { C, mag } = ref.matmul(At, B, M, K, N);
      // Registry: matmul's order and bound in each variant.
      expectClose(out.data, C, (i) => matmulBound(ag, K) * mag[i]);
    }
  },
  // The layers family: registry.inc's bounds, as layers-bounds.mjs evaluates them.
  layer_norm(ag, n, r) {
    const x = r.f32(2 * n, -3, 3);
    const gamma = r.f32(n, 0.5, 1.5);
    const beta = r.f32(n);
    const out = ag.layerNorm({ data: x, shape: [2, n] }, { gamma, beta });
    const want = ref.layerNorm(x, 2, n, { gamma, beta, eps: Math.fround(1e-5) });
    const t = layers.layerNormTolerances(x, n, want, Math.fround(1e-5), gamma);
    expectClose(out.mean.data, want.mean, t.mean);
    expectClose(out.rstd.data, want.rstd, t.rstd);
    expectClose(out.y.data, want.y, t.y);
  },
  layer_norm_backward(ag, n, r) {
    const x = r.f32(2 * n, -3, 3);
    const dy = r.f32(2 * n);
    const gamma = r.f32(n, 0.5, 1.5);
    const { mean, rstd } = ag.layerNorm({ data: x, shape: [2, n] }, { gamma });
    const out = ag.layerNormBackward({ data: dy, shape: [2, n] }, { data: x, shape: [2, n] }, { gamma, mean, rstd });
    const want = ref.layerNormBackward(dy, x, 2, n, { gamma, mean: mean.data, rstd: rstd.data });
    const t = layers.layerNormBackwardTolerances(2, n, rstd.data, want);
    expectClose(out.dx.data, want.dx, t.dx);
    expectClose(out.dGamma.data, want.dGamma, t.dGamma);
    expectClose(out.dBeta.data, want.dBeta, t.dBeta);
  },
  cross_entropy(ag, n, r) {
    const logits = r.f32(3 * n, -8, 8);
    const targets = [0, -1, n - 1];
    const out = ag.crossEntropy({ data: logits, shape: [3, n] }, targets);
    expect(out.count).toBe(2);
    const want = ref.crossEntropy(logits, targets, 3, n, 0.5);
    const t = layers.crossEntropyTolerances(ag.variant, logits, targets, n, 0.5, want);
    expectClose(out.losses.data, want.losses, t.losses);
    expectClose(out.dLogits.data, want.dLogits, t.dLogits);
  },
  adam_update(ag, n, r) {
    const [param, grad, m] = [r.f32(n), r.f32(n, -2, 2), r.f32(n, -0.5, 0.5)];
    const v = r.f32(n, 0, 0.3);
    const out = ag.adamUpdate(param, grad, { m, v }, { lr: 1e-2, step: 3 });
    const h = {
      lr: Math.fround(1e-2),
      beta1: Math.fround(0.9),
      beta2: Math.fround(0.999),
      eps: Math.fround(1e-8),
      step: 3,
    };
    const want = ref.adamUpdate(param, grad, m, v, h);
    const t = layers.adamTolerances(h, want);
    expectClose(out.m.data, want.m, t.m);
    expectClose(out.v.data, want.v, t.v);
    expectClose(out.param.data, want.param, t.param);
  },
  // The transformer (family "transformer"): tiny models whose sizes follow n; the
  // tolerances are referenceWithTolerance's (tests/reference/transformer.mjs, derived
  // from the kernels' per-term bounds; tests/js/transformer.test.mjs has the larger cases).
  transformer_init(ag, n) {
    const model = ag.createTransformer({ vocab: 3, T: 2, dModel: 4, heads: 1, mlp: n % 2 === 0, seed: n });
    const p = model.parameters();
    for (const { name, offset, shape } of model.layout) {
      const count = shape.reduce((a, b) => a * b, 1);
      if (/gamma|beta|\.b[12]$/.test(name)) {
        expect(Array.from(p[name])).toEqual(Array(count).fill(name.endsWith('gamma') ? 1 : 0));
        continue;
      }
      // philox_normal from the seed at counter offset / 4 (its bound, above), times the
      // float32 1/sqrt(fan_in) (1 for the embeddings): one more rounding, u relatively.
      const z = ref.philoxNormal(BigInt(n), BigInt(offset / 4), count);
      const std = name.startsWith('embed.') ? 1 : Math.fround(1 / Math.sqrt(shape[0]));
      const want = z.map((x) => x * std);
      expectClose(p[name], want, (j) => std * U * (15 * z.radius[j] + 4 * Math.abs(z[j])) + U * Math.abs(want[j]));
    }
    model.dispose();
  },
  transformer_forward(ag, n) {
    const { model, batch, want, tol } = tinyTransformer(ag, n);
    expectClose(model.forward(batch.tokens).logits.data, want.logits, tol.logits);
    expectClose(model.evaluate(batch).loss, want.loss, tol.loss);
    model.dispose();
  },
  transformer_gradients(ag, n) {
    const { model, batch, want, tol } = tinyTransformer(ag, n);
    const got = model.gradients(batch).gradients;
    for (const name of Object.keys(want.grads)) expectClose(got[name], want.grads[name], tol[name]);
    model.dispose();
  },
  transformer_adam(ag, n) {
    const { model, batch } = tinyTransformer(ag, n);
    const before = model.parameters().unembed;
    const g = model.gradients(batch).gradients.unembed;
    model.step(batch, { lr: 0.05 });
    // Step 1 moves each parameter by lr g / (|g| + eps) (Kingma & Ba 2015, Algorithm 1): within
    // adam_update's bound u |p'| + 14 u lr (see tests/js/transformer.test.mjs).
    const want = Array.from(before, (x, j) => x - (0.05 * g[j]) / (Math.abs(g[j]) + 1e-8));
    expectClose(model.parameters().unembed, want, (j) => U * (Math.abs(want[j]) + 14 * 0.05));
    model.dispose();
  },
};

// The reference and its tolerances by model and batch: the same n gives the same parameters (the
// initialisation is one implementation in every build) and batch on every build and variant.
const transformerReferences = new Map();

/** A model of 1 or 2 layers, a batch of 1 or 2 rows, by n, and the reference's { want, tol } (referenceWithTolerance). */
function tinyTransformer(ag, n) {
  const config = { vocab: 5, T: 3, dModel: 4, heads: 2, layers: 1 + (n % 2), mlp: n % 3 !== 0, seed: n };
  config.norm = n % 4 === 0 ? 'none' : 'layer';
  const B = 1 + (n % 2);
  const r = ref.rng(n);
  const tokens = Int32Array.from({ length: B * config.T }, () => Math.floor(r() * config.vocab));
  const targets = Int32Array.from(tokens, (t, j) => (j % 3 === 0 ? -1 : (t + 1) % config.vocab));
  const model = ag.createTransformer(config);
  const params = model.parameters();
  const key = JSON.stringify([config, Object.values(params).map((p) => Array.from(p)), Array.from(tokens)]);
  if (!transformerReferences.has(key))
    transformerReferences.set(key, referenceWithTolerance(config, params, tokens, targets, B, { draws: 2 }));
  return { model, batch: { tokens, targets }, ...transformerReferences.get(key) };
}

describe.each(CONFIGS)('parity with the float64 reference: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test('instance reports its build and variant', () => {
    expect(ag.backend).toBe(cfg.backend);
    expect(ag.variant).toBe(cfg.variant);
  });

  test('every registry kernel has a parity test (a new kernel fails here until it is tested)', () => {
    const names = ag.kernels.map((k) => k.name);
    expect(names.length).toBeGreaterThan(0);
    const untested = names.filter((k) => !(k in PARITY));
    expect(untested).toEqual([]);
    const expectedVariants = cfg.backend === 'wasm-simd128' ? ['scalar', 'simd128'] : ['scalar'];
    for (const k of ag.kernels)
      expect(k.variants).toEqual(
        (k.family === 'random' || k.name === 'transformer_init') && k.variants[0] === 'shared'
          ? ['shared']
          : expectedVariants,
      );
  });

  for (const [name, check] of Object.entries(PARITY)) {
    test.each(LENGTHS)(`${name}, n = %i`, (n) => {
      check(ag, n, ref.rng(1000 * n + name.length));
    });
  }
});
