// The xAPI "answered" statement of a chapter's prediction, built on H5P's
// event template (H5P.EventDispatcher#createXAPIEventTemplate, which fills
// actor, verb, object and context): the object's definition becomes the
// prediction's interaction (xAPI 1.0.3, Data 2.4.4.1: interactionType
// "choice" with its choices, "numeric" or "other" for a point, and the
// correctResponsesPattern), the result carries the score (setScoredResult)
// and the learner's response (a choice, a number, a point "x,y").
import { predictionInteraction } from '../widget/xapi.js';

/**
 * The question and the choices of a prediction block (web/widget/predict.js) as the learner reads them; for a
 * number or a point prediction, its tolerance or radius instead of choices.
 */
export function readPrediction(block) {
  const question = block.querySelector('.predict-question');
  // The question's text without its bold lead-in ("Predict first.").
  const text = [...(question?.childNodes ?? [])]
    .filter((n) => n.nodeName !== 'STRONG')
    .map((n) => n.textContent)
    .join('')
    .trim();
  const choices = [...block.querySelectorAll('.predict-choice')].map((b) => ({
    id: b.dataset.choice,
    label: b.textContent.trim(),
  }));
  const { predict: id, kind, tolerance, radius } = block.dataset;
  if (kind === 'number') {
    const [unit, size] = tolerance.split(' ');
    return { id, question: text, number: { tolerance: { [unit]: Number(size) } } };
  }
  if (kind === 'point') return { id, question: text, point: { radius: Number(radius) } };
  return { id, question: text, choices };
}

/**
 * An H5P xAPI event of verb "answered" from `instance` (the content type):
 * `prediction` from readPrediction, `answer` the right choice when known
 * (null before a reveal), `response` the learner's first choice (null if
 * none yet), `score` and `maxScore` the content's.
 */
export function answeredEvent(instance, { prediction, answer, response, score, maxScore }) {
  const event = instance.createXAPIEventTemplate('answered');
  const definition = event.getVerifiedStatementValue(['object', 'definition']);
  const choices = prediction.choices?.map((c) => ({ value: c.id, label: c.label }));
  const interaction = predictionInteraction({ ...prediction, choices }, answer, 'en-US');
  // A point's interaction says in its description what its response is: after the question.
  const more = interaction.description ? ` ${interaction.description['en-US']}` : '';
  Object.assign(definition, interaction, { description: { 'en-US': `${prediction.question}${more}` } });
  const answered = response !== null;
  event.setScoredResult(score, maxScore, instance, answered, answered ? score === maxScore : undefined);
  if (answered) event.data.statement.result.response = response;
  return event;
}
