// The prose of a chapter around its widget, as the tour (chapters.js) gives
// it: the intro and the "things to try". A line written `answered('...')` in
// the tour states what the chapter's prediction asks: it is held back until
// the learner has seen the answer (widget/after-answer.js), on the full page,
// in embed.html and in the H5P content alike.
import { h } from '../widget/dom.js';
import { afterAnswer, holdUntilAnswered } from '../widget/after-answer.js';

/** The text of a "things to try" line: a string, or { text, afterAnswer: true }. */
export const lineText = (line) => (typeof line === 'string' ? line : line.text);

/** The chapter's intro paragraph. */
export const introOf = (chapter) => h('p', { class: 'intro' }, chapter.intro);

/**
 * The chapter's "things to try" under a `heading` element (h3 on the page, h2 in an embed), or null when it has
 * none; when every line is held back, the heading is held back with them.
 */
export function triesOf(chapter, heading) {
  const lines = chapter.after ?? [];
  if (!lines.length) return null;
  const held = (line) => typeof line !== 'string' && line.afterAnswer === true;
  const item = (line) => (held(line) ? afterAnswer(h('li', {}, line.text)) : h('li', {}, line));
  const title = h(heading, {}, 'Things to try');
  return [lines.every(held) ? afterAnswer(title) : title, h('ul', { class: 'tries' }, lines.map(item))];
}

/** Shows the held lines inside `root` once the chapter's answer is on show (after-answer.js). */
export const holdProse = (root, chapter) => holdUntilAnswered(root, chapter.id);
