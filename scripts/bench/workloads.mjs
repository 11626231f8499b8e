// The workloads of the benchmark (issue 7's list and issue 20's decoding
// step, decode.mjs), each with its sizes, its seeded inputs, its operation
// count and its float64 reference. Every implementation module (ours.mjs,
// peers-*.mjs) has one call per family: matmul, qkt, softmax, attention, mha,
// decode (each times one registry kernel, PEER_KERNELS); kernels.mjs has a
// workload for every other registry kernel.
import { tensor } from './data.mjs';
import { DECODE_FAMILY, decodeWorkloads } from './decode.mjs';
import { attentionRef, matmulRef, mhaRef, qktRef, softmaxRef } from '../../tests/reference/float64.mjs';

/** Sizes of a full run, and of a --smoke run (tiny, with unequal dimensions so a swapped index shows). */
export const SIZES = {
  full: { matmul: [512, 512, 512], seq: [64, 256, 1024], dk: 64, mha: { T: 256, D: 512, h: 8 }, longT: 4096 },
  smoke: { matmul: [24, 20, 28], seq: [8, 16, 24], dk: 16, mha: { T: 12, D: 32, h: 4 }, longT: 256 },
};

/** The registry kernel (src/kernels/registry.inc) that each family of these workloads times. */
export const PEER_KERNELS = {
  matmul: 'matmul',
  qkt: 'matmul_nt',
  softmax: 'softmax',
  attention: 'attention',
  mha: 'multi_head_attention',
  decode: 'attention',
};

/** The families in the order of the report, with how their work is counted. */
export const FAMILIES = {
  matmul: { what: 'C = A B, A [M, K], B [K, N]', count: 'flop = 2 M N K', unit: 'GFLOP/s' },
  qkt: { what: 'S = Q Kᵀ, Q and K [T, d_k] (scores)', count: 'flop = 2 T² d_k', unit: 'GFLOP/s' },
  softmax: {
    what: 'row softmax of X [T, T]',
    count: 'elements = T² (rate in G elements/s; no % of peak)',
    unit: 'Gelem/s',
  },
  attention: {
    what: 'softmax(Q Kᵀ / √d_k) V, Q, K, V [T, d_k]',
    count: 'flop = 4 T² d_k (the two products; scale, exp and normalisation not counted)',
    unit: 'GFLOP/s',
  },
  mha: {
    what: 'multi-head self-attention, X [T, D], W_Q, W_K, W_V, W_O [D, D], h heads',
    count: 'flop = 8 T D² + 4 T² D (four projections, then h heads of d_k = D / h)',
    unit: 'GFLOP/s',
  },
  decode: DECODE_FAMILY,
};

/**
 * The workloads of one run: [{ id, family, label, work, inputs, dims, reference() }],
 * `work` the flop (or element) count, `reference()` the float64 result (computed on demand).
 * Seeds differ per input so that no two inputs are equal.
 */
export function workloads({ smoke = false } = {}) {
  const s = smoke ? SIZES.smoke : SIZES.full;
  const list = [];
  const [M, K, N] = s.matmul;
  {
    const A = tensor([M, K], 11);
    const B = tensor([K, N], 12);
    list.push({
      id: `matmul-${M}x${K}x${N}`,
      family: 'matmul',
      label: `matmul ${M}×${K}×${N}`,
      work: 2 * M * N * K,
      dims: { M, K, N },
      inputs: { A: A.data, B: B.data },
      reference: () => matmulRef(A.data, B.data, M, K, N),
    });
  }
  const d = s.dk;
  for (const T of s.seq) {
    const Q = tensor([T, d], 21 + T);
    const Kt = tensor([T, d], 22 + T);
    list.push({
      id: `qkt-T${T}`,
      family: 'qkt',
      label: `Q Kᵀ T=${T}, d_k=${d}`,
      work: 2 * T * T * d,
      dims: { T, d },
      inputs: { Q: Q.data, K: Kt.data },
      reference: () => qktRef(Q.data, Kt.data, T, T, d),
    });
  }
  for (const T of s.seq) {
    // Logits spread over [-4, 4): the weights are far from uniform, and exp is exercised.
    const X = tensor([T, T], 31 + T, -4, 4);
    list.push({
      id: `softmax-T${T}`,
      family: 'softmax',
      label: `softmax [${T}, ${T}]`,
      work: T * T,
      dims: { rows: T, cols: T },
      inputs: { X: X.data },
      reference: () => softmaxRef(X.data, T, T),
    });
  }
  for (const T of s.seq) {
    const [Q, Kt, V] = [41, 42, 43].map((seed) => tensor([T, d], seed + T).data);
    list.push({
      id: `attention-T${T}`,
      family: 'attention',
      label: `attention T=${T}, d_k=d_v=${d}`,
      work: 4 * T * T * d,
      dims: { T, d },
      inputs: { Q, K: Kt, V },
      reference: () => attentionRef(Q, Kt, V, T, d, d, 1 / Math.sqrt(d)),
    });
  }
  {
    const { T, D, h } = s.mha;
    const X = tensor([T, D], 51).data;
    // Weights of the scale 1/√D, so that projections keep the size of X.
    const w = Object.fromEntries(
      ['wQ', 'wK', 'wV', 'wO'].map((k, i) => [k, tensor([D, D], 52 + i, -1 / Math.sqrt(D), 1 / Math.sqrt(D)).data]),
    );
    list.push({
      id: `mha-T${T}-D${D}-h${h}`,
      family: 'mha',
      label: `multi-head T=${T}, d_model=${D}, h=${h}`,
      work: 8 * T * D * D + 4 * T * T * D,
      dims: { T, D, h },
      inputs: { X },
      weights: w,
      reference: () => mhaRef(X, w, T, D, h),
    });
  }
  return [...list, ...decodeWorkloads({ smoke })];
}

/** Whether `--only` entries (ids or families) select workload `w`; no entries select all. */
export function selected(only, w) {
  return only.length === 0 || only.includes(w.id) || only.includes(w.family);
}
