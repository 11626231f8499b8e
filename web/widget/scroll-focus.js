// Boxes that scroll (a wide formula or table on a narrow screen) must be
// reachable by keyboard, or their hidden part cannot be read without a mouse
// (WCAG 2.1.1). While an element of the widget scrolls (overflow auto or
// scroll, and content larger than the box), it gets tabindex="0" and a name,
// so Tab reaches it and the arrow keys scroll it; it loses both (only what
// was added here) when it fits again. Elements with a tabindex of their own
// are left alone. Boxes that scroll sideways also show a shadow on each side
// with more to see (scroll-edges.js).

import { afterLayout } from './after-layout.js';
import { afterPause } from './pause.js';
import { followEdges, markEdges } from './scroll-edges.js';

const MARK = 'scrollFocus'; // data-scroll-focus on the elements changed here

const scrollsSideways = (el, style) => el.scrollWidth - el.clientWidth > 1 && /auto|scroll/.test(style.overflowX);
const scrollsDown = (el, style) => el.scrollHeight - el.clientHeight > 1 && /auto|scroll/.test(style.overflowY);

/** A short name for a scrolling box, from what it holds. */
function nameOf(el) {
  const caption = el.querySelector('caption');
  const what =
    caption?.textContent.trim() ||
    (el.querySelector('table') ? 'Table' : el.querySelector('.katex, math') ? 'Formula' : 'Content');
  return `${what} (wider than the screen: scroll with the arrow keys)`;
}

/**
 * The HTML elements under `root` that could scroll, in document order.
 * Figures (<svg>) and typeset formulas (.katex, hundreds of spans each) are
 * skipped as a whole: nothing inside them scrolls, and walking them on every
 * render costs more than the rest of the widget.
 */
function* boxesUnder(root) {
  const doc = root.ownerDocument ?? root;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {
    acceptNode: (el) =>
      !(el instanceof HTMLElement) || el.classList.contains('katex')
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  for (let el = walker.nextNode(); el; el = walker.nextNode()) yield el;
}

/**
 * The elements under `root` that scroll sideways now, each with `fit`, the
 * scale at which its content fits its width (clientWidth / scrollWidth). For
 * the printout (print.js), where a box cannot be scrolled.
 */
export function wideBoxes(root) {
  const out = [];
  for (const el of boxesUnder(root)) {
    if (el.clientWidth > 0 && el.scrollWidth - el.clientWidth > 1 && scrollsSideways(el, getComputedStyle(el)))
      out.push({ el, fit: el.clientWidth / el.scrollWidth });
  }
  return out;
}

/** Marks or unmarks every scrolling element under `root` now. */
export function markScrollers(root) {
  for (const el of boxesUnder(root)) {
    const style =
      el.scrollWidth - el.clientWidth > 1 || el.scrollHeight - el.clientHeight > 1 ? getComputedStyle(el) : null;
    const sideways = style !== null && scrollsSideways(el, style);
    markEdges(el, sideways); // the shadows on the sides with more, also on boxes with a tabindex of their own
    const added = el.dataset[MARK]; // the attributes added here, e.g. "tabindex role aria-label"
    if (added === undefined && el.hasAttribute('tabindex')) continue;
    const now = sideways || (style !== null && scrollsDown(el, style));
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

/** How long after the last render or resize the check runs (ms): not during a drag, soon after it. */
export const CHECK_DELAY_MS = 250;

/**
 * Keeps the scrolling elements under `root` focusable. The check walks the
 * widget and reads the size of every box, so it runs off the interaction:
 * right after the next layout for the first render (now()) and the first
 * size of `frame` (after-layout.js: reading the sizes then costs no layout of
 * its own), and after later renders and resizes once they pause (schedule(),
 * CHECK_DELAY_MS after the last one, when the page is idle). A learner
 * pressing Tab right after a change finds the box marked already unless it
 * started to scroll in the last quarter of a second.
 * @returns {{ schedule: () => void, now: () => void, stop: () => void }}
 */
export function watchScrollers(root, frame) {
  let checked = false;
  let frameRequested = false;
  const check = () => {
    later.cancel();
    markScrollers(root);
    checked = true;
  };
  const whenIdle =
    typeof requestIdleCallback === 'function' ? (fn) => requestIdleCallback(fn, { timeout: 500 }) : (fn) => fn();
  const later = afterPause(() => whenIdle(check), CHECK_DELAY_MS);
  const now = () => {
    if (frameRequested) return;
    frameRequested = true;
    afterLayout(frame, () => {
      frameRequested = false;
      check();
    });
  };
  const observer =
    typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => (checked ? later.poke() : now()));
  observer?.observe(frame);
  const unfollow = followEdges(root);
  return {
    schedule: later.poke,
    now,
    stop: () => {
      observer?.disconnect();
      later.cancel();
      unfollow();
    },
  };
}
