// Writes the page URL once the learner pauses, not on every change: a
// history.replaceState costs about a millisecond (more while the browser
// watches the interaction for a same-page navigation) and would run in the
// task of every key press and drag step, before the figure can be painted.
// Browsers also throttle history calls made too often, which could drop the
// last state of a fast drag; one write per pause stays far below any limit.
//
// The last state is never lost: the pending write is made at once when the
// page is hidden or left (pagehide, visibilitychange), when the window loses
// focus (the learner goes to the address bar to copy the link), and whenever
// flush() is called (before anything reads the URL). While a write waits,
// <body data-url="pending"> says so (set once per pause, not per change);
// "current" once the URL holds the latest state (tests wait for it).
import { afterPause } from '../widget/pause.js';

/** How long after the last change the URL is written (ms). */
export const URL_WRITE_DELAY_MS = 100;

/**
 * @param {() => void} write writes the URL for the current state
 * @param {{ delayMs?: number, target?: Window }} [options]
 * @returns {{ schedule: () => void, flush: () => void, now: () => void, pending: () => boolean }}
 *   schedule: a change, written after the pause; flush: the waiting write, now (nothing
 *   when none waits); now: write at once (a choice from a menu, the first write)
 */
export function urlWriter(write, { delayMs = URL_WRITE_DELAY_MS, target = window } = {}) {
  const body = target.document.body;
  const writeNow = () => {
    write();
    body.dataset.url = 'current';
  };
  const later = afterPause(writeNow, delayMs);
  const schedule = () => {
    if (!later.pending()) body.dataset.url = 'pending';
    later.poke();
  };
  const now = () => {
    later.cancel();
    writeNow();
  };
  // Back and Forward (and a jump to an anchor) change the history entry
  // first and tell the page afterwards: a write still waiting then would put
  // the state of the entry left onto the one arrived at. It is dropped (the
  // entry left keeps what it had 100 ms before).
  const drop = () => {
    if (!later.pending()) return;
    later.cancel();
    body.dataset.url = 'current';
  };
  target.addEventListener('popstate', drop);
  target.addEventListener('hashchange', drop);
  target.addEventListener('pagehide', later.flush);
  target.addEventListener('blur', later.flush);
  target.document.addEventListener('visibilitychange', () => {
    if (target.document.visibilityState === 'hidden') later.flush();
  });
  return { schedule, flush: later.flush, now, pending: later.pending };
}
