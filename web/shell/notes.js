// Page-level messages: the note about a link the shell could not use, and the
// error panel when the wasm module cannot load. Text only (textContent).
import { h } from '../widget/dom.js';
import { describeLoadFailure } from '../widget/load-failure.js';

const shorten = (text) => (text.length > 60 ? `${text.slice(0, 60)}\u2026` : text);

/**
 * Lists values that could not be used ({ name, value, expected }: what the state parser reports) in `note`,
 * under "Part of this <what> could not be used.", and shows it.
 */
export function showIgnoredValues(note, problems, what) {
  note.replaceChildren(
    h('strong', {}, `Part of this ${what} could not be used.`),
    ' These values were ignored:',
    h(
      'ul',
      {},
      problems.map((p) =>
        h('li', {}, h('code', {}, `${p.name}=${shorten(String(p.value))}`), ` \u2014 expected ${p.expected}.`),
      ),
    ),
  );
  note.hidden = false;
}

/** Lists the problems of the page's link in `note` (left as it is when there are none). */
export function showLinkProblems(note, problems) {
  if (problems.length) showIgnoredValues(note, problems, 'link');
}

/**
 * Shows the page's error panel for the rejection `err` of loading the module: the headline, advice and detail of
 * describeLoadFailure (web/widget/load-failure.js), as the widgets tell it, for the bundle the page is in; and
 * marks the implementation menu unavailable.
 */
export function showLoadError(panel, menu, err) {
  menu.replaceChildren(h('option', { value: '' }, 'Unavailable'));
  menu.disabled = true;
  const failure = describeLoadFailure(err, 'this page');
  panel.replaceChildren(
    h('h2', {}, failure.headline),
    h('p', {}, failure.advice),
    h('p', {}, failure.detailLabel, h('code', { dataset: { role: 'error-detail' } }, failure.detail)),
  );
  panel.hidden = false;
  document.body.dataset.state = 'error';
}
