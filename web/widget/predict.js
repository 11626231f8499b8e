// Predict, then reveal: a question with choices, asked before the learner
// sees the answer. Choosing calls the widget's `reveal`, which computes the
// answer with the wasm module (usually after moving the widget to the
// situation asked about) and returns the right choice and a sentence that
// names the computed number; the block then says whether the guess was right.
// The widget host fires `ag-predict` (bubbles, composed) with
// { id, choice, answer, correct }; the page keeps a record per chapter.
// A reveal that moved the widget away from the learner's own setup returns
// `restore` as well: the block then says the figure shows the example and
// offers a button that brings the learner's setup back.
// A wrong choice may name the misconception it reveals (`misconceptions`,
// one short text per choice value): the block shows it under the reveal's
// explanation when that choice was the learner's and was wrong. The block
// also shows the chapter's score when `onResult` returns one: the first
// answer counts, later answers are practice.
import { h } from './dom.js';

/** The choices of a prediction from { value: label, ... }, in that order. */
export const choices = (labels) => Object.entries(labels).map(([value, label]) => ({ value, label }));

/** The choice (a number as text) nearest to x, the first of two as near; distances on `scale` (e.g. Math.log). */
export const nearestChoice = (values, x, scale = (v) => v) =>
  values.reduce((best, c) =>
    Math.abs(scale(Number(c)) - scale(x)) < Math.abs(scale(Number(best)) - scale(x)) ? c : best,
  );

/**
 * Checks the misconception texts of a prediction: an object whose keys are values of `choices` and whose
 * values are non-empty strings (or undefined: none). Throws a TypeError naming the key and what was expected.
 */
export function checkMisconceptions(misconceptions, choices) {
  if (misconceptions === undefined) return {};
  if (misconceptions === null || typeof misconceptions !== 'object' || Array.isArray(misconceptions))
    throw new TypeError(
      `predict misconceptions: expected an object { choice value: text }, got ${JSON.stringify(misconceptions)}`,
    );
  const values = choices.map((c) => c.value);
  for (const [key, text] of Object.entries(misconceptions)) {
    if (!values.includes(key))
      throw new TypeError(`predict misconceptions: "${key}" is not a choice (the choices are ${values.join(', ')})`);
    if (typeof text !== 'string' || !text.trim())
      throw new TypeError(`predict misconceptions["${key}"]: expected a non-empty string, got ${JSON.stringify(text)}`);
  }
  return misconceptions;
}

/**
 * The score line, which says that only the first answer is scored: after the first answer (`tries` 1, or not
 * given) "Scored (only the first answer counts): right \u2014 chapter score 1 / 1"; after a later one "Not
 * scored: only the first answer counts, and it was wrong \u2014 chapter score 0 / 1".
 */
export function scoreText({ first, correct, total, tries = 1 }) {
  const was = first.correct ? 'right' : 'wrong';
  const head =
    tries > 1
      ? `Not scored: only the first answer counts, and it was ${was}`
      : `Scored (only the first answer counts): ${was}`;
  return `${head} \u2014 chapter score ${correct} / ${total}`;
}

/**
 * @param {{ id: string, question: string, choices: { value: string, label: string }[],
 *           misconceptions?: { [choice: string]: string },
 *           reveal: (choice: string) => Promise<{ answer: string, explanation: string, restore?: () => void }>
 *             | { answer: string, explanation: string, restore?: () => void },
 *           onResult?: (result: { id: string, choice: string, answer: string, correct: boolean }) =>
 *             { first: { choice: string, correct: boolean }, correct: number, total: number, tries?: number } | void,
 *           onShown?: () => void }} o
 *   `misconceptions`: per wrong choice, one or two sentences naming the wrong model of the maths that choice
 *   reveals (shown only when it is the learner's wrong answer). `onResult` may return the chapter's score
 *   (from the page's PredictionRecord), which the block shows. `onShown` is told that the answer is on show
 *   (after an answer, or `showAnswer()`), before `onResult`.
 *   Focus: a choice pressed with the focus on it (the keyboard's Enter or Space) hands the focus to the result
 *   line (tabindex -1) before the choices close, so it stays in the block; "Ask me again" gives it back to
 *   the first choice.
 * @returns {HTMLElement} a <div class="predict"> to place in the widget
 * @throws {TypeError} when `misconceptions` names no choice or holds no text (checkMisconceptions)
 */
export function predictBlock({ id, question, choices, misconceptions, reveal, onResult, onShown }) {
  const named = checkMisconceptions(misconceptions, choices);
  const result = h('p', { class: 'predict-result', tabindex: -1 });
  const misconception = h('p', { class: 'predict-misconception', hidden: true });
  const score = h('p', { class: 'predict-score', dataset: { role: 'predict-score' }, hidden: true });
  const buttons = choices.map((c) =>
    h('button', { type: 'button', class: 'predict-choice', dataset: { choice: c.value } }, c.label),
  );
  const again = h('button', { type: 'button', class: 'predict-again', hidden: true }, 'Ask me again');
  const back = h('button', { type: 'button', class: 'predict-restore', hidden: true }, 'Back to my setup');
  let restore = null;
  back.addEventListener('click', () => {
    restore?.();
    restore = null;
    back.hidden = true;
  });
  const block = h(
    'div',
    { class: 'predict', role: 'group', 'aria-label': 'Predict first', dataset: { predict: id } },
    h('p', { class: 'predict-question' }, h('strong', {}, 'Predict first. '), question),
    h('div', { class: 'predict-choices' }, buttons),
    h('div', { class: 'predict-feedback', role: 'status' }, result, misconception, score),
    h('div', { class: 'predict-actions' }, again, back),
  );
  for (const button of buttons) {
    button.addEventListener('click', async () => {
      const choice = button.dataset.choice;
      // A disabled button loses the focus to <body>: the result line takes it first (no scrolling); while the
      // answer is worked out (data-busy) the empty line is displayed, so that it can hold the focus.
      block.dataset.busy = '';
      if (button.getRootNode().activeElement === button) result.focus({ preventScroll: true });
      buttons.forEach((b) => {
        b.disabled = true;
        b.setAttribute('aria-pressed', String(b === button));
      });
      let outcome;
      try {
        outcome = await reveal(choice);
      } catch (err) {
        result.textContent = `The answer could not be computed: ${err.message}`;
        buttons.forEach((b) => (b.disabled = false));
        return;
      } finally {
        delete block.dataset.busy;
      }
      const correct = outcome.answer === choice;
      block.dataset.result = correct ? 'right' : 'wrong';
      const said = choices.find((c) => c.value === choice)?.label ?? choice;
      result.replaceChildren(
        h('strong', {}, correct ? 'Right. ' : 'Not quite. '),
        `You said \u201c${said}\u201d. `,
        outcome.explanation,
        outcome.restore ? ' The figure now shows this example.' : '',
      );
      restore = outcome.restore ?? null;
      back.hidden = !restore;
      buttons.forEach((b) => b.classList.toggle('is-answer', b.dataset.choice === outcome.answer));
      const wrongModel = correct ? null : (named[choice] ?? null);
      misconception.textContent = wrongModel ?? '';
      misconception.hidden = !wrongModel;
      again.hidden = false;
      onShown?.();
      const chapterScore = onResult?.({ id, choice, answer: outcome.answer, correct });
      score.textContent = chapterScore ? scoreText(chapterScore) : '';
      score.hidden = !chapterScore;
    });
  }
  const askAgain = () => {
    delete block.dataset.result;
    delete block.dataset.shown;
    for (const p of [result, misconception, score]) p.textContent = '';
    misconception.hidden = true;
    score.hidden = true;
    again.hidden = true;
    buttons.forEach((b) => {
      b.disabled = false;
      b.removeAttribute('aria-pressed');
      b.classList.remove('is-answer');
    });
  };
  again.addEventListener('click', () => {
    askAgain();
    buttons[0].focus();
  });
  // For a host that grades the prediction (the H5P content type, web/h5p/): the question back to its
  // start, and the answer shown without a choice (no ag-predict result; the choices stay closed).
  block.askAgain = askAgain;
  block.showAnswer = async () => {
    buttons.forEach((b) => (b.disabled = true));
    let outcome;
    try {
      outcome = await reveal(buttons[0].dataset.choice);
    } catch (err) {
      result.textContent = `The answer could not be computed: ${err.message}`;
      return null;
    }
    restore = outcome.restore ?? null;
    back.hidden = !restore;
    const label = choices.find((c) => c.value === outcome.answer)?.label ?? outcome.answer;
    block.dataset.shown = 'answer';
    buttons.forEach((b) => b.classList.toggle('is-answer', b.dataset.choice === outcome.answer));
    result.replaceChildren(h('strong', {}, `The answer: \u201c${label}\u201d. `), outcome.explanation);
    again.hidden = true;
    onShown?.();
    return outcome.answer;
  };
  return block;
}

/**
 * The answers of one page, per chapter (the first answer counts; later
 * answers are kept too). Used for the page's progress, the SCORM score, the
 * score line of each predict block and the score of its xAPI statements.
 */
export class PredictionRecord extends EventTarget {
  #byChapter = new Map();

  /**
   * Records an answer of a chapter; fires `answer` ({ chapter, how: 'answer' }) on the record.
   * @returns {number} how many answers the chapter has now (1: this is its first, the one scored)
   */
  record(chapterId, { id, choice, correct }) {
    const entry = this.#byChapter.get(chapterId) ?? { id, first: null, last: null, tries: 0 };
    entry.tries += 1;
    delete entry.restored;
    entry.last = { choice, correct };
    if (!entry.first) entry.first = { choice, correct };
    this.#byChapter.set(chapterId, entry);
    this.#fire(chapterId, 'answer');
    return entry.tries;
  }

  /**
   * Puts back a first answer from an earlier attempt (resuming); a chapter already answered here is kept.
   * Fires `answer` ({ chapter, how: 'restored' }) on the record.
   */
  restore(chapterId, { choice, correct }) {
    if (this.#byChapter.has(chapterId)) return;
    const answer = { choice, correct };
    this.#byChapter.set(chapterId, { id: null, first: answer, last: answer, tries: 1, restored: true });
    this.#fire(chapterId, 'restored');
  }

  #fire(chapter, how) {
    this.dispatchEvent(new CustomEvent('answer', { detail: { chapter, how } }));
  }

  has(chapterId) {
    return this.#byChapter.has(chapterId);
  }

  /** Whether the chapter's answers are only the one restored from an earlier attempt. */
  restored(chapterId) {
    return this.#byChapter.get(chapterId)?.restored === true;
  }

  /** The first answer of a chapter, { choice, correct }, or null before any. */
  first(chapterId) {
    return this.#byChapter.get(chapterId)?.first ?? null;
  }

  /** { answered, correct, total } where total is the number of chapters given. */
  score(chapterIds) {
    let answered = 0;
    let correct = 0;
    for (const id of chapterIds) {
      const e = this.#byChapter.get(id);
      if (!e) continue;
      answered += 1;
      if (e.first.correct) correct += 1;
    }
    return { answered, correct, total: chapterIds.length };
  }

  toJSON() {
    return Object.fromEntries(this.#byChapter);
  }
}

/**
 * The record of the page: every widget of the page records its answers here (widget/base.js), under its
 * chapter, and the page shell reads it (shell/progress.js), so the block's score line, the contents' marks,
 * the SCORM score and the xAPI statements count the same first answers.
 */
export const pageRecord = new PredictionRecord();
