// The tick of this browser's clock: the smallest step performance.now()
// takes. Browsers coarsen the clock on purpose (5 µs to 0.1 ms in Chromium,
// 1 ms in others, 16.7 ms or 100 ms under fingerprinting protection), and a
// time read on it is only known to within one tick: a sample must last
// several ticks to be measured at all (calls-per-sample.js).

/**
 * Measures the clock's tick by reading it until it has moved twice: the first
 * move finds the start of a tick, the second its end.
 * @param {{ limitMs?: number }} [options] limitMs: give up after this long by
 *   Date.now() (default 250 ms); a clock that has not moved by then (a frozen
 *   or virtual one) has an unknown tick
 * @returns {number} the tick in ms, or 0 when it is unknown
 */
export function clockTickMs({ limitMs = 250 } = {}) {
  const deadline = Date.now() + limitMs;
  let last = performance.now();
  let start = null;
  for (let reads = 0; ; reads++) {
    const now = performance.now();
    if (now !== last) {
      if (start !== null) return now - start;
      start = now;
    }
    last = now;
    // Date.now() costs a system call in some engines: every 1024 reads suffices.
    if ((reads & 1023) === 0 && Date.now() > deadline) return 0;
  }
}

// The tick measured once per clock: the resolution of a page's clock does not
// change while it runs. Keyed by the performance.now function itself, so that
// a replaced clock (a test's virtual one) is measured anew.
let known = { now: null, tick: 0 };

/**
 * The clock's tick in ms (0 when unknown), measured by clockTickMs on the
 * first call and remembered: a coarse clock takes up to two of its ticks to
 * measure (200 ms at 100 ms), which need not be spent again.
 * @returns {number}
 */
export function clockTick() {
  if (known.now !== performance.now) known = { now: performance.now, tick: clockTickMs() };
  return known.tick;
}
