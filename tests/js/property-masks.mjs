// Random masks for the property tests (fast-check arbitraries): boolean
// masks (true = may take part) as nested arrays, {data: boolean[], shape} or
// {data: Uint8Array, shape}, and additive masks (finite values, extremes and
// -Infinity) as nested arrays or {data, shape}, with whole rows hidden now
// and then; and the faults a mask can carry, with the error each must give.
import fc from 'fast-check';
import { F32_MAX, indexText, nest, numel } from './property-values.mjs';

const f = Math.fround;
/** An entry of an additive mask: small values, zeros, -Infinity, and extremes that can overflow a score. */
const additiveEntry = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -(2 ** 20), max: 2 ** 20 }).map((k) => k * 2 ** -18) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.constant(-Infinity) },
  { weight: 1, arbitrary: fc.constantFrom(f(1e30), f(-1e30), f(-3e38), f(3e38), -F32_MAX, 2 ** -149) },
);
const visibleEntry = fc.oneof(
  { weight: 7, arbitrary: fc.constant(true) },
  { weight: 3, arbitrary: fc.constant(false) },
);

/** A mask of `shape`: its kind, form, entries and rows (over the last dimension) to hide whole. */
export function maskSpec(shape) {
  const n = numel(shape);
  return fc.record({
    kind: fc.constantFrom('boolean', 'additive'),
    form: fc.constantFrom('nested', 'array', 'typed'),
    visible: fc.array(visibleEntry, { minLength: n, maxLength: n }),
    add: fc.array(additiveEntry, { minLength: n, maxLength: n }),
    hideRows: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) },
    ),
  });
}

/** At most one fault in a mask (null mostly). */
export const maskFault = fc.oneof(
  { weight: 24, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom('nan', 'posinf', 'mix', 'uint2', 'string', 'shape'), at: fc.nat() }),
  },
);

/**
 * Builds a mask argument of `shape` for `method`'s option `name` from a spec.
 * Returns { arg, add, error }: add holds the additive value of each entry
 * (0 or -Infinity for a boolean mask, where true means `trueMeans`), error is
 * [ErrorClass, message prefix] when the fault makes the call invalid.
 * Options: trueMeans, 'attend' or 'ignore' (what true means in this option);
 * targetLast, the last dimension of the shape the mask broadcasts to.
 */
export function buildMask(method, name, shape, spec, flt, { trueMeans = 'attend', targetLast = shape.at(-1) } = {}) {
  const n = numel(shape);
  const last = shape.at(-1);
  const visible = spec.visible.slice();
  const add = spec.add.slice();
  for (const r of spec.hideRows) {
    const row = r % (n / last);
    for (let j = 0; j < last; j++) {
      visible[row * last + j] = false;
      add[row * last + j] = -Infinity;
    }
  }
  let kind = spec.kind;
  let form = spec.form;
  let error = null;
  const at = flt ? flt.at % n : 0;
  const where = `${method}: ${name}${indexText(shape, at)} is `;
  if (flt) {
    if (flt.kind === 'nan' || flt.kind === 'posinf') {
      kind = 'additive';
      add[at] = flt.kind === 'nan' ? NaN : Infinity;
      error = [RangeError, where];
    } else if (flt.kind === 'mix' && n > 1) {
      kind = 'boolean';
      if (form === 'typed') form = 'array';
      error = [TypeError, `${method}: ${name}`];
    } else if (flt.kind === 'uint2') {
      kind = 'boolean';
      form = 'typed';
      error = [RangeError, where];
    } else if (flt.kind === 'string' || flt.kind === 'mix') {
      // (A mix needs two entries: a lone number is a valid additive mask.)
      return { arg: 'all', add: null, error: [TypeError, `${method}: ${name}`] };
    } else if (flt.kind === 'shape') {
      // One more entry along the last dimension than the target has: it broadcasts to nothing.
      const bad = [...shape.slice(0, -1), targetLast + 1];
      return {
        arg: { data: new Array(numel(bad)).fill(true), shape: bad },
        add: null,
        error: [RangeError, `${method}: ${name} has shape`],
      };
    }
  }
  if (kind === 'boolean') {
    const hide = trueMeans === 'attend' ? false : true;
    const values = visible.map((v) => (trueMeans === 'attend' ? v : !v));
    const addOf = values.map((b) => (b === hide ? -Infinity : 0));
    let data = values;
    if (flt?.kind === 'mix') data = values.map((b, i) => (i === at ? (b ? 1 : 0) : b));
    if (flt?.kind === 'uint2') data = Uint8Array.from(values, (b, i) => (i === at ? 2 : b ? 1 : 0));
    else if (form === 'typed') data = Uint8Array.from(values, (b) => (b ? 1 : 0));
    const arg = form === 'nested' ? nest(data, shape) : { data, shape: shape.slice() };
    return { arg, add: error ? null : addOf, error };
  }
  // A plain number array of only 0s and 1s is ambiguous (boolean or additive?) and refused without maskKind.
  if (!error && form !== 'typed' && add.every((v) => v === 0 || v === 1)) error = [TypeError, `${method}: ${name}`];
  const arg =
    form === 'nested'
      ? nest(add, shape)
      : { data: form === 'typed' ? Float32Array.from(add) : add.slice(), shape: shape.slice() };
  return { arg, add: error ? null : add, error };
}
