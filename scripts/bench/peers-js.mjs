// Plain JavaScript, the implementation a user writes without a library: the
// textbook loops over Float32Arrays (arithmetic in float64, every stored value
// rounded to float32), no tricks beyond the i-k-j loop order of matmul that
// walks both matrices along their rows. Shapes in elements, row-major.

/** C = A B: A [M, K], B [K, N] -> [M, N], loops i, k, j. */
export function matmulJs(A, B, M, K, N) {
  const C = new Float32Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k];
      for (let j = 0; j < N; j++) C[i * N + j] += a * B[k * N + j];
    }
  }
  return C;
}

/** S = Q K^T: Q [Tq, d], K [Tk, d] -> [Tq, Tk], one dot product per entry. */
export function qktJs(Q, K, Tq, Tk, d) {
  const S = new Float32Array(Tq * Tk);
  for (let i = 0; i < Tq; i++) {
    for (let j = 0; j < Tk; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += Q[i * d + k] * K[j * d + k];
      S[i * Tk + j] = s;
    }
  }
  return S;
}

/** Softmax of each row of X [rows, cols]: maximum, exponentials, sum, divide. */
export function softmaxJs(X, rows, cols) {
  const Y = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    const o = i * cols;
    let max = -Infinity;
    for (let j = 0; j < cols; j++) if (X[o + j] > max) max = X[o + j];
    let sum = 0;
    for (let j = 0; j < cols; j++) {
      const e = Math.exp(X[o + j] - max);
      Y[o + j] = e;
      sum += e;
    }
    for (let j = 0; j < cols; j++) Y[o + j] /= sum;
  }
  return Y;
}

/**
 * softmax(scale Q K^T) V one query row at a time (a row of scores, never the
 * [T, T] matrix), reading Q, K, V with a row stride and column offset so that
 * a head of a [T, D] projection is read in place. Writes rows of `out`
 * (stride oStride, offset oOff).
 */
function attentionInto(Q, K, V, T, d, scale, stride, off, out, oStride, oOff) {
  const s = new Float32Array(T);
  for (let i = 0; i < T; i++) {
    let max = -Infinity;
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let k = 0; k < d; k++) dot += Q[i * stride + off + k] * K[j * stride + off + k];
      s[j] = scale * dot;
      if (s[j] > max) max = s[j];
    }
    let sum = 0;
    for (let j = 0; j < T; j++) {
      s[j] = Math.exp(s[j] - max);
      sum += s[j];
    }
    const o = i * oStride + oOff;
    for (let j = 0; j < T; j++) {
      const w = s[j] / sum;
      for (let k = 0; k < d; k++) out[o + k] += w * V[j * stride + off + k];
    }
  }
}

/** O = softmax(Q K^T / sqrt(d)) V: Q, K, V [T, d] -> [T, d]. */
export function attentionJs(Q, K, V, T, d) {
  const O = new Float32Array(T * d);
  attentionInto(Q, K, V, T, d, 1 / Math.sqrt(d), d, 0, O, d, 0);
  return O;
}

/** Multi-head self-attention with the four projections: X [T, D], weights [D, D], h heads -> [T, D]. */
export function mhaJs(X, w, T, D, h) {
  const dk = D / h;
  const Q = matmulJs(X, w.wQ, T, D, D);
  const K = matmulJs(X, w.wK, T, D, D);
  const V = matmulJs(X, w.wV, T, D, D);
  const concat = new Float32Array(T * D);
  for (let head = 0; head < h; head++)
    attentionInto(Q, K, V, T, dk, 1 / Math.sqrt(dk), D, head * dk, concat, D, head * dk);
  return matmulJs(concat, w.wO, T, D, D);
}

/** The plain JS implementation for the benchmark: one candidate per workload. */
export function jsImplementation() {
  const call = (w) => {
    const { inputs: x, dims } = w;
    switch (w.family) {
      case 'matmul':
        return () => matmulJs(x.A, x.B, dims.M, dims.K, dims.N);
      case 'qkt':
        return () => qktJs(x.Q, x.K, dims.T, dims.T, dims.d);
      case 'softmax':
        return () => softmaxJs(x.X, dims.rows, dims.cols);
      case 'attention':
        return () => attentionJs(x.Q, x.K, x.V, dims.T, dims.d);
      case 'mha':
        return () => mhaJs(x.X, w.weights, dims.T, dims.D, dims.h);
      default:
        throw new Error(`plain JS: no call for family ${w.family}`);
    }
  };
  return {
    id: 'js',
    label: 'plain JS',
    kind: 'js',
    version: `Node ${process.version} (V8 ${process.versions.v8})`,
    prepare: async (w) => [{ name: 'loops', run: call(w), isAsync: false, dispose() {} }],
  };
}
