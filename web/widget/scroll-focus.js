// Boxes that scroll (a wide formula or table on a narrow screen) must be
// reachable by keyboard, or their hidden part cannot be read without a mouse
// (WCAG 2.1.1). While an element of the widget scrolls (overflow auto or
// scroll, and content larger than the box), it gets tabindex="0" and a name,
// so Tab reaches it and the arrow keys scroll it; it loses both (only what
// was added here) when it fits again. Elements with a tabindex of their own
// are left alone.

const MARK = 'scrollFocus'; // data-scroll-focus on the elements changed here

const scrolls = (el, style) =>
  (el.scrollWidth - el.clientWidth > 1 && /auto|scroll/.test(style.overflowX)) || (el.scrollHeight - el.clientHeight > 1 && /auto|scroll/.test(style.overflowY));

/** A short name for a scrolling box, from what it holds. */
function nameOf(el) {
  const caption = el.querySelector('caption');
  const what = caption?.textContent.trim() || (el.querySelector('table') ? 'Table' : el.querySelector('.katex, math') ? 'Formula' : 'Content');
  return `${what} (wider than the screen: scroll with the arrow keys)`;
}

/** Marks or unmarks every scrolling element under `root` now. */
export function markScrollers(root) {
  for (const el of root.querySelectorAll('*')) {
    if (!(el instanceof HTMLElement)) continue;
    const added = el.dataset[MARK]; // the attributes added here, e.g. "tabindex role aria-label"
    if (added === undefined && el.hasAttribute('tabindex')) continue;
    const now = el.scrollWidth - el.clientWidth > 1 || el.scrollHeight - el.clientHeight > 1 ? scrolls(el, getComputedStyle(el)) : false;
    if (now && added === undefined) {
      const names = ['tabindex'];
      el.tabIndex = 0;
      if (!el.hasAttribute('role')) {
        el.setAttribute('role', 'group');
        names.push('role');
      }
      if (!el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby')) {
        el.setAttribute('aria-label', nameOf(el));
        names.push('aria-label');
      }
      el.dataset[MARK] = names.join(' ');
    } else if (!now && added !== undefined) {
      for (const name of added.split(' ')) el.removeAttribute(name);
      delete el.dataset[MARK];
    }
  }
}

/**
 * Keeps the scrolling elements under `root` focusable: checks once per frame
 * at most, when `frame` changes size and whenever schedule() is called (after
 * each render). @returns {{ schedule: () => void, stop: () => void }}
 */
export function watchScrollers(root, frame) {
  let pending = false;
  const schedule = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      markScrollers(root);
    });
  };
  const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(schedule);
  observer?.observe(frame);
  return { schedule, stop: () => observer?.disconnect() };
}
