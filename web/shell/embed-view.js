// The content of the one-widget page (embed.html): the widget alone, or a
// chapter (its title, intro, widget and "things to try", as the full page
// shows them), the note about what the address could not use, and the link
// to the full page. Text only (h() and text nodes): nothing from the address
// is ever parsed as HTML.
import { h } from '../widget/dom.js';
import { holdProse, introOf, triesOf } from './chapter-prose.js';
import { showIgnoredValues } from './notes.js';

/** Renders the widget `tag` (or `chapter` around its widget) into `main`. @returns the widget element */
export function renderEmbed(main, { tag, chapter }) {
  const widget = document.createElement(tag);
  if (!chapter) {
    main.replaceChildren(widget);
    return widget;
  }
  const article = h(
    'article',
    { class: 'embed-chapter', dataset: { chapter: chapter.id } },
    h('h1', {}, chapter.title),
    introOf(chapter),
    widget,
    triesOf(chapter, 'h2'),
  );
  main.replaceChildren(article);
  holdProse(article, chapter);
  return widget;
}

/**
 * Lists the problems of the address in `note` (hidden when there are none); `from` 'package': the address is a
 * package's launch settings, set by its author (the learner has no link), and the note says so.
 */
export function showAddressProblems(note, problems, from = 'link') {
  const what = from === 'package' ? 'package\u2019s settings, set by its author,' : 'address';
  if (problems.length) showIgnoredValues(note, problems, what);
  else note.hidden = true;
}

/**
 * Points `link` at the full page, opened on the chapter of `tag` with the
 * widget's current state (the state text comes from the widget's encoder,
 * which writes URL-safe values only).
 */
export function updateFullPageLink(link, { chapter, stateText }) {
  const url = new URL('index.html', window.location.href);
  if (chapter) {
    url.search = `?ch=${encodeURIComponent(chapter.id)}&${stateText}`;
    url.hash = `#ch-${chapter.id}`;
  }
  link.href = url.href;
}

/**
 * Opens the full page in a new tab from a click on `link`. A frame without
 * allow-popups in its sandbox cannot open tabs (window.open gives null):
 * then `note` shows the address as text to copy, instead of nothing.
 */
export function openFullPageOnClick(link, note) {
  link.addEventListener('click', (event) => {
    event.preventDefault();
    const tab = window.open(link.href, '_blank');
    if (tab) {
      tab.opener = null; // as rel="noopener"
      return;
    }
    // Added after any problems of the address already listed, once.
    note.querySelector('[data-role="no-tabs"]')?.remove();
    note.append(
      h(
        'p',
        { dataset: { role: 'no-tabs' } },
        h('strong', {}, 'This frame may not open new tabs;'),
        ' the full page is at ',
        h('code', { class: 'embed-address', dataset: { role: 'full-page-address' } }, link.href),
        ' (select the address to copy it).',
      ),
    );
    note.hidden = false;
  });
}
