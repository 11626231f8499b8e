// Keeps a chapter that a link opened at the top of the window while the page
// settles. The chapters above it start their widgets after the first scroll
// and grow as they do, pushing the linked chapter down, sometimes out of the
// window (and the chapter in view then becomes another one). Each time the
// page's height changes, the chapter is scrolled back to the top, until the
// learner takes over (a wheel, touch, pointer or key input, or a scroll that
// this code did not make while the page kept its height: the scroll bar,
// find in page, a screen reader), or for at most a few seconds.

/** How long at most a linked chapter is kept in view (ms). */
export const KEEP_IN_VIEW_MS = 4000;

/**
 * @param {Element} section the chapter to keep at the top
 * @param {{ target?: Window, ms?: number }} [options]
 * @returns {() => void} stops keeping it there
 */
export function keepInView(section, { target = window, ms = KEEP_IN_VIEW_MS } = {}) {
  const root = target.document.documentElement;
  let placedY = 0;
  let placedHeight = 0;
  const place = () => {
    section.scrollIntoView({ block: 'start' });
    placedY = target.scrollY;
    placedHeight = root.scrollHeight;
  };
  const observer = new target.ResizeObserver(place);
  const inputs = ['wheel', 'touchstart', 'pointerdown', 'keydown'];
  let timer = null;
  const stop = () => {
    observer.disconnect();
    for (const type of inputs) target.removeEventListener(type, stop, true);
    target.removeEventListener('scroll', onScroll);
    if (timer !== null) target.clearTimeout(timer);
  };
  // A scroll away from where this code put the page, with the page's height
  // unchanged (growth above is followed by place()), is someone else's.
  const onScroll = () => {
    if (Math.abs(target.scrollY - placedY) > 1 && root.scrollHeight === placedHeight) stop();
  };
  place();
  observer.observe(target.document.body);
  for (const type of inputs) target.addEventListener(type, stop, { capture: true, passive: true });
  target.addEventListener('scroll', onScroll, { passive: true });
  timer = target.setTimeout(stop, ms);
  return stop;
}
