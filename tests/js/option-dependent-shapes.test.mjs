// Shapes that an option fixes are judged once that option was read, and no
// other argument is judged against them before: multiHeadAttention's wV, bK
// and bV are not compared with a wK whose columns (fixed by numHeads and
// kvHeads) were not yet checked, and matmul's batch axes, which no option
// moves, are judged before the options.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, thrownBy, warmInstance } from './helpers.mjs';
import { I4 } from './small-inputs.mjs';

/** A [4, 2] weight: right for kvHeads d_k = 2 (numHeads 2, kvHeads 1), wrong for 4 columns. */
const NARROW = [
  [1, 0],
  [0, 1],
  [0, 0],
  [0, 0],
];
const query = { query: [[1, 2, 3, 4]] };
/** multiHeadAttention on one token of d_model = 4, with identity weights but for those in `weights`. */
const mha = (ag, weights, options = { numHeads: 2 }) =>
  ag.multiHeadAttention(query, { wQ: I4, wK: I4, wV: I4, wO: I4, ...weights }, options);

/** [title, call, the start of the message, the class of the error]. */
const CASES = [
  [
    'wK of 2 columns where numHeads 2 fixes 4, wV right: wK is named',
    (ag) => mha(ag, { wK: NARROW, wV: I4 }),
    'multiHeadAttention: wK has shape [4, 2] but [d_model, kvHeads d_k] = [4, 4]',
    RangeError,
  ],
  [
    'wK and wV both of 2 columns where 4 are fixed: wK is named',
    (ag) => mha(ag, { wK: NARROW, wV: NARROW }),
    'multiHeadAttention: wK has shape [4, 2] but [d_model, kvHeads d_k] = [4, 4]',
    RangeError,
  ],
  [
    'wK right, wV of 2 columns: wV is named against the options, not against wK',
    (ag) => mha(ag, { wK: I4, wV: NARROW }),
    'multiHeadAttention: wV has shape [4, 2] but [d_model, kvHeads d_k] = [4, 4]',
    RangeError,
  ],
  [
    'wK wrong, wV right, numHeads 3 not dividing d_model: numHeads is named',
    (ag) => mha(ag, { wK: NARROW, wV: I4 }, { numHeads: 3 }),
    'multiHeadAttention: options.numHeads = 3 does not divide d_model = 4',
    RangeError,
  ],
  [
    'wK wrong, bK of its length: wK is named, not bK',
    (ag) => mha(ag, { wK: NARROW, wV: I4, bK: [0, 0] }),
    'multiHeadAttention: wK has shape [4, 2]',
    RangeError,
  ],
  [
    'wK right, bV of 2 where kvHeads d_k = 4: bV is named',
    (ag) => mha(ag, { wK: I4, wV: I4, bV: [0, 0] }),
    'multiHeadAttention: bV has shape [2] but [kvHeads d_k] = [4]',
    RangeError,
  ],
  [
    'matmul: batch axes that do not broadcast come before a bad option',
    (ag) =>
      ag.matmul(
        { data: new Float32Array(12), shape: [2, 2, 3] },
        { data: new Float32Array(18), shape: [3, 3, 2] },
        { transposeB: 1 },
      ),
    'matmul: B has shape [3, 3, 2]',
    RangeError,
  ],
];

describe.each(CONFIGS)('shapes fixed by options: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test.each(CASES)('%s', (title, call, start, kind) => {
    const e = thrownBy(() => call(ag));
    expect(e).toBeInstanceOf(kind);
    expect(e.message.slice(0, start.length)).toBe(start);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('the same weights with the options that fit them are accepted (the cases above are not vacuous)', () => {
    // numHeads 2 with kvHeads 1: d_k = 2, and wK, wV of kvHeads d_k = 2 columns.
    const r = ag.multiHeadAttention(
      query,
      { wQ: I4, wK: NARROW, wV: NARROW, wO: I4, bK: [0, 0] },
      { numHeads: 2, kvHeads: 1 },
    );
    expect(r.output.shape).toEqual([1, 4]);
    expect(
      ag.matmul({ data: new Float32Array(12), shape: [2, 2, 3] }, { data: new Float32Array(12), shape: [2, 3, 2] })
        .shape,
    ).toEqual([2, 2, 2]);
  });
});
