// A dot-product experiment of any number of pairs, streamed through
// ag.randomDotExperiment in chunks that each stay within the API's work bound
// (d * trials <= 2^26), then combined with kernel calls.
//
// Chunk c draws its pairs with the 64-bit seed c * 2^32 + seed (the generator's
// key; the learner's seed is below 2^32), so the chunks are independent
// streams and chunk 0 is exactly the one-call experiment of that seed: a
// request within the bound runs one call and shows its statistics as they are.
//
// Combination (more than one chunk), with w_c = n_c / N the share of chunk c:
//   mean = sum_c w_c mean_c                               (ag.dot)
//   rms  = sqrt(sum_c w_c rms_c^2)                        (ag.norm of sqrt(w_c) rms_c)
//   std  = sqrt(sum_c w_c std_c^2 + sum_c w_c (mean_c - mean)^2)
//          (the law of total variance; ag.norm of the 2C terms sqrt(w_c) std_c,
//          then sqrt(w_c) (mean_c - mean))
// Each kernel sums its terms pairwise in chunk order (pairwise_*.h). The
// terms are float32, so the combined statistics carry a relative rounding of
// a few 2^-24, far below the sampling error of any experiment the page runs.
// Histogram counts are integers, added exactly.

/** The most d * trials one call may do (src/js/random.js MAX_EXPERIMENT_WORK). */
export const MAX_WORK = 2 ** 26;
const TWO32 = 2 ** 32;

/** Trials per chunk for `pairs` pairs at dimension d: each chunk within MAX_WORK. */
export function chunkSizes(d, pairs) {
  const most = Math.max(1, Math.floor(MAX_WORK / d));
  const sizes = [];
  for (let left = pairs; left > 0; left -= most) sizes.push(Math.min(most, left));
  return sizes;
}

/** The worker calls (job kind 'calls') of one experiment: one per chunk. */
export function chunkCalls(d, pairs, seed, options) {
  return chunkSizes(d, pairs).map((trials, c) => ({
    method: 'randomDotExperiment',
    args: [{ ...options, d, trials, seed: c * TWO32 + seed, measure: 'dot', returnSamples: false }],
    work: d * trials,
  }));
}

/**
 * The statistics of the whole experiment from its chunks' results (in chunk
 * order): { pairs, mean, std, rms, histogram }, every statistic a kernel result.
 */
export function combineChunks(ag, results, sizes) {
  if (results.length === 1) {
    const [r] = results;
    return { pairs: sizes[0], mean: r.mean, std: r.std, rms: r.rms, histogram: r.histogram };
  }
  const pairs = sizes.reduce((a, b) => a + b, 0); // integers: exact
  const w = Float32Array.from(sizes, (n) => n / pairs);
  const root = w.map(Math.sqrt);
  const mean = ag.dot(
    w,
    Float32Array.from(results, (r) => r.mean),
  );
  const rms = ag.norm(Float32Array.from(results, (r, c) => root[c] * r.rms));
  const spread = new Float32Array(2 * results.length);
  results.forEach((r, c) => {
    spread[c] = root[c] * r.std;
    spread[results.length + c] = root[c] * (r.mean - mean);
  });
  const std = ag.norm(spread);
  const { lo, hi, bins } = results[0].histogram;
  const counts = new Int32Array(bins);
  for (const r of results) r.histogram.counts.forEach((n, i) => (counts[i] += n));
  return { pairs, mean, std, rms, histogram: { lo, hi, bins, counts } };
}
