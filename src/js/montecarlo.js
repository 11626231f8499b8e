// The Monte Carlo chapters' two kernels: the exact density of q.k for
// q, k ~ N(0, I_d) (dot_density) and the greedy packing of nearly
// perpendicular random directions (greedy_packing). Arguments are checked
// here; every number is computed in wasm.
import { readOut } from './heap.js';
import { splitU64 } from './random.js';
import { finiteNumber, optionsObject, positiveInt, toTensor } from './tensor.js';

/** The largest d of dotProductDensity (the registry's accuracy statement covers 1..4096). */
export const MAX_DENSITY_D = 4096;
/** The most candidates * (kept + candidates) * d one greedyPacking call may do (a few tenths of a second). */
export const MAX_PACKING_WORK = 2 ** 28;

export function dotProductDensity(ag, x, d) {
  const m = 'dotProductDensity';
  const t = toTensor(m, 'x', x, '[...]');
  const dim = positiveInt(m, 'd', d, MAX_DENSITY_D);
  const n = t.data.length;
  const r = ag._buffers(m, { x: { data: t.data }, y: { length: n } }, (p) => {
    ag._kernel('dot_density')(p.x, n, dim, p.y);
    return { data: readOut(ag._rt, Float32Array, p.y, n), shape: t.shape.slice() };
  });
  return ag._done('dot_density', { x: t.shape, d: [dim] }, r);
}

export function greedyPacking(ag, options) {
  const m = 'greedyPacking';
  const o = optionsObject(m, options, 'options', ['d', 'candidates', 'epsilon', 'seed', 'first', 'directions']);
  const d = positiveInt(m, 'd', o.d, 65536);
  const candidates = positiveInt(m, 'candidates', o.candidates);
  const eps = finiteNumber(m, 'epsilon', o.epsilon, { positive: true });
  if (!(eps < 1)) throw new RangeError(`${m}: epsilon must be in (0, 1); got ${eps}`);
  const [slo, shi] = splitU64(m, 'seed', o.seed ?? 0);
  const first = o.first ?? 0;
  if (!Number.isInteger(first) || first < 0 || first + candidates > 2147483647) {
    throw new RangeError(`${m}: first must be an integer >= 0 with first + candidates < 2^31; got ${first}`);
  }
  let prev = null;
  if (o.directions !== undefined && o.directions !== null) {
    // Checked in JS (eager): directions are copied into place by hand, not as a buffer of the call.
    prev = toTensor(m, 'directions', o.directions, `[kept, d] with d = ${d}`, { eager: true });
    if (prev.shape.length !== 2 || prev.shape[1] !== d) {
      throw new RangeError(
        `${m}: directions must have shape [kept, ${d}] (the directions of an earlier call); got [${prev.shape.join(', ')}]`,
      );
    }
  }
  const kept0 = prev ? prev.shape[0] : 0;
  const capacity = kept0 + candidates;
  if (candidates * capacity * d > MAX_PACKING_WORK) {
    throw new RangeError(
      `${m}: candidates * (kept + candidates) * d = ${candidates} * ${capacity} * ${d} is more than the ${MAX_PACKING_WORK} (2^28) one call may do; scan fewer candidates per call and pass first and directions to continue`,
    );
  }
  const r = ag._buffers(m, { directions: { length: capacity * d }, work: { length: d } }, (p) => {
    if (prev) new Float32Array(ag._rt.memory().buffer, p.directions, prev.data.length).set(prev.data);
    const kept = ag._kernel('greedy_packing')(
      slo,
      shi,
      d,
      first,
      candidates,
      eps,
      kept0,
      capacity,
      p.directions,
      p.work,
    );
    return {
      kept,
      next: first + candidates,
      directions: { data: readOut(ag._rt, Float32Array, p.directions, kept * d), shape: [kept, d] },
    };
  });
  return ag._done('greedy_packing', { d: [d], candidates: [candidates], kept: [kept0] }, r);
}
