// The reading bar: a strip that stays at the top of the window while the
// chapters scroll under it (position: sticky in style.css), holding the
// contents behind a button (the chapters by part, the one in view marked
// aria-current), "Chapter k of n" with the chapter's title and part, and a
// line filled to the chapter in view. The chapter in view is the one
// crossing a line 30% down the window, as for the page's address (app.js);
// an IntersectionObserver reports the crossings, so scrolling runs no code of
// the page's between them. The bar is part of the full page only: the one-widget page
// (embed.html) has none, and print hides it.
import { focusChapter } from './chapter-focus.js';
import { h, setText } from '../widget/dom.js';
import { contentsLists } from './chapters-view.js';
import { partOf, partTitle } from './tour.js';

/** The line a chapter in view crosses, as a fraction of the window's height from its top. */
export const READING_LINE = 0.3;

/**
 * @param {HTMLElement} nav the bar's element (empty)
 * @param {object[]} chapters the tour, in order
 * @param {{ sections: HTMLElement[], marked?: HTMLElement[] }} o each chapter's section, in the
 *   tour's order; `marked`: other contents (the table at the top) whose link to the chapter in
 *   view is marked as well
 * @returns {{ current: () => number, stop: () => void }} the index of the chapter in view (-1: none)
 */
export function readingBar(nav, chapters, { sections, marked = [] }) {
  const total = chapters.length;
  const toggle = h(
    'button',
    {
      type: 'button',
      id: 'reading-bar-toggle',
      class: 'rb-toggle',
      'aria-expanded': 'false',
      'aria-controls': 'reading-bar-contents',
    },
    'Contents',
  );
  const count = h('span', { class: 'rb-count' });
  const title = h('span', { class: 'rb-title' });
  const part = h('span', { class: 'rb-part' });
  const panel = h(
    'div',
    { id: 'reading-bar-contents', class: 'rb-panel', hidden: true },
    contentsLists(chapters, { heading: 'p' }),
  );
  const fill = h('span', { class: 'rb-fill' });
  nav.replaceChildren(
    h('div', { class: 'rb-inner' }, toggle, h('p', { class: 'rb-where' }, count, ' ', title, part), panel),
    h('div', { class: 'rb-progress', 'aria-hidden': 'true' }, fill),
  );

  // The chapter in view.
  let current = null;
  const lists = [panel, ...marked];
  const show = (i) => {
    if (i === current) return;
    current = i;
    const c = chapters[i] ?? null;
    for (const list of lists) {
      list.querySelector('a[aria-current]')?.removeAttribute('aria-current');
      if (c) list.querySelector(`li[data-chapter="${CSS.escape(c.id)}"] > a`)?.setAttribute('aria-current', 'location');
    }
    setText(count, c ? `Chapter ${i + 1} of ${total}` : `${total} chapters`);
    setText(title, c ? c.title : '');
    setText(part, c ? partTitle(partOf(c)) : '');
    fill.style.transform = `scaleX(${c ? (i + 1) / total : 0})`;
  };
  show(-1);
  const indexOf = new Map(sections.map((s, i) => [s, i]));
  const observer = new IntersectionObserver(
    (entries) => {
      const latest = new Map(entries.map((e) => [e.target, e])); // the last report of each chapter
      const arrived = [...latest.values()].find((e) => e.isIntersecting);
      if (arrived) {
        show(indexOf.get(arrived.target));
        return;
      }
      if (!latest.has(sections[current])) return; // the chapter in view is still the one on the line
      // It left the line and none arrived (a jump, a gap between chapters, the
      // top of the page): the chapter in view is the last one begun above the line.
      const line = entries[0].rootBounds?.top ?? window.innerHeight * READING_LINE;
      let i = sections.length - 1;
      while (i >= 0 && sections[i].getBoundingClientRect().top > line) i -= 1;
      show(i);
    },
    // The root is the document, so that the margins apply in a frame too.
    { root: document, rootMargin: `-${READING_LINE * 100}% 0px -${100 - READING_LINE * 100}% 0px` },
  );
  for (const s of sections) observer.observe(s);

  // The contents: the button opens and closes them; Escape, a chosen link,
  // or focus or a click elsewhere closes them.
  const setOpen = (open) => {
    panel.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (!open) return;
    const here = panel.querySelector('a[aria-current]');
    if (here) panel.scrollTop = here.offsetTop - panel.clientHeight / 2;
  };
  toggle.addEventListener('click', () => setOpen(panel.hidden));
  nav.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || panel.hidden) return;
    setOpen(false);
    toggle.focus();
  });
  // A chosen chapter takes the focus on its heading (shell/chapter-focus.js).
  panel.addEventListener('click', (event) => {
    const link = event.target.closest('a');
    if (!link) return;
    setOpen(false);
    focusChapter(link.hash.slice(1), { later: true });
  });
  nav.addEventListener('focusout', (event) => {
    if (event.relatedTarget && !nav.contains(event.relatedTarget)) setOpen(false);
  });
  const outside = (event) => {
    if (!panel.hidden && !nav.contains(event.target)) setOpen(false);
  };
  document.addEventListener('pointerdown', outside);

  return {
    current: () => current,
    stop: () => {
      observer.disconnect();
      document.removeEventListener('pointerdown', outside);
    },
  };
}
