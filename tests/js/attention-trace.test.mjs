// attentionTrace (registry.inc: attention_trace): attention's streaming path
// on one head, tile by tile, on every build and variant, against the float64
// online softmax of tests/reference/float64.mjs (onlineSoftmax), which
// records m, l and O per tile and states the first-order bounds used here
// (its comment derives them). At the production tile the output is
// attention's streaming output bit for bit: the same kernel ran.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

const T = (data, shape) => ({ data, shape });

describe.each(CONFIGS)('attentionTrace: $label', ({ options }) => {
  /** This configuration's instance, logging its calls. */
  let ag = null;
  beforeAll(async () => {
    ag = await init({ ...options, logCalls: true });
  });

  test('every step and the output against the float64 online softmax, tiles 2 to 8, causal or not', () => {
    const r = ref.rng(41);
    for (const [Tq, Tk, dk, dv] of [
      [1, 12, 2, 2],
      [3, 13, 4, 3],
      [5, 31, 3, 5],
      [2, 1, 2, 1],
    ]) {
      const Q = r.f32(Tq * dk, -2, 2);
      const K = r.f32(Tk * dk, -2, 2);
      const V = r.f32(Tk * dv, -2, 2);
      for (const tileKeys of [2, 3, 4, 6, 8])
        for (const causal of [false, true]) {
          const label = `Tq ${Tq} Tk ${Tk} tile ${tileKeys} causal ${causal}`;
          const got = ag.attentionTrace(T(Q, [Tq, dk]), T(K, [Tk, dk]), T(V, [Tk, dv]), { tileKeys, causal });
          const scale = Math.fround(1 / Math.sqrt(dk));
          const want = ref.onlineSoftmax(Q, K, V, Tq, Tk, dk, dv, { scale, tileKeys, causal, variant: ag.variant });
          expect(got.variant).toBe(ag.variant);
          expect(got.tileKeys).toBe(tileKeys);
          expect(got.steps.length).toBe(want.steps.length);
          // One expect per case: every step's fields against the reference, within their bounds.
          const bad = [];
          got.steps.forEach((s, x) => {
            const w = want.steps[x];
            const near = (g, r, tol) => Object.is(g, r) || Math.abs(g - r) <= tol;
            const checks = [
              ['row, start, count', s.row === w.row && s.start === w.start && s.count === w.count],
              ['tileMax', near(s.tileMax, w.tileMax, w.mBound)],
              ['mPrev', near(s.mPrev, w.mPrev, w.mBound)],
              ['m', near(s.m, w.m, w.mBound)],
              ['correction', near(s.correction, w.correction, w.cBound * w.correction)],
              ['l', near(s.l, w.l, w.lBound * w.l)],
              ['O', s.O.every((o, c) => near(o, w.O[c], w.oBound[c]))],
            ];
            for (const [name, ok] of checks) if (!ok) bad.push({ step: x, name, got: s, want: w });
          });
          expect({ label, bad: bad.slice(0, 1) }).toEqual({ label, bad: [] });
          expectClose(got.output.data, want.Y, Array.from(want.yBound), label);
          expect(got.trace.shape).toEqual([Tq * (Math.ceil((causal ? Math.min(Tq, Tk) : Tk) / tileKeys) + 1), 10 + dv]);
        }
    }
    expect(ag.callLog.at(-1)).toMatchObject({ kernel: 'attention_trace', args: { Q: [2, 2], K: [1, 2], V: [1, 1] } });
  });

  test('at the production tile the output is the streaming attention output bit for bit', () => {
    const r = ref.rng(43);
    for (const [Tq, Tk] of [
      [1, 1],
      [4, 300],
      [64, 513],
    ])
      for (const causal of [false, true]) {
        const Q = T(r.f32(Tq * 3, -1, 1), [Tq, 3]);
        const K = T(r.f32(Tk * 3, -1, 1), [Tk, 3]);
        const V = T(r.f32(Tk * 2, -1, 1), [Tk, 2]);
        const traced = ag.attentionTrace(Q, K, V, { causal, scale: 0.75 });
        expect(traced.tileKeys).toBe(256);
        const streamed = ag.attention(Q, K, V, { causal, scale: 0.75, streaming: true });
        const bits = (t) => Array.from(new Uint32Array(Float32Array.from(t.output.data).buffer));
        expect(bits(traced)).toEqual(bits(streamed));
      }
  });

  test('a larger score in a later tile shrinks l and O by c = exp(m_old - m_new) < 1 before the tile is added', () => {
    // q = (1, 0); keys along x with scores 0, 1, 0, 3 (scale 1): tile 2 of tiles of 2 raises m from 1 to 3.
    const Q = T([1, 0], [1, 2]);
    const K = T([0, 0, 1, 0, 0, 0, 3, 0], [4, 2]);
    const V = T([1, 0, 0, 1, -1, 0, 0, -1], [4, 2]);
    const { steps } = ag.attentionTrace(Q, K, V, { tileKeys: 2, scale: 1 });
    const want = ref.onlineSoftmax(Q.data, K.data, V.data, 1, 4, 2, 2, { scale: 1, tileKeys: 2, variant: ag.variant });
    expect(steps.map((s) => [s.mPrev, s.m])).toEqual([
      [-Infinity, 1],
      [1, 3],
    ]);
    expect(steps[0].correction).toBe(1);
    expect(steps[1].correction).toBeLessThan(1);
    expectClose(steps[1].correction, Math.exp(-2), want.steps[1].cBound * Math.exp(-2));
  });

  test('bad input is a TypeError or RangeError naming the argument', () => {
    const Q = T([1, 0], [1, 2]);
    const K = T([0, 0, 1, 0], [2, 2]);
    const V = T([1, 0, 0, 1], [2, 2]);
    expect(() => ag.attentionTrace(Q, K, V, { tileKeys: 5 })).toThrow(
      new RangeError('attentionTrace: options.tileKeys must be one of 2, 3, 4, 6, 8, 256; got 5'),
    );
    expect(() => ag.attentionTrace(Q, K, V, { tileKeys: 2.5 })).toThrow(TypeError);
    expect(() => ag.attentionTrace(Q, K, V, { tileKeys: '4' })).toThrow(/options\.tileKeys/);
    expect(() => ag.attentionTrace(Q, K, V, { tile: 4 })).toThrow(TypeError);
    expect(() => ag.attentionTrace(Q, T([0, 0, 1], [1, 3]), V)).toThrow(RangeError);
    expect(() => ag.attentionTrace(Q, T([0, 0, 1], [1, 3]), V)).toThrow(/K/);
    expect(() => ag.attentionTrace(Q, K, T([1, 0], [1, 2]))).toThrow(/attentionTrace: V/);
    expect(() => ag.attentionTrace(T(new Float32Array(65 * 2), [65, 2]), K, V)).toThrow(/attentionTrace: Q/);
    expect(() => ag.attentionTrace(Q, K, V, { causal: 1 })).toThrow(/options\.causal/);
    expect(() => ag.attentionTrace(T([NaN, 0], [1, 2]), K, V)).toThrow(RangeError);
    // Scores beyond FLT_MAX: the first one named in [Tq, Tk]; q.k = 6e38 itself overflowed (scale 1).
    expect(() =>
      ag.attentionTrace(T([3e38, 0], [1, 2]), T([0, 0, 2, 0], [2, 2]), V, { tileKeys: 2, scale: 1 }),
    ).toThrow(/attentionTrace: the dot products Q K\^T\[0, 1\] overflowed/);
    // With scale 2 and q.k = 2e38 it is the product that overflowed.
    expect(() =>
      ag.attentionTrace(T([1e38, 0], [1, 2]), T([0, 0, 2, 0], [2, 2]), V, { tileKeys: 2, scale: 2 }),
    ).toThrow(/attentionTrace: the scores scale \* Q K\^T\[0, 1\] overflowed/);
  });
});
