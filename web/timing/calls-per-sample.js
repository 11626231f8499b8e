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
//
// A time read on the clock is known to within one tick, so both `minMs` and
// `targetMs` are raised to TICKS ticks where the clock is that coarse: a
// sample of 30 ms on a 100 ms clock would read 0 most times (a median of 0).
// The count is scaled from a batch that read at least TICKS ticks (so lasted
// more than TICKS - 1), and a sample then lasts at least TICKS - 1 ticks,
// read within a third of its length. On such a clock `maxCalls` gives way
// too: a fast call (a dot product of 256, under a microsecond) needs
// hundreds of thousands of calls to fill four ticks, and a sample cut short
// at maxCalls would read 0 again. The clock moves, so the doubling still
// ends; MAX_CALLS_COARSE and SEARCH_LIMIT_MS (by Date.now, should the clock
// stop) are guards, not budgets.
import { clockTick } from './clock-tick.js';

/** The fewest ticks of the clock a scaling batch and a sample last. */
export const TICKS = 4;
const MAX_CALLS_COARSE = 2 ** 28;
const SEARCH_LIMIT_MS = 10000;

/**
 * @param {() => unknown} call one call of the workload
 * @param {{ targetMs: number, maxCalls: number, minMs?: number, clockMs?: number, tick?: () => Promise<void> }} options
 *   targetMs: the time a sample should last (ms); maxCalls: the most calls per
 *   sample where the clock is fine enough (see above); minMs: the shortest
 *   batch the count is scaled from (default targetMs / 4); clockMs: the tick
 *   of the clock in ms (default: clockTick(), measured once; 0 for unknown),
 *   which raises minMs and targetMs to TICKS ticks; tick: awaited between
 *   batches (lets a worker answer messages); searchLimitMs: the longest the
 *   search for the count may take by Date.now() (default 10 s), after which
 *   the last batch's count is returned
 * @returns {Promise<number>} calls per sample, a whole number >= 1: at most
 *   maxCalls, unless TICKS ticks of the clock are longer than minMs
 * Rejects with a RangeError naming the option when targetMs or minMs is not
 * a positive finite number, clockMs not a finite number >= 0, or maxCalls
 * not a whole number >= 1.
 */
export async function callsPerSample(
  call,
  {
    targetMs,
    maxCalls,
    minMs = undefined,
    clockMs = undefined,
    tick = async () => {},
    searchLimitMs = SEARCH_LIMIT_MS,
  },
) {
  const shown = (value) =>
    typeof value === 'string'
      ? `the string "${value.slice(0, 20)}"`
      : value === null
        ? 'null'
        : typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol'
          ? typeof value
          : `${typeof value} ${String(value)}`;
  const bad = (name, value, expected) =>
    new RangeError(`callsPerSample: options.${name} must be ${expected}; got ${shown(value)}`);
  const positive = (x) => typeof x === 'number' && x > 0 && Number.isFinite(x);
  if (!positive(targetMs)) throw bad('targetMs', targetMs, 'a positive finite number of ms');
  if (minMs === undefined) minMs = targetMs / 4;
  if (!positive(minMs)) throw bad('minMs', minMs, 'a positive finite number of ms');
  if (!Number.isInteger(maxCalls) || maxCalls < 1) throw bad('maxCalls', maxCalls, 'a whole number >= 1');
  if (clockMs !== undefined && !(typeof clockMs === 'number' && clockMs >= 0 && Number.isFinite(clockMs)))
    throw bad('clockMs', clockMs, 'a finite number of ms >= 0');
  if (!positive(searchLimitMs)) throw bad('searchLimitMs', searchLimitMs, 'a positive finite number of ms');
  const clock = clockMs ?? clockTick();
  if (TICKS * clock > minMs) maxCalls = Math.max(maxCalls, MAX_CALLS_COARSE);
  minMs = Math.max(minMs, TICKS * clock);
  targetMs = Math.max(targetMs, minMs);
  const batch = (calls) => {
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) call();
    return performance.now() - t0;
  };
  const scaled = (calls, ms) => Math.max(1, Math.min(maxCalls, Math.round((calls * targetMs) / ms)));
  const giveUpAt = Date.now() + searchLimitMs;
  for (let calls = 1; ; calls = Math.min(2 * calls, maxCalls)) {
    let ms = batch(calls);
    if (ms >= minMs) ms = Math.min(ms, batch(calls));
    if (ms >= minMs) return scaled(calls, ms);
    if (calls === maxCalls || Date.now() > giveUpAt) return calls;
    await tick();
  }
}
