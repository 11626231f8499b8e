// Each answered prediction as a SCORM 1.2 interaction (RTE 3.4.2.7,
// cmi.interactions.n.*), from the answer's xAPI statement (widget/xapi.js):
//   id                           <chapter>.<prediction id>, e.g. dot-product.perpendicular-sign
//   type                         choice
//   student_response             the learner's choice as a letter, a for the first choice shown, b for the
//                                second...: SCORM 1.2 writes a choice as one character, 0-9 or a-z
//   correct_responses.0.pattern  the right choice's letter
//   result                       correct or wrong
//   time                         the learner's clock when answering, HH:MM:SS (CMITime)
// A number prediction (xAPI interactionType "numeric") is written with
//   type                         numeric
//   student_response             the learner's number, a CMIDecimal (digits, a point, no exponent)
//   correct_responses.0.pattern  the measured value, a CMIDecimal (SCORM 1.2 has no range: the tolerance is
//                                the page's, and `result` says whether the number was within it)
// and a point prediction (xAPI "other") with
//   type                         performance (SCORM 1.2 takes any string of up to 255 characters for it)
//   student_response             the learner's point "x,y", in the figure's units
//   correct_responses.0.pattern  the true point "x,y"
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

/** SCORM 1.2 CMIFeedback (student_response, a pattern) holds at most 255 characters. */
export const FEEDBACK_MAX = 255;

/** A number as a SCORM 1.2 CMIDecimal: at most 7 significant digits, written without an exponent. */
export function cmiDecimal(x) {
  if (!Number.isFinite(x)) throw new RangeError(`SCORM interaction: ${x} is no CMIDecimal`);
  const digits = Math.max(0, Math.min(20, 6 - Math.floor(Math.log10(Math.abs(x) || 1))));
  const text = x.toFixed(digits);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** The middle of a numeric pattern "lo[:]hi" (xAPI 1.0.3). */
const middle = (pattern) => {
  const [lo, hi] = pattern.split('[:]').map(Number);
  return lo + (hi - lo) / 2;
};

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
  const [right] = definition.correctResponsesPattern ?? []; // none when no choice was right
  const { response } = statement.result;
  const [type, given, pattern] = {
    choice: () => [
      'choice',
      choiceLetter(definition.choices, response),
      right && choiceLetter(definition.choices, right),
    ],
    // The middle of the range "lo[:]hi" of right answers: the measured value.
    numeric: () => ['numeric', cmiDecimal(Number(response)), right && cmiDecimal(middle(right))],
    other: () => ['performance', response.slice(0, FEEDBACK_MAX), right?.slice(0, FEEDBACK_MAX)],
  }[definition.interactionType]();
  return [
    [`${at}id`, interactionId(chapter, prediction)],
    [`${at}type`, type],
    [`${at}student_response`, given],
    ...(pattern === undefined ? [] : [[`${at}correct_responses.0.pattern`, pattern]]),
    [`${at}result`, statement.result.success ? 'correct' : 'wrong'],
    [`${at}time`, cmiTime(new Date(statement.timestamp))],
  ];
}
