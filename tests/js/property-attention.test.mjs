// Property-based tests (fast-check) of scaled dot-product attention on every
// configuration: random shapes (Tq != Tk, query blocks of 64 and key tiles
// of 256 crossed now and then, up to two broadcast leading dimensions),
// random float32 values with the extremes (+-1e30, near FLT_MAX,
// subnormals, -0), boolean and additive masks (with -Infinity, key-padding
// shapes such as [Tk] or [B, 1, 1, Tk], fully masked rows), causal masks,
// both paths (streaming, the default without weights or scores, and the
// materialized one), and at most one fault per case.
//
// Each call gives the float64 reference within the bounds of
// src/kernels/registry.inc (attention: scores, weights, and the output on
// the path taken; derived in property-bounds.mjs), or throws what index.d.ts
// documents: a RangeError naming the first score that overflowed float32
// (in the flat [..., Tq, Tk] order, on both paths), a RangeError naming a
// non-finite value or a shape that does not fit, a TypeError for a wrong
// type, an unknown option, or streaming: true with returnWeights or
// returnScores. Rows with no visible key give +0 weights and a +0 output;
// masked and causal-hidden scores are -Infinity, their weights +0.
//
// Runs are reproducible: a fixed seed and a stated number of runs (RUNS).
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONFIGS, warmInstance } from './helpers.mjs';
import { attentionSlice } from './property-bounds.mjs';
import { buildMask, maskFault, maskSpec } from './property-masks.mjs';
import { checkElement, expectOutcome, fail, namedIndex } from './property-outcome.mjs';
import * as pv from './property-values.mjs';

const SEED = 0x5eed_0003;
const RUNS = 800;
const f = Math.fround;

/** An option fault: [options to add, error]. */
const BAD_OPTIONS = {
  scaleNaN: [{ scale: NaN }, [RangeError, 'attention: options.scale']],
  scaleString: [{ scale: '1' }, [TypeError, 'attention: options.scale']],
  causalNumber: [{ causal: 1 }, [TypeError, 'attention: options.causal']],
  weightsString: [{ returnWeights: 'yes' }, [TypeError, 'attention: options.returnWeights']],
  streamingString: [{ streaming: 'no' }, [TypeError, 'attention: options.streaming']],
  streamingWithWeights: [
    { streaming: true, returnWeights: true },
    [TypeError, 'attention: options.streaming is true, but options.returnWeights'],
  ],
  streamingWithScores: [
    { streaming: true, returnWeights: false, returnScores: true },
    [TypeError, 'attention: options.streaming is true, but options.returnScores'],
  ],
  unknownKey: [{ returnWeight: true }, [TypeError, "attention: options has an unknown key 'returnWeight'"]],
};
/** A shape fault (K with one more column than Q, or V with one more row than K) and its error. */
const BAD_SHAPES = {
  kDepth: [RangeError, 'attention: K has shape'],
  vRows: [RangeError, 'attention: V has shape'],
};

/** The leading shape of one tensor: the full lead with some dimensions made 1, some leading ones dropped. */
const leadOf = (lead, keep, drop) => lead.map((d, i) => (keep[i] ? d : 1)).slice(Math.min(drop, lead.length));

/** The four ways to ask for a path: [streaming option, returnWeights, returnScores]. */
const pathArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant([undefined, false, false]) },
  { weight: 1, arbitrary: fc.constant([true, false, false]) },
  { weight: 2, arbitrary: fc.tuple(fc.constant(false), fc.boolean(), fc.boolean()) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(undefined, false), fc.constant(true), fc.boolean()) },
);

const attentionCase = fc
  .record({
    lead: fc.constantFrom([], [], [2], [1], [2, 3], [1, 2], [2, 1]),
    keep: fc.array(fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }), { minLength: 3, maxLength: 3 }),
    drop: fc.array(fc.nat(2), { minLength: 3, maxLength: 3 }),
    Tq: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 6 }) },
      { weight: 1, arbitrary: fc.constantFrom(63, 64, 65, 70) },
    ),
    Tk: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 9 }) },
      { weight: 1, arbitrary: fc.constantFrom(255, 256, 257, 300) },
    ),
    dk: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 8 }) },
      { weight: 1, arbitrary: fc.constantFrom(16, 31, 33, 64) },
    ),
    dv: fc.integer({ min: 1, max: 5 }),
    scale: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.constantFrom(1, 0.5, -1, 0, 2, f(1e-3), 1000, f(1e-20)) },
    ),
    causal: fc.constantFrom(undefined, false, true),
    path: pathArb,
    useMask: fc.constantFrom(false, true, true),
    maskKeep: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    maskDrop: fc.nat(3),
    forms: fc.array(pv.tensorForm, { minLength: 3, maxLength: 3 }),
    fault: pv.faultOf(40),
    maskFault,
    badOption: fc.oneof(
      { weight: 40, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...Object.keys(BAD_OPTIONS)) },
    ),
    weights: pv.mildOrWild,
    badShape: fc.oneof(
      { weight: 60, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...Object.keys(BAD_SHAPES)) },
    ),
  })
  .map((s) => (s.badOption ? { ...s, badShape: null } : s))
  .chain((s) => {
    const leads = s.keep.map((k, i) => leadOf(s.lead, k, s.drop[i]));
    const lead = pv.broadcast(...leads);
    const BH = [...new Array(2 - lead.length).fill(1), ...lead];
    const mShape = pv.maskShape([...BH, s.Tq, s.Tk], s.maskKeep, s.maskDrop);
    const dk = s.badShape === 'kDepth' ? [s.dk, s.dk + 1] : [s.dk, s.dk];
    const vRows = s.badShape === 'vRows' ? s.Tk + 1 : s.Tk;
    const shapes = [
      [...leads[0], s.Tq, dk[0]],
      [...leads[1], s.Tk, dk[1]],
      [...leads[2], vRows, s.dv],
    ];
    return fc
      .record({
        q: pv.values(pv.numel(shapes[0]), s.weights),
        k: pv.values(pv.numel(shapes[1]), s.weights),
        v: pv.values(pv.numel(shapes[2]), s.weights),
        mask: maskSpec(mShape),
      })
      .map((v) => ({ ...s, ...v, leads, lead, BH, mShape, shapes }));
  });

describe.each(CONFIGS)('properties of attention: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.attention([[1]], [[1]], [[1]])));
  });

  test(`attention: scores, weights and output within the registry's bounds on the path taken, or the documented error (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(attentionCase, (c) => {
        const { Tq, Tk, dk, dv, lead, BH, mShape, shapes } = c;
        // One fault at most: an option, else a shape, else the mask, else Q, K or V.
        const mFault = c.badOption || c.badShape ? null : c.maskFault;
        const hit = c.badOption || c.badShape || mFault || !c.fault ? null : ['Q', 'K', 'V'][c.fault.arg % 3];
        const built = ['Q', 'K', 'V'].map((name, i) =>
          pv.buildArg('attention', name, [c.q, c.k, c.v][i], shapes[i], c.forms[i], hit === name ? c.fault : null),
        );
        const mask =
          c.useMask || mFault ? buildMask('attention', 'mask', mShape, c.mask, mFault, { targetLast: Tk }) : null;
        const [streamingOption, returnWeights, returnScores] = c.path;
        const options = {};
        if (c.scale !== undefined) options.scale = c.scale;
        if (c.causal !== undefined) options.causal = c.causal;
        if (mask) options.mask = mask.arg;
        if (returnWeights) options.returnWeights = true;
        if (returnScores) options.returnScores = true;
        if (streamingOption !== undefined) options.streaming = streamingOption;
        let error = built.find((b) => b.error)?.error ?? mask?.error ?? null;
        if (c.badShape) error = BAD_SHAPES[c.badShape];
        if (c.badOption) {
          const [bad, err] = BAD_OPTIONS[c.badOption];
          Object.assign(options, bad);
          error = err;
        }
        const call = () => ag.attention(built[0].arg, built[1].arg, built[2].arg, options);
        if (error) return expectOutcome(call, { errors: [error], mustThrow: true });

        const streaming = streamingOption ?? !(returnWeights || returnScores);
        const scale = c.scale ?? f(1 / Math.sqrt(dk));
        const [B, H] = BH;
        const slices = [];
        for (let p = 0; p < B * H; p++) {
          const part = (vals, leadT, rows, cols) => {
            const s = pv.sliceOf(leadT, lead, p);
            return vals.slice(s * rows * cols, (s + 1) * rows * cols);
          };
          const maskAt = mask
            ? (i, j) => mask.add[pv.broadcastIndex(mShape, [B, H, Tq, Tk], (p * Tq + i) * Tk + j)]
            : null;
          slices.push(
            attentionSlice(
              part(c.q, c.leads[0], Tq, dk),
              part(c.k, c.leads[1], Tk, dk),
              part(c.v, c.leads[2], Tk, dv),
              Tq,
              Tk,
              dk,
              dv,
              {
                scale,
                causal: c.causal === true,
                maskAt,
                variant: cfg.variant,
              },
            ),
          );
        }
        const scoreShape = [...lead, Tq, Tk];
        const cls = slices.flatMap((s) => Array.from(s.cls));
        const firstSure = cls.indexOf(2);
        const outNotFine = slices.some((s) => s.outFine.some((x, i) => !x && !s.hidden[Math.floor(i / dv)]));
        const errors = [];
        if (cls.some((k) => k !== 0)) {
          // q . k is formed before the scale: with |scale| <= 1 (float32) a finite q . k never overflows
          // when scaled, and a mask entry can make the sum overflow only if it is finite and not 0, and
          // is added to a score that is not 0 (scale not 0); else only q . k itself can have overflowed,
          // and the dot products are named.
          const maskAdds = mask && mask.add.some((x) => x !== 0 && x !== -Infinity);
          const sumOrProduct = Math.abs(f(scale)) > 1 || (maskAdds && f(scale) !== 0);
          errors.push([
            RangeError,
            !sumOrProduct
              ? 'attention: the dot products Q K^T['
              : mask
                ? 'attention: the scores scale * Q K^T + mask['
                : 'attention: the scores scale * Q K^T[',
            (e) => {
              const i = namedIndex(e.message, scoreShape);
              return (
                i >= 0 && cls[i] !== 0 && (firstSure < 0 || i <= firstSure) && e.message.includes('overflowed float32')
              );
            },
          ]);
        }
        if (outNotFine) errors.push([RangeError, /^attention: output\[[\d, ]+\] overflowed float32/]);
        expectOutcome(call, {
          errors,
          mustThrow: firstSure >= 0,
          check: (res) => {
            if (res.output.shape.join() !== [...lead, Tq, dv].join())
              fail('attention: output shape', { got: res.output.shape, want: [...lead, Tq, dv] });
            if (returnWeights !== (res.weights !== undefined))
              fail('attention: weights present or missing against returnWeights');
            if (returnScores !== (res.scores !== undefined))
              fail('attention: scores present or missing against returnScores');
            slices.forEach((s, p) => {
              for (let i = 0; i < Tq; i++) {
                for (let ch = 0; ch < dv; ch++) {
                  const x = i * dv + ch;
                  const got = res.output.data[p * Tq * dv + x];
                  if (s.hidden[i]) {
                    if (!Object.is(got, 0))
                      fail('attention: a row with no visible key must give a +0 output', { slice: p, row: i, got });
                    continue;
                  }
                  checkElement(
                    `attention output (${streaming ? 'streaming' : 'materialized'})`,
                    got,
                    s.Y[x],
                    streaming ? s.tolStream[x] : s.tolGrid[x],
                    { mayOverflow: !s.outFine[x], index: p * Tq * dv + x },
                  );
                  if (!streaming && Number.isFinite(got) && Math.abs(got) > s.hull[x])
                    fail('attention: materialized output outside the range of the visible values', {
                      index: p * Tq * dv + x,
                      got,
                      bound: s.hull[x],
                    });
                }
                let sum = 0;
                for (let j = 0; j < Tk; j++) {
                  const x = i * Tk + j;
                  const at = p * Tq * Tk + x;
                  if (returnScores) {
                    const got = res.scores.data[at];
                    if (s.S[x] === -Infinity) {
                      if (got !== -Infinity)
                        fail('attention: a masked or causal-hidden score must be -Infinity', { index: at, got });
                    } else checkElement('attention scores', got, s.S[x], s.eS[x], { index: at });
                  }
                  if (returnWeights) {
                    const got = res.weights.data[at];
                    if (s.hidden[i] || s.S[x] === -Infinity) {
                      if (!Object.is(got, 0))
                        fail('attention: a masked weight (or one of a row with no visible key) must be +0', {
                          index: at,
                          got,
                        });
                      continue;
                    }
                    if (!(got >= 0)) fail('attention: a weight below 0', { index: at, got });
                    checkElement('attention weights', got, s.A[x], s.tolW[x], { index: at });
                    sum += got;
                  }
                }
                if (returnWeights && !s.hidden[i] && !(Math.abs(sum - 1) <= s.rowSumTol))
                  fail('attention: weights of a row do not sum to 1', { slice: p, row: i, sum });
              }
            });
          },
        });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});
