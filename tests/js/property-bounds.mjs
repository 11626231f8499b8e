// The error bounds of src/kernels/registry.inc (and src/kernels/gemm_simd128.h)
// as tolerances, next to the float64 values they bound, for the property
// tests. Each function takes the float32 inputs exactly as the kernel sees
// them and returns the exact value (in float64, from the formulas, with no
// code of the API), the largest error the documentation allows for the
// variant, and whether every intermediate value stays inside the float32
// range ("fine"), in which case neither an overflow error nor an infinity is
// an acceptable answer.
//
// Conventions (registry.inc): u = 2^-24; pairwise sums of n terms have
// |error| <= (2 ceil(log2 n) + 1) u sum|terms|; the simd128 matmul and the
// simd128 attention scores use the GEMM of gemm_simd128.h,
// |error| <= (min(K, 256) + ceil(K / 256) + 1) u sum|terms|.
//
// Three things the registry's relative bounds leave out are added, each a
// tiny term:
// - Underflow. A product or quotient that lands among the float32
//   subnormals can lose up to ETA = 2^-150 however small its operands (the
//   model of arithmetic with gradual underflow in Higham, "Accuracy and
//   Stability of Numerical Algorithms", 2nd ed.: fl(x op y) = (x op y)(1 + d)
//   + e, |e| <= ETA for * and /, e = 0 for + and -). Each such rounding adds
//   ETA.
// - The reference's own rounding: float64 sums of n terms are within
//   n 2^-53 of exact relatively, so 2^-50 relative covers every case here.
// - Second order. Where a first-order bound b on a relative error of an
//   exponential is stated, expm1(1.01 b) is used: the same to first order,
//   and still a bound when b is not small (then it is vacuous, as the
//   documentation's is).
import * as ref from '../reference/float64.mjs';

const { U, abs, clog2 } = ref;

export const F32_MAX = 3.4028234663852886e38;
/** The smallest value that rounds to +Infinity in float32: FLT_MAX plus half an ulp. */
export const F32_OVERFLOW = F32_MAX + 2 ** 103;
/** Half the spacing of the float32 subnormals: the most one underflowing product loses. */
export const ETA = 2 ** -150;
/** Relative error of the float64 reference. */
const REF = 2 ** -50;

export const pairwise = (n) => (2 * clog2(n) + 1) * U;
/**
 * gemm_simd128.h: each C_ij summed in k order within blocks of 256, the block
 * sums in k order (its +1 is for beta = 1; for beta = 0 it only loosens the bound by u).
 */
export const gemm = (K) => (Math.min(K, 256) + Math.ceil(K / 256) + 1) * U;
/** The matmul bound of a variant (registry.inc: matmul): the pairwise order, or the GEMM's. */
export const matmulGamma = (variant, K) => (variant === 'simd128' ? gemm(K) : pairwise(K));
/**
 * The relative bound of exp (registry.inc: exp): scalar, the C library's expf,
 * < 1 ulp, at most 2u relatively; simd128, 2 ulp, 4u relatively in the
 * normal range. Among the subnormals both are within 2 ulp of 2^-149.
 */
export const expRel = (variant) => (variant === 'simd128' ? 4 * U : 2 * U);
/**
 * Roundings of a softmax weight e_i / s once its terms and sum are known
 * (registry.inc: softmax): the scalar division, or the simd128 reciprocal 1/s
 * and the product.
 */
export const normalizeRoundings = (variant) => (variant === 'simd128' ? 2 : 1);
/** The most a subnormal weight p / l (l >= 1) is off: exp's 2 ulp of 2^-149 and the rounding of the quotient. */
const SUBNORMAL_WEIGHT = 2 ** -147;

/**
 * log(expm1(x)) without overflow: relative bounds expm1(b) are applied to
 * weights in log space, exp(log a + log expm1(b)), so that a weight that
 * underflows in float64 still gets its (possibly large) allowance instead
 * of 0 * Infinity.
 */
const logExpm1 = (x) => (x > 30 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x)));
/** log(e^a + e^b). */
const logAdd = (a, b) =>
  a === -Infinity ? b : b === -Infinity ? a : Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));

// ---- vectors and matrices ---------------------------------------------------

/**
 * a . b (registry.inc: dot, both variants): |error| <= (2 ceil(log2 n) + 1) u
 * sum|a_i b_i|, plus ETA per product. Fine when every product and partial
 * sum stays below FLT_MAX: sum|a_i b_i| (1 + bound) (1 + u) < FLT_MAX.
 */
export function dotBound(a, b) {
  const n = a.length;
  const mag = ref.sumAbsProd(a, b); // each product exact in float64: two 24-bit significands
  const g = pairwise(n);
  return { value: ref.dot(a, b), tol: (g + REF) * mag + 1.01 * n * ETA, fine: mag * (1 + g) * (1 + U) < F32_MAX };
}

/**
 * |a| (registry.inc: norm): relative error <= (ceil(log2 n) + 2) u; the
 * scaling by a power of two near max|a_i| is exact and makes the largest
 * scaled square at least 1 (or every scaled square a normal number when
 * max|a_i| is subnormal), so squares that underflow lose at most n ETA
 * relatively; the final product can land among the subnormals (ETA).
 * +Infinity only when the exact norm is beyond FLT_MAX; it must be
 * +Infinity once the norm minus its error bound rounds to infinity.
 */
export function normBound(a) {
  const n = a.length;
  const r = ref.norm(a);
  const rel = (clog2(n) + 2) * U + n * ETA + REF;
  return {
    value: r,
    tol: rel * r + 2 * ETA,
    mayOverflow: r * (1 + rel) >= F32_MAX,
    mustOverflow: r * (1 - rel) >= F32_OVERFLOW,
  };
}

/**
 * cos(a, b) (registry.inc: cosine; no number is given there, so the bound is
 * built from its description): both vectors are scaled by a power of two
 * near their max|.| (as in norm: exact), then dot(a^, b^) / (|a^| |b^|):
 * the dot's bound relative to sum|a^_i b^_i| <= |a^||b^| (Cauchy-Schwarz),
 * two norm bounds ((ceil(log2 n) + 2) u each), the product and the quotient
 * (u each). Underflow: scaled entries and products below the normal range
 * lose ETA each against |a^||b^| >= 2^-46, so n 2^-100 covers them.
 * The result is clamped to [-1, 1].
 */
export function cosineBound(a, b) {
  const n = a.length;
  const c = ref.dot(a, b) / (ref.norm(a) * ref.norm(b));
  return { value: c, tol: 1.01 * (pairwise(n) + 2 * (clog2(n) + 2) * U + 2 * U) + n * 2 ** -100 + REF };
}

/**
 * One matmul slice C = A B (or A B^T), flat row-major: per element the exact
 * sum, its bound (registry.inc: matmul and matmul_nt; scalar the pairwise
 * order, simd128 the GEMM's) plus ETA per product, and whether it is fine.
 */
export function matmulBound(A, B, M, K, N, transposeB, variant) {
  const { C, mag } = ref.matmul(A, B, M, K, N, transposeB);
  const g = matmulGamma(variant, K);
  const tol = mag.map((m) => (g + REF) * m + 1.01 * K * ETA);
  const fine = mag.map((m) => m * (1 + g) * (1 + U) < F32_MAX);
  return { C, tol, fine };
}

// ---- softmax family -----------------------------------------------------------

/**
 * Softmax rows (registry.inc: softmax) of x [rows, n] with z = x / T + mask.
 * `madd` is the additive mask already broadcast to x (or null).
 *
 * Overflow (overflow.h, index.d.ts): z_i is an overflow when x_i / T is not
 * finite, or z_i is +Infinity or NaN, or -Infinity without a -Infinity in
 * the mask; the first such index is reported. Per entry: "fine" when it
 * cannot overflow, "sure" when it must (x / T rounded once, or through a
 * reciprocal: 2u; the mask added: u more), else uncertain.
 *
 * Weights: each within (2 e + (2 ceil(log2 n) + 1 + c) u + 2 D) relatively
 * (c: normalizeRoundings), D the
 * largest error of the float z_i - max z: the rounding of x_i / T (2u; none
 * when T is a power of two) and of the mask's addition (u; none where the
 * mask is 0) for z_i and for the max, u |z_i - max|, and ETA when x / T
 * underflows. Weights that are subnormal or flushed to 0 are off
 * by at most 2^-147. A row sums to 1 within (2 ceil(log2 n) + 5 + c) u (plus the
 * subnormal weights); -Infinity entries and rows with no visible entry give +0.
 */
export function softmaxBound(x, rows, n, T, madd, variant) {
  const cls = new Int8Array(rows * n); // 0 fine, 1 uncertain, 2 sure overflow
  const w = new Float64Array(rows * n);
  const tol = new Float64Array(rows * n);
  const masked = new Uint8Array(rows * n);
  const hidden = new Uint8Array(rows);
  const e = expRel(variant);
  for (let i = 0; i < rows * n; i++) {
    const base = x[i] / T;
    const add = madd ? madd[i] : 0;
    const b = abs(base);
    let c = b * (1 + 3 * U) < F32_MAX ? 0 : b * (1 - 3 * U) >= F32_OVERFLOW ? 2 : 1;
    if (add === -Infinity) masked[i] = 1;
    else if (c === 0 && add !== 0) {
      const z = abs(base + add);
      c = (b * (1 + 2 * U) + abs(add)) * (1 + U) < F32_MAX ? 0 : z - 2 * U * b - U * z >= F32_OVERFLOW ? 2 : 1;
    }
    cls[i] = c;
  }
  // x / T is exact when T is a power of two (then only an underflow loses ETA);
  // z = x / T + 0 is exact.
  const exactDivision = Math.log2(T) === Math.round(Math.log2(T));
  for (let r = 0; r < rows; r++) {
    let M = -Infinity;
    let errMax = 0;
    for (let i = r * n; i < (r + 1) * n; i++) {
      if (masked[i]) continue;
      const base = x[i] / T;
      const add = madd ? madd[i] : 0;
      const z = base + add;
      if (z > M) M = z;
      errMax = Math.max(errMax, (exactDivision ? 0 : 2 * U * abs(base)) + (add === 0 ? 0 : U * abs(z)) + ETA);
    }
    if (M === -Infinity) {
      hidden[r] = 1;
      continue;
    }
    let spread = 0;
    let sum = 0;
    for (let i = r * n; i < (r + 1) * n; i++) {
      if (masked[i]) continue;
      const z = x[i] / T + (madd ? madd[i] : 0);
      spread = Math.max(spread, M - z);
      sum += Math.exp(z - M);
    }
    const D = 2 * errMax + U * spread;
    const logR = logExpm1(1.01 * (2 * e + (2 * clog2(n) + 1 + normalizeRoundings(variant)) * U + 2 * D));
    const logSum = Math.log(sum);
    for (let i = r * n; i < (r + 1) * n; i++) {
      if (masked[i]) continue;
      const logW = x[i] / T + (madd ? madd[i] : 0) - M - logSum;
      w[i] = Math.exp(logW);
      tol[i] = Math.exp(logW + logR) + n * REF * w[i] + SUBNORMAL_WEIGHT;
    }
  }
  return {
    w,
    tol,
    cls,
    masked,
    hidden,
    rowSumTol: (2 * clog2(n) + 5 + normalizeRoundings(variant)) * U + n * SUBNORMAL_WEIGHT,
  };
}

/**
 * log sum_i exp(x_i) per row (registry.inc: log_sum_exp: m + log sum exp(x_i - m),
 * the sum pairwise, logf in both variants; no number is given there, so the
 * bound is built from those steps). With d_i = x_i - m and w_i = exp(d_i) / s:
 * each fl(d_i) is off by u |d_i|, each exp by e relatively (the variant's exp
 * bound) or 2^-148 absolutely among the subnormals, the positive pairwise sum
 * by (2 ceil(log2 n) + 1) u; so s is off relatively by
 *   delta = e + u sum_i w_i |d_i| + (2 ceil(log2 n) + 1) u + n 2^-148   (s >= 1),
 * log turns that into an absolute error <= 1.01 delta; logf adds < 1 ulp
 * (2u |log s|) and the final m + log s rounds once (u |result|).
 */
export function logSumExpBound(x, rows, n, variant) {
  const value = Float64Array.from(ref.logSumExp(x, rows, n));
  const tol = new Float64Array(rows);
  const e = expRel(variant);
  for (let r = 0; r < rows; r++) {
    let m = -Infinity;
    for (let i = r * n; i < (r + 1) * n; i++) if (x[i] > m) m = x[i];
    let s = 0;
    let wd = 0;
    for (let i = r * n; i < (r + 1) * n; i++) {
      const p = Math.exp(x[i] - m);
      s += p;
      wd += p * (m - x[i]);
    }
    const L = Math.log(s);
    const delta = e + (U * wd) / s + pairwise(n) + n * 2 ** -148;
    tol[r] = 1.01 * (delta + 2 * U * L) + U * abs(value[r]) + REF * (abs(m) + L) + 2 * ETA;
  }
  return { value, tol };
}

// ---- attention ----------------------------------------------------------------

/**
 * q_i · k_j, the dot product of row i of Q and row j of K ([*, dk], row-major), in float64, with what an
 * error bound of it needs: mag = Σ (|q| + e_q)(|k| + e_k), and prop = Σ e_q (|k| + e_k) + |q| e_k, the
 * error carried in by inputs already off by at most qe and ke entry by entry (null: exact inputs).
 * @returns {{ dot: number, mag: number, prop: number }}
 */
export function rowDot(Q, K, i, j, dk, qe = null, ke = null) {
  let dot = 0;
  let mag = 0;
  let prop = 0;
  for (let c = 0; c < dk; c++) {
    const q = Q[i * dk + c];
    const k = K[j * dk + c];
    const eq = qe ? qe[i * dk + c] : 0;
    const ek = ke ? ke[j * dk + c] : 0;
    dot += q * k;
    mag += (abs(q) + eq) * (abs(k) + ek);
    prop += eq * (abs(k) + ek) + abs(q) * ek;
  }
  return { dot, mag, prop };
}

/**
 * One (batch, head) slice of scaled dot-product attention in float64, with the
 * bounds of registry.inc (attention) for both paths.
 *   Q [Tq, dk], K [Tk, dk], V [Tk, dv]: flat arrays; qe, ke, ve: absolute
 *   errors of their entries (from projections, in multi-head attention) or null.
 *   maskAt(i, j): the additive mask and key bias at (i, j): finite or -Infinity.
 *
 * Scores: s_ij = scale (q_i . k_j) + mask. The dot in the variant's order
 * (scalar: pairwise; simd128: the GEMM), the product by scale (u), the mask
 * and key-bias additions (u each), ETA per product, and the inputs' errors
 * scale sum_c (qe |k| + |q| ke) carried through:
 *   eS_ij = 1.01 (|scale| sum_c (qe (|k| + ke) + |q| ke) + (g_d + u) |scale| mag
 *           + 2u (|scale| mag + |mask|)) + (d_k |scale| + 2) 2 ETA,
 *   mag = sum_c (|q_c| + qe_c) (|k_c| + ke_c).
 * Overflow classes per score (the kernel reports the first score whose base
 * scale * q.k is not finite, or whose sum with a finite mask is +-Infinity or
 * NaN): 0 fine (every partial sum below FLT_MAX), 2 sure (the exact value
 * minus its error rounds to infinity), 1 uncertain. A key hidden by `causal`
 * is never computed by some paths: it is at most uncertain.
 *
 * Per visible row i, with D_i = max_j eS_ij + u max_j |s_ij - max_j s_ij|
 * (the registry's D_i) and e the variant's exp bound:
 *   weights (materialized: the variant's softmax of the float scores):
 *     relative R_i = expm1(1.01 (2 e + (2 ceil(log2 Tk) + 1 + c) u + 2 D_i)),
 *     c = normalizeRoundings(variant),
 *     applied in log space (a weight that underflows in float64 keeps its allowance)
 *   output, materialized: the weights' error and the sum over keys
 *     ((ceil(log2 Tk) + 5) u of sum_j a_j |v_jc|);
 *   output, streaming: (2 D_i + 2 n_t e + (g + 64 + 4 n_t - 1) u) sum_j a_j |v_jc|
 *     with n_t = ceil(Tk / 256) tiles and g = 258 (simd128) or 14 (scalar);
 *   both plus sum_j a_j ve_jc (the values' own errors), and the subnormal
 *   weights: 2^-147 per key per tile crossed, times max |v|.
 * Hidden rows (no visible key) give +0 weights and a +0 output.
 */
export function attentionSlice(
  Q,
  K,
  V,
  Tq,
  Tk,
  dk,
  dv,
  { scale, causal = false, maskAt = null, variant, qe = null, ke = null, ve = null },
) {
  const simd = variant === 'simd128';
  const gd = simd ? gemm(dk) : pairwise(dk);
  const e = expRel(variant);
  const sc = abs(scale);
  const nt = Math.ceil(Tk / 256);
  const S = new Float64Array(Tq * Tk);
  const eS = new Float64Array(Tq * Tk);
  const cls = new Int8Array(Tq * Tk);
  const A = new Float64Array(Tq * Tk);
  const tolW = new Float64Array(Tq * Tk);
  const logA = new Float64Array(Tk);
  const hidden = new Uint8Array(Tq);
  const Y = new Float64Array(Tq * dv);
  const tolGrid = new Float64Array(Tq * dv);
  const tolStream = new Float64Array(Tq * dv);
  const hull = new Float64Array(Tq * dv);
  const outFine = new Uint8Array(Tq * dv);
  let vmax = 0;
  for (let x = 0; x < Tk * dv; x++) vmax = Math.max(vmax, abs(V[x]) + (ve ? ve[x] : 0));
  for (let i = 0; i < Tq; i++) {
    for (let j = 0; j < Tk; j++) {
      const add = maskAt ? maskAt(i, j) : 0;
      const { dot, mag, prop } = rowDot(Q, K, i, j, dk, qe, ke);
      const base = scale * dot;
      const bm = sc * mag;
      const errBase = 1.01 * (sc * prop + (gd + U) * bm) + (dk * sc + 2) * 2 * ETA + REF * bm;
      const x = i * Tk + j;
      const hiddenByCausal = causal && j > i;
      let c = mag * (1 + gd) * 1.01 < F32_MAX && bm * (1 + gd + 2 * U) * 1.01 < F32_MAX ? 0 : 1;
      if (c === 1 && abs(base) - errBase >= F32_OVERFLOW) c = 2;
      if (add === -Infinity || hiddenByCausal) {
        S[x] = -Infinity;
        eS[x] = errBase;
      } else {
        S[x] = base + add;
        eS[x] = errBase + 1.01 * 2 * U * (bm + abs(add));
        if (c === 0 && (bm + abs(add)) * (1 + gd + 4 * U) * 1.01 >= F32_MAX) c = 1;
        if (c === 1 && abs(S[x]) - eS[x] >= F32_OVERFLOW) c = 2;
      }
      if (hiddenByCausal && c === 2) c = 1;
      cls[x] = c;
    }
    let M = -Infinity;
    let eMax = 0;
    for (let j = 0; j < Tk; j++) {
      const s = S[i * Tk + j];
      if (s === -Infinity) continue;
      if (s > M) M = s;
      eMax = Math.max(eMax, eS[i * Tk + j]);
    }
    if (M === -Infinity) {
      hidden[i] = 1;
      for (let c = 0; c < dv; c++) outFine[i * dv + c] = 1;
      continue;
    }
    let spread = 0;
    let sum = 0;
    let vVisMax = 0;
    for (let j = 0; j < Tk; j++) {
      const s = S[i * Tk + j];
      if (s === -Infinity) continue;
      spread = Math.max(spread, M - s);
      sum += Math.exp(s - M);
      for (let c = 0; c < dv; c++) vVisMax = Math.max(vVisMax, abs(V[j * dv + c]) + (ve ? ve[j * dv + c] : 0));
    }
    const logSum = Math.log(sum);
    for (let j = 0; j < Tk; j++) {
      const x = i * Tk + j;
      logA[j] = S[x] === -Infinity ? -Infinity : S[x] - M - logSum;
      A[x] = Math.exp(logA[j]);
    }
    const D = eMax + U * spread;
    const logR = logExpm1(1.01 * (2 * e + (2 * clog2(Tk) + 1 + normalizeRoundings(variant)) * U + 2 * D));
    for (let j = 0; j < Tk; j++) {
      const x = i * Tk + j;
      if (S[x] !== -Infinity) tolW[x] = Math.exp(logA[j] + logR) + Tk * REF * A[x] + SUBNORMAL_WEIGHT;
    }
    const gSum = (clog2(Tk) + 5) * U;
    const logGrid = logAdd(logR + Math.log1p(gSum), Math.log(gSum));
    const logStream = logExpm1(1.01 * (2 * D + 2 * nt * e + ((simd ? 258 : 14) + 64 + 4 * nt - 1) * U));
    for (let c = 0; c < dv; c++) {
      let y = 0;
      let ya = 0;
      let ev = 0;
      let vis = 0;
      let tg = 0;
      let ts = 0;
      for (let j = 0; j < Tk; j++) {
        if (logA[j] === -Infinity) continue;
        const a = A[i * Tk + j];
        const v = V[j * dv + c];
        const err = ve ? ve[j * dv + c] : 0;
        const m = abs(v) + err;
        y += a * v;
        ya += a * m;
        ev += a * err;
        vis = Math.max(vis, m);
        if (m > 0) {
          tg += Math.exp(logA[j] + logGrid) * m;
          ts += Math.exp(logA[j] + logStream) * m;
        }
      }
      const x = i * dv + c;
      Y[x] = y;
      const tiny = Tk * (nt + 1) * 8 * SUBNORMAL_WEIGHT * vmax + 2 ** -140;
      tolGrid[x] = tg + REF * ya + 1.01 * ev + tiny;
      tolStream[x] = ts + REF * ya + 1.01 * ev + tiny;
      // The materialized output is a combination of the visible values with
      // weights >= 0 summing to 1 within (2 ceil(log2 Tk) + 5 + c) u, summed
      // within (ceil(log2 Tk) + 5) u: a bound that holds however large D is.
      hull[x] = vis * (1 + (2 * clog2(Tk) + 5 + normalizeRoundings(variant)) * U) * (1 + gSum) * 1.01 + tiny;
      outFine[x] = vVisMax * 1.001 < F32_MAX ? 1 : 0;
    }
  }
  return {
    S,
    eS,
    cls,
    A,
    tolW,
    hidden,
    Y,
    tolGrid,
    tolStream,
    hull,
    outFine,
    rowSumTol: (2 * clog2(Tk) + 5 + normalizeRoundings(variant)) * U + Tk * SUBNORMAL_WEIGHT,
  };
}

/**
 * One batch entry of multi-head attention (registry.inc:
 * multi_head_attention) in float64 with its bounds: projections
 * P = X W + b by the variant's matmul plus the bias (one rounding more),
 *   |error| <= 1.01 (g_mm(d) + u) (sum_i |x_i w_io| + |b_o|) + d 2 ETA,
 * each head's attention by attentionSlice with those errors carried in,
 * then concat W_O + b_O with the heads' errors through |W_O| and its own
 * rounding. Returns the output with its tolerance and classes, the
 * heads' slices (weights, hidden rows, score classes), and which rows of
 * each projection Q, K, V surely stay finite (projectionFine, [T] flags).
 *   x* flat [T, d]; W {wQ, wK, wV, wO} flat [d, d] ([in, out]); b {bQ, ...} flat [d] or null.
 *   maskAt(head, i, j): additive mask plus key bias (finite or -Infinity).
 */
export function mhaBatch(xq, xk, xv, W, b, Tq, Tk, d, h, { scale, causal, maskAt, variant, streaming }) {
  const gp = matmulGamma(variant, d) + U;
  const project = (x, T, w, bias) => {
    const out = new Float64Array(T * d);
    const err = new Float64Array(T * d);
    const fine = new Uint8Array(T);
    for (let t = 0; t < T; t++) {
      let rowFine = 1;
      for (let o = 0; o < d; o++) {
        let y = bias ? bias[o] : 0;
        let m = bias ? abs(bias[o]) : 0;
        for (let i = 0; i < d; i++) {
          const p = x[t * d + i] * w[i * d + o];
          y += p;
          m += abs(p);
        }
        out[t * d + o] = y;
        err[t * d + o] = 1.01 * gp * m + d * 2 * ETA + REF * m;
        if (!(m * (1 + gp) * 1.01 < F32_MAX)) rowFine = 0;
      }
      fine[t] = rowFine;
    }
    return { out, err, fine };
  };
  const q = project(xq, Tq, W.wQ, b.bQ);
  const k = project(xk, Tk, W.wK, b.bK);
  const v = project(xv, Tk, W.wV, b.bV);
  const dk = d / h;
  const head = (arr, T, hh) => {
    const out = new Float64Array(T * dk);
    for (let t = 0; t < T; t++) for (let c = 0; c < dk; c++) out[t * dk + c] = arr[t * d + hh * dk + c];
    return out;
  };
  const concat = new Float64Array(Tq * d);
  const cerr = new Float64Array(Tq * d);
  let headsFine = v.fine.every(Boolean);
  const slices = [];
  for (let hh = 0; hh < h; hh++) {
    const at = attentionSlice(head(q.out, Tq, hh), head(k.out, Tk, hh), head(v.out, Tk, hh), Tq, Tk, dk, dk, {
      scale,
      causal,
      maskAt: (i, j) => maskAt(hh, i, j),
      variant,
      qe: head(q.err, Tq, hh),
      ke: head(k.err, Tk, hh),
      ve: head(v.err, Tk, hh),
    });
    // A score cannot be fine, nor surely overflow by this account, when a projection it reads may overflow.
    for (let i = 0; i < Tq; i++) {
      for (let j = 0; j < Tk; j++) if (!(q.fine[i] && k.fine[j]) && at.cls[i * Tk + j] !== 1) at.cls[i * Tk + j] = 1;
    }
    const tol = streaming ? at.tolStream : at.tolGrid;
    for (let t = 0; t < Tq; t++) {
      for (let c = 0; c < dk; c++) {
        concat[t * d + hh * dk + c] = at.Y[t * dk + c];
        cerr[t * d + hh * dk + c] = tol[t * dk + c];
        if (!at.outFine[t * dk + c]) headsFine = false;
      }
    }
    slices.push(at);
  }
  const Y = new Float64Array(Tq * d);
  const tol = new Float64Array(Tq * d);
  const outFine = new Uint8Array(Tq * d);
  for (let t = 0; t < Tq; t++) {
    for (let o = 0; o < d; o++) {
      let y = b.bO ? b.bO[o] : 0;
      let m = b.bO ? abs(b.bO[o]) : 0;
      let p = 0;
      for (let i = 0; i < d; i++) {
        const wo = W.wO[i * d + o];
        if (wo === 0) continue; // (a vacuous head error times an exact 0 adds nothing)
        y += concat[t * d + i] * wo;
        p += cerr[t * d + i] * abs(wo);
        m += (abs(concat[t * d + i]) + cerr[t * d + i]) * abs(wo);
      }
      Y[t * d + o] = y;
      tol[t * d + o] = 1.01 * (p + gp * m) + d * 2 * ETA + REF * m;
      outFine[t * d + o] =
        headsFine && q.fine.every(Boolean) && k.fine.every(Boolean) && m * (1 + gp) * 1.01 < F32_MAX ? 1 : 0;
    }
  }
  return { Y, tol, outFine, slices, projectionFine: { Q: q.fine, K: k.fine, V: v.fine } };
}
