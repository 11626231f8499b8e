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
import { h } from './dom.js';

/** The choices of a prediction from { value: label, ... }, in that order. */
export const choices = (labels) => Object.entries(labels).map(([value, label]) => ({ value, label }));

/** The choice (a number as text) nearest to x, the first of two as near; distances on `scale` (e.g. Math.log). */
export const nearestChoice = (values, x, scale = (v) => v) =>
  values.reduce((best, c) =>
    Math.abs(scale(Number(c)) - scale(x)) < Math.abs(scale(Number(best)) - scale(x)) ? c : best,
  );

/**
 * @param {{ id: string, question: string, choices: { value: string, label: string }[],
 *           reveal: (choice: string) => Promise<{ answer: string, explanation: string, restore?: () => void }>
 *             | { answer: string, explanation: string, restore?: () => void },
 *           onResult?: (result: { id: string, choice: string, answer: string, correct: boolean }) => void }} o
 * @returns {HTMLElement} a <div class="predict"> to place in the widget
 */
export function predictBlock({ id, question, choices, reveal, onResult }) {
  const result = h('p', { class: 'predict-result', role: 'status' });
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
    result,
    h('div', { class: 'predict-actions' }, again, back),
  );
  for (const button of buttons) {
    button.addEventListener('click', async () => {
      const choice = button.dataset.choice;
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
      again.hidden = false;
      onResult?.({ id, choice, answer: outcome.answer, correct });
    });
  }
  const askAgain = () => {
    delete block.dataset.result;
    delete block.dataset.shown;
    result.textContent = '';
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
    return outcome.answer;
  };
  return block;
}

/**
 * The answers of one page, per chapter (the first answer counts; later
 * answers are kept too). Used for the page's progress and the SCORM score.
 */
export class PredictionRecord {
  #byChapter = new Map();

  record(chapterId, { id, choice, correct }) {
    const entry = this.#byChapter.get(chapterId) ?? { id, first: null, last: null, tries: 0 };
    entry.tries += 1;
    entry.last = { choice, correct };
    if (!entry.first) entry.first = { choice, correct };
    this.#byChapter.set(chapterId, entry);
  }

  /** Puts back a first answer from an earlier attempt (resuming); a chapter already answered here is kept. */
  restore(chapterId, { choice, correct }) {
    if (this.#byChapter.has(chapterId)) return;
    const answer = { choice, correct };
    this.#byChapter.set(chapterId, { id: null, first: answer, last: answer, tries: 1 });
  }

  has(chapterId) {
    return this.#byChapter.has(chapterId);
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
