// Checks that run inside wasm (src/kernels/checks.h) instead of element by
// element in JS, where scanning a [T, T] array costs as much as some kernels,
// and the order in which the errors of one call are reported.
//
// - Inputs given as Float32Array: tensor.js passes them on without looking
//   at the values and defers the finiteness check here; the buffer code
//   (heap.js) runs it on the copy in wasm memory, before any kernel sees the
//   data, and throws the same RangeError the JS check would.
// - Number arrays, Float64Arrays (whose values may lie beyond the float32
//   range) and masks are checked in JS while they are converted, but their
//   error too is only recorded then (recordCheckedValues), not thrown: it is
//   thrown when the call's buffers are set up (heap.js, throwRecordedError),
//   after every argument's kind and shape were checked.
// - The checks are kept per API call, one record per argument in the order
//   the arguments were read (every API method runs inside checkedCall, which
//   starts the list). One array passed as two arguments (dot(x, x),
//   attention(X, X, X)) has a record for each, and a check of that array
//   runs the first record not yet run: the error names the first of those
//   arguments.
// - The order of errors: arguments in the documented argument order (the
//   options object last, its members in the order index.d.ts lists them);
//   within one argument, its kind and shape, then its values (finiteness
//   first, then rules such as "a distribution"). A shape is judged against
//   the arguments before it. So when a method throws, checkedCall throws
//   instead the value error of the first argument read before the one the
//   error is about (errors.js subjectOf; the argument itself too when the
//   error is about its values), if there is one: a value check that ran
//   later than the argument was read still comes first where it belongs.

import { argumentCountError, subjectOf, valueError } from './errors.js';

const F32_MAX = 3.4028234663852886e38;

const nanIndex = new WeakMap();

/**
 * The value checks of the innermost API call under way (checkedCall), in the
 * order the arguments were read: { data, info (deferFiniteCheck's), done,
 * error (the RangeError of a check made in JS, or null) }. null outside any
 * call.
 */
let pending = null;

/** The rule a non-finite value broke, in the words of tensor.js. */
export function finiteRule(value, allowNegInf) {
  // A finite number beyond float32's range becomes Infinity when converted,
  // so its message names the range rather than "finite".
  if (Number.isFinite(value)) {
    return allowNegInf
      ? 'an additive mask may hold finite float32 values (|x| <= 3.4028234663852886e38, the largest float32, once rounded to float32) and -Infinity only'
      : 'values must be finite in float32 (|x| <= 3.4028234663852886e38, the largest float32, once rounded to float32)';
  }
  return allowNegInf ? 'an additive mask may hold finite values and -Infinity only' : 'inputs must be finite';
}

/**
 * Marks `f32` (the float32 data of an argument) as not yet checked. Outside
 * an API call (no checkedCall under way) there is nothing to run it later:
 * it is checked here, in JS.
 * @param {Float32Array} f32 the data that will be copied into wasm
 * @param {{method: string, name: string, shape: number[], allowNegInf: boolean}} info
 */
export function deferFiniteCheck(f32, info) {
  const record = { data: f32, info, done: false, error: null };
  if (!pending) {
    const error = failedCheck(record);
    if (error) throw error;
    return;
  }
  pending.push(record);
}

/**
 * Records the outcome of a finiteness check made in JS while an argument was
 * converted: `error` (its RangeError) or null. The error is thrown later, by
 * throwRecordedError or checkedCall, once the kinds and shapes of all the
 * arguments were checked; outside an API call it is thrown here.
 * @param {Float32Array} f32 the converted data
 * @param {{method: string, name: string, shape: number[], allowNegInf: boolean}} info
 * @param {RangeError | null} error
 */
export function recordCheckedValues(f32, info, error) {
  if (!pending) {
    if (error) throw error;
    return;
  }
  pending.push({ data: f32, info, done: !error, error });
}

/**
 * Throws the first error recorded by recordCheckedValues in the call under
 * way, if any: called before the call's buffers are filled (heap.js), the
 * point past which no argument is read.
 */
export function throwRecordedError() {
  if (!pending) return;
  for (const r of pending) if (r.error) throw r.error;
}

/** The first record of the call under way for `data` whose check has not run, or undefined. */
function nextRecord(data) {
  if (!pending) return undefined;
  for (const r of pending) if (r.data === data && !r.done) return r;
  return undefined;
}

/**
 * Runs the deferred check of `data` (if any) on its copy at byte offset `ptr`.
 * Throws the RangeError of tensor.js for the first value that is NaN or
 * +-Infinity (-Infinity is allowed where the info says so).
 */
export function runDeferredCheck(module, data, ptr) {
  const r = nextRecord(data);
  if (!r) return;
  if (r.error) throw r.error;
  const { info } = r;
  const i = module.firstNonFinite(ptr, data.length, info.allowNegInf ? 1 : 0);
  if (i >= 0) throw valueError(info.method, info.name, info.shape, i, data[i], finiteRule(data[i], info.allowNegInf));
  r.done = true;
}

/**
 * runDeferredCheck for data copied in as `blocks` blocks of `blockLength`
 * floats, block b at byte offset `ptr` + 4 `stride` b (a KV cache's rows,
 * placed in the present buffer between this call's rows). The index named is
 * the one in `data`, as runDeferredCheck names it.
 */
export function runDeferredCheckBlocks(module, data, ptr, blocks, blockLength, stride) {
  const r = nextRecord(data);
  if (!r) return;
  if (r.error) throw r.error;
  const { info } = r;
  for (let b = 0; b < blocks; b++) {
    const i = module.firstNonFinite(ptr + 4 * b * stride, blockLength, info.allowNegInf ? 1 : 0);
    if (i < 0) continue;
    const at = b * blockLength + i;
    throw valueError(info.method, info.name, info.shape, at, data[at], finiteRule(data[at], info.allowNegInf));
  }
  r.done = true;
}

/** The RangeError of a record's check (run in JS if it has not run), or null when its data pass. */
function failedCheck({ data, info, error }) {
  if (error) return error;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    // NaN and +-Infinity (a float32 is never beyond the range otherwise).
    if (!(v <= F32_MAX && v >= -F32_MAX) && !(info.allowNegInf && v === -Infinity))
      return valueError(info.method, info.name, info.shape, i, v, finiteRule(v, info.allowNegInf));
  }
  return null;
}

/**
 * The RangeError of the first of `records` (one call's) whose check has not
 * run and fails when run in JS, or null. Only the records of arguments that
 * come before the one `thrown` is about count (and that argument's own when
 * `thrown` is about its values): a shape error of an argument comes before
 * its values and those of later arguments.
 */
function firstPendingError(records, thrown) {
  let end = records.length;
  const subject = subjectOf(thrown);
  if (subject) {
    const at = records.findIndex((r) => r.info.name === subject.name);
    if (at >= 0) end = subject.stage === 'shape' ? at : at + 1;
  }
  for (let k = 0; k < end; k++) {
    const r = records[k];
    const error = r.done ? null : failedCheck(r);
    if (error) return error;
  }
  return null;
}

/**
 * `method` (an API method) made to throw a TypeError when given more
 * arguments than it declares (see checked), and, when it throws, the error of its
 * first argument whose deferred check has not run and fails instead, if
 * there is one (see the top of this file). Its return value and its other
 * errors are unchanged.
 * @template {(...args: any[]) => any} F
 * @param {F} method
 * @returns {F}
 */
export function checkedCall(method) {
  // The declared parameters (a method with a default or rest parameter would need its count given here).
  const arity = method.length;
  function checked(...args) {
    checkArgumentCount(method.name, arity, args);
    // An API method called by another has a list of its own: its error is
    // looked at first here, then, on the way out, by its caller's.
    const caller = pending;
    pending = [];
    try {
      const result = method.apply(this, args);
      // A value error recorded in JS is thrown before any buffer is filled
      // (heap.js); a method that fills none must not return past one either.
      throwRecordedError();
      return result;
    } catch (e) {
      throw firstPendingError(pending, e) ?? e;
    } finally {
      pending = caller;
    }
  }
  // The method's own name and argument count, for stack traces and reflection.
  Object.defineProperty(checked, 'name', { value: method.name });
  Object.defineProperty(checked, 'length', { value: method.length });
  return checked;
}

/**
 * Throws the TypeError of a call to `method` (its name in messages) given more
 * than `arity` arguments. More arguments than a function takes is an error of
 * the call itself, thrown before any argument is read; trailing undefined
 * arguments are not counted (a caller forwarding an absent options object).
 * @param {string} method
 * @param {number} arity
 * @param {ArrayLike<unknown>} args the arguments of the call
 */
export function checkArgumentCount(method, arity, args) {
  let given = args.length;
  while (given > arity && args[given - 1] === undefined) given--;
  if (given > arity) throw argumentCountError(method, arity, given, args[arity]);
}

/**
 * `fn` made to throw checkArgumentCount's TypeError, naming it `method`, when
 * given more arguments than it declares (the functions outside the API
 * object: random.*, tasks.*, a transformer's methods). Called with its `this`;
 * its own name and argument count are kept.
 * @template {(...args: any[]) => any} F
 * @param {string} method the name its errors use, e.g. 'random.normal'
 * @param {F} fn
 * @returns {F}
 */
export function countedCall(method, fn) {
  const arity = fn.length;
  function counted(...args) {
    checkArgumentCount(method, arity, args);
    return fn.apply(this, args);
  }
  Object.defineProperty(counted, 'name', { value: fn.name });
  Object.defineProperty(counted, 'length', { value: arity });
  return counted;
}

/**
 * The functions of `functions` (an object of them), each through countedCall
 * with the name `${owner}.${key}`.
 * @template {Record<string, (...args: any[]) => any>} O
 * @param {string} owner
 * @param {O} functions
 * @returns {O}
 */
export function countedFunctions(owner, functions) {
  return Object.fromEntries(Object.entries(functions).map(([key, fn]) => [key, countedCall(`${owner}.${key}`, fn)]));
}

/** Records the first NaN of a result (or -1), found in wasm before it was copied out. */
export function noteNaNIndex(result, index) {
  nanIndex.set(result, index);
}

/** The index recorded by noteNaNIndex, or undefined when none was recorded. */
export function knownNaNIndex(result) {
  return nanIndex.get(result);
}
