// Rotary position embedding (registry.inc: rope), the method `rope` and the
// `rope` option of attention: the checks of x, the positions and the
// settings, and the kernel call on buffers already on the wasm heap (which
// attention uses to rotate Q and K before it attends). Shapes and errors:
// index.d.ts.
import { describeValue, shapeError } from './errors.js';
import { booleanOption, finiteNumber, optionsObject, tensorOf, toTensor } from './tensor.js';

/** The largest |position| (registry.inc: the angle's float64 error stays below 2^-28). */
export const ROPE_MAX_POSITION = 2 ** 24;

/**
 * The settings of a rotation: `base` (finite, >= 1, so that every angle
 * m theta_p stays within |m| <= 2^24 and the bound holds; default 10000) and
 * `interleaved` (default true). TypeError/RangeError naming `${name}.base`
 * or `${name}.interleaved`.
 */
export function ropeSettings(m, o, name) {
  const base = o.base === undefined ? 10000 : finiteNumber(m, `${name}.base`, o.base);
  if (!(base >= 1))
    throw new RangeError(
      `${m}: ${name}.base = ${base}; the base of the frequencies base^(-2p/d) must be a number >= 1 (10000 in RoFormer)`,
    );
  return { base, interleaved: booleanOption(m, `${name}.interleaved`, o.interleaved, true) };
}

/**
 * The `rope` option of attention: undefined or false (null: no rotation),
 * true (the default settings) or { base, interleaved, start } (start: the
 * position of the first query and new key, null for the cache length P). With kvSeqLen it is a
 * RangeError: the positions would differ per batch.
 */
export function ropeOption(m, value, kvSeqLen) {
  if (value === undefined || value === false) return null;
  if (value !== true && (value === null || typeof value !== 'object' || Array.isArray(value)))
    throw new TypeError(
      `${m}: options.rope must be true, false or { base, interleaved, start }; got ${describeValue(value)}`,
    );
  if (kvSeqLen !== undefined && kvSeqLen !== null)
    throw new RangeError(
      `${m}: options.rope with options.kvSeqLen: the positions would differ per batch; rotate Q and K with rope(x, { positions }) first`,
    );
  const o = value === true ? {} : optionsObject(m, value, 'options.rope', ['base', 'interleaved', 'start']);
  const settings = ropeSettings(m, o, 'options.rope');
  const start = o.start === undefined ? null : finiteNumber(m, 'options.rope.start', o.start);
  return { ...settings, start };
}

/** Throws unless the last axis of `shape` (d) is even: rotations turn pairs of channels. */
export function checkEvenWidth(m, name, shape, why = 'rotary positions turn pairs of channels') {
  const d = shape.at(-1);
  if (d % 2 !== 0)
    throw shapeError(m, name, shape, `[..., T, d] with d even`, `d = ${d} is odd; ${why}, so d must be even`);
}

/**
 * T positions: undefined (0, 1, ..., T - 1, plus `start`), or an array or
 * typed array of T finite numbers with |m| <= 2^24 (TypeError, RangeError
 * naming `${name}[t]` otherwise). Returns a Float64Array: the kernel turns
 * by the angles of these positions in float64, fractions included.
 */
export function ropePositions(m, name, value, T, start = 0) {
  if (value === undefined) return Float64Array.from({ length: T }, (_, t) => start + t);
  if (!Array.isArray(value) && !ArrayBuffer.isView(value))
    throw new TypeError(
      `${m}: ${name} must be an array of T = ${T} positions (one per token); got ${describeValue(value)}`,
    );
  if (value.length !== T)
    throw new RangeError(
      `${m}: ${name} has ${value.length} ${value.length === 1 ? 'entry' : 'entries'} but T = ${T} (one per token) were expected`,
    );
  const out = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const p = value[t];
    if (typeof p !== 'number' && typeof p !== 'bigint')
      throw new TypeError(`${m}: ${name}[${t}] must be a number; got ${describeValue(p)}`);
    const n = Number(p);
    if (!Number.isFinite(n) || Math.abs(n) > ROPE_MAX_POSITION)
      throw new RangeError(
        `${m}: ${name}[${t}] = ${n}; a position must be finite with |m| <= 2^24 = ${ROPE_MAX_POSITION}`,
      );
    out[t] = n;
  }
  return out;
}

/**
 * Calls the rope kernel of `api` on heap buffers (byte offsets): x [rows, T, d]
 * into out, at the positions in `positions` (T floats), with `work` holding
 * 2 T d floats.
 */
export function ropeCall(api, { x, positions, out, work }, rows, T, d, { base, interleaved }) {
  api._kernel('rope')(x, positions, rows, T, d, base, interleaved ? 1 : 0, out, work);
}

export const ropeMethods = {
  /**
   * Rotary position embedding (Su et al. 2021, RoFormer, §3.2.2 and §3.4.2):
   * x [..., T, d] turned pair by pair, pair p of token t by m_t base^(-2p/d).
   * Shapes, options and errors: index.d.ts.
   */
  rope(x, options) {
    const m = 'rope';
    const t = toTensor(m, 'x', x, '[..., T, d]', { minRank: 2 });
    checkEvenWidth(m, 'x', t.shape);
    // The options in the order of index.d.ts (RopeOptions: the settings, then positions).
    const o = optionsObject(m, options, 'options', ['base', 'interleaved', 'positions']);
    const [T, d] = t.shape.slice(-2);
    const settings = ropeSettings(m, o, 'options');
    const positions = ropePositions(m, 'options.positions', o.positions, T);
    const rows = t.data.length / (T * d);
    const specs = {
      x: { shape: t.shape, data: t.data },
      positions: { name: 'options.positions', shape: [T], data: positions },
      out: { shape: t.shape, length: t.data.length },
      work: { name: 'the cosine and sine table', shape: [2, T, d], length: 2 * T * d },
    };
    const r = this._buffers(m, specs, (p) => {
      ropeCall(this, p, rows, T, d, settings);
      return tensorOf(this._read(Float32Array, p.out, t.data.length), t.shape);
    });
    return this._done('rope', { x: t.shape, positions: [T] }, r);
  },
};
