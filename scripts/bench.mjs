// npm run bench: every kernel of the registry, timed in one Node process on
// the SIMD build's simd128 and scalar variants and on the baseline build, and
// reported as ratios (this machine is shared and noisy: absolute times mean
// little, ratios measured side by side in one run mean more). Never part of
// npm test.
//   node scripts/bench.mjs            every kernel at its default size
//   node scripts/bench.mjs dot matmul only the named kernels
// The list of kernels comes from the module's registry: a kernel with no case
// below is reported as "not benchmarked", so a new kernel shows up here.
import { init } from '../dist/index.js';

const rand = (n, seed = 1) => {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
};
const tensor = (shape, seed) => ({ data: rand(shape.reduce((a, b) => a * b, 1), seed), shape });
const positive = (n) => rand(n, 7).map((x) => x + 0.75);

// One representative call per registry kernel (inputs built once, outside the timing).
const CASES = {
  dot: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.dot(a, b); },
  squared_norm: () => { const a = rand(65536); return (ag) => ag.squaredNorm(a); },
  norm: () => { const a = rand(65536); return (ag) => ag.norm(a); },
  normalize: () => { const a = rand(65536); return (ag) => ag.normalize(a); },
  cosine: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.cosine(a, b); },
  angle: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.angle(a, b); },
  scalar_projection: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.scalarProjection(a, b); },
  vector_projection: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.vectorProjection(a, b); },
  squared_distance: () => { const a = rand(65536, 1), b = rand(65536, 2); return (ag) => ag.squaredDistance(a, b); },
  weighted_sum: () => { const alpha = positive(256), V = tensor([256, 64], 3); return (ag) => ag.weightedSum(alpha, V); },
  matmul: () => { const A = tensor([256, 256], 1), B = tensor([256, 256], 2); return (ag) => ag.matmul(A, B); },
  matmul_nt: () => { const Q = tensor([256, 64], 1), K = tensor([256, 64], 2); return (ag) => ag.matmul(Q, K, { transposeB: true }); },
  exp: () => { const x = rand(65536).map((v) => v * 20); return (ag) => ag.exp(x); },
  softmax: () => { const x = tensor([256, 256], 4); return (ag) => ag.softmax(x); },
  softmax_naive: () => { const x = tensor([256, 256], 4); return (ag) => ag.softmaxNaive(x); },
  log_sum_exp: () => { const x = tensor([256, 256], 4); return (ag) => ag.logSumExp(x); },
  entropy_bits: () => { const p = positive(65536); return (ag) => ag.entropy(p); },
  softmax_jacobian: () => { const a = positive(256); return (ag) => ag.softmaxJacobian(a); },
  attention: () => {
    const q = tensor([256, 64], 1), k = tensor([256, 64], 2), v = tensor([256, 64], 3);
    return (ag) => ag.attention(q, k, v);
  },
  multi_head_attention: () => {
    const x = tensor([64, 128], 1);
    const w = { wQ: tensor([128, 128], 2), wK: tensor([128, 128], 3), wV: tensor([128, 128], 4), wO: tensor([128, 128], 5) };
    return (ag) => ag.multiHeadAttention({ query: x }, w, { numHeads: 8 });
  },
  philox_uniform: () => (ag) => ag.random.uniform({ seed: 1, n: 65536 }),
  philox_normal: () => (ag) => ag.random.normal({ seed: 1, n: 65536 }),
  random_dot_experiment: () => (ag) => ag.randomDotExperiment({ d: 64, trials: 1024, seed: 1 }),
};

/** Median time per call in microseconds over rounds of enough calls to last about 20 ms. */
function time(fn) {
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    if (performance.now() - t0 > 20 || reps > 1 << 20) break;
    reps *= 2;
  }
  const samples = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / reps);
  }
  return samples.sort((a, b) => a - b)[3];
}

const instances = {
  simd128: await init({ simd: true, variant: 'simd128' }),
  scalar: await init({ simd: true, variant: 'scalar' }),
  baseline: await init({ simd: false }),
};
const wanted = new Set(process.argv.slice(2));
const rows = [];
const missing = [];
for (const { name, variants } of instances.simd128.kernels) {
  if (wanted.size && !wanted.has(name)) continue;
  if (!CASES[name]) {
    missing.push(name);
    continue;
  }
  const call = CASES[name]();
  const us = {};
  for (const [id, ag] of Object.entries(instances)) us[id] = time(() => call(ag));
  rows.push({ name, shared: variants[0] === 'shared', ...us });
}

const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad('kernel', 24)}${pad('simd128 µs', 13)}${pad('scalar µs', 13)}${pad('baseline µs', 13)}scalar/simd128  baseline/simd128`);
for (const r of rows) {
  const ratio = (x) => (r.shared ? '(one variant)' : `${(x / r.simd128).toFixed(2)}x`);
  console.log(`${pad(r.name, 24)}${pad(r.simd128.toFixed(1), 13)}${pad(r.scalar.toFixed(1), 13)}${pad(r.baseline.toFixed(1), 13)}${pad(ratio(r.scalar), 16)}${ratio(r.baseline)}`);
}
if (missing.length) console.log(`\nnot benchmarked (no case in scripts/bench.mjs): ${missing.join(', ')}`);
