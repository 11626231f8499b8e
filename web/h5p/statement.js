// The xAPI "answered" statement of a chapter's prediction, built on H5P's
// event template (H5P.EventDispatcher#createXAPIEventTemplate, which fills
// actor, verb, object and context): the object's definition becomes a choice
// interaction (xAPI 1.0.3, Data 2.4.4.1: interactionType "choice", choices,
// correctResponsesPattern), the result carries the score (setScoredResult)
// and the learner's choice as the response.
import { choiceInteraction } from '../widget/xapi.js';

/** The question and the choices of a prediction block (web/widget/predict.js) as the learner reads them. */
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
  return { id: block.dataset.predict, question: text, choices };
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
  const choices = prediction.choices.map((c) => ({ value: c.id, label: c.label }));
  Object.assign(definition, {
    description: { 'en-US': prediction.question },
    ...choiceInteraction({ choices, answer }, 'en-US'),
  });
  const answered = response !== null;
  event.setScoredResult(score, maxScore, instance, answered, answered ? score === maxScore : undefined);
  if (answered) event.data.statement.result.response = response;
  return event;
}
