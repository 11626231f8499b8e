// Property-based tests (fast-check) of multi-head attention on every
// configuration: batched and unbatched inputs, self-, key-only and
// cross-attention, 1 to 3 heads, optional biases, per-head boolean or
// additive masks (with -Infinity), boolean or additive key-padding masks,
// causal masks with Tq != Tk, fully masked rows, both paths (streaming and
// materialized), random float32 values with the extremes, and at most one
// fault per case.
//
// Each call gives the float64 reference within the bounds of
// src/kernels/registry.inc (multi_head_attention: the projections by the
// variant's matmul plus the bias, each head by attention on the path taken,
// the output projection; derived in property-bounds.mjs), or throws what
// index.d.ts documents: a RangeError naming the first per-head score that
// overflowed float32 ([B, h, Tq, Tk]) or an output entry made NaN by an
// overflowed projection, a RangeError for a non-finite value, a shape that
// does not fit or numHeads not dividing d_model, a TypeError for a wrong
// type, a missing weight or numHeads, an unknown option, or streaming: true
// with returnWeights. A head's row with no visible key contributes +0 (its
// weights are +0); the row's output is then b_O plus the other heads.
//
// Runs are reproducible: a fixed seed and a stated number of runs (RUNS).
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONFIGS, warmInstance } from './helpers.mjs';
import { mhaBatch } from './property-bounds.mjs';
import { buildMask, maskFault, maskSpec } from './property-masks.mjs';
import { checkElement, expectOutcome, fail, namedIndex } from './property-outcome.mjs';
import * as pv from './property-values.mjs';

const SEED = 0x5eed_0004;
const RUNS = 600;
const f = Math.fround;
const m = 'multiHeadAttention';

const WEIGHT_NAMES = ['wQ', 'wK', 'wV', 'wO'];
const BIAS_NAMES = ['bQ', 'bK', 'bV', 'bO'];

/** An option or argument fault: (case) => [inputs, params, options] changes, and the error. */
const BAD = {
  noNumHeads: [(o) => delete o.options.numHeads, [TypeError, `${m}: options.numHeads (h) is missing`]],
  numHeadsFraction: [(o) => (o.options.numHeads = 1.5), [TypeError, `${m}: options.numHeads (h) must be an integer`]],
  numHeadsNotDividing: [(o, c) => (o.options.numHeads = c.d + 1), [RangeError, `${m}: options.numHeads = `]],
  streamingWithWeights: [
    (o) => Object.assign(o.options, { streaming: true, returnWeights: true }),
    [TypeError, `${m}: options.streaming is true, but options.returnWeights`],
  ],
  unknownKey: [(o) => (o.options.heads = 2), [TypeError, `${m}: options has an unknown key 'heads'`]],
  noWeight: [(o) => delete o.params.wO, [TypeError, `${m}: wO is missing`]],
  noQuery: [(o) => delete o.inputs.query, [TypeError, `${m}: query is missing`]],
  weightShape: [
    (o, c) => (o.params.wK = { data: new Float32Array((c.d + 1) * c.d), shape: [c.d + 1, c.d] }),
    [RangeError, `${m}: wK has shape`],
  ],
  valueShape: [
    (o, c) => (o.inputs.value = { data: new Float32Array(c.d + 1), shape: c.batched ? [1, 1, c.d + 1] : [1, c.d + 1] }),
    [RangeError, `${m}: value has shape`],
  ],
};

const pathArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant([undefined, false]) },
  { weight: 1, arbitrary: fc.constant([true, false]) },
  { weight: 2, arbitrary: fc.tuple(fc.constant(false), fc.boolean()) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(undefined, false), fc.constant(true)) },
);

const mhaCase = fc
  .record({
    batched: fc.boolean(),
    B: fc.integer({ min: 1, max: 2 }),
    Tq: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 1, max: 5 }) }, { weight: 1, arbitrary: fc.constant(65) }),
    Tk: fc.oneof({ weight: 10, arbitrary: fc.integer({ min: 1, max: 6 }) }, { weight: 1, arbitrary: fc.constant(257) }),
    h: fc.integer({ min: 1, max: 3 }),
    dk: fc.integer({ min: 1, max: 4 }),
    mode: fc.constantFrom('self', 'key', 'cross', 'cross'),
    biases: fc.array(fc.constantFrom('none', 'null', 'present', 'present'), { minLength: 4, maxLength: 4 }),
    scale: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.constantFrom(1, 0.5, -1, 0, f(1e-3), 100) },
    ),
    causal: fc.constantFrom(undefined, false, true),
    path: pathArb,
    useMask: fc.constantFrom(false, true),
    maskKeep: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    maskDrop: fc.nat(3),
    usePadding: fc.constantFrom(false, true),
    paddingFull: fc.boolean(),
    forms: fc.array(pv.tensorForm, { minLength: 11, maxLength: 11 }),
    fault: pv.faultOf(40),
    maskFault,
    onPadding: fc.boolean(),
    weights: pv.mildOrWild,
    bad: fc.oneof(
      { weight: 40, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...Object.keys(BAD)) },
    ),
  })
  .chain((s) => {
    const d = s.h * s.dk;
    const B = s.batched ? s.B : 1;
    const Tk = s.mode === 'self' ? s.Tq : s.Tk;
    const lead = s.batched ? [B] : [];
    const wTarget = s.batched ? [B, s.h, s.Tq, Tk] : [s.h, s.Tq, Tk];
    const mShape = pv.maskShape(wTarget, s.maskKeep, s.maskDrop);
    const pTarget = s.batched ? [B, Tk] : [Tk];
    const pShape = s.batched && s.paddingFull ? [B, Tk] : [Tk];
    const vals = (shape) => pv.values(pv.numel(shape), s.weights);
    return fc
      .record({
        xq: vals([...lead, s.Tq, d]),
        xk: vals([...lead, Tk, d]),
        xv: vals([...lead, Tk, d]),
        w: fc.tuple(...WEIGHT_NAMES.map(() => vals([d, d]))),
        b: fc.tuple(...BIAS_NAMES.map(() => vals([d]))),
        mask: maskSpec(mShape),
        padding: maskSpec(pShape),
      })
      .map((v) => ({ ...s, ...v, d, B, Tk, lead, wTarget, mShape, pTarget, pShape }));
  });

describe.each(CONFIGS)('properties of multi-head attention: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) =>
      a.multiHeadAttention({ query: [[1]] }, { wQ: [[1]], wK: [[1]], wV: [[1]], wO: [[1]] }, { numHeads: 1 }),
    ));
  });

  test(`multiHeadAttention: output and per-head weights within the registry's bounds on the path taken, or the documented error (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(mhaCase, (c) => {
        const { B, Tq, Tk, d, h, lead } = c;
        const xShape = [...lead, Tq, d];
        const kShape = [...lead, Tk, d];
        // The tensors of this case, by argument name, with their shapes and values.
        const tensors = [['query', c.xq, xShape]];
        if (c.mode !== 'self') tensors.push(['key', c.xk, kShape]);
        if (c.mode === 'cross') tensors.push(['value', c.xv, kShape]);
        WEIGHT_NAMES.forEach((name, i) => tensors.push([name, c.w[i], [d, d]]));
        BIAS_NAMES.forEach((name, i) => c.biases[i] === 'present' && tensors.push([name, c.b[i], [d]]));
        // One fault at most: an option or argument, else a mask, else a tensor.
        const useMaskFault = !c.bad && c.maskFault;
        let flt = c.bad || useMaskFault || !c.fault ? null : c.fault;
        const hit = flt ? tensors[flt.arg % tensors.length][0] : null;
        // null is absent (index.d.ts): a valid bias (none), key (the query) or value (the key), so one of
        // those hit by 'null' gets a string instead.
        if (flt && (hit.startsWith('b') || hit === 'key' || hit === 'value') && flt.how === 'null')
          flt = { ...flt, how: 'string' };
        const inputs = {};
        const params = {};
        let error = null;
        tensors.forEach(([name, values, shape], i) => {
          const a = pv.buildArg(m, name, values, shape, c.forms[i], hit === name ? flt : null);
          (['query', 'key', 'value'].includes(name) ? inputs : params)[name] = a.arg;
          error ??= a.error;
        });
        BIAS_NAMES.forEach((name, i) => c.biases[i] === 'null' && (params[name] = null));
        const [streamingOption, returnWeights] = c.path;
        const options = { numHeads: h };
        if (c.scale !== undefined) options.scale = c.scale;
        if (c.causal !== undefined) options.causal = c.causal;
        if (returnWeights) options.returnWeights = true;
        if (streamingOption !== undefined) options.streaming = streamingOption;
        const maskFaultHere = useMaskFault && !c.onPadding ? c.maskFault : null;
        const padFaultHere = useMaskFault && c.onPadding ? c.maskFault : null;
        const mask =
          c.useMask || maskFaultHere ? buildMask(m, 'mask', c.mShape, c.mask, maskFaultHere, { targetLast: Tk }) : null;
        const pad =
          c.usePadding || padFaultHere
            ? buildMask(m, 'keyPaddingMask', c.pShape, c.padding, padFaultHere, { trueMeans: 'ignore', targetLast: Tk })
            : null;
        if (mask) options.mask = mask.arg;
        if (pad) options.keyPaddingMask = pad.arg;
        error ??= mask?.error ?? pad?.error ?? null;
        if (c.bad) {
          const [apply, err] = BAD[c.bad];
          apply({ inputs, params, options }, c);
          error = err;
        }
        const call = () => ag.multiHeadAttention(inputs, params, options);
        if (error) return expectOutcome(call, { errors: [error], mustThrow: true });

        const streaming = streamingOption ?? !returnWeights;
        const scale = c.scale ?? f(1 / Math.sqrt(c.dk));
        const W = Object.fromEntries(WEIGHT_NAMES.map((name, i) => [name, c.w[i]]));
        const bias = Object.fromEntries(BIAS_NAMES.map((name, i) => [name, c.biases[i] === 'present' ? c.b[i] : null]));
        const xk = c.mode === 'self' ? c.xq : c.xk;
        const xv = c.mode === 'cross' ? c.xv : xk;
        const batches = [];
        for (let b = 0; b < B; b++) {
          const maskAt = (hh, i, j) => {
            const a = mask ? mask.add[pv.broadcastIndex(c.mShape, c.wTarget, ((b * h + hh) * Tq + i) * Tk + j)] : 0;
            const p = pad ? pad.add[pv.broadcastIndex(c.pShape, c.pTarget, b * Tk + j)] : 0;
            return a + p;
          };
          const rows = (x, T) => x.slice(b * T * d, (b + 1) * T * d);
          batches.push(
            mhaBatch(rows(c.xq, Tq), rows(xk, Tk), rows(xv, Tk), W, bias, Tq, Tk, d, h, {
              scale,
              causal: c.causal === true,
              maskAt,
              variant: cfg.variant,
              streaming,
            }),
          );
        }
        const cls = batches.flatMap((bt) => bt.slices.flatMap((s) => Array.from(s.cls)));
        const firstSure = cls.indexOf(2);
        const errors = [];
        if (cls.some((k) => k !== 0)) {
          errors.push([
            RangeError,
            `${m}: the per-head scores[`,
            (e) => {
              const i = namedIndex(e.message, [B, h, Tq, Tk]);
              return (
                i >= 0 && cls[i] !== 0 && (firstSure < 0 || i <= firstSure) && e.message.includes('overflowed float32')
              );
            },
          ]);
        }
        // A projection row that may overflow may be named itself (api.js names the
        // first non-finite entry of Q, then K, then V once the scores or the output
        // went wrong): the row it names must be one the reference says may overflow.
        for (const [P, T] of [
          ['Q', Tq],
          ['K', Tk],
          ['V', Tk],
        ]) {
          if (!batches.some((bt) => bt.projectionFine[P].some((x) => !x))) continue;
          errors.push([
            RangeError,
            new RegExp(`^${m}: ${P}\\[[\\d, ]+\\] overflowed float32 .*the projection ${P} = `),
            (e) => {
              const i = namedIndex(e.message, [...lead, T, d]);
              return i >= 0 && !batches[Math.floor(i / (T * d))].projectionFine[P][Math.floor(i / d) % T];
            },
          ]);
        }
        if (batches.some((bt) => bt.outFine.some((x) => !x)))
          errors.push([RangeError, new RegExp(`^${m}: output\\[[\\d, ]+\\] overflowed float32`)]);
        const wShape = [...lead, h, Tq, Tk];
        expectOutcome(call, {
          errors,
          mustThrow: firstSure >= 0,
          check: (res) => {
            if (res.output.shape.join() !== xShape.join())
              fail(`${m}: output shape`, { got: res.output.shape, want: xShape });
            if (returnWeights !== (res.weights !== undefined))
              fail(`${m}: weights present or missing against returnWeights`);
            if (returnWeights && res.weights.shape.join() !== wShape.join())
              fail(`${m}: weights shape`, { got: res.weights.shape, want: wShape });
            batches.forEach((bt, b) => {
              for (let x = 0; x < Tq * d; x++) {
                checkElement(
                  `${m} output (${streaming ? 'streaming' : 'materialized'})`,
                  res.output.data[b * Tq * d + x],
                  bt.Y[x],
                  bt.tol[x],
                  { mayOverflow: !bt.outFine[x], index: b * Tq * d + x },
                );
              }
              if (!returnWeights) return;
              bt.slices.forEach((s, hh) => {
                for (let i = 0; i < Tq; i++) {
                  let sum = 0;
                  for (let j = 0; j < Tk; j++) {
                    const at = ((b * h + hh) * Tq + i) * Tk + j;
                    const got = res.weights.data[at];
                    if (s.hidden[i] || s.S[i * Tk + j] === -Infinity) {
                      if (!Object.is(got, 0))
                        fail(`${m}: a masked weight (or one of a row with no visible key) must be +0`, {
                          index: at,
                          got,
                        });
                      continue;
                    }
                    if (!(got >= 0)) fail(`${m}: a weight below 0`, { index: at, got });
                    checkElement(`${m} weights`, got, s.A[i * Tk + j], s.tolW[i * Tk + j], { index: at });
                    sum += got;
                  }
                  if (!s.hidden[i] && !(Math.abs(sum - 1) <= s.rowSumTol))
                    fail(`${m}: weights of a row do not sum to 1`, { batch: b, head: hh, row: i, sum });
                }
              });
            });
          },
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});
