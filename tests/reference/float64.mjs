// The float64 reference of the project: one module for the JS tests (tests/js),
// the browser tests (tests/browser) and the benchmark (scripts/bench). Plain
// loops over plain arrays, written from the formulas (Vaswani et al. 2017
// §3.2.1-3.2.2 and the articles), with no code from the API under test. Each function that feeds a tolerance also
// returns the magnitudes the error bounds of the registry are stated in.

/**
 * |x|. (Math.abs is avoided in hot loops: under Jest's vm modules each call
 * crosses contexts and costs ~0.5 us, which made the large cases slow.)
 */
export const abs = (x) => (x < 0 ? -x : x);

/** float32 unit roundoff u = 2^-24 (registry.inc). */
export const U = 2 ** -24;
/** ceil(log2 n), 0 for n = 1. */
export const clog2 = (n) => (n <= 1 ? 0 : Math.ceil(Math.log2(n)));

export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
export function sumAbsProd(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += abs(a[i] * b[i]);
  return s;
}
export const squaredNorm = (a) => dot(a, a);
export function norm(a) {
  let m = 0;
  for (const x of a) m = Math.max(m, abs(x));
  if (m === 0) return 0;
  let s = 0;
  for (const x of a) s += (x / m) ** 2;
  return m * Math.sqrt(s);
}
export function normalize(a) {
  const n = norm(a);
  return Array.from(a, (x) => x / n);
}
export function cosine(a, b) {
  return dot(a, b) / (norm(a) * norm(b));
}
/** Angle in radians: 2 atan2(|a^ - b^|, |a^ + b^|) in float64. */
export function angle(a, b) {
  const na = norm(a);
  const nb = norm(b);
  const d = [];
  const s = [];
  for (let i = 0; i < a.length; i++) {
    d.push(a[i] / na - b[i] / nb);
    s.push(a[i] / na + b[i] / nb);
  }
  return 2 * Math.atan2(norm(d), norm(s));
}
export const scalarProjection = (a, b) => dot(a, b) / norm(b);
export function vectorProjection(a, b) {
  const c = dot(a, b) / dot(b, b);
  return Array.from(b, (x) => c * x);
}
export function squaredDistance(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] - b[i]) ** 2;
  return s;
}
/** y = sum_j alpha_j V_j, V as flat [T, d]. Returns {y, mag} with mag_c = sum_j |alpha_j V_jc|. */
export function weightedSum(alpha, V, T, d) {
  const y = new Array(d).fill(0);
  const mag = new Array(d).fill(0);
  for (let j = 0; j < T; j++) {
    for (let c = 0; c < d; c++) {
      y[c] += alpha[j] * V[j * d + c];
      mag[c] += abs(alpha[j] * V[j * d + c]);
    }
  }
  return { y, mag };
}
/** C = A B (A [M,K], B [K,N]) or A B^T (B [N,K]); flat arrays. Returns {C, mag}. */
export function matmul(A, B, M, K, N, transposeB = false) {
  const C = new Array(M * N).fill(0);
  const mag = new Array(M * N).fill(0);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      let a = 0;
      for (let k = 0; k < K; k++) {
        const p = A[i * K + k] * (transposeB ? B[j * K + k] : B[k * N + j]);
        s += p;
        a += abs(p);
      }
      C[i * N + j] = s;
      mag[i * N + j] = a;
    }
  }
  return { C, mag };
}
export const exp = (x) => Array.from(x, Math.exp);
/** Softmax of each row of flat x [rows, n]: z = x / temperature + mask. */
export function softmax(x, rows, n, { temperature = 1, mask = null, naive = false } = {}) {
  const y = new Array(rows * n).fill(0);
  for (let r = 0; r < rows; r++) {
    const z = [];
    for (let i = 0; i < n; i++) z.push(x[r * n + i] / temperature + (mask ? mask[r * n + i] : 0));
    const m = naive ? 0 : Math.max(...z);
    if (m === -Infinity) continue;
    let s = 0;
    for (const v of z) s += Math.exp(v - m);
    for (let i = 0; i < n; i++) y[r * n + i] = Math.exp(z[i] - m) / s;
  }
  return y;
}
export function logSumExp(x, rows, n) {
  const out = [];
  for (let r = 0; r < rows; r++) {
    const row = Array.from(x.slice(r * n, (r + 1) * n));
    const m = Math.max(...row);
    let s = 0;
    for (const v of row) s += Math.exp(v - m);
    out.push(m + Math.log(s));
  }
  return out;
}
export function entropyBits(p) {
  let h = 0;
  for (const v of p) if (v > 0) h -= v * Math.log2(v);
  return h;
}
export function softmaxJacobian(a) {
  const n = a.length;
  const J = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) J.push(a[i] * ((i === j ? 1 : 0) - a[j]));
  return J;
}

/**
 * Rotary position embedding (Su et al. 2021, RoFormer, eq. 15) of x [rows, T, d]
 * flat: pair p of token t turned by positions[t] * base^(-2p/d), the pairs
 * (2p, 2p+1) when interleaved, (p, p + d/2) otherwise. Returns { y, mag }
 * with mag_j = |x_a| + |x_b| of the element's pair (the registry bound's
 * magnitude).
 */
export function rope(x, positions, rows, T, d, { base = 10000, interleaved = true } = {}) {
  const y = new Float64Array(x.length);
  const mag = new Float64Array(x.length);
  const half = d / 2;
  for (let r = 0; r < rows; r++)
    for (let t = 0; t < T; t++)
      for (let p = 0; p < half; p++) {
        const row = (r * T + t) * d;
        const a = row + (interleaved ? 2 * p : p);
        const b = row + (interleaved ? 2 * p + 1 : p + half);
        const angle = positions[t] * base ** ((-2 * p) / d);
        const [c, s] = [Math.cos(angle), Math.sin(angle)];
        y[a] = x[a] * c - x[b] * s;
        y[b] = x[a] * s + x[b] * c;
        mag[a] = mag[b] = abs(x[a]) + abs(x[b]);
      }
  return { y, mag };
}

/**
 * Scaled dot-product attention for one (batch, head) slice, flat arrays:
 * Q [Tq, dk], K [Tk, dk], V [Tk, dv]; maskAt(i, j) additive (may be -Infinity);
 * alibi { slope, offset } adds -slope |i + offset - j| (Press et al. 2022, §3)
 * before the mask (its bound: the product's rounding and one more addition).
 * Returns {Y, A, S, bound, eRow}: bound[i*dv+c] is a first-order bound on the
 * absolute error of Y for the registry's attention kernel (registry.inc) of
 * `variant` ('scalar': q.k in the pairwise dot order; 'simd128': in the GEMM's
 * k order), on its materialized path, or on its streaming path when
 * `streaming` (tiles of 256 keys, online softmax); eRow[i] bounds the relative
 * error of the weights of row i (materialized path).
 */
export function attentionSlice(
  Q,
  K,
  V,
  Tq,
  Tk,
  dk,
  dv,
  { scale, causal = false, maskAt = null, variant = 'scalar', streaming = false, alibi = null },
) {
  const Y = new Array(Tq * dv).fill(0);
  const A = new Array(Tq * Tk).fill(0);
  const S = new Array(Tq * Tk).fill(0);
  const bound = new Array(Tq * dv).fill(0);
  const eRow = new Array(Tq).fill(0);
  // scores: the dot's bound (pairwise, or the GEMM's k order) plus the scale multiply
  const gd = (variant === 'simd128' ? Math.min(dk, 256) + Math.ceil(dk / 256) + 1 : 2 * clog2(dk) + 2) * U;
  const gt = (2 * clog2(Tk) + 1) * U; // value mixture: pairwise sum over keys
  // Streaming: n_t tiles of 256 keys, each tile's value sum (GEMM 258 u,
  // cascade 14 u), the sum of P in four lanes (64 u), the rescalings and
  // additions of O and l, and an exp (4 u) per tile.
  const nt = Math.ceil(Tk / 256);
  const gs = ((variant === 'simd128' ? 258 : 14) + 64 + 4 * nt - 1 + 2 * nt * 4) * U;
  for (let i = 0; i < Tq; i++) {
    let m = -Infinity;
    let eS = 0; // bound on the absolute error of any score of this row
    for (let j = 0; j < Tk; j++) {
      let s = 0;
      let a = 0;
      for (let c = 0; c < dk; c++) {
        s += Q[i * dk + c] * K[j * dk + c];
        a += abs(Q[i * dk + c] * K[j * dk + c]);
      }
      const bias = alibi ? -alibi.slope * abs(i + alibi.offset - j) : 0;
      let v = scale * s + bias + (maskAt ? maskAt(i, j) : 0);
      if (causal && j > i) v = -Infinity;
      S[i * Tk + j] = v;
      if (v > m) m = v;
      const eBias = alibi ? 2 * U * abs(bias) + U * abs(scale) * a : 0;
      if (v !== -Infinity) eS = Math.max(eS, gd * abs(scale) * a + U * abs(v) + eBias);
    }
    if (m === -Infinity) continue; // every key masked: zero weights, zero output
    let sum = 0;
    let spread = 0;
    for (let j = 0; j < Tk; j++) {
      if (S[i * Tk + j] === -Infinity) continue;
      sum += Math.exp(S[i * Tk + j] - m);
      spread = Math.max(spread, m - S[i * Tk + j]);
    }
    // Relative error of each weight: twice the score error (numerator and
    // the max/denominator), the subtraction z - max (u |z - max|), exp (4u),
    // the positive sum over Tk terms, and the division.
    const eA = 2 * eS + U * spread + (4 + 2 * clog2(Tk) + 1 + 1) * U;
    eRow[i] = eA;
    for (let j = 0; j < Tk; j++) {
      A[i * Tk + j] = S[i * Tk + j] === -Infinity ? 0 : Math.exp(S[i * Tk + j] - m) / sum;
    }
    for (let c = 0; c < dv; c++) {
      let y = 0;
      let mag = 0;
      for (let j = 0; j < Tk; j++) {
        y += A[i * Tk + j] * V[j * dv + c];
        mag += abs(A[i * Tk + j] * V[j * dv + c]);
      }
      Y[i * dv + c] = y;
      bound[i * dv + c] = streaming ? (2 * eS + 2 * U * spread + gs) * mag : (eA + gt) * mag;
    }
  }
  return { Y, A, S, bound, eRow };
}

/**
 * The rows of x [T, d] projected by w [d, n] (row-vector convention, flat row-major) plus the bias b [n]
 * (null: none): out = x w + b, and mag = |x||w| + |b| entry by entry, what a bound of its error scales with.
 * @returns {{ out: number[], mag: number[] }} both [T, n]
 */
export function projectRows(x, T, d, n, w, b = null) {
  const out = new Array(T * n).fill(0);
  const mag = new Array(T * n).fill(0);
  for (let t = 0; t < T; t++) {
    for (let o = 0; o < n; o++) {
      let s = b ? b[o] : 0;
      let a = b ? abs(b[o]) : 0;
      for (let i = 0; i < d; i++) {
        s += x[t * d + i] * w[i * n + o];
        a += abs(x[t * d + i] * w[i * n + o]);
      }
      out[t * n + o] = s;
      mag[t * n + o] = a;
    }
  }
  return { out, mag };
}

/**
 * Multi-head attention (Vaswani et al. 2017 §3.2.2), row-vector convention,
 * W [in, out] flat [d, d]; x* flat [T, d] for one batch entry; h heads.
 * maskAt(head, i, j) additive; keyBias[j] additive. kvHeads (default h):
 * W.wK and W.wV are [d, kvHeads d/h] and query head i reads key/value head
 * floor(i kvHeads / h) (GQA). rope { base, interleaved }: each head's q and k
 * of token t turned by position t (RoFormer, eq. 15) before the scores, with
 * the rope kernel's bound 4 u (|x_a| + |x_b|) on top of the carried errors.
 * Returns {Y, A [h,Tq,Tk]} with first-order error bounds: `bound` per output,
 * `wBound` per weight.
 */
export function mhaOne(
  xq,
  xk,
  xv,
  W,
  Tq,
  Tk,
  d,
  h,
  {
    scale,
    causal = false,
    maskAt = null,
    keyBias = null,
    variant = 'scalar',
    streaming = false,
    kvHeads = h,
    rope: turn = null,
  },
) {
  const dk = d / h;
  const dkv = kvHeads * dk;
  const proj = (x, T, w, b, n = d) => projectRows(x, T, d, n, w, b);
  const q = proj(xq, Tq, W.wQ, W.bQ);
  const k = proj(xk, Tk, W.wK, W.bK, dkv);
  const v = proj(xv, Tk, W.wV, W.bV, dkv);
  const concat = new Array(Tq * d).fill(0);
  const concatErr = new Array(Tq * d).fill(0);
  const A = [];
  const wBound = [];
  // projections: the matmul bound (pairwise, or the GEMM's) with the bias as one more term
  const gp = (variant === 'simd128' ? Math.min(d, 256) + Math.ceil(d / 256) + 2 : 2 * clog2(d + 1) + 1) * U;
  if (turn) {
    // Each head's pairs turned in float64; the error bounds gp * mag become gp (mag_a + mag_b) +
    // 4 u (|x_a| + |x_b|), kept as magnitudes (divided by gp) so that the code below is unchanged.
    for (const [p, T, n] of [
      [q, Tq, d],
      [k, Tk, dkv],
    ]) {
      const x = p.out.slice();
      const mag = p.mag.slice();
      const rows = (T * n) / dk;
      for (let r = 0; r < rows; r++) {
        const t = Math.floor((r * dk) / n);
        for (let pr = 0; pr < dk / 2; pr++) {
          const a = r * dk + (turn.interleaved ? 2 * pr : pr);
          const b = r * dk + (turn.interleaved ? 2 * pr + 1 : pr + dk / 2);
          const angle = t * turn.base ** ((-2 * pr) / dk);
          const [c, s] = [Math.cos(angle), Math.sin(angle)];
          p.out[a] = x[a] * c - x[b] * s;
          p.out[b] = x[a] * s + x[b] * c;
          p.mag[a] = p.mag[b] = mag[a] + mag[b] + (4 * U * (abs(x[a]) + abs(x[b]))) / gp;
        }
      }
    }
  }
  for (let hh = 0; hh < h; hh++) {
    const slice = (arr, T, n = d, head = hh) => {
      const s = [];
      for (let t = 0; t < T; t++) for (let c = 0; c < dk; c++) s.push(arr[t * n + head * dk + c]);
      return s;
    };
    const g = Math.floor((hh * kvHeads) / h); // the key/value head of query head hh
    const Qh = slice(q.out, Tq);
    const Kh = slice(k.out, Tk, dkv, g);
    const Vh = slice(v.out, Tk, dkv, g);
    // Projection errors enter the scores as scale * (|dq||k| + |q||dk|).
    const Qm = slice(q.mag, Tq);
    const Km = slice(k.mag, Tk, dkv, g);
    const Vm = slice(v.mag, Tk, dkv, g);
    const at = attentionSlice(Qh, Kh, Vh, Tq, Tk, dk, dk, {
      scale,
      causal,
      maskAt: (i, j) => (maskAt ? maskAt(hh, i, j) : 0) + (keyBias ? keyBias[j] : 0),
      variant,
      streaming,
    });
    for (let i = 0; i < Tq; i++) {
      let eProj = 0;
      for (let j = 0; j < Tk; j++) {
        let e = 0;
        for (let c = 0; c < dk; c++)
          e += gp * (Qm[i * dk + c] * abs(Kh[j * dk + c]) + abs(Qh[i * dk + c]) * Km[j * dk + c]);
        eProj = Math.max(eProj, 2 * abs(scale) * e);
      }
      for (let j = 0; j < Tk; j++) wBound.push(at.A[i * Tk + j] * (at.eRow[i] + eProj));
      for (let c = 0; c < dk; c++) {
        let mixMag = 0;
        let vErr = 0;
        for (let j = 0; j < Tk; j++) {
          mixMag += abs(at.A[i * Tk + j] * Vh[j * dk + c]);
          vErr += at.A[i * Tk + j] * gp * Vm[j * dk + c];
        }
        concat[i * d + hh * dk + c] = at.Y[i * dk + c];
        concatErr[i * d + hh * dk + c] = at.bound[i * dk + c] + eProj * mixMag + vErr;
      }
    }
    A.push(...at.A);
  }
  const y = proj(concat, Tq, W.wO, W.bO);
  const bound = new Array(Tq * d).fill(0);
  for (let t = 0; t < Tq; t++) {
    for (let o = 0; o < d; o++) {
      let e = gp * y.mag[t * d + o];
      for (let i = 0; i < d; i++) e += concatErr[t * d + i] * abs(W.wO[i * d + o]);
      bound[t * d + o] = e;
    }
  }
  return { Y: y.out, A, bound, wBound };
}

/** Standard normal CDF from erfc: a Taylor series below 2.5, a continued fraction above (relative error ~1e-14). */
export function normalCdf(x) {
  return 0.5 * erfc(-x / Math.SQRT2);
}
function erfc(x) {
  if (x < 0) return 2 - erfc(-x);
  if (x < 2.5) {
    // erf series: erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    for (let n = 1; n < 100; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (abs(add) < 1e-17 * abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  // Continued fraction (Lentz) for erfc at larger x.
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    D = x + an * D;
    D = 1 / D;
    C = x + an / C;
    const delta = C * D;
    f *= delta;
    if (abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (f * Math.sqrt(Math.PI));
}

/** A seeded float32 generator for test inputs (mulberry32), independent of the API's Philox. */
export function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  /** n float32 values uniform in [lo, hi). */
  next.f32 = (n, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => Math.fround(lo + (hi - lo) * next()));
  return next;
}

// Philox4x32-10 (Salmon, Moraes, Dror, Shaw 2011, "Parallel random numbers:
// as easy as 1, 2, 3"), written from the paper with BigInt products.
const PHILOX_M0 = 0xd2511f53n;
const PHILOX_M1 = 0xcd9e8d57n;
const PHILOX_W0 = 0x9e3779b9;
const PHILOX_W1 = 0xbb67ae85;
/** One Philox4x32-10 block: counter [c0, c1, c2, c3], key [k0, k1] -> 4 u32 words. */
export function philox4x32(ctr, key) {
  let [c0, c1, c2, c3] = ctr.map((x) => x >>> 0);
  let [k0, k1] = key.map((x) => x >>> 0);
  for (let r = 0; r < 10; r++) {
    if (r > 0) {
      k0 = (k0 + PHILOX_W0) >>> 0;
      k1 = (k1 + PHILOX_W1) >>> 0;
    }
    const p0 = PHILOX_M0 * BigInt(c0);
    const p1 = PHILOX_M1 * BigInt(c2);
    const hi0 = Number(p0 >> 32n);
    const lo0 = Number(p0 & 0xffffffffn);
    const hi1 = Number(p1 >> 32n);
    const lo1 = Number(p1 & 0xffffffffn);
    [c0, c1, c2, c3] = [(hi1 ^ c1 ^ k0) >>> 0, lo1, (hi0 ^ c3 ^ k1) >>> 0, lo0];
  }
  return [c0, c1, c2, c3];
}
/** n uniforms as in registry.inc: sample i from block counter + floor(i/4), word i % 4, as (word >> 8) * 2^-24. */
export function philoxUniform(seed, counter, n) {
  const key = [Number(seed & 0xffffffffn), Number(seed >> 32n)];
  const out = [];
  for (let i = 0; i < n; i += 4) {
    const c = counter + BigInt(i / 4);
    const w = philox4x32([Number(c & 0xffffffffn), Number((c >> 32n) & 0xffffffffn), 0, 0], key);
    for (let j = 0; j < 4 && i + j < n; j++) out.push((w[j] >>> 8) * 2 ** -24);
  }
  return out;
}
/**
 * n standard normals as in registry.inc: Box-Muller on uniform pairs mapped to
 * (0, 1] as ((word >> 8) + 1) 2^-24, z_2j = r cos(2 pi u2), z_2j+1 = r sin(2 pi u2),
 * r = sqrt(-2 ln u1), in float64. Returns the values with .radius[i] = r.
 */
export function philoxNormal(seed, counter, n) {
  const key = [Number(seed & 0xffffffffn), Number(seed >> 32n)];
  const out = [];
  out.radius = [];
  for (let i = 0; i < n; i += 4) {
    const c = counter + BigInt(i / 4);
    const w = philox4x32([Number(c & 0xffffffffn), Number((c >> 32n) & 0xffffffffn), 0, 0], key);
    for (let q = 0; q < 4 && i + q < n; q += 2) {
      const u1 = ((w[q] >>> 8) + 1) * 2 ** -24;
      const u2 = ((w[q + 1] >>> 8) + 1) * 2 ** -24;
      const r = Math.sqrt(-2 * Math.log(u1));
      out.push(r * Math.cos(2 * Math.PI * u2));
      out.radius.push(r);
      if (i + q + 1 < n) {
        out.push(r * Math.sin(2 * Math.PI * u2));
        out.radius.push(r);
      }
    }
  }
  return out;
}

// ---- Strided forms used by the benchmark (scripts/bench), same formulas. Each
// stores its results in an array of type `Out` (default Float64Array); with
// Float32Array every stored value is rounded to float32, as the plain JS peer
// of the benchmark (scripts/bench/peers-js.mjs) does.

/** C = A B: A [M, K], B [K, N] -> [M, N], loops i, k, j. */
export function matmulRef(A, B, M, K, N, Out = Float64Array) {
  const C = new Out(M * N);
  for (let i = 0; i < M; i++) {
    const row = i * N;
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k];
      const b = k * N;
      for (let j = 0; j < N; j++) C[row + j] += a * B[b + j];
    }
  }
  return C;
}

/** S = Q K^T: Q [Tq, d], K [Tk, d] -> [Tq, Tk]. */
export function qktRef(Q, K, Tq, Tk, d, Out = Float64Array) {
  const S = new Out(Tq * Tk);
  for (let i = 0; i < Tq; i++) {
    for (let j = 0; j < Tk; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += Q[i * d + k] * K[j * d + k];
      S[i * Tk + j] = s;
    }
  }
  return S;
}

/** Softmax of each row of X [rows, cols], the maximum subtracted first. */
export function softmaxRef(X, rows, cols, Out = Float64Array) {
  const Y = new Out(rows * cols);
  for (let i = 0; i < rows; i++) softmaxRow(X, i * cols, cols, Y, i * cols);
  return Y;
}

function softmaxRow(x, from, n, out, to) {
  let max = -Infinity;
  for (let j = 0; j < n; j++) max = Math.max(max, x[from + j]);
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(x[from + j] - max);
    out[to + j] = e;
    sum += e;
  }
  for (let j = 0; j < n; j++) out[to + j] /= sum;
}

/**
 * O = softmax(scale Q K^T) V for the query rows `rows` (default all): Q [T, d],
 * K [T, d], V [T, dv] -> [T, dv] (rows not asked for stay 0). Query,
 * key and value rows start at the given column offsets with the given row
 * strides, so that one head of a [T, D] projection can be read in place.
 */
export function attentionRef(
  Q,
  K,
  V,
  T,
  d,
  dv,
  scale,
  { rows = null, stride = d, vStride = dv, qOff = 0, kOff = 0, vOff = 0, Out = Float64Array } = {},
) {
  const O = new Out(T * dv);
  const s = new Out(T);
  const w = new Out(T);
  for (const i of rows ?? Array.from({ length: T }, (_, r) => r)) {
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let k = 0; k < d; k++) dot += Q[i * stride + qOff + k] * K[j * stride + kOff + k];
      s[j] = scale * dot;
    }
    softmaxRow(s, 0, T, w, 0);
    for (let j = 0; j < T; j++) {
      const wj = w[j];
      for (let k = 0; k < dv; k++) O[i * dv + k] += wj * V[j * vStride + vOff + k];
    }
  }
  return O;
}

/**
 * Multi-head self-attention with the four projections, no biases:
 * concat_i(attention(X W_Q[:, head i], X W_K[:, head i], X W_V[:, head i])) W_O,
 * scale 1/sqrt(D/h). X [T, D], weights [D, D] -> [T, D].
 */
export function mhaRef(X, w, T, D, h, Out = Float64Array) {
  const dk = D / h;
  const Q = matmulRef(X, w.wQ, T, D, D, Out);
  const K = matmulRef(X, w.wK, T, D, D, Out);
  const V = matmulRef(X, w.wV, T, D, D, Out);
  const concat = new Out(T * D);
  for (let head = 0; head < h; head++) {
    const off = head * dk;
    const O = attentionRef(Q, K, V, T, dk, dk, 1 / Math.sqrt(dk), {
      stride: D,
      vStride: D,
      qOff: off,
      kOff: off,
      vOff: off,
      Out,
    });
    for (let i = 0; i < T; i++) for (let k = 0; k < dk; k++) concat[i * D + off + k] = O[i * dk + k];
  }
  return matmulRef(concat, w.wO, T, D, D, Out);
}

/**
 * One query row of attention: q [d] against the rows of K [Tk, d] and V [Tk, dv]
 * (flat, row-major), softmax(scale q K^T) V in float64 (a decoding step: the
 * one new token against every cached one). Returns Float64Array [dv].
 */
export function attentionRow(q, K, V, Tk, d, dv, scale) {
  const s = new Float64Array(Tk);
  const w = new Float64Array(Tk);
  for (let j = 0; j < Tk; j++) {
    let dot = 0;
    for (let k = 0; k < d; k++) dot += q[k] * K[j * d + k];
    s[j] = scale * dot;
  }
  softmaxRow(s, 0, Tk, w, 0);
  const y = new Float64Array(dv);
  for (let j = 0; j < Tk; j++) for (let k = 0; k < dv; k++) y[k] += w[j] * V[j * dv + k];
  return y;
}

/**
 * The largest |got - ref| over the entries (or over the rows `rows` of
 * `width` entries each), the largest |ref| there, and their ratio. A NaN or
 * an infinite entry gives Infinity.
 */
export function maxError(got, ref, { rows = null, width = 0 } = {}) {
  if (got.length !== ref.length) throw new Error(`result has ${got.length} entries, the reference ${ref.length}`);
  let maxAbs = 0;
  let maxRef = 0;
  const visit = (i) => {
    const e = Math.abs(got[i] - ref[i]);
    maxAbs = Number.isNaN(e) ? Infinity : Math.max(maxAbs, e);
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
  };
  if (rows) for (const r of rows) for (let k = 0; k < width; k++) visit(r * width + k);
  else for (let i = 0; i < ref.length; i++) visit(i);
  return { maxAbs, maxRef, relative: maxRef > 0 ? maxAbs / maxRef : maxAbs };
}

/**
 * Logit soft-capping (Gemma Team 2024, Gemma 2; Bello et al. 2016; the ONNX Attention operator,
 * opset 23): the score s becomes c tanh(s / c), c > 0.
 */
export const softcap = (s, c) => c * Math.tanh(s / c);

/**
 * Online softmax (Milakov & Gimelshein 2018; Dao et al. 2022, Algorithm 1)
 * for one head, Q [Tq, dk], K [Tk, dk], V [Tk, dv] flat, scores scale q.k
 * (causal: query i sees keys 0..i), over tiles of `tileKeys` keys, in float64,
 * visiting (row, tile) as attention's streaming kernel does for one block of
 * query rows: for each tile, each row; with causal, the tiles up to the last
 * row's keys. Per step: {row, start, count, tileMax, mPrev, m, correction, l,
 * O} with m' = max(m, tile max), c = exp(m - m') (1 where no correction is
 * applied: an unchanged max or the first visible tile), l' = c l + sum p,
 * O' = c O + sum p v; and Y = O / l per row. First-order bounds of the
 * float32 kernel of `variant` (registry.inc: attention, attention_trace):
 * with eS the row's largest score error (the dot's order plus the scale),
 * e the exp bound, k the tiles seen and s the spread m' - min s of the keys
 * seen, each term's share of l and O went through its exp and at most k - 1
 * corrections: relative k (2 eS + e + u (1 + s)); the sums add
 * (ceil(t/4) + 2 + 2k) u to l and (g + 2k) u to O, g the tile's value sum
 * (simd128: the GEMM's t + 2; scalar: the cascade's ceil(log2 t) + 6).
 * Bounds: mBound (tileMax, m), cBound (relative, correction), lBound
 * (relative), oBound [dv] (absolute); yBound [Tq * dv] (absolute, the
 * streaming bound of registry.inc with n_t tiles).
 */
export function onlineSoftmax(Q, K, V, Tq, Tk, dk, dv, { scale, tileKeys, causal = false, variant = 'scalar' }) {
  const simd = variant === 'simd128';
  const gd = (simd ? Math.min(dk, 256) + Math.ceil(dk / 256) + 1 : 2 * clog2(dk) + 2) * U;
  const e = (simd ? 4 : 2) * U;
  const g = (simd ? tileKeys + 2 : clog2(tileKeys) + 6) * U;
  const lanes = (Math.ceil(tileKeys / 4) + 2) * U;
  const S = new Float64Array(Tq * Tk).fill(-Infinity);
  const eS = new Float64Array(Tq);
  for (let i = 0; i < Tq; i++) {
    for (let j = 0; j < (causal ? Math.min(i + 1, Tk) : Tk); j++) {
      let s = 0;
      let a = 0;
      for (let c = 0; c < dk; c++) {
        s += Q[i * dk + c] * K[j * dk + c];
        a += abs(Q[i * dk + c] * K[j * dk + c]);
      }
      S[i * Tk + j] = scale * s;
      eS[i] = Math.max(eS[i], gd * abs(scale) * a + U * abs(scale * s));
    }
  }
  const kend = causal ? Math.min(Tq, Tk) : Tk;
  const row = Array.from({ length: Tq }, () => ({
    m: -Infinity,
    l: 0,
    O: new Float64Array(dv),
    mag: new Float64Array(dv),
    lo: Infinity,
    k: 0,
  }));
  const steps = [];
  for (let j0 = 0; j0 < kend; j0 += tileKeys) {
    const nk = Math.min(tileKeys, kend - j0);
    for (let i = 0; i < Tq; i++) {
      const r = row[i];
      const count = Math.max(0, Math.min(nk, (causal ? i + 1 : Tk) - j0));
      let tileMax = -Infinity;
      for (let j = j0; j < j0 + count; j++) tileMax = Math.max(tileMax, S[i * Tk + j]);
      const mPrev = r.m;
      const m = Math.max(mPrev, tileMax);
      let correction = 1;
      if (count > 0) {
        if (mPrev !== -Infinity && m !== mPrev) correction = Math.exp(mPrev - m);
        r.l *= correction;
        for (let c = 0; c < dv; c++) r.O[c] *= correction;
        for (let c = 0; c < dv; c++) r.mag[c] *= correction;
        for (let j = j0; j < j0 + count; j++) {
          const p = Math.exp(S[i * Tk + j] - m);
          r.l += p;
          r.lo = Math.min(r.lo, S[i * Tk + j]);
          for (let c = 0; c < dv; c++) {
            r.O[c] += p * V[j * dv + c];
            r.mag[c] += p * abs(V[j * dv + c]);
          }
        }
        r.m = m;
        r.k += 1;
      }
      const each = r.k * (2 * eS[i] + e + U * (1 + (r.m === -Infinity ? 0 : r.m - r.lo)));
      steps.push({
        row: i,
        start: j0,
        count,
        tileMax,
        mPrev,
        m,
        correction,
        l: r.l,
        O: Array.from(r.O),
        mBound: eS[i],
        cBound: correction === 1 ? 0 : 2 * eS[i] + e + U * abs(mPrev - m) + U,
        lBound: each + lanes + 2 * r.k * U,
        oBound: Array.from(r.mag, (x) => (each + g + 2 * r.k * U) * x),
      });
    }
  }
  const nt = Math.ceil(Tk / tileKeys);
  const Y = new Float64Array(Tq * dv);
  const yBound = new Float64Array(Tq * dv);
  for (let i = 0; i < Tq; i++) {
    const r = row[i];
    if (r.m === -Infinity) continue;
    const D = eS[i] + U * (r.m - r.lo);
    for (let c = 0; c < dv; c++) {
      Y[i * dv + c] = r.O[c] / r.l;
      yBound[i * dv + c] = (2 * D + 2 * nt * e + g + lanes + (4 * nt - 1) * U) * (r.mag[c] / r.l);
    }
  }
  return { steps, Y, yBound };
}

/**
 * The softmax's backward of each row of y, dy [rows, n] flat:
 * dx_i = y_i (dy_i - sum_k y_k dy_k), and the registry bound's magnitudes
 * (softmax_backward): sAbs_i = y_i sum_k y_k |dy_k|, dAbs_i = y_i |dy_i - s|.
 */
export function softmaxBackward(y, dy, rows, n) {
  const dx = new Array(rows * n).fill(0);
  const sAbs = new Array(rows * n).fill(0);
  const dAbs = new Array(rows * n).fill(0);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    let sa = 0;
    for (let k = r * n; k < (r + 1) * n; k++) {
      s += y[k] * dy[k];
      sa += abs(y[k] * dy[k]);
    }
    for (let i = r * n; i < (r + 1) * n; i++) {
      dx[i] = y[i] * (dy[i] - s);
      sAbs[i] = abs(y[i]) * sa;
      dAbs[i] = abs(dx[i]);
    }
  }
  return { dx, sAbs, dAbs };
}

/**
 * Whether query i sees key j: causal hides keys after i + offset, a window
 * of w > 0 also those before i + offset - w + 1 (attention's options).
 */
const seesKey = (i, j, { causal = false, offset = 0, window = 0 }) =>
  !causal || (j <= i + offset && (window <= 0 || j > i + offset - window));

/**
 * The float64 loss L = sum dY * Y of one attention slice (Q [Tq, d_k],
 * K [Tk, d_k], V [Tk, d_v], dY [Tq, d_v] flat), Y = softmax(scale Q K^T +
 * mask) V: what attentionGradients differentiates, for finite differences.
 * opts: { scale, causal, offset, window, maskAt(i, j) }.
 */
export function attentionLoss(Q, K, V, dY, Tq, Tk, dk, dv, opts) {
  let L = 0;
  const s = new Array(Tk);
  for (let i = 0; i < Tq; i++) {
    let m = -Infinity;
    const qi = Q.slice(i * dk, (i + 1) * dk);
    for (let j = 0; j < Tk; j++) {
      const d = dot(qi, K.slice(j * dk, (j + 1) * dk));
      s[j] = seesKey(i, j, opts) ? opts.scale * d + (opts.maskAt ? opts.maskAt(i, j) : 0) : -Infinity;
      if (s[j] > m) m = s[j];
    }
    if (m === -Infinity) continue;
    let l = 0;
    for (let j = 0; j < Tk; j++) l += Math.exp(s[j] - m);
    for (let j = 0; j < Tk; j++) {
      const a = Math.exp(s[j] - m) / l;
      for (let c = 0; c < dv; c++) L += dY[i * dv + c] * a * V[j * dv + c];
    }
  }
  return L;
}

/**
 * The analytic float64 gradients of one attention slice (shapes and opts as
 * attentionLoss; Vaswani et al. 2017, §3.2.1, differentiated; Dao et al.
 * 2022, Algorithm 4): dV = P^T dY, dP = dY V^T, D_i = sum_j P_ij dP_ij,
 * dS = P (dP - D), dQ = scale dS K, dK = scale dS^T Q. Returns { dQ, dK, dV }
 * and the magnitudes of registry.inc's bound (attention_backward), without
 * coefficients: dqAbs = |scale| sum_j a_ij (A_ij + W_i) |k_jc|, dkAbs, dvAbs
 * = sum_i a_ij |dY_ic|, the same sums with each a_ij > 0 replaced by 1
 * (dqCount, dkCount, dvCount: the subnormal allowance), and per row the
 * score error D_i of a variant: rowD(variant).
 */
export function attentionGradients(Q, K, V, dY, Tq, Tk, dk, dv, opts) {
  const z = (n) => new Array(n).fill(0);
  const [dQ, dqAbs, dqCount] = [z(Tq * dk), z(Tq * dk), z(Tq * dk)];
  const [dK, dkAbs, dkCount] = [z(Tk * dk), z(Tk * dk), z(Tk * dk)];
  const [dV, dvAbs, dvCount] = [z(Tk * dv), z(Tk * dv), z(Tk * dv)];
  const S = z(Tq * Tk);
  const scoreAbs = z(Tq * Tk);
  const blind = new Array(Tq).fill(true);
  const sc = opts.scale;
  for (let i = 0; i < Tq; i++) {
    let m = -Infinity;
    const qi = Q.slice(i * dk, (i + 1) * dk);
    for (let j = 0; j < Tk; j++) {
      const kj = K.slice(j * dk, (j + 1) * dk);
      const d = dot(qi, kj);
      const da = sumAbsProd(qi, kj);
      S[i * Tk + j] = seesKey(i, j, opts) ? sc * d + (opts.maskAt ? opts.maskAt(i, j) : 0) : -Infinity;
      scoreAbs[i * Tk + j] = abs(sc) * da + (opts.maskAt && seesKey(i, j, opts) ? abs(opts.maskAt(i, j)) : 0);
      if (S[i * Tk + j] > m) m = S[i * Tk + j];
    }
    if (m === -Infinity) continue;
    blind[i] = false;
    let l = 0;
    for (let j = 0; j < Tk; j++) l += Math.exp(S[i * Tk + j] - m);
    const a = Array.from({ length: Tk }, (_, j) => Math.exp(S[i * Tk + j] - m) / l);
    const dP = z(Tk);
    const A = z(Tk);
    let D = 0;
    let W = 0;
    for (let j = 0; j < Tk; j++) {
      for (let c = 0; c < dv; c++) {
        dP[j] += dY[i * dv + c] * V[j * dv + c];
        A[j] += abs(dY[i * dv + c] * V[j * dv + c]);
      }
      D += a[j] * dP[j];
      W += a[j] * A[j];
    }
    for (let j = 0; j < Tk; j++) {
      if (a[j] === 0) continue;
      const ds = a[j] * (dP[j] - D);
      const mag = abs(sc) * (A[j] + W);
      for (let c = 0; c < dk; c++) {
        dQ[i * dk + c] += sc * ds * K[j * dk + c];
        dqAbs[i * dk + c] += a[j] * mag * abs(K[j * dk + c]);
        dqCount[i * dk + c] += mag * abs(K[j * dk + c]);
        dK[j * dk + c] += sc * ds * Q[i * dk + c];
        dkAbs[j * dk + c] += a[j] * mag * abs(Q[i * dk + c]);
        dkCount[j * dk + c] += mag * abs(Q[i * dk + c]);
      }
      for (let c = 0; c < dv; c++) {
        dV[j * dv + c] += a[j] * dY[i * dv + c];
        dvAbs[j * dv + c] += a[j] * abs(dY[i * dv + c]);
        dvCount[j * dv + c] += abs(dY[i * dv + c]);
      }
    }
  }
  // D_i: the largest score error of row i (the variant's dot over d_k, the
  // product by scale and the mask's addition) plus u |s_ij - max|.
  const rowD = (variant) => {
    const gd = (variant === 'simd128' ? Math.min(dk, 256) + Math.ceil(dk / 256) : 2 * clog2(dk) + 1) * U;
    return Array.from({ length: Tq }, (_, i) => {
      let m = -Infinity;
      for (let j = 0; j < Tk; j++) m = Math.max(m, S[i * Tk + j]);
      let D = 0;
      for (let j = 0; j < Tk; j++) {
        const s = S[i * Tk + j];
        if (s === -Infinity) continue;
        D = Math.max(D, 1.01 * (gd * scoreAbs[i * Tk + j] + 2 * U * scoreAbs[i * Tk + j]) + U * abs(s - m));
      }
      return D;
    });
  };
  return { dQ, dK, dV, dqAbs, dkAbs, dvAbs, dqCount, dkCount, dvCount, blind, rowD };
}

/**
 * registry.inc's first-order bound (attention_backward) on each element of
 * one slice's gradients for `variant` ('scalar' or 'simd128'), from
 * attentionGradients' result g; shared = the slices adding into one K and V
 * element (G), queryShared = those adding into one Q element. Returns
 * { dQ, dK, dV } arrays of absolute bounds, each with a 1% margin for the
 * second-order terms and 2^-147 per weight (subnormal weights).
 */
export function attentionGradientBounds(g, Tq, Tk, dk, dv, variant, { shared = 1, queryShared = 1 } = {}) {
  const simd = variant === 'simd128';
  const e = (simd ? 4 : 2) * U; // exp: 2 ulp (simd128) or 1 ulp (the C library)
  const nt = Math.ceil(Tk / 256);
  const nb = Math.ceil(Tq / 64);
  const gTile = simd ? 258 : 14;
  const gamma = simd ? Math.min(dv, 256) + Math.ceil(dv / 256) : 2 * clog2(dv) + 1;
  const gq = gTile + nt * queryShared;
  const gk = (simd ? 66 : 12) + nb * shared;
  const D = g.rowD(variant);
  const rho = D.map((d) => 2 * d + (nt + 1) * e + (4 * nt + 67) * U);
  const kappa = D.map((d, i) => rho[i] + 2 * d + 2 * nt * e + (gTile + 64 + 4 * nt - 1) * U + (2 * gamma + 3) * U);
  const tiny = 2 ** -147;
  const rhoMax = Math.max(0, ...rho);
  const kappaMax = Math.max(0, ...kappa);
  return {
    dQ: g.dqAbs.map((x, n) => 1.01 * (kappa[Math.floor(n / dk)] + gq * U) * x + tiny * g.dqCount[n]),
    dK: g.dkAbs.map((x, n) => 1.01 * (kappaMax + gk * U) * x + tiny * g.dkCount[n]),
    dV: g.dvAbs.map((x, n) => 1.01 * (rhoMax + gk * U) * x + tiny * g.dvCount[n]),
  };
}

// ---- family "layers" (registry.inc): layer norm, cross-entropy, Adam -------

/** `count` zeroed Float64Arrays of `length`. */
const zeros = (count, length) => Array.from({ length: count }, () => new Float64Array(length));

/**
 * Layer normalisation (Ba et al. 2016, eq. 4) of x [rows, n] in float64, eps
 * inside the square root: y, and per row mean, var (biased), rstd and
 * sum |x_i| (the magnitude of the mean's bound).
 */
export function layerNorm(x, rows, n, { gamma = null, beta = null, eps = 1e-5 } = {}) {
  const y = new Float64Array(rows * n);
  const [mean, variance, rstd, sumAbs] = zeros(4, rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) ((s += x[r * n + i]), (sumAbs[r] += abs(x[r * n + i])));
    const mu = s / n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (x[r * n + i] - mu) ** 2;
    mean[r] = mu;
    variance[r] = ss / n;
    rstd[r] = 1 / Math.sqrt(variance[r] + eps);
    for (let i = 0; i < n; i++) {
      y[r * n + i] = (gamma ? gamma[i] : 1) * (x[r * n + i] - mu) * rstd[r] + (beta ? beta[i] : 0);
    }
  }
  return { y, mean, variance, rstd, sumAbs };
}

/**
 * The gradient of layer normalisation for the upstream gradient dy, at the
 * given mean and rstd per row: h = (x - mean) rstd, g = dy gamma,
 * dx = rstd (g - mean(g) - h mean(g h)), dGamma = sum_r dy h, dBeta = sum_r dy;
 * with the magnitudes of registry.inc's bounds (per row sum |g|, sum |g h|;
 * per column sum |dy h|, sum |dy|).
 */
export function layerNormBackward(dy, x, rows, n, { gamma = null, mean, rstd }) {
  const [dx, h, g] = zeros(3, rows * n);
  const [dGamma, dBeta, colAbsDyH, colAbsDy] = zeros(4, n);
  const [rowAbsG, rowAbsGH] = zeros(2, rows);
  for (let r = 0; r < rows; r++) {
    let sg = 0;
    let sgh = 0;
    for (let i = 0; i < n; i++) {
      const at = r * n + i;
      h[at] = (x[at] - mean[r]) * rstd[r];
      g[at] = dy[at] * (gamma ? gamma[i] : 1);
      sg += g[at];
      sgh += g[at] * h[at];
      rowAbsG[r] += abs(g[at]);
      rowAbsGH[r] += abs(g[at] * h[at]);
      dGamma[i] += dy[at] * h[at];
      dBeta[i] += dy[at];
      colAbsDyH[i] += abs(dy[at] * h[at]);
      colAbsDy[i] += abs(dy[at]);
    }
    for (let i = 0; i < n; i++) dx[r * n + i] = rstd[r] * (g[r * n + i] - sg / n - h[r * n + i] * (sgh / n));
  }
  return { dx, dGamma, dBeta, h, g, rowAbsG, rowAbsGH, colAbsDyH, colAbsDy };
}

/**
 * Softmax cross-entropy of logits [rows, vocab] against targets (-1: ignored)
 * in float64: losses (nats; 0 where ignored), p = softmax, dLogits =
 * gradScale (p - onehot) (zero rows where ignored), the count of scored rows,
 * and per row log s and m - x_t (registry.inc's bound).
 */
export function crossEntropy(logits, targets, rows, vocab, gradScale = 1) {
  const [losses, logS, margin] = zeros(3, rows);
  const [p, dLogits] = zeros(2, rows * vocab);
  let count = 0;
  for (let r = 0; r < rows; r++) {
    const t = targets[r];
    if (t < 0) continue;
    count++;
    let m = -Infinity;
    for (let i = 0; i < vocab; i++) m = Math.max(m, logits[r * vocab + i]);
    let s = 0;
    for (let i = 0; i < vocab; i++) s += Math.exp(logits[r * vocab + i] - m);
    logS[r] = Math.log(s);
    margin[r] = m - logits[r * vocab + t];
    losses[r] = logS[r] + margin[r];
    for (let i = 0; i < vocab; i++) {
      p[r * vocab + i] = Math.exp(logits[r * vocab + i] - m) / s;
      dLogits[r * vocab + i] = gradScale * (p[r * vocab + i] - (i === t ? 1 : 0));
    }
  }
  return { losses, p, dLogits, count, logS, margin };
}

/**
 * One Adam step (Kingma & Ba 2015, Algorithm 1, bias-corrected) in float64:
 * the new param, m, v, and mAbs = |b1 m| + |(1 - b1) g| per element.
 */
export function adamUpdate(param, grad, m, v, { lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, gradScale = 1, step }) {
  const n = param.length;
  const [param1, m1, v1, mAbs] = zeros(4, n);
  const out = { param: param1, m: m1, v: v1, mAbs };
  const bias1 = 1 - beta1 ** step;
  const bias2 = 1 - beta2 ** step;
  for (let i = 0; i < n; i++) {
    const g = gradScale * grad[i];
    out.m[i] = beta1 * m[i] + (1 - beta1) * g;
    out.v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    out.mAbs[i] = abs(beta1 * m[i]) + abs((1 - beta1) * g);
    out.param[i] = param[i] - (lr * (out.m[i] / bias1)) / (Math.sqrt(out.v[i] / bias2) + eps);
  }
  return out;
}

/**
 * The central finite difference (f(x + h e_i) - f(x - h e_i)) / (2h) of a
 * scalar function f of a Float64Array, for every i: the gradient tests'
 * independent check of the analytic gradients above.
 */
export function centralDifferences(f, x, h) {
  const grad = new Float64Array(x.length);
  const xp = Float64Array.from(x);
  for (let i = 0; i < x.length; i++) {
    xp[i] = x[i] + h;
    const up = f(xp);
    xp[i] = x[i] - h;
    const down = f(xp);
    xp[i] = x[i];
    grad[i] = (up - down) / (2 * h);
  }
  return grad;
}

/**
 * Row `b` of batch 0 of a training task (the layouts of ag.tasks), drawn from the Philox uniforms in float64:
 * copyPrevious (T uniforms a row: token t = floor(u_t vocab), target t the token t - 1, position 0 not scored)
 * and inductionCopy (1 + floor(T/2) uniforms a row: the first draws the repeat offset L uniformly from
 * max(2, ceil(T/4))..floor(T/2), the next L draw L distinct symbols by Fisher-Yates over 0..vocab-1; the row the
 * symbols repeated with period L, targets L..T-2 the next token). Returns { tokens, targets } (-1: not scored).
 */
export function taskRow(task, { T, vocab, batch, seed }, b) {
  const half = Math.floor(T / 2);
  const perRow = task === 'inductionCopy' ? 1 + half : T;
  const u = philoxUniform(BigInt(seed), 0n, batch * perRow).slice(b * perRow, (b + 1) * perRow);
  const pick = (x, k) => Math.floor(x * k);
  const targets = new Array(T).fill(-1);
  let tokens;
  if (task === 'copyPrevious') {
    tokens = u.map((x) => pick(x, vocab));
    for (let t = 1; t < T; t++) targets[t] = tokens[t - 1];
  } else if (task === 'inductionCopy') {
    const lo = Math.max(2, Math.ceil(T / 4));
    const L = lo + pick(u[0], half - lo + 1);
    const perm = Array.from({ length: vocab }, (_, i) => i);
    for (let i = 0; i < L; i++) {
      const j = i + pick(u[1 + i], vocab - i);
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    tokens = Array.from({ length: T }, (_, t) => perm[t % L]);
    for (let t = L; t + 1 < T; t++) targets[t] = tokens[t + 1];
  } else throw new Error(`taskRow: no reference for ${task}`);
  return { tokens, targets };
}
