// The xAPI statement of an answered prediction (web/widget/xapi.js), the
// SCORM 1.2 interaction written from it (web/scorm/interactions.js) and the
// misconception texts of a predict config (web/widget/predict.js). Expected
// values are written from xAPI 1.0.3 (Data, 2.4: the statement; cmi.interaction
// activities of type choice) and the SCORM 1.2 run-time data model
// (cmi.interactions: a choice as one character a-z, CMITime HH:MM:SS; numeric a CMIDecimal; performance a
// string of up to 255 characters); a number's range "lo[:]hi" from xAPI 1.0.3's numeric pattern.
import { describe, expect, test } from '@jest/globals';
import { checkMisconceptions, predictionKind, PredictionRecord, scoreText } from '../../web/widget/predict.js';
import {
  checkNumberSpec,
  checkRanges,
  readNumber,
  toleranceRange,
  toleranceText,
} from '../../web/widget/predict-number.js';
import { answeredStatement } from '../../web/widget/xapi.js';
import { cmiDecimal, cmiTime, interactionValues } from '../../web/scorm/interactions.js';

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

// A number prediction (sqrt-d's, right within 15 %) and a point prediction (convex-hull's, right within 0.75).
const NUMBER = { id: 'typical-score', question: 'The std of q\u00b7k?', number: { tolerance: { percent: 15 } } };
const POINT = { id: 'negative-weight', question: 'Where does y land?', point: { radius: 0.75 } };

describe('number and point predictions', () => {
  const names = (prediction) => ({ chapter: 'sqrt-d', prediction: prediction.id });
  test('a number: interactionType numeric, the range of right answers "lo[:]hi", the number as the response', () => {
    // 15 % of 64 is 9.6: right from 54.4 to 73.6.
    const s = answeredStatement(answer({ prediction: NUMBER, choice: '60', answer: '64', correct: true }));
    expect(s.object.definition).toEqual({
      name: { en: NUMBER.question },
      type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
      interactionType: 'numeric',
      correctResponsesPattern: ['54.4[:]73.6'],
    });
    expect(s.result).toMatchObject({ success: true, response: '60' });
    expect(interactionValues(s, names(NUMBER), 0).slice(1, 5)).toEqual([
      ['cmi.interactions.0.type', 'numeric'],
      ['cmi.interactions.0.student_response', '60'],
      ['cmi.interactions.0.correct_responses.0.pattern', '64'],
      ['cmi.interactions.0.result', 'correct'],
    ]);
    expect(() => answeredStatement(answer({ prediction: NUMBER, choice: 'sixty' }))).toThrow(
      /xAPI choice: expected a number/,
    );
  });

  test('a point: interactionType other, described; "x,y" as response and pattern; SCORM performance', () => {
    const s = answeredStatement(answer({ prediction: POINT, choice: '1,0.5', answer: '5.75,1.75', correct: false }));
    expect(s.object.definition).toMatchObject({
      interactionType: 'other',
      description: { en: expect.stringMatching(/point "x,y" on the figure, in the figure's units; .* within 0\.75 /) },
      correctResponsesPattern: ['5.75,1.75'],
    });
    expect(s.result).toMatchObject({ success: false, response: '1,0.5' });
    expect(interactionValues(s, names(POINT), 2).slice(1, 5)).toEqual([
      ['cmi.interactions.2.type', 'performance'],
      ['cmi.interactions.2.student_response', '1,0.5'],
      ['cmi.interactions.2.correct_responses.0.pattern', '5.75,1.75'],
      ['cmi.interactions.2.result', 'wrong'],
    ]);
    expect(() => answeredStatement(answer({ prediction: POINT, choice: '1;2' }))).toThrow(
      /xAPI choice: expected a point/,
    );
  });

  test('CMIDecimal: no exponent, 7 significant digits at most', () => {
    expect([64, 63.87123489379883, 1e-7, -2.5, 100000].map(cmiDecimal)).toEqual([
      '64',
      '63.87123',
      '0.0000001',
      '-2.5',
      '100000',
    ]);
  });

  test('the typed number: empty, not a number and out of range are refused with a sentence; the range of right answers', () => {
    const range = { min: 0, max: 100000 };
    expect(readNumber(' 64 ', range)).toEqual({ value: 64 });
    expect(readNumber('6,5', range)).toEqual({ value: 6.5 });
    expect(readNumber('', range)).toEqual({ problem: 'Type a number first.' });
    expect(readNumber('64 or so', range).problem).toMatch(/^\u201c64 or so\u201d is not a number/);
    expect(readNumber('\u22123', range).problem).toBe(
      '\u201c\u22123\u201d is out of range: type a number from 0 to 100,000.',
    );
    expect(readNumber('1e400', range).problem).toMatch(/^\u201c1e400\u201d is out of range/);
    // Thousands commas as the page writes them; any other comma a decimal comma; -0 read as 0.
    for (const [text, value] of [
      ['4,096', 4096],
      ['100,000', 100000],
      ['1,000.5', 1000.5],
      ['64,0', 64],
      ['0,5', 0.5],
      ['0,500', 0.5],
    ])
      expect(readNumber(text, range)).toEqual({ value });
    expect(Object.is(readNumber('-0', range).value, 0)).toBe(true);
    expect(toleranceText({ percent: 15 }, 64)).toBe('from 54.4 to 73.6, within 15 % of 64');
    expect(toleranceRange(64, { percent: 15 })).toEqual([54.4, 73.6]);
    expect(toleranceRange(64, { absolute: 2 })).toEqual([62, 66]);
  });

  test('bad options are TypeErrors naming them: two kinds, no tolerance, a range with from >= to', () => {
    expect(predictionKind({ number: {} })).toBe('number');
    expect(() => predictionKind({ choices: [], number: {} })).toThrow(
      /exactly one of choices, number and point, got choice, number/,
    );
    expect(() => checkNumberSpec({ label: 'x', min: 0, max: 1, tolerance: {} })).toThrow(/number\.tolerance/);
    expect(() => checkNumberSpec({ label: 'x', min: 1, max: 0, tolerance: { percent: 5 } })).toThrow(/number\.max/);
    expect(() => checkRanges([{ from: 5, to: 1, text: 'x' }])).toThrow(/misconceptions\[0\]/);
  });
});
