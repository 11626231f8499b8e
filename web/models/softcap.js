// The inputs of the chapter "softcap" as data, no DOM and no number shown. One
// query q = (1) with d_k = 1 and scale 1, so that key k_j = (s_j) has the
// score s_j itself: key 1's score is the learner's, the other five sit near 0.
// The cap's curve is sampled by keys at evenly spaced scores over [−L, L].
// Sources: Gemma Team 2024, Gemma 2 (logit soft-capping); Bello et al.
// 2016 (tanh clipping of logits); the ONNX Attention operator, opset 23.

/** Keys in the row. */
export const T = 6;
/** The soft caps c the slider steps through (roughly even on a log scale). */
export const C_STEPS = [1, 2, 3, 5, 7, 10, 15, 20, 30, 50];
/** Key 1's score s₁ goes from 0 to this. */
export const S1_MAX = 50;
/** The scores of keys 2 to 6. */
export const OTHERS = [1, 0.5, 0, -0.5, -1];
/** The keys (0-based) the mask hides when it is on: keys 5 and 6. */
export const HIDDEN = [4, 5];
/** The query, and a value per key (the output is not shown). */
export const Q = [[1]];
export const V = Array.from({ length: T }, () => [1]);

/** The keys [T, 1]: key 1 at s₁, the others at OTHERS. */
export const keysOf = (s1) => [[s1], ...OTHERS.map((s) => [s])];

/** The additive mask of the row [T]: −∞ on the hidden keys when `masked`, else 0 everywhere. */
export const rowMask = (masked) =>
  Float32Array.from({ length: T }, (_, j) => (masked && HIDDEN.includes(j) ? -Infinity : 0));

/** Samples of the curve on each side of 0: the step is L/64, exact in float32 for an integer L. */
export const HALF = 64;

/** The curve's half-width L: 3c, or more to show key 1 (s₁ rounded up to a multiple of 10). */
export const spanOf = (c, s1) => Math.max(3 * c, Math.ceil(s1 / 10) * 10);

/** The curve's scores: −L to L in steps of L/64 (2·64 + 1 of them). */
export const curveScores = (span) => Array.from({ length: 2 * HALF + 1 }, (_, i) => ((i - HALF) * span) / HALF);
