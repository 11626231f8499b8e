// Property-based tests (fast-check) of softmax (temperature, boolean and
// additive masks with -Infinity, fully masked rows) and logSumExp on every
// configuration, with random shapes and float32 values including the
// extremes (+-1e30, near FLT_MAX, subnormals, -0), and at most one fault per
// case: a non-finite or out-of-range value, a wrong type, a bad mask, a bad
// temperature or an unknown option.
//
// Each call gives the float64 reference within the bounds of
// src/kernels/registry.inc (softmax, log_sum_exp, exp; derived in
// property-bounds.mjs), or throws what index.d.ts documents: a RangeError
// naming the first entry of x / temperature (+ mask) that overflowed
// float32, a RangeError naming a non-finite value or a bad temperature, a
// TypeError for a wrong type or an unknown option. Masked entries and rows
// with nothing visible give +0; every row sums to 1 within its bound.
//
// Runs are reproducible: a fixed seed and a stated number of runs (RUNS).
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONFIGS, warmInstance } from './helpers.mjs';
import { logSumExpBound, softmaxBound } from './property-bounds.mjs';
import { buildMask, maskFault, maskSpec } from './property-masks.mjs';
import { checkElement, expectOutcome, fail, namedIndex } from './property-outcome.mjs';
import * as pv from './property-values.mjs';

const SEED = 0x5eed_0002;
const RUNS = { softmax: 2000, logSumExp: 2000 };
const f = Math.fround;

/** Shapes [n], [rows, n] and [2, rows, n]; n from the vector lengths, kept small when there are rows. */
const shapeArb = fc.oneof(
  { weight: 2, arbitrary: pv.length.map((n) => [n]) },
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 4 }), pv.length).map(([r, n]) => [r, n]) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 40 })).map(([r, n]) => [2, r, n]),
  },
);

const temperatureArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: fc.constantFrom(1, 0.5, 2, f(0.1), 10, f(1e-3), 1000, f(1e-20), f(1e20), 2 ** -126) },
  { weight: 1, arbitrary: fc.float({ min: 2 ** -126, max: 1e10, noNaN: true }) },
);

/** An option fault: [options, error]. */
const BAD_OPTIONS = {
  zero: [{ temperature: 0 }, [RangeError, 'softmax: options.temperature']],
  negative: [{ temperature: -1 }, [RangeError, 'softmax: options.temperature']],
  nan: [{ temperature: NaN }, [RangeError, 'softmax: options.temperature']],
  infinite: [{ temperature: Infinity }, [RangeError, 'softmax: options.temperature']],
  string: [{ temperature: '2' }, [TypeError, 'softmax: options.temperature']],
  unknownKey: [{ temp: 2 }, [TypeError, "softmax: options has an unknown key 'temp'"]],
};
const badOptionArb = fc.oneof(
  { weight: 30, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(...Object.keys(BAD_OPTIONS)) },
);

const softmaxCase = shapeArb.chain((shape) =>
  fc
    .record({
      x: pv.values(pv.numel(shape)),
      form: pv.tensorForm,
      temperature: temperatureArb,
      useMask: fc.constantFrom(false, true, true),
      keep: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      drop: fc.nat(2),
      fault: pv.fault,
      maskFault,
      badOption: badOptionArb,
    })
    .chain((c) => {
      const mShape = pv.maskShape(shape, c.keep, c.drop);
      return maskSpec(mShape).map((mask) => ({ ...c, shape, mShape, mask }));
    }),
);

describe.each(CONFIGS)('properties of softmax and logSumExp: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.softmax([1, 2])));
  });

  test(`softmax (temperature, boolean and additive masks, fully masked rows): the reference within the registry's bound, or the documented error (${RUNS.softmax} runs)`, () => {
    fc.assert(
      fc.property(softmaxCase, (c) => {
        const { shape } = c;
        // One fault at most: an option fault, else a mask fault, else a fault in x.
        const mFault = c.badOption ? null : c.maskFault;
        const xFault = c.badOption || mFault ? null : c.fault;
        const x = pv.buildArg('softmax', 'x', c.x, shape, c.form, xFault);
        const mask =
          c.useMask || mFault
            ? buildMask('softmax', 'mask', c.mShape, c.mask, mFault, { targetLast: shape.at(-1) })
            : null;
        const options = {};
        if (c.temperature !== undefined) options.temperature = c.temperature;
        if (mask) options.mask = mask.arg;
        let error = x.error ?? mask?.error ?? null;
        if (c.badOption) {
          const [bad, err] = BAD_OPTIONS[c.badOption];
          Object.assign(options, bad);
          error = err;
        }
        const call = () => ag.softmax(x.arg, Object.keys(options).length ? options : undefined);
        if (error) return expectOutcome(call, { errors: [error], mustThrow: true });

        const n = shape.at(-1);
        const rows = pv.numel(shape) / n;
        const T = c.temperature ?? 1;
        const madd = mask
          ? Float64Array.from({ length: rows * n }, (_, i) => mask.add[pv.broadcastIndex(c.mShape, shape, i)])
          : null;
        const want = softmaxBound(c.x, rows, n, T, madd, cfg.variant);
        const firstSure = want.cls.indexOf(2);
        // The index is x's: softmax: x[i, j] / temperature (+ mask) overflowed float32.
        const what = mask ? ' / temperature + mask overflowed float32' : ' / temperature overflowed float32';
        expectOutcome(call, {
          // The first entry of z that overflowed: one that may, and none after one that must.
          errors: want.cls.some((k) => k !== 0)
            ? [
                [
                  RangeError,
                  'softmax: x[',
                  (e) => {
                    const i = namedIndex(e.message, shape, what);
                    return (
                      i >= 0 &&
                      want.cls[i] !== 0 &&
                      (firstSure < 0 || i <= firstSure) &&
                      e.message.includes('overflowed float32')
                    );
                  },
                ],
              ]
            : [],
          mustThrow: firstSure >= 0,
          check: (got) => {
            if (got.shape.join() !== shape.join()) fail('softmax: wrong shape', { got: got.shape, want: shape });
            for (let r = 0; r < rows; r++) {
              let sum = 0;
              for (let i = r * n; i < (r + 1) * n; i++) {
                const y = got.data[i];
                if (want.masked[i] || want.hidden[r]) {
                  if (!Object.is(y, 0))
                    fail('softmax: a masked entry (or a row with nothing visible) is not +0', { index: i, got: y });
                  continue;
                }
                if (!(y >= 0)) fail('softmax: a weight below 0 or NaN', { index: i, got: y });
                checkElement('softmax', y, want.w[i], want.tol[i], { index: i });
                sum += y;
              }
              if (!want.hidden[r] && !(Math.abs(sum - 1) <= want.rowSumTol))
                fail('softmax: a row does not sum to 1 within (2 ceil(log2 n) + 5 + c) u', {
                  row: r,
                  sum,
                  tol: want.rowSumTol,
                });
            }
          },
        });
      }),
      { seed: SEED, numRuns: RUNS.softmax },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  const lseCase = shapeArb.chain((shape) =>
    fc
      .record({
        x: pv.values(pv.numel(shape)),
        form: fc.constantFrom('vector', ...['f32', 'f64', 'array', 'nested']),
        fault: pv.fault,
      })
      .map((c) => ({ ...c, shape })),
  );

  test(`logSumExp: the reference within the bound built from exp, the pairwise sum and logf, or the documented error (${RUNS.logSumExp} runs)`, () => {
    fc.assert(
      fc.property(lseCase, (c) => {
        const { shape } = c;
        // A vector (Float32Array) gives a number; a tensor of rank 2 or more gives a tensor.
        const asVector = c.form === 'vector' && shape.length === 1;
        const x = pv.buildArg('logSumExp', 'x', c.x, shape, c.form === 'vector' ? 'f32' : c.form, c.fault, {
          vector: asVector,
        });
        const call = () => ag.logSumExp(x.arg);
        if (x.error) return expectOutcome(call, { errors: [x.error], mustThrow: true });
        const n = shape.at(-1);
        const rows = pv.numel(shape) / n;
        const want = logSumExpBound(c.x, rows, n, cfg.variant);
        expectOutcome(call, {
          check: (got) => {
            if (shape.length === 1) {
              if (typeof got !== 'number') fail('logSumExp: a vector must give a number', { got: String(got) });
              checkElement('logSumExp', got, want.value[0], want.tol[0]);
              return;
            }
            if (got.shape.join() !== shape.slice(0, -1).join())
              fail('logSumExp: wrong shape', { got: got.shape, want: shape.slice(0, -1) });
            for (let r = 0; r < rows; r++)
              checkElement('logSumExp', got.data[r], want.value[r], want.tol[r], { index: r });
          },
        });
      }),
      { seed: SEED + 1, numRuns: RUNS.logSumExp },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});
