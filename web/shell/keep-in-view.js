// Keeps a chapter that a link opened at the top of the window while the page
// settles. The chapters above it start their widgets after the first scroll
// and grow as they do, pushing the linked chapter down, sometimes out of the
// window (and the chapter in view then becomes another one). Each time the
// page's height changes, the chapter is scrolled back to the top, until the
// learner takes over (a wheel, touch, pointer or key input, or a scroll that
// this code did not make: the scroll bar, find in page, a screen reader, a
// script), or for at most a few seconds.
//
// All of it happens in a ResizeObserver's callback on the body, which runs
// once the browser has laid the page out and before it paints: reading the
// scroll position there and placing the chapter cost no layout of their own,
// and no frame shows the chapter pushed down. A scroll only asks for that
// callback after the next layout (reading the position in the scroll event
// would lay the page out there, each time, while widgets render). The
// browser's scroll anchoring is off meanwhile (overflow-anchor: none on the
// body: Chromium keeps anchoring the page with it on the root element only),
// so growth above leaves the scroll position where place() put it: a
// position elsewhere is someone else's scroll.

/** How long at most a linked chapter is kept in view (ms). */
export const KEEP_IN_VIEW_MS = 4000;

/**
 * @param {Element} section the chapter to keep at the top
 * @param {{ target?: Window, ms?: number }} [options]
 * @returns {() => void} stops keeping it there
 */
export function keepInView(section, { target = window, ms = KEEP_IN_VIEW_MS } = {}) {
  const root = target.document.documentElement;
  const body = target.document.body;
  // The body's own style, put back by stop().
  const hadStyle = body.hasAttribute('style');
  const anchoring = body.style.overflowAnchor;
  let placedY = 0;
  const place = () => {
    section.scrollIntoView({ block: 'start' });
    placedY = target.scrollY;
  };
  // After a layout that changed the page's height or followed a scroll: moved by someone else, or to be placed
  // again. A page that got shorter under a window at its end moves up with it (the browser's clamp): placed
  // again too.
  let judging = false;
  const resized = () => {
    judging = false;
    const y = target.scrollY;
    const clamped = y < placedY && y + target.innerHeight >= root.scrollHeight - 1;
    if (Math.abs(y - placedY) > 1 && !clamped) stop();
    else place();
  };
  const observer = new target.ResizeObserver(resized);
  // Observed anew, the body gets the callback after the next layout whether or not its size changes.
  const onScroll = () => {
    if (judging) return;
    judging = true;
    observer.unobserve(body);
    observer.observe(body);
  };
  const inputs = ['wheel', 'touchstart', 'pointerdown', 'keydown'];
  let timer = null;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    observer.disconnect();
    for (const type of inputs) target.removeEventListener(type, stop, true);
    target.removeEventListener('scroll', onScroll);
    if (timer !== null) target.clearTimeout(timer);
    body.style.overflowAnchor = anchoring;
    if (!hadStyle && body.getAttribute('style') === '') body.removeAttribute('style');
  };
  body.style.overflowAnchor = 'none';
  place();
  observer.observe(body);
  for (const type of inputs) target.addEventListener(type, stop, { capture: true, passive: true });
  target.addEventListener('scroll', onScroll, { passive: true });
  timer = target.setTimeout(stop, ms);
  return stop;
}
