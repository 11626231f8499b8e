// The decode of the chapter "kv-cache" as data, no DOM and no number shown:
// eight tokens of a sentence with fixed query, key and value vectors (d_k =
// d_v = 2), the tensors one decode step and one recomputation pass to
// attention, which scores a call computed (those that are not −∞), and the
// whole decode with the API (decode(ag): results only; the chapter shows them).
// Sources: Vaswani et al. 2017 (the decoder, one token at a time, with the
// causal mask); Shazeer 2019, "Fast Transformer Decoding" (the keys and
// values of past tokens kept between steps).
import { ones } from './tensor.js';

/** The tokens, one decode step each: the word, and its query, key and value (fixed inputs, d_k = d_v = 2). */
export const TOKENS = [
  { word: 'the', q: [1, 0.5], k: [1, 0], v: [1, 0] },
  { word: 'cat', q: [0.5, 1], k: [0.5, 1], v: [0, 1] },
  { word: 'sat', q: [-1, 0.5], k: [-0.5, 1], v: [-1, 0.5] },
  { word: 'on', q: [1, -0.5], k: [1, -1], v: [0.5, -1] },
  { word: 'a', q: [0.5, 1.5], k: [0, 1.5], v: [1, 1] },
  { word: 'warm', q: [-0.5, -1], k: [-1, -0.5], v: [-0.5, -0.5] },
  { word: 'red', q: [1.5, 0.5], k: [1.5, 0.5], v: [0.5, 1.5] },
  { word: 'mat', q: [0.5, -1.5], k: [0.5, -1], v: [-1, 1] },
];
/** Tokens in all: steps 1..T. */
export const T = TOKENS.length;
/** The steps 1..T. */
export const STEPS = Array.from({ length: T }, (_, i) => i + 1);
/** d_k = d_v. */
export const D = 2;
export const WORDS = TOKENS.map((token) => token.word);
/** Q, K, V [T, D]: the rows of the tokens. */
export const Q = TOKENS.map((token) => token.q);
export const K = TOKENS.map((token) => token.k);
export const V = TOKENS.map((token) => token.v);

/** Rows `from`..`to` - 1 of `rows` as a { data, shape: [1, 1, n, D] } tensor (n may be 0: the empty cache). */
export function slice(rows, from, to) {
  return { data: Float32Array.from(rows.slice(from, to).flat()), shape: [1, 1, to - from, D] };
}

/** The empty cache of the first step: no key, no value. */
export const EMPTY = slice(K, 0, 0);

/** 1 for each score a call computed (finite), 0 for each hidden one (−∞): the entries to count. */
export const computed = (scores) => Float32Array.from(scores.data, (s) => (s === -Infinity ? 0 : 1));

/** Whether two rows of results are the same floats, bit for bit (−0 and +0 differ). */
export const sameBits = (a, b) => a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));

/**
 * The whole decode with the API, step by step, and the recomputation at each step: per step the cached call
 * (with weights and scores), row t of causal attention over tokens 1..t, both again without weights (the
 * streaming path), and the visible scores each needs (counted with dot products); then those counts summed.
 */
export function decode(ag) {
  const steps = [];
  let past = { key: EMPTY, value: EMPTY };
  for (const t of STEPS) {
    const [q, k, v] = [Q, K, V].map((rows) => slice(rows, t - 1, t));
    const [Qt, Kt, Vt] = [Q, K, V].map((rows) => slice(rows, 0, t));
    const cached = { pastKey: past.key, pastValue: past.value };
    const step = ag.attention(q, k, v, { ...cached, returnWeights: true, returnScores: true });
    const full = ag.attention(Qt, Kt, Vt, { causal: true, returnWeights: true, returnScores: true });
    const row = full.output.data.subarray((t - 1) * D, t * D);
    const streamed = ag.attention(q, k, v, cached).output.data;
    const streamedRow = ag.attention(Qt, Kt, Vt, { causal: true }).output.data.subarray((t - 1) * D, t * D);
    steps.push({
      step,
      row,
      same: sameBits(step.output.data, row),
      streamedSame: sameBits(streamed, streamedRow),
      cost: [ag.dot(computed(step.scores), ones(t)), ag.dot(computed(full.scores), ones(t * t))],
    });
    past = { key: step.presentKey, value: step.presentValue };
  }
  const per = (side) => steps.map((s) => s.cost[side]);
  const sums = STEPS.map((t) => [0, 1].map((side) => ag.dot(per(side).slice(0, t), ones(t))));
  return { steps, sums, per: [per(0), per(1)] };
}
