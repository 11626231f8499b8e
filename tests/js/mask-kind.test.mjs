// A mask's kind is explicit: booleans and Uint8Array are boolean (true/1 =
// may attend; for keyPaddingMask, ignored), Float32Array/Float64Array and
// number arrays additive, and a number array of only 0s and 1s is refused as
// ambiguous unless options.maskKind says which it is. Expected weights come
// from the float64 reference (tests/reference/float64.mjs), on every build.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, init } from './helpers.mjs';

const x = [1, 2, 3];
const close = (got, want) => want.forEach((w, i) => expect(Math.abs(got[i] - w)).toBeLessThanOrEqual(1e-6));

describe.each(CONFIGS)('maskKind: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });
  {
    test('a number array of only 0s and 1s is refused, naming the mask, its shape and both ways out', () => {
      for (const mask of [[1, 0, 1], [0, 0, 0], { data: [1, 1, 0], shape: [3] }]) {
        expect(() => ag.softmax(x, { mask })).toThrow(TypeError);
        expect(() => ag.softmax(x, { mask })).toThrow(
          /softmax: mask \[3\] is a number array of only 0s and 1s, which is ambiguous.*Pass booleans or a Uint8Array.*maskKind/,
        );
      }
      const I = [
        [1, 0],
        [0, 1],
      ];
      expect(() => ag.attention(I, I, I, { mask: [1, 0] })).toThrow(
        /attention: mask \[2\] is a number array of only 0s and 1s/,
      );
      expect(() =>
        ag.multiHeadAttention(
          { query: I, key: I, value: I },
          { wQ: I, wK: I, wV: I, wO: I },
          { numHeads: 1, keyPaddingMask: [0, 1] },
        ),
      ).toThrow(/keyPaddingMask \[2\] is a number array of only 0s and 1s.*1 as ignore/);
    });

    test("maskKind 'boolean' reads 1 as may attend; 'additive' adds the numbers; both match the float64 reference", () => {
      close(
        ag.softmax(x, { mask: [1, 0, 1], maskKind: 'boolean' }).data,
        ref.softmax(x, 1, 3, { mask: [0, -Infinity, 0] }),
      );
      close(ag.softmax(x, { mask: [true, false, true] }).data, ref.softmax(x, 1, 3, { mask: [0, -Infinity, 0] }));
      close(ag.softmax(x, { mask: Uint8Array.of(1, 0, 1) }).data, ref.softmax(x, 1, 3, { mask: [0, -Infinity, 0] }));
      close(ag.softmax(x, { mask: [1, 0, 1], maskKind: 'additive' }).data, ref.softmax(x, 1, 3, { mask: [1, 0, 1] }));
      close(ag.softmax(x, { mask: Float32Array.of(1, 0, 1) }).data, ref.softmax(x, 1, 3, { mask: [1, 0, 1] }));
      close(ag.softmax(x, { mask: [0, -Infinity, 0.5] }).data, ref.softmax(x, 1, 3, { mask: [0, -Infinity, 0.5] }));
    });

    test('a stated kind that contradicts the mask, or an unknown kind, is an error that names it', () => {
      expect(() => ag.softmax(x, { mask: [true, false, true], maskKind: 'additive' })).toThrow(
        /softmax: options.maskKind is 'additive' but mask \[3\] is a boolean mask/,
      );
      expect(() => ag.softmax(x, { mask: Float32Array.of(0, 1, 0), maskKind: 'boolean' })).toThrow(
        /options.maskKind is 'boolean' but mask \[3\] is an additive mask/,
      );
      expect(() => ag.softmax(x, { mask: [0, 2, 0], maskKind: 'boolean' })).toThrow(RangeError);
      expect(() => ag.softmax(x, { mask: [true, true, true], maskKind: 'bool' })).toThrow(
        /softmax: options.maskKind must be 'additive' or 'boolean'; got the string "bool"/,
      );
    });
  }
});
