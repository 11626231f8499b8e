// A KV cache resident in wasm memory (Pope et al. 2022, "Efficiently Scaling
// Transformer Inference", §2: the keys and values of earlier tokens kept for
// decoding). createKvCache allocates keys [B, h_kv, capacity, d_k] and values
// [B, h_kv, capacity, d_v] on the instance's heap once; attention(q, k, v,
// { cache }) writes k and v at rows P.. and reads the P + Tk rows in place
// through the kernel's strides (ag_attention_dims k_sb = h_kv capacity d_k,
// k_sh = capacity d_k), so a decode step copies only its new rows. Like a
// transformer's buffers (transformer.js), the block lives until dispose();
// views into it are made just before use, never kept (heap.js).
// Shapes, options and errors: index.d.ts (createKvCache, KvCache).
import { countedCall } from './checks.js';
import { copyRows } from './copy-rows.js';
import { describeValue, formatShape } from './errors.js';
import { HEAP_LIMIT_BYTES } from './heap.js';
import { optionsObject, positiveInt, tensorOf } from './tensor.js';

/** The alignment in bytes of the values block after the keys (one f32x4, as heap.js). */
const ALIGN = 16;

// Frees a cache's block when it is collected without dispose() (a safety net only: a collection
// is not triggered by a full wasm heap, so dropped caches can fill it).
const finalizer = new FinalizationRegistry(({ module, base }) => module.free(base));

/** The caches createKvCache made (an object with KvCache's prototype but not made by it is not one). */
const made = new WeakSet();

/**
 * The cache of ag.createKvCache (index.d.ts: KvCache). Its rows 0..length - 1
 * hold the keys and values attended so far; rows past `length` are scratch
 * that attention writes before it reads them and that nothing else shows.
 */
class KvCache {
  constructor(ag, { batch, kvHeads, capacity, dK, dV }) {
    const m = 'createKvCache';
    const keyFloats = batch * kvHeads * capacity * dK;
    const valueFloats = batch * kvHeads * capacity * dV;
    const keyBytes = Math.ceil((4 * keyFloats) / ALIGN) * ALIGN;
    const bytes = keyBytes + 4 * valueFloats;
    const shape = `keys ${formatShape([batch, kvHeads, capacity, dK])} and values ${formatShape([batch, kvHeads, capacity, dV])}`;
    if (!(bytes <= HEAP_LIMIT_BYTES))
      throw new RangeError(
        `${m}: ${shape} need ${bytes} bytes of wasm memory, more than the 1 GiB limit of the heap; use a smaller capacity`,
      );
    const module = ag._rt.module;
    const base = module.malloc(bytes + ALIGN - 1);
    if (!base)
      throw new RangeError(
        `${m}: the wasm heap (capped at 1 GiB) could not allocate ${bytes} bytes for ${shape}; ` +
          'use a smaller capacity, or dispose() the caches and models no longer used (their memory is not ' +
          'freed until then)',
      );
    const keys = Math.ceil(base / ALIGN) * ALIGN;
    // The internals, not enumerable: JSON.stringify, console.log and structuredClone see the sizes only.
    const internal = (value) => ({ value, enumerable: false, writable: true, configurable: false });
    Object.defineProperties(this, {
      _ag: internal(ag),
      _base: internal(base),
      /** Byte offsets of the keys and values blocks; null once disposed. @internal */
      _p: internal({ keys, values: keys + keyBytes }),
      _length: internal(0),
      _token: internal({}),
    });
    const fixed = (value) => ({ value, enumerable: true, writable: false, configurable: false });
    Object.defineProperties(this, {
      batch: fixed(batch),
      kvHeads: fixed(kvHeads),
      capacity: fixed(capacity),
      dK: fixed(dK),
      dV: fixed(dV),
    });
    finalizer.register(this, { module, base }, this._token);
    made.add(this);
  }

  /** The instance's module, or an Error naming the cache when it was disposed. @internal */
  _live(method, name = 'the KV cache') {
    if (!this._p) throw new Error(`${method}: ${name} was disposed; create a new one with createKvCache`);
    return this._ag._rt.module;
  }

  /** The number P of rows held (read-only). */
  get length() {
    this._live('kvCache.length');
    return this._length;
  }

  /** A fresh copy [B, h_kv, P, width] of the rows held in the block at byte offset `at`. @internal */
  _rows(method, at, width) {
    this._live(method);
    const P = this._length;
    const slices = this.batch * this.kvHeads;
    const out = new Float32Array(slices * P * width);
    const f = new Float32Array(this._ag._rt.memory().buffer);
    copyRows(
      slices,
      P * width,
      { array: out, at: 0, stride: P * width },
      { array: f, at: at / 4, stride: this.capacity * width },
    );
    return tensorOf(out, [this.batch, this.kvHeads, P, width]);
  }

  /** The keys held, [B, h_kv, P, d_k] (a fresh copy). */
  keys() {
    return this._rows('kvCache.keys', this._p?.keys, this.dK);
  }

  /** The values held, [B, h_kv, P, d_v] (a fresh copy). */
  values() {
    return this._rows('kvCache.values', this._p?.values, this.dV);
  }

  /** Forgets every row: length becomes 0 (the memory is kept for the next sequence). */
  reset() {
    this._live('kvCache.reset');
    this._length = 0;
  }

  /**
   * Keeps the first `length` rows and forgets the rest (rejected draft tokens, a step taken again). An integer
   * from 0 to the current length; another number is a RangeError, not a number a TypeError.
   */
  truncate(length) {
    const m = 'kvCache.truncate';
    this._live(m);
    if (typeof length !== 'number' || !Number.isInteger(length))
      throw new TypeError(`${m}: length must be an integer; got ${describeValue(length)}`);
    if (length < 0 || length > this._length)
      throw new RangeError(
        `${m}: length must be from 0 to the ${this._length} rows held (a cache keeps or forgets rows, never adds them); got ${length}`,
      );
    this._length = length + 0; // -0 kept as 0
  }

  /** Frees the cache's wasm memory; every later use throws an Error. Calling it again does nothing. */
  dispose() {
    if (!this._p) return;
    finalizer.unregister(this._token);
    this._ag._rt.module.free(this._base);
    this._p = null;
  }
}

// A cache's methods, like the API's, refuse more arguments than they take (checks.js).
for (const name of ['keys', 'values', 'reset', 'truncate', 'dispose'])
  KvCache.prototype[name] = countedCall(`kvCache.${name}`, KvCache.prototype[name]);

/**
 * The `cache` option of attention: undefined (null), else a live KvCache of
 * this instance (TypeError for anything else, Error when disposed), with
 * pastKey and pastValue absent (TypeError). K and V must be the cache's
 * [B, h_kv, Tk, d_k] and [B, h_kv, Tk, d_v] (leading axes of 1 may be left
 * out), and P + Tk within its capacity (RangeError naming options.cache and
 * the numbers). Returns null or { cache, P, keys, values } (byte offsets).
 */
export function kvCacheObjectOption(ag, m, o, K, V) {
  if (o.cache === undefined) return null;
  const cache = o.cache;
  if (!made.has(cache))
    throw new TypeError(`${m}: options.cache must be a KV cache made by createKvCache; got ${describeValue(cache)}`);
  if (cache._ag._rt !== ag._rt)
    throw new TypeError(
      `${m}: options.cache was made by another instance's createKvCache; a cache lives in the wasm memory of the instance that made it`,
    );
  cache._live(m, 'options.cache (a KV cache)');
  if (o.pastKey !== undefined || o.pastValue !== undefined)
    throw new TypeError(
      `${m}: options.cache and options.${o.pastKey !== undefined ? 'pastKey' : 'pastValue'} are two KV caches; give one: ` +
        'the cache object (rows kept in wasm memory) or pastKey and pastValue (rows passed in and presentKey, presentValue returned)',
    );
  const { batch, kvHeads, capacity, dK, dV } = cache;
  const P = cache._length;
  const cacheShape = `[B, h_kv, capacity, d_k] = ${formatShape([batch, kvHeads, capacity, dK])} and [B, h_kv, capacity, d_v] = ${formatShape([batch, kvHeads, capacity, dV])}`;
  for (const [name, t, d] of [
    ['K', K, dK],
    ['V', V, dV],
  ]) {
    const lead = [1, 1, ...t.shape.slice(0, -2)].slice(-2);
    if (lead[0] !== batch || lead[1] !== kvHeads || t.shape.at(-1) !== d)
      throw new RangeError(
        `${m}: ${name} ${formatShape(t.shape)} does not fit options.cache, whose keys and values are ${cacheShape}; ` +
          `expected ${formatShape([batch, kvHeads, t.shape.at(-2), d])} (B = ${batch}, h_kv = ${kvHeads}, ${name === 'K' ? 'd_k' : 'd_v'} = ${d})`,
      );
  }
  const Tk = K.shape.at(-2);
  if (P + Tk > capacity)
    throw new RangeError(
      `${m}: options.cache holds P = ${P} of its capacity ${capacity} rows and K brings Tk = ${Tk}: ` +
        `P + Tk = ${P + Tk} > ${capacity}; make the cache with a larger capacity, or reset() it`,
    );
  return { cache, P, keys: cache._p.keys, values: cache._p.values };
}

/**
 * The `cache` key in the options `options` (as given: undefined, null or a plain object) of a method
 * other than attention (attentionBackward, multiHeadAttention): a TypeError naming it, saying that
 * attention alone takes a KV cache object and, in `instead`, what this method's caller can do;
 * nothing when there is no such key. Whatever its value (a cache, another object, null, undefined):
 * `cache` is no member of these options, so null does not make it absent, and its message is this
 * one, not that of an unknown key. A key counts as given as it does for the unknown keys
 * (checkKnownKeys): an own enumerable one; a non-enumerable or inherited `cache` is no option.
 */
export function refuseKvCacheOption(m, options, instead) {
  if (options != null && Object.prototype.propertyIsEnumerable.call(options, 'cache'))
    throw new TypeError(
      `${m}: options.cache is accepted by attention only (decoding with a KV cache made by createKvCache); ${instead}`,
    );
}

/**
 * Before attention writes to the cache of `c` (kvCacheObjectOption's result): an Error when code
 * that ran while the call read its arguments (a getter, a proxy) disposed the cache or used it
 * in another call; the call then writes nothing.
 */
export function recheckKvCache(m, c) {
  const { cache, P } = c;
  if (!cache._p)
    throw new Error(
      `${m}: options.cache (a KV cache) was disposed while this call read its arguments; nothing was written`,
    );
  if (cache._length !== P)
    throw new Error(
      `${m}: options.cache (a KV cache) went from ${P} to ${cache._length} rows while this call read its arguments ` +
        '(another call used it); nothing was written: one call at a time per cache',
    );
}

/** After a successful call on `c` (kvCacheObjectOption's result) with Tk new rows: length P + Tk. */
export function advanceKvCache(c, Tk) {
  c.cache._length = c.P + Tk;
}

/**
 * Copies `T` rows of `width` floats per slice, from byte offset `from`
 * (contiguous [slices, T, width]) to rows P.. of the cache block at byte
 * offset `to` (capacity rows per slice).
 */
export function writeKvRows(rt, to, from, slices, capacity, P, T, width) {
  const f = new Float32Array(rt.memory().buffer);
  copyRows(
    slices,
    T * width,
    { array: f, at: to / 4 + P * width, stride: capacity * width },
    { array: f, at: from / 4, stride: T * width },
  );
}

export const kvCacheMethods = {
  /**
   * A KV cache resident in this instance's wasm memory, for
   * attention(q, k, v, { cache }); see index.d.ts (createKvCache, KvCache).
   */
  createKvCache(options) {
    const m = 'createKvCache';
    if (options === undefined || options === null)
      throw new TypeError(
        `${m}: options { batch, kvHeads, capacity, dK, dV } is missing; kvHeads, capacity and dK are required`,
      );
    const o = optionsObject(m, options, 'options', ['batch', 'kvHeads', 'capacity', 'dK', 'dV']);
    const batch = o.batch === undefined ? 1 : positiveInt(m, 'options.batch', o.batch);
    const kvHeads = positiveInt(m, 'options.kvHeads', o.kvHeads);
    const capacity = positiveInt(m, 'options.capacity', o.capacity);
    const dK = positiveInt(m, 'options.dK', o.dK);
    const dV = o.dV === undefined ? dK : positiveInt(m, 'options.dV', o.dV);
    return new KvCache(this, { batch, kvHeads, capacity, dK, dV });
  },
};
