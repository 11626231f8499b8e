// Copy in, compute, copy out. Every kernel call allocates its buffers on the
// wasm heap, copies the (already checked) inputs in, calls the kernel, copies
// the outputs into fresh JS-owned typed arrays and frees everything in
// `finally`. Views into wasm memory are made just before use and never kept:
// memory growth detaches the old ArrayBuffer.
//
// Memory statistics: the kernels never allocate, so the most a call holds on
// the heap is what it allocated here. Right after a call's buffers are
// allocated, the bytes in use (mallinfo's uordblks, through the binding
// heapAllocatedBytes) are read and the largest reading since the last reset
// is kept per instance: that is peakAllocatedBytes of memoryStats().

import { noteNaNIndex, runDeferredCheck, throwRecordedError } from './checks.js';
import { formatShape } from './errors.js';

/** The heap cap of both builds (-sMAXIMUM_MEMORY=1073741824). */
export const HEAP_LIMIT_BYTES = 1073741824;

/** The largest bytes-in-use reading per instance runtime since its last reset. */
const peaks = new WeakMap();

/** Reads the bytes in use and keeps the largest reading; returns the reading. */
function notePeak(rt) {
  const now = rt.module.heapAllocatedBytes();
  const peak = peaks.get(rt);
  if (peak === undefined || now > peak) peaks.set(rt, now);
  return now;
}

/**
 * { heapBytes, allocatedBytes, peakAllocatedBytes } of one instance, in bytes:
 * the size of its wasm memory, the bytes in use now, and the most in use
 * right after any call allocated its buffers since the last reset (or since
 * the instance was made), never less than the bytes in use now.
 */
export function memoryStats(rt) {
  const allocatedBytes = notePeak(rt);
  return { heapBytes: rt.memory().buffer.byteLength, allocatedBytes, peakAllocatedBytes: peaks.get(rt) };
}

/** Starts a new peak: peakAllocatedBytes becomes the bytes in use now. */
export function resetPeakMemory(rt) {
  peaks.set(rt, rt.module.heapAllocatedBytes());
}

/** The alignment in bytes of every buffer of a call within its block (one f32x4). */
const BUFFER_ALIGN = 16;

const what = (s) => (s.shape ? `${s.label} of shape ${formatShape(s.shape)}` : s.label);

const BYTES = new Map([
  [Float32Array, 4],
  [Int32Array, 4],
  [Float64Array, 8],
]);

/**
 * Allocates the named buffers of one kernel call (in one block of the heap,
 * each buffer 16-byte aligned), copies the inputs in, runs `body` with the
 * byte offset of each buffer under its name, and frees them.
 * @param {object} rt      { module, memory() } of one instance
 * @param {string} method  the API method, for messages
 * @param {Record<string, {name?: string, shape?: number[], data?: ArrayBufferView, length?: number, type?: Function, kernelChecks?: boolean} | null | false | undefined>} specs
 *   buffers by name, laid out in the order given; `name` (default: the key)
 *   names the buffer in messages. Inputs carry `data` (copied in); outputs
 *   carry `length` and `type` (default Float32Array). A spec that is null,
 *   false or undefined is a null pointer (0). `kernelChecks: true` skips the
 *   deferred finiteness check of that input here: the kernel reports a
 *   non-finite value in a pass it makes anyway, and the caller then runs the
 *   check (runDeferredCheck) for its error, saving a pass over the data.
 * @param {(ptrs: Record<string, number>) => T} body  calls the kernel with the byte offsets, by name
 * @returns {T}
 */
export function withBuffers(rt, method, specs, body) {
  // Every argument has been read by now: a value error found in JS while one
  // was converted is thrown here, before anything is allocated (checks.js).
  throwRecordedError();
  const entries = Object.entries(specs);
  let total = 0;
  let block = 0;
  let largest = null;
  for (const [key, s] of entries) {
    if (!s) continue;
    const type = s.data ? s.data.constructor : (s.type ?? Float32Array);
    const length = s.data ? s.data.length : s.length;
    s.label = s.name ?? key;
    s.bytes = length * BYTES.get(type);
    total += s.bytes;
    // Each buffer at a multiple of BUFFER_ALIGN bytes from the block's start,
    // and at least BUFFER_ALIGN bytes long, so that no two share an address.
    s.offset = block;
    block += Math.ceil(Math.max(s.bytes, 1) / BUFFER_ALIGN) * BUFFER_ALIGN;
    if (!largest || s.bytes > largest.bytes) largest = s;
  }
  if (!(total <= HEAP_LIMIT_BYTES)) {
    throw new RangeError(
      `${method}: needs ${total} bytes of wasm memory (${what(largest)}: ${largest.bytes} bytes), ` +
        `more than the 1 GiB limit of the heap; use smaller shapes`,
    );
  }
  const ptrs = {};
  // One allocation for all the buffers of the call (one malloc and one free
  // through the bindings instead of one per buffer), started at the first
  // multiple of BUFFER_ALIGN in it.
  const base = block > 0 ? rt.module.malloc(block + BUFFER_ALIGN - 1) : 0;
  if (block > 0 && !base) {
    throw new RangeError(
      `${method}: the wasm heap (capped at 1 GiB) could not allocate ${total} bytes for the buffers of the call ` +
        `(the largest, ${what(largest)}: ${largest.bytes} bytes); use smaller shapes`,
    );
  }
  try {
    const start = Math.ceil(base / BUFFER_ALIGN) * BUFFER_ALIGN;
    for (const [key, s] of entries) ptrs[key] = s ? start + s.offset : 0;
    notePeak(rt);
    // Copy in only after the malloc: a malloc may grow (and detach) memory.
    const buffer = rt.memory().buffer;
    for (const [key, s] of entries) {
      if (s && s.data) new s.data.constructor(buffer, ptrs[key], s.data.length).set(s.data);
    }
    // The finiteness checks deferred by tensor.js, on the copies in wasm.
    for (const [key, s] of entries) {
      if (s && s.data && !s.kernelChecks) runDeferredCheck(rt.module, s.data, ptrs[key]);
    }
    return body({ ...ptrs }); // a copy: what body does to it cannot change what is freed
  } finally {
    if (base) rt.module.free(base);
  }
}

/**
 * A fresh JS-owned copy of `length` elements of `type` at byte offset `ptr`.
 * For float32 results the first NaN is looked for in wasm first and noted
 * (checks.js), for the API's result check; `nanFree: true` says the kernel
 * cannot have made one (registry.inc states which kernels), and none is
 * looked for.
 */
export function readOut(rt, type, ptr, length, { nanFree = false } = {}) {
  // The typed-array constructor given a view: V8 allocates the copy's memory
  // without zeroing it first (slice() of a view, and new type(length) then
  // set(), fill it with zeros and then copy over them). For softmax
  // [256, 256] (256 KiB out) that was 1.035 times faster through the API
  // than slice() (paired rounds, 400 pairs: 1.015-1.060), and it is the
  // faster of the two at 4 MiB (docs/performance-notes.md).
  const out = new type(new type(rt.memory().buffer, ptr, length));
  if (type === Float32Array) noteNaNIndex(out, nanFree ? -1 : rt.module.firstNaN(ptr, length));
  return out;
}
