// The sign that a box scrolls sideways. A wide table or formula cut at the
// edge of its box looks complete unless something says there is more; a
// phone shows no scroll bar until the box is touched. While a box scrolls
// sideways, its data-scroll-more names the sides with more to see ("start",
// "end" or "start end") and widget.css draws a shadow on each of them. The
// mark is set and removed with the box's focusability (scroll-focus.js) and
// follows the box as it scrolls: one passive listener per widget, reading
// only the box's scroll position and sizes.

const MARK = 'scrollMore'; // data-scroll-more

/** The sides of `el` with content hidden beyond them: '', 'start', 'end' or 'start end'. */
export function hiddenSides(el) {
  const max = el.scrollWidth - el.clientWidth;
  if (max <= 1) return '';
  const x = Math.abs(el.scrollLeft); // negative in a right-to-left box
  return [x > 1 ? 'start' : '', x < max - 1 ? 'end' : ''].filter(Boolean).join(' ');
}

/** Marks the sides of `el` with more to see while it scrolls sideways (`sideways`); unmarks it otherwise. */
export function markEdges(el, sideways) {
  const sides = sideways ? hiddenSides(el) : '';
  if (sides && el.dataset[MARK] !== sides) el.dataset[MARK] = sides;
  else if (!sides && el.dataset[MARK] !== undefined) delete el.dataset[MARK];
}

/** Keeps the marks under `root` in step with scrolling. @returns {() => void} stops */
export function followEdges(root) {
  const onScroll = (event) => {
    const el = event.target;
    if (el instanceof HTMLElement && el.dataset[MARK] !== undefined) markEdges(el, true);
  };
  root.addEventListener('scroll', onScroll, { capture: true, passive: true });
  return () => root.removeEventListener('scroll', onScroll, { capture: true });
}
