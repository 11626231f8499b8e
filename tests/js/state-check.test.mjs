// The state codec's whole-state rules (web/widget/state.js, no DOM): the
// optional cross-field check of a declaration (fields reset to their
// defaults, reported like any other ignored value), names that are not
// fields in the text form, and names given twice.
import { describe, expect, test } from '@jest/globals';
import { checkState, choice, decodeState, defineState, number, vector } from '../../web/widget/state.js';

// A small declaration shaped like the multi-head chapter's: h must divide d.
const divides = defineState({
  version: 1,
  fields: {
    d: choice({ values: ['4', '6', '12'], default: '12' }),
    h: number({ min: 1, max: 12, integer: true, default: 3 }),
    note: number({ min: 0, max: 9, integer: true, default: 0 }),
  },
  check: (s) => {
    const d = Number(s.d);
    if (d % s.h === 0) return [];
    const out = [{ name: 'h', value: String(s.h), expected: `a divisor of ${d}` }];
    if (d % 3 !== 0) out.push({ name: 'd', value: s.d, expected: 'a d that h divides' });
    return out;
  },
});

// Two vectors of one length.
const pair = defineState({
  version: 1,
  fields: {
    a: vector({ minLength: 1, maxLength: 4, min: -9, max: 9, default: [1, 2] }),
    b: vector({ minLength: 1, maxLength: 4, min: -9, max: 9, default: [3, 4] }),
  },
  // Names b only, even when a's length is not the default's: the codec must still settle.
  check: (s) =>
    s.a.length === s.b.length ? [] : [{ name: 'b', value: s.b.join(','), expected: 'as many numbers as a' }],
});

describe('cross-field check', () => {
  test('h = 5 with d = 12: h goes back to 3, the other fields are kept, one problem names h', () => {
    const { state, problems } = decodeState(divides, 'v=1&d=12&h=5&note=7');
    expect(state).toEqual({ d: '12', h: 3, note: 7 });
    expect(problems).toEqual([{ name: 'h', value: '5', expected: 'a divisor of 12' }]);
  });

  test('h = 3 with d = 4: both go back to their defaults, and both are reported', () => {
    const { state, problems } = decodeState(divides, 'v=1&d=4&h=3');
    expect(state).toEqual({ d: '12', h: 3, note: 0 });
    expect(problems.map((p) => p.name)).toEqual(['h', 'd']);
  });

  test('a state that passes is returned as it is', () => {
    expect(decodeState(divides, 'v=1&d=6&h=2').problems).toEqual([]);
    expect(decodeState(divides, 'v=1&d=6&h=2').state).toEqual({ d: '6', h: 2, note: 0 });
  });

  test('the check applies to URL parameters too (the page address)', () => {
    const { state, problems } = decodeState(divides, new URLSearchParams('ch=x&v=1&d=12&h=5'));
    expect(state.h).toBe(3);
    expect(problems.map((p) => p.name)).toEqual(['h']);
  });

  test('a check that names too few fields still ends in a state that passes (the defaults)', () => {
    const { state, problems } = decodeState(pair, 'v=1&a=1,2,3&b=1');
    // Resetting b alone gives lengths 3 and 2; then everything goes back.
    expect(state).toEqual({ a: [1, 2], b: [3, 4] });
    expect(problems.map((p) => p.name)).toEqual(['b']);
    const fixed = decodeState(pair, 'v=1&a=5,6&b=1');
    expect(fixed.state).toEqual({ a: [5, 6], b: [3, 4] });
  });

  test('an index past the end of its list (the chapters\u2019 query and words): the index goes back, and the list too when the default index does not fit it', () => {
    const indexed = defineState({
      version: 1,
      fields: {
        list: vector({ minLength: 2, maxLength: 6, min: 0, max: 9, default: [1, 2, 3, 4, 5] }),
        at: number({ min: 1, max: 6, integer: true, default: 4 }),
      },
      check: (s) => {
        if (s.at <= s.list.length) return [];
        const out = [{ name: 'at', value: String(s.at), expected: `from 1 to ${s.list.length}` }];
        if (4 > s.list.length) out.push({ name: 'list', value: s.list.join(','), expected: 'at least 4 numbers' });
        return out;
      },
    });
    const kept = decodeState(indexed, 'v=1&list=1,1,1,1,1&at=6');
    expect(kept.state).toEqual({ list: [1, 1, 1, 1, 1], at: 4 });
    expect(kept.problems).toEqual([{ name: 'at', value: '6', expected: 'from 1 to 5' }]);
    const both = decodeState(indexed, 'v=1&list=7,7,7&at=5');
    expect(both.state).toEqual({ list: [1, 2, 3, 4, 5], at: 4 });
    expect(both.problems.map((p) => p.name)).toEqual(['at', 'list']);
  });

  test('checkState leaves its input alone', () => {
    const input = { d: '12', h: 5, note: 1 };
    const { state } = checkState(divides, input);
    expect(input).toEqual({ d: '12', h: 5, note: 1 });
    expect(state).toEqual({ d: '12', h: 3, note: 1 });
  });

  test('a declaration whose defaults fail their own check is refused', () => {
    expect(() =>
      defineState({
        version: 1,
        fields: { h: number({ min: 1, max: 9, integer: true, default: 5 }) },
        check: (s) => (s.h === 5 ? [{ name: 'h', value: '5', expected: 'not 5' }] : []),
      }),
    ).toThrow(/defaults/);
  });
});

describe('names in the text form', () => {
  test('names of another widget are reported, with this widget\u2019s fields listed; the state keeps its defaults', () => {
    const { state, problems } = decodeState(divides, 'v=1&a=3,4&b=4,3');
    expect(state).toEqual({ d: '12', h: 3, note: 0 });
    expect(problems.map((p) => [p.name, p.value])).toEqual([
      ['a', '3,4'],
      ['b', '4,3'],
    ]);
    expect(problems[0].expected).toMatch(/not a field of this widget; its fields are d, h and note/);
  });

  test('__proto__ and constructor are names like any other: reported, and nothing is set from them', () => {
    const { state, problems } = decodeState(divides, 'v=1&__proto__=1&constructor=2&h=4');
    expect(problems.map((p) => p.name)).toEqual(['__proto__', 'constructor']);
    expect(state).toEqual({ d: '12', h: 4, note: 0 });
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
  });

  test('a field given twice is reported and the first is used', () => {
    const { state, problems } = decodeState(divides, 'v=1&h=4&h=6');
    expect(state.h).toBe(4);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ name: 'h', value: '6' });
  });

  test('URL parameters: other names are left alone, a field given twice is still reported', () => {
    expect(decodeState(divides, new URLSearchParams('ch=x&impl=scalar&agtest=1&h=4')).problems).toEqual([]);
    const twice = decodeState(divides, new URLSearchParams('ch=x&ch=y&h=4&h=2'));
    expect(twice.state.h).toBe(4);
    expect(twice.problems.map((p) => p.name)).toEqual(['h']);
  });
});
