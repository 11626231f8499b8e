// The error bounds of src/kernels/registry.inc for the family "layers"
// (layer_norm, layer_norm_backward, cross_entropy, adam_update), as
// tolerances per element next to the float64 values of
// tests/reference/float64.mjs that they bound: the first-order bounds the
// registry states, evaluated with the reference's magnitudes, plus a 1%
// margin and 2u of the value for the second-order terms (as tests/cpp does),
// and 2^-140 for products that underflow (registry.inc, conventions).
import * as ref from '../reference/float64.mjs';

const { U, abs, clog2 } = ref;

/** The pairwise factor c_n = 2 ceil(log2 n) + 1 of registry.inc. */
export const cn = (n) => 2 * clog2(n) + 1;
/** exp's relative bound (registry.inc: exp): expf 2u, the simd128 polynomial 4u. */
export const expRel = (variant) => (variant === 'simd128' ? 4 : 2) * U;
/** softmax's roundings of e / s: a division, or a reciprocal and a product. */
export const normRoundings = (variant) => (variant === 'simd128' ? 2 : 1);
/** A tolerance from a first-order bound on `exact` (file comment). */
export const tol = (bound, exact) => 1.01 * bound + 2 * U * abs(exact) + 2 ** -140;

/** The first i with |got_i - want_i| > tolerance(i), as a message, or null. */
export function firstOutside(label, got, want, tolerance) {
  for (let i = 0; i < want.length; i++) {
    const t = tolerance(i);
    if (!(abs(got[i] - want[i]) <= t)) return `${label}[${i}]: got ${got[i]}, want ${want[i]}, tolerance ${t}`;
  }
  return null;
}

/**
 * layer_norm's bounds for x [rows, n] from its float64 reference `want`
 * (ref.layerNorm): per row d (the mean's error) and rho (rstd's, relatively),
 * and tolerances of mean[r], rstd[r] and y[at].
 */
export function layerNormTolerances(x, n, want, eps, gamma = null) {
  const rows = want.mean.length;
  const d = new Float64Array(rows);
  const rho = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    d[r] = (cn(n) + 1) * U * (want.sumAbs[r] / n);
    rho[r] =
      (d[r] * d[r] + (cn(n) + 3) * U * (want.variance[r] + d[r] * d[r])) / (2 * (want.variance[r] + eps)) + 3 * U;
  }
  return {
    d,
    rho,
    mean: (r) => tol(d[r], want.mean[r]),
    rstd: (r) => tol(rho[r] * want.rstd[r], want.rstd[r]),
    y: (at) => {
      const r = Math.floor(at / n);
      const i = at % n;
      const h = (x[at] - want.mean[r]) * want.rstd[r];
      const g = gamma ? abs(gamma[i]) : 1;
      return tol(g * (abs(h) * (3 * U + rho[r]) + d[r] * want.rstd[r]) + U * abs(want.y[at]), want.y[at]);
    },
  };
}

/** layer_norm_backward's tolerances of dx[at], dGamma[j], dBeta[j] from ref.layerNormBackward's `want`. */
export function layerNormBackwardTolerances(rows, n, rstd, want) {
  return {
    dx: (at) => {
      const r = Math.floor(at / n);
      const b =
        (cn(n) + 9) * U * rstd[r] * (abs(want.g[at]) + want.rowAbsG[r] / n + abs(want.h[at]) * (want.rowAbsGH[r] / n));
      return tol(b, want.dx[at]);
    },
    dGamma: (j) => tol((cn(rows) + 2) * U * want.colAbsDyH[j], want.dGamma[j]),
    dBeta: (j) => tol(cn(rows) * U * want.colAbsDy[j], want.dBeta[j]),
  };
}

/**
 * cross_entropy's tolerances of losses[r] and dLogits[at] for logits
 * [rows, vocab], targets and gradScale, from ref.crossEntropy's `want`.
 */
export function crossEntropyTolerances(variant, logits, targets, vocab, gradScale, want) {
  const rows = targets.length;
  const D = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = -Infinity;
    for (let i = 0; i < vocab; i++) m = Math.max(m, logits[r * vocab + i]);
    for (let i = 0; i < vocab; i++) D[r] = Math.max(D[r], U * abs(logits[r * vocab + i] - m));
  }
  const e = expRel(variant);
  return {
    losses: (r) =>
      tol(D[r] + e + cn(vocab) * U + 2 * U * want.logS[r] + U * want.margin[r] + U * want.losses[r], want.losses[r]),
    dLogits: (at) => {
      const r = Math.floor(at / vocab);
      const p = want.p[at];
      const o = at % vocab === targets[r] ? 1 : 0;
      const b =
        abs(gradScale) * (p * (2 * D[r] + 2 * e + (cn(vocab) + normRoundings(variant)) * U) + U * abs(p - o)) +
        U * abs(want.dLogits[at]);
      return tol(b, want.dLogits[at]);
    },
  };
}

/**
 * adam_update's tolerances of m[i], v[i] and param[i] from ref.adamUpdate's
 * `want` for the float32 hyperparameters `h` ({ lr, beta1, beta2, eps, step }).
 */
export function adamTolerances(h, want) {
  const bias1 = 1 - h.beta1 ** h.step;
  const bias2 = 1 - h.beta2 ** h.step;
  return {
    m: (i) => tol(4 * U * want.mAbs[i], want.m[i]),
    v: (i) => tol(6 * U * want.v[i], want.v[i]),
    param: (i) => {
      const denom = Math.sqrt(want.v[i] / bias2) + h.eps;
      const b = U * abs(want.param[i]) + ((h.lr / bias1) * (4 * U * want.mAbs[i] + 10 * U * abs(want.m[i]))) / denom;
      return tol(b, want.param[i]);
    },
  };
}
