// Chapter 11's rows of random scores and their mean curves, computed with the
// API (run in the experiment worker, job kind 'scale-fix').
//
// Row r at d_k: a query q and T keys k_1..k_T, standard-normal vectors of
// dimension d_k from the seeded generator: q from counter r * B and the keys
// [T, d_k] right after it (counter r * B + ceil(d_k / 4)), B = ceil(d_k / 4) +
// ceil(T d_k / 4) blocks per row, so rows never share a draw and row 0 is the
// chapter's sample row. Its scores s = K q (ag.matmul) go through ag.softmax
// over all rows at once ([rows, T]), unscaled and with temperature √d_k. For
// each row: the largest weight (selected), ag.entropy, and ag.norm of
// ag.softmaxJacobian. Over the rows: the mean, ag.dot of the values with
// weights 1/rows (exact in float32 for a power of two), and the 10th and 90th
// percentiles, selected from the sorted values (nearest rank).

/** Rows per d_k: a power of two, so that 1/ROWS is exact. */
export const ROWS = 256;
/** The measures of a row, in the order of the panels. */
export const MEASURES = ['max', 'entropy', 'jacobian'];
export const SERIES_IDS = ['unscaled', 'scaled'];

/** The draws of row r: { q, K } as counters and lengths (see above). */
export function rowDraws(r, tokens, dk) {
  const qBlocks = Math.ceil(dk / 4);
  const perRow = qBlocks + Math.ceil((tokens * dk) / 4);
  return { q: { counter: r * perRow, n: dk }, K: { counter: r * perRow + qBlocks, n: tokens * dk } };
}

/** The T scores of row r: K q. */
export function rowScores(ag, seed, tokens, dk, r) {
  const at = rowDraws(r, tokens, dk);
  const q = ag.random.normal({ seed, ...at.q });
  const K = ag.random.normal({ seed, ...at.K });
  return { q, s: ag.matmul({ data: K.data, shape: [tokens, dk] }, { data: q.data, shape: [dk, 1] }).data };
}

/** Largest weight (a selection), entropy in bits and ‖J‖_F of one row of weights. */
export function rowMeasures(ag, w) {
  let best = 0;
  for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
  return { max: w[best], entropy: ag.entropy(w), jacobian: ag.norm(ag.softmaxJacobian(w).data) };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

/** Mean (a kernel result), 10th and 90th percentiles (selected) of the values. */
function summary(ag, values, weights) {
  const sorted = Float32Array.from(values).sort();
  return { mean: ag.dot(values, weights), p10: percentile(sorted, 0.1), p90: percentile(sorted, 0.9) };
}

/**
 * The curves at one d_k: { dk, unscaled: { max: { mean, p10, p90 }, ... }, scaled: ... }.
 */
export function curvesAt(ag, { seed, tokens, rows = ROWS }, dk) {
  const S = new Float32Array(rows * tokens);
  for (let r = 0; r < rows; r++) S.set(rowScores(ag, seed, tokens, dk, r).s, r * tokens);
  const weights = new Float32Array(rows).fill(1 / rows);
  const out = { dk };
  for (const id of SERIES_IDS) {
    const options = id === 'scaled' ? { temperature: Math.sqrt(dk) } : undefined;
    const W = ag.softmax({ data: S, shape: [rows, tokens] }, options).data;
    const values = Object.fromEntries(MEASURES.map((k) => [k, new Float32Array(rows)]));
    for (let r = 0; r < rows; r++) {
      const m = rowMeasures(ag, W.subarray(r * tokens, (r + 1) * tokens));
      for (const k of MEASURES) values[k][r] = m[k];
    }
    out[id] = Object.fromEntries(MEASURES.map((k) => [k, summary(ag, values[k], weights)]));
  }
  return out;
}
