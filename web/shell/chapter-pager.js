// The links under a chapter to the one before it and the one after it, each
// named by its number and title ("Next: 18. A convex combination stays in the
// hull"). Not a landmark: with one per chapter, a list of landmarks would be
// mostly these.
import { h } from '../widget/dom.js';
import { anchorOf } from '../chapters.js';
import { numbered } from './tour.js';

/** The previous/next links after chapter `i` of `chapters`. */
export function chapterPager(chapters, i) {
  const link = (j, rel, label) =>
    j < 0 || j >= chapters.length
      ? null
      : h(
          'a',
          { class: `pager-${rel}`, href: `#${anchorOf(chapters[j])}`, dataset: { to: chapters[j].id } },
          h('span', { class: 'pager-dir' }, label),
          ' ',
          h('span', { class: 'pager-title' }, numbered(chapters[j], j)),
        );
  return h(
    'div',
    { class: 'chapter-pager', dataset: { after: chapters[i].id } },
    link(i - 1, 'prev', 'Previous:'),
    link(i + 1, 'next', 'Next:'),
  );
}
