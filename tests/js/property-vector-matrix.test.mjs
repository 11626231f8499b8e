// Property-based tests (fast-check) of dot, norm, cosine and matmul on every
// configuration (both variants of the SIMD build, and the baseline build):
// random lengths and shapes (SIMD widths and their tails, past the GEMM's
// k block of 256, broadcast batch dimensions), random float32 values with
// the extremes (+-1e30, near FLT_MAX, subnormals, -0), and at most one fault
// per case (NaN, +-Infinity, a number beyond float32, a wrong type).
//
// Each call either gives the float64 reference within the error bound of
// src/kernels/registry.inc for its variant (property-bounds.mjs derives each
// one), or throws the error index.d.ts documents: a RangeError naming the
// argument and the index of a non-finite value, a RangeError for an
// intermediate overflow ("overflowed float32"; a result is never NaN), a
// RangeError for a zero vector where a direction is needed, a TypeError
// naming an argument of the wrong type. Results that overflow are
// +-Infinity only where the exact computation leaves the float32 range.
//
// Runs are reproducible: a fixed seed and a stated number of runs per
// property (RUNS; the whole file takes a few seconds).
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONFIGS, warmInstance } from './helpers.mjs';
import { F32_MAX, cosineBound, dotBound, matmulBound, normBound } from './property-bounds.mjs';
import { checkElement, expectOutcome, fail, namedIndex } from './property-outcome.mjs';
import * as pv from './property-values.mjs';

const SEED = 0x5eed_0001;
const RUNS = { dot: 1500, norm: 1000, cosine: 1000, matmul: 600 };

/** A fault, or none, for a case whose arguments are `names`: which one it hits. */
const target = (flt, names) => (flt ? names[flt.arg % names.length] : null);

const vectorPair = pv.length.chain((n) =>
  fc.record({ a: pv.values(n), b: pv.values(n), formA: pv.vectorForm, formB: pv.vectorForm, fault: pv.fault }),
);
const vectorOne = pv.length.chain((n) => fc.record({ a: pv.values(n), formA: pv.vectorForm, fault: pv.fault }));

/** Builds the vector arguments of a case; returns them with the error the fault makes (or null). */
function buildVectors(method, c, names) {
  const hit = target(c.fault, names);
  const built = names.map((name) => {
    const vals = c[name];
    return pv.buildArg(
      method,
      name,
      vals,
      [vals.length],
      c[`form${name.toUpperCase()}`],
      hit === name ? c.fault : null,
      { vector: true },
    );
  });
  return { args: built.map((b) => b.arg), error: built.find((b) => b.error)?.error ?? null };
}

const isZero = (v) => v.every((x) => x === 0);

describe.each(CONFIGS)('properties of the vector and matrix kernels: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test(`dot: the reference within (2 ceil(log2 n) + 1) u sum|a_i b_i|, or the documented error (${RUNS.dot} runs)`, () => {
    fc.assert(
      fc.property(vectorPair, (c) => {
        const { args, error } = buildVectors('dot', c, ['a', 'b']);
        if (error) return expectOutcome(() => ag.dot(...args), { errors: [error], mustThrow: true });
        const want = dotBound(c.a, c.b);
        expectOutcome(() => ag.dot(...args), {
          // A partial sum beyond FLT_MAX may give +-Infinity, or NaN, which is a RangeError.
          errors: want.fine ? [] : [[RangeError, 'dot: the result overflowed float32']],
          check: (got) => {
            if (typeof got !== 'number') fail('dot: not a number', { got: String(got) });
            checkElement('dot', got, want.value, want.tol, { mayOverflow: !want.fine });
          },
        });
      }),
      { seed: SEED, numRuns: RUNS.dot },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test(`norm: the reference within (ceil(log2 n) + 2) u relatively, +Infinity only beyond FLT_MAX (${RUNS.norm} runs)`, () => {
    fc.assert(
      fc.property(vectorOne, (c) => {
        const { args, error } = buildVectors('norm', c, ['a']);
        if (error) return expectOutcome(() => ag.norm(...args), { errors: [error], mustThrow: true });
        const want = normBound(c.a);
        expectOutcome(() => ag.norm(...args), {
          check: (got) => {
            if (want.mustOverflow && got !== Infinity)
              fail('norm: finite although the norm is beyond FLT_MAX', { got, want: want.value });
            if (got === Infinity && !want.mayOverflow)
              fail('norm: +Infinity for a norm below FLT_MAX', { want: want.value });
            if (got !== Infinity) checkElement('norm', got, want.value, want.tol);
            if (Object.is(got, -0) || got < 0) fail('norm: negative', { got });
          },
        });
      }),
      { seed: SEED + 1, numRuns: RUNS.norm },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test(`cosine: the reference within the bound built from dot and norm, in [-1, 1]; zero vectors refused (${RUNS.cosine} runs)`, () => {
    fc.assert(
      fc.property(vectorPair, (c) => {
        const { args, error } = buildVectors('cosine', c, ['a', 'b']);
        // A zero vector is refused with a RangeError naming it (a first). Which
        // of two problems is reported first is not documented: either will do.
        const hit = target(c.fault, ['a', 'b']);
        const zero = [];
        if (hit !== 'a' && isZero(c.a)) zero.push([RangeError, 'cosine: a is the zero vector']);
        if (hit !== 'b' && isZero(c.b)) zero.push([RangeError, 'cosine: b is the zero vector']);
        if (error || zero.length)
          return expectOutcome(() => ag.cosine(...args), { errors: error ? [error, ...zero] : zero, mustThrow: true });
        const want = cosineBound(c.a, c.b);
        expectOutcome(() => ag.cosine(...args), {
          check: (got) => {
            checkElement('cosine', got, want.value, want.tol);
            if (!(got >= -1 && got <= 1)) fail('cosine: outside [-1, 1]', { got });
          },
        });
      }),
      { seed: SEED + 2, numRuns: RUNS.cosine },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  const matmulCase = fc
    .record({
      M: fc.integer({ min: 1, max: 6 }),
      N: fc.integer({ min: 1, max: 6 }),
      K: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 1, max: 20 }) },
        { weight: 1, arbitrary: fc.constantFrom(31, 32, 33, 64, 65, 255, 256, 257, 300) },
      ),
      transposeB: fc.constantFrom(undefined, false, true),
      leads: fc.constantFrom(
        [[], []],
        [[2], []],
        [[], [3]],
        [[2], [2]],
        [[2], [1]],
        [
          [1, 2],
          [3, 1],
        ],
        [[2, 1], [2]],
      ),
      formA: pv.tensorForm,
      formB: pv.tensorForm,
      fault: pv.fault,
      badOption: fc.oneof(
        { weight: 30, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom('string', 'unknownKey') },
      ),
    })
    .chain((s) => {
      const [la, lb] = s.leads;
      const bRows = s.transposeB ? s.N : s.K;
      const bCols = s.transposeB ? s.K : s.N;
      return fc
        .record({ a: pv.values(pv.numel(la) * s.M * s.K), b: pv.values(pv.numel(lb) * bRows * bCols) })
        .map((v) => ({
          ...s,
          ...v,
          shapeA: [...la, s.M, s.K],
          shapeB: [...lb, bRows, bCols],
        }));
    });

  test(`matmul (A B and A B^T, broadcast batches): the reference within the variant's bound (scalar: pairwise; simd128: gemm_simd128.h), or the documented error (${RUNS.matmul} runs)`, () => {
    fc.assert(
      fc.property(matmulCase, (c) => {
        const hit = c.badOption ? null : target(c.fault, ['A', 'B']);
        const A = pv.buildArg('matmul', 'A', c.a, c.shapeA, c.formA, hit === 'A' ? c.fault : null);
        const B = pv.buildArg('matmul', 'B', c.b, c.shapeB, c.formB, hit === 'B' ? c.fault : null);
        let options = c.transposeB === undefined ? undefined : { transposeB: c.transposeB };
        let error = A.error ?? B.error;
        if (c.badOption === 'string') {
          options = { transposeB: 'yes' };
          error = [TypeError, 'matmul: options.transposeB'];
        } else if (c.badOption === 'unknownKey') {
          options = { transpose: true };
          error = [TypeError, "matmul: options has an unknown key 'transpose'"];
        }
        const call = () => ag.matmul(A.arg, B.arg, options);
        if (error) return expectOutcome(call, { errors: [error], mustThrow: true });
        const [la, lb] = c.leads;
        const lead = pv.broadcast(la, lb);
        const { M, K, N } = c;
        const batches = pv.numel(lead);
        const C = [];
        const tol = [];
        const fine = [];
        for (let p = 0; p < batches; p++) {
          const sa = pv.sliceOf(la, lead, p);
          const sb = pv.sliceOf(lb, lead, p);
          const want = matmulBound(
            c.a.slice(sa * M * K, (sa + 1) * M * K),
            c.b.slice(sb * K * N, (sb + 1) * K * N),
            M,
            K,
            N,
            c.transposeB === true,
            cfg.variant,
          );
          C.push(...want.C);
          tol.push(...want.tol);
          fine.push(...want.fine);
        }
        const outShape = [...lead, M, N];
        expectOutcome(call, {
          // A NaN from an overflowed partial sum is a RangeError naming that element.
          errors: fine.every(Boolean)
            ? []
            : [
                [
                  RangeError,
                  /^matmul: the result\[[\d, ]+\] overflowed float32/,
                  (e) => !fine[namedIndex(e.message, outShape)],
                ],
              ],
          check: (got) => {
            if (got.shape.join() !== outShape.join()) fail('matmul: wrong shape', { got: got.shape, want: outShape });
            if (!(got.data instanceof Float32Array)) fail('matmul: data is not a Float32Array');
            for (let i = 0; i < C.length; i++)
              checkElement('matmul', got.data[i], C[i], tol[i], { mayOverflow: !fine[i], index: i });
          },
        });
      }),
      { seed: SEED + 3, numRuns: RUNS.matmul },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('the extremes are reachable: FLT_MAX is a float32 and the generators produce it', () => {
    // Guards the generators above: without the extremes the properties would test less than they say.
    expect(Math.fround(F32_MAX)).toBe(F32_MAX);
    const sample = fc.sample(pv.values(64), { seed: SEED, numRuns: 200 }).flat();
    expect(sample.some((v) => Math.abs(v) >= 1e30)).toBe(true);
    expect(sample.some((v) => v !== 0 && Math.abs(v) < 2 ** -126)).toBe(true);
    expect(sample.some((v) => Object.is(v, -0))).toBe(true);
    expect(sample.every((v) => Math.fround(v) === v || Number.isNaN(v))).toBe(true);
  });
});
