// Plain JavaScript, the implementation a user writes without a library: the
// textbook loops over Float32Arrays (arithmetic in float64, every stored value
// rounded to float32), no tricks beyond the i-k-j loop order of matmul that
// walks both matrices along their rows. These are the loops of the float64
// reference (tests/reference/float64.mjs), run with Float32Array storage.
import { attentionRef, matmulRef, mhaRef, qktRef, softmaxRef } from '../../tests/reference/float64.mjs';

import { decodeLoops } from './decode.mjs';

const F32 = Float32Array;

/** The plain JS implementation for the benchmark: one candidate per workload. */
export function jsImplementation() {
  const call = (w) => {
    const { inputs: x, dims } = w;
    switch (w.family) {
      case 'matmul':
        return () => matmulRef(x.A, x.B, dims.M, dims.K, dims.N, F32);
      case 'qkt':
        return () => qktRef(x.Q, x.K, dims.T, dims.T, dims.d, F32);
      case 'softmax':
        return () => softmaxRef(x.X, dims.rows, dims.cols, F32);
      case 'attention':
        return () => attentionRef(x.Q, x.K, x.V, dims.T, dims.d, dims.d, 1 / Math.sqrt(dims.d), { Out: F32 });
      case 'mha':
        return () => mhaRef(x.X, w.weights, dims.T, dims.D, dims.h, F32);
      case 'decode':
        return () => decodeLoops(x, dims, F32);
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
