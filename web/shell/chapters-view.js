// Renders the tour (chapters.js) into the page: the table of contents and one
// section per chapter with its intro, its widget and "things to try".
import { h } from '../widget/dom.js';
import { anchorOf } from '../chapters.js';

export function renderToc(nav, chapters) {
  const items = chapters.map((c, i) =>
    h(
      'li',
      { dataset: { chapter: c.id }, class: c.tag ? '' : 'is-coming' },
      h('a', { href: `#${anchorOf(c)}` }, `${i + 1}. ${c.title}`),
      c.tag ? h('span', { class: 'toc-mark', dataset: { role: 'progress' } }) : h('span', { class: 'toc-coming' }, ' (coming)'),
    ),
  );
  nav.replaceChildren(h('h2', { id: 'toc-title' }, 'Chapters'), h('ol', { class: 'toc-list' }, items));
}

/** @returns {Map<string, { chapter, section: HTMLElement, widget: HTMLElement|null }>} */
export function renderChapters(main, chapters) {
  const views = new Map();
  chapters.forEach((c, i) => {
    const widget = c.tag ? document.createElement(c.tag) : null;
    const section = h(
      'section',
      { class: 'chapter', id: anchorOf(c), dataset: { chapter: c.id }, 'aria-labelledby': `${anchorOf(c)}-title` },
      h('h2', { id: `${anchorOf(c)}-title` }, h('span', { class: 'chapter-number' }, `${i + 1}. `), c.title),
      h('p', { class: 'intro' }, c.intro),
      widget ? h('div', { class: 'chapter-widget' }, widget) : h('p', { class: 'coming' }, 'This chapter\u2019s widget is coming.'),
      c.after?.length ? [h('h3', {}, 'Things to try'), h('ul', { class: 'tries' }, c.after.map((t) => h('li', {}, t)))] : null,
    );
    main.append(section);
    views.set(c.id, { chapter: c, section, widget });
  });
  return views;
}
