// stepped (web/widget/inputs.js): what an arrow key does to a number field's
// text. Expected values are decimal arithmetic done by hand: the field shows
// what the browser's own stepping would (2.3 - 1 = 1.3, not the binary
// 1.2999999999999998), clamped to the field's range; text that is not a plain
// decimal number is left to the browser (null).
import { describe, expect, test } from '@jest/globals';
import { stepped } from '../../web/widget/inputs.js';

const spec = { min: -10, max: 10 };

describe('number fields: arrow-key stepping', () => {
  test.each([
    ['2.3', -1, 1.3],
    ['0.1', 1, 1.1],
    ['0.7', -1, -0.3],
    ['1.50', 1, 2.5],
    ['-0.25', 1, 0.75],
    ['4', 1, 5],
    [' 4 ', -1, 3],
    ['\u22121', 1, 0],
    ['.5', 1, 1.5],
  ])('%j stepped by %d is %d', (text, dir, value) => {
    expect(stepped(text, dir, spec)).toBe(value);
  });

  test('the range clamps the step', () => {
    expect(stepped('9.5', 1, spec)).toBe(10);
    expect(stepped('10', 1, spec)).toBe(10);
    expect(stepped('-9.75', -1, spec)).toBe(-10);
  });

  test('text that is not a plain number in range is left to the browser', () => {
    for (const text of ['', 'abc', '1e3', '1,5', '11', 'Infinity', '--1']) expect(stepped(text, 1, spec)).toBeNull();
  });
});
