// The xAPI statement of an answered prediction (web/widget/xapi.js), the
// SCORM 1.2 interaction written from it (web/scorm/interactions.js) and the
// misconception texts of a predict config (web/widget/predict.js). Expected
// values are written from xAPI 1.0.3 (Data, 2.4: the statement; cmi.interaction
// activities of type choice) and the SCORM 1.2 run-time data model
// (cmi.interactions: a choice as one character a-z, CMITime HH:MM:SS).
import { describe, expect, test } from '@jest/globals';
import { checkMisconceptions, PredictionRecord, scoreText } from '../../web/widget/predict.js';
import { answeredStatement } from '../../web/widget/xapi.js';
import { cmiTime, interactionValues } from '../../web/scorm/interactions.js';

const PREDICTION = {
  id: 'perpendicular-sign',
  question: 'Will a\u00b7b be positive, zero or negative?',
  choices: ['positive', 'zero', 'negative'].map((value) => ({ value, label: value })),
};
const at = new Date(2026, 2, 2, 9, 5, 7, 250); // local time: CMITime is the learner's clock
const answer = (over = {}) => ({
  page: 'https://example.org/ag/embed.html?ch=dot-product&s=v%3D1#top',
  chapter: 'dot-product',
  prediction: PREDICTION,
  choice: 'positive',
  answer: 'zero',
  correct: false,
  first: { choice: 'positive', correct: false },
  timestamp: at,
  ...over,
});

describe('answeredStatement', () => {
  test('verb answered, a choice interaction named by page, chapter and prediction; the result of the answer', () => {
    const s = answeredStatement(answer());
    expect(s.verb.id).toBe('http://adlnet.gov/expapi/verbs/answered');
    expect(s.object.id).toBe('https://example.org/ag/embed.html#dot-product/predict/perpendicular-sign');
    expect(s.object.definition).toMatchObject({
      type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
      interactionType: 'choice',
      correctResponsesPattern: ['zero'],
    });
    expect(s.object.definition.choices.map((c) => c.id)).toEqual(['positive', 'zero', 'negative']);
    expect(s.result).toEqual({ success: false, response: 'positive', score: { raw: 0, min: 0, max: 1, scaled: 0 } });
    expect(s.context.contextActivities.parent[0].id).toBe('https://example.org/ag/embed.html#dot-product');
    expect(s.timestamp).toBe(at.toISOString());
    expect(s).not.toHaveProperty('actor');
  });

  test("a later right answer is a success, and keeps the first answer's score", () => {
    const s = answeredStatement(answer({ choice: 'zero', correct: true }));
    expect(s.result).toEqual({ success: true, response: 'zero', score: { raw: 0, min: 0, max: 1, scaled: 0 } });
    const right = answeredStatement(
      answer({ choice: 'zero', correct: true, first: { choice: 'zero', correct: true } }),
    );
    expect(right.result.score).toEqual({ raw: 1, min: 0, max: 1, scaled: 1 });
  });

  test('the number of the answer, a result extension: 1 for the first (scored), 2 and more for a retry', () => {
    const key = 'urn:attention-geometry:xapi:answer-number';
    expect(answeredStatement(answer({ number: 1 })).result.extensions).toEqual({ [key]: 1 });
    const retry = answeredStatement(answer({ choice: 'zero', correct: true, number: 2 }));
    expect(retry.result).toEqual({
      success: true,
      response: 'zero',
      score: { raw: 0, min: 0, max: 1, scaled: 0 },
      extensions: { [key]: 2 },
    });
    for (const bad of [0, 1.5, '2', null])
      expect(() => answeredStatement(answer({ number: bad }))).toThrow(/xAPI number: expected a whole number/);
  });

  test('an answer that is no choice: no correct response; bad arguments are TypeErrors naming them', () => {
    expect(answeredStatement(answer({ answer: 'other' })).object.definition.correctResponsesPattern).toEqual([]);
    expect(() => answeredStatement(answer({ page: 'embed.html' }))).toThrow(/xAPI page: expected an absolute URL/);
    expect(() => answeredStatement(answer({ chapter: '' }))).toThrow(/xAPI chapter/);
    expect(() => answeredStatement(answer({ choice: 'maybe' }))).toThrow(/xAPI choice: "maybe" is not a choice/);
    expect(() => answeredStatement(answer({ prediction: { id: 'x' } }))).toThrow(TypeError);
    expect(() => answeredStatement(answer({ first: null }))).toThrow(/first\.correct/);
  });
});

describe('the SCORM 1.2 interaction of an answer', () => {
  const names = { chapter: 'dot-product', prediction: 'perpendicular-sign' };
  test('id, type choice, the choices as letters, the result and the time, at index n', () => {
    expect(interactionValues(answeredStatement(answer()), names, 3)).toEqual([
      ['cmi.interactions.3.id', 'dot-product.perpendicular-sign'],
      ['cmi.interactions.3.type', 'choice'],
      ['cmi.interactions.3.student_response', 'a'],
      ['cmi.interactions.3.correct_responses.0.pattern', 'b'],
      ['cmi.interactions.3.result', 'wrong'],
      ['cmi.interactions.3.time', '09:05:07'],
    ]);
    const right = interactionValues(answeredStatement(answer({ choice: 'zero', correct: true })), names, 0);
    expect(right).toContainEqual(['cmi.interactions.0.result', 'correct']);
    expect(cmiTime(new Date(2026, 0, 1, 23, 59, 0))).toBe('23:59:00');
  });

  test('no right choice: no correct_responses element', () => {
    const values = interactionValues(answeredStatement(answer({ answer: 'other' })), names, 0);
    expect(values.map(([k]) => k)).not.toContain('cmi.interactions.0.correct_responses.0.pattern');
  });
});

describe('misconceptions and the chapter score', () => {
  test('texts keyed by choices; a key that is no choice or an empty text is a TypeError naming it', () => {
    expect(checkMisconceptions(undefined, PREDICTION.choices)).toEqual({});
    expect(checkMisconceptions({ positive: 'Sign from lengths.' }, PREDICTION.choices)).toEqual({
      positive: 'Sign from lengths.',
    });
    expect(() => checkMisconceptions({ posit: 'x' }, PREDICTION.choices)).toThrow(/"posit" is not a choice/);
    expect(() => checkMisconceptions({ zero: ' ' }, PREDICTION.choices)).toThrow(/misconceptions\["zero"\]/);
    expect(() => checkMisconceptions(['x'], PREDICTION.choices)).toThrow(TypeError);
  });

  test('the first answer sets the score line; a later one does not change it', () => {
    const record = new PredictionRecord();
    record.record('dot-product', { id: 'p', choice: 'positive', correct: false });
    record.record('dot-product', { id: 'p', choice: 'zero', correct: true });
    const line = scoreText({ first: record.first('dot-product'), ...record.score(['dot-product']) });
    expect(line).toBe('Scored (only the first answer counts): wrong \u2014 chapter score 0 / 1');
    expect(scoreText({ first: record.first('dot-product'), tries: 2, ...record.score(['dot-product']) })).toBe(
      'Not scored: only the first answer counts, and it was wrong \u2014 chapter score 0 / 1',
    );
  });
});
