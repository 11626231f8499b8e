// Text shown after the answer. A chapter asks its prediction first; a sentence
// of its prose (a "things to try" line of the tour, a hint or note inside its
// widget) that states what the prediction asks is held back until the
// learner has seen the answer:
//
// - the learner answered the chapter's prediction (on this page, or in an
//   earlier attempt that the page's record restored: SCORM's resume), or a
//   grading host showed the answer (H5P's "Show solution");
// - or the chapter's own run shows it anyway: Part 4's chapters count a press
//   of Train (the widget calls `answerShown()`, widget/base.js).
//
// A held element carries data-after-answer="held" until then, "shown" after.
// On screen a held element is not displayed (so a screen reader does not read
// it either); in print it is (styles/base.css and
// h5p/attention-geometry.css): a printout is the whole chapter. The text is
// in the page all along: nothing is added or removed, only shown.
import { pageRecord } from './predict.js';

/** The event a widget fires (bubbles, composed) when its chapter's answer is on show: { widget, chapter, how }. */
export const ANSWER_SHOWN_EVENT = 'ag-answershown';

/**
 * Marks `el` as text stated only after the answer (hidden on screen until then): one element, a list of them,
 * or, with `selector`, every match of `selector` inside `el` (a table's column: `afterAnswer(table, '.c-x')`).
 * @returns el
 */
export function afterAnswer(el, selector) {
  for (const one of heldTargets(el, selector))
    if (one.dataset.afterAnswer !== 'shown') one.dataset.afterAnswer = 'held';
  return el;
}

/** The elements `afterAnswer(el, selector)` marks. */
export function heldTargets(el, selector) {
  if (selector !== undefined) return el.querySelectorAll(selector);
  return el instanceof Element ? [el] : [...el];
}

/** Whether `el` is held now: it or a box around it waits for the answer (not displayed on screen). */
export function isHeld(el) {
  return Boolean(el.closest('[data-after-answer="held"]'));
}

/**
 * The text of `el` as the screen shows it, for a spoken summary or announcement: `before + text + after`, or ''
 * while `el` or a box around it is held (a summary must not say what the screen holds back).
 */
export function shownText(el, before = '', after = '') {
  return isHeld(el) ? '' : `${before}${el.textContent}${after}`;
}

/** Shows every held element under `root` (an element or a shadow root). */
export function showAfterAnswer(root) {
  for (const el of root.querySelectorAll('[data-after-answer="held"]')) el.dataset.afterAnswer = 'shown';
}

/**
 * Calls `fn(how)` once the page's record holds an answer of `chapterId`: at once when it does ('restored' when
 * it was put back from an earlier attempt, else 'answer'), else when one is recorded or restored.
 * @returns {() => void} stops watching
 */
export function whenAnswered(chapterId, fn) {
  if (pageRecord.has(chapterId)) {
    fn(pageRecord.restored(chapterId) ? 'restored' : 'answer');
    return () => {};
  }
  const heard = (event) => {
    if (event.detail.chapter !== chapterId) return;
    pageRecord.removeEventListener('answer', heard);
    fn(event.detail.how);
  };
  pageRecord.addEventListener('answer', heard);
  return () => pageRecord.removeEventListener('answer', heard);
}

/**
 * The held prose of a chapter's section (the tour's "things to try", outside the widget): shown once the chapter
 * has an answer in the page's record, or once a widget inside `root` fires ANSWER_SHOWN_EVENT.
 */
export function holdUntilAnswered(root, chapterId) {
  if (!root.querySelector('[data-after-answer="held"]')) return;
  let stop = null;
  const show = () => {
    stop?.();
    root.removeEventListener(ANSWER_SHOWN_EVENT, show);
    showAfterAnswer(root);
  };
  root.addEventListener(ANSWER_SHOWN_EVENT, show);
  stop = whenAnswered(chapterId, show);
  // A widget of the chapter that showed its answer before this listened (e.g. its prediction is not asked).
  if (root.querySelector('[data-answer-shown]')) show();
}
