// What the SCORM package reports under the author's policy (web/scorm/policy.js,
// report.js): completion needs every chapter's widget used by default (going
// through by scrolling is not enough), an optional time floor over all
// sessions, and a score that can be turned off; the policy's text form, the
// command line of scripts/scorm.mjs, suspend data with the used chapters, and
// CMITimespan reading. Expected values are written from the SCORM 1.2
// run-time data model and the policy's documented rules.
import { describe, expect, test } from '@jest/globals';
import { optionsFromArgs } from '../../scripts/scorm.mjs';
import { checkPolicy, DEFAULT_POLICY, describePolicy, parsePolicy, policyText } from '../../web/scorm/policy.js';
import { cmiValues, completes } from '../../web/scorm/report.js';
import { decodeSuspendData, encodeSuspendData } from '../../web/scorm/suspend-data.js';
import { parseTimespan } from '../../web/scorm/timespan.js';

const ALL = ['a', 'b', 'c'];
const snap = (over = {}) => ({
  visited: ALL,
  used: [],
  total: 3,
  current: 'c',
  score: { answered: 2, correct: 1, total: 3 },
  predictions: {},
  minutes: 1,
  ...over,
});
const status = (values) => values.find(([k]) => k === 'cmi.core.lesson_status')?.[1] ?? null;
const raw = (values) => values.find(([k]) => k === 'cmi.core.score.raw')?.[1] ?? null;

describe('completion', () => {
  test('by default, every chapter gone through (scrolled past) is not enough: every widget must be used', () => {
    expect(status(cmiValues(snap(), 'incomplete'))).toBeNull();
    expect(status(cmiValues(snap({ used: ['a', 'b'] }), 'incomplete'))).toBeNull();
    expect(status(cmiValues(snap({ used: ALL }), 'incomplete'))).toBe('completed');
  });
  test("'visited' keeps the older rule", () => {
    const policy = checkPolicy({ completion: 'visited' });
    expect(status(cmiValues(snap(), 'incomplete', 'normal', policy))).toBe('completed');
    expect(status(cmiValues(snap({ visited: ['a'] }), 'incomplete', 'normal', policy))).toBeNull();
  });
  test('a time floor: all widgets used but fewer minutes than the floor is not complete', () => {
    const policy = checkPolicy({ minMinutes: 10 });
    expect(completes(snap({ used: ALL, minutes: 9.99 }), policy)).toBe(false);
    expect(completes(snap({ used: ALL, minutes: 10 }), policy)).toBe(true);
    expect(status(cmiValues(snap({ used: ALL, minutes: 12 }), 'incomplete', 'normal', policy))).toBe('completed');
  });
  test('a completed or passed status is never written again', () => {
    expect(status(cmiValues(snap({ used: ALL }), 'completed'))).toBeNull();
    expect(status(cmiValues(snap({ used: ALL }), 'passed'))).toBeNull();
  });
});

describe('one chapter (completion "asked")', () => {
  const CHAPTER = checkPolicy({}, 'chapter');
  const one = (over) =>
    snap({ visited: ['c'], total: 1, asked: ['p1'], score: { answered: 0, correct: 0, total: 1 }, ...over });
  test('complete once every asked prediction has a first answer; using the widget is not enough', () => {
    expect(status(cmiValues(one({ used: ['c'] }), 'incomplete', 'normal', CHAPTER))).toBeNull();
    const answered = one({ used: ['c'], predictions: { p1: { choice: 'x', correct: false } } });
    expect(status(cmiValues(answered, 'incomplete', 'normal', CHAPTER))).toBe('completed');
    expect(completes({ ...one(), asked: ['p1', 'p2'], predictions: { p1: {} } }, CHAPTER)).toBe(false);
  });
  test('with no prediction asked, complete once the widget is used; no score is sent', () => {
    const none = one({ asked: [], score: { answered: 0, correct: 0, total: 0 } });
    expect(status(cmiValues(none, 'incomplete', 'normal', CHAPTER))).toBeNull();
    const values = cmiValues({ ...none, used: ['c'] }, 'incomplete', 'normal', CHAPTER);
    expect(status(values)).toBe('completed');
    expect(raw(values)).toBeNull();
  });
  test('the score is the asked predictions right at the first answer; the time floor applies', () => {
    const half = one({ asked: ['p1', 'p2'], score: { answered: 2, correct: 1, total: 2 } });
    expect(raw(cmiValues(half, 'incomplete', 'normal', CHAPTER))).toBe('50');
    const timed = checkPolicy({ minMinutes: 5 }, 'chapter');
    expect(completes(one({ predictions: { p1: {} }, minutes: 4 }), timed)).toBe(false);
    expect(completes(one({ predictions: { p1: {} }, minutes: 5 }), timed)).toBe(true);
  });
  test('the learner is told the chapter\u2019s rule', () => {
    expect(describePolicy(CHAPTER, { asked: 1 })).toBe(
      'This chapter is complete once you have answered its prediction. The score is 100 if your first answer to its prediction is right, else 0: it records what you expected before seeing the result, not a grade of what you learned.',
    );
    expect(describePolicy(checkPolicy({ minMinutes: 2 }, 'chapter'), { asked: 0 })).toBe(
      'This chapter is complete once you have used its widget (changed something in it or answered its prediction) and spent at least 2 minutes in it. No score is reported.',
    );
    expect(parsePolicy('completion=asked; min-minutes=0; score=none', 'chapter')).toEqual({
      completion: 'asked',
      minMinutes: 0,
      score: 'none',
    });
    expect(() => parsePolicy('completion=asked')).toThrow(/not one of used, visited/);
  });
});

describe('score', () => {
  test('by default the right first answers over the chapters with a prediction, 0..100', () => {
    expect(raw(cmiValues(snap(), 'incomplete'))).toBe('33'); // 1 of 3
  });
  test("score 'none' sends no score element at all", () => {
    const values = cmiValues(snap(), 'incomplete', 'normal', checkPolicy({ score: 'none' }));
    expect(values.filter(([k]) => k.startsWith('cmi.core.score'))).toEqual([]);
  });
  test('the learner is told what completes the course and what the score counts', () => {
    expect(describePolicy(DEFAULT_POLICY)).toMatch(/complete once you have used every chapter.s widget\./);
    expect(describePolicy(DEFAULT_POLICY)).toMatch(
      /share of chapters whose prediction you got right at the first answer/,
    );
    const timed = describePolicy({ completion: 'visited', minMinutes: 1, score: 'none' });
    expect(timed).toBe(
      'This course is complete once you have gone through every chapter and spent at least 1 minute in it. No score is reported.',
    );
  });
});

describe('the policy as text, options and checks', () => {
  test('text form round-trips', () => {
    const p = checkPolicy({ completion: 'visited', minMinutes: 15, score: 'none' });
    expect(policyText(p)).toBe('completion=visited; min-minutes=15; score=none');
    expect(parsePolicy(policyText(p))).toEqual(p);
    expect(parsePolicy('')).toEqual(DEFAULT_POLICY);
  });
  test('bad settings name the setting, the value and what is allowed', () => {
    expect(() => checkPolicy({ completion: 'scrolled' })).toThrow(RangeError);
    expect(() => checkPolicy({ completion: 'scrolled' })).toThrow(/completion: "scrolled" is not one of used, visited/);
    expect(() => checkPolicy({ minMinutes: -1 })).toThrow(/minMinutes: -1 is not a whole number from 0 to 600/);
    expect(() => checkPolicy({ minMinutes: 1.5 })).toThrow(RangeError);
    expect(() => checkPolicy({ grade: 'a' })).toThrow(TypeError);
    expect(() => parsePolicy('score=all')).toThrow(/score: "all" is not one of predictions, none/);
    expect(() => parsePolicy('min-minutes=ten')).toThrow(/minMinutes: "ten"/);
  });
  test('the command line of the package build', () => {
    const policyFromArgs = (args) => optionsFromArgs(args).policy;
    expect(policyFromArgs([])).toEqual(DEFAULT_POLICY);
    expect(policyFromArgs(['--completion=visited', '--min-minutes=5', '--score=none'])).toEqual({
      completion: 'visited',
      minMinutes: 5,
      score: 'none',
    });
    expect(() => policyFromArgs(['--completion=all'])).toThrow(/completion: "all"/);
    expect(() => policyFromArgs(['--fast'])).toThrow(/unknown option --fast/);
    // One chapter: its own completion rule by default, the course's options where they apply.
    expect(policyFromArgs(['--ch', 'length'])).toEqual({ completion: 'asked', minMinutes: 0, score: 'predictions' });
    expect(policyFromArgs(['--ch', 'length', '--completion', 'used', '--min-minutes', '3', '--score', 'none'])).toEqual(
      { completion: 'used', minMinutes: 3, score: 'none' },
    );
    expect(() => policyFromArgs(['--ch', 'length', '--completion=visited'])).toThrow(
      /^--completion: "visited" is not one of asked, used for a one-chapter package$/,
    );
    expect(() => policyFromArgs(['--completion=asked'])).toThrow(/not one of used, visited for a whole-course package/);
    expect(() => policyFromArgs(['--ch', 'length', '--min-minutes', '601'])).toThrow(/^--min-minutes: 601 is not/);
  });
});

describe('what is saved and read back', () => {
  test('suspend data keeps the used chapters; a record written before them reads as none used', () => {
    const text = encodeSuspendData({
      visited: ['a', 'b'],
      used: ['b'],
      predictions: { b: { choice: 'x', correct: true } },
    });
    expect(JSON.parse(text)).toEqual({ v: 1, seen: ['a', 'b'], u: ['b'], p: { b: ['x', 1] } });
    expect(decodeSuspendData(text)).toEqual({
      visited: ['a', 'b'],
      used: ['b'],
      predictions: { b: { choice: 'x', correct: true } },
    });
    expect(decodeSuspendData('{"v":1,"seen":["a"],"p":{}}')).toEqual({ visited: ['a'], used: [], predictions: {} });
  });
  test('a one-chapter package keeps the widget\u2019s state too; past 4096 characters the state goes first', () => {
    const progress = { visited: ['c'], used: [], predictions: { p1: { choice: 'x', correct: true } } };
    const text = encodeSuspendData({ ...progress, state: 'v=1&t=2' });
    expect(JSON.parse(text)).toEqual({ v: 1, seen: ['c'], u: [], p: { p1: ['x', 1] }, s: 'v=1&t=2' });
    expect(decodeSuspendData(text)).toEqual({ ...progress, state: 'v=1&t=2' });
    const long = JSON.parse(encodeSuspendData({ ...progress, state: 'x'.repeat(5000) }));
    expect(long).toEqual({ v: 1, seen: ['c'], u: [], p: { p1: ['x', 1] } });
  });
  test('cmi.core.total_time (CMITimespan) in milliseconds; anything else is null', () => {
    expect(parseTimespan('0000:00:00')).toBe(0);
    expect(parseTimespan('00:10:00')).toBe(600000);
    expect(parseTimespan('0001:02:03.4')).toBe(3723400);
    expect(parseTimespan('12:00:00.25')).toBe(43200250);
    for (const bad of ['', null, undefined, '1:00:00', '00:60:00', '00:00:00.123', 'PT10M'])
      expect(parseTimespan(bad)).toBeNull();
  });
});
