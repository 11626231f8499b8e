// The arrow keys on a group of items (tabs, a radio group, the values of a chart): by default Right and
// Down go to the next item, Left and Up to the one before; Home and End go to the ends.
const NEXT_DOWN = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/**
 * Calls `go(k)` with the item a key moves to from `index()` among `count` items (`keys`: the step
 * of each key), held at the ends, or round from the last to the first with `wrap`; other keys are
 * left to the browser.
 */
export function arrowKeys(el, { count, index, go, wrap = false, keys = NEXT_DOWN }) {
  el.addEventListener('keydown', (event) => {
    const to = event.key === 'Home' ? 0 : event.key === 'End' ? count - 1 : index() + (keys[event.key] ?? NaN);
    if (Number.isNaN(to)) return;
    event.preventDefault();
    go(wrap ? (to + count) % count : Math.max(0, Math.min(count - 1, to)));
  });
}
