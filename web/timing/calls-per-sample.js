// How many calls of a workload make one timed sample: enough for the sample
// to last about `targetMs` on this browser's clock.
//
// performance.now() is coarse in browsers: from 5 µs to 0.1 ms in Chromium
// (finer when the page is cross-origin isolated), 1 ms or more in others, and
// far coarser under fingerprinting protection. The time of one call is a
// poor guide to the count. On a coarse clock a fast call reads 0, and the
// samples would then run thousands of calls too many; a pause of the garbage
// collector can make one call read ten times its time, and the samples
// would then be shorter than a tick of the clock and read 0, a median of 0.
// So the calls run in batches that double until a batch lasts at least
// `minMs` by this clock, and the count is scaled from that batch to
// `targetMs`. The batch that reaches `minMs` is timed twice and the shorter
// time kept, so that one pause does not decide the count.

/**
 * @param {() => unknown} call one call of the workload
 * @param {{ targetMs: number, maxCalls: number, minMs?: number, tick?: () => Promise<void> }} options
 *   targetMs: the time a sample should last (ms); maxCalls: the most calls per
 *   sample; minMs: the shortest batch the count is scaled from (default
 *   targetMs / 4); tick: awaited between batches (lets a worker answer messages)
 * @returns {Promise<number>} calls per sample, a whole number from 1 to maxCalls
 */
export async function callsPerSample(call, { targetMs, maxCalls, minMs = targetMs / 4, tick = async () => {} }) {
  if (!(targetMs > 0) || !(minMs > 0) || !Number.isInteger(maxCalls) || maxCalls < 1) {
    throw new RangeError('callsPerSample: targetMs and minMs must be positive and maxCalls a whole number >= 1');
  }
  const batch = (calls) => {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) call();
    return performance.now() - t0;
  };
  const scaled = (calls, ms) => Math.max(1, Math.min(maxCalls, Math.round((calls * targetMs) / ms)));
  for (let calls = 1; ; calls = Math.min(2 * calls, maxCalls)) {
    let ms = batch(calls);
    if (ms >= minMs) ms = Math.min(ms, batch(calls));
    if (ms >= minMs) return scaled(calls, ms);
    if (calls === maxCalls) return maxCalls;
    await tick();
  }
}
