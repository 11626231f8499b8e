// ALiBi (Press et al. 2022, "Train Short, Test Long", §3): alibiSlopes
// against the paper's slopes written out here, and attention's `alibi`
// option against the float64 reference of tests/reference/float64.mjs
// (attentionSlice with its bias, -m |i + P - j|, and its first-order bound)
// on both paths, without causal (the symmetric form) and with causal, a KV
// cache, a window, shared key/value heads, kvSeqLen and a mask.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

const { U, abs } = ref;
const T = (data, shape) => ({ data, shape });
/** Slice i of n floats of X (one batch or head of a flat tensor). */
const part = (X, i, n) => X.subarray(i * n, (i + 1) * n);

// The paper's slopes for 8 heads: 2^(-8i/8), i = 1..8.
const EIGHT = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256];

describe.each(CONFIGS)('alibi: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init({ ...cfg.options, logCalls: true });
  });

  test('alibiSlopes: the geometric slopes of the paper, and its rule for a head count that is no power of two', () => {
    expect(Array.from(ag.alibiSlopes(8))).toEqual(EIGHT);
    expect(Array.from(ag.alibiSlopes(1))).toEqual([1 / 256]);
    // 6 heads: the 4 slopes of 4 heads (2^-2, 2^-4, 2^-6, 2^-8), then the 1st and 3rd of 8 heads' (2^-1, 2^-3).
    expect(Array.from(ag.alibiSlopes(6))).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]);
    // 12 heads: the 8 above, then the 1st, 3rd, 5th and 7th of 16 heads' 2^(-i/2): 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
    const twelve = [...EIGHT, 0.7071067811865476, 0.3535533905932738, 0.1767766952966369, 0.08838834764831845];
    const got = ag.alibiSlopes(12);
    expect(got).toBeInstanceOf(Float32Array);
    expectClose(got, twelve, (i, want) => U * want, 'alibiSlopes(12), each within its float32 rounding');
    expect(() => ag.alibiSlopes(0)).toThrow(RangeError);
    expect(() => ag.alibiSlopes(2.5)).toThrow(/^alibiSlopes: h must be an integer; got 2\.5/);
  });

  /**
   * Checks attention(..., { alibi, ... }) on [B, Hq, Tq, dk] against the reference per slice, on both
   * paths: query i at position offset(b) + i, keys of batch b hidden by hidden(b, i, j).
   */
  function check(label, { B, Hq, Hkv, Tq, P, dk, dv, seed, opts, offset, hidden, slopes }) {
    const Tall = P + Tq;
    const r = ref.rng(seed);
    const Q = r.f32(B * Hq * Tq * dk);
    const [K, V] = [r.f32(B * Hkv * Tall * dk), r.f32(B * Hkv * Tall * dv, -2, 2)];
    // Rows from..from + n - 1 of every slice of X [B Hkv, Tall, d]: the cache (the first P) or this call's.
    const rows = (X, d, from, n) =>
      Float32Array.from(
        { length: B * Hkv * n * d },
        (_, x) => X[Math.floor(x / (n * d)) * Tall * d + from * d + (x % (n * d))],
      );
    const [pk, nk, pv, nv] = [rows(K, dk, 0, P), rows(K, dk, P, Tq), rows(V, dv, 0, P), rows(V, dv, P, Tq)];
    const cache = P ? { pastKey: T(pk, [B, Hkv, P, dk]), pastValue: T(pv, [B, Hkv, P, dv]) } : {};
    const scale = Math.fround(1 / Math.sqrt(dk));
    const m = slopes === true ? ag.alibiSlopes(Hq) : Float32Array.from(slopes);
    for (const streaming of [true, false]) {
      const res = ag.attention(T(Q, [B, Hq, Tq, dk]), T(nk, [B, Hkv, Tq, dk]), T(nv, [B, Hkv, Tq, dv]), {
        ...opts,
        ...cache,
        alibi: slopes,
        streaming,
      });
      for (let b = 0; b < B; b++)
        for (let h = 0; h < Hq; h++) {
          const s = b * Hq + h;
          const g = b * Hkv + Math.floor((h * Hkv) / Hq);
          const want = ref.attentionSlice(
            part(Q, s, Tq * dk),
            part(K, g, Tall * dk),
            part(V, g, Tall * dv),
            Tq,
            Tall,
            dk,
            dv,
            {
              scale,
              maskAt: (i, j) => (hidden(b, i, j) ? -Infinity : 0),
              variant: cfg.variant,
              streaming,
              alibi: { slope: m[h], offset: offset(b) },
            },
          );
          expectClose(
            part(res.output.data, s, Tq * dv),
            want.Y,
            (x) => want.bound[x] + 1e-300,
            `${label}, b ${b}, h ${h}, streaming ${streaming}`,
          );
        }
    }
  }

  test("no causal: the symmetric form -m |i - j|, keys after the query too; slopes given or the paper's", () => {
    const base = { B: 2, Hq: 4, Hkv: 4, Tq: 5, P: 0, dk: 8, dv: 4, opts: {}, offset: () => 0, hidden: () => false };
    check('alibi: true', { ...base, seed: 1, slopes: true });
    check('given slopes', { ...base, seed: 2, slopes: [0.3, 0, 1.5, 1 / 64] });
    // Longer rows, past a key tile of 256, and an odd width.
    check('300 keys', { ...base, Tq: 300, Hq: 2, Hkv: 2, dk: 5, seed: 3, slopes: true });
    expect(ag.callLog.at(-1).kernel).toBe('attention');
  });

  test('causal with a KV cache of P keys: query i at P + i; with a window; with shared key/value heads', () => {
    const P = 290;
    const base = { B: 2, Hq: 4, Tq: 7, P, dk: 8, dv: 3, offset: () => P };
    check('cache', { ...base, Hkv: 4, seed: 4, slopes: true, opts: { causal: true }, hidden: (b, i, j) => j > P + i });
    check('cache, GQA 4 on 2', {
      ...base,
      Hkv: 2,
      seed: 5,
      slopes: true,
      opts: { causal: true },
      hidden: (b, i, j) => j > P + i,
    });
    check('cache, window 20, MQA', {
      ...base,
      Hkv: 1,
      seed: 6,
      slopes: [0.5, 0.25, 2, 0.125],
      opts: { window: 20 },
      hidden: (b, i, j) => j > P + i || j <= P + i - 20,
    });
  });

  test('kvSeqLen: query i of batch b at kvSeqLen[b] - Tq + i, with and without causal; a mask on top', () => {
    const lengths = [9, 4];
    const base = { B: 2, Hq: 2, Hkv: 2, Tq: 3, P: 6, dk: 4, dv: 3, slopes: true, offset: (b) => lengths[b] - 3 };
    check('kvSeqLen', { ...base, seed: 7, opts: { kvSeqLen: lengths }, hidden: (b, i, j) => j >= lengths[b] });
    check('kvSeqLen, causal', {
      ...base,
      seed: 8,
      opts: { kvSeqLen: lengths, causal: true },
      hidden: (b, i, j) => j >= lengths[b] || j > lengths[b] - 3 + i,
    });
    const mask = Array.from({ length: 3 * 9 }, (_, x) => x % 4 !== 1);
    check('kvSeqLen, boolean mask', {
      ...base,
      seed: 9,
      opts: { kvSeqLen: lengths, mask: T(mask, [3, 9]) },
      hidden: (b, i, j) => j >= lengths[b] || !mask[i * 9 + j],
    });
  });

  test('the scores the softmax reads carry the bias; q = 0 leaves the bias alone, one rounding of -m |i - j|', () => {
    const [Tq, Tk] = [4, 6];
    const res = ag.attention(
      T(new Float32Array(2 * Tq * 2), [2, Tq, 2]),
      T(new Float32Array(2 * Tk * 2), [2, Tk, 2]),
      T(new Float32Array(2 * Tk), [2, Tk, 1]),
      {
        alibi: [0.5, 0.3],
        returnScores: true,
      },
    );
    const m = [0.5, Math.fround(0.3)];
    for (let h = 0; h < 2; h++)
      for (let i = 0; i < Tq; i++)
        for (let j = 0; j < Tk; j++) {
          const want = Math.fround(-m[h] * abs(i - j)); // the exact product, rounded once
          expect(res.scores.data[(h * Tq + i) * Tk + j] === want).toBe(true);
        }
    // 'raw' and 'capped' are the scores before the mask: without the bias.
    const raw = ag.attention(
      T(Float32Array.of(1, 0), [1, 2]),
      T(Float32Array.of(1, 0, 2, 0), [2, 2]),
      T(Float32Array.of(1, 2), [2, 1]),
      {
        alibi: [1],
        returnScores: 'raw',
      },
    );
    expect(Array.from(raw.scores.data)).toEqual([Math.fround(Math.SQRT1_2), Math.fround(2 * Math.SQRT1_2)]);
  });
});
