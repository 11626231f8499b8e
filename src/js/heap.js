// Copy in, compute, copy out. Every kernel call allocates its buffers on the
// wasm heap, copies the (already checked) inputs in, calls the kernel, copies
// the outputs into fresh JS-owned typed arrays and frees everything in
// `finally`. Views into wasm memory are made just before use and never kept:
// memory growth detaches the old ArrayBuffer.

import { formatShape } from './errors.js';

/** The heap cap of both builds (-sMAXIMUM_MEMORY=1073741824). */
export const HEAP_LIMIT_BYTES = 1073741824;

const what = (s) => (s.shape ? `${s.name} of shape ${formatShape(s.shape)}` : s.name);

const BYTES = new Map([
  [Float32Array, 4],
  [Int32Array, 4],
  [Float64Array, 8],
]);

/**
 * @param {object} rt      { module, memory() } of one instance
 * @param {string} method  the API method, for messages
 * @param {Array<{name: string, shape?: number[], data?: ArrayBufferView, length?: number, type?: Function}>} specs
 *   inputs carry `data` (copied in); outputs carry `length` and `type` (default Float32Array).
 *   A spec may be null (a null pointer is passed).
 * @param {(ptrs: number[]) => T} body  calls the kernel with the byte offsets
 * @returns {T}
 */
export function withBuffers(rt, method, specs, body) {
  let total = 0;
  let largest = null;
  for (const s of specs) {
    if (!s) continue;
    const type = s.data ? s.data.constructor : s.type ?? Float32Array;
    const length = s.data ? s.data.length : s.length;
    s.bytes = length * BYTES.get(type);
    total += s.bytes;
    if (!largest || s.bytes > largest.bytes) largest = s;
  }
  if (!(total <= HEAP_LIMIT_BYTES)) {
    throw new RangeError(
      `${method}: needs ${total} bytes of wasm memory (${what(largest)}: ${largest.bytes} bytes), ` +
        `more than the 1 GiB limit of the heap; use smaller shapes`,
    );
  }
  const ptrs = [];
  try {
    for (const s of specs) {
      if (!s) {
        ptrs.push(0);
        continue;
      }
      const p = rt.module.malloc(Math.max(s.bytes, 8));
      if (!p) {
        throw new RangeError(
          `${method}: the wasm heap (capped at 1 GiB) could not allocate ${s.bytes} bytes for ${what(s)}; ` +
            `${total} bytes were needed in all; use smaller shapes`,
        );
      }
      ptrs.push(p);
    }
    // Copy in only after every malloc: a malloc may grow (and detach) memory.
    const buffer = rt.memory().buffer;
    specs.forEach((s, i) => {
      if (s && s.data) new s.data.constructor(buffer, ptrs[i], s.data.length).set(s.data);
    });
    return body(ptrs);
  } finally {
    for (const p of ptrs) if (p) rt.module.free(p);
  }
}

/** A fresh JS-owned copy of `length` elements of `type` at byte offset `ptr`. */
export function readOut(rt, type, ptr, length) {
  return new type(rt.memory().buffer, ptr, length).slice();
}
