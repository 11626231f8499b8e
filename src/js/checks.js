// Checks that run inside wasm (src/kernels/checks.h) instead of element by
// element in JS, where scanning a [T, T] array costs as much as some kernels.
//
// - Inputs given as Float32Array: tensor.js passes them on without looking
//   at the values and defers the finiteness check here; the buffer code
//   (heap.js) runs it on the copy in wasm memory, before any kernel sees the
//   data, and throws the same RangeError the JS check would. Number arrays,
//   Float64Arrays (whose values may lie beyond the float32 range) and masks
//   are still checked in JS while they are converted.
// - Results: heap.js's readOut asks wasm for the first NaN while the result
//   is still in wasm memory, and the API's result check uses that index.

import { valueError } from './errors.js';

const deferred = new WeakMap();
const nanIndex = new WeakMap();

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
 * Marks `f32` (the float32 data of an argument) as not yet checked.
 * @param {Float32Array} f32 the data that will be copied into wasm
 * @param {{method: string, name: string, shape: number[], allowNegInf: boolean}} info
 */
export function deferFiniteCheck(f32, info) {
  deferred.set(f32, info);
}

/**
 * Runs the deferred check of `data` (if any) on its copy at byte offset `ptr`.
 * Throws the RangeError of tensor.js for the first value that is NaN or
 * +-Infinity (-Infinity is allowed where the info says so).
 */
export function runDeferredCheck(module, data, ptr) {
  const info = deferred.get(data);
  if (!info) return;
  const i = module.firstNonFinite(ptr, data.length, info.allowNegInf ? 1 : 0);
  if (i < 0) return;
  throw valueError(info.method, info.name, info.shape, i, data[i], finiteRule(data[i], info.allowNegInf));
}

/**
 * runDeferredCheck for data copied in as `blocks` blocks of `blockLength`
 * floats, block b at byte offset `ptr` + 4 `stride` b (a KV cache's rows,
 * placed in the present buffer between this call's rows). The index named is
 * the one in `data`, as runDeferredCheck names it.
 */
export function runDeferredCheckBlocks(module, data, ptr, blocks, blockLength, stride) {
  const info = deferred.get(data);
  if (!info) return;
  for (let b = 0; b < blocks; b++) {
    const i = module.firstNonFinite(ptr + 4 * b * stride, blockLength, info.allowNegInf ? 1 : 0);
    if (i < 0) continue;
    const at = b * blockLength + i;
    throw valueError(info.method, info.name, info.shape, at, data[at], finiteRule(data[at], info.allowNegInf));
  }
}

/** Records the first NaN of a result (or -1), found in wasm before it was copied out. */
export function noteNaNIndex(result, index) {
  nanIndex.set(result, index);
}

/** The index recorded by noteNaNIndex, or undefined when none was recorded. */
export function knownNaNIndex(result) {
  return nanIndex.get(result);
}
