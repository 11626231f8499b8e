// Draws that wait their turn: a training run (widget/training.js) brings a new update every few
// milliseconds, and drawing each one (its numbers, the grids, the loss curve, then the browser's
// layout and paint) would keep the main thread busy for most of the run, so that a key press or a
// click of the learner waits behind it. A paced draw runs at most once every `gapMs`, in a task of
// its own; asks made before it runs are drawn once, together (two runs of one chapter). While the
// page is hidden it draws at once (timers there may wait a second or more). `flush()` draws a
// waiting draw now.
//
// Input first: a draw (its task, then the layout and paint of the frame after it: 5-30 ms on a small
// machine) that starts just before a key press or a drag makes the learner's update wait for it. So
// while the learner gives input (keys, presses, drags, the wheel) a paced draw waits until INPUT_QUIET_MS
// have passed since the last one, and at most INPUT_WAIT_MAX_MS from when it was asked for: a held key
// or a drag during a run sees the run's figures about once a second, and ten times a second again once
// the input rests. A run waits for its draw before its next chunk (widget/training.js), so it trains
// more slowly while the learner types or drags.

/** Milliseconds from one draw of a training run to the next: at most about ten a second. */
export const DRAW_GAP_MS = 100;

/**
 * Milliseconds from one draw to the next of a figure that costs the browser many milliseconds to lay out and
 * paint (a grid of numbers, each an SVG text) while a run goes on: at most twice a second. The rest of the
 * update (the loss curve, the numbers, small pictures) keeps DRAW_GAP_MS; the run's last update draws all at once.
 */
export const SLOW_DRAW_GAP_MS = 500;

/** Milliseconds after the learner's last key, press, drag or wheel turn before a waiting draw runs. */
export const INPUT_QUIET_MS = 150;

/** The longest a draw waits for the learner's input to rest, from when it was asked for. */
export const INPUT_WAIT_MAX_MS = 1000;

/** When the learner last gave input (performance.now()), seen by listeners on the window (capture). */
let lastInput = -Infinity;
let listening = false;
function listenForInput() {
  if (listening || typeof window === 'undefined') return;
  listening = true;
  const seen = (e) => {
    if (e.type !== 'pointermove' || e.buttons) lastInput = performance.now(); // a move counts as a drag only
  };
  for (const type of ['keydown', 'pointerdown', 'pointermove', 'wheel'])
    window.addEventListener(type, seen, { capture: true, passive: true });
}

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
  let asked = 0; // when the waiting draw was asked for
  listenForInput();

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
  /** When the waiting draw may run: its gap after the last draw, and the input at rest (or waited for long enough). */
  const due = () => Math.max(last + gapMs, Math.min(lastInput + INPUT_QUIET_MS, asked + INPUT_WAIT_MAX_MS));
  const wait = () => {
    timer = null;
    const later = due() - performance.now();
    if (later > 0 && !hidden()) timer = setTimeout(wait, later);
    else run();
  };

  return {
    request() {
      if (waiting) return promise;
      promise = new Promise((resolve) => (waiting = resolve));
      const p = promise;
      asked = performance.now();
      if (hidden()) run();
      else timer = setTimeout(wait, Math.max(0, due() - asked));
      return p;
    },
    flush: run,
    cancel() {
      settle()?.();
    },
    pending: () => waiting !== null,
  };
}
