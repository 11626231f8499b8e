// Predict, then reveal: a question asked before the learner sees the answer,
// answered with a choice, a number typed (predict-number.js) or a point placed
// on the figure (predict-point.js). Committing an answer calls the widget's
// `reveal`, which computes the
// answer with the wasm module (usually after moving the widget to the
// situation asked about) and returns the right choice and a sentence that
// names the computed number (or the measured number, or the true point); the
// block then says whether the guess was right.
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
import { checkNumberSpec, checkRanges, numberAnswer } from './predict-number.js';
import { checkPointSpec, checkRegions, pointAnswer, pointText } from './predict-point.js';

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
 * The buttons of a choice prediction. `commit(value, label)` is called with the pressed choice.
 * @returns {{ element, focusTarget, disable(on), reset(), judge(choice, outcome), answerText(outcome), mark(outcome) }}
 */
function choiceAnswer({ choices, named, commit }) {
  const buttons = choices.map((c) =>
    h('button', { type: 'button', class: 'predict-choice', dataset: { choice: c.value } }, c.label),
  );
  const labelOf = (value) => choices.find((c) => c.value === value)?.label ?? value;
  for (const button of buttons)
    button.addEventListener('click', () => {
      buttons.forEach((b) => b.setAttribute('aria-pressed', String(b === button)));
      commit(button.dataset.choice, button.dataset.choice);
    });
  return {
    element: h('div', { class: 'predict-choices' }, buttons),
    focusTarget: buttons[0],
    disable: (on) => buttons.forEach((b) => (b.disabled = on)),
    reset: () =>
      buttons.forEach((b) => {
        b.removeAttribute('aria-pressed');
        b.classList.remove('is-answer');
      }),
    judge: (choice, outcome) => ({
      correct: outcome.answer === choice,
      answer: outcome.answer,
      said: `You said \u201c${labelOf(choice)}\u201d. `,
      misconception: outcome.answer === choice ? null : (named[choice] ?? null),
    }),
    answerText: (outcome) => `\u201c${labelOf(outcome.answer)}\u201d`,
    mark: (outcome) => buttons.forEach((b) => b.classList.toggle('is-answer', b.dataset.choice === outcome.answer)),
  };
}

/** The kind of a prediction's options: 'choice', 'number' or 'point' (exactly one of the three is given). */
export function predictionKind({ choices, number, point }) {
  const given = Object.entries({ choice: choices, number, point }).filter(([, v]) => v !== undefined);
  if (given.length !== 1)
    throw new TypeError(
      `predict: expected exactly one of choices, number and point, got ${given.map(([k]) => k).join(', ') || 'none'}`,
    );
  return given[0][0];
}

/**
 * @param {{ id: string, question: string, choices?: { value: string, label: string }[],
 *           number?: { label: string, unit?: string, min: number, max: number,
 *                      tolerance: { absolute: number } | { percent: number } },
 *           point?: { plane: object, name: string, radius: number, start: [number, number] },
 *           misconceptions?: { [choice: string]: string } | { from: number, to: number, text: string }[]
 *             | { where: (point: [number, number]) => boolean, text: string }[],
 *           reveal: (response: string|number|[number, number]|null) => Promise<Outcome> | Outcome,
 *           distance?: (a: [number, number], b: [number, number]) => number | Promise<number>,
 *           onResult?: (result: { id: string, choice: string, answer: string, correct: boolean }) =>
 *             { first: { choice: string, correct: boolean }, correct: number, total: number, tries?: number } | void,
 *           onShown?: () => void }} o
 *   Exactly one kind: `choices` (buttons; the reveal's Outcome is { answer: the right choice value, explanation,
 *   restore? }); `number` (a field, with its label, unit and the range [min, max] it takes; Outcome { value: the
 *   measured number, explanation, restore? }; right within `tolerance`, predict-number.js); `point` (a marker on
 *   the figure's `plane`, widget/plot.js; Outcome { value: [x, y], explanation, restore? }; right within `radius`
 *   by `distance`, a wasm result, predict-point.js). `reveal` gets the learner's response (null from
 *   showAnswer()).
 *   `misconceptions`: per wrong choice (an object keyed by choice values), per range of numbers ([{ from, to,
 *   text }], from <= x < to) or per region of the figure ([{ where, text }]): one or two sentences naming the
 *   wrong model of the maths that answer reveals (shown only when it is the learner's wrong answer).
 *   `onResult` may return the chapter's score (from the page's PredictionRecord), which the block shows; its
 *   `choice` is the response as text (a choice value, the number, or "x,y") and `answer` the right one (the
 *   right choice, the measured number, or the true point "x,y"). `onShown` is told that the answer is on show
 *   (after an answer, or `showAnswer()`), before `onResult`.
 *   Focus: an answer committed with the focus in the block (the keyboard's Enter or Space) hands the focus to
 *   the result line (tabindex -1) before the inputs close, so it stays in the block; "Ask me again" gives it
 *   back to the first input.
 * @returns {HTMLElement} a <div class="predict" data-kind="choice|number|point"> to place in the widget
 * @throws {TypeError} when not exactly one kind is given, or its option or `misconceptions` is malformed
 */
export function predictBlock({
  id,
  question,
  choices,
  number,
  point,
  misconceptions,
  reveal,
  distance,
  onResult,
  onShown,
}) {
  const kind = predictionKind({ choices, number, point });
  const result = h('p', { class: 'predict-result', tabindex: -1 });
  const misconception = h('p', { class: 'predict-misconception', hidden: true });
  const score = h('p', { class: 'predict-score', dataset: { role: 'predict-score' }, hidden: true });
  const again = h('button', { type: 'button', class: 'predict-again', hidden: true }, 'Ask me again');
  const back = h('button', { type: 'button', class: 'predict-restore', hidden: true }, 'Back to my setup');
  // What a grading host reads back (web/h5p/statement.js): the kind, and the tolerance or the radius.
  const { absolute, percent } = number?.tolerance ?? {};
  const tolerance = number ? (percent === undefined ? `absolute ${absolute}` : `percent ${percent}`) : undefined;
  const dataset = { predict: id, kind, ...(number && { tolerance }), ...(point && { radius: point.radius }) };
  const block = h('div', { class: 'predict', role: 'group', 'aria-label': 'Predict first', dataset });
  let restore = null;
  back.addEventListener('click', () => {
    restore?.();
    restore = null;
    back.hidden = true;
  });
  const commit = async (response, text) => {
    // A disabled input loses the focus to <body>: the result line takes it first (no scrolling); while the
    // answer is worked out (data-busy) the empty line is displayed, so that it can hold the focus.
    block.dataset.busy = '';
    if (block.contains(block.getRootNode().activeElement) || asker.focusTarget.matches(':focus'))
      result.focus({ preventScroll: true });
    asker.disable(true);
    let outcome;
    let verdict;
    try {
      outcome = await reveal(response);
      verdict = await asker.judge(response, outcome);
    } catch (err) {
      result.textContent = `The answer could not be computed: ${err.message}`;
      asker.disable(false);
      return;
    } finally {
      delete block.dataset.busy;
    }
    const { correct } = verdict;
    block.dataset.result = correct ? 'right' : 'wrong';
    block.dataset.answer = verdict.answer;
    result.replaceChildren(
      h('strong', {}, correct ? 'Right. ' : 'Not quite. '),
      verdict.said,
      outcome.explanation,
      outcome.restore ? h('span', { class: 'predict-shown' }, ' The figure now shows this example.') : '',
    );
    restore = outcome.restore ?? null;
    back.hidden = !restore;
    asker.mark(outcome, true);
    misconception.textContent = verdict.misconception ?? '';
    misconception.hidden = !verdict.misconception;
    again.hidden = false;
    onShown?.();
    const chapterScore = onResult?.({ id, choice: text, answer: verdict.answer, correct });
    score.textContent = chapterScore ? scoreText(chapterScore) : '';
    score.hidden = !chapterScore;
  };
  const asker =
    kind === 'choice'
      ? choiceAnswer({ choices, named: checkMisconceptions(misconceptions, choices), commit })
      : kind === 'number'
        ? numberAnswer({ id, spec: checkNumberSpec(number), ranges: checkRanges(misconceptions), commit })
        : pointAnswer({ spec: checkPointSpec(point), regions: checkRegions(misconceptions), commit, distance, block });
  block.append(
    h('p', { class: 'predict-question' }, h('strong', {}, 'Predict first. '), question),
    asker.element,
    h('div', { class: 'predict-feedback', role: 'status' }, result, misconception, score),
    h('div', { class: 'predict-actions' }, again, back),
  );
  const askAgain = () => {
    delete block.dataset.result;
    delete block.dataset.shown;
    delete block.dataset.answer;
    for (const p of [result, misconception, score]) p.textContent = '';
    misconception.hidden = true;
    score.hidden = true;
    again.hidden = true;
    asker.reset();
    asker.disable(false);
  };
  again.addEventListener('click', () => {
    askAgain();
    asker.focusTarget.focus();
  });
  // For a host that grades the prediction (the H5P content type, web/h5p/): the question back to its
  // start, and the answer shown without a response (no ag-predict result; the inputs stay closed).
  block.askAgain = askAgain;
  // The widget has left the reveal's example (the learner moved an input, or went back to their setup): the true
  // point and its line go, and the result no longer says the figure shows the example.
  block.leaveExample = () => {
    asker.mark({ value: null }, false);
    const shown = result.querySelector('.predict-shown');
    if (shown) shown.textContent = ' The figure has left this example since.';
  };
  block.showAnswer = async () => {
    asker.disable(true);
    let outcome;
    try {
      outcome = await reveal(kind === 'choice' ? choices[0].value : null);
    } catch (err) {
      result.textContent = `The answer could not be computed: ${err.message}`;
      return null;
    }
    restore = outcome.restore ?? null;
    back.hidden = !restore;
    block.dataset.shown = 'answer';
    asker.mark(outcome, false);
    result.replaceChildren(h('strong', {}, `The answer: ${asker.answerText(outcome)}. `), outcome.explanation);
    again.hidden = true;
    onShown?.();
    return kind === 'choice' ? outcome.answer : String(kind === 'number' ? outcome.value : pointText(outcome.value));
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
