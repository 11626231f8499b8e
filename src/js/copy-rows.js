// Strided row copies: blocks of rows (one per batch and head slice) moved
// between two layouts of the same rows with different row strides, such as a
// KV cache's block (capacity rows per slice), this call's contiguous K and V
// (Tk rows per slice) and a present key (P + Tk rows per slice). Used by
// attention (joinRows) and the KV cache (kv-cache.js).

/**
 * Copies `blocks` blocks of `length` floats: block b from `from.array` at
 * index from.at + b from.stride to `to.array` at index to.at + b to.stride
 * (indices and strides in floats, not bytes). With one array for both (a
 * view of the wasm memory), the blocks are moved within it by copyWithin.
 * @param {number} blocks
 * @param {number} length
 * @param {{array: Float32Array, at: number, stride: number}} to
 * @param {{array: Float32Array, at: number, stride: number}} from
 */
export function copyRows(blocks, length, to, from) {
  for (let b = 0; b < blocks; b++) {
    const src = from.at + b * from.stride;
    const dst = to.at + b * to.stride;
    if (to.array === from.array) to.array.copyWithin(dst, src, src + length);
    else to.array.set(from.array.subarray(src, src + length), dst);
  }
}
