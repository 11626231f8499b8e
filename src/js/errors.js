// Errors are made here and only here, so that every message has the same
// parts: the method, the argument, the shape received and the shape expected.
// TypeError: the argument has the wrong kind (not an array, a string, ...).
// RangeError: the kind is right but a size, a shape or a value is not.

/** "[2, 3]" for a shape array; "scalar" for []. */
export function formatShape(shape) {
  return shape.length === 0 ? '[] (scalar)' : `[${shape.join(', ')}]`;
}

/** "a" or "an" before `word`, by its sound: an Int32Array, an object, a Uint8Array. */
export function article(word) {
  return /^[aeio]/i.test(word) || /^u(?!ni|int|se)/i.test(word) ? `an ${word}` : `a ${word}`;
}

/** A shape as received, for messages: "[1.5, 4]" (entries that are not numbers are shown by kind). */
export function formatGivenShape(shape) {
  const entry = (s) => (typeof s === 'number' ? String(s) : typeof s === 'string' ? JSON.stringify(s.slice(0, 20)) : s === null ? 'null' : typeof s);
  const shown = shape.slice(0, 8).map(entry);
  if (shape.length > 8) shown.push('...');
  return `[${shown.join(', ')}]`;
}

function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return article(value.constructor.name);
  return typeof value === 'object' ? `an object with keys {${Object.keys(value).slice(0, 5).join(', ')}}` : `${typeof value} ${String(value).slice(0, 40)}`;
}

/**
 * A wrong kind of argument.
 * @param {string} method  e.g. 'attention'
 * @param {string} name    the argument, e.g. 'K'
 * @param {string} wanted  what was expected, e.g. 'a Float32Array or an array of numbers'
 * @param {unknown} got    the value received
 * @param {string} expectedShape e.g. '[Tk, d_k]'
 */
export function typeError(method, name, wanted, got, expectedShape) {
  return new TypeError(`${method}: ${name} must be ${wanted} of shape ${expectedShape}; got ${describe(got)}`);
}

/**
 * An entry of an array of numbers that is not a number: names the entry by
 * its index in `shape`. `hole` says that it is an empty slot of a sparse
 * array ([1, , 3]) rather than a value.
 */
export function entryTypeError(method, name, shape, flatIndex, got, hole = false) {
  const what = hole ? 'an empty slot (a sparse array)' : describe(got);
  return new TypeError(`${method}: ${name}${formatIndex(shape, flatIndex)} must be a number (${name} has shape ${formatShape(shape)}); got ${what}`);
}

/**
 * A {data, shape} argument whose data has another number of elements than
 * its shape holds (`size`, exact, as text).
 */
export function dataLengthError(method, name, shape, length, size) {
  return new RangeError(
    `${method}: ${name}.data has ${length} element${length === 1 ? '' : 's'} but ${name}.shape ${formatShape(shape)} holds ${size}`,
  );
}

/**
 * An entry of a boolean mask that is not a boolean: `got` the value (or an
 * empty slot of a sparse array when `hole`).
 */
export function maskEntryError(method, name, shape, flatIndex, got, hole = false) {
  const what = hole ? 'an empty slot (a sparse array)' : describe(got);
  const why = typeof got === 'number' && !hole ? ' (a mask is all booleans or all numbers, not both)' : '';
  return new TypeError(
    `${method}: ${name}${formatIndex(shape, flatIndex)} must be a boolean like the mask's first entry${why} (${name} has shape ${formatShape(shape)}); got ${what}`,
  );
}

/** A shape that does not fit: names the argument, the shape received and the shape expected. */
export function shapeError(method, name, gotShape, expectedShape, why = '') {
  const exp = Array.isArray(expectedShape) ? formatShape(expectedShape) : expectedShape;
  return new RangeError(`${method}: ${name} has shape ${formatShape(gotShape)} but ${exp} was expected${why ? ` (${why})` : ''}`);
}

/** A value that is not allowed at a given index. */
export function valueError(method, name, shape, flatIndex, value, rule) {
  return new RangeError(
    `${method}: ${name}${formatIndex(shape, flatIndex)} is ${formatValue(value)}; ${rule} (${name} has shape ${formatShape(shape)})`,
  );
}

/** A whole-argument rule broken (zero vector, temperature <= 0, numHeads, ...). */
export function ruleError(method, name, shape, rule) {
  const s = shape ? ` (${name} has shape ${formatShape(shape)})` : '';
  return new RangeError(`${method}: ${name} ${rule}${s}`);
}

export function formatIndex(shape, flat) {
  if (shape.length <= 1) return `[${flat}]`;
  const idx = new Array(shape.length);
  let r = flat;
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = r % shape[i];
    r = Math.floor(r / shape[i]);
  }
  return `[${idx.join(', ')}]`;
}

function formatValue(v) {
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : String(v);
  return String(v);
}

/**
 * Finite inputs can still overflow float32 inside a kernel (x / temperature,
 * scale * q.k, a projection, a partial sum). The softmax and attention kernels
 * report the first such entry (status = 1 + its flat index); any other NaN in
 * a result from finite inputs has the same cause. Neither is ever a right
 * answer, so both become this RangeError instead of NaN or zeros.
 * @param {string} method
 * @param {string} name   what overflowed, e.g. 'the scores scale * Q K^T'
 * @param {number[]} shape the shape the flat index refers to
 * @param {number} flat   the flat index of the first overflow
 */
export function overflowError(method, name, shape, flat) {
  const at = shape.length === 0 ? '' : formatIndex(shape, flat);
  return new RangeError(
    `${method}: ${name}${at} overflowed float32 although the inputs are finite ` +
      `(the shape of ${name} is ${formatShape(shape)}); scale the inputs down`,
  );
}

/** Throws overflowError at the first NaN of `data`, if any. */
export function assertNoNaN(method, name, data, shape) {
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== data[i]) throw overflowError(method, name, shape, i);
  }
}
