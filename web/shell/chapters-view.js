// Renders the tour (chapters.js) into the page: the table of contents and,
// part by part, one section per chapter with its intro, its widget and
// "things to try", each followed by links to the chapters before and after.
import { h } from '../widget/dom.js';
import { anchorOf } from '../chapters.js';
import { chapterPager } from './chapter-pager.js';
import { holdProse, introOf, triesOf } from './chapter-prose.js';
import { numbered, partOf, partTitle, partsOf } from './tour.js';

/**
 * The contents, part by part: each part's name (a `heading` element) and an
 * ordered list of its chapters, each linked to its section under its number;
 * `extra(chapter)` adds to a chapter's item.
 */
export function contentsLists(chapters, { heading = 'h3', extra = () => null } = {}) {
  const item = ({ chapter: c, index }) =>
    h(
      'li',
      { dataset: { chapter: c.id }, class: c.tag ? '' : 'is-coming' },
      h('a', { href: `#${anchorOf(c)}` }, numbered(c, index)),
      extra(c),
    );
  return partsOf(chapters).flatMap(({ part, title, items }) => [
    h(heading, { class: 'toc-part', dataset: { part } }, title),
    h('ol', { class: 'toc-list', dataset: { part }, start: items[0].index + 1 }, items.map(item)),
  ]);
}

export function renderToc(nav, chapters) {
  nav.replaceChildren(
    h('h2', { id: 'toc-title' }, 'Chapters'),
    ...contentsLists(chapters, {
      extra: (c) =>
        c.tag
          ? h('span', { class: 'toc-mark', dataset: { role: 'progress' } })
          : h('span', { class: 'toc-coming' }, ' (coming)'),
    }),
  );
}

/**
 * Widgets of one chapter keep the fields they share (the seed of two
 * experiments) equal: a change in one is passed on to the others, so the
 * chapter's address holds one value for it.
 */
function shareFields(widgets) {
  for (const w of widgets) {
    w.addEventListener('ag-statechange', (event) => {
      for (const other of widgets) {
        if (other === w) continue;
        const fields = other.constructor.stateDecl.fields;
        const mine = other.state;
        const patch = Object.entries(event.detail.state).filter(
          ([name, value]) => Object.hasOwn(fields, name) && JSON.stringify(mine[name]) !== JSON.stringify(value),
        );
        if (patch.length) other.setState(Object.fromEntries(patch));
      }
    });
  }
}

/**
 * A record's widgets: its `tag`, then those of `also` (a chapter may show
 * a second widget under the first).
 * @returns {Map<string, { chapter, section: HTMLElement, widget: HTMLElement|null, widgets: HTMLElement[] }>}
 */
export function renderChapters(main, chapters) {
  const views = new Map();
  chapters.forEach((c, i) => {
    const part = partOf(c);
    if (i === 0 || partOf(chapters[i - 1]) !== part)
      main.append(h('h2', { class: 'part-heading', id: `part-${part}`, dataset: { part } }, partTitle(part)));
    const widgets = c.tag ? [c.tag, ...(c.also ?? [])].map((tag) => document.createElement(tag)) : [];
    const widget = widgets[0] ?? null;
    if (widgets.length > 1) shareFields(widgets);
    const section = h(
      'section',
      { class: 'chapter', id: anchorOf(c), dataset: { chapter: c.id }, 'aria-labelledby': `${anchorOf(c)}-title` },
      h('h2', { id: `${anchorOf(c)}-title` }, h('span', { class: 'chapter-number' }, `${i + 1}. `), c.title),
      introOf(c),
      widget
        ? widgets.map((w) => h('div', { class: 'chapter-widget' }, w))
        : h('p', { class: 'coming' }, 'This chapter\u2019s widget is coming.'),
      triesOf(c, 'h3'),
    );
    holdProse(section, c);
    // The links to the chapters before and after go under the section, not in
    // it: an embedded chapter is the section alone, and the Embed control
    // measures the section for the height of its frame.
    main.append(section, chapterPager(chapters, i));
    views.set(c.id, { chapter: c, section, widget, widgets });
  });
  return views;
}
