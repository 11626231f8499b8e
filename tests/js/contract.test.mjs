// The numeric contract beyond parity, on every configuration: overflow
// behaviour, masks and their broadcasting, causal alignment, fully masked
// rows, batched shapes, and an exact case where every variant must agree bit
// for bit with the exact sum.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

describe.each(CONFIGS)('numeric contract: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test('exact case: multiples of 1/64 in [-2, 2) give the exact dot product (every partial sum is exact in float32)', () => {
    const r = ref.rng(64);
    for (const n of [1, 7, 64, 65, 1000]) {
      const a = Float32Array.from({ length: n }, () => Math.floor(r() * 256 - 128) / 64);
      const b = Float32Array.from({ length: n }, () => Math.floor(r() * 256 - 128) / 64);
      expect(ag.dot(a, b)).toBe(ref.dot(a, b));
      expect(ag.squaredDistance(a, b)).toBe(ref.squaredDistance(a, b));
    }
  });

  test('overflow: squaredNorm and exp give Infinity, norm stays finite for huge finite inputs', () => {
    const big = [3e38, 3e38];
    expect(ag.squaredNorm(big)).toBe(Infinity);
    // |(3e38, 3e38)| = 3e38 sqrt(2) > float32 max: Infinity; half of that is finite.
    expect(ag.norm(big)).toBe(Infinity);
    expectClose(ag.norm([1e38, 1e38]), Math.fround(1e38) * Math.SQRT2, 1e38 * Math.SQRT2 * 4 * ref.U);
    // Subnormal inputs: the result is subnormal too, exact to a few of its ulps (2^-149).
    expectClose(ag.norm([1e-40, 1e-40]), Math.fround(1e-40) * Math.SQRT2, 4 * 2 ** -149 + 4 * ref.U * 1.5e-40);
    expect(ag.exp([89, -104]).data[0]).toBe(Infinity);
    expect(ag.exp([89, -104]).data[1]).toBe(0);
  });

  test('finite inputs whose scores overflow float32 give a RangeError, not NaN, and the next call is right', () => {
    // x / temperature = 1e3 / 1e-37 = 1e40 > float32 max: the row would be Infinity - Infinity.
    expect(() => ag.softmax([1e3, 1], { temperature: 1e-37 })).toThrow(
      /softmax: x\[0\] \/ temperature overflowed float32/,
    );
    // q.k = 1e40: the same for attention and multi-head attention. With scale 1 the product cannot
    // overflow a finite q.k, so what is named is the dot product itself.
    expect(() => ag.attention([[1e20]], [[1e20], [1]], [[1], [2]], { scale: 1 })).toThrow(RangeError);
    expect(() => ag.attention([[1e20]], [[1e20], [1]], [[1], [2]], { scale: 1 })).toThrow(
      /attention: the dot products Q K\^T\[0, 0\] overflowed float32/,
    );
    const I = [
      [1, 0],
      [0, 1],
    ];
    expect(() =>
      ag.multiHeadAttention(
        {
          query: [
            [1e20, 0],
            [0, 1],
          ],
        },
        { wQ: I, wK: I, wV: I, wO: I },
        { numHeads: 1 },
      ),
    ).toThrow(/multiHeadAttention: .*overflowed float32/);
    expect(ag.softmax([5, -4, 0]).data[0]).toBeCloseTo(0.9931854, 6);
  });

  test('the max subtraction matters: logits in [90, 100] overflow the naive softmax (NaN) but not the stable one', () => {
    const x = [90, 95, 100];
    const naive = ag.softmaxNaive(x).data;
    expect(Array.from(naive).some(Number.isNaN)).toBe(true);
    const stable = ag.softmax(x).data;
    expectClose(stable, ref.softmax(x, 1, 3), (i, w) => 64 * ref.U * w);
  });

  test("softmaxNaive's results as docs/numerics.md states them: NaN past ln(FLT_MAX), 0/0 below ln(2^-150), zeros when the sum overflows", () => {
    // exp(100) rounds to Infinity in float32: Infinity / Infinity and 1·e / Infinity.
    expect(Array.from(ag.softmaxNaive([100, 1]).data)).toEqual([NaN, 0]);
    // Both sides of ln(FLT_MAX) = 88.7228...: below it the weights are right.
    expect(Array.from(ag.softmaxNaive([88.72, 1]).data)[0]).toBe(1);
    expect(Array.from(ag.softmaxNaive([88.73, 1]).data)[0]).toBeNaN();
    // exp(-200) rounds to 0: 0 / 0 in every entry; one entry above ln(2^-150) = -103.97 is enough to avoid it.
    expect(Array.from(ag.softmaxNaive([-200, -200]).data)).toEqual([NaN, NaN]);
    expect(Array.from(ag.softmaxNaive([-200, -103]).data)).toEqual([0, 1]);
    // exp(88) = 1.65e38 is finite, four of them sum past FLT_MAX = 3.40e38: each weight is x / Infinity = 0.
    expect(Math.fround(Math.exp(88))).toBeLessThan(3.4028234663852886e38);
    expect(Array.from(ag.softmaxNaive([88, 88, 88, 88]).data)).toEqual([0, 0, 0, 0]);
    // softmax subtracts the maximum and gets all three right.
    expect(Array.from(ag.softmax([-200, -200]).data)).toEqual([0.5, 0.5]);
    expect(Array.from(ag.softmax([88, 88, 88, 88]).data)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(ag.softmax([100, 1]).data[0]).toBe(1);
  });

  test('softmax: temperature, boolean mask broadcast over rows, a fully masked row gives zeros', () => {
    const x = [
      [1, 2, 3],
      [4, 5, 6],
    ];
    const y = ag.softmax(x, { temperature: 2, mask: [true, false, true] }).data;
    const want = ref.softmax([1, 2, 3, 4, 5, 6], 2, 3, { temperature: 2, mask: [0, -Infinity, 0, 0, -Infinity, 0] });
    expectClose(y, want, (i, w) => 64 * ref.U * w);
    const z = ag.softmax(x, {
      mask: [
        [false, false, false],
        [true, true, true],
      ],
    }).data;
    expect(Array.from(z.subarray(0, 3))).toEqual([0, 0, 0]);
    expectClose(z.subarray(3), ref.softmax([4, 5, 6], 1, 3), (i, w) => 64 * ref.U * w);
  });

  test('attention: causal is top-left aligned when Tq != Tk; masks broadcast from [Tk], [Tq, Tk] and [B, 1, Tq, Tk]', () => {
    const r = ref.rng(7);
    const [B, H, Tq, Tk, dk, dv] = [2, 3, 4, 6, 5, 2];
    const Q = r.f32(B * H * Tq * dk);
    const K = r.f32(B * H * Tk * dk);
    const V = r.f32(B * H * Tk * dv);
    const scale = Math.fround(1 / Math.sqrt(dk));
    const maskB = Array.from({ length: B * Tq * Tk }, (_, i) => (i % 5 === 2 ? -Infinity : (i % 7) / 10));
    const maskK = [true, true, false, true, true, true];
    const variants = [
      { opts: { causal: true }, at: () => 0 },
      { opts: { mask: maskK }, at: (b, h, i, j) => (maskK[j] ? 0 : -Infinity) },
      {
        opts: { mask: { data: maskB, shape: [B, 1, Tq, Tk] }, causal: true },
        at: (b, h, i, j) => maskB[(b * Tq + i) * Tk + j],
      },
    ];
    for (const { opts, at } of variants) {
      const res = ag.attention(
        { data: Q, shape: [B, H, Tq, dk] },
        { data: K, shape: [B, H, Tk, dk] },
        { data: V, shape: [B, H, Tk, dv] },
        { ...opts, returnWeights: true },
      );
      expect(res.output.shape).toEqual([B, H, Tq, dv]);
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < H; h++) {
          const s = b * H + h;
          const want = ref.attentionSlice(
            Q.subarray(s * Tq * dk, (s + 1) * Tq * dk),
            K.subarray(s * Tk * dk, (s + 1) * Tk * dk),
            V.subarray(s * Tk * dv, (s + 1) * Tk * dv),
            Tq,
            Tk,
            dk,
            dv,
            { scale, causal: Boolean(opts.causal), maskAt: (i, j) => at(b, h, i, j), variant: ag.variant },
          );
          expectClose(res.output.data.subarray(s * Tq * dv, (s + 1) * Tq * dv), want.Y, (i) => want.bound[i] + 1e-30);
          expectClose(
            res.weights.data.subarray(s * Tq * Tk, (s + 1) * Tq * Tk),
            want.A,
            (i) => want.eRow[Math.floor(i / Tk)] * want.A[i],
          );
          if (opts.causal) {
            // Query i sees keys 0..i only (top-left).
            for (let i = 0; i < Tq; i++)
              for (let j = i + 1; j < Tk; j++) expect(res.weights.data[(s * Tq + i) * Tk + j]).toBe(0);
          }
        }
      }
    }
  });

  test('attention: K and V shared by every head broadcast against Q [B, h, Tq, d_k] (zero strides)', () => {
    const r = ref.rng(8);
    const Q = r.f32(2 * 3 * 2 * 4);
    const K = r.f32(5 * 4);
    const V = r.f32(5 * 3);
    const res = ag.attention({ data: Q, shape: [2, 3, 2, 4] }, { data: K, shape: [5, 4] }, { data: V, shape: [5, 3] });
    expect(res.output.shape).toEqual([2, 3, 2, 3]);
    for (let s = 0; s < 6; s++) {
      // No weights asked for: the streaming path, and its bound.
      const want = ref.attentionSlice(Q.subarray(s * 8, (s + 1) * 8), K, V, 2, 5, 4, 3, {
        scale: Math.fround(0.5),
        variant: ag.variant,
        streaming: true,
      });
      expectClose(res.output.data.subarray(s * 6, (s + 1) * 6), want.Y, (i) => want.bound[i] + 1e-30);
    }
  });

  test('multi-head attention: a fully masked key set gives zero weights and an output equal to b_O', () => {
    const d = 4;
    const W = { data: Float32Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? 1 : 0.25)), shape: [4, 4] };
    const bO = [0.5, -1, 2, 0];
    const res = ag.multiHeadAttention(
      {
        query: [[1, 2, 3, 4]],
        key: [
          [1, 0, 0, 0],
          [0, 1, 0, 0],
        ],
      },
      { wQ: W, wK: W, wV: W, wO: W, bO },
      { numHeads: 2, keyPaddingMask: [true, true], returnWeights: true },
    );
    expect(res.weights.shape).toEqual([2, 1, 2]);
    expect(Array.from(res.weights.data)).toEqual([0, 0, 0, 0]);
    expect(Array.from(res.output.data)).toEqual(bO);
    expect(res.output.shape).toEqual([1, d]);
  });

  test('matmul broadcasts batch dimensions (NumPy rules)', () => {
    const r = ref.rng(9);
    const A = r.f32(3 * 1 * 2 * 4);
    const B = r.f32(1 * 2 * 4 * 5);
    const C = ag.matmul({ data: A, shape: [3, 1, 2, 4] }, { data: B, shape: [1, 2, 4, 5] });
    expect(C.shape).toEqual([3, 2, 2, 5]);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 2; j++) {
        const { C: want, mag } = ref.matmul(A.subarray(i * 8, (i + 1) * 8), B.subarray(j * 20, (j + 1) * 20), 2, 4, 5);
        expectClose(C.data.subarray((i * 2 + j) * 10, (i * 2 + j + 1) * 10), want, (k) => 5 * ref.U * mag[k]);
      }
    }
  });

  test('batch slices that start 1 to 3 elements past a 16-byte boundary (matmul and attention read them in place)', () => {
    const r = ref.rng(10);
    // A [4, 3, 5]: slices start at elements 0, 15, 30, 45 (offsets 0, 3, 2, 1 mod 4); B is shared.
    const A = r.f32(4 * 15);
    const B = r.f32(5 * 7);
    const C = ag.matmul({ data: A, shape: [4, 3, 5] }, { data: B, shape: [5, 7] });
    for (let i = 0; i < 4; i++) {
      const { C: want, mag } = ref.matmul(A.subarray(i * 15, (i + 1) * 15), B, 3, 5, 7);
      expectClose(C.data.subarray(i * 21, (i + 1) * 21), want, (k) => 7 * ref.U * mag[k]);
    }
    // Q [3, 2, 5], K [3, 3, 5], V [3, 3, 3]: slices at 10, 15 and 9 elements.
    const Q = r.f32(30);
    const K = r.f32(45);
    const V = r.f32(27);
    const res = ag.attention(
      { data: Q, shape: [3, 2, 5] },
      { data: K, shape: [3, 3, 5] },
      { data: V, shape: [3, 3, 3] },
      { causal: true },
    );
    for (let b = 0; b < 3; b++) {
      const want = ref.attentionSlice(
        Q.subarray(b * 10, b * 10 + 10),
        K.subarray(b * 15, b * 15 + 15),
        V.subarray(b * 9, b * 9 + 9),
        2,
        3,
        5,
        3,
        {
          scale: Math.fround(1 / Math.sqrt(5)),
          causal: true,
          variant: ag.variant,
          streaming: true,
        },
      );
      expectClose(res.output.data.subarray(b * 6, b * 6 + 6), want.Y, (i) => want.bound[i] + 1e-30);
    }
  });
});
