// Draws that wait their turn: a training run (widget/training.js) brings a new update every few
// milliseconds, and drawing each one (its numbers, the grids, the loss curve, then the browser's
// layout and paint) would keep the main thread busy for most of the run, so that a key press or a
// click of the learner waits behind it. A paced draw runs at most once every `gapMs`, in a task of
// its own; asks made before it runs are drawn once, together (two runs of one chapter). While the
// page is hidden it draws at once (timers there may wait a second or more). `flush()` draws a
// waiting draw now.

/** Milliseconds from one draw of a training run to the next: at most about ten a second. */
export const DRAW_GAP_MS = 100;

/**
 * Milliseconds from one draw to the next of a figure that costs the browser many milliseconds to lay out and
 * paint (a grid of numbers, each an SVG text) while a run goes on: at most twice a second. The rest of the
 * update (the loss curve, the numbers, small pictures) keeps DRAW_GAP_MS; the run's last update draws all at once.
 */
export const SLOW_DRAW_GAP_MS = 500;

/**
 * @param {() => void} draw draws the widget's latest numbers (whatever updates came since the last draw)
 * @param {{ gapMs?: number }} [o] the least time from the start of one draw to the start of the next
 * @returns {{ request: () => Promise<void>, flush: () => void, cancel: () => void, pending: () => boolean }}
 *   request: a draw is wanted (resolves once it has run); flush: run a waiting draw now; cancel: forget it
 *   (its promise resolves without a draw); pending: whether a draw waits
 */
export function pacedDraw(draw, { gapMs = DRAW_GAP_MS } = {}) {
  let waiting = null; // the resolve of the promise of the next draw
  let promise = null;
  let timer = null;
  let last = -Infinity; // when the last draw started (performance.now())

  const settle = () => {
    const resolve = waiting;
    waiting = null;
    promise = null;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    return resolve;
  };
  const run = () => {
    const resolve = settle();
    if (!resolve) return;
    last = performance.now();
    try {
      draw();
    } finally {
      resolve();
    }
  };
  const hidden = () => typeof document !== 'undefined' && document.visibilityState === 'hidden';

  return {
    request() {
      if (waiting) return promise;
      promise = new Promise((resolve) => (waiting = resolve));
      const p = promise;
      if (hidden()) run();
      else timer = setTimeout(run, Math.max(0, last + gapMs - performance.now()));
      return p;
    },
    flush: run,
    cancel() {
      settle()?.();
    },
    pending: () => waiting !== null,
  };
}
