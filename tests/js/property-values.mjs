// Random inputs for the property tests (fast-check arbitraries), and the
// forms in which they reach the API.
//
// Values are float32 numbers (what the kernels see, so the float64 reference
// sees exactly the same inputs): mostly ordinary values in [-4, 4], with
// values spread over every binade of that range (down to the subnormals),
// the extremes the kernels must survive (+-1e30, values near FLT_MAX, the
// smallest subnormals, -0) and any finite float32. A whole vector can also be
// scaled by a power of two so that all of it is subnormal or huge.
//
// At most one fault is put into a case (so that the error to expect is
// known): a NaN or an infinity, a number beyond the float32 range, or an
// argument of the wrong type.
import fc from 'fast-check';

export const F32_MAX = 3.4028234663852886e38;
const f = Math.fround;

/** Values in [-4, 4] on a grid of 2^-20 (exact in float32). */
const ordinary = fc.integer({ min: -(2 ** 22), max: 2 ** 22 }).map((k) => k * 2 ** -20);
/** Float32 values in [-4, 4] spread over the binades, subnormals and -0 included. */
const spread = fc.float({ min: -4, max: 4, noNaN: true });
/** The extremes: +-0, the smallest subnormals, the smallest normal, +-1e30, values near FLT_MAX. */
const EXTREMES = [2 ** -149, 3 * 2 ** -149, f(1e-40), 2 ** -126, f(1e-30), f(1e19), f(1e30), f(1e38), f(3e38), F32_MAX];
const extreme = fc.constantFrom(0, -0, ...EXTREMES, ...EXTREMES.map((v) => -v));
/** Any finite float32. */
const anyFinite = fc.float({ noNaN: true, noDefaultInfinity: true });

/** One float32 value; `weights` tunes the mixture. */
export function value({ ordinary: wo = 12, spread: ws = 2, extreme: we = 1, any: wa = 1 } = {}) {
  const parts = [
    { weight: wo, arbitrary: ordinary },
    { weight: ws, arbitrary: spread },
    { weight: we, arbitrary: extreme },
    { weight: wa, arbitrary: anyFinite },
  ];
  return fc.oneof(...parts.filter((p) => p.weight > 0));
}

/**
 * Value mixtures for kernels where one extreme entry decides the outcome (a
 * score of attention overflows as soon as one q_c k_c does): most cases
 * draw from the ordinary values only, one in four from all of them.
 */
export const mildOrWild = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ ordinary: 12, spread: 2, extreme: 0, any: 0 }) },
  { weight: 1, arbitrary: fc.constant({ ordinary: 24, spread: 3, extreme: 1, any: 1 }) },
);

/** A power of two that scales a whole vector: 0 mostly, else towards the subnormals or towards FLT_MAX. */
export const scaleExponent = fc.oneof(
  { weight: 8, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(-60, -100, -135, -145, 40, 100) },
);

/** v * 2^p rounded to float32, kept finite (+-FLT_MAX where it would overflow). */
export function scaled(v, p) {
  if (p === 0) return v;
  const x = f(v * 2 ** p);
  return Number.isFinite(x) ? x : Math.sign(v) * F32_MAX;
}

/** n float32 values, all scaled by one random power of two. */
export function values(n, weights) {
  return fc
    .tuple(scaleExponent, fc.array(value(weights), { minLength: n, maxLength: n }))
    .map(([p, xs]) => xs.map((v) => scaled(v, p)));
}

/** Vector lengths: short ones, the SIMD widths and their neighbours, and past a block of 256. */
export const length = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(31, 32, 33, 63, 64, 65, 127, 128, 129) },
  { weight: 1, arbitrary: fc.integer({ min: 250, max: 270 }) },
);

/**
 * At most one fault per case: null (none) `noneWeight` times in
 * noneWeight + 4, else which argument (`arg`, taken modulo the number of
 * arguments) gets what, and where (`at`, modulo the argument's length).
 */
export const faultOf = (noneWeight) =>
  fc.oneof(
    { weight: noneWeight, arbitrary: fc.constant(null) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('nonFinite'),
        value: fc.constantFrom(NaN, Infinity, -Infinity),
        arg: fc.nat(15),
        at: fc.nat(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('beyond'),
        value: fc.constantFrom(1e39, -1e39, 3.5e38, -1e300),
        arg: fc.nat(15),
        at: fc.nat(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('type'),
        how: fc.constantFrom('string', 'null', 'int32', 'object', 'element'),
        arg: fc.nat(15),
        at: fc.nat(),
      }),
    },
  );
/** A fault in about one case in five. */
export const fault = faultOf(14);

/** How a vector is passed: Float32Array, Float64Array, number[] or a rank-1 {data, shape}. */
export const vectorForm = fc.constantFrom('f32', 'f64', 'array', 'tensor');
/** How a tensor is passed: {data, shape} with Float32Array, Float64Array or number[] data, or nested arrays. */
export const tensorForm = fc.constantFrom('f32', 'f64', 'array', 'nested');

/** Nested arrays of `shape` from flat values. */
export function nest(flat, shape) {
  if (shape.length <= 1) return Array.from(flat);
  const inner = shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from({ length: shape[0] }, (_, i) => nest(flat.slice(i * inner, (i + 1) * inner), shape.slice(1)));
}

/** A vector argument in the given form. */
export function asVector(flat, form) {
  if (form === 'f32') return Float32Array.from(flat);
  if (form === 'f64') return Float64Array.from(flat);
  if (form === 'tensor') return { data: Float32Array.from(flat), shape: [flat.length] };
  return Array.from(flat);
}

/** A tensor argument of `shape` in the given form. */
export function asTensor(flat, shape, form) {
  if (form === 'f32') return { data: Float32Array.from(flat), shape: shape.slice() };
  if (form === 'f64') return { data: Float64Array.from(flat), shape: shape.slice() };
  if (form === 'array') return { data: Array.from(flat), shape: shape.slice() };
  return nest(Array.from(flat), shape);
}

/** "[i]" for rank <= 1, "[i, j, ...]" otherwise: how a message names an element (written here from the shape). */
export function indexText(shape, flat) {
  if (shape.length <= 1) return `[${flat}]`;
  const idx = new Array(shape.length);
  let r = flat;
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = r % shape[i];
    r = Math.floor(r / shape[i]);
  }
  return `[${idx.join(', ')}]`;
}

/**
 * Builds one numeric argument with the fault applied (if it targets it).
 * Returns { arg, error }: error is [ErrorClass, message prefix] when the fault
 * makes the call invalid, else null. `vector` selects the vector forms.
 * A value beyond float32 cannot sit in a Float32Array, so it is passed in a
 * number array; a wrong element type needs a number array too.
 */
export function buildArg(method, name, flat, shape, form, flt, { vector = false } = {}) {
  const make = (vals, fm) => (vector ? asVector(vals, fm) : asTensor(vals, shape, fm));
  if (!flt) return { arg: make(flat, form), error: null };
  const at = flt.at % flat.length;
  const vals = Array.from(flat);
  if (flt.kind === 'nonFinite' || flt.kind === 'beyond') {
    vals[at] = flt.value;
    const fm = flt.kind === 'beyond' && (form === 'f32' || form === 'tensor') ? 'array' : form;
    return { arg: make(vals, fm), error: [RangeError, `${method}: ${name}${indexText(shape, at)} is `] };
  }
  const bad = {
    string: () => 'abc',
    null: () => null,
    int32: () =>
      vector
        ? Int32Array.from(vals, (v) => Math.trunc(v))
        : { data: Int32Array.from(vals, (v) => Math.trunc(v)), shape: shape.slice() },
    object: () => ({ values: vals }),
    element: () => {
      vals[at] = String(vals[at]);
      return make(vals, vector ? 'array' : form === 'nested' ? 'nested' : 'array');
    },
  }[flt.how]();
  return { arg: bad, error: [TypeError, `${method}: ${name}`] };
}

/** Product of a shape's dimensions. */
export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** The broadcast of leading shapes (NumPy rules: trailing-aligned, 1 stretches), or null when they do not broadcast. */
export function broadcast(...shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array(rank).fill(1);
  for (const s of shapes) {
    for (let i = 1; i <= s.length; i++) {
      const d = s[s.length - i];
      const o = out[rank - i];
      if (d !== 1 && o !== 1 && d !== o) return null;
      if (d !== 1) out[rank - i] = d;
    }
  }
  return out;
}

/** For a tensor whose leading shape `lead` broadcasts to `outLead`: the slice of it read by output slice p. */
export function sliceOf(lead, outLead, p) {
  const idx = new Array(outLead.length);
  for (let i = outLead.length - 1; i >= 0; i--) {
    idx[i] = p % outLead[i];
    p = Math.floor(p / outLead[i]);
  }
  let s = 0;
  const off = outLead.length - lead.length;
  for (let i = 0; i < lead.length; i++) s = s * lead[i] + (lead[i] === 1 ? 0 : idx[off + i]);
  return s;
}

/** For `shape` broadcast to `target` (trailing-aligned): the flat index into it of element `flat` of the target. */
export function broadcastIndex(shape, target, flat) {
  let out = 0;
  let stride = 1;
  for (let i = 1; i <= target.length; i++) {
    const t = target[target.length - i];
    const k = flat % t;
    flat = Math.floor(flat / t);
    if (i <= shape.length) {
      const s = shape[shape.length - i];
      if (s !== 1) out += k * stride;
      stride *= s;
    }
  }
  return out;
}

/**
 * A mask shape that broadcasts to `target`: every dimension kept or made 1,
 * then some leading dimensions dropped. `keep` holds one boolean per target
 * dimension, `drop` how many leading ones go (at most rank - 1).
 */
export function maskShape(target, keep, drop) {
  const s = target.map((d, i) => (keep[i % keep.length] ? d : 1));
  return s.slice(Math.min(drop, s.length - 1));
}
