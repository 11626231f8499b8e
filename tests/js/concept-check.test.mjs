// The concept check's questions (web/models/concept-check.js) as data: ten
// questions with stable, unique ids, each with one right answer among its
// choices, a misconception text for every wrong choice and none for the right
// one, and the chapter of the tour it comes from. Then its score and Hake's
// normalized gain (web/shell/concept-check-score.js), the answers kept on the
// browser (concept-check-store.js) and its xAPI statements and SCORM
// interactions (concept-check-statements.js, web/scorm/interactions.js).
// Expected values are written from the definitions: (post - pre)/(max - pre)
// (Hake 1998), xAPI 1.0.3 (Data 2.4) and SCORM 1.2 (cmi.interactions).
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { CHECK_VERSION, QUESTIONS } from '../../web/models/concept-check.js';
import { gainOf, scoreOf } from '../../web/shell/concept-check-score.js';
import { checkAnsweredStatement, checkCompletedStatement } from '../../web/shell/concept-check-statements.js';
import {
  CHECK_STORAGE_KEY,
  decodeCheck,
  encodeCheck,
  readCheck,
  writeCheck,
} from '../../web/shell/concept-check-store.js';
import { interactionValues } from '../../web/scorm/interactions.js';

/** The ids as first published: stored answers, xAPI activities and SCORM interactions name questions by them. */
const IDS = [
  'zero-score',
  'key-length',
  'score-spread',
  'scale-purpose',
  'softmax-shift',
  'output-where',
  'heads-width',
  'mask-how',
  'kv-cache-exact',
  'unscaled-training',
];
const PAGE = 'https://example.org/ag/index.html?ch=atom#ch-atom';
const BASE = 'https://example.org/ag/index.html#concept-check';

/** A memory Storage (getItem, setItem, removeItem). */
const memory = () => {
  const map = new Map();
  return {
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => map.set(k, String(v)),
    removeItem: (k) => map.delete(k),
    map,
  };
};

describe('the questions', () => {
  test('ten questions, ids unique and stable, in the published order', () => {
    expect(QUESTIONS.map((q) => q.id)).toEqual(IDS);
  });

  test.each(QUESTIONS.map((q) => [q.id, q]))(
    '%s: one right answer among its choices; each wrong one named',
    (_id, q) => {
      const values = q.choices.map((c) => c.value);
      expect(new Set(values).size).toBe(values.length);
      expect(values.length).toBeGreaterThanOrEqual(3);
      expect(values).toContain(q.answer);
      for (const c of q.choices) expect(c.label.trim().length).toBeGreaterThan(0);
      expect(q.question).toMatch(/\?|\u2026$/);
      expect(q.why.length).toBeGreaterThan(40);
      // A misconception for every wrong choice, and for no other key.
      expect(Object.keys(q.misconceptions).sort()).toEqual(values.filter((v) => v !== q.answer).sort());
      for (const text of Object.values(q.misconceptions)) expect(text.length).toBeGreaterThan(40);
      // The chapter the question comes from is a chapter of the tour with a widget.
      expect(CHAPTERS.find((c) => c.id === q.chapter)?.tag).toMatch(/^ag-/);
    },
  );

  test('the right answer is not always in the same place', () => {
    const places = new Set(QUESTIONS.map((q) => q.choices.findIndex((c) => c.value === q.answer)));
    expect(places.size).toBeGreaterThanOrEqual(3);
  });
});

describe('score and gain', () => {
  const allRight = Object.fromEntries(QUESTIONS.map((q) => [q.id, q.answer]));
  const wrongOf = (q) => q.choices.find((c) => c.value !== q.answer).value;

  test('right answers out of ten; unanswered ones are not right', () => {
    expect(scoreOf({})).toEqual({ answered: 0, correct: 0, max: 10, right: {} });
    expect(scoreOf(allRight)).toMatchObject({ answered: 10, correct: 10, max: 10 });
    const [a, b, c] = QUESTIONS;
    const some = { [a.id]: a.answer, [b.id]: wrongOf(b), [c.id]: c.answer, unknown: 'x' };
    expect(scoreOf(some)).toEqual({
      answered: 3,
      correct: 2,
      max: 10,
      right: { [a.id]: true, [b.id]: false, [c.id]: true },
    });
  });

  test('gain and normalized gain (post - pre)/(max - pre); undefined at pre = max', () => {
    expect(gainOf(4, 7, 10)).toEqual({ gain: 3, normalized: 0.5 });
    expect(gainOf(5, 3, 10)).toEqual({ gain: -2, normalized: -0.4 });
    expect(gainOf(0, 10, 10)).toEqual({ gain: 10, normalized: 1 });
    expect(gainOf(10, 9, 10)).toEqual({ gain: -1, normalized: null });
    expect(() => gainOf(11, 3, 10)).toThrow(/gain pre: expected an integer from 0 to 10, got 11/);
    expect(() => gainOf(1, 2.5, 10)).toThrow(RangeError);
  });
});

describe('the answers kept on the browser', () => {
  test('written and read back under attention-geometry:concept-check', () => {
    const storage = memory();
    const phases = { pre: { answers: { 'zero-score': 'opposed' }, at: '2026-03-02T10:00:00.000Z' }, post: null };
    expect(writeCheck(phases, storage)).toBe(true);
    expect(CHECK_STORAGE_KEY).toBe('attention-geometry:concept-check');
    expect(JSON.parse(storage.getItem(CHECK_STORAGE_KEY))).toEqual({ v: CHECK_VERSION, pre: phases.pre });
    expect(readCheck(storage)).toEqual(phases);
    expect(writeCheck({ pre: null, post: null }, storage)).toBe(true);
    expect(storage.map.size).toBe(0);
  });

  test('unknown questions, choices that are not choices and foreign text are left out', () => {
    const text = JSON.stringify({
      v: CHECK_VERSION,
      pre: { answers: { 'zero-score': 'perpendicular', 'key-length': 'twice', nope: 'same' }, at: 5 },
      post: 'x',
    });
    expect(decodeCheck(text)).toEqual({ pre: { answers: { 'zero-score': 'perpendicular' }, at: null }, post: null });
    for (const bad of ['', 'not json', '[]', '{"v":99,"pre":{"answers":{}}}', 'null'])
      expect(decodeCheck(bad)).toEqual({ pre: null, post: null });
    expect(decodeCheck(encodeCheck({ pre: null, post: { answers: {}, at: 'z' } }))).toEqual({
      pre: null,
      post: { answers: {}, at: 'z' },
    });
  });

  test('storage that throws gives no answers and a write that reports failure', () => {
    const broken = {
      getItem() {
        throw new Error('SecurityError');
      },
      setItem() {
        throw new Error('QuotaExceededError');
      },
    };
    expect(readCheck(broken)).toEqual({ pre: null, post: null });
    expect(writeCheck({ pre: { answers: {}, at: null }, post: null }, broken)).toBe(false);
  });
});

describe('xAPI statements and SCORM interactions', () => {
  const at = new Date(Date.UTC(2026, 2, 2, 10, 15, 30, 125));
  const question = QUESTIONS[7]; // mask-how

  test('answered: the question as a choice interaction, the phase in the context', () => {
    const s = checkAnsweredStatement({ page: PAGE, phase: 'pre', question, choice: 'zero-score', timestamp: at });
    expect(s).toEqual({
      verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { en: 'answered' } },
      object: {
        objectType: 'Activity',
        id: `${BASE}/mask-how`,
        definition: {
          name: { en: question.question },
          type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
          interactionType: 'choice',
          choices: question.choices.map((c) => ({ id: c.value, description: { en: c.label } })),
          correctResponsesPattern: ['minus-infinity'],
        },
      },
      result: { success: false, response: 'zero-score' },
      context: {
        contextActivities: {
          parent: [
            {
              objectType: 'Activity',
              id: `${BASE}/pre`,
              definition: {
                type: 'http://adlnet.gov/expapi/activities/assessment',
                name: { en: 'Concept check before the tour' },
              },
            },
          ],
          grouping: [
            {
              objectType: 'Activity',
              id: BASE,
              definition: { type: 'http://adlnet.gov/expapi/activities/assessment', name: { en: 'Concept check' } },
            },
          ],
        },
        extensions: { [`${BASE}/phase`]: 'pre' },
      },
      timestamp: '2026-03-02T10:15:30.125Z',
    });
    const post = checkAnsweredStatement({ page: PAGE, phase: 'post', question, choice: 'minus-infinity' });
    expect(post.object.id).toBe(s.object.id); // the same question in both phases
    expect(post.result.success).toBe(true);
    expect(post.context.extensions[`${BASE}/phase`]).toBe('post');
  });

  test('completed: the score per phase; the post-check carries the pre score and the normalized gain', () => {
    const pre = checkCompletedStatement({ page: PAGE, phase: 'pre', correct: 4, max: 10, timestamp: at });
    expect(pre.verb.id).toBe('http://adlnet.gov/expapi/verbs/completed');
    expect(pre.object.id).toBe(`${BASE}/pre`);
    expect(pre.result).toEqual({ completion: true, score: { raw: 4, min: 0, max: 10, scaled: 0.4 } });
    expect(pre.context.extensions).toEqual({ [`${BASE}/phase`]: 'pre' });
    const post = checkCompletedStatement({
      page: PAGE,
      phase: 'post',
      correct: 7,
      max: 10,
      pre: { correct: 4, normalized: 0.5 },
    });
    expect(post.object.id).toBe(`${BASE}/post`);
    expect(post.result).toEqual({
      completion: true,
      score: { raw: 7, min: 0, max: 10, scaled: 0.7 },
      extensions: { [`${BASE}/pre-score`]: 4, [`${BASE}/normalized-gain`]: 0.5 },
    });
    const top = checkCompletedStatement({
      page: PAGE,
      phase: 'post',
      correct: 9,
      max: 10,
      pre: { correct: 10, normalized: null },
    });
    expect(top.result.extensions).toEqual({ [`${BASE}/pre-score`]: 10 });
  });

  test('bad arguments are named', () => {
    expect(() => checkAnsweredStatement({ page: 'index.html', phase: 'pre', question, choice: 'zero-score' })).toThrow(
      /xAPI page: expected an absolute URL/,
    );
    expect(() => checkAnsweredStatement({ page: PAGE, phase: 'mid', question, choice: 'zero-score' })).toThrow(
      /xAPI phase: expected "pre" or "post", got "mid"/,
    );
    expect(() => checkAnsweredStatement({ page: PAGE, phase: 'pre', question, choice: 'maybe' })).toThrow(
      /xAPI choice: "maybe" is not a choice/,
    );
    expect(() =>
      checkAnsweredStatement({ page: PAGE, phase: 'pre', question: { ...question }, choice: 'zero-score' }),
    ).toThrow(/xAPI question/);
    expect(() => checkCompletedStatement({ page: PAGE, phase: 'pre', correct: 11, max: 10 })).toThrow(RangeError);
  });

  test('each answer is a SCORM 1.2 choice interaction concept-check.<phase>.<question>', () => {
    const s = checkAnsweredStatement({ page: PAGE, phase: 'post', question, choice: 'zero-value', timestamp: at });
    const values = Object.fromEntries(
      interactionValues(s, { chapter: 'concept-check', prediction: `post.${question.id}` }, 3),
    );
    const letter = (v) => 'abc'[question.choices.findIndex((c) => c.value === v)];
    expect(values).toMatchObject({
      'cmi.interactions.3.id': 'concept-check.post.mask-how',
      'cmi.interactions.3.type': 'choice',
      'cmi.interactions.3.student_response': letter('zero-value'),
      'cmi.interactions.3.correct_responses.0.pattern': letter('minus-infinity'),
      'cmi.interactions.3.result': 'wrong',
    });
  });
});
