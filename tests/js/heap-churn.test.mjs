// Heap churn: one instance per configuration takes 10^4 calls, valid and
// invalid, of every method of the API, in an order drawn by a seeded
// generator. Every invalid call must throw the error index.d.ts documents
// (TypeError or RangeError, its message starting with the method), every
// valid one must return; many invalid ones fail after their buffers are
// allocated (non-finite Float32Array data is checked in wasm, overflow is
// found by the kernel), so a missing `free` on an error path would show.
//
// The bytes allocated on the wasm heap (mallinfo's uordblks, through
// heapAllocatedBytes) are read after a warm-up round of every call and after
// each call: heap size alone cannot show a leak, since the heap never
// shrinks. At the end they equal the reading before, and the worked example
// of the articles (tests/data/seeds/worked-examples.json) still gives its
// numbers, as it does every 1000 calls on the way.
//
// Valid calls on small integers have exact float32 results (sums of
// products below 2^24), checked against plain JS arithmetic.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, expectClose, init, readJson } from './helpers.mjs';
import { rng } from '../reference/float64.mjs';

const CALLS = 10_000;
const SEED = 0xc4a2;
const { cases } = readJson('seeds/worked-examples.json');
const example = (id) => cases.find((c) => c.id === id);

/** Small integers in [-8, 8]: every sum of products below is exact in float32. */
const ints = (r, n) => Array.from({ length: n }, () => Math.floor(r() * 17) - 8);
const f32 = (a) => Float32Array.from(a);
const T = (data, shape) => ({ data: f32(data), shape });
const dotJs = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const nz = (a) => (a.every((x) => x === 0) ? [1, ...a.slice(1)] : a);

/**
 * The calls, each (r) => [method, call, expected, check]: expected is null
 * (the call must return, and `check`, when given, must accept the result) or
 * the error class it must throw.
 */
const KINDS = [
  // ---- valid -----------------------------------------------------------------
  (r) => {
    const n = 1 + Math.floor(r() * 70);
    const a = ints(r, n);
    const b = ints(r, n);
    return ['dot', (ag) => ag.dot(f32(a), b), null, (got) => got === dotJs(a, b)];
  },
  (r) => {
    const a = ints(r, 1 + Math.floor(r() * 40));
    return ['squaredNorm', (ag) => ag.squaredNorm(a), null, (got) => got === dotJs(a, a)];
  },
  (r) => {
    const a = nz(ints(r, 1 + Math.floor(r() * 20)));
    return ['norm', (ag) => ag.norm(a), null, (got) => Math.abs(got - Math.sqrt(dotJs(a, a))) <= 1e-6 * got];
  },
  (r) => {
    const a = nz(ints(r, 5));
    return ['normalize', (ag) => ag.normalize(a), null, (got) => got.data.length === 5];
  },
  (r) => {
    const a = nz(ints(r, 6));
    const b = nz(ints(r, 6));
    return ['cosine', (ag) => ag.cosine(a, b), null, (got) => got >= -1 && got <= 1];
  },
  (r) => {
    const a = nz(ints(r, 3));
    const b = nz(ints(r, 3));
    return ['angle', (ag) => ag.angle(a, b), null, (got) => got >= 0 && got <= Math.PI + 1e-6];
  },
  (r) => {
    const a = ints(r, 4);
    const b = nz(ints(r, 4));
    return ['scalarProjection', (ag) => ag.scalarProjection(a, b), null, (got) => Number.isFinite(got)];
  },
  (r) => {
    const a = ints(r, 4);
    const b = nz(ints(r, 4));
    return ['vectorProjection', (ag) => ag.vectorProjection(a, b), null, (got) => got.shape[0] === 4];
  },
  (r) => {
    const a = ints(r, 9);
    const b = ints(r, 9);
    return [
      'squaredDistance',
      (ag) => ag.squaredDistance(a, b),
      null,
      (got) => got === a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0),
    ];
  },
  (r) => {
    const alpha = ints(r, 3);
    const V = ints(r, 6);
    return [
      'weightedSum',
      (ag) => ag.weightedSum(alpha, T(V, [3, 2])),
      null,
      (got) => got.data[1] === alpha[0] * V[1] + alpha[1] * V[3] + alpha[2] * V[5],
    ];
  },
  (r) => {
    const [M, K, N] = [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 9), 1 + Math.floor(r() * 4)];
    const A = ints(r, M * K);
    const B = ints(r, K * N);
    const tB = r() < 0.5;
    const Bt = tB ? Array.from({ length: N * K }, (_, x) => B[(x % K) * N + Math.floor(x / K)]) : B;
    return [
      'matmul',
      (ag) => ag.matmul(T(A, [M, K]), T(Bt, tB ? [N, K] : [K, N]), { transposeB: tB }),
      null,
      (got) =>
        got.data[M * N - 1] ===
        dotJs(
          A.slice((M - 1) * K),
          Array.from({ length: K }, (_, k) => B[k * N + N - 1]),
        ),
    ];
  },
  (r) => ['exp', (ag) => ag.exp(T(ints(r, 6), [2, 3])), null, (got) => got.data.every((y) => y > 0)],
  (r) => {
    const x = ints(r, 8);
    const mask = r() < 0.5 ? { mask: [true, false, true, true] } : {};
    return [
      'softmax',
      (ag) => ag.softmax(T(x, [2, 4]), { temperature: 0.5 + r(), ...mask }),
      null,
      (got) => Math.abs(got.data.slice(0, 4).reduce((s, y) => s + y, 0) - 1) < 1e-5,
    ];
  },
  (r) => ['softmaxNaive', (ag) => ag.softmaxNaive(ints(r, 5)), null, null],
  (r) => ['logSumExp', (ag) => ag.logSumExp(ints(r, 7)), null, (got) => typeof got === 'number'],
  (r) => ['entropy', (ag) => ag.entropy([0.5, 0.25, 0.25]), null, (got) => got === 1.5],
  (r) => [
    'softmaxJacobian',
    (ag) => ag.softmaxJacobian([0.5, 0.5]),
    null,
    (got) => got.data[0] === 0.25 && got.data[1] === -0.25,
  ],
  (r) => {
    const [Tq, Tk, d] = [1 + Math.floor(r() * 6), 1 + Math.floor(r() * 40), 1 + Math.floor(r() * 8)];
    const opts = [
      {},
      { returnWeights: true },
      { returnScores: true, causal: true },
      { streaming: false },
      { streaming: true, mask: Array.from({ length: Tk }, (_, j) => j !== 1) },
    ][Math.floor(r() * 5)];
    return [
      'attention',
      (ag) =>
        ag.attention(T(ints(r, Tq * d), [Tq, d]), T(ints(r, Tk * d), [Tk, d]), T(ints(r, Tk * 3), [Tk, 3]), {
          scale: 0.125,
          ...opts,
        }),
      null,
      (got) => got.output.shape.join() === [Tq, 3].join(),
    ];
  },
  (r) => {
    const [T1, h] = [1 + Math.floor(r() * 5), 1 + Math.floor(r() * 2)];
    const d = 2 * h;
    const w = () =>
      T(
        ints(r, d * d).map((x) => x / 8),
        [d, d],
      );
    const opts = [
      {},
      { returnWeights: true },
      { streaming: false, causal: true },
      { keyPaddingMask: Array.from({ length: T1 }, (_, j) => j === 0 && T1 > 1) },
    ][Math.floor(r() * 4)];
    return [
      'multiHeadAttention',
      (ag) =>
        ag.multiHeadAttention(
          { query: T(ints(r, T1 * d), [T1, d]) },
          { wQ: w(), wK: w(), wV: w(), wO: w(), bO: ints(r, d) },
          { numHeads: h, ...opts },
        ),
      null,
      (got) => got.output.shape.join() === [T1, d].join(),
    ];
  },
  (r) => [
    'random.uniform',
    (ag) => ag.random.uniform({ seed: Math.floor(r() * 1000), n: 1 + Math.floor(r() * 50) }),
    null,
    (got) => got.data.every((u) => u >= 0 && u < 1),
  ],
  (r) => [
    'random.normal',
    (ag) => ag.random.normal({ seed: BigInt(Math.floor(r() * 1000)), counter: 3, n: 1 + Math.floor(r() * 50) }),
    null,
    null,
  ],
  (r) => [
    'randomDotExperiment',
    (ag) =>
      ag.randomDotExperiment({
        d: 1 + Math.floor(r() * 16),
        trials: 1 + Math.floor(r() * 20),
        measure: r() < 0.5 ? 'dot' : 'cosine',
        bins: 4,
      }),
    null,
    (got) => got.histogram.counts.length === 4,
  ],
  (r) => {
    const a = ints(r, 1 + Math.floor(r() * 20));
    return ['dotTrace', (ag) => ag.dotTrace(a, a), null, (got) => got.value === dotJs(a, a)];
  },
  (r) => {
    const Tk = 1 + Math.floor(r() * 12);
    const K = T(ints(r, 2 * Tk), [Tk, 2]);
    // Every step's l is at least 1 once a key is seen; the output has one row per query.
    return [
      'attentionTrace',
      (ag) => ag.attentionTrace(T(ints(r, 2), [1, 2]), K, K, { tileKeys: 4, scale: 0.125 }),
      null,
      (got) => got.output.shape.join() === '1,2' && got.steps.every((s) => s.l >= 1),
    ];
  },
  (r) => [
    'dotProductDensity',
    (ag) => ag.dotProductDensity([0.5, 1, 2], 1 + Math.floor(r() * 64)),
    null,
    (got) => got.data.every((y) => y > 0),
  ],
  (r) => [
    'greedyPacking',
    (ag) =>
      ag.greedyPacking({ d: 2 + Math.floor(r() * 8), candidates: 1 + Math.floor(r() * 10), epsilon: 0.5, seed: 1 }),
    null,
    (got) => got.kept >= 1,
  ],
  () => ['memoryStats', (ag) => ag.memoryStats(), null, (got) => got.peakAllocatedBytes >= got.allocatedBytes],
  () => ['resetPeakMemory', (ag) => ag.resetPeakMemory(), null, null],
  // ---- invalid: rejected before any allocation ---------------------------------
  () => ['dot', (ag) => ag.dot([1, 2], [1, 2, 3]), RangeError],
  () => ['dot', (ag) => ag.dot('abc', [1]), TypeError],
  () => ['norm', (ag) => ag.norm([]), RangeError],
  () => ['cosine', (ag) => ag.cosine([0, 0], [1, 2]), RangeError],
  () => ['normalize', (ag) => ag.normalize([0, -0]), RangeError],
  () => [
    'matmul',
    (ag) =>
      ag.matmul(T([1, 2, 3, 4, 5, 6], [2, 3]), [
        [1, 0],
        [0, 1],
      ]),
    RangeError,
  ],
  () => ['matmul', (ag) => ag.matmul([[1]], [[1]], { transpose: true }), TypeError],
  () => [
    'matmul',
    (ag) => ag.matmul(T(new Array(50000).fill(1), [50000, 1]), T(new Array(50000).fill(1), [1, 50000])),
    RangeError,
  ],
  () => ['softmax', (ag) => ag.softmax([1, 2], { temperature: 0 }), RangeError],
  () => ['softmax', (ag) => ag.softmax([1, 2], { temperature: '1' }), TypeError],
  () => ['softmax', (ag) => ag.softmax([1, 2], { mask: [0, NaN] }), RangeError],
  () => ['logSumExp', (ag) => ag.logSumExp([1, -Infinity]), RangeError],
  () => ['entropy', (ag) => ag.entropy([0.5, -0.5]), RangeError],
  () => ['weightedSum', (ag) => ag.weightedSum([1, 2], [[1, 2]]), RangeError],
  () => [
    'attention',
    (ag) => ag.attention([[1, 0]], [[1, 0]], [[1]], { streaming: true, returnWeights: true }),
    TypeError,
  ],
  () => ['attention', (ag) => ag.attention([[1, 0]], [[1, 0]], [[1]], { mask: [[true, true]] }), RangeError],
  () => ['attention', (ag) => ag.attention(null, [[1]], [[1]]), TypeError],
  () => [
    'multiHeadAttention',
    (ag) => ag.multiHeadAttention({ query: [[1, 2, 3]] }, { wQ: I3, wK: I3, wV: I3 }, { numHeads: 1 }),
    TypeError,
  ],
  () => [
    'multiHeadAttention',
    (ag) => ag.multiHeadAttention({ query: [[1, 2, 3]] }, { wQ: I3, wK: I3, wV: I3, wO: I3 }, { numHeads: 2 }),
    RangeError,
  ],
  () => [
    'multiHeadAttention',
    (ag) =>
      ag.multiHeadAttention(
        { query: [[1, 2, 3]] },
        { wQ: I3, wK: I3, wV: I3, wO: I3 },
        { numHeads: 1, streaming: true, returnWeights: true },
      ),
    TypeError,
  ],
  () => ['random.uniform', (ag) => ag.random.uniform({ n: 0 }), RangeError],
  () => ['random.normal', (ag) => ag.random.normal({ seed: 'x', n: 4 }), TypeError],
  () => ['randomDotExperiment', (ag) => ag.randomDotExperiment({ d: 1e6, trials: 1e6 }), RangeError],
  () => ['randomDotExperiment', (ag) => ag.randomDotExperiment({ d: 4, trials: 4, measure: 'angle' }), TypeError],
  () => ['greedyPacking', (ag) => ag.greedyPacking({ d: 4, candidates: 4, epsilon: 2 }), RangeError],
  () => ['dotProductDensity', (ag) => ag.dotProductDensity([1], 5000), RangeError],
  () => ['dotTrace', (ag) => ag.dotTrace([1], [1, 2]), RangeError],
  () => ['attentionTrace', (ag) => ag.attentionTrace([[1, 0]], [[1, 0]], [[1]], { tileKeys: 5 }), RangeError],
  // ---- invalid: rejected after the buffers are allocated ---------------------------
  (r) => ['dot', (ag) => ag.dot(Float32Array.of(1, 2, NaN), f32(ints(r, 3))), RangeError],
  // A partial sum that overflows (exact result 0): which of the two orders does it depends on the variant's order.
  () => [
    'dot',
    (ag) => ag.dot([3e38, 3e38, -3e38, -3e38], [1, 1, 1, 1]) + ag.dot([3e38, -3e38, 3e38, -3e38], [1, 1, 1, 1]),
    RangeError,
  ],
  (r) => [
    'matmul',
    (ag) => ag.matmul(T(ints(r, 4), [2, 2]), { data: Float32Array.of(1, Infinity, 0, 1), shape: [2, 2] }),
    RangeError,
  ],
  () => ['softmax', (ag) => ag.softmax(Float32Array.of(1e38, 3e38), { temperature: 0.5 }), RangeError],
  () => ['attentionTrace', (ag) => ag.attentionTrace([[3e38, 0]], [[2, 0]], [[1]], { scale: 1 }), RangeError],
  // Scores that overflow float32, on the streaming and the materialized path.
  ...[{}, { returnWeights: true, returnScores: true }].map((more) => () => [
    'attention',
    (ag) => ag.attention([[1e20, 0]], T([1e20, 0, 1, 0], [2, 2]), [[1], [2]], { scale: 1, ...more }),
    RangeError,
  ]),
  (r) => [
    'attention',
    (ag) =>
      ag.attention(
        T(ints(r, 4), [2, 2]),
        { data: Float32Array.of(1, 2, NaN, 4), shape: [2, 2] },
        T(ints(r, 2), [2, 1]),
      ),
    RangeError,
  ],
  () => [
    'multiHeadAttention',
    (ag) =>
      ag.multiHeadAttention({ query: [[1e20, 1e20]] }, { wQ: I2, wK: I2, wV: I2, wO: I2 }, { numHeads: 1, scale: 1 }),
    RangeError,
  ],
  () => [
    'multiHeadAttention',
    (ag) =>
      ag.multiHeadAttention(
        { query: [[1, 2]] },
        { wQ: I2, wK: I2, wV: { data: Float32Array.of(1, NaN, 0, 1), shape: [2, 2] }, wO: I2 },
        { numHeads: 1 },
      ),
    RangeError,
  ],
  () => ['dotProductDensity', (ag) => ag.dotProductDensity(Float32Array.of(0, NaN), 3), RangeError],
  // ---- gradients: valid, rejected before allocating, rejected after -----------------
  (r) => {
    // One key: its weight is 1, so dS = 1 (dP - dP) = 0 exactly (dQ = dK = 0) and dV = sum_i dY_i.
    const Tq = 1 + Math.floor(r() * 5);
    const dY = ints(r, 3 * Tq);
    const sums = [0, 1, 2].map((c) => dY.reduce((s, y, x) => (x % 3 === c ? s + y : s), 0));
    return [
      'attentionBackward',
      (ag) =>
        ag.attentionBackward(T(ints(r, 2 * Tq), [Tq, 2]), T(ints(r, 2), [1, 2]), T(ints(r, 3), [1, 3]), T(dY, [Tq, 3])),
      null,
      (got) =>
        got.dQ.data.every((x) => x === 0) &&
        got.dK.data.every((x) => x === 0) &&
        got.dV.data.every((x, c) => x === sums[c]),
    ];
  },
  (r) => {
    const dy = ints(r, 2);
    return [
      'softmaxBackward',
      (ag) => ag.softmaxBackward([0.5, 0.5], dy),
      null,
      (got) => got.data[0] === (dy[0] - dy[1]) / 4,
    ];
  },
  () => ['softmaxBackward', (ag) => ag.softmaxBackward([0.5, 0.5], [1, 2, 3]), RangeError],
  () => ['attentionBackward', (ag) => ag.attentionBackward(I2, I2, I2, I2, { softcap: 1 }), RangeError],
  () => ['softmaxBackward', (ag) => ag.softmaxBackward([0.5, 0.5], Float32Array.of(1, NaN)), RangeError],
  () => [
    'attentionBackward',
    (ag) => ag.attentionBackward([[1e20, 0]], [[1e20, 0]], [[1]], [[1]], { scale: 1 }),
    RangeError,
  ],
  // ---- the layers family and matmul's transposeA --------------------------------
  (r) => {
    const [K, M, N] = [1 + Math.floor(r() * 5), 1 + Math.floor(r() * 5), 1 + Math.floor(r() * 5)];
    const A = ints(r, K * M);
    const B = ints(r, K * N);
    const C = [];
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++)
        C.push(
          dotJs(
            Array.from({ length: K }, (_, k) => A[k * M + i]),
            Array.from({ length: K }, (_, k) => B[k * N + j]),
          ),
        );
    }
    return [
      'matmul',
      (ag) => ag.matmul(T(A, [K, M]), T(B, [K, N]), { transposeA: true }),
      null,
      (got) => got.data.every((c, q) => c === C[q]),
    ];
  },
  (r) => {
    const [rows, n] = [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 9)];
    const x = T(ints(r, rows * n), [rows, n]);
    return ['layerNorm', (ag) => ag.layerNorm(x, { gamma: ints(r, n) }), null, (got) => got.y.data.length === rows * n];
  },
  (r) => {
    const [rows, n] = [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 9)];
    const [x, dy] = [T(ints(r, rows * n), [rows, n]), T(ints(r, rows * n), [rows, n])];
    return ['layerNormBackward', (ag) => ag.layerNormBackward(dy, x), null, (got) => got.dGamma.data.length === n];
  },
  (r) => {
    const [rows, vocab] = [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 9)];
    const targets = Array.from({ length: rows }, () => Math.floor(r() * (vocab + 1)) - 1);
    const count = targets.filter((t) => t >= 0).length;
    return [
      'crossEntropy',
      (ag) => ag.crossEntropy(T(ints(r, rows * vocab), [rows, vocab]), targets),
      null,
      (got) => got.count === count && got.loss >= 0,
    ];
  },
  (r) => {
    const n = 1 + Math.floor(r() * 20);
    return [
      'adamUpdate',
      (ag) => ag.adamUpdate(ints(r, n), ints(r, n), null, { lr: 0.01, step: 1 + Math.floor(r() * 5) }),
      null,
      (got) => got.param.data.every(Number.isFinite),
    ];
  },
  () => ['layerNorm', (ag) => ag.layerNorm(Float32Array.of(1, NaN, 2)), RangeError],
  () => ['crossEntropy', (ag) => ag.crossEntropy([[3e38, -3e38]], [1]), RangeError],
  () => ['crossEntropy', (ag) => ag.crossEntropy(I2, [0, 7]), RangeError],
  () => ['adamUpdate', (ag) => ag.adamUpdate([1, 2], [1e20, 1], null, { lr: 0.1, step: 1 }), RangeError],
  () => ['layerNormBackward', (ag) => ag.layerNormBackward(I2, I2, { mean: [0, 0], rstd: [1, -1] }), RangeError],
];
const I2 = [
  [1, 0],
  [0, 1],
];
const I3 = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

/** The worked example of the articles, from worked-examples.json: dot, the scores q K^T, the softmax, and attention with scale 1. */
function workedExample(ag) {
  const dotCase = example('dot-algebraic');
  expect(ag.dot(dotCase.inputs.a, dotCase.inputs.b)).toBe(dotCase.expected);
  const scores = example('worked-scores');
  const { q, K } = scores.inputs;
  expectClose(ag.matmul([q], K, { transposeB: true }).data, scores.expected, scores.tolerance);
  const soft = example('worked-softmax-unscaled');
  expectClose(ag.softmax(soft.inputs.x).data, soft.expected, soft.tolerance);
  const res = ag.attention([q], K, K, { scale: 1, returnWeights: true, returnScores: true });
  expectClose(res.scores.data, scores.expected, scores.tolerance);
  expectClose(res.weights.data, soft.expected, soft.tolerance);
  // The output is the weights' mixture of the keys (used as values): sum_j a_j k_j, within 1e-5
  // (the data's 1e-6 per weight times |k_jc| <= 2 for three keys, plus float32 rounding).
  const y = K[0].map((_, c) => soft.expected.reduce((s, a, j) => s + a * K[j][c], 0));
  expectClose(res.output.data, y, 1e-5);
  expectClose(ag.attention([q], K, K, { scale: 1 }).output.data, y, 1e-5);
}

describe.each(CONFIGS)('heap churn, 10^4 mixed calls: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test(`${CALLS} valid and invalid calls: documented errors, right results, and the heap's allocated bytes unchanged`, () => {
    const r = rng(SEED);
    // Warm-up: every kind of call once, so that anything allocated once for good is allocated before the reading.
    for (const kind of KINDS) {
      try {
        kind(r)[1](ag);
      } catch {
        // (the invalid ones throw: checked below)
      }
    }
    workedExample(ag);
    const before = ag.heapAllocatedBytes();
    const wrong = [];
    let firstLeak = null;
    const counts = { returned: 0, threw: 0 };
    for (let i = 0; i < CALLS; i++) {
      const [method, call, Expected, check] = KINDS[Math.floor(r() * KINDS.length)](r);
      let result;
      let error = null;
      try {
        result = call(ag);
      } catch (e) {
        error = e;
      }
      if (Expected) {
        counts.threw++;
        if (!(error instanceof Expected) || !error.message.startsWith(`${method}: `)) {
          wrong.push({
            i,
            method,
            expected: Expected.name,
            got: error ? `${error.constructor.name}: ${error.message}` : 'no error',
          });
        }
      } else {
        counts.returned++;
        if (error) wrong.push({ i, method, expected: 'a result', got: `${error.constructor.name}: ${error.message}` });
        else if (check && !check(result))
          wrong.push({
            i,
            method,
            expected: 'the right result',
            got: JSON.stringify(result, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)).slice(0, 200),
          });
      }
      const now = ag.heapAllocatedBytes();
      if (now !== before && !firstLeak) firstLeak = { i, method, before, now };
      if (i % 1000 === 999) workedExample(ag);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(firstLeak).toBeNull();
    expect(ag.heapAllocatedBytes()).toBe(before);
    expect(ag.memoryStats().allocatedBytes).toBe(before);
    // Both kinds were drawn many times (about half and half).
    expect(counts.returned).toBeGreaterThan(CALLS / 4);
    expect(counts.threw).toBeGreaterThan(CALLS / 4);
    workedExample(ag);
  });
});
