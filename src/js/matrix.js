// Family "matrix" (registry.inc): C = A B, C = A B^T and C = A^T B, batched over the
// broadcast leading dimensions, one kernel call per slice. Arguments are
// checked here (tensor.js); every number is computed in wasm. Shapes and
// errors: index.d.ts.
import { formatShape, shapeError } from './errors.js';
import {
  booleanOption,
  broadcastShapes,
  broadcastStrides,
  numel,
  optionsObject,
  tensorOf,
  toTensor,
} from './tensor.js';

// Element offsets of each slice of a batched tensor, for an output batch shape
// `outLead`, given the tensor's own leading shape and its slice size.
export function sliceOffsets(lead, outLead, sliceSize) {
  const strides = broadcastStrides('', '', lead, outLead, '').map((s) => s * sliceSize);
  const n = numel(outLead);
  const offs = new Array(n);
  const idx = new Array(outLead.length).fill(0);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < outLead.length; d++) off += idx[d] * strides[d];
    offs[i] = off;
    for (let d = outLead.length - 1; d >= 0; d--) {
      if (++idx[d] < outLead[d]) break;
      idx[d] = 0;
    }
  }
  return offs;
}

export const matrixMethods = {
  matmul(A, B, options) {
    const m = 'matmul';
    // Argument order: A, B, then the options object. Which axes of A and B hold K depends on the
    // options, so B's inner dimension is checked against A's after them; its leading (batch) axes,
    // which no option moves, before them.
    const aText = '[..., M, K] (or [..., K, M] with options.transposeA)';
    const bText = '[..., K, N] (or [..., N, K] with options.transposeB)';
    const a = toTensor(m, 'A', A, aText);
    if (a.shape.length < 2) throw shapeError(m, 'A', a.shape, '[..., M, K]', 'A must have rank 2 or more');
    const b = toTensor(m, 'B', B, bText);
    if (b.shape.length < 2) throw shapeError(m, 'B', b.shape, '[..., K, N]', 'B must have rank 2 or more');
    const leadA = a.shape.slice(0, -2);
    const leadB = b.shape.slice(0, -2);
    const lead = broadcastShapes(m, [
      { name: 'A', shape: leadA, full: a.shape, expected: aText },
      { name: 'B', shape: leadB, full: b.shape, expected: bText },
    ]);
    const o = optionsObject(m, options, 'options', ['transposeB', 'transposeA']);
    const transposeB = booleanOption(m, 'options.transposeB', o.transposeB, false);
    const transposeA = booleanOption(m, 'options.transposeA', o.transposeA, false);
    if (transposeA && transposeB) {
      throw new RangeError(
        `${m}: options.transposeA and options.transposeB cannot both be true; for A^T B^T compute (B A)^T`,
      );
    }
    const [M, K] = transposeA ? a.shape.slice(-2).reverse() : a.shape.slice(-2);
    const bExp = transposeB ? `[..., N, K] with K = ${K}` : `[..., K, N] with K = ${K}`;
    const kB = transposeB ? b.shape.at(-1) : b.shape.at(-2);
    const N = transposeB ? b.shape.at(-2) : b.shape.at(-1);
    if (kB !== K) throw shapeError(m, 'B', b.shape, bExp, `the inner dimension K of A ${formatShape(a.shape)} is ${K}`);
    const batches = numel(lead);
    const offA = sliceOffsets(leadA, lead, M * K);
    const offB = sliceOffsets(leadB, lead, K * N);
    const kernel = transposeB ? 'matmul_nt' : transposeA ? 'matmul_tn' : 'matmul';
    const outShape = [...lead, M, N];
    const specs = {
      A: { shape: a.shape, data: a.data },
      B: { shape: b.shape, data: b.data },
      C: { shape: outShape, length: batches * M * N },
    };
    const r = this._buffers(m, specs, (p) => {
      const fn = this._kernel(kernel);
      for (let i = 0; i < batches; i++) fn(p.A + 4 * offA[i], p.B + 4 * offB[i], M, K, N, p.C + 4 * i * M * N);
      return tensorOf(this._read(Float32Array, p.C, batches * M * N), outShape);
    });
    return this._done(kernel, { A: a.shape, B: b.shape }, r, batches);
  },
};
