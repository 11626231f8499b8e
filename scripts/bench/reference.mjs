// The float64 reference of every workload, computed in plain JS from the
// same float32 inputs the implementations get, and the error of a float32
// result against it. Independent of every implementation measured (the plain
// JS peer in peers-js.mjs computes in float32 arrays; this one never rounds).
// Shapes in elements, row-major.

/** C = A B: A [M, K], B [K, N] -> [M, N]. */
export function matmulRef(A, B, M, K, N) {
  const C = new Float64Array(M * N);
  for (let i = 0; i < M; i++) {
    const row = i * N;
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k];
      const b = k * N;
      for (let j = 0; j < N; j++) C[row + j] += a * B[b + j];
    }
  }
  return C;
}

/** S = Q K^T: Q [Tq, d], K [Tk, d] -> [Tq, Tk]. */
export function qktRef(Q, K, Tq, Tk, d) {
  const S = new Float64Array(Tq * Tk);
  for (let i = 0; i < Tq; i++) {
    for (let j = 0; j < Tk; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += Q[i * d + k] * K[j * d + k];
      S[i * Tk + j] = s;
    }
  }
  return S;
}

/** Softmax of each row of X [rows, cols], the maximum subtracted first. */
export function softmaxRef(X, rows, cols) {
  const Y = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) softmaxRow(X, i * cols, cols, Y, i * cols);
  return Y;
}

function softmaxRow(x, from, n, out, to) {
  let max = -Infinity;
  for (let j = 0; j < n; j++) max = Math.max(max, x[from + j]);
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(x[from + j] - max);
    out[to + j] = e;
    sum += e;
  }
  for (let j = 0; j < n; j++) out[to + j] /= sum;
}

/**
 * O = softmax(scale Q K^T) V for the query rows `rows` (default all): Q [T, d],
 * K [T, d], V [T, dv] -> [T, dv] (rows not asked for stay 0). Query,
 * key and value rows start at the given column offsets with the given row
 * strides, so that one head of a [T, D] projection can be read in place.
 */
export function attentionRef(Q, K, V, T, d, dv, scale, { rows = null, stride = d, vStride = dv, qOff = 0, kOff = 0, vOff = 0 } = {}) {
  const O = new Float64Array(T * dv);
  const s = new Float64Array(T);
  const w = new Float64Array(T);
  for (const i of rows ?? Array.from({ length: T }, (_, r) => r)) {
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let k = 0; k < d; k++) dot += Q[i * stride + qOff + k] * K[j * stride + kOff + k];
      s[j] = scale * dot;
    }
    softmaxRow(s, 0, T, w, 0);
    for (let j = 0; j < T; j++) {
      const wj = w[j];
      for (let k = 0; k < dv; k++) O[i * dv + k] += wj * V[j * vStride + vOff + k];
    }
  }
  return O;
}

/**
 * Multi-head self-attention with the four projections, no biases:
 * concat_i(attention(X W_Q[:, head i], X W_K[:, head i], X W_V[:, head i])) W_O,
 * scale 1/sqrt(D/h). X [T, D], weights [D, D] -> [T, D].
 */
export function mhaRef(X, w, T, D, h) {
  const dk = D / h;
  const Q = matmulRef(X, w.wQ, T, D, D);
  const K = matmulRef(X, w.wK, T, D, D);
  const V = matmulRef(X, w.wV, T, D, D);
  const concat = new Float64Array(T * D);
  for (let head = 0; head < h; head++) {
    const off = head * dk;
    const O = attentionRef(Q, K, V, T, dk, dk, 1 / Math.sqrt(dk), { stride: D, vStride: D, qOff: off, kOff: off, vOff: off });
    for (let i = 0; i < T; i++) for (let k = 0; k < dk; k++) concat[i * D + off + k] = O[i * dk + k];
  }
  return matmulRef(concat, w.wO, T, D, D);
}

/**
 * The largest |got - ref| over the entries (or over the rows `rows` of
 * `width` entries each), the largest |ref| there, and their ratio. A NaN or
 * an infinite entry gives Infinity.
 */
export function maxError(got, ref, { rows = null, width = 0 } = {}) {
  if (got.length !== ref.length) throw new Error(`result has ${got.length} entries, the reference ${ref.length}`);
  let maxAbs = 0;
  let maxRef = 0;
  const visit = (i) => {
    const e = Math.abs(got[i] - ref[i]);
    maxAbs = Number.isNaN(e) ? Infinity : Math.max(maxAbs, e);
    maxRef = Math.max(maxRef, Math.abs(ref[i]));
  };
  if (rows) for (const r of rows) for (let k = 0; k < width; k++) visit(r * width + k);
  else for (let i = 0; i < ref.length; i++) visit(i);
  return { maxAbs, maxRef, relative: maxRef > 0 ? maxAbs / maxRef : maxAbs };
}
