// The KV cache object (createKvCache; Pope et al. 2022, "Efficiently Scaling
// Transformer Inference", §2) with attention's `cache` option, on every
// configuration: a decode loop through the cache against the float64
// reference of the whole sequence (the streaming and materialized bounds of
// registry.inc: attention, as tests/reference/float64.mjs attentionSlice
// states them), and bit for bit against the same loop through pastKey and
// pastValue: both calls run the same kernel on the same path with the same
// dims except K's and V's strides (k_sb, k_sh; a cache of capacity C per
// head has k_sh = C d_k where the joined present rows have (P + Tk) d_k),
// and the kernel's order of operations does not depend on the strides, so
// the same floats come out. Then errors, which leave the cache as it was,
// and wasm memory growth between steps.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init, thrownBy } from './helpers.mjs';

const { U } = ref;
const T = (data, shape) => ({ data, shape });
/** Slice i of n floats of X (one batch or head of a flat tensor). */
const part = (X, i, n) => X.subarray(i * n, (i + 1) * n);
/** Rows [t0, t1) of every slice of a flat [slices, Tn, d] tensor, as [slices, t1 - t0, d] data. */
function rows(X, slices, Tn, d, t0, t1) {
  const out = new Float32Array(slices * (t1 - t0) * d);
  for (let s = 0; s < slices; s++) out.set(X.subarray((s * Tn + t0) * d, (s * Tn + t1) * d), s * (t1 - t0) * d);
  return out;
}

const [B, Hq, Hkv, dk, dv] = [2, 4, 2, 8, 4];
const g = Hq / Hkv;

/** A sequence of Tn tokens: Q [B, Hq, Tn, dk], K [B, Hkv, Tn, dk], V [B, Hkv, Tn, dv] (flat). */
function sequence(seed, Tn) {
  const r = ref.rng(seed);
  return { Tn, Q: r.f32(B * Hq * Tn * dk), K: r.f32(B * Hkv * Tn * dk), V: r.f32(B * Hkv * Tn * dv, -2, 2) };
}

/** The inputs of step [t0, t1) of a sequence: the queries, keys and values of those tokens. */
function step(seq, t0, t1) {
  const n = t1 - t0;
  return [
    T(rows(seq.Q, B * Hq, seq.Tn, dk, t0, t1), [B, Hq, n, dk]),
    T(rows(seq.K, B * Hkv, seq.Tn, dk, t0, t1), [B, Hkv, n, dk]),
    T(rows(seq.V, B * Hkv, seq.Tn, dv, t0, t1), [B, Hkv, n, dv]),
  ];
}

/** The steps of a decode: a prefill of `first` tokens, then one token at a time, as [t0, t1) pairs. */
const steps = (Tn, first) => [[0, first], ...Array.from({ length: Tn - first }, (_, i) => [first + i, first + i + 1])];

/** A snapshot of a cache (length, keys and values), to compare after an error. */
const snapshot = (c) => ({ length: c.length, keys: c.keys(), values: c.values() });

describe.each(CONFIGS)('the KV cache object: $label', (cfg) => {
  let ag;
  let heapAtStart;
  beforeAll(async () => {
    ag = await init(cfg.options);
    ag.attention([[1]], [[1]], [[1]]);
    heapAtStart = ag.heapAllocatedBytes();
  });
  afterAll(() => {
    // Every cache below was disposed: the heap is back where it started.
    expect(ag.heapAllocatedBytes()).toBe(heapAtStart);
  });

  test('createKvCache: sizes, an empty cache, keys and values copies, reset, dispose', () => {
    const c = ag.createKvCache({ batch: 2, kvHeads: 3, capacity: 5, dK: 4, dV: 2 });
    expect([c.batch, c.kvHeads, c.capacity, c.dK, c.dV, c.length]).toEqual([2, 3, 5, 4, 2, 0]);
    expect(c.keys()).toEqual({ data: new Float32Array(0), shape: [2, 3, 0, 4] });
    expect(c.values()).toEqual({ data: new Float32Array(0), shape: [2, 3, 0, 2] });
    expect(() => (c.length = 3)).toThrow(TypeError);
    expect(() => (c.capacity = 3)).toThrow(TypeError);
    const d = ag.createKvCache({ kvHeads: 1, capacity: 2, dK: 6 });
    expect([d.batch, d.dV]).toEqual([1, 6]);
    // Rows written by a call are what keys() and values() copy out, in [B, h_kv, P, d] order.
    const k = Float32Array.from({ length: 24 }, (_, i) => i / 8);
    const v = Float32Array.from({ length: 12 }, (_, i) => -i / 4);
    ag.attention(T(new Float32Array(24), [2, 3, 1, 4]), T(k, [2, 3, 1, 4]), T(v, [2, 3, 1, 2]), { cache: c });
    expect(c.length).toBe(1);
    expect(c.keys()).toEqual({ data: k, shape: [2, 3, 1, 4] });
    expect(c.values()).toEqual({ data: v, shape: [2, 3, 1, 2] });
    expect(c.keys().data).not.toBe(c.keys().data);
    c.reset();
    expect(c.length).toBe(0);
    expect(c.keys().shape).toEqual([2, 3, 0, 4]);
    c.dispose();
    c.dispose(); // again: nothing
    for (const use of [() => c.length, () => c.keys(), () => c.values(), () => c.reset()]) {
      const e = thrownBy(use);
      expect(e).toBeInstanceOf(Error);
      expect(e.message).toMatch(/^kvCache\.\w+: the KV cache was disposed; create a new one with createKvCache$/);
    }
    expect([c.capacity, c.dK]).toEqual([5, 4]);
    // More arguments than a method takes: the count is named, before anything else (checks.js).
    expect(() => d.reset(0)).toThrow(
      new TypeError('kvCache.reset: takes no arguments but was given 1; argument 1 is number 0'),
    );
    expect(() => d.keys({})).toThrow(
      new TypeError('kvCache.keys: takes no arguments but was given 1; argument 1 is an object with keys {}'),
    );
    d.dispose();
  });

  test('truncate keeps the first rows, and the next call writes after them', () => {
    const c = ag.createKvCache({ kvHeads: 1, capacity: 4, dK: 2 });
    const row = (i) => T(Float32Array.of(i, -i), [1, 1, 1, 2]);
    for (const i of [1, 2, 3]) ag.attention(row(0), row(i), row(10 * i), { cache: c });
    expect(c.length).toBe(3);
    c.truncate(1); // the rows of 2 and 3 forgotten, as rejected draft tokens are
    expect(c.length).toBe(1);
    expect(c.keys()).toEqual({ data: Float32Array.of(1, -1), shape: [1, 1, 1, 2] });
    ag.attention(row(0), row(4), row(40), { cache: c });
    expect(c.keys()).toEqual({ data: Float32Array.of(1, -1, 4, -4), shape: [1, 1, 2, 2] });
    expect(c.values()).toEqual({ data: Float32Array.of(10, -10, 40, -40), shape: [1, 1, 2, 2] });
    c.truncate(2); // to its own length: nothing changes
    expect(c.length).toBe(2);
    // Bad lengths: named, and the cache is unchanged.
    for (const [bad, type, text] of [
      [3, RangeError, 'kvCache.truncate: length must be from 0 to the 2 rows held'],
      [-1, RangeError, 'kvCache.truncate: length must be from 0 to the 2 rows held'],
      [1.5, TypeError, 'kvCache.truncate: length must be an integer; got number 1.5'],
      ['1', TypeError, 'kvCache.truncate: length must be an integer; got'],
    ]) {
      const e = thrownBy(() => c.truncate(bad));
      expect(e).toBeInstanceOf(type);
      expect(e.message).toContain(text);
    }
    expect(() => c.truncate(1, 2)).toThrow(TypeError);
    expect(c.length).toBe(2);
    c.truncate(0);
    expect(c.keys().shape).toEqual([1, 1, 0, 2]);
    c.dispose();
    expect(() => c.truncate(0)).toThrow(
      new Error('kvCache.truncate: the KV cache was disposed; create a new one with createKvCache'),
    );
  });

  test('createKvCache: bad options are a TypeError or RangeError naming the option', () => {
    const heap = ag.heapAllocatedBytes();
    const cases = [
      [undefined, TypeError, 'createKvCache: options { batch, kvHeads, capacity, dK, dV } is missing'],
      [
        { capacity: 4, dK: 2 },
        TypeError,
        'createKvCache: options.kvHeads is required and was not given; expected an integer from 1 to 2147483647',
      ],
      [
        { kvHeads: 1, dK: 2 },
        TypeError,
        'createKvCache: options.capacity is required and was not given; expected an integer from 1 to 2147483647',
      ],
      [
        { kvHeads: 1, capacity: 4 },
        TypeError,
        'createKvCache: options.dK is required and was not given; expected an integer from 1 to 2147483647',
      ],
      [{ kvHeads: 1, capacity: 4, dK: 2, heads: 2 }, TypeError, "createKvCache: options has an unknown key 'heads'"],
      [{ kvHeads: 1.5, capacity: 4, dK: 2 }, TypeError, 'createKvCache: options.kvHeads must be an integer; got 1.5'],
      [{ kvHeads: 1, capacity: 0, dK: 2 }, RangeError, 'createKvCache: options.capacity must be between 1 and'],
      [{ kvHeads: 1, capacity: 4, dK: 2, dV: -1 }, RangeError, 'createKvCache: options.dV must be between 1 and'],
      [{ kvHeads: 64, capacity: 65536, dK: 128 }, RangeError, 'more than the 1 GiB limit of the heap'],
    ];
    for (const [options, type, message] of cases) {
      const e = thrownBy(() => ag.createKvCache(options));
      expect(e).toBeInstanceOf(type);
      expect(e.message).toContain(message);
    }
    expect(ag.heapAllocatedBytes()).toBe(heap);
  });

  // Decode loops: a prefill of 3 tokens, then one at a time, to 9 tokens (the last step at P = 8).
  const loops = [
    ['causal', { causal: true }],
    ['causal, materialized', { causal: true, streaming: false }],
    ['window 3', { window: 3 }],
    ['window 3, materialized', { window: 3, streaming: false }],
  ];

  test.each(loops)('a decode loop (%s) through the cache equals attention over the whole sequence', (_, opts) => {
    // Each step's rows against the float64 reference of those query rows over all keys 0..t1 - 1,
    // query i at position t0 + i (causal: keys up to it; window w: its last w keys), within the
    // bound of the path taken; query head h reads key/value head floor(h / g).
    const seq = sequence(41, 9);
    const cache = ag.createKvCache({ batch: B, kvHeads: Hkv, capacity: 12, dK: dk, dV: dv });
    const scale = Math.fround(1 / Math.sqrt(dk));
    const w = opts.window ?? Infinity;
    for (const [t0, t1] of steps(seq.Tn, 3)) {
      const res = ag.attention(...step(seq, t0, t1), { ...opts, cache });
      expect(Object.keys(res)).toEqual(['output']);
      expect(cache.length).toBe(t1);
      const Tq = t1 - t0;
      for (let b = 0; b < B; b++)
        for (let h = 0; h < Hq; h++) {
          const kv = b * Hkv + Math.floor(h / g);
          const K = rows(seq.K, B * Hkv, seq.Tn, dk, 0, t1).subarray(kv * t1 * dk, (kv + 1) * t1 * dk);
          const V = rows(seq.V, B * Hkv, seq.Tn, dv, 0, t1).subarray(kv * t1 * dv, (kv + 1) * t1 * dv);
          const q = part(rows(seq.Q, B * Hq, seq.Tn, dk, t0, t1), b * Hq + h, Tq * dk);
          const want = ref.attentionSlice(q, K, V, Tq, t1, dk, dv, {
            scale,
            maskAt: (i, j) => (j > t0 + i || j <= t0 + i - w ? -Infinity : 0),
            variant: cfg.variant,
            streaming: opts.streaming !== false,
          });
          expectClose(part(res.output.data, b * Hq + h, Tq * dv), want.Y, want.bound, `[${t0}, ${t1}) b ${b} h ${h}`);
        }
    }
    expect(cache.keys()).toEqual({ data: seq.K, shape: [B, Hkv, 9, dk] });
    expect(cache.values()).toEqual({ data: seq.V, shape: [B, Hkv, 9, dv] });
    cache.dispose();
  });

  /** The options of one step [t0, t1) for a combination, given the number of keys after the step. */
  const combos = [
    ['causal', () => ({ causal: true })],
    ['causal, materialized, weights', () => ({ causal: true, returnWeights: true })],
    ['rope, causal', () => ({ rope: true, causal: true })],
    ['rope half-split, window 2, base 500000', () => ({ rope: { base: 500000, interleaved: false }, window: 2 })],
    ['softcap, alibi, causal', () => ({ softcap: 3, alibi: true, causal: true })],
    ['scores, materialized', () => ({ returnScores: 'raw', causal: true })],
    ['a boolean mask of P + Tk columns', (Tq, keys) => ({ mask: { data: maskOf(Tq, keys), shape: [Tq, keys] } })],
    ['kvSeqLen, causal', (Tq, keys) => ({ kvSeqLen: [keys, keys - 1], causal: true })],
  ];
  /** A boolean mask [Tq, keys] hiding every third key (never all of a row). */
  const maskOf = (Tq, keys) => Array.from({ length: Tq * keys }, (_, x) => x % keys === 0 || x % 3 !== 1);

  test.each(combos)('with %s, the cache loop equals the pastKey loop bit for bit', (_, options) => {
    // Same kernel, same path and order, K and V read through other strides: the same floats. The cache
    // holds what presentKey and presentValue held (K turned by rope, as there).
    const seq = sequence(43, 7);
    const cache = ag.createKvCache({ batch: B, kvHeads: Hkv, capacity: 7, dK: dk, dV: dv });
    let past = { pastKey: T(new Float32Array(0), [B, Hkv, 0, dk]), pastValue: T(new Float32Array(0), [B, Hkv, 0, dv]) };
    for (const [t0, t1] of steps(seq.Tn, 2)) {
      const opts = options(t1 - t0, t1);
      const got = ag.attention(...step(seq, t0, t1), { ...opts, cache });
      const want = ag.attention(...step(seq, t0, t1), { ...opts, ...past });
      expect(got.output).toEqual(want.output);
      expect(got.weights).toEqual(want.weights);
      expect(got.scores).toEqual(want.scores);
      expect(got.presentKey).toBeUndefined();
      past = { pastKey: want.presentKey, pastValue: want.presentValue };
      expect(cache.keys()).toEqual(want.presentKey);
      expect(cache.values()).toEqual(want.presentValue);
    }
    expect(cache.length).toBe(7);
    cache.dispose();
  });

  test('a decode loop with rope equals the whole causal sequence with rope', () => {
    // Step t turns its query and key at position t, as the whole sequence turns them at 0..T - 1 (the same
    // turned floats); the rows differ by the order of the sums over a row only: the bound of rope.test.mjs
    // (d_k = 8, entries within [-1, 1], values within [-2, 2]: 2400 u).
    const seq = sequence(47, 6);
    const cache = ag.createKvCache({ batch: B, kvHeads: Hkv, capacity: 6, dK: dk, dV: dv });
    const whole = ag.attention(...step(seq, 0, seq.Tn), { causal: true, rope: true }).output.data;
    for (const [t0, t1] of steps(seq.Tn, 1)) {
      const out = ag.attention(...step(seq, t0, t1), { causal: true, rope: true, cache }).output.data;
      expectClose(out, rows(whole, B * Hq, seq.Tn, dv, t0, t1), 2400 * U, `step ${t0}`);
    }
    // The cache holds the keys turned at their positions: those of rope over the whole sequence.
    const turned = ag.rope(T(seq.K, [B, Hkv, seq.Tn, dk]));
    expect(cache.keys()).toEqual(turned);
    cache.dispose();
  });

  test('errors leave the cache as it was (length and rows) and the module usable', () => {
    const seq = sequence(53, 6);
    const cache = ag.createKvCache({ batch: B, kvHeads: Hkv, capacity: 5, dK: dk, dV: dv });
    let past = null;
    const decode = (t0, t1) => {
      const got = ag.attention(...step(seq, t0, t1), { causal: true, rope: true, cache });
      const want = ag.attention(...step(seq, t0, t1), { causal: true, rope: true, ...(past ?? {}) });
      expect(got.output).toEqual(want.output);
      past = want.presentKey
        ? { pastKey: want.presentKey, pastValue: want.presentValue }
        : { pastKey: ag.rope(step(seq, t0, t1)[1]), pastValue: step(seq, t0, t1)[2] };
    };
    decode(0, 3);
    const [q, k, v] = step(seq, 3, 4);
    const other = ag.createKvCache({ kvHeads: 1, capacity: 2, dK: dk });
    other.dispose();
    const bad = T(
      Float32Array.from(k.data, (x, i) => (i === 5 ? NaN : x)),
      k.shape,
    );
    const huge = T(
      Float32Array.from(k.data, () => 3e38),
      k.shape,
    );
    const cases = [
      [
        'P + Tk beyond the capacity',
        () => ag.attention(...step(seq, 3, 6), { cache }),
        RangeError,
        'attention: options.cache holds P = 3 of its capacity 5 rows and K brings Tk = 3: P + Tk = 6 > 5',
      ],
      [
        'another h_kv',
        () => ag.attention(q, T(k.data, [B, 1, 2, dk]), T(v.data.slice(0, B * 2 * dv), [B, 1, 2, dv]), { cache }),
        RangeError,
        'attention: K [2, 1, 2, 8] does not fit options.cache, whose keys and values are [B, h_kv, capacity, d_k] = [2, 2, 5, 8]',
      ],
      [
        'another d_v',
        () => ag.attention(q, k, T(k.data, [B, Hkv, 1, dk]), { cache }),
        RangeError,
        'attention: V [2, 2, 1, 8] does not fit options.cache',
      ],
      [
        'another B',
        () =>
          ag.attention(
            T(q.data.slice(0, Hq * dk), [1, Hq, 1, dk]),
            T(k.data.slice(0, Hkv * dk), [1, Hkv, 1, dk]),
            T(v.data.slice(0, Hkv * dv), [1, Hkv, 1, dv]),
            { cache },
          ),
        RangeError,
        'expected [2, 2, 1, 8] (B = 2, h_kv = 2, d_k = 8)',
      ],
      [
        'cache with pastKey',
        () => ag.attention(q, k, v, { cache, ...past }),
        TypeError,
        'attention: options.cache and options.pastKey are two KV caches; give one',
      ],
      [
        'not a cache',
        () => ag.attention(q, k, v, { cache: {} }),
        TypeError,
        'attention: options.cache must be a KV cache made by createKvCache',
      ],
      [
        'a disposed cache',
        () => ag.attention(q, k, v, { cache: other }),
        Error,
        'attention: options.cache (a KV cache) was disposed',
      ],
      [
        'a NaN in K',
        () => ag.attention(q, bad, v, { cache, causal: true }),
        RangeError,
        'attention: K[0, 0, 0, 5] is NaN',
      ],
      [
        'scores that overflow',
        () => ag.attention(q, huge, v, { cache, scale: 1e30 }),
        RangeError,
        'overflowed float32',
      ],
      ['a bad option after the cache', () => ag.attention(q, k, v, { cache, window: 0 }), RangeError, 'options.window'],
    ];
    for (const [label, call, type, message] of cases) {
      const before = snapshot(cache);
      const heap = ag.heapAllocatedBytes();
      const e = thrownBy(call);
      expect([label, e?.constructor]).toEqual([label, type]);
      expect([label, e.message]).toEqual([label, expect.stringContaining(message)]);
      expect([label, snapshot(cache)]).toEqual([label, before]);
      expect([label, ag.heapAllocatedBytes()]).toEqual([label, heap]);
    }
    // A cache of another instance is refused too.
    return init(cfg.options).then((ag2) => {
      const e = thrownBy(() => ag2.attention(q, k, v, { cache }));
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toContain("options.cache was made by another instance's createKvCache");
      // The loop goes on where it was, bit for bit as the pastKey loop.
      decode(3, 4);
      decode(4, 5);
      expect(cache.length).toBe(5);
      expect(cache.keys()).toEqual(past.pastKey);
      cache.dispose();
    });
  });

  test('code run while a call reads its arguments cannot free or reuse the cache under it', () => {
    const cache = ag.createKvCache({ kvHeads: 1, capacity: 4, dK: 2 });
    const row = (i) => T(Float32Array.of(i, -i), [1, 1, 1, 2]);
    ag.attention(row(0), row(1), row(10), { cache });
    // A mask whose row is a getter that runs `action` the first time it is read: after the cache option
    // was read, before anything is written.
    const maskRunning = (action, keys) => {
      const mask = [new Array(keys).fill(0)];
      let done = false;
      const once = () => {
        if (!done) ((done = true), action());
        return new Array(keys).fill(0);
      };
      Object.defineProperty(mask, 0, { get: once, enumerable: true });
      return mask;
    };
    // Another call on the same cache from inside this one: the inner call's row is kept, the outer
    // call writes nothing and says why.
    const inner = () => ag.attention(row(0), row(2), row(20), { cache });
    let e = thrownBy(() =>
      ag.attention(row(0), row(3), row(30), { cache, mask: maskRunning(inner, 2), maskKind: 'additive' }),
    );
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toContain('options.cache (a KV cache) went from 1 to 2 rows while this call read its arguments');
    expect(snapshot(cache)).toEqual({
      length: 2,
      keys: T(Float32Array.of(1, -1, 2, -2), [1, 1, 2, 2]),
      values: T(Float32Array.of(10, -10, 20, -20), [1, 1, 2, 2]),
    });
    // Disposed from inside the call: an Error, nothing written into the freed block, the module usable.
    const heap = ag.heapAllocatedBytes();
    e = thrownBy(() =>
      ag.attention(row(0), row(3), row(30), {
        cache,
        mask: maskRunning(() => cache.dispose(), 3),
        maskKind: 'additive',
      }),
    );
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toContain('options.cache (a KV cache) was disposed while this call read its arguments');
    expect(ag.heapAllocatedBytes()).toBeLessThan(heap);
    expect(ag.attention([[1, 0]], [[1, 0]], [[5, 6]]).output.data).toEqual(Float32Array.of(5, 6));
  });

  test('a cache shows its sizes only, and an object posing as one is refused', () => {
    const cache = ag.createKvCache({ kvHeads: 2, capacity: 3, dK: 4 });
    expect(JSON.parse(JSON.stringify(cache))).toEqual({ batch: 1, kvHeads: 2, capacity: 3, dK: 4, dV: 4 });
    expect(Object.keys(cache)).toEqual(['batch', 'kvHeads', 'capacity', 'dK', 'dV']);
    const fake = Object.create(Object.getPrototypeOf(cache));
    const q = T(new Float32Array(8), [1, 2, 1, 4]);
    const e = thrownBy(() => ag.attention(q, q, q, { cache: fake }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toContain('options.cache must be a KV cache made by createKvCache');
    ag.attention(q, q, q, { cache });
    cache.truncate(-0);
    expect(Object.is(cache.length, 0)).toBe(true);
    cache.dispose();
  });

  test('attentionBackward and multiHeadAttention refuse options.cache, whatever its value: attention alone takes it', () => {
    const cache = ag.createKvCache({ kvHeads: 1, capacity: 4, dK: 2 });
    const I2 = [
      [1, 0],
      [0, 1],
    ];
    const bw =
      'attentionBackward: options.cache is accepted by attention only (decoding with a KV cache made by ' +
      "createKvCache); the gradients take every key and value at once: pass them as K and V (a cache's keys() " +
      'and values() copy its rows out)';
    const mha =
      'multiHeadAttention: options.cache is accepted by attention only (decoding with a KV cache made by ' +
      'createKvCache); to decode with one, project the new tokens with matmul (X wQ, X wK, X wV, split into ' +
      'heads [B, h, T, d_k]), call attention(q, k, v, { cache }) and project its output with wO';
    // The key is refused with this message whatever its value: cache is no option of these methods, so
    // null does not make it absent there (it does for attention's), and undefined or another object is
    // no unknown key either.
    for (const value of [cache, null, undefined, {}]) {
      const calls = [
        [() => ag.attentionBackward(I2, I2, I2, I2, { causal: true, cache: value }), bw],
        [
          () => ag.multiHeadAttention({ query: I2 }, { wQ: I2, wK: I2, wV: I2, wO: I2 }, { numHeads: 1, cache: value }),
          mha,
        ],
      ];
      for (const [call, message] of calls) {
        const e = thrownBy(call);
        expect(e).toBeInstanceOf(TypeError);
        expect(e.message).toBe(message);
      }
    }
    // A key counts as given when it is own and enumerable, for cache as for an unknown key (checkKnownKeys): a
    // non-enumerable or inherited member, cache or another, is a TypeError naming it (read as absent, the call
    // would run on what it was not given), and the cache is not written.
    const withHidden = (given, key, value) => Object.defineProperty({ ...given }, key, { value, enumerable: false });
    const withInherited = (given, key, value) => Object.assign(Object.create({ [key]: value }), given);
    const backward = (options) => ag.attentionBackward(I2, I2, I2, I2, options);
    const multiHead = (options) => ag.multiHeadAttention({ query: I2 }, { wQ: I2, wK: I2, wV: I2, wO: I2 }, options);
    for (const [call, given] of [
      [backward, { causal: true }],
      [multiHead, { numHeads: 1, causal: true }],
    ]) {
      for (const [options, key, how] of [
        [withHidden(given, 'cache', cache), 'cache', 'not enumerable'],
        [withHidden(given, 'cache', null), 'cache', 'not enumerable'],
        [withHidden(given, 'bogus', 1), 'bogus', 'not enumerable'],
        [withInherited(given, 'cache', cache), 'cache', 'inherited'],
      ])
        expect(() => call(options)).toThrow(
          new TypeError(
            `${call === backward ? 'attentionBackward' : 'multiHeadAttention'}: options has a member '${key}' that is ${how}, which would be ignored; give every member as an own enumerable key (a plain object literal)`,
          ),
        );
    }
    expect(cache.length).toBe(0);
    cache.dispose();
  });

  test('wasm memory growth between steps does not touch the cache', () => {
    const seq = sequence(59, 8);
    const cache = ag.createKvCache({ batch: B, kvHeads: Hkv, capacity: 8, dK: dk, dV: dv });
    let past = {};
    const held = [];
    let grew = 0;
    for (const [t0, t1] of steps(seq.Tn, 2)) {
      const got = ag.attention(...step(seq, t0, t1), { causal: true, rope: true, cache });
      const want = ag.attention(...step(seq, t0, t1), { causal: true, rope: true, ...past });
      expect(got.output).toEqual(want.output);
      past = want.presentKey
        ? { pastKey: want.presentKey, pastValue: want.presentValue }
        : { pastKey: ag.rope(step(seq, t0, t1)[1]), pastValue: step(seq, t0, t1)[2] };
      // Between steps, 24 MiB more of the heap held (a second cache), then a call whose buffers need
      // 32 MiB more: the memory grows, detaching every earlier view of it.
      const heapBytes = ag.memoryStats().heapBytes;
      held.push(ag.createKvCache({ kvHeads: 4, capacity: 6144, dK: 128 }));
      ag.softmax(T(new Float32Array(1 << 22), [1024, 4096]));
      if (ag.memoryStats().heapBytes > heapBytes) grew++;
      expect(cache.keys()).toEqual(past.pastKey);
      expect(cache.values()).toEqual(past.pastValue);
    }
    expect(grew).toBeGreaterThanOrEqual(3);
    for (const c of held) c.dispose();
    cache.dispose();
  });
});
