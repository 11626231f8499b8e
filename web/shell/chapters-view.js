// Renders the tour (chapters.js) into the page: the table of contents and one
// section per chapter with its intro, its widget and "things to try".
import { h } from '../widget/dom.js';
import { anchorOf } from '../chapters.js';

/** Part headings: a record with `part: n` (n > 1) starts or continues part n; records without `part` are part 1. */
export const PART_TITLES = { 2: 'Part 2: mixing the values' };
const partOf = (c) => c.part ?? 1;

/** Each chapter's number within its part (1-based). */
function numbers(chapters) {
  const seen = new Map();
  return chapters.map((c) => {
    const n = (seen.get(partOf(c)) ?? 0) + 1;
    seen.set(partOf(c), n);
    return n;
  });
}

export function renderToc(nav, chapters) {
  const nums = numbers(chapters);
  const item = (c, i) =>
    h(
      'li',
      { dataset: { chapter: c.id }, class: c.tag ? '' : 'is-coming' },
      h('a', { href: `#${anchorOf(c)}` }, `${nums[i]}. ${c.title}`),
      c.tag
        ? h('span', { class: 'toc-mark', dataset: { role: 'progress' } })
        : h('span', { class: 'toc-coming' }, ' (coming)'),
    );
  // Part 1 is the first list, as before; each later part gets a heading and its own list.
  const lists = [];
  chapters.forEach((c, i) => {
    const part = partOf(c);
    if (!lists.length || lists.at(-1).part !== part) lists.push({ part, items: [] });
    lists.at(-1).items.push(item(c, i));
  });
  nav.replaceChildren(
    h('h2', { id: 'toc-title' }, 'Chapters'),
    ...lists.flatMap(({ part, items }) => [
      ...(part > 1 ? [h('h3', { class: 'toc-part', dataset: { part } }, PART_TITLES[part] ?? `Part ${part}`)] : []),
      h('ol', { class: 'toc-list', dataset: { part } }, items),
    ]),
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
  const nums = numbers(chapters);
  chapters.forEach((c, i) => {
    if (partOf(c) > 1 && (i === 0 || partOf(chapters[i - 1]) !== partOf(c))) {
      main.append(
        h(
          'h2',
          { class: 'part-heading', id: `part-${partOf(c)}`, dataset: { part: partOf(c) } },
          PART_TITLES[partOf(c)] ?? `Part ${partOf(c)}`,
        ),
      );
    }
    const widgets = c.tag ? [c.tag, ...(c.also ?? [])].map((tag) => document.createElement(tag)) : [];
    const widget = widgets[0] ?? null;
    if (widgets.length > 1) shareFields(widgets);
    const section = h(
      'section',
      { class: 'chapter', id: anchorOf(c), dataset: { chapter: c.id }, 'aria-labelledby': `${anchorOf(c)}-title` },
      h('h2', { id: `${anchorOf(c)}-title` }, h('span', { class: 'chapter-number' }, `${nums[i]}. `), c.title),
      h('p', { class: 'intro' }, c.intro),
      widget
        ? widgets.map((w) => h('div', { class: 'chapter-widget' }, w))
        : h('p', { class: 'coming' }, 'This chapter\u2019s widget is coming.'),
      c.after?.length
        ? [
            h('h3', {}, 'Things to try'),
            h(
              'ul',
              { class: 'tries' },
              c.after.map((t) => h('li', {}, t)),
            ),
          ]
        : null,
    );
    main.append(section);
    views.set(c.id, { chapter: c, section, widget, widgets });
  });
  return views;
}
