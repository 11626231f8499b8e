// ALiBi (Press et al. 2022, "Train Short, Test Long", §3): the head slopes
// (the method `alibiSlopes`) and attention's `alibi` option, whose bias
// -m_h |i + P - j| the attention kernel adds (registry.inc: attention).
// Shapes and errors: index.d.ts.
import { describeValue } from './errors.js';
import { positiveInt } from './tensor.js';

/** The largest query-key distance |i + P - j| (registry.inc: an exact float, one rounding of the bias). */
export const ALIBI_MAX_DISTANCE = 2 ** 24;
/** The most heads `alibiSlopes` (and `alibi: true`) gives slopes for. */
const ALIBI_MAX_HEADS = 65536;

/**
 * The h slopes of the paper's rule, in float64: for h a power of two,
 * m_i = 2^(-8i/h), i = 1..h; otherwise (the reference implementation) the
 * slopes of the power of two n just below h, then every other slope of 2n
 * (its 1st, 3rd, ...) up to h slopes.
 */
function slopes(h) {
  const n = 2 ** Math.floor(Math.log2(h));
  const first = Array.from({ length: n }, (_, i) => 2 ** ((-8 * (i + 1)) / n));
  if (n === h) return first;
  return [...first, ...slopes(2 * n).filter((_, i) => i % 2 === 0)].slice(0, h);
}

/**
 * The `alibi` option of attention for h_q query heads: undefined or false
 * (null: no bias), true (the paper's slopes), or h_q finite slopes (an
 * array or typed array). Returns a Float32Array [h_q] or null; TypeError or
 * RangeError naming options.alibi otherwise.
 */
export function alibiOption(m, value, hq) {
  if (value === undefined || value === false) return null;
  if (value === true) {
    if (hq > ALIBI_MAX_HEADS)
      throw new RangeError(
        `${m}: options.alibi: true needs the slopes of h_q = ${hq} query heads; alibiSlopes gives at most ${ALIBI_MAX_HEADS}`,
      );
    return Float32Array.from(slopes(hq));
  }
  if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView)))
    throw new TypeError(
      `${m}: options.alibi must be true, false or an array of h_q = ${hq} slopes (one per query head); got ${describeValue(value)}`,
    );
  if (value.length !== hq)
    throw new RangeError(
      `${m}: options.alibi has ${value.length} slope${value.length === 1 ? '' : 's'} but the attention has h_q = ${hq} query heads (Q's head axis, or K's and V's when Q's is 1 and broadcast): one slope per query head`,
    );
  return Float32Array.from(value, (x, i) => {
    if (typeof x !== 'number')
      throw new TypeError(`${m}: options.alibi[${i}] must be a number; got ${describeValue(x)}`);
    if (!Number.isFinite(Math.fround(x)))
      throw new RangeError(`${m}: options.alibi[${i}] = ${x}; a slope must be finite in float32`);
    return x;
  });
}

export const alibiMethods = {
  /**
   * The ALiBi slopes of h heads (Press et al. 2022, §3), rounded to float32:
   * what `attention(..., { alibi: true })` uses. Shapes and errors: index.d.ts.
   */
  alibiSlopes(h) {
    return Float32Array.from(slopes(positiveInt('alibiSlopes', 'h', h, ALIBI_MAX_HEADS)));
  },
};
