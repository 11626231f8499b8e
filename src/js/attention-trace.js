// The online-softmax trace (registry.inc: attention_trace): attention's
// streaming path (Milakov & Gimelshein 2018; Dao et al. 2022, Algorithm 1) on
// one head, tile by tile, as the kernel ran it. The record layout, its kinds
// and the tile widths come from the bindings (attentionTraceLayout), never
// retyped here. Shapes, options and errors: index.d.ts.
import { scoresOverflowCause } from './attention.js';
import { overflowError, shapeError } from './errors.js';
import { booleanOption, finiteNumber, optionsObject, tensorOf, toTensorRank } from './tensor.js';

/** The record layout per module (attentionTraceLayout), with kinds by code. */
const layouts = new WeakMap();
function traceLayout(module) {
  if (!layouts.has(module)) {
    const raw = JSON.parse(module.attentionTraceLayout());
    const kinds = Object.fromEntries(Object.entries(raw.kinds).map(([name, code]) => [code, name]));
    layouts.set(module, Object.freeze({ ...raw, kinds }));
  }
  return layouts.get(module);
}

/** Floats a trace may take: 2^22 (16 MiB). */
const MAX_TRACE_FLOATS = 2 ** 22;

/** options.tileKeys: one of the widths the kernel takes (the production tile by default). */
function tileKeysOption(m, x, allowed, production) {
  if (x === undefined) return production;
  if (typeof x !== 'number' || !Number.isInteger(x))
    throw new TypeError(`${m}: options.tileKeys must be an integer; got ${typeof x === 'number' ? x : typeof x}`);
  if (!allowed.includes(x))
    throw new RangeError(`${m}: options.tileKeys must be one of ${allowed.join(', ')}; got ${x}`);
  return x;
}

export const attentionTraceMethods = {
  /**
   * softmax(scale Q K^T) V for one head by attention's streaming kernel on
   * tiles of `tileKeys` keys, every step recorded (registry.inc:
   * attention_trace; layout in src/kernels/attention_trace.h).
   */
  attentionTrace(q, k, v, options) {
    const m = 'attentionTrace';
    const module = this._rt.module;
    const block = module.ATTENTION_BLOCK_Q;
    const Q = toTensorRank(m, 'Q', q, [2], `[Tq, d_k] with Tq <= ${block}`);
    const [Tq, dk] = Q.shape;
    if (Tq > block)
      throw shapeError(m, 'Q', Q.shape, `[Tq, d_k] with Tq <= ${block}`, 'a trace follows one block of query rows');
    const kExp = `[Tk, d_k] with d_k = ${dk} (from Q [${Tq}, ${dk}])`;
    const K = toTensorRank(m, 'K', k, [2], kExp);
    if (K.shape[1] !== dk) throw shapeError(m, 'K', K.shape, kExp, 'Q and K must have the same d_k');
    const Tk = K.shape[0];
    const vExp = `[Tk, d_v] with Tk = ${Tk} (from K [${Tk}, ${dk}])`;
    const V = toTensorRank(m, 'V', v, [2], vExp);
    if (V.shape[0] !== Tk) throw shapeError(m, 'V', V.shape, vExp, 'V needs one row per key');
    const dv = V.shape[1];
    const o = optionsObject(m, options, 'options', ['tileKeys', 'scale', 'causal']);
    const L = traceLayout(module);
    const tile = tileKeysOption(m, o.tileKeys, L.tileKeys, module.ATTENTION_TILE_K);
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const causal = booleanOption(m, 'options.causal', o.causal, false);
    const W = L.head + dv;
    // Every row of the block goes through the tiles up to the last row's keys, then gets its output record.
    const seen = causal ? Math.min(Tq, Tk) : Tk;
    const count = Tq * (Math.ceil(seen / tile) + 1);
    if (count * W > MAX_TRACE_FLOATS)
      throw new RangeError(
        `${m}: the trace of Q [${Tq}, ${dk}] against K [${Tk}, ${dk}] on tiles of ${tile} keys would take ` +
          `${count} records of ${W} floats, more than ${MAX_TRACE_FLOATS}; pass fewer keys or a larger options.tileKeys`,
      );
    const fn = this._kernel('attention_trace');
    const r = this._buffers(
      m,
      {
        Q: { shape: Q.shape, data: Q.data },
        K: { shape: K.shape, data: K.data },
        V: { shape: V.shape, data: V.data },
        output: { shape: [Tq, dv], length: Tq * dv },
        trace: { shape: [count, W], length: count * W },
        work: { length: module.ATTENTION_STREAMING_WORK_FLOATS },
      },
      (p) => {
        const n = fn(p.Q, p.K, p.V, Tq, Tk, dk, dv, scale, causal ? 1 : 0, tile, p.output, p.trace, count, p.work);
        if (n !== count) throw new Error(`${m}: the kernel wrote ${n} records, ${count} were expected`);
        return {
          output: this._read(Float32Array, p.output, Tq * dv),
          trace: this._read(Float32Array, p.trace, count * W),
        };
      },
    );
    const steps = [];
    for (let s = 0; s < count; s++) {
      const rec = r.trace.subarray(s * W, (s + 1) * W);
      if (L.kinds[rec[L.kind]] !== 'tile') continue;
      const row = rec[L.row];
      if (rec[L.overflow] >= 0) {
        const { what, remedy } = scoresOverflowCause({ scale });
        throw overflowError(m, what, [Tq, Tk], row * Tk + rec[L.start] + rec[L.overflow], remedy);
      }
      steps.push({
        row,
        start: rec[L.start],
        count: rec[L.count],
        tileMax: rec[L.tileMax],
        mPrev: rec[L.mPrev],
        m: rec[L.m],
        correction: rec[L.correction],
        l: rec[L.l],
        O: Array.from(rec.subarray(L.O, L.O + dv)),
      });
    }
    const result = {
      output: tensorOf(r.output, [Tq, dv]),
      variant: this._variantOf('attention_trace'),
      tileKeys: tile,
      steps,
      trace: tensorOf(r.trace, [count, W]),
    };
    return this._done('attention_trace', { Q: Q.shape, K: K.shape, V: V.shape }, result);
  },
};
