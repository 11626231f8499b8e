// Checks that run inside wasm (src/kernels/checks.h) instead of element by
// element in JS, where scanning a [T, T] array costs as much as some kernels.
//
// - Inputs given as Float32Array: tensor.js passes them on without looking
//   at the values and defers the finiteness check here; the buffer code
//   (heap.js) runs it on the copy in wasm memory, before any kernel sees the
//   data, and throws the same RangeError the JS check would. Number arrays,
//   Float64Arrays (whose values may lie beyond the float32 range) and masks
//   are still checked in JS while they are converted.
// - The deferred checks are kept per API call, one record per argument in
//   the order the arguments were read (every API method runs inside
//   checkedCall, which starts the list). One array passed as two arguments
//   (dot(x, x), attention(X, X, X)) has a record for each, and a check of
//   that array runs the first record not yet run: the error names the first
//   of those arguments.
// - A deferred check runs later than a JS check would have: after the later
//   arguments were read. So that the error still names the first bad
//   argument, when a method throws before the deferred checks of its
//   earlier arguments ran, those are run in JS (only then, on the error
//   path) and the first that fails is thrown instead, as if it had been
//   checked when the argument was read.
// - Results: heap.js's readOut asks wasm for the first NaN while the result
//   is still in wasm memory, and the API's result check uses that index.

import { valueError } from './errors.js';

const F32_MAX = 3.4028234663852886e38;

const nanIndex = new WeakMap();

/**
 * The deferred checks of the innermost API call under way (checkedCall), in
 * the order the arguments were read: { data, info (deferFiniteCheck's),
 * done }. null outside any call.
 */
let pending = null;

/** The rule a non-finite value broke, in the words of tensor.js. */
export function finiteRule(value, allowNegInf) {
  // A finite number beyond float32's range becomes Infinity when converted,
  // so its message names the range rather than "finite".
  if (Number.isFinite(value)) {
    return allowNegInf
      ? 'an additive mask may hold finite float32 values (|x| <= 3.4028234663852886e38, the largest float32) and -Infinity only'
      : 'values must be finite in float32 (|x| <= 3.4028234663852886e38, the largest float32)';
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
  const record = { data: f32, info, done: false };
  if (!pending) {
    const error = failedCheck(record);
    if (error) throw error;
    return;
  }
  pending.push(record);
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
  const { info } = r;
  for (let b = 0; b < blocks; b++) {
    const i = module.firstNonFinite(ptr + 4 * b * stride, blockLength, info.allowNegInf ? 1 : 0);
    if (i < 0) continue;
    const at = b * blockLength + i;
    throw valueError(info.method, info.name, info.shape, at, data[at], finiteRule(data[at], info.allowNegInf));
  }
  r.done = true;
}

/** The RangeError of a record's check run in JS, or null when its data pass. */
function failedCheck({ data, info }) {
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
 * run and fails when run in JS, or null.
 */
function firstPendingError(records) {
  for (const r of records) {
    const error = r.done ? null : failedCheck(r);
    if (error) return error;
  }
  return null;
}

/**
 * `method` (an API method) made to throw, when it throws, the error of its
 * first argument whose deferred check has not run and fails instead, if
 * there is one (see the top of this file). Its return value and its other
 * errors are unchanged.
 * @template {(...args: any[]) => any} F
 * @param {F} method
 * @returns {F}
 */
export function checkedCall(method) {
  function checked(...args) {
    // An API method called by another has a list of its own: its error is
    // looked at first here, then, on the way out, by its caller's.
    const caller = pending;
    pending = [];
    try {
      return method.apply(this, args);
    } catch (e) {
      throw firstPendingError(pending) ?? e;
    } finally {
      pending = caller;
    }
  }
  // The method's own name and argument count, for stack traces and reflection.
  Object.defineProperty(checked, 'name', { value: method.name });
  Object.defineProperty(checked, 'length', { value: method.length });
  return checked;
}

/** Records the first NaN of a result (or -1), found in wasm before it was copied out. */
export function noteNaNIndex(result, index) {
  nanIndex.set(result, index);
}

/** The index recorded by noteNaNIndex, or undefined when none was recorded. */
export function knownNaNIndex(result) {
  return nanIndex.get(result);
}
