// The score of one phase of the concept check (web/models/concept-check.js)
// and the gain from the pre-check to the post-check. A question left
// unanswered counts as not right; the maximum is the number of questions.
// The normalized gain is Hake's (1998): (post − pre) / (max − pre), the
// share of what was left to learn that was learned; it is not defined when
// the pre-check score is already the maximum.
import { QUESTIONS } from '../models/concept-check.js';

/**
 * @param {{ [questionId: string]: string }} answers the chosen choice value per question id
 * @returns {{ answered: number, correct: number, max: number, right: { [questionId: string]: boolean } }}
 *   `right`: for each answered question, whether its choice is the right one
 */
export function scoreOf(answers) {
  const right = {};
  for (const question of QUESTIONS) {
    if (!Object.hasOwn(answers, question.id)) continue;
    right[question.id] = answers[question.id] === question.answer;
  }
  const values = Object.values(right);
  return { answered: values.length, correct: values.filter(Boolean).length, max: QUESTIONS.length, right };
}

/**
 * The gain from `pre` to `post` right answers out of `max`.
 * @returns {{ gain: number, normalized: number | null }} `gain` = post − pre (questions);
 *   `normalized` = (post − pre) / (max − pre), or null when pre = max
 * @throws {RangeError} naming the argument when pre or post is not an integer from 0 to max
 */
export function gainOf(pre, post, max) {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`gain max: expected a positive integer, got ${max}`);
  for (const [name, value] of [
    ['pre', pre],
    ['post', post],
  ])
    if (!Number.isInteger(value) || value < 0 || value > max)
      throw new RangeError(`gain ${name}: expected an integer from 0 to ${max}, got ${value}`);
  return { gain: post - pre, normalized: pre < max ? (post - pre) / (max - pre) : null };
}
