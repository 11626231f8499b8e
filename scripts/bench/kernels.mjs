// The benchmark of every registry kernel (src/kernels/registry.inc) that the
// peer workloads of workloads.mjs do not already time: one API call per
// kernel, timed on ours only (simd128 and scalar kernels of the SIMD build,
// and the baseline build), since the peers have no such operations. The list
// is driven by the registry: kernelCoverage() names any kernel without a
// workload, and bench.mjs refuses to run until every kernel has one
// (tests/js/bench-smoke.test.mjs checks it too).
import { tensor } from './data.mjs';
import { PEER_KERNELS } from './workloads.mjs';

/** Sizes of a full run and of a --smoke run (odd lengths, so vector tails are exercised). */
export const KERNEL_SIZES = {
  full: { n: 4096, T: 256, d: 64, trials: 4096, candidates: 256 },
  smoke: { n: 37, T: 12, d: 16, trials: 64, candidates: 16 },
};

/**
 * Per registry kernel: what it computes at the sizes s ({ n, T, d, ... }),
 * its element count and the call on an instance ag, made from seeded inputs.
 */
const CALLS = {
  dot: (s, v) => ({ label: `dot [${s.n}]`, work: s.n, call: (ag) => ag.dot(v.a, v.b) }),
  squared_norm: (s, v) => ({ label: `squaredNorm [${s.n}]`, work: s.n, call: (ag) => ag.squaredNorm(v.a) }),
  norm: (s, v) => ({ label: `norm [${s.n}]`, work: s.n, call: (ag) => ag.norm(v.a) }),
  normalize: (s, v) => ({ label: `normalize [${s.n}]`, work: s.n, call: (ag) => ag.normalize(v.a) }),
  cosine: (s, v) => ({ label: `cosine [${s.n}]`, work: s.n, call: (ag) => ag.cosine(v.a, v.b) }),
  angle: (s, v) => ({ label: `angle [${s.n}]`, work: s.n, call: (ag) => ag.angle(v.a, v.b) }),
  scalar_projection: (s, v) => ({
    label: `scalarProjection [${s.n}]`,
    work: s.n,
    call: (ag) => ag.scalarProjection(v.a, v.b),
  }),
  vector_projection: (s, v) => ({
    label: `vectorProjection [${s.n}]`,
    work: s.n,
    call: (ag) => ag.vectorProjection(v.a, v.b),
  }),
  squared_distance: (s, v) => ({
    label: `squaredDistance [${s.n}]`,
    work: s.n,
    call: (ag) => ag.squaredDistance(v.a, v.b),
  }),
  weighted_sum: (s, v) => ({
    label: `weightedSum [${s.T}] x [${s.T}, ${s.d}]`,
    work: s.T * s.d,
    call: (ag) => ag.weightedSum(v.alpha, v.V),
  }),
  dot_trace: (s, v) => ({ label: `dotTrace [${s.T}]`, work: s.T, call: (ag) => ag.dotTrace(v.aT, v.bT) }),
  attention_trace: (s, v) => ({
    label: `attentionTrace [4, ${s.d}] x [${s.T}, ${s.d}], tiles of 8`,
    work: 4 * s.T * s.d,
    call: (ag) => ag.attentionTrace(v.Q4, v.V, v.V, { tileKeys: 8 }),
  }),
  exp: (s, v) => ({ label: `exp [${s.n}]`, work: s.n, call: (ag) => ag.exp(v.a) }),
  softmax_naive: (s, v) => ({
    label: `softmaxNaive [${s.T}, ${s.T}]`,
    work: s.T * s.T,
    call: (ag) => ag.softmaxNaive(v.X),
  }),
  log_sum_exp: (s, v) => ({ label: `logSumExp [${s.T}, ${s.T}]`, work: s.T * s.T, call: (ag) => ag.logSumExp(v.X) }),
  entropy_bits: (s, v) => ({ label: `entropy [${s.n}]`, work: s.n, call: (ag) => ag.entropy(v.p) }),
  softmax_jacobian: (s, v) => ({
    label: `softmaxJacobian [${s.T}]`,
    work: s.T * s.T,
    call: (ag) => ag.softmaxJacobian(v.alphaT),
  }),
  rope: (s, v) => ({
    label: `rope [8, ${s.T}, ${s.d}] (8 heads)`,
    work: 8 * s.T * s.d,
    call: (ag) => ag.rope(v.heads),
  }),
  philox_uniform: (s) => ({ label: `random.uniform n=${s.n}`, work: s.n, call: (ag) => ag.random.uniform({ n: s.n }) }),
  philox_normal: (s) => ({ label: `random.normal n=${s.n}`, work: s.n, call: (ag) => ag.random.normal({ n: s.n }) }),
  random_dot_experiment: (s) => ({
    label: `randomDotExperiment d=${s.d}, trials=${s.trials}`,
    work: s.d * s.trials,
    call: (ag) => ag.randomDotExperiment({ d: s.d, trials: s.trials, returnSamples: false }),
  }),
  dot_density: (s, v) => ({
    label: `dotProductDensity [${s.n}], d=${s.d}`,
    work: s.n,
    call: (ag) => ag.dotProductDensity(v.x, s.d),
  }),
  greedy_packing: (s) => ({
    label: `greedyPacking d=${s.d}, ${s.candidates} candidates`,
    work: s.candidates * s.d,
    call: (ag) => ag.greedyPacking({ d: s.d, candidates: s.candidates, epsilon: 0.25 }),
  }),
  transformer_init: (s) => ({
    label: `createTransformer T=${s.T}, dModel=${s.d}, vocab=${s.d}, 1 layer`,
    work: 12 * s.d * s.d,
    call: (ag) => ag.createTransformer(benchModelConfig(s)).dispose(),
  }),
  transformer_forward: (s) => ({
    label: `transformer forward [1, ${s.T}], dModel=${s.d}`,
    work: 12 * s.T * s.d * s.d,
    call: (ag) => benchModel(ag, s).forward(benchBatch(s).tokens),
  }),
  transformer_gradients: (s) => ({
    label: `transformer gradients [1, ${s.T}], dModel=${s.d}`,
    work: 36 * s.T * s.d * s.d,
    call: (ag) => benchModel(ag, s).gradients(benchBatch(s)),
  }),
  transformer_adam: (s) => ({
    label: `transformer step (gradients + Adam) [1, ${s.T}], dModel=${s.d}`,
    work: 36 * s.T * s.d * s.d,
    call: (ag) => benchModel(ag, s).step(benchBatch(s), { lr: 1e-3 }),
  }),
  softmax_backward: (s, v) => {
    // Weights: each row of X softmaxed (in float64, then float32), as the kernel expects; X as their gradient.
    const W = new Float32Array(s.T * s.T);
    for (let r = 0; r < s.T; r++) {
      const row = v.X.data.subarray(r * s.T, (r + 1) * s.T);
      const m = Math.max(...row);
      const e = Array.from(row, (x) => Math.exp(x - m));
      const sum = e.reduce((a, b) => a + b, 0);
      e.forEach((x, i) => (W[r * s.T + i] = x / sum));
    }
    return {
      label: `softmaxBackward [${s.T}, ${s.T}]`,
      work: s.T * s.T,
      call: (ag) => ag.softmaxBackward({ data: W, shape: [s.T, s.T] }, v.X),
    };
  },
  attention_backward: (s, v) => ({
    label: `attentionBackward Q, K, V, dOutput [${s.T}, ${s.d}]`,
    work: s.T * s.T * s.d,
    call: (ag) => ag.attentionBackward(v.V, v.V, v.V, v.V),
  }),
  matmul_tn: (s, v) => ({
    label: `matmul transposeA [${s.T}, ${s.d}]^T x [${s.T}, ${s.d}]`,
    work: s.T * s.d * s.d,
    call: (ag) => ag.matmul(v.V, v.V, { transposeA: true }),
  }),
  layer_norm: (s, v) => ({ label: `layerNorm [${s.T}, ${s.T}]`, work: s.T * s.T, call: (ag) => ag.layerNorm(v.X) }),
  layer_norm_backward: (s, v) => {
    const stats = { mean: new Float32Array(s.T), rstd: new Float32Array(s.T).fill(1) };
    return {
      label: `layerNormBackward [${s.T}, ${s.T}]`,
      work: s.T * s.T,
      call: (ag) => ag.layerNormBackward(v.X, v.X, stats),
    };
  },
  cross_entropy: (s, v) => {
    const targets = Int32Array.from({ length: s.T }, (_, i) => (7 * i) % s.T);
    return {
      label: `crossEntropy [${s.T}, ${s.T}]`,
      work: s.T * s.T,
      call: (ag) => ag.crossEntropy(v.X, targets),
    };
  },
  adam_update: (s, v) => ({
    label: `adamUpdate [${s.n}]`,
    work: s.n,
    call: (ag) => ag.adamUpdate(v.a, v.b, null, { lr: 1e-3, step: 1 }),
  }),
};

// The transformer workloads' model: one per instance and sizes, kept for the run.
const benchModelConfig = (s) => ({ vocab: s.d, T: s.T, dModel: s.d, heads: 4, layers: 1, seed: 1 });
const benchModels = new WeakMap();
function benchModel(ag, s) {
  const key = `${s.T},${s.d}`;
  if (!benchModels.has(ag)) benchModels.set(ag, new Map());
  const models = benchModels.get(ag);
  if (!models.has(key)) models.set(key, ag.createTransformer(benchModelConfig(s)));
  return models.get(key);
}
// copyPrevious-like tokens 0, 1, 2, ... (mod vocab), targets the previous token.
function benchBatch(s) {
  const tokens = Int32Array.from({ length: s.T }, (_, t) => t % s.d);
  const targets = Int32Array.from({ length: s.T }, (_, t) => (t === 0 ? -1 : (t - 1) % s.d));
  return { tokens, targets };
}

/** The registry kernels (names) with no workload, peer or kernel: [] when the benchmark covers them all. */
export function kernelCoverage(registryNames) {
  const covered = new Set([...Object.values(PEER_KERNELS), ...Object.keys(CALLS)]);
  return registryNames.filter((name) => !covered.has(name));
}

/** `x` divided by its sum: a distribution, as entropy() requires. */
function distribution(x) {
  let sum = 0;
  for (const v of x) sum += v;
  return x.map((v) => v / sum);
}

/**
 * The kernel workloads of one run, in registry order: [{ id, kernel, family,
 * label, work, call(ag) }] for every kernel of `registry` ([{ name, family }])
 * that no peer workload times.
 */
export function kernelWorkloads(registry, { smoke = false } = {}) {
  const s = smoke ? KERNEL_SIZES.smoke : KERNEL_SIZES.full;
  const t = (shape, seed, lo, hi) => tensor(shape, seed, lo, hi);
  const v = {
    a: t([s.n], 61).data,
    b: t([s.n], 62).data,
    p: distribution(t([s.n], 63, 0, 1).data),
    x: t([s.n], 64, -3 * Math.sqrt(s.d), 3 * Math.sqrt(s.d)).data,
    aT: t([s.T], 65).data,
    bT: t([s.T], 66).data,
    alpha: t([s.T], 67, 0, 1).data,
    alphaT: t([s.T], 68, 0, 2 / s.T).data,
    V: t([s.T, s.d], 69),
    X: t([s.T, s.T], 70, -4, 4),
    heads: t([8, s.T, s.d], 71),
    Q4: t([4, s.d], 72),
  };
  const peer = new Set(Object.values(PEER_KERNELS));
  return registry
    .filter((k) => !peer.has(k.name) && CALLS[k.name])
    .map((k) => ({ id: `kernel-${k.name}`, kernel: k.name, family: k.family, ...CALLS[k.name](s, v) }));
}

/** A median time for the reports: µs below 1 ms. */
export const formatTime = (ms) =>
  Number.isFinite(ms) ? (ms < 1 ? `${(ms * 1000).toPrecision(3)} µs` : `${ms.toPrecision(3)} ms`) : '—';
/** A ratio for the reports. */
export const formatRatio = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '—');

/**
 * Times `call(ag)` on each of our implementations (simd128, scalar, baseline) in one run:
 * { results: [{ impl, ...times }], ratios: { vsScalar, vsBaseline } } (their time over simd128's).
 */
export async function timeOnOurs(ours, call, { measure, timing }) {
  const timed = await measure(
    ours.map((impl) => ({ key: impl.id, run: () => call(impl.ag), isAsync: false })),
    timing,
  );
  const results = ours.map((impl) => ({ impl: impl.id, ...timed.get(impl.id) }));
  const ms = (id) => results.find((r) => r.impl === id && Number.isFinite(r.medianMs))?.medianMs;
  const ratio = (id) => (ms('ag-simd128') && ms(id) ? ms(id) / ms('ag-simd128') : null);
  return { results, ratios: { vsScalar: ratio('ag-scalar'), vsBaseline: ratio('ag-baseline') } };
}

/** The Markdown section of the kernel workloads (after the report of report.mjs). */
export function kernelsReport(run) {
  if (!run.kernels?.length) return '';
  const [time, ratio] = [formatTime, formatRatio];
  const lines = [
    '',
    '## Every registry kernel (ours only)',
    '',
    'One API call per kernel of src/kernels/registry.inc that the workloads above do not time; the peers have no such operations. Median time per call.',
    '',
    '| kernel | family | workload | simd128 | scalar kernels | baseline build | scalar / simd128 | baseline / simd128 |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const k of run.kernels) {
    const ms = (id) => k.results.find((r) => r.impl === id)?.medianMs;
    lines.push(
      `| ${k.kernel} | ${k.family} | ${k.label} | ${time(ms('ag-simd128'))} | ${time(ms('ag-scalar'))} | ${time(ms('ag-baseline'))} | ${ratio(k.ratios.vsScalar)} | ${ratio(k.ratios.vsBaseline)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
