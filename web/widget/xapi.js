// xAPI (Experience API 1.0.3) statements for answered predictions. Every
// answer of a predict block (widget/predict.js) becomes one "answered"
// statement: the verb http://adlnet.gov/expapi/verbs/answered, an activity
// of type cmi.interaction (interactionType "choice") whose id names the page,
// the chapter and the prediction, with the choices and the right one as its
// correctResponsesPattern; a result with this answer's success and response
// and the chapter's score, which the first answer sets (a later answer is
// practice: it repeats the first answer's score, and its result extension
// ANSWER_NUMBER, 2 or more, marks it as a retry). The widget fires it as the
// DOM event `ag-xapi` (widget/base.js); embed.html posts it to the page
// around its frame; the SCORM adapter writes it as a SCORM 1.2 interaction.
// The page knows no learner: a statement has no actor, which whoever sends
// it to a Learning Record Store adds (EMBEDDING.md, "xAPI").

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
 * The xAPI 1.0.3 "answered" statement of one answer to a prediction.
 * @param {{ page: string, chapter: string, chapterTitle?: string,
 *           prediction: { id: string, question: string, choices: { value: string, label: string }[] },
 *           choice: string, answer: string, correct: boolean,
 *           first: { choice: string, correct: boolean }, number?: number, timestamp?: Date }} o
 *   `page`: the page's address (its query and fragment are dropped); `choice`: the learner's choice value;
 *   `answer`: the right choice value, as the reveal computed it (one that is no choice gives an empty
 *   correctResponsesPattern); `correct`: choice === answer; `first`: the
 *   chapter's first answer (this one, or an earlier one), which sets the score; `number`: which answer to the
 *   chapter's prediction this is (1 for the first), given as the result extension ANSWER_NUMBER.
 * @returns {object} a statement without actor, id or stored (the sender adds them):
 *   { verb, object, result: { success, response, score: { raw, min, max, scaled }, extensions? }, context,
 *   timestamp }
 * @throws {TypeError} naming a missing or malformed argument, or a choice that is not one of the choices
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
  const values = Array.isArray(prediction?.choices) ? prediction.choices.map((c) => c.value) : [];
  if (typeof prediction?.id !== 'string' || values.length === 0)
    throw new TypeError('xAPI prediction: expected { id, question, choices: [{ value, label }, ...] }');
  if (!values.includes(choice))
    throw new TypeError(`xAPI choice: ${JSON.stringify(choice)} is not a choice (${values.join(', ')})`);
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
      definition: { name: text(prediction.question), ...choiceInteraction({ choices: prediction.choices, answer }) },
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
