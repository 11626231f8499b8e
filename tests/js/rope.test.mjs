// rope (rotary position embedding, registry.inc) and attention's rope option,
// on every build and variant, against the float64 reference of
// tests/reference/float64.mjs. rope has no reduction: both variants do the
// same two products and one sum per element from one float64 table, so they
// give the same floats, and each is within 4 u (|x_a| + |x_b|) of the
// reference (registry.inc). Attention with `rope` is attention on the turned
// Q and K: the same kernels in the same order, so equal bit for bit.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init } from './helpers.mjs';

const { U } = ref;
const T = (data, shape) => ({ data, shape });
const bound = (mag) => Array.from(mag, (m) => 4 * U * m + 3 * 2 ** -149);

describe.each(CONFIGS)('rope: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init({ ...cfg.options, logCalls: true });
  });

  test('x [B, h, T, d], default positions 0..T-1, bases 10000 and 500000, both layouts, rank 2 to 4', () => {
    const r = ref.rng(31);
    for (const shape of [
      [5, 2],
      [3, 7, 8],
      [2, 2, 9, 6],
    ]) {
      const [Tn, d] = shape.slice(-2);
      const rows = shape.reduce((a, b) => a * b, 1) / (Tn * d);
      const x = r.f32(rows * Tn * d, -2, 2);
      for (const base of [10000, 500000])
        for (const interleaved of [true, false]) {
          const got = ag.rope(T(x, shape), { base, interleaved });
          expect(got.shape).toEqual(shape);
          const positions = Array.from({ length: Tn }, (_, t) => t);
          const want = ref.rope(x, positions, rows, Tn, d, { base, interleaved });
          expectClose(got.data, want.y, bound(want.mag), `${shape} base ${base} interleaved ${interleaved}`);
        }
    }
    expect(ag.callLog.at(-1)).toMatchObject({ kernel: 'rope', args: { x: [2, 2, 9, 6], positions: [9] } });
  });

  test('fractional positions and a base that is no float32 are kept: the angles are float64', () => {
    const r = ref.rng(35);
    const x = r.f32(3 * 64, -1, 1);
    const positions = [16777215.5, 1e6 + 0.3, -2.75];
    for (const base of [10000, Math.PI * 1000, 10000.001]) {
      const got = ag.rope(T(x, [3, 64]), { positions, base });
      const want = ref.rope(x, positions, 1, 3, 64, { base });
      expectClose(got.data, want.y, bound(want.mag), `base ${base}`);
    }
  });

  test('the two layouts turn different pairs: the same x gives different results, each its own reference', () => {
    const x = Float32Array.of(1, 2, 3, 4);
    const a = ag.rope(T(x, [1, 4]), { positions: [1] }).data;
    const b = ag.rope(T(x, [1, 4]), { positions: [1], interleaved: false }).data;
    expectClose(a, ref.rope(x, [1], 1, 1, 4).y, bound(ref.rope(x, [1], 1, 1, 4).mag));
    const half = ref.rope(x, [1], 1, 1, 4, { interleaved: false });
    expectClose(b, half.y, bound(half.mag));
    expect(Array.from(a)).not.toEqual(Array.from(b));
  });

  test('position 0 is the identity; a quarter turn maps (1, 0) to (0, 1) within the bound', () => {
    const x = Float32Array.of(0.3, -0.7, 1.5, 2);
    expect(ag.rope(T(x, [1, 4]), { positions: [0] }).data).toEqual(x);
    const q = ag.rope(T(Float32Array.of(1, 0), [1, 2]), { positions: [Math.PI / 2] }).data;
    const want = ref.rope(Float32Array.of(1, 0), [Math.fround(Math.PI / 2)], 1, 1, 2);
    expectClose(q, want.y, bound(want.mag));
  });

  test('relative positions: rope(q, m) . rope(k, n) depends on m - n only', () => {
    const r = ref.rng(32);
    const [q, k] = [r.f32(16), r.f32(16)];
    const score = (m, n) =>
      ref.dot(ag.rope(T(q, [1, 16]), { positions: [m] }).data, ag.rope(T(k, [1, 16]), { positions: [n] }).data);
    // Each turned element is off by <= 4 u (|x_a| + |x_b|) and at most |x_a| + |x_b| in size; the dot
    // in float64 adds nothing that matters: a score moves by <= 8 u sum_j (|q_a|+|q_b|)(|k_a|+|k_b|).
    let mag = 0;
    for (let j = 0; j < 16; j++) mag += (ref.abs(q[j]) + ref.abs(q[j ^ 1])) * (ref.abs(k[j]) + ref.abs(k[j ^ 1]));
    const s0 = score(7, 2);
    for (const shift of [1, 100, 10000])
      expect(ref.abs(score(7 + shift, 2 + shift) - s0)).toBeLessThanOrEqual(16 * U * mag);
    expect(ref.abs(score(9, 2) - s0)).toBeGreaterThan(1e-3);
  });

  test("attention's rope option is attention on the turned Q and K, bit for bit, with GQA and a KV cache", () => {
    const r = ref.rng(33);
    const [B, Hq, Hkv, Tq, P, dk, dv] = [2, 4, 2, 3, 5, 8, 4];
    const Q = T(r.f32(B * Hq * Tq * dk), [B, Hq, Tq, dk]);
    const K = T(r.f32(B * Hkv * Tq * dk), [B, Hkv, Tq, dk]);
    const V = T(r.f32(B * Hkv * Tq * dv), [B, Hkv, Tq, dv]);
    const pastKey = T(r.f32(B * Hkv * P * dk), [B, Hkv, P, dk]);
    const pastValue = T(r.f32(B * Hkv * P * dv), [B, Hkv, P, dv]);
    for (const rope of [true, { base: 500000, interleaved: false }]) {
      const settings = rope === true ? {} : rope;
      const positions = Array.from({ length: Tq }, (_, i) => P + i);
      const turned = (x) => ag.rope(x, { positions, ...settings });
      for (const streaming of [true, false]) {
        const opts = { causal: true, pastKey, pastValue, streaming };
        const got = ag.attention(Q, K, V, { ...opts, rope });
        const want = ag.attention(turned(Q), turned(K), V, opts);
        expect(got.output.data).toEqual(want.output.data);
        expect(got.presentKey.data).toEqual(want.presentKey.data);
      }
    }
  });

  test('rope.start places the new tokens when the cache was trimmed (a rolling cache of a sliding window)', () => {
    // Decoding with window w, keeping only the last w - 1 cached rows: P stops being the position,
    // so each step says where its token is; the outputs are the rows of the whole sequence.
    const r = ref.rng(36);
    const [Tn, dk, dv, w] = [7, 4, 2, 3];
    const [Q, K, V] = [r.f32(Tn * dk), r.f32(Tn * dk), r.f32(Tn * dv)];
    const whole = ag.attention(T(Q, [Tn, dk]), T(K, [Tn, dk]), T(V, [Tn, dv]), { window: w, rope: true });
    let cache = null;
    for (let t = 0; t < Tn; t++) {
      const row = (X, d) => T(X.slice(t * d, (t + 1) * d), [1, d]);
      const step = ag.attention(row(Q, dk), row(K, dk), row(V, dv), {
        window: w,
        rope: { start: t },
        ...(cache ? { pastKey: cache.k, pastValue: cache.v } : {}),
      });
      // Same turned floats, same visible keys: only the order of the sums over a row differs (the
      // bound of the previous test, with d_k = 4: well under 1200 u).
      expectClose(step.output.data, whole.output.data.slice(t * dv, (t + 1) * dv), 1200 * U, `step ${t}`);
      const keys = step.presentKey ?? ag.rope(row(K, dk), { positions: [t] });
      const values = step.presentValue ?? row(V, dv);
      const rows = keys.shape[0];
      const keep = Math.min(rows, w - 1);
      cache = {
        k: T(keys.data.slice((rows - keep) * dk), [keep, dk]),
        v: T(values.data.slice((rows - keep) * dv), [keep, dv]),
      };
    }
  });

  test('decoding one token at a time with rope and a cache gives the rows of the whole causal sequence', () => {
    // Step t turns its query and key at position t and appends the turned key to the cache; the
    // whole sequence at once turns all of them at 0..T-1 (the same table entries, so the same
    // turned floats). The rows then differ only by the order of the sums over a longer row, each
    // within the streaming bound of registry.inc, (2 D + 2 e + (g + 64 + 3) u) max|v| for one
    // tile: entries in [-1, 1] turned are at most 2 in size, so with d_k = 8 and scale 1/sqrt(8)
    // a score's error D <= (9 + 2) u 32 / sqrt(8) < 130 u, e <= 4 u, g <= 258: under 600 u per
    // side, 1200 u for the difference (max|v| <= 1).
    const r = ref.rng(34);
    const [Tn, dk, dv] = [6, 8, 4];
    const Q = r.f32(Tn * dk);
    const K = r.f32(Tn * dk);
    const V = r.f32(Tn * dv);
    const whole = ag.attention(T(Q, [Tn, dk]), T(K, [Tn, dk]), T(V, [Tn, dv]), { causal: true, rope: true });
    let cache = null;
    for (let t = 0; t < Tn; t++) {
      const row = (X, d) => T(X.slice(t * d, (t + 1) * d), [1, d]);
      const step = ag.attention(row(Q, dk), row(K, dk), row(V, dv), {
        causal: true,
        rope: true,
        ...(cache ? { pastKey: cache.presentKey, pastValue: cache.presentValue } : {}),
      });
      // Without a cache there is no presentKey: the first step's cache is its own turned key and value.
      cache = t === 0 ? { presentKey: ag.rope(row(K, dk)), presentValue: row(V, dv) } : step;
      expectClose(step.output.data, whole.output.data.slice(t * dv, (t + 1) * dv), 1200 * U, `step ${t}`);
    }
    expect(cache.presentKey.shape).toEqual([Tn, dk]);
  });
});
