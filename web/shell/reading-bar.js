// The reading bar: a strip that stays at the top of the window while the
// chapters scroll under it (position: sticky in style.css), holding the
// contents behind a button (the chapters by part, the one in view marked
// aria-current), "Chapter k of n" with the chapter's title and part, and a
// line filled to the chapter in view. The shell tells it which chapter is in
// view (show), by the same rule as for the page's address (chapter-in-view.js).
// The bar is part of the full page only: the one-widget page
// (embed.html) has none, and print hides it.
import { focusChapterOnFollow } from './chapter-focus.js';
import { h, setText } from '../widget/dom.js';
import { contentsLists } from './chapters-view.js';
import { partOf, partTitle } from './tour.js';

/**
 * @param {HTMLElement} nav the bar's element (empty)
 * @param {object[]} chapters the tour, in order
 * @param {{ marked?: HTMLElement[] }} [o] `marked`: other contents (the table at the top) whose link
 *   to the chapter in view is marked as well
 * @returns {{ show: (index: number) => void, current: () => number, stop: () => void }} show: the
 *   chapter in view is the one at `index` in `chapters` (-1: none); current: that index
 */
export function readingBar(nav, chapters, { marked = [] } = {}) {
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
    // The bar is stuck at the top, inside the page's scroll-padding-top (style.css): a plain focus() would
    // scroll the page up by that much, to another chapter.
    toggle.focus({ preventScroll: true });
  });
  // A chosen chapter closes the contents and takes the focus on its section (shell/chapter-focus.js).
  focusChapterOnFollow(panel, () => setOpen(false));
  nav.addEventListener('focusout', (event) => {
    if (event.relatedTarget && !nav.contains(event.relatedTarget)) setOpen(false);
  });
  const outside = (event) => {
    if (!panel.hidden && !nav.contains(event.target)) setOpen(false);
  };
  document.addEventListener('pointerdown', outside);

  return {
    show,
    current: () => current,
    stop: () => document.removeEventListener('pointerdown', outside),
  };
}
