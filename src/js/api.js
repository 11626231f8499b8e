// The API object, AttentionGeometry: one per loaded build and variant. Its
// methods live in one module per kernel family of registry.inc, each checking
// its arguments (tensor.js), copying in and out by buffer name (heap.js) and
// calling this instance's variant; this file holds what they share (the
// kernel lookup, the result check and the call log) and composes them:
//   vector.js     dot, norms, cosine, angle, projections, weightedSum, dotTrace
//   matrix.js     matmul (and transposeB)
//   softmax.js    exp, softmax, softmaxNaive, logSumExp, entropy, softmaxJacobian
//   attention.js  attention, multiHeadAttention
//   attention-trace.js attentionTrace (the streaming path, tile by tile)
//   rope.js       rope (rotary positions; also attention's rope option)
//   alibi.js      alibiSlopes (ALiBi's head slopes; also attention's alibi option)
//   random.js     random.uniform/normal, randomDotExperiment
//   montecarlo.js dotProductDensity, greedyPacking
//   transformer.js createTransformer (a tiny decoder trained in wasm memory)
//   kv-cache.js   createKvCache (a KV cache resident in wasm memory, for attention's cache option)
//   tasks.js      tasks.copyPrevious, reverse, sort, inductionCopy, bracketMatch (training data)
// No arithmetic on results happens in any of them.
import { assertNoNaN, overflowError } from './errors.js';
import { checkedCall, knownNaNIndex } from './checks.js';
import { memoryStats, readOut, resetPeakMemory, withBuffers } from './heap.js';
import { alibiMethods } from './alibi.js';
import { attentionMethods } from './attention.js';
import { attentionBackwardMethods } from './attention-backward.js';
import { attentionTraceMethods } from './attention-trace.js';
import { layersMethods } from './layers.js';
import { matrixMethods } from './matrix.js';
import { dotProductDensity, greedyPacking } from './montecarlo.js';
import { makeRandom, randomDotExperiment } from './random.js';
import { ropeMethods } from './rope.js';
import { softmaxMethods } from './softmax.js';
import { vectorMethods } from './vector.js';
import { makeTasks } from './tasks.js';
import { transformerMethods } from './transformer.js';
import { kvCacheMethods } from './kv-cache.js';

function summarize(result) {
  if (typeof result === 'number') return result;
  if (result && result.data && result.shape) return { shape: result.shape.slice(), data: result.data.slice() };
  if (result && typeof result === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(result)) out[k] = summarize(v);
    return out;
  }
  return result;
}

// The JS method of each kernel, for error messages.
const METHOD = { entropy_bits: 'entropy', matmul_nt: 'matmul', matmul_tn: 'matmul' };
const methodOf = (kernel) => METHOD[kernel] ?? kernel.replace(/_(\w)/g, (_, c) => c.toUpperCase());

function checkNoNaN(kernel, result, name = 'the result') {
  if (typeof result === 'number') {
    if (result !== result) throw overflowError(methodOf(kernel), name, [], 0);
  } else if (result && result.data instanceof Float32Array) {
    // Found in wasm while the result was still there (heap.js readOut), or
    // looked for here when the result was made in JS.
    const known = knownNaNIndex(result.data);
    if (known === undefined) assertNoNaN(methodOf(kernel), name, result.data, result.shape);
    else if (known >= 0) throw overflowError(methodOf(kernel), name, result.shape, known);
  } else if (result && typeof result === 'object') {
    for (const [k, v] of Object.entries(result)) {
      if (v && (typeof v === 'number' || v.data instanceof Float32Array)) checkNoNaN(kernel, v, k);
    }
  }
}

export class AttentionGeometry {
  /** @internal */
  constructor(rt, { build, variant, kernels, callLog, onKernelCall }) {
    this._rt = rt;
    this._registry = new Map(kernels.map((k) => [k.name, Object.freeze(k)]));
    this._onKernelCall = onKernelCall;
    const fixed = (value) => ({ value, enumerable: true, writable: false, configurable: false });
    Object.defineProperties(this, {
      backend: fixed(build === 'simd' ? 'wasm-simd128' : 'wasm-scalar'),
      variant: fixed(variant),
      kernels: fixed(Object.freeze(kernels)),
      random: fixed(makeRandom(this)),
      tasks: fixed(makeTasks(this)),
    });
    if (callLog) this.callLog = [];
  }

  /** The Embind function of `name` for this instance's variant. @internal */
  _kernel(name) {
    const entry = this._registry.get(name);
    const fn = entry.variants[0] === 'shared' ? name : `${name}__${this.variant}`;
    return this._rt.module[fn];
  }

  /** @internal */
  _variantOf(name) {
    return this._registry.get(name).variants[0] === 'shared' ? 'shared' : this.variant;
  }

  /**
   * Checks and records a kernel call, then returns `result`. Inputs are
   * finite by the time a kernel runs, so a NaN in a result means that an
   * intermediate value (a partial sum, a product) overflowed float32: that is
   * a RangeError, never a number handed to the user. The naive softmax is the
   * one kernel whose NaN is its lesson. @internal
   */
  _done(kernel, args, result, calls = 1) {
    if (kernel !== 'softmax_naive') checkNoNaN(kernel, result);
    if (this.callLog || this._onKernelCall) {
      const shapes = {};
      for (const [k, v] of Object.entries(args)) shapes[k] = v;
      const entry = { kernel, variant: this._variantOf(kernel), args: shapes, result: summarize(result), calls };
      if (this.callLog) this.callLog.push(entry);
      if (this._onKernelCall) this._onKernelCall(entry);
    }
    return result;
  }

  /**
   * Bytes in use on this instance's wasm heap (a diagnostic: it returns to
   * the same value after every call, valid or not).
   */
  heapAllocatedBytes() {
    return this._rt.module.heapAllocatedBytes();
  }

  /** Runs `body` with the named buffers of `specs` on this instance's heap (heap.js withBuffers). @internal */
  _buffers(method, specs, body) {
    return withBuffers(this._rt, method, specs, body);
  }

  /** A JS-owned copy of a result on the heap (heap.js readOut). @internal */
  _read(type, ptr, length, options) {
    return readOut(this._rt, type, ptr, length, options);
  }

  // ---- random (src/js/random.js, src/js/montecarlo.js) ---------------------

  randomDotExperiment(options) {
    return randomDotExperiment(this, options);
  }

  /** The exact density of q . k for q, k ~ N(0, I_d) at every x (registry.inc: dot_density). */
  dotProductDensity(x, d) {
    return dotProductDensity(this, x, d);
  }

  /** Greedy packing of random directions pairwise within +-epsilon of perpendicular (registry.inc: greedy_packing). */
  greedyPacking(options) {
    return greedyPacking(this, options);
  }

  // ---- wasm memory (src/js/heap.js) ------------------------------------------

  /** { heapBytes, allocatedBytes, peakAllocatedBytes } of this instance's wasm memory, in bytes. */
  memoryStats() {
    return memoryStats(this._rt);
  }

  /** Starts a new peak: peakAllocatedBytes becomes the bytes in use now. */
  resetPeakMemory() {
    resetPeakMemory(this._rt);
  }
}

// The family modules' methods, as methods of the class (not enumerable, like
// the methods of a class body).
for (const methods of [
  vectorMethods,
  matrixMethods,
  softmaxMethods,
  attentionMethods,
  attentionTraceMethods,
  ropeMethods,
  alibiMethods,
  transformerMethods,
  kvCacheMethods,
  attentionBackwardMethods,
  layersMethods,
]) {
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(methods))) {
    if (Object.hasOwn(AttentionGeometry.prototype, name)) throw new Error(`api.js: ${name} is defined twice`);
    Object.defineProperty(AttentionGeometry.prototype, name, { ...descriptor, enumerable: false });
  }
}

// Every public method (those of the class body too) names the first bad
// argument in argument order, also when an earlier argument's finiteness
// check was deferred to wasm (checks.js checkedCall).
for (const name of Object.getOwnPropertyNames(AttentionGeometry.prototype)) {
  const descriptor = Object.getOwnPropertyDescriptor(AttentionGeometry.prototype, name);
  if (name === 'constructor' || name.startsWith('_') || typeof descriptor.value !== 'function') continue;
  Object.defineProperty(AttentionGeometry.prototype, name, { ...descriptor, value: checkedCall(descriptor.value) });
}
