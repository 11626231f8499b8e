// xAPI 1.0.3 statements of the concept check (models/concept-check.js), in
// the form of the predictions' (widget/xapi.js), so the same host code sends
// both to a Learning Record Store:
//   - "answered", one per question answered when a phase is handed in: the
//     question as a cmi.interaction of type choice, `<page>#concept-check/<question id>`
//     (the same activity in both phases); result success and response;
//     context: parent the phase's activity, grouping the check, and the
//     extension `<page>#concept-check/phase` = "pre" or "post";
//   - "completed", one per phase handed in: the phase's activity
//     `<page>#concept-check/<phase>` (an assessment) with the score
//     (raw right answers, min 0, max the number of questions, scaled); the
//     post-check's result also carries the pre-check's score and Hake's
//     normalized gain as extensions, when there was a pre-check.
// No actor: whoever sends a statement adds the learner (EMBEDDING.md, "xAPI").
import { CHECK_ID, QUESTIONS } from '../models/concept-check.js';
import { ANSWERED, choiceInteraction, pageIri } from '../widget/xapi.js';

export const COMPLETED = Object.freeze({
  id: 'http://adlnet.gov/expapi/verbs/completed',
  display: Object.freeze({ en: 'completed' }),
});
export const ASSESSMENT_TYPE = 'http://adlnet.gov/expapi/activities/assessment';
const PHASE_NAMES = { pre: 'Concept check before the tour', post: 'Concept check after the tour' };

/** The check's activity id on a page: `<page>#concept-check`. */
export const checkIri = (page) => `${pageIri(page)}#${CHECK_ID}`;
/** The extension keys: the phase (context), the pre-check's score and the normalized gain (result of the post-check). */
export const extensionKeys = (page) => ({
  phase: `${checkIri(page)}/phase`,
  preScore: `${checkIri(page)}/pre-score`,
  normalizedGain: `${checkIri(page)}/normalized-gain`,
});

function checkPage(page) {
  if (typeof page !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(page))
    throw new TypeError(`xAPI page: expected an absolute URL, got ${JSON.stringify(page)}`);
}
function checkPhase(phase) {
  if (phase !== 'pre' && phase !== 'post')
    throw new TypeError(`xAPI phase: expected "pre" or "post", got ${JSON.stringify(phase)}`);
}

const phaseActivity = (page, phase) => ({
  objectType: 'Activity',
  id: `${checkIri(page)}/${phase}`,
  definition: { type: ASSESSMENT_TYPE, name: { en: PHASE_NAMES[phase] } },
});
const checkActivity = (page) => ({
  objectType: 'Activity',
  id: checkIri(page),
  definition: { type: ASSESSMENT_TYPE, name: { en: 'Concept check' } },
});

/**
 * The "answered" statement of one question of a phase.
 * @param {{ page: string, phase: 'pre' | 'post', question: object, choice: string, timestamp?: Date }} o
 *   `question`: one of QUESTIONS; `choice`: the learner's choice value
 * @returns {object} a statement without actor: { verb, object, result: { success, response }, context, timestamp }
 * @throws {TypeError} naming the argument: a page that is no absolute URL, a phase that is not pre or post,
 *   a question that is not one of the check's, a choice that is not one of its choices
 */
export function checkAnsweredStatement({ page, phase, question, choice, timestamp }) {
  checkPage(page);
  checkPhase(phase);
  if (!QUESTIONS.includes(question))
    throw new TypeError(
      `xAPI question: expected one of the concept check's questions, got ${JSON.stringify(question?.id)}`,
    );
  const values = question.choices.map((c) => c.value);
  if (!values.includes(choice))
    throw new TypeError(`xAPI choice: ${JSON.stringify(choice)} is not a choice (${values.join(', ')})`);
  return {
    verb: ANSWERED,
    object: {
      objectType: 'Activity',
      id: `${checkIri(page)}/${encodeURIComponent(question.id)}`,
      definition: { name: { en: question.question }, ...choiceInteraction(question) },
    },
    result: { success: choice === question.answer, response: choice },
    context: {
      contextActivities: { parent: [phaseActivity(page, phase)], grouping: [checkActivity(page)] },
      extensions: { [extensionKeys(page).phase]: phase },
    },
    timestamp: (timestamp ?? new Date()).toISOString(),
  };
}

/**
 * The "completed" statement of a phase handed in.
 * @param {{ page: string, phase: 'pre' | 'post', correct: number, max: number,
 *           pre?: { correct: number, normalized: number | null }, timestamp?: Date }} o
 *   `correct` right answers out of `max`; `pre` (post-check only): the pre-check's right answers and the
 *   normalized gain (null when the pre-check score was the maximum: no extension then)
 * @returns {object} { verb, object, result: { completion, score: { raw, min, max, scaled }, extensions? }, context, timestamp }
 * @throws {TypeError} for a page or phase as checkAnsweredStatement; {RangeError} for a score outside 0..max
 */
export function checkCompletedStatement({ page, phase, correct, max, pre, timestamp }) {
  checkPage(page);
  checkPhase(phase);
  if (!Number.isInteger(max) || max < 1 || !Number.isInteger(correct) || correct < 0 || correct > max)
    throw new RangeError(`xAPI score: expected an integer from 0 to max (${max}), got ${correct}`);
  const keys = extensionKeys(page);
  const result = { completion: true, score: { raw: correct, min: 0, max, scaled: correct / max } };
  if (phase === 'post' && pre) {
    result.extensions = { [keys.preScore]: pre.correct };
    if (pre.normalized !== null) result.extensions[keys.normalizedGain] = pre.normalized;
  }
  return {
    verb: COMPLETED,
    object: phaseActivity(page, phase),
    result,
    context: { contextActivities: { parent: [checkActivity(page)] }, extensions: { [keys.phase]: phase } },
    timestamp: (timestamp ?? new Date()).toISOString(),
  };
}
