// The tick of this browser's clock: the smallest step performance.now()
// takes. Browsers coarsen the clock on purpose (5 µs to 0.1 ms in Chromium,
// 1 ms in others, 16.7 ms or 100 ms under fingerprinting protection), and a
// time read on it is only known to within one tick: a sample must last
// several ticks to be measured at all (calls-per-sample.js).

/** How many ticks clockTickMs times (it keeps the shortest). */
const INTERVALS = 3;

/**
 * Measures the clock's tick by reading it until it has moved INTERVALS + 1
 * times: the first move finds the start of a tick, each later one the end of
 * a tick. The shortest tick is kept, so that a pause of the thread while it
 * reads (another process, the collector) does not pass for the tick.
 * @param {{ limitMs?: number }} [options] limitMs: stop after this long by
 *   Date.now() (default 500 ms), with the ticks timed so far; a clock that has
 *   not moved twice by then (a frozen or virtual one) has an unknown tick
 * @returns {number} the tick in ms, or 0 when it is unknown
 */
export function clockTickMs({ limitMs = 500 } = {}) {
  const deadline = Date.now() + limitMs;
  let last = performance.now();
  let start = null;
  let shortest = Infinity;
  for (let reads = 0, ticks = 0; ticks < INTERVALS; reads++) {
    const now = performance.now();
    if (now !== last) {
      if (start !== null) {
        shortest = Math.min(shortest, now - start);
        ticks += 1;
      }
      start = now;
    }
    last = now;
    // Date.now() costs a system call in some engines: every 1024 reads suffices.
    if ((reads & 1023) === 0 && Date.now() > deadline) break;
  }
  return shortest === Infinity ? 0 : shortest;
}

// The tick measured once per clock: the resolution of a page's clock does not
// change while it runs. Keyed by the performance.now function itself, so that
// a replaced clock (a test's virtual one) is measured anew. An unknown tick
// (0: the clock did not move in time) is measured once more at the next
// call, then kept: each try costs the whole time limit.
let known = { now: null, tick: 0, tries: 0 };

/**
 * The clock's tick in ms (0 when unknown), measured by clockTickMs on the
 * first call and remembered: a coarse clock takes up to four of its ticks to
 * measure (400 ms at 100 ms), which need not be spent again.
 * @param {{ limitMs?: number }} [options] passed to clockTickMs when it measures
 * @returns {number}
 */
export function clockTick(options) {
  if (known.now !== performance.now) known = { now: performance.now, tick: 0, tries: 0 };
  if (known.tick === 0 && known.tries < 2) {
    known.tick = clockTickMs(options);
    known.tries += 1;
  }
  return known.tick;
}
