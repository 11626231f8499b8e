// The concept check on the page: the ten questions of models/concept-check.js
// in two sections of the tour, one before the first chapter ("before you
// start", the pre-check) and one after the last ("after the tour", the
// post-check). Both are optional, folded away until opened.
//   - The learner picks answers (radio buttons: Tab to a question, the arrow
//     keys to a choice) and hands the phase in. Only then are the answers
//     recorded: kept on this browser (shell/concept-check-store.js), each
//     reported as an xAPI "answered" statement and the phase as a "completed"
//     one (shell/concept-check-statements.js), fired as `ag-xapi` from the
//     section like the predictions' statements, then `ag-check`.
//   - The pre-check shows no marks, so that the post-check measures fairly.
//   - The post-check shows its score, the pre-check's, the gain and the
//     normalized gain (Hake 1998), and for each question the right answer,
//     why it is right and what the learner's wrong choice reveals.
// A handed-in phase is shown as it was on every later visit; "Clear my
// answers" forgets both phases. The counts shown are counts of the learner's
// answers, not results of the module's kernels.
import { anchorOf } from '../chapters.js';
import { CHECK_ID, PHASES, QUESTIONS } from '../models/concept-check.js';
import { h } from '../widget/dom.js';
import { XAPI_EVENT } from '../widget/xapi.js';
import { gainOf, scoreOf } from './concept-check-score.js';
import { checkAnsweredStatement, checkCompletedStatement } from './concept-check-statements.js';
import { readCheck, writeCheck } from './concept-check-store.js';
import { numbered } from './tour.js';

/** The DOM event fired from a section once a phase is handed in: { phase, answers, score, pre? }. */
export const CHECK_EVENT = 'ag-check';
/** The anchor of a phase's section. */
export const checkAnchor = (phase) => `check-${phase}`;

const TEXT = {
  pre: {
    title: 'Before you start: ten questions',
    intro:
      'Ten questions on the ideas of the whole tour, to find out where you start. Nothing is marked now: the same questions come back after the last chapter, and only then do you see both scores and the answers. Your answers stay on this browser. Skip them if you like; no chapter needs them.',
    open: 'Answer the ten questions',
    done: 'Your answers before the tour',
    toc: 'Before you start: ten questions',
  },
  post: {
    title: 'After the tour: the ten questions again',
    intro:
      'The questions from the start of the tour, once more. Hand them in to see your score, your score before the tour and the gain, and for each question the right answer, why it is right, and what a wrong choice gives away about the model behind it.',
    open: 'Answer the ten questions again',
    done: 'Your answers after the tour, marked',
    toc: 'After the tour: the ten questions again',
  },
};

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** x to `digits` decimals with a true minus sign (\u22122, \u22120.40); `plus` writes + before a positive x (a gain: +3). */
const signed = (x, digits = 0, plus = false) =>
  `${plus && x > 0 ? '+' : ''}${x.toFixed(digits).replace('-', '\u2212')}`;

/** The link to the chapter that a question comes from: "Chapter 5. Sign and size". */
function chapterLink(chapters, id) {
  const i = chapters.findIndex((c) => c.id === id);
  if (i < 0) return null;
  return h('a', { href: `#${anchorOf(chapters[i])}` }, `Chapter ${numbered(chapters[i], i)}`);
}

/** One question as a fieldset of radio buttons named `check-<phase>-<id>`. */
function questionView(phase, question, n) {
  const inputs = question.choices.map((c) =>
    h('input', { type: 'radio', name: `check-${phase}-${question.id}`, value: c.value }),
  );
  const labels = question.choices.map((c, i) =>
    h(
      'label',
      { class: 'check-choice', dataset: { choice: c.value } },
      inputs[i],
      h('span', { class: 'check-label' }, c.label),
    ),
  );
  const feedback = h('p', { class: 'check-feedback', hidden: true });
  const fieldset = h(
    'fieldset',
    { class: 'check-question', dataset: { question: question.id } },
    h('legend', {}, `${n}. ${question.question}`),
    h('div', { class: 'check-choices' }, labels),
    feedback,
  );
  const chosen = () => inputs.find((i) => i.checked)?.value ?? null;
  const set = (choice, locked) => {
    for (const input of inputs) {
      input.checked = input.value === choice;
      input.disabled = locked;
    }
  };
  return { question, fieldset, labels, feedback, chosen, set };
}

/**
 * The two sections of the check.
 * @param {{ chapters: object[], storage?: Storage, page?: () => string }} o `chapters`: the tour (for the links
 *   to the chapter of each question); `storage`: where answers are kept (localStorage by default);
 *   `page`: the page's address for the statements (window.location.href by default)
 * @returns {{ pre: HTMLElement, post: HTMLElement, tocLink: (phase: string) => HTMLElement }}
 */
export function conceptCheck({ chapters, storage, page = () => window.location.href }) {
  const kept = readCheck(storage);
  const phases = { pre: kept.pre, post: kept.post };
  const views = {};

  const fire = (section, type, detail) =>
    section.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));

  for (const phase of PHASES) {
    const text = TEXT[phase];
    const questions = QUESTIONS.map((question, i) => questionView(phase, question, i + 1));
    const submit = h('button', { type: 'button', class: 'check-submit' }, 'Hand in my answers');
    const status = h('div', {
      class: 'check-status',
      role: 'status',
      tabindex: '-1',
      dataset: { role: 'check-status' },
    });
    const summary = h('summary', {}, text.open);
    const body = h(
      'details',
      { class: 'check-body' },
      summary,
      h(
        'ol',
        { class: 'check-questions' },
        questions.map((v) => h('li', {}, v.fieldset)),
      ),
      h('div', { class: 'check-actions' }, submit),
    );
    const reset =
      phase === 'post'
        ? h('button', { type: 'button', class: 'check-reset', hidden: true }, 'Clear my answers to both checks')
        : null;
    const id = checkAnchor(phase);
    const section = h(
      'section',
      { class: 'concept-check', id, dataset: { check: phase }, 'aria-labelledby': `${id}-title` },
      h('h2', { id: `${id}-title` }, text.title),
      h('p', { class: 'intro' }, text.intro),
      status,
      body,
      reset,
    );
    views[phase] = { phase, section, questions, submit, status, summary, body, reset };
  }

  /** Shows a phase as it is now: open for answers, handed in (pre: no marks), or marked (post). */
  const draw = (phase) => {
    const v = views[phase];
    const done = phases[phase];
    // Once the check after the tour is marked its answers are on show: the check before it closes, unanswered.
    const closed = phase === 'pre' && !done && Boolean(phases.post);
    v.section.dataset.done = done ? 'true' : closed ? 'closed' : 'false';
    v.summary.textContent = done ? TEXT[phase].done : TEXT[phase].open;
    v.submit.hidden = Boolean(done) || closed;
    for (const q of v.questions) {
      q.set(done ? (done.answers[q.question.id] ?? null) : closed ? null : q.chosen(), Boolean(done) || closed);
      const marked = phase === 'post' && done;
      for (const label of q.labels) {
        const choice = label.dataset.choice;
        label.classList.toggle('is-answer', Boolean(marked) && choice === q.question.answer);
        label.querySelector('.check-mark')?.remove();
        if (!marked) continue;
        const mine = done.answers[q.question.id] === choice;
        const mark = [choice === q.question.answer ? 'the right answer' : null, mine ? 'your answer' : null].filter(
          Boolean,
        );
        if (mark.length) label.lastChild.append(h('span', { class: 'check-mark' }, ` (${mark.join('; ')})`));
      }
      q.feedback.hidden = !marked;
      q.feedback.replaceChildren();
      q.fieldset.dataset.result = marked ? resultOf(done.answers[q.question.id], q.question) : '';
      if (marked) q.feedback.append(...feedbackOf(done.answers[q.question.id], q.question));
    }
    if (v.reset) v.reset.hidden = !phases.pre && !phases.post;
    v.status.replaceChildren(...statusOf(phase));
  };

  const resultOf = (choice, question) =>
    choice === undefined ? 'unanswered' : choice === question.answer ? 'right' : 'wrong';

  const feedbackOf = (choice, question) => {
    const result = resultOf(choice, question);
    const opening = { right: 'Right. ', wrong: 'Not quite. ', unanswered: 'Not answered. ' }[result];
    const link = chapterLink(chapters, question.chapter);
    return [
      h('strong', {}, opening),
      result === 'wrong' ? `${question.misconceptions[choice]} ` : '',
      question.why,
      ...(link ? [' ', link, '.'] : []),
    ];
  };

  /** "3 of 10 right", and how many were not answered (they count as not right). */
  const rightOf = (score) =>
    `${score.correct} of ${score.max} right` +
    (score.answered < score.max ? ` (${score.max - score.answered} not answered, counted as not right)` : '');

  const statusOf = (phase) => {
    const done = phases[phase];
    if (phase === 'pre' && !done && phases.post)
      return [
        h(
          'p',
          { dataset: { role: 'pre-closed' } },
          'Closed: the check after the tour has shown the right answers, so this one can no longer measure what you knew before.',
        ),
      ];
    if (!done) return [];
    const score = scoreOf(done.answers);
    if (phase === 'pre')
      return [
        h(
          'p',
          { dataset: { role: 'pre-handed-in' } },
          `Handed in: ${plural(score.answered, 'answer')} of ${score.max} kept on this browser. Your marks come with the check after the tour.`,
        ),
      ];
    const lines = [h('p', { dataset: { role: 'post-score' } }, `After the tour: ${rightOf(score)}.`)];
    if (!phases.pre) {
      lines.push(
        h(
          'p',
          { dataset: { role: 'pre-score' } },
          'There are no answers from before the tour on this browser, so there is no gain to show.',
        ),
      );
      return lines;
    }
    const pre = scoreOf(phases.pre.answers);
    const { gain, normalized } = gainOf(pre.correct, score.correct, score.max);
    lines.push(
      h('p', { dataset: { role: 'pre-score' } }, `Before the tour: ${rightOf(pre)}.`),
      h(
        'p',
        { dataset: { role: 'gain' } },
        `Gain: ${signed(gain, 0, true)} question${Math.abs(gain) === 1 ? '' : 's'}. `,
        normalized === null
          ? 'The normalized gain is not defined: your score before the tour was already the highest.'
          : `Normalized gain (post \u2212 pre) / (max \u2212 pre) = ${signed(gain)} / ${score.max - pre.correct} = ${signed(normalized, 2)}: the share of what was left to learn that you learned (Hake 1998).`,
      ),
    );
    return lines;
  };

  // The status takes the focus with the scroll on purpose: it sits above the questions, and what it says (nothing
  // chosen, handed in, the score) must come into view for a reader at the hand-in button below.
  const handIn = (phase) => {
    const v = views[phase];
    const answers = {};
    for (const q of v.questions) {
      const choice = q.chosen();
      if (choice !== null) answers[q.question.id] = choice;
    }
    if (phase === 'pre' && phases.post) return draw('pre'); // closed (see draw)
    if (Object.keys(answers).length === 0) {
      v.status.replaceChildren(h('p', {}, 'Choose an answer to at least one question first.'));
      v.status.focus();
      return;
    }
    const timestamp = new Date();
    phases[phase] = { answers, at: timestamp.toISOString() };
    const stored = writeCheck(phases, storage);
    draw(phase);
    draw(phase === 'pre' ? 'post' : 'pre');
    if (!stored)
      v.status.append(h('p', {}, 'This browser does not let the page keep them: they are lost when you leave.'));
    v.status.focus();

    // Reports: one "answered" statement per answer, then "completed" with the score.
    const href = page();
    for (const q of v.questions) {
      const choice = answers[q.question.id];
      if (choice === undefined) continue;
      const statement = checkAnsweredStatement({ page: href, phase, question: q.question, choice, timestamp });
      fire(v.section, XAPI_EVENT, {
        statement,
        widget: null,
        chapter: CHECK_ID,
        prediction: `${phase}.${q.question.id}`,
        phase,
      });
    }
    const score = scoreOf(answers);
    let pre;
    if (phase === 'post' && phases.pre) {
      const before = scoreOf(phases.pre.answers);
      pre = { correct: before.correct, normalized: gainOf(before.correct, score.correct, score.max).normalized };
    }
    const statement = checkCompletedStatement({
      page: href,
      phase,
      correct: score.correct,
      max: score.max,
      pre,
      timestamp,
    });
    fire(v.section, XAPI_EVENT, { statement, widget: null, chapter: CHECK_ID, prediction: null, phase });
    fire(v.section, CHECK_EVENT, { phase, answers, score, ...(pre ? { pre } : {}) });
  };

  for (const phase of PHASES) {
    const v = views[phase];
    v.submit.addEventListener('click', () => handIn(phase));
    v.reset?.addEventListener('click', () => {
      phases.pre = null;
      phases.post = null;
      writeCheck(phases, storage);
      for (const p of PHASES) {
        for (const q of views[p].questions) q.set(null, false);
        draw(p);
      }
      views.pre.status.replaceChildren(h('p', {}, 'Both checks are cleared; you can take them again.'));
      views.post.status.replaceChildren(h('p', {}, 'Both checks are cleared; you can take them again.'));
      v.body.open = true;
      v.status.focus();
    });
    draw(phase);
  }

  const tocLink = (phase) =>
    h(
      'p',
      { class: 'toc-check', dataset: { check: phase } },
      h('a', { href: `#${checkAnchor(phase)}` }, TEXT[phase].toc),
    );
  return { pre: views.pre.section, post: views.post.section, tocLink };
}
