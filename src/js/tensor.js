// Argument checking and shapes: every argument is turned into a float32
// tensor { data: Float32Array, shape } (a copy only when it must be) and
// checked before anything reaches wasm, because the kernels check nothing.
// Masks become additive float32 masks; broadcasting is computed here as
// strides (0 = broadcast), never as arithmetic on results.
import { deferFiniteCheck, finiteRule, recordCheckedValues } from './checks.js';
import {
  dataLengthError,
  describeValue,
  entryError,
  entryTypeError,
  formatShape,
  maskEntryError,
  missingError,
  ruleError,
  shapeEntryError,
  shapeError,
  typeError,
  valueError,
} from './errors.js';

/**
 * The least number that rounds to Infinity in float32: FLT_MAX + half an ulp
 * (2^128 - 2^103; a tie rounds to the even Infinity). Every number of smaller
 * magnitude rounds to a finite float32 (3.4028235e38, FLT_MAX as NumPy prints
 * it, rounds to FLT_MAX), so it is accepted.
 */
export const F32_OVERFLOW = 3.4028235677973366e38;

/** A result tensor { data, shape } (data a Float32Array the caller owns). */
export const tensorOf = (data, shape) => ({ data, shape });

function isTensorObject(x) {
  return (
    x !== null && typeof x === 'object' && !Array.isArray(x) && !ArrayBuffer.isView(x) && 'data' in x && 'shape' in x
  );
}

// A shape is a list of non-negative integers (checked first, entry by entry),
// and then every dimension must be at least 1: zero-length tensors are refused.
function checkShapeArray(method, name, shape, expected, emptyAxis) {
  if (!Array.isArray(shape))
    throw typeError(method, `${name}.shape`, `an array of non-negative integers, for ${name}`, shape, expected);
  for (let i = 0; i < shape.length; i++) {
    const s = shape[i];
    if (!(i in shape) || typeof s !== 'number' || !Number.isInteger(s) || s < 0)
      throw shapeEntryError(method, name, shape, i, expected);
  }
  if (shape.some((s, i) => s === 0 && i !== (emptyAxis < 0 ? shape.length + emptyAxis : emptyAxis)))
    throw shapeError(
      method,
      name,
      shape,
      expected,
      'every dimension must be at least 1: zero-length tensors are not allowed',
    );
}

/** Product of a shape's dimensions. */
export function numel(shape) {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

const isRow = (a) => Array.isArray(a) || a instanceof Float32Array || a instanceof Float64Array;

/** The deepest nested array accepted (deeper tensors come as {data, shape}). */
const MAX_NESTED_RANK = 1000;

// Walks a nested array (whose rows may also be Float32Array or Float64Array),
// returning its shape and flat values, or throwing with the index of the
// first row or entry that does not fit the shape set by the first element at
// each depth. An empty slot of a sparse array ([1, , 3]) stays one in the
// flat values, so that the check of the values names it as such.
// With `numbers`, an entry that is not a number (an empty slot included) is
// reported as the walk meets it, which is in flat order, so the first one is
// named, as toFloat32 would, without walking the rest of a large array first.
function flattenNested(method, name, x, expected, { numbers = false } = {}) {
  // The shape, from the first element of each level. An array met again on
  // that path contains itself (it would never end), and nesting deeper than
  // MAX_NESTED_RANK would exhaust the call stack of the walk below.
  const shape = [];
  const seenAt = new Map();
  let level = x;
  let parent = null;
  // The name of the first element at `depth`: A, A[0], A[0, 0], ...
  const at = (depth) => `${name}${depth ? `[${new Array(depth).fill(0).join(', ')}]` : ''}`;
  while (isRow(level)) {
    if (seenAt.has(level)) {
      throw new TypeError(
        `${method}: ${at(shape.length)} is ${at(seenAt.get(level))} itself: an array that contains itself has no shape`,
      );
    }
    if (shape.length === MAX_NESTED_RANK) {
      throw new RangeError(
        `${method}: ${name} is nested more than ${MAX_NESTED_RANK} arrays deep; pass {data, shape} for a tensor of that rank`,
      );
    }
    seenAt.set(level, shape.length);
    shape.push(level.length);
    if (level.length === 0) throw shapeError(method, name, shape, expected, 'zero-length arrays are not allowed');
    parent = level;
    level = level[0];
  }
  // A first element that is empty, null or undefined where its siblings are
  // rows: the first row is what is wrong, not the shape the rows have.
  if (parent !== null && (level === null || level === undefined)) {
    // The first sibling that is not empty, null or undefined decides.
    let j = 1;
    while (j < parent.length && (!(j in parent) || parent[j] === null || parent[j] === undefined)) j++;
    if (j < parent.length && isRow(parent[j])) {
      const index = new Array(shape.length).fill(0);
      const sibling = [...index.slice(0, -1), j];
      throw entryError(
        method,
        name,
        [...shape, parent[j].length],
        index,
        `an array of length ${parent[j].length}, as ${name}[${sibling.join(', ')}] is`,
        level,
        {
          hole: !(0 in parent),
        },
      );
    }
  }
  const out = [];
  const last = shape.length - 1;
  // `index` is the index of the row `a` in x: [] for x itself, [1] for x[1].
  const walk = (a, index) => {
    const depth = index.length;
    if (!isRow(a)) throw entryError(method, name, shape, index, `an array of length ${shape[depth]}`, a);
    if (a.length !== shape[depth]) {
      throw new RangeError(
        `${method}: ${name}[${index.join(', ')}] is length ${a.length} but ${shape[depth]} was expected: ${name} must be rectangular ` +
          `(its first element makes it of shape ${formatShape(shape)}; ${expected} was expected)`,
      );
    }
    for (let i = 0; i < a.length; i++) {
      if (depth < last) {
        if (!(i in a))
          throw entryError(method, name, shape, [...index, i], `an array of length ${shape[depth + 1]}`, undefined, {
            hole: true,
          });
        walk(a[i], [...index, i]);
      } else if (!(i in a)) {
        if (numbers) throw entryTypeError(method, name, shape, out.length, undefined, true);
        out.length += 1;
      } else {
        if (numbers && typeof a[i] !== 'number' && !isRow(a[i]))
          throw entryTypeError(method, name, shape, out.length, a[i]);
        if (isRow(a[i])) throw entryTypeError(method, name, shape, out.length, a[i]);
        out.push(a[i]);
      }
    }
  };
  walk(x, []);
  return { shape, values: out };
}

// Copies the values into a Float32Array and checks that every value rounds
// to a finite float32 (or is -Infinity where allowed); values that round to
// +-Infinity are rejected. The first bad value's RangeError is recorded, not
// thrown (checks.js recordCheckedValues), so that a shape error of this
// argument or an earlier one is still reported first. A Float32Array is not
// scanned here (unless `eager`): it is passed on as it is (only ever copied
// into wasm memory, never written or returned), and its check runs in wasm
// on that copy, before the kernel is called (checks.js). Masks are checked
// eagerly, since they are reshaped in JS before they reach wasm.
function toFloat32(method, name, values, shape, { allowNegInf = false, eager = false } = {}) {
  const n = values.length;
  if (values instanceof Float32Array && !eager) {
    // A subclass is passed on as a plain view of the same memory (no copy):
    // the buffer code goes by the array's constructor.
    const plain = values.constructor === Float32Array ? values : new Float32Array(values.buffer, values.byteOffset, n);
    deferFiniteCheck(plain, { method, name, shape, allowNegInf });
    return plain;
  }
  const out = new Float32Array(n);
  let bad = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (typeof v !== 'number') {
      throw entryTypeError(method, name, shape, i, v, Array.isArray(values) && !(i in values));
    }
    // One comparison catches NaN, +-Infinity and values that round to +-Infinity in float32.
    if (!(v < F32_OVERFLOW && v > -F32_OVERFLOW) && !(allowNegInf && v === -Infinity) && bad < 0) bad = i;
    out[i] = v;
  }
  const error =
    bad < 0 ? null : valueError(method, name, shape, bad, values[bad], finiteRule(values[bad], allowNegInf));
  recordCheckedValues(out, { method, name, shape, allowNegInf }, error);
  return out;
}

/**
 * A tensor argument: { data, shape } (data: Float32Array, Float64Array or a
 * number array) or a nested number array. Returns { data: Float32Array, shape }.
 * @param {string} expected the expected shape in the field's names, e.g. '[Tq, d_k]'
 * @param {{ minRank?: number, emptyAxis?: number, allowNegInf?: boolean, eager?: boolean }} [opts]
 *   emptyAxis: the one axis of a { data, shape } argument that may be 0 (negative: from the end), e.g. the P
 *   rows of an empty KV cache; every other dimension must be at least 1.
 */
export function toTensor(method, name, x, expected, opts = {}) {
  const t = toTensorAnyRank(method, name, x, expected, opts);
  if (opts.minRank !== undefined && t.shape.length < opts.minRank) {
    throw shapeError(
      method,
      name,
      t.shape,
      expected,
      `rank ${t.shape.length}; rank ${opts.minRank} or more was expected`,
    );
  }
  return t;
}

function toTensorAnyRank(method, name, x, expected, opts) {
  if (isTensorObject(x)) {
    checkShapeArray(method, name, x.shape, expected, opts.emptyAxis);
    const { data } = x;
    if (!(data instanceof Float32Array || data instanceof Float64Array || Array.isArray(data))) {
      throw typeError(
        method,
        `${name}.data`,
        `a Float32Array, a Float64Array or an array of numbers, for ${name}`,
        data,
        expected,
      );
    }
    if (data.length !== numel(x.shape)) throw dataLengthError(method, name, x.shape, data.length);
    return { data: toFloat32(method, name, data, x.shape, opts), shape: x.shape.slice() };
  }
  if (x instanceof Float32Array || x instanceof Float64Array) {
    if (x.length === 0) throw shapeError(method, name, [0], expected, 'zero-length vectors are not allowed');
    return { data: toFloat32(method, name, x, [x.length], opts), shape: [x.length] };
  }
  if (Array.isArray(x)) {
    const { shape, values } = flattenNested(method, name, x, expected, { numbers: true });
    return { data: toFloat32(method, name, values, shape, opts), shape };
  }
  throw typeError(
    method,
    name,
    'a tensor {data, shape}, a nested array of numbers, a Float32Array or a Float64Array',
    x,
    expected,
  );
}

/** A tensor of a given rank (or one of several ranks). */
export function toTensorRank(method, name, x, ranks, expected, opts) {
  const t = toTensor(method, name, x, expected, opts);
  if (!ranks.includes(t.shape.length)) {
    throw shapeError(
      method,
      name,
      t.shape,
      expected,
      `rank ${t.shape.length}; rank ${ranks.join(' or ')} was expected`,
    );
  }
  return t;
}

/** A vector argument [n]: Float32Array | number[] (or a rank-1 tensor). */
export function toVector(method, name, x, expected = '[n]') {
  return toTensorRank(method, name, x, [1], expected).data;
}

/** Throws unless a and b have the same length n. */
export function sameLength(method, nameA, a, nameB, b) {
  if (a.length !== b.length) {
    throw shapeError(
      method,
      nameB,
      [b.length],
      [a.length],
      `${nameB} must have the length n = ${a.length} of ${nameA}`,
    );
  }
}

/** Throws a RangeError when a vector is all zeros. */
export function nonZero(method, name, v, what) {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return;
  throw ruleError(
    method,
    name,
    [v.length],
    `is the zero vector; ${what} needs a non-zero ${name} (its direction is undefined)`,
  );
}

const MASK_KINDS =
  'a boolean mask (booleans, or a Uint8Array of 0 and 1) or an additive mask (numbers, a Float32Array or a Float64Array)';

/** A typed array that a mask may be given as. */
const isMaskArray = (a) => a instanceof Uint8Array || a instanceof Float32Array || a instanceof Float64Array;

/**
 * options.maskKind: 'additive', 'boolean', or null when not given. Throws a
 * TypeError naming the option otherwise.
 */
export function maskKindOption(method, x) {
  if (x === undefined || x === null) return null;
  if (x === 'additive' || x === 'boolean') return x;
  throw new TypeError(`${method}: options.maskKind must be 'additive' or 'boolean'; got ${describeValue(x)}`);
}

/**
 * A mask: boolean (true = may attend, or the caller's inversion) or additive
 * float (may hold -Infinity). Accepted forms: nested arrays of booleans or of
 * numbers; { data, shape } with data a boolean array, a Uint8Array (1 = true),
 * a Float32Array/Float64Array or a number array. Returns { data: Float32Array
 * additive (0 or -Infinity for booleans), shape, boolean }.
 *
 * The kind comes from the container, as in PyTorch: booleans and Uint8Array
 * are boolean, Float32Array/Float64Array additive. A plain number array of
 * only 0s and 1s is ambiguous (PyTorch and Hugging Face users mean 1 = attend,
 * but as an additive mask it hides nothing), so it is refused with a TypeError
 * unless `kind` says which it is: 'additive' adds the numbers to the scores,
 * 'boolean' reads 1 as true. A stated kind must match the mask's values.
 * options.maskKind comes after the mask among the options: it is judged
 * (maskKindOption) after the mask's kind and shape, where the mask is read
 * by it, and before the mask's values.
 * @param {boolean} trueMeans 'attend' (true -> 0, false -> -Infinity) or 'ignore'
 * @param {unknown} kindOption options.maskKind as given
 * @param {(shape: number[]) => void} [judgeShape] the check of the mask's shape
 *   against the call's (a broadcast), run once the shape is known
 */
export function toMask(method, name, x, expected, trueMeans = 'attend', kindOption = undefined, judgeShape = null) {
  let shape;
  let values;
  if (isTensorObject(x)) {
    checkShapeArray(method, name, x.shape, expected);
    shape = x.shape.slice();
    values = x.data;
    if (!(Array.isArray(values) || isMaskArray(values))) {
      throw typeError(
        method,
        `${name}.data`,
        `an array of booleans or numbers, a Uint8Array (1 = true), a Float32Array or a Float64Array, for ${name}`,
        values,
        expected,
      );
    }
    if (values.length !== numel(shape)) throw dataLengthError(method, name, shape, values.length);
  } else if (Array.isArray(x)) {
    ({ shape, values } = flattenNested(method, name, x, expected));
  } else if (isMaskArray(x)) {
    if (x.length === 0) throw shapeError(method, name, [0], expected, 'zero-length masks are not allowed');
    shape = [x.length];
    values = x;
  } else {
    throw typeError(method, name, `${MASK_KINDS}, as a nested array or {data, shape},`, x, expected);
  }
  if (judgeShape) judgeShape(shape);
  const stated = (found) => {
    const kind = maskKindOption(method, kindOption);
    if (kind && kind !== found) {
      throw new TypeError(
        `${method}: options.maskKind is '${kind}' but ${name} ${formatShape(shape)} is ${found === 'boolean' ? 'a boolean' : 'an additive'} mask ` +
          (found === 'boolean'
            ? '(booleans or a Uint8Array); pass numbers (0 and -Infinity) for an additive mask'
            : '(a Float32Array or Float64Array); pass booleans or a Uint8Array for a boolean mask'),
      );
    }
  };
  if (values instanceof Float32Array || values instanceof Float64Array) {
    stated('additive');
    return { data: toFloat32(method, name, values, shape, { allowNegInf: true, eager: true }), shape, boolean: false };
  }
  // A boolean mask becomes additive: 0 where a key may take part, -Infinity where not.
  const attendWhenTrue = trueMeans === 'attend';
  if (values instanceof Uint8Array) {
    stated('boolean');
    const data = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) {
      if (values[i] > 1) throw valueError(method, name, shape, i, values[i], 'a Uint8Array mask holds 0 or 1');
      data[i] = (values[i] === 1) === attendWhenTrue ? 0 : -Infinity;
    }
    return { data, shape, boolean: true };
  }
  // An array is of the kind of its first boolean or number, so that a null or
  // an empty slot before it is named as such rather than taken for the other kind.
  let first = 0;
  while (first < values.length && typeof values[first] !== 'boolean' && typeof values[first] !== 'number') first++;
  const found = first < values.length ? typeof values[first] : null;
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== found)
      throw maskEntryError(method, name, shape, i, values[i], !(i in values), found, first);
  }
  if (found === 'number') {
    const kind = maskKindOption(method, kindOption);
    const zeroOne = values.every((v) => v === 0 || v === 1);
    if (kind === 'boolean') {
      const bad = values.findIndex((v) => v !== 0 && v !== 1);
      if (bad >= 0)
        throw valueError(method, name, shape, bad, values[bad], "with maskKind 'boolean', a number mask holds 0 or 1");
      return {
        data: Float32Array.from(values, (v) => ((v === 1) === attendWhenTrue ? 0 : -Infinity)),
        shape,
        boolean: true,
      };
    }
    if (zeroOne && kind !== 'additive') {
      throw new TypeError(
        `${method}: ${name} ${formatShape(shape)} is a number array of only 0s and 1s, which is ambiguous: as an ` +
          `additive mask it is added to the scores and hides nothing, while PyTorch and Hugging Face read 1 as ` +
          `${attendWhenTrue ? 'attend' : 'ignore'}. Pass booleans or a Uint8Array (true/1 = ${attendWhenTrue ? 'may attend' : 'ignored'}), ` +
          `an additive mask with -Infinity for hidden keys, or state options.maskKind: 'boolean' or 'additive'`,
      );
    }
    return { data: toFloat32(method, name, values, shape, { allowNegInf: true, eager: true }), shape, boolean: false };
  }
  stated('boolean');
  return { data: Float32Array.from(values, (b) => (b === attendWhenTrue ? 0 : -Infinity)), shape, boolean: true };
}

/**
 * Strides (in elements) for reading `shape` broadcast to `target`, trailing
 * aligned (NumPy rules): a dimension of 1 gets stride 0. Returns strides of
 * length target.length, or throws a RangeError naming the argument.
 */
export function broadcastStrides(method, name, shape, target, targetNames) {
  if (shape.length > target.length) {
    throw shapeError(
      method,
      name,
      shape,
      `a shape that broadcasts to ${targetNames} = ${formatShape(target)}`,
      `rank ${shape.length} > ${target.length}`,
    );
  }
  const strides = new Array(target.length).fill(0);
  let stride = 1;
  for (let i = 1; i <= shape.length; i++) {
    const s = shape[shape.length - i];
    const t = target[target.length - i];
    if (s !== t && s !== 1) {
      throw shapeError(
        method,
        name,
        shape,
        `a shape that broadcasts to ${targetNames} = ${formatShape(target)}`,
        t === 1
          ? `dimension ${shape.length - i} is ${s}, not 1`
          : `dimension ${shape.length - i} is ${s}, neither ${t} nor 1`,
      );
    }
    strides[target.length - i] = s === 1 ? 0 : stride;
    stride *= s;
  }
  return strides;
}

/**
 * Broadcast shape of several leading shapes (NumPy rules). Items are merged in
 * order; the first item that conflicts with the ones before it is named in the
 * RangeError, with its full shape and the shape of the argument it conflicts with.
 */
export function broadcastShapes(method, items) {
  let out = [];
  let from = null;
  for (const it of items) {
    const { shape } = it;
    const rank = Math.max(out.length, shape.length);
    const merged = new Array(rank);
    for (let i = 1; i <= rank; i++) {
      const a = out.length - i >= 0 ? out[out.length - i] : 1;
      const b = shape.length - i >= 0 ? shape[shape.length - i] : 1;
      if (a !== b && a !== 1 && b !== 1) {
        throw shapeError(
          method,
          it.name,
          it.full ?? shape,
          it.expected,
          `its leading dimensions ${formatShape(shape)} do not broadcast with those of ${from.name} ${formatShape(from.full ?? from.shape)}`,
        );
      }
      merged[rank - i] = a === 1 ? b : a;
    }
    out = merged;
    if (!from || shape.some((x) => x !== 1)) from = from && shape.length === 0 ? from : it;
  }
  return out;
}

/** Copies `src` (read through `strides` over `target`) into a fresh contiguous Float32Array of `target`. */
export function materialize(src, strides, target) {
  const n = numel(target);
  const out = new Float32Array(n);
  const rank = target.length;
  const idx = new Array(rank).fill(0);
  let off = 0;
  for (let i = 0; i < n; i++) {
    out[i] = src[off];
    for (let d = rank - 1; d >= 0; d--) {
      idx[d]++;
      off += strides[d];
      if (idx[d] < target[d]) break;
      off -= strides[d] * target[d];
      idx[d] = 0;
    }
  }
  return out;
}

/**
 * An integer from `min` to `max`, or throws: missing (undefined), missingError's TypeError; not an integer
 * (a string, 1.5, NaN, Infinity, null, a BigInt), a TypeError; out of range, a RangeError, which `why`
 * (e.g. " (a batch index)") ends after the range.
 */
export function integerIn(method, name, x, min, max, why = '') {
  if (x === undefined) throw missingError(method, name, `an integer from ${min} to ${max}`);
  if (typeof x !== 'number' || !Number.isInteger(x)) {
    throw new TypeError(`${method}: ${name} must be an integer; got ${typeof x === 'number' ? x : describeValue(x)}`);
  }
  if (x < min || x > max) throw new RangeError(`${method}: ${name} must be between ${min} and ${max}${why}; got ${x}`);
  return x;
}

/** A positive integer option (size), or throws (integerIn from 1). */
export function positiveInt(method, name, x, max = 2147483647) {
  return integerIn(method, name, x, 1, max);
}

/** A finite number option (optionally > 0), or throws. */
export function finiteNumber(method, name, x, { positive = false } = {}) {
  if (x === undefined) throw missingError(method, name, positive ? 'a number > 0' : 'a number');
  if (typeof x !== 'number') throw new TypeError(`${method}: ${name} must be a number; got ${describeValue(x)}`);
  // Finite once rounded to float32, as the kernels take it: 3.4028235e38 (FLT_MAX as NumPy prints it) is.
  if (!(Math.abs(x) < F32_OVERFLOW))
    throw new RangeError(
      `${method}: ${name} must be finite in float32 (|${name}| < 3.4028235677973366e38, which rounds to the largest float32); got ${x}`,
    );
  if (positive && !(x > 0)) throw new RangeError(`${method}: ${name} must be > 0; got ${x}`);
  return x;
}

/**
 * An options object (undefined or null -> {}), or a TypeError. With `known`
 * (the keys the method reads), a key outside it is a TypeError naming the key
 * and the known ones: a misspelt option would otherwise do nothing, silently.
 * A member that is null is absent, as one that is undefined (index.d.ts,
 * "Options"), and a member is given only as an own enumerable key (as for
 * checkKnownKeys): a non-enumerable or inherited member is a TypeError naming
 * it (refuseHiddenMembers), and the object returned is always a plain copy of
 * the own enumerable members that are not null or undefined, so that every
 * reader sees undefined for the others and applies its default, or names a
 * required member as missing.
 */
export function optionsObject(method, x, name = 'options', known = null) {
  if (x === undefined || x === null) return {};
  // A plain object (a Map, a typed array or a Date would have its settings ignored); by tag, so
  // that objects of another realm pass.
  const tag = typeof x === 'object' && !Array.isArray(x) ? Object.prototype.toString.call(x).slice(8, -1) : 'Object';
  if (typeof x !== 'object' || Array.isArray(x) || tag !== 'Object')
    throw new TypeError(
      `${method}: ${name} must be a plain object; got ${tag === 'Object' ? describeValue(x) : `${/^[aeiou]/i.test(tag) ? 'an' : 'a'} ${tag}`}`,
    );
  refuseHiddenMembers(method, name, x);
  if (known) checkKnownKeys(method, name, x, known);
  return givenMembers(x);
}

/** The names of a realm's Object.prototype (the same in every realm): no member of an options object. */
const ROOT_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Throws a TypeError naming the first member of `x` that is not an own enumerable key: a non-enumerable
 * own one (Object.defineProperty), or one inherited from a prototype (Object.create(o), a getter of a
 * class, a null-prototype object's members). It would be read as absent (givenMembers), so the call would
 * silently run on defaults. Not members: the names of the root prototype (Object.prototype, of any realm),
 * `constructor`, and methods (data members whose value is a function: a class's methods, a toJSON).
 * Names and descriptors only: no getter runs.
 */
function refuseHiddenMembers(method, name, x) {
  const isMethod = (d) => 'value' in d && typeof d.value === 'function';
  const own = Object.getOwnPropertyDescriptors(x);
  let hidden = Object.keys(own).find((key) => !own[key].enumerable && !isMethod(own[key]));
  let how = 'not enumerable';
  for (let p = Object.getPrototypeOf(x); hidden === undefined && p !== null; p = Object.getPrototypeOf(p)) {
    const root = Object.getPrototypeOf(p) === null;
    const inherited = Object.getOwnPropertyDescriptors(p);
    hidden = Object.keys(inherited).find(
      (key) => key !== 'constructor' && !(root && ROOT_NAMES.has(key)) && !isMethod(inherited[key]),
    );
    how = 'inherited';
  }
  if (hidden !== undefined)
    throw new TypeError(
      `${method}: ${name} has a member '${hidden.slice(0, 40)}' that is ${how}, which would be ignored; ` +
        'give every member as an own enumerable key (a plain object literal)',
    );
}

/**
 * A plain object of the own enumerable members of `x` (Object.entries: each read once) that are not
 * null or undefined; defined as own data members (Object.fromEntries), so that a key '__proto__' is one.
 */
function givenMembers(x) {
  return Object.fromEntries(Object.entries(x).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * Throws a TypeError at the first own enumerable key of `x` (Object.keys: names only, no member is
 * read) that is neither in `known` nor in `passed` (keys judged elsewhere, not listed as known).
 */
export function checkKnownKeys(method, name, x, known, passed = []) {
  for (const key of Object.keys(x)) {
    if (!known.includes(key) && !passed.includes(key)) {
      throw new TypeError(
        `${method}: ${name} has an unknown key '${key.slice(0, 40)}'; ` +
          (known.length ? `the known keys are ${known.join(', ')}` : 'it takes no key'),
      );
    }
  }
}

export function booleanOption(method, name, x, dflt) {
  if (x === undefined) return dflt;
  if (typeof x !== 'boolean') throw new TypeError(`${method}: ${name} must be true or false; got ${describeValue(x)}`);
  return x;
}
