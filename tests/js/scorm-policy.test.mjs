// What the SCORM package reports under the author's policy (web/scorm/policy.js,
// report.js): completion needs every chapter's widget used by default (going
// through by scrolling is not enough), an optional time floor over all
// sessions, and a score that can be turned off; the policy's text form, the
// command line of scripts/scorm.mjs, suspend data with the used chapters, and
// CMITimespan reading. Expected values are written from the SCORM 1.2
// run-time data model and the policy's documented rules.
import { describe, expect, test } from '@jest/globals';
import { policyFromArgs } from '../../scripts/scorm.mjs';
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
    expect(policyFromArgs([])).toEqual(DEFAULT_POLICY);
    expect(policyFromArgs(['--completion=visited', '--min-minutes=5', '--score=none'])).toEqual({
      completion: 'visited',
      minMinutes: 5,
      score: 'none',
    });
    expect(() => policyFromArgs(['--completion=all'])).toThrow(/completion: "all"/);
    expect(() => policyFromArgs(['--fast'])).toThrow(/unknown option --fast/);
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
  test('cmi.core.total_time (CMITimespan) in milliseconds; anything else is null', () => {
    expect(parseTimespan('0000:00:00')).toBe(0);
    expect(parseTimespan('00:10:00')).toBe(600000);
    expect(parseTimespan('0001:02:03.4')).toBe(3723400);
    expect(parseTimespan('12:00:00.25')).toBe(43200250);
    for (const bad of ['', null, undefined, '1:00:00', '00:60:00', '00:00:00.123', 'PT10M'])
      expect(parseTimespan(bad)).toBeNull();
  });
});
