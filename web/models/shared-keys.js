// The heads of the chapter "shared-keys" as data, no DOM and no number shown:
// H_Q = 4 query heads of d_k = 2, the keys and values of T = 5 tokens for each
// of 4 key/value heads (multi-head attention), which query head reads which
// key/value head when h_kv of them are kept, the matrix that averages the
// heads of each group into one (how a multi-head checkpoint becomes a
// grouped-query one, Ainslie et al. 2023, §2.1), and the tensors that
// attention takes for one decoding step. Sources: Shazeer 2019 (multi-query
// attention); Ainslie et al. 2023 (grouped-query attention).

/** Query heads, tokens (keys), d_k = d_v. */
export const H_Q = 4;
export const T = 5;
export const D = 2;
/** The choices of h_kv: 4 (multi-head), 2 (grouped-query), 1 (multi-query); each divides H_Q. */
export const KV_HEADS = ['4', '2', '1'];
/** The queries' default: one per head, [H_Q, D]. */
export const Q = [
  [1.5, 1],
  [-1, 1.5],
  [0.5, -1.5],
  [-1.5, -0.5],
];
/**
 * Keys and values of the 4 heads of multi-head attention, [H_Q][T][D]. Multiples of 1/2: the mean of 2 or 4 of
 * them is a multiple of 1/8, exact in float32, so an averaged head is the same in every rounding order.
 */
export const K = [
  [
    [2, 0.5],
    [1, 2],
    [-1.5, 1],
    [-1, -1.5],
    [1.5, -1.5],
  ],
  [
    [1.5, 1],
    [-0.5, 2],
    [-2, 0],
    [-0.5, -2],
    [2, -1],
  ],
  [
    [2.5, 0],
    [0.5, 2.5],
    [-2, 1.5],
    [-1.5, -1],
    [0.5, -2],
  ],
  [
    [1, 1.5],
    [-1, 1.5],
    [-2, -0.5],
    [0, -2],
    [2, -0.5],
  ],
];
export const V = [
  [
    [1, 0],
    [0, 1],
    [-1, 0],
    [0, -1],
    [0.5, 0.5],
  ],
  [
    [0, 1],
    [1, 0],
    [0.5, -0.5],
    [-1, 0],
    [0, -1],
  ],
  [
    [1, 1],
    [-1, 0.5],
    [0, -1],
    [0.5, 0],
    [-0.5, 0.5],
  ],
  [
    [-1, 0],
    [0.5, 1],
    [1, -1],
    [0, 0.5],
    [1, 0],
  ],
];

/** The key/value head (1-based) that query head i (1-based) reads when h_kv are kept: ⌈i·h_kv/H_Q⌉. */
export const groupOf = (i, hkv) => Math.ceil((i * hkv) / H_Q);

/** The query heads (1-based) that read key/value head g (1-based). */
export const headsOf = (g, hkv) => Array.from({ length: H_Q }, (_, i) => i + 1).filter((i) => groupOf(i, hkv) === g);

/** The averaging matrix [h_kv, H_Q]: row g holds 1/(H_Q/h_kv) at the heads of group g, 0 elsewhere. */
export function poolMatrix(hkv) {
  const size = H_Q / hkv;
  return Array.from({ length: hkv }, (_, g) =>
    Array.from({ length: H_Q }, (_, i) => (groupOf(i + 1, hkv) === g + 1 ? 1 / size : 0)),
  );
}

/** Every head's keys (or values) as one row of T·D numbers: [H_Q, T·D], what poolMatrix multiplies. */
export const headRows = (X) => X.map((head) => head.flat());

/** The queries as attention's Q of one decoding step: [1, H_Q, 1, D]. */
export const queries = (q) => ({ data: Float32Array.from(q.flat()), shape: [1, H_Q, 1, D] });

/**
 * One decoding step's keys (or values) from `heads` ([h, T·D] data, one head per row): the cache of the first
 * T − 1 tokens ([1, h, T − 1, D], pastKey) and the new token's ([1, h, 1, D]). With `copies`, each of the h
 * heads is repeated for its H_Q/h query heads: [1, H_Q, ·, D].
 */
export function decodeStep(heads, h, copies = false) {
  const row = T * D;
  const order = copies ? Array.from({ length: H_Q }, (_, i) => groupOf(i + 1, h) - 1) : [...Array(h).keys()];
  const n = order.length;
  const past = new Float32Array(n * (T - 1) * D);
  const now = new Float32Array(n * D);
  order.forEach((g, at) => {
    past.set(heads.subarray(g * row, g * row + (T - 1) * D), at * (T - 1) * D);
    now.set(heads.subarray(g * row + (T - 1) * D, (g + 1) * row), at * D);
  });
  return { past: { data: past, shape: [1, n, T - 1, D] }, now: { data: now, shape: [1, n, 1, D] } };
}
