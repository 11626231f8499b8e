// The counter-based generator (Philox4x32-10) and the Monte Carlo experiment:
// seeds and counters as 64-bit integers split into two u32 words, samples
// computed in wasm only (bit-identical in both builds for the same seed and
// counter), statistics and histogram computed by the experiment kernel.
import { countedFunctions } from './checks.js';
import { describeValue, entryError } from './errors.js';
import { readOut } from './heap.js';
import { booleanOption, finiteNumber, optionsObject, positiveInt } from './tensor.js';

/** The most d * trials one randomDotExperiment call may ask for. */
export const MAX_EXPERIMENT_WORK = 2 ** 26;

const TWO32 = 4294967296;

/**
 * A 64-bit seed or counter: a non-negative safe integer (< 2^53) or a BigInt
 * in [0, 2^64). Returns [lo, hi] u32 words.
 */
export function splitU64(method, name, x) {
  if (typeof x === 'bigint') {
    if (x < 0n || x >= 1n << 64n) throw new RangeError(`${method}: ${name} must be in [0, 2^64) as a BigInt; got ${x}`);
    return [Number(x & 0xffffffffn), Number(x >> 32n)];
  }
  if (typeof x !== 'number')
    throw new TypeError(`${method}: ${name} must be a non-negative integer or a BigInt; got ${describeValue(x)}`);
  if (!Number.isSafeInteger(x) || x < 0) {
    throw new RangeError(
      `${method}: ${name} must be a non-negative safe integer (< 2^53) or a BigInt below 2^64; got ${x}`,
    );
  }
  return [x % TWO32, Math.floor(x / TWO32)];
}

export function makeRandom(ag) {
  const draw = (method, kernel, options) => {
    const o = optionsObject(method, options, 'options', ['seed', 'counter', 'n']);
    const [slo, shi] = splitU64(method, 'seed', o.seed ?? 0);
    const [clo, chi] = splitU64(method, 'counter', o.counter ?? 0);
    const n = positiveInt(method, 'n', o.n);
    const r = ag._buffers(method, { out: { length: n } }, ({ out }) => {
      ag._kernel(kernel)(slo, shi, clo, chi, n, out);
      return { data: readOut(ag._rt, Float32Array, out, n), shape: [n] };
    });
    return ag._done(kernel, { n: [n] }, r);
  };
  return Object.freeze(
    countedFunctions('random', {
      /** n uniform floats in [0, 1). */
      uniform: (options) => draw('random.uniform', 'philox_uniform', options),
      /** n standard-normal floats. */
      normal: (options) => draw('random.normal', 'philox_normal', options),
    }),
  );
}

/** The Monte Carlo experiment of the dot-product chapters. */
export function randomDotExperiment(ag, options) {
  const m = 'randomDotExperiment';
  const o = optionsObject(m, options, 'options', ['d', 'trials', 'seed', 'measure', 'bins', 'range', 'returnSamples']);
  const d = positiveInt(m, 'd', o.d);
  const trials = positiveInt(m, 'trials', o.trials);
  // One call runs synchronously on its thread: bound the work (2 * d * trials
  // normal samples, about a second per 2^25 on a laptop) so that no call hangs
  // a page. Larger experiments are split into calls (or run in a worker).
  if (d * trials > MAX_EXPERIMENT_WORK) {
    throw new RangeError(
      `${m}: d * trials = ${d} * ${trials} = ${d * trials} is more than the ${MAX_EXPERIMENT_WORK} (2^26) one call may do; split the experiment into several calls`,
    );
  }
  const [slo, shi] = splitU64(m, 'seed', o.seed ?? 0);
  const measure = o.measure ?? 'dot';
  if (measure !== 'dot' && measure !== 'cosine')
    throw new TypeError(`${m}: measure must be 'dot' or 'cosine'; got ${describeValue(measure)}`);
  const bins = o.bins === undefined ? 32 : positiveInt(m, 'bins', o.bins, 1 << 24);
  let range = o.range;
  if (range === undefined) {
    // Default: +-4 standard deviations of the measure (sqrt(d) for dot, 1/sqrt(d) for cosine, capped at 1).
    const s = measure === 'dot' ? 4 * Math.sqrt(d) : Math.min(1, 4 / Math.sqrt(d));
    range = [-s, s];
  }
  if (!Array.isArray(range) || range.length !== 2) {
    const got = Array.isArray(range) ? `an array of length ${range.length}` : describeValue(range);
    throw new TypeError(`${m}: range must be an array [lo, hi] of two finite numbers, lo < hi; got ${got}`);
  }
  // An entry that is not a number (missing, a hole, a string) is named with range's shape, as an entry of an
  // array argument is; a number that is not finite gets finiteNumber's RangeError.
  for (let i = 0; i < 2; i++) {
    if (typeof range[i] !== 'number')
      throw entryError(m, 'range', [2], i, 'a finite number', range[i], {
        hole: !(i in range),
        note: '[lo, hi], lo < hi',
      });
  }
  const lo = finiteNumber(m, 'range[0]', range[0]);
  const hi = finiteNumber(m, 'range[1]', range[1]);
  if (!(lo < hi)) throw new RangeError(`${m}: range [lo, hi] needs lo < hi; got [${lo}, ${hi}]`);
  // The kernel takes float32 ends: two that differ only beyond float32's precision are one end.
  if (!(Math.fround(lo) < Math.fround(hi)))
    throw new RangeError(
      `${m}: range [lo, hi] needs lo < hi after rounding to float32 (both are ${Math.fround(lo)}); got [${lo}, ${hi}]`,
    );
  const returnSamples = booleanOption(m, 'options.returnSamples', o.returnSamples, true);
  const specs = {
    samples: returnSamples && { length: trials },
    stats: { length: 5, type: Float64Array },
    histogram: { length: bins, type: Int32Array },
    work: { length: 2 * d },
  };
  const r = ag._buffers(m, specs, (p) => {
    const measureCode = measure === 'dot' ? 0 : 1;
    ag._kernel('random_dot_experiment')(
      slo,
      shi,
      d,
      trials,
      measureCode,
      lo,
      hi,
      bins,
      p.samples,
      p.stats,
      p.histogram,
      p.work,
    );
    const stats = readOut(ag._rt, Float64Array, p.stats, 5);
    const res = {
      mean: stats[0],
      std: stats[1],
      rms: stats[2],
      outOfRange: stats[3],
      meanAbs: stats[4],
      histogram: {
        lo: Math.fround(lo),
        hi: Math.fround(hi),
        bins,
        counts: readOut(ag._rt, Int32Array, p.histogram, bins),
      },
    };
    if (returnSamples) res.samples = { data: readOut(ag._rt, Float32Array, p.samples, trials), shape: [trials] };
    return res;
  });
  return ag._done('random_dot_experiment', { d: [d], trials: [trials] }, r);
}
