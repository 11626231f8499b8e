// Keeps a chapter that a link opened at the top of the window while the page
// settles. The chapters above it start their widgets after the first scroll
// and grow as they do, pushing the linked chapter down, sometimes out of the
// window (and the chapter in view then becomes another one). Each time the
// page's height changes, the chapter is scrolled back to the top, until the
// learner scrolls, taps, clicks or presses a key, or for at most a few
// seconds.

/** How long at most a linked chapter is kept in view (ms). */
export const KEEP_IN_VIEW_MS = 4000;

/**
 * @param {Element} section the chapter to keep at the top
 * @param {{ target?: Window, ms?: number }} [options]
 * @returns {() => void} stops keeping it there
 */
export function keepInView(section, { target = window, ms = KEEP_IN_VIEW_MS } = {}) {
  const doc = target.document;
  const place = () => section.scrollIntoView({ block: 'start' });
  place();
  const observer = new target.ResizeObserver(place);
  observer.observe(doc.body);
  const inputs = ['wheel', 'touchstart', 'pointerdown', 'keydown'];
  let timer = null;
  const stop = () => {
    observer.disconnect();
    for (const type of inputs) target.removeEventListener(type, stop, true);
    if (timer !== null) target.clearTimeout(timer);
  };
  for (const type of inputs) target.addEventListener(type, stop, { capture: true, passive: true });
  timer = target.setTimeout(stop, ms);
  return stop;
}
