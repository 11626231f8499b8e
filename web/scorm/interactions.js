// Each answered prediction as a SCORM 1.2 interaction (RTE 3.4.2.7,
// cmi.interactions.n.*), from the answer's xAPI statement (widget/xapi.js):
//   id                           <chapter>.<prediction id>, e.g. dot-product.perpendicular-sign
//   type                         choice
//   student_response             the learner's choice as a letter, a for the first choice shown, b for the
//                                second...: SCORM 1.2 writes a choice as one character, 0-9 or a-z
//   correct_responses.0.pattern  the right choice's letter
//   result                       correct or wrong
//   time                         the learner's clock when answering, HH:MM:SS (CMITime)
// Interactions are written after those already there (cmi.interactions._count),
// one per answer: every answer is one, the first and the later ones; the score
// (report.js) counts first answers only.

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The letter of a choice id among a statement's choices; throws a RangeError past z or for an unknown id. */
export function choiceLetter(choices, value) {
  const i = choices.findIndex((c) => c.id === value);
  if (i < 0 || i >= LETTERS.length)
    throw new RangeError(
      `SCORM interaction: the choice ${JSON.stringify(value)} is not one of the first ${LETTERS.length} choices`,
    );
  return LETTERS[i];
}

/** HH:MM:SS of a Date in the learner's time zone (SCORM 1.2 CMITime). */
export function cmiTime(date) {
  const two = (n) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** The interaction id: the chapter and the prediction, as the statement's activity id names them. */
export function interactionId(chapter, prediction) {
  return `${chapter}.${prediction}`.replace(/[^\w.-]/g, '_').slice(0, 255);
}

/**
 * The SCORM 1.2 elements of interaction `n` for one answer.
 * @param {object} statement an "answered" statement (widget/xapi.js)
 * @param {{ chapter: string, prediction: string }} names the chapter and the prediction's id
 * @param {number} n the interaction's index (cmi.interactions._count before it)
 * @returns {[string, string][]} elements and values, in the order to set them (id first)
 */
export function interactionValues(statement, { chapter, prediction }, n) {
  const { definition } = statement.object;
  const at = `cmi.interactions.${n}.`;
  const [right] = definition.correctResponsesPattern; // none when no choice was right
  return [
    [`${at}id`, interactionId(chapter, prediction)],
    [`${at}type`, 'choice'],
    [`${at}student_response`, choiceLetter(definition.choices, statement.result.response)],
    ...(right === undefined ? [] : [[`${at}correct_responses.0.pattern`, choiceLetter(definition.choices, right)]]),
    [`${at}result`, statement.result.success ? 'correct' : 'wrong'],
    [`${at}time`, cmiTime(new Date(statement.timestamp))],
  ];
}
