// The model of part 2, chapter 8, "Multi-head attention" (Vaswani et al.
// 2017, §3.2.2); pure, no DOM. Each token's embedding is [positional code (2)
// | the word's unit vector (up to 4) | more of the word's numbers], drawn by
// ag.random.normal (normalised by ag.normalize). The pipeline X -> Q, K, V
// (ag.matmul) -> heads [h, T, d_k] (a rearrangement) -> scores and weights per
// head (ag.attention) -> concatenation -> W_O (ag.matmul), beside the one-call
// ag.multiHeadAttention. The "named heads" preset builds W_Q, W_K (and b_Q) so
// that heads look at the previous token, at the same word, or at the first
// token. Every number is a result of the API `ag` passed in.
import { POSITIONS, wordVector } from './sentence.js';

/** The choices of d_model, and the numbers of heads offered (divisors of 12). */
export const D_MODELS = ['4', '6', '8', '12'];
export const HEAD_COUNTS = [1, 2, 3, 4, 6, 12];
/** Head patterns of the named preset, in turn. */
export const PATTERNS = ['previous', 'same', 'first'];
/** Strengths of the named preset. */
const A_POS = 5;
const A_SAME = 4;
const COS30 = 0.866;
const SIN30 = 0.5;

/** Default number of heads (the declaration's). */
export const DEFAULT_HEADS = 3;

/**
 * h must divide d_model (d_k = d_model / h). Each field fits its own
 * declaration (h from 1 to 12, d_model one of 4, 6, 8, 12), but not every
 * pair does, e.g. h = 5 with d_model = 12, or h = 3 with d_model = 4. The
 * heads go back to their default, and d_model too when the default h does
 * not divide it either.
 */
export function headsProblems(D, hN) {
  if (D % hN === 0) return [];
  const problems = [
    {
      name: 'heads',
      value: String(hN),
      expected: `a number of heads that divides d_model = ${D}: ${divisors(D).join(', ')}`,
    },
  ];
  if (D % DEFAULT_HEADS !== 0) {
    problems.push({
      name: 'dmodel',
      value: String(D),
      expected: `a d_model that h = ${hN} divides (with h back to its default ${DEFAULT_HEADS}, d_model goes back to its default too)`,
    });
  }
  return problems;
}

/**
 * The head shown (1-based) must be one of the h heads: head = 5 with h = 2
 * names no head. h is read as the widget computes it (the default when the
 * heads problem above resets it).
 */
export function headProblems(D, hN, head) {
  const heads = D % hN === 0 ? hN : DEFAULT_HEADS;
  return head <= heads ? [] : [{ name: 'head', value: String(head), expected: `a head from 1 to h = ${heads}` }];
}

/** The numbers of heads that divide d_model. */
export function divisors(d) {
  return HEAD_COUNTS.filter((x) => d % x === 0);
}

/** The number of heads kept when d_model becomes `d`: the largest divisor of d not above `heads`. */
export function headsFor(d, heads) {
  return divisors(d)
    .filter((x) => x <= heads)
    .pop();
}

/**
 * X [T, D]: [positional code (2) | the word's unit vector (d_u = min(4, D - 2)) |
 * more of the word's numbers (D - 2 - d_u)], every word number from ag.random.normal.
 */
export function embedWords(ag, words, D) {
  const du = Math.min(4, D - 2);
  const rest = D - 2 - du;
  return words.map((w, t) => {
    const unit = Array.from(ag.normalize(wordVector(ag, w, du)).data);
    const more = rest > 0 ? wordVector(ag, w, rest, 1) : [];
    return [...POSITIONS[t], ...unit, ...more];
  });
}

/** The pattern each head of the named preset can have for (D, h). */
export function namedPatterns(D, hN) {
  const dk = D / hN;
  const du = Math.min(4, D - 2);
  return Array.from({ length: hN }, (_, k) => {
    const p = PATTERNS[k % 3];
    if (p === 'previous' && dk < 2) return 'uniform';
    if (p === 'same' && dk < du) return 'uniform';
    return p;
  });
}

const zeros = (r, c) => Array.from({ length: r }, () => new Array(c).fill(0));
const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));

/** The projection weights ([in, out]) of a preset, and the pattern of each head. */
export function presetWeights(ag, D, hN, preset) {
  const dk = D / hN;
  if (preset === 'random') {
    const s = 1 / Math.sqrt(D);
    const draw = (seed) => {
      const r = ag.random.normal({ seed, n: D * D }).data;
      return Array.from({ length: D }, (_, i) => Array.from({ length: D }, (_, j) => r[i * D + j] * s));
    };
    return {
      weights: { wQ: draw(101), wK: draw(102), wV: draw(103), wO: draw(104), bQ: new Array(D).fill(0) },
      patterns: new Array(hN).fill('random'),
    };
  }
  const du = Math.min(4, D - 2);
  const wQ = zeros(D, D);
  const wK = zeros(D, D);
  const bQ = new Array(D).fill(0);
  const patterns = namedPatterns(D, hN);
  patterns.forEach((p, k) => {
    const c = k * dk;
    if (p === 'previous') {
      // q_i = A R(-30°) p_i (the code of position i - 1), k_j = A p_j.
      wQ[0][c] = A_POS * COS30;
      wQ[0][c + 1] = -A_POS * SIN30;
      wQ[1][c] = A_POS * SIN30;
      wQ[1][c + 1] = A_POS * COS30;
      wK[0][c] = A_POS;
      wK[1][c + 1] = A_POS;
    } else if (p === 'first') {
      // q_i = A (1, 0) from the bias, k_j = A p_j: the score is A^2 cos(30° j).
      bQ[c] = A_POS;
      wK[0][c] = A_POS;
    } else if (p === 'same') {
      // q_i = k_i = B u_i: the score B^2 u_i·u_j is largest when u_j = u_i.
      for (let m = 0; m < du; m += 1) {
        wQ[2 + m][c + m] = A_SAME;
        wK[2 + m][c + m] = A_SAME;
      }
    }
  });
  return { weights: { wQ, wK, wV: identity(D), wO: identity(D), bQ }, patterns };
}

/** The whole computation: step by step (matmul, attention) and in one call (multiHeadAttention). */
export function compute(ag, words, D, hN, preset) {
  const T = words.length;
  const dk = D / hN;
  const X = embedWords(ag, words, D);
  const { weights, patterns } = presetWeights(ag, D, hN, preset);
  // Q = X W_Q + b_Q as one product: [X | 1] [W_Q ; b_Q].
  const Q = ag.matmul(
    X.map((r) => [...r, 1]),
    [...weights.wQ, weights.bQ],
  );
  const K = ag.matmul(X, weights.wK);
  const V = ag.matmul(X, weights.wV);
  // Split: [T, D] -> [h, T, d_k] (a rearrangement of the entries).
  const split = (M) => {
    const out = new Float32Array(hN * T * dk);
    for (let k = 0; k < hN; k += 1)
      for (let t = 0; t < T; t += 1)
        for (let c = 0; c < dk; c += 1) out[(k * T + t) * dk + c] = M.data[t * D + k * dk + c];
    return { data: out, shape: [hN, T, dk] };
  };
  const Qh = split(Q);
  const Kh = split(K);
  const Vh = split(V);
  const att = ag.attention(Qh, Kh, Vh, { returnWeights: true, returnScores: true });
  // Concatenate: [h, T, d_k] -> [T, D].
  const cat = new Float32Array(T * D);
  for (let k = 0; k < hN; k += 1)
    for (let t = 0; t < T; t += 1)
      for (let c = 0; c < dk; c += 1) cat[t * D + k * dk + c] = att.output.data[(k * T + t) * dk + c];
  const stepOutput = ag.matmul({ data: cat, shape: [T, D] }, weights.wO);
  const mha = ag.multiHeadAttention({ query: X }, weights, { numHeads: hN, returnWeights: true });
  return { X, weights, patterns, Q, K, V, Qh, Kh, Vh, att, stepOutput, mha };
}
