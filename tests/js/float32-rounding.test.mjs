// A number is accepted wherever the module takes float32 when it rounds to a finite float32
// (Math.fround of it is finite), and refused only when it rounds to +-Infinity: 3.4028235e38, the
// largest float32 as NumPy prints it, rounds to FLT_MAX and is accepted, as a tensor value and as a
// number option. The boundary, 2^128 - 2^103 (FLT_MAX plus half an ulp), ties to even: to Infinity.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init, thrownBy } from './helpers.mjs';

/** FLT_MAX = (2 - 2^-23) 2^127, from its definition. */
const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;
/** FLT_MAX as numpy.finfo(numpy.float32).max prints it. */
const NUMPY_FLT_MAX = 3.4028235e38;
/** The least number that rounds to Infinity in float32: FLT_MAX + 2^103 (half an ulp), a tie. */
const OVERFLOW = 2 ** 128 - 2 ** 103;
/** The double just below OVERFLOW (its ulp is 2^75 there): rounds to FLT_MAX. */
const BELOW = OVERFLOW - 2 ** 75;

test('the constants round as stated (IEEE 754 round to nearest, ties to even)', () => {
  expect(Math.fround(NUMPY_FLT_MAX)).toBe(FLT_MAX);
  expect(Math.fround(BELOW)).toBe(FLT_MAX);
  expect(Math.fround(OVERFLOW)).toBe(Infinity);
});

describe.each(CONFIGS)('numbers that round to a finite float32: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test.each([
    ['3.4028235e38', NUMPY_FLT_MAX],
    ['the last double below the boundary', BELOW],
  ])('options.scale = %s is taken as FLT_MAX', (title, scale) => {
    // Q = 0 makes every score 0 whatever the scale: the call must give what it gives with FLT_MAX itself.
    const args = [
      [[0, 0]],
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 0],
        [0, 1],
      ],
    ];
    const want = ag.attention(...args, { scale: FLT_MAX }).output;
    expect(ag.attention(...args, { scale }).output).toEqual(want);
  });

  test('options.temperature = 3.4028235e38 is taken as FLT_MAX', () => {
    const want = ag.softmax([1, 2], { temperature: FLT_MAX });
    expect(ag.softmax([1, 2], { temperature: NUMPY_FLT_MAX })).toEqual(want);
  });

  test.each([
    ['a number array', (v) => [v, 0]],
    ['a Float64Array', (v) => Float64Array.of(v, 0)],
    ['{data, shape} of numbers', (v) => ({ data: [v, 0], shape: [2] })],
  ])('a value of 3.4028235e38 in %s is taken as FLT_MAX', (title, form) => {
    const want = ag.softmax(Float32Array.of(FLT_MAX, 0));
    expect(ag.softmax(form(NUMPY_FLT_MAX))).toEqual(want);
    expect(ag.softmax(form(BELOW))).toEqual(want);
    expect(ag.softmax(form(-NUMPY_FLT_MAX))).toEqual(ag.softmax(Float32Array.of(-FLT_MAX, 0)));
  });

  test.each([
    ['options.scale', (v) => ag.attention([[1, 2]], [[1, 2]], [[1, 2]], { scale: v })],
    ['options.temperature', (v) => ag.softmax([1, 2], { temperature: v })],
    ['x[0]', (v) => ag.softmax([v, 0])],
    ['x[0]', (v) => ag.softmax(Float64Array.of(v, 0))],
  ])('%s that rounds to Infinity is refused', (name, call) => {
    for (const v of [OVERFLOW, -OVERFLOW, 1e39]) {
      if (name === 'options.temperature' && v < 0) continue; // a negative temperature is refused as <= 0
      const e = thrownBy(() => call(v));
      expect([v, e && e.constructor.name]).toEqual([v, 'RangeError']);
      expect(e.message).toContain(name);
      expect(e.message).toContain('finite in float32');
    }
  });
});
