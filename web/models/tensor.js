// Small helpers between the API's { data, shape } tensors and rows of numbers.
// They rearrange or compare entries, or make the constant vectors that calls take; they compute no number.

/** Rows of a {data, shape} tensor whose last axis has `cols` entries, from `offset` (views, no copy). */
export function rowsOf(tensor, cols, count, offset = 0) {
  return Array.from({ length: count }, (_, i) => tensor.data.subarray(offset + i * cols, offset + (i + 1) * cols));
}

/** Rows of numbers as a { data, shape } tensor [rows, cols] (float32). */
export function tensorOf(rows) {
  return { data: Float32Array.from(rows.flat()), shape: [rows.length, rows[0].length] };
}

/** The index of the largest entry of a row (the first of equal ones). */
export function argmax(row) {
  let best = 0;
  for (let j = 1; j < row.length; j += 1) if (row[j] > row[best]) best = j;
  return best;
}

/** n ones (float32): a dot product with them adds up n entries, and their norm is √n. */
export const ones = (n) => new Float32Array(n).fill(1);

/** The unit vector e_i of dimension n (float32): 1 at index i, 0 elsewhere. */
export function unitVector(n, i = 0) {
  const v = new Float32Array(n);
  v[i] = 1;
  return v;
}
