// The small two-layer stack of part 2, chapter 9 ("What weights do and do not
// explain"): x -> x1 = x + MHA1(x) -> x2 = x1 + MHA2(x1), d_model = 4, one head
// per layer, and the effect on x2 of hiding each key in each layer. Pure: every
// number is a result of the API `ag` passed in.
import { POSITIONS, wordVector } from './sentence.js';

/** d_model of the two-layer stack; one head per layer. */
export const STACK_D = 4;

/** X [T, 4]: [positional code | two of the word's numbers] (the code is typed-in input). */
export function stackEmbed(ag, words) {
  return words.map((w, t) => [...POSITIONS[t], ...wordVector(ag, w, 2)]);
}

/** The weights of layer 1 and 2 ([in, out]), drawn by ag.random.normal from `seed`, scaled by `gain`. */
export function stackWeights(ag, seed, gain = 1) {
  const D = STACK_D;
  const draw = (s) => {
    const r = ag.random.normal({ seed: s, n: D * D }).data;
    return Array.from({ length: D }, (_, i) => Array.from({ length: D }, (_, j) => r[i * D + j] * gain));
  };
  return [1, 2].map((L) => ({
    wQ: draw(seed * 100 + L * 10 + 1),
    wK: draw(seed * 100 + L * 10 + 2),
    wV: draw(seed * 100 + L * 10 + 3),
    wO: draw(seed * 100 + L * 10 + 4),
  }));
}

/** a + b row by row, as one batched product [T,1,2]·[T,2,d] (the residual connection, in wasm). */
function residual(ag, a, b, T, d) {
  const pairs = new Float32Array(T * 2 * d);
  for (let t = 0; t < T; t += 1) {
    pairs.set(a.subarray(t * d, (t + 1) * d), t * 2 * d);
    pairs.set(b.subarray(t * d, (t + 1) * d), t * 2 * d + d);
  }
  const ones = new Float32Array(T * 2).fill(1);
  return ag.matmul({ data: ones, shape: [T, 1, 2] }, { data: pairs, shape: [T, 2, d] });
}

/**
 * x -> x1 = x + MHA1(x) -> x2 = x1 + MHA2(x1). `ablate` = { layer, key } hides
 * key `key` (0-based) in that layer through keyPaddingMask.
 */
export function runStack(ag, X, layers, ablate = null) {
  const T = X.length;
  const d = STACK_D;
  const x0 = { data: Float32Array.from(X.flat()), shape: [T, d] };
  const mask = (L) =>
    ablate && ablate.layer === L ? Array.from({ length: T }, (_, j) => j === ablate.key) : undefined;
  const m1 = ag.multiHeadAttention({ query: x0 }, layers[0], {
    numHeads: 1,
    returnWeights: true,
    keyPaddingMask: mask(1),
  });
  const x1 = residual(ag, x0.data, m1.output.data, T, d);
  const x1t = { data: x1.data, shape: [T, d] };
  const m2 = ag.multiHeadAttention({ query: x1t }, layers[1], {
    numHeads: 1,
    returnWeights: true,
    keyPaddingMask: mask(2),
  });
  const x2 = residual(ag, x1.data, m2.output.data, T, d);
  return { x1: x1t, x2: { data: x2.data, shape: [T, d] }, weights: [m1.weights, m2.weights] };
}

/**
 * Every key ablated in each layer: effect[L][i][j] = |x2_i - x2_i(key j hidden in layer L)|,
 * the difference by ag.matmul ([1, -1] times the two rows) and its length by ag.norm.
 */
export function ablationEffects(ag, X, layers, base) {
  const T = X.length;
  const d = STACK_D;
  const minus = new Float32Array(T * 2);
  for (let t = 0; t < T; t += 1) minus.set([1, -1], t * 2);
  return [1, 2].map((L) =>
    Array.from({ length: T }, (_, j) => {
      const run = runStack(ag, X, layers, { layer: L, key: j });
      const pairs = new Float32Array(T * 2 * d);
      for (let t = 0; t < T; t += 1) {
        pairs.set(base.x2.data.subarray(t * d, (t + 1) * d), t * 2 * d);
        pairs.set(run.x2.data.subarray(t * d, (t + 1) * d), t * 2 * d + d);
      }
      const diff = ag.matmul({ data: minus, shape: [T, 1, 2] }, { data: pairs, shape: [T, 2, d] });
      return Array.from({ length: T }, (_, i) => ag.norm(diff.data.subarray(i * d, (i + 1) * d)));
    }),
  ); // [L][j][i]
}

/** Ranks (0 = largest) of a row of numbers (comparisons only). */
export function ranks(values) {
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]);
  const r = new Array(values.length);
  order.forEach((j, k) => {
    r[j] = k;
  });
  return r;
}

/**
 * The two kinds of case for one query of one layer: a key in the top half by
 * weight but the bottom half by effect ('large-little'), or the other way round ('small-much').
 */
export function classify(weights, effects) {
  const T = weights.length;
  const rw = ranks(weights);
  const re = ranks(effects);
  const top = Math.floor(T / 2);
  const bottom = Math.ceil(T / 2);
  return Array.from(weights, (_, j) =>
    rw[j] < top && re[j] >= bottom ? 'large-little' : rw[j] >= bottom && re[j] < top ? 'small-much' : null,
  );
}

/**
 * The next query and layer after (layer, qi) (layers 1 and 2, queries 0-based, in turn) that has
 * both kinds of case; `weightsOf(L, i)` and `effectsOf(L, i)` give a query's rows. [L, i] or null.
 */
export function nextWithBothKinds(T, layer, qi, weightsOf, effectsOf) {
  const start = (layer - 1) * T + qi;
  for (let s = 1; s <= 2 * T; s += 1) {
    const k = (start + s) % (2 * T);
    const L = Math.floor(k / T) + 1;
    const i = k % T;
    const kinds = classify(weightsOf(L, i), effectsOf(L, i));
    if (kinds.includes('large-little') && kinds.includes('small-much')) return [L, i];
  }
  return null;
}
