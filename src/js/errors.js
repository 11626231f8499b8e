// Errors are made here and only here, so that every message has the same
// parts: the method, the argument, the shape received and the shape expected.
// TypeError: the argument has the wrong kind (not an array, a string, ...).
// RangeError: the kind is right but a size, a shape or a value is not.
//
// Each error of one argument also records which argument it is about and
// whether it is about the argument's kind or shape ('shape') or its values
// ('value'): checks.js uses it to put an earlier argument's deferred value
// error before it, never the argument's own or a later one's (see there).

/** The argument and stage each error is about (subjectOf). */
const subjects = new WeakMap();

/**
 * Records that `error` is about argument `name` ('x', 'options.mask', or
 * 'x.shape', read as 'x') at `stage` 'shape' (its kind or shape) or 'value'
 * (its values), and returns it.
 * @template {Error} E
 * @param {E} error
 * @returns {E}
 */
export function about(error, name, stage) {
  subjects.set(error, { name: name.replace(/\.(data|shape)$/, ''), stage });
  return error;
}

/** { name, stage } recorded by `about`, or undefined. */
export function subjectOf(error) {
  return error !== null && typeof error === 'object' ? subjects.get(error) : undefined;
}

/**
 * A call with more arguments than the method takes (`arity`, its declared
 * parameters): `given` counts the arguments up to the last that is not
 * undefined, and `extra` is the first argument past the declared ones.
 */
export function argumentCountError(method, arity, given, extra) {
  const takes = arity === 0 ? 'no arguments' : `${arity} argument${arity === 1 ? '' : 's'}`;
  return new TypeError(
    `${method}: takes ${takes} but was given ${given}; argument ${arity + 1} is ${describeValue(extra)}`,
  );
}

/**
 * A required argument or member that was not given (undefined; a null member
 * is absent too, index.d.ts "Options"): "is required and was not given;
 * expected ..." rather than "got undefined".
 */
export function missingError(method, name, expected) {
  return new TypeError(`${method}: ${name} is required and was not given; expected ${expected}`);
}

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
  const entry = (s) =>
    typeof s === 'number' || typeof s === 'boolean'
      ? String(s)
      : typeof s === 'string'
        ? JSON.stringify(s.slice(0, 20))
        : s === null
          ? 'null'
          : Array.isArray(s)
            ? 'array'
            : typeof s;
  const shown = Array.from({ length: Math.min(shape.length, 8) }, (_, i) => (i in shape ? entry(shape[i]) : 'empty'));
  if (shape.length > 8) shown.push('...');
  return `[${shown.join(', ')}]`;
}

/** What a value is, for "got ...": null, an array, an Int8Array of length 3, the string "2", number 5. */
export function describeValue(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) {
    const n = value.length === undefined ? value.byteLength : value.length;
    return `${article(value.constructor.name)} of ${value.length === undefined ? 'byte ' : ''}length ${n}`;
  }
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    const shown = keys.slice(0, 5).map((k) => (k.length > 40 ? `${k.slice(0, 40)}...` : k));
    if (keys.length > 5) shown.push(`... (${keys.length} keys)`);
    return `an object with keys {${shown.join(', ')}}`;
  }
  return `${typeof value} ${String(value).slice(0, 40)}`;
}

/**
 * The message of something thrown, for a message of ours: an Error's
 * message, a string, else what kind of value it was (String() itself may
 * throw, for an object without a prototype).
 */
export function messageOf(thrown) {
  if (thrown !== null && typeof thrown === 'object') {
    try {
      if (typeof thrown.message === 'string') return thrown.message;
    } catch {
      // a getter or trap that throws: described below
    }
    return 'a value that is not an Error';
  }
  return typeof thrown === 'string' ? thrown : `${typeof thrown} ${String(thrown)}`;
}

/** A string as JSON text, cut to 40 characters (and its length then given). */
function quote(text) {
  if (text.length <= 40) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, 40)).slice(0, -1)}..." (${text.length} characters)`;
}

/** "of shape [n]" for a shape in brackets; "of a shape that broadcasts to ..." for a phrase. */
function ofShape(expected) {
  return expected.startsWith('[') ? `of shape ${expected}` : `of ${expected}`;
}

/** What an empty slot of a sparse array ([1, , 3]) is called in messages. */
const HOLE = 'an empty slot (a hole in the array)';

/**
 * A wrong kind of argument.
 * @param {string} method  e.g. 'attention'
 * @param {string} name    the argument, e.g. 'K'
 * @param {string} wanted  what was expected, e.g. 'a Float32Array or an array of numbers'
 * @param {unknown} got    the value received
 * @param {string} expectedShape e.g. '[Tk, d_k]'
 */
export function typeError(method, name, wanted, got, expectedShape) {
  return about(
    new TypeError(`${method}: ${name} must be ${wanted} ${ofShape(expectedShape)}; got ${describeValue(got)}`),
    name,
    'shape',
  );
}

/**
 * An entry of an array that is not what it must be: "A[0, 1] must be a number
 * (A has shape [2, 2]); got an array". `at` is the entry's flat index in
 * `shape`, or its index as a list (for a row of a nested array); `hole` says
 * that the entry is an empty slot of a sparse array ([1, , 3]) rather than a
 * value; `note` is added after the shape.
 */
export function entryError(method, name, shape, at, wanted, got, { hole = false, note = '' } = {}) {
  const index = Array.isArray(at) ? `[${at.join(', ')}]` : formatIndex(shape, at);
  const what = hole ? HOLE : describeValue(got);
  return about(
    new TypeError(
      `${method}: ${name}${index} must be ${wanted} (${name} has shape ${formatShape(shape)}${note ? `; ${note}` : ''}); got ${what}`,
    ),
    name,
    'shape',
  );
}

/** An entry of an array of numbers that is not a number (or is an empty slot when `hole`). */
export function entryTypeError(method, name, shape, flatIndex, got, hole = false) {
  return entryError(method, name, shape, flatIndex, 'a number', got, { hole });
}

/**
 * An entry of a mask that is not of the mask's kind: `kind` 'boolean' or
 * 'number', set by the entry at `kindIndex` (the first boolean or number);
 * `kind` null when the mask holds no boolean and no number at all.
 */
export function maskEntryError(method, name, shape, flatIndex, got, hole, kind, kindIndex) {
  if (!kind) return entryError(method, name, shape, flatIndex, 'a boolean or a number', got, { hole });
  return entryError(method, name, shape, flatIndex, `a ${kind}, as ${name}${formatIndex(shape, kindIndex)} is`, got, {
    hole,
    note: 'a mask is all booleans or all numbers',
  });
}

/**
 * A {data, shape} argument whose data has another number of elements than
 * its shape holds (counted exactly, even beyond 2^53).
 */
export function dataLengthError(method, name, shape, length) {
  const size = shape.reduce((a, b) => a * BigInt(b), 1n);
  // Exact up to 21 digits (past 2^53 too); beyond, rounded: a shape of 1e300 holds about 1.000e+300.
  const digits = size.toString();
  const holds =
    digits.length <= 21
      ? digits
      : Number.isFinite(Number(size))
        ? `about ${Number(size).toExponential(3)}`
        : 'more than 1e308';
  return about(
    new RangeError(
      `${method}: ${name}.data has ${length} element${length === 1 ? '' : 's'} but ${name}.shape ${formatShape(shape)} holds ${holds}`,
    ),
    name,
    'shape',
  );
}

/**
 * An entry of a shape array that is not a dimension: a TypeError when it is
 * not a number (or is an empty slot), a RangeError when it is a number but
 * not a non-negative integer (-1, 1.5, NaN, Infinity).
 */
export function shapeEntryError(method, name, shape, i, expected) {
  const s = shape[i];
  const tail = `(got ${formatGivenShape(shape)}; ${name} ${ofShape(expected)} was expected)`;
  if (typeof s === 'number') {
    return about(
      new RangeError(
        `${method}: ${name}.shape[${i}] is ${formatValue(s)}; a dimension is a non-negative integer ${tail}`,
      ),
      name,
      'shape',
    );
  }
  const what = !(i in shape) ? 'empty (a hole in the array)' : describeValue(s);
  return about(
    new TypeError(`${method}: ${name}.shape[${i}] is ${what}; a shape is a list of non-negative integers ${tail}`),
    name,
    'shape',
  );
}

/** A shape that does not fit: names the argument, the shape received and the shape expected. */
export function shapeError(method, name, gotShape, expectedShape, why = '') {
  const exp = Array.isArray(expectedShape) ? formatShape(expectedShape) : expectedShape;
  return about(
    new RangeError(
      `${method}: ${name} has shape ${formatShape(gotShape)} but ${exp} was expected${why ? ` (${why})` : ''}`,
    ),
    name,
    'shape',
  );
}

/** A value that is not allowed at a given index. */
export function valueError(method, name, shape, flatIndex, value, rule) {
  return about(
    new RangeError(
      `${method}: ${name}${formatIndex(shape, flatIndex)} is ${formatValue(value)}; ${rule} (${name} has shape ${formatShape(shape)})`,
    ),
    name,
    'value',
  );
}

/** A whole-argument rule broken (zero vector, temperature <= 0, numHeads, ...). */
export function ruleError(method, name, shape, rule) {
  const s = shape ? ` (${name} has shape ${formatShape(shape)})` : '';
  return about(new RangeError(`${method}: ${name} ${rule}${s}`), name, 'value');
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
 * @param {string} name   what overflowed, e.g. 'the scores scale * Q K^T'; with '[]' in it, the index
 *   goes there and belongs to the argument before it: 'x[] / temperature' names x[0, 1] / temperature
 * @param {number[]} shape the shape the flat index refers to
 * @param {number} flat   the flat index of the first overflow
 */
export function overflowError(method, name, shape, flat, remedy = 'scale the inputs down') {
  const at = shape.length === 0 ? '' : formatIndex(shape, flat);
  const slot = name.indexOf('[]');
  if (slot >= 0) {
    return new RangeError(
      `${method}: ${name.slice(0, slot)}${at}${name.slice(slot + 2)} overflowed float32 although the inputs are finite ` +
        `(${name.slice(0, slot)} has shape ${formatShape(shape)}); ${remedy}`,
    );
  }
  return new RangeError(
    `${method}: ${name}${at} overflowed float32 although the inputs are finite ` +
      `(the shape of ${name} is ${formatShape(shape)}); ${remedy}`,
  );
}

/** Throws overflowError at the first NaN of `data`, if any. */
export function assertNoNaN(method, name, data, shape) {
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== data[i]) throw overflowError(method, name, shape, i);
  }
}
