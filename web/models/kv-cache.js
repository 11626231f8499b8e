// The decode of the chapter "kv-cache" as data, no DOM and no number shown:
// eight tokens of a sentence with fixed query, key and value vectors (d_k =
// d_v = 2), the tensors one decode step and one recomputation pass to
// attention, and which scores a call computed (those that are not −∞).
// Sources: Vaswani et al. 2017 (the decoder, one token at a time, with the
// causal mask); Shazeer 2019, "Fast Transformer Decoding" (the keys and
// values of past tokens kept between steps).

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

/** n ones, to add up entries with a dot product. */
export const ones = (n) => new Float32Array(n).fill(1);

/** Whether two rows of results are the same floats, bit for bit (−0 and +0 differ). */
export const sameBits = (a, b) => a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]));
