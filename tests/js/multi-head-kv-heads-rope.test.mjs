// multiHeadAttention's kvHeads (grouped-query projections, Ainslie et al.
// 2023) and rope (rotary positions, Su et al. 2021) against the float64
// reference of tests/reference/float64.mjs (mhaOne with kvHeads and rope,
// and its first-order bound carried through the projections, the rotation,
// attention and W_O), on both paths, batched, self- and cross-attention.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

const T = (data, shape) => ({ data, shape });

describe.each(CONFIGS)('multiHeadAttention kvHeads and rope: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init({ ...cfg.options, logCalls: true });
  });

  /** Runs one case and checks output (and weights) of every batch against mhaOne. */
  function check({ B, Tq, Tk, d, h, kvHeads, rope, causal = false, streaming, seed }) {
    const r = ref.rng(seed);
    const dkv = kvHeads * (d / h);
    const X = r.f32(B * Tq * d);
    const Xk = r.f32(B * Tk * d);
    const Xv = r.f32(B * Tk * d);
    const W = { wQ: r.f32(d * d, -0.5, 0.5), wK: r.f32(d * dkv, -0.5, 0.5), wV: r.f32(d * dkv, -0.5, 0.5) };
    W.wO = r.f32(d * d, -0.5, 0.5);
    Object.assign(W, { bQ: r.f32(d, -0.1, 0.1), bK: r.f32(dkv, -0.1, 0.1), bV: r.f32(dkv, -0.1, 0.1) });
    W.bO = r.f32(d, -0.1, 0.1);
    const params = {
      wQ: T(W.wQ, [d, d]),
      wK: T(W.wK, [d, dkv]),
      wV: T(W.wV, [d, dkv]),
      wO: T(W.wO, [d, d]),
      bQ: W.bQ,
      bK: W.bK,
      bV: W.bV,
      bO: W.bO,
    };
    const self = Tq === Tk;
    const inputs = self
      ? { query: T(X, [B, Tq, d]) }
      : { query: T(X, [B, Tq, d]), key: T(Xk, [B, Tk, d]), value: T(Xv, [B, Tk, d]) };
    const res = ag.multiHeadAttention(inputs, params, {
      numHeads: h,
      kvHeads,
      causal,
      rope,
      streaming,
      returnWeights: !streaming,
    });
    expect(res.output.shape).toEqual([B, Tq, d]);
    const settings = rope && { base: 10000, interleaved: true, ...(rope === true ? {} : rope) };
    for (let b = 0; b < B; b++) {
      const sl = (arr, Tn) => arr.subarray(b * Tn * d, (b + 1) * Tn * d);
      const [xk, xv] = self ? [sl(X, Tq), sl(X, Tq)] : [sl(Xk, Tk), sl(Xv, Tk)];
      const want = ref.mhaOne(sl(X, Tq), xk, xv, W, Tq, Tk, d, h, {
        scale: Math.fround(1 / Math.sqrt(d / h)),
        causal,
        variant: cfg.variant,
        streaming,
        kvHeads,
        rope: settings || null,
      });
      const label = `kvHeads ${kvHeads}, rope ${JSON.stringify(rope)}, streaming ${streaming}, b ${b}`;
      expectClose(sl(res.output.data, Tq), want.Y, (i) => want.bound[i] + 1e-30, label);
      if (!streaming) {
        const wts = res.weights.data.subarray(b * h * Tq * Tk, (b + 1) * h * Tq * Tk);
        expectClose(wts, want.A, (i) => want.wBound[i] + 1e-30, `${label}: weights`);
      }
    }
  }

  test('kvHeads 1 (multi-query), 2 and 4 of 4 heads: W_K and W_V of kvHeads d_k columns, heads shared in groups', () => {
    let seed = 10;
    for (const kvHeads of [4, 2, 1])
      for (const streaming of [true, false]) {
        check({ B: 2, Tq: 5, Tk: 5, d: 16, h: 4, kvHeads, causal: true, streaming, seed: seed++ });
        check({ B: 2, Tq: 3, Tk: 7, d: 16, h: 4, kvHeads, streaming, seed: seed++ });
      }
    // The last call: one key/value head of d_k = 4 columns.
    expect(ag.callLog.at(-1)).toMatchObject({ kernel: 'multi_head_attention', args: { wK: [16, 4], wV: [16, 4] } });
  });

  test('rope: each head turned before the scores, both layouts and another base, with and without kvHeads', () => {
    let seed = 40;
    for (const rope of [true, { base: 500000, interleaved: false }, { interleaved: true }])
      for (const kvHeads of [2, 4])
        for (const streaming of [true, false]) {
          check({ B: 2, Tq: 6, Tk: 6, d: 24, h: 4, kvHeads, rope, causal: true, streaming, seed: seed++ });
          check({ B: 1, Tq: 4, Tk: 9, d: 24, h: 4, kvHeads, rope, streaming, seed: seed++ });
        }
  });

  test('kvHeads equal to numHeads and rope: false are the defaults, bit for bit', () => {
    const r = ref.rng(70);
    const X = T(r.f32(5 * 8), [5, 8]);
    const w = () => T(r.f32(64, -0.5, 0.5), [8, 8]);
    const params = { wQ: w(), wK: w(), wV: w(), wO: w() };
    const plain = ag.multiHeadAttention({ query: X }, params, { numHeads: 2 });
    const stated = ag.multiHeadAttention({ query: X }, params, { numHeads: 2, kvHeads: 2, rope: false });
    expect(stated.output.data).toEqual(plain.output.data);
    // rope changes the result: the positions enter the scores.
    const turned = ag.multiHeadAttention({ query: X }, params, { numHeads: 2, rope: true });
    expect(Array.from(turned.output.data)).not.toEqual(Array.from(plain.output.data));
  });
});
