// xAPI (Experience API 1.0.3) statements for answered predictions. Every
// answer of a predict block (widget/predict.js) becomes one "answered"
// statement: the verb http://adlnet.gov/expapi/verbs/answered, an activity
// of type cmi.interaction whose id names the page, the chapter and the
// prediction: interactionType "choice" (the choices, and the right one as its
// correctResponsesPattern), "numeric" (a number; the pattern "lo[:]hi" is the
// range of right answers) or "other" (a point "x,y" in the figure's units;
// the pattern is the true point); a result with this answer's success and response
// and the chapter's score, which the first answer sets (a later answer is
// practice: it repeats the first answer's score, and its result extension
// ANSWER_NUMBER, 2 or more, marks it as a retry). The widget fires it as the
// DOM event `ag-xapi` (widget/base.js); embed.html posts it to the page
// around its frame; the SCORM adapter writes it as a SCORM 1.2 interaction.
// The page knows no learner: a statement has no actor, which whoever sends
// it to a Learning Record Store adds (EMBEDDING.md, "xAPI").

import { toleranceRange } from './predict-number.js';

export const XAPI_VERSION = '1.0.3';
export const ANSWERED = Object.freeze({
  id: 'http://adlnet.gov/expapi/verbs/answered',
  display: Object.freeze({ en: 'answered' }),
});
export const INTERACTION_TYPE = 'http://adlnet.gov/expapi/activities/cmi.interaction';
/** The activity type of a chapter, the parent of its prediction's activity. */
export const MODULE_TYPE = 'http://adlnet.gov/expapi/activities/module';
/** The type of the message embed.html posts to the page around its frame for each statement. */
export const XAPI_MESSAGE_TYPE = 'attention-geometry:xapi';
/** The DOM event a widget fires for each statement (bubbles, composed). */
export const XAPI_EVENT = 'ag-xapi';
/**
 * The result extension (xAPI 1.0.3, Data 2.4.5, result.extensions) that numbers an answer among the answers to
 * its chapter's prediction on the page: 1 for the first, the one scored; 2 and more for a retry after "Ask me
 * again", which is practice and does not change `result.score`. A URN: the page has no address of its own to
 * name it by (an embedding page may be anywhere).
 */
export const ANSWER_NUMBER = 'urn:attention-geometry:xapi:answer-number';

const LANG = 'en';
const text = (s) => ({ [LANG]: String(s) });

/** The page's address without its query and fragment: `https://example.org/ag/index.html`. */
export function pageIri(href) {
  const url = new URL(href);
  url.search = '';
  url.hash = '';
  return url.href;
}

/** The activity id of a chapter on a page: `<page>#<chapter>`. */
export const chapterIri = (page, chapter) => `${pageIri(page)}#${encodeURIComponent(chapter)}`;

/** The activity id of a chapter's prediction on a page: `<page>#<chapter>/predict/<prediction id>`. */
export const predictionIri = (page, chapter, id) => `${chapterIri(page, chapter)}/predict/${encodeURIComponent(id)}`;

/**
 * The part of an activity definition that makes a prediction a choice interaction (xAPI 1.0.3, Data 2.4.4.1):
 * `choices` [{ value, label }], `answer` the right choice value (null: not known yet, no pattern; a value that
 * is no choice: an empty correctResponsesPattern, no choice is right), labels in language `lang`.
 */
export function choiceInteraction({ choices, answer }, lang = LANG) {
  const values = choices.map((c) => c.value);
  return {
    type: INTERACTION_TYPE,
    interactionType: 'choice',
    choices: choices.map((c) => ({ id: c.value, description: { [lang]: String(c.label) } })),
    ...(answer === null ? {} : { correctResponsesPattern: values.includes(answer) ? [answer] : [] }),
  };
}

/**
 * The part of an activity definition that makes a number prediction a numeric interaction (xAPI 1.0.3, Data
 * 2.4.4.1): `answer` the measured value as text (null: not known yet, no pattern), `tolerance` the prediction's
 * ({ absolute } or { percent }); the pattern is the range of right answers, "lo[:]hi" (toleranceRange).
 */
export function numericInteraction({ answer, tolerance }) {
  if (answer === null) return { type: INTERACTION_TYPE, interactionType: 'numeric' };
  const [lo, hi] = toleranceRange(Number(answer), tolerance);
  return { type: INTERACTION_TYPE, interactionType: 'numeric', correctResponsesPattern: [`${lo}[:]${hi}`] };
}

/**
 * The part of an activity definition that makes a point prediction an interaction of type "other" (xAPI 1.0.3,
 * Data 2.4.4.1): the response and the correct response are points "x,y" in the figure's units, which the
 * description says with the radius within which a point is right; `answer` the true point "x,y" (null: not
 * known yet, no pattern).
 */
export function pointInteraction({ answer, radius }, lang = LANG) {
  const description = `The response is a point "x,y" on the figure, in the figure's units; a point within ${radius} of the correct response is right.`;
  return {
    type: INTERACTION_TYPE,
    interactionType: 'other',
    description: { [lang]: description },
    ...(answer === null ? {} : { correctResponsesPattern: [answer] }),
  };
}

/**
 * The interaction of a prediction of any kind (`prediction.choices`, `.number` or `.point`, as predict() takes
 * them), with its right `answer` (null: not known yet).
 */
export function predictionInteraction(prediction, answer, lang = LANG) {
  if (prediction.number) return numericInteraction({ answer, tolerance: prediction.number.tolerance });
  if (prediction.point) return pointInteraction({ answer, radius: prediction.point.radius }, lang);
  return choiceInteraction({ choices: prediction.choices, answer }, lang);
}

/** Whether `response` fits the prediction's kind: one of the choices, a number, or a point "x,y". */
function checkResponse(prediction, response) {
  const isNumber = (t) => typeof t === 'string' && t.trim() !== '' && Number.isFinite(Number(t));
  if (prediction.number) {
    if (!isNumber(response))
      throw new TypeError(
        `xAPI choice: expected a number as text for a number prediction, got ${JSON.stringify(response)}`,
      );
  } else if (prediction.point) {
    const parts = typeof response === 'string' ? response.split(',') : [];
    if (parts.length !== 2 || !parts.every(isNumber))
      throw new TypeError(
        `xAPI choice: expected a point "x,y" for a point prediction, got ${JSON.stringify(response)}`,
      );
  } else {
    const values = Array.isArray(prediction.choices) ? prediction.choices.map((c) => c.value) : [];
    if (!values.includes(response))
      throw new TypeError(`xAPI choice: ${JSON.stringify(response)} is not a choice (${values.join(', ')})`);
  }
}

/**
 * The xAPI 1.0.3 "answered" statement of one answer to a prediction.
 * @param {{ page: string, chapter: string, chapterTitle?: string,
 *           prediction: { id: string, question: string, choices?: { value: string, label: string }[],
 *                         number?: { tolerance }, point?: { radius } },
 *           choice: string, answer: string, correct: boolean,
 *           first: { choice: string, correct: boolean }, number?: number, timestamp?: Date }} o
 *   `page`: the page's address (its query and fragment are dropped); `choice`: the learner's response (a choice
 *   value; for a number prediction the number as text; for a point prediction "x,y" in the figure's units);
 *   `answer`: the right choice value, as the reveal computed it (one that is no choice gives an empty
 *   correctResponsesPattern), or the measured number, or the true point "x,y"; `correct`: whether the response
 *   is right (the choice, within the tolerance, within the radius); `first`: the
 *   chapter's first answer (this one, or an earlier one), which sets the score; `number`: which answer to the
 *   chapter's prediction this is (1 for the first), given as the result extension ANSWER_NUMBER.
 * @returns {object} a statement without actor, id or stored (the sender adds them):
 *   { verb, object, result: { success, response, score: { raw, min, max, scaled }, extensions? }, context,
 *   timestamp }
 * @throws {TypeError} naming a missing or malformed argument, or a response that does not fit the kind (not one
 *   of the choices, not a number, not a point "x,y")
 */
export function answeredStatement({
  page,
  chapter,
  chapterTitle,
  prediction,
  choice,
  answer,
  correct,
  first,
  number,
  timestamp,
}) {
  if (typeof page !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(page))
    throw new TypeError(`xAPI page: expected an absolute URL, got ${JSON.stringify(page)}`);
  if (typeof chapter !== 'string' || !chapter)
    throw new TypeError(`xAPI chapter: expected a chapter id, got ${JSON.stringify(chapter)}`);
  const kinds = [prediction?.number, prediction?.point, prediction?.choices?.length || undefined];
  if (typeof prediction?.id !== 'string' || kinds.filter((k) => k !== undefined).length !== 1)
    throw new TypeError(
      'xAPI prediction: expected { id, question } with one of choices: [{ value, label }, ...], number or point',
    );
  checkResponse(prediction, choice);
  if (typeof correct !== 'boolean' || typeof first?.correct !== 'boolean')
    throw new TypeError('xAPI correct and first.correct: expected booleans');
  if (number !== undefined && !(Number.isInteger(number) && number >= 1))
    throw new TypeError(
      `xAPI number: expected a whole number from 1 (the first answer), got ${JSON.stringify(number)}`,
    );
  const raw = first.correct ? 1 : 0;
  const chapterActivity = { id: chapterIri(page, chapter), objectType: 'Activity', definition: { type: MODULE_TYPE } };
  if (chapterTitle) chapterActivity.definition.name = text(chapterTitle);
  return {
    verb: ANSWERED,
    object: {
      objectType: 'Activity',
      id: predictionIri(page, chapter, prediction.id),
      // A reveal whose answer is none of the choices (a case the question did not foresee): no choice is right.
      definition: { name: text(prediction.question), ...predictionInteraction(prediction, answer) },
    },
    result: {
      success: correct,
      response: choice,
      score: { raw, min: 0, max: 1, scaled: raw },
      ...(number === undefined ? {} : { extensions: { [ANSWER_NUMBER]: number } }),
    },
    context: { contextActivities: { parent: [chapterActivity] } },
    timestamp: (timestamp ?? new Date()).toISOString(),
  };
}
