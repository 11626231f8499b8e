// checkValue (web/widget/state.js): a value given from JS (the widget's
// `state` property) must already have its field's type. Text that would read
// as the right value ("4", " 2", ["4"], " random ") is refused, because the
// value is stored as given, not as the text form would read it.
import { describe, expect, test } from '@jest/globals';
import {
  bool,
  checkValue,
  choice,
  defineState,
  matrix,
  number,
  readStateValue,
  readValue,
  vector,
} from '../../web/widget/state.js';

const n = number({ min: 1, max: 8, integer: true, default: 2 });
const e = choice({ values: ['random', 'named'], default: 'named' });
const b = bool({ default: false });
const v = vector({ length: 2, min: -10, max: 10, default: [1, 1] });
const m = matrix({
  rows: 2,
  cols: 2,
  min: -10,
  max: 10,
  default: [
    [1, 0],
    [0, 1],
  ],
});

describe('values of the right type and range are accepted', () => {
  test.each([
    [n, 4],
    [e, 'random'],
    [b, true],
    [v, [3, -4]],
    [v, new Float32Array([3, -4])],
    [
      m,
      [
        [1, 2],
        [3, 4],
      ],
    ],
  ])('%#', (spec, value) => {
    expect(checkValue(spec, value)).toBeNull();
  });
});

describe('values of another type are refused with what the field expects', () => {
  test.each([
    ['a number as text', n, '4'],
    ['a number as text with a space', n, ' 2'],
    ['a number in an array', n, [4]],
    ['a Number object', n, Object(4)],
    ['a choice with spaces', e, ' random '],
    ['a choice that is not a string', e, 4],
    ['a boolean as 1', b, 1],
    ['a boolean as text', b, 'true'],
    ['a vector of text', v, ['3', '4']],
    ['a vector with NaN', v, [3, NaN]],
    [
      'a matrix of text',
      m,
      [
        ['1', '2'],
        ['3', '4'],
      ],
    ],
    ['a number out of range', n, 9],
    ['a fraction for a whole number', n, 2.5],
  ])('%s', (_what, spec, value) => {
    const error = checkValue(spec, value);
    expect(typeof error).toBe('string');
    expect(error.length).toBeGreaterThan(0);
  });
});

describe('the note says what is wrong with a value', () => {
  test('a value of another type is told its type, since its text may fit', () => {
    expect(checkValue(n, '4')).toBe('a whole number from 1 to 8, as a JS number (not a string)');
    expect(checkValue(n, [4])).toBe('a whole number from 1 to 8, as a JS number (not an array)');
    expect(checkValue(n, null)).toBe('a whole number from 1 to 8, as a JS number (not null)');
    expect(checkValue(e, 4)).toBe('one of random, named, as a JS string (not a number)');
    expect(checkValue(b, 1)).toBe('true or false (not a number)');
    // Of the right type but outside the field: what the field accepts.
    expect(checkValue(n, 9)).toBe('a whole number from 1 to 8');
  });

  test('a number field with a list of values accepts those only, and says so', () => {
    const sizes = number({ values: [512, 1024, 2048, 4096], integer: true, default: 2048 });
    expect([sizes.min, sizes.max]).toEqual([512, 4096]);
    expect(checkValue(sizes, 1024)).toBeNull();
    expect(checkValue(sizes, 1000)).toBe('one of 512, 1024, 2048, 4096');
    expect(readValue(sizes, '1000')).toEqual({ error: 'one of 512, 1024, 2048, 4096' });
    expect(readValue(sizes, '4096')).toEqual({ value: 4096 });
    expect(() => number({ values: [], default: 1 })).toThrow('values must be a list of numbers');
    expect(() => number({ values: [1, 2], default: 3 })).toThrow('the default does not satisfy its own declaration');
  });
});

describe('the state property: what the note says of each value refused', () => {
  const decl = defineState({ version: 1, fields: { a: v, m, t: n } });
  const problemsOf = (value) =>
    readStateValue(decl, value).problems.map((p) => `${p.name}=${p.value} \u2014 expected ${p.expected}`);

  test('a list given as its text form: an array is expected, and the text was a string', () => {
    expect(problemsOf({ a: '1,2' })).toEqual([
      'a=1,2 \u2014 expected an array of 2 numbers, each from \u221210 to 10 (not a string)',
    ]);
    expect(problemsOf({ m: '1,0;0,1' })).toEqual([
      'm=1,0;0,1 \u2014 expected an array of 2 rows, each an array of 2 numbers, from \u221210 to 10 (not a string)',
    ]);
    // An array of the wrong length, or of text: an array is still what is asked for.
    expect(checkValue(v, [1, 2, 3])).toBe('an array of 2 numbers, each from \u221210 to 10');
    expect(checkValue(v, ['3', '4'])).toBe('an array of 2 numbers, each from \u221210 to 10');
  });

  test('NaN and Infinity are shown as JS writes them, not as JSON\u2019s null', () => {
    expect(
      problemsOf({
        t: NaN,
        a: [3, NaN],
        m: [
          [Infinity, 0],
          [0, -Infinity],
        ],
      }),
    ).toEqual([
      'a=[3,NaN] \u2014 expected an array of 2 numbers, each from \u221210 to 10',
      'm=[[Infinity,0],[0,-Infinity]] \u2014 expected an array of 2 rows, each an array of 2 numbers, from \u221210 to 10',
      't=NaN \u2014 expected a whole number from 1 to 8',
    ]);
  });

  test('a name that is no field: said so, with the widget\u2019s fields; the fields given keep their values', () => {
    const { state, problems } = readStateValue(decl, { T: 2, t: 3 });
    expect(problems.map((p) => `${p.name}=${p.value} \u2014 expected ${p.expected}`)).toEqual([
      'T=2 \u2014 expected no such name: it is not a field of this widget; its fields are a, m and t',
    ]);
    expect(state.t).toBe(3);
  });
});
