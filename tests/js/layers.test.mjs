// The layers family (registry.inc: layer_norm, layer_norm_backward,
// cross_entropy, adam_update) and matmul's A^T B (matmul_tn) through the JS
// API, on every configuration (both variants of the SIMD build, the baseline
// build).
//
// - Against the float64 references of tests/reference/float64.mjs, within
//   the first-order bounds that registry.inc states for each kernel,
//   evaluated per element with the reference's magnitudes, plus a 1% margin
//   and 2u of the value for the second-order terms (as tests/cpp does).
//   Shapes and values are drawn by fast-check from a fixed seed (SEED, RUNS).
// - The float64 analytic gradients (layer norm, cross-entropy) against
//   float64 central finite differences of the float64 forward functions, and
//   the kernels' gradients against the same differences, within the kernel's
//   bound plus what the kernel's float32 statistics change (computed in
//   float64) plus the differences' error.
//   Their tolerance is the finite difference's own error, estimated a
//   posteriori: the truncation error of the central difference is
//   h^2 f'''/6 + O(h^4), so the difference between steps h and h/2 is 3/4
//   of the error at h; twice that, plus the float64 rounding of the two
//   function values divided by 2h bounds it (a sum of N terms, each with at
//   most m roundings, is within (N + m) 2^-53 sum|terms| in float64).
// - The PyTorch cases of tests/data/torch-gradients/ (README.md there): each
//   output within the kernel's bound, plus the effect of what the kernel is
//   given differently from PyTorch (the float32 mean and rstd of the forward
//   pass, Adam's float32 state between steps), derived to first order in the
//   comments below. Every case run is listed in the test output.
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONFIGS, init, listJson, readJson } from './helpers.mjs';
import * as ref from '../reference/float64.mjs';
import {
  adamTolerances,
  cn,
  crossEntropyTolerances,
  firstOutside,
  layerNormBackwardTolerances,
  layerNormTolerances,
} from './layers-bounds.mjs';

const { U, abs } = ref;
const SEED = 0x5eed_0021;
const RUNS = 12;
const f = Math.fround;

/**
 * Central differences at steps h and h/2, and the a-posteriori bound on the
 * error of the first (file comment); fError bounds the float64 rounding of
 * one evaluation of fn.
 */
function checkedDifferences(fn, x, h, fError) {
  const d1 = ref.centralDifferences(fn, x, h);
  const d2 = ref.centralDifferences(fn, x, h / 2);
  return { grad: d1, error: (i) => 2 * abs(d1[i] - d2[i]) + fError / h };
}

const shapeArb = fc.record({ rows: fc.integer({ min: 1, max: 70 }), n: fc.integer({ min: 1, max: 300 }) });
const smallShapeArb = fc.record({ rows: fc.integer({ min: 1, max: 4 }), n: fc.integer({ min: 1, max: 17 }) });

describe.each(CONFIGS)('$label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });
  const variant = () => ag.variant;

  test('matmul(A, B, { transposeA: true }) is A^T B within the bound of its variant', () => {
    const gen = ref.rng(7);
    for (const [M, K, N] of [
      [1, 1, 1],
      [3, 5, 7],
      [9, 17, 33],
      [66, 10, 9],
      [5, 300, 4],
    ]) {
      const A = gen.f32(K * M);
      const B = gen.f32(K * N);
      const At = new Float32Array(M * K);
      for (let k = 0; k < K; k++) for (let i = 0; i < M; i++) At[i * K + k] = A[k * M + i];
      const got = ag.matmul({ data: A, shape: [K, M] }, { data: B, shape: [K, N] }, { transposeA: true });
      expect(got.shape).toEqual([M, N]);
      const want = ref.matmul(At, B, M, K, N);
      const gamma = variant() === 'simd128' ? (Math.min(K, 256) + Math.ceil(K / 256)) * U : cn(K) * U;
      const mag = (i) => {
        let s = 0;
        const r = Math.floor(i / N);
        const c = i % N;
        for (let k = 0; k < K; k++) s += abs(At[r * K + k] * B[k * N + c]);
        return s;
      };
      expect(firstOutside(`C [${M}, ${N}]`, got.data, want, (i) => gamma * mag(i) + 2 ** -50 * mag(i))).toBeNull();
      // A batch of two, broadcast against one B.
      const two = ag.matmul(
        { data: Float32Array.from([...A, ...A]), shape: [2, K, M] },
        { data: B, shape: [K, N] },
        { transposeA: true },
      );
      expect(Array.from(two.data.subarray(M * N))).toEqual(Array.from(got.data));
    }
    expect(() => ag.matmul([[1, 2]], [[1], [2]], { transposeA: true, transposeB: true })).toThrow(RangeError);
  });

  test('layerNorm: y, mean and rstd within the bounds of registry.inc (random shapes, rows 1..70, n 1..300)', () => {
    fc.assert(
      fc.property(shapeArb, fc.boolean(), fc.constantFrom(0, 100), fc.integer(), ({ rows, n }, affine, shift, seed) => {
        const gen = ref.rng(seed);
        const x = Float32Array.from(gen.f32(rows * n, -3, 3), (v) => f(v + shift));
        const gamma = affine ? gen.f32(n, 0.5, 1.5) : null;
        const beta = affine ? gen.f32(n) : null;
        const eps = 1e-5;
        const opts = affine ? { gamma, beta } : {};
        const got = ag.layerNorm({ data: x, shape: [rows, n] }, opts);
        const want = ref.layerNorm(x, rows, n, { gamma, beta, eps: f(eps) });
        const t = layerNormTolerances(x, n, want, f(eps), gamma);
        const bad =
          firstOutside('mean', got.mean.data, want.mean, t.mean) ??
          firstOutside('rstd', got.rstd.data, want.rstd, t.rstd) ??
          firstOutside('y', got.y.data, want.y, t.y);
        if (bad) throw new Error(bad);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  test('layerNormBackward: dx, dGamma, dBeta within their bounds, mean and rstd given or recomputed', () => {
    fc.assert(
      fc.property(shapeArb, fc.boolean(), fc.integer(), ({ rows, n }, affine, seed) => {
        const gen = ref.rng(seed);
        const x = gen.f32(rows * n, -3, 3);
        const dy = gen.f32(rows * n);
        const gamma = affine ? gen.f32(n, 0.5, 1.5) : null;
        const xt = { data: x, shape: [rows, n] };
        const fwd = ag.layerNorm(xt, gamma ? { gamma } : {});
        const given = ag.layerNormBackward({ data: dy, shape: [rows, n] }, xt, {
          gamma: gamma ?? undefined,
          mean: fwd.mean,
          rstd: fwd.rstd,
        });
        const recomputed = ag.layerNormBackward({ data: dy, shape: [rows, n] }, xt, gamma ? { gamma } : {});
        expect(Array.from(recomputed.dx.data)).toEqual(Array.from(given.dx.data));
        const mean = fwd.mean.data;
        const rstd = fwd.rstd.data;
        const want = ref.layerNormBackward(dy, x, rows, n, { gamma, mean, rstd });
        const t = layerNormBackwardTolerances(rows, n, rstd, want);
        const bad =
          firstOutside('dx', given.dx.data, want.dx, t.dx) ??
          firstOutside('dGamma', given.dGamma.data, want.dGamma, t.dGamma) ??
          firstOutside('dBeta', given.dBeta.data, want.dBeta, t.dBeta);
        if (bad) throw new Error(bad);
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });

  test('layer-norm gradients, float64 and kernel, against central differences of the forward pass', () => {
    fc.assert(
      fc.property(smallShapeArb, fc.integer(), ({ rows, n }, seed) => {
        const gen = ref.rng(seed);
        const x = Float64Array.from(gen.f32(rows * n, -2, 2));
        const dy = gen.f32(rows * n);
        const gamma = gen.f32(n, 0.5, 1.5);
        const beta = gen.f32(n);
        const eps = 1e-5;
        // L = sum dy * y: its gradients are dx, dGamma, dBeta.
        const loss = (xx, g = gamma, b = beta) => {
          const { y } = ref.layerNorm(xx, rows, n, { gamma: g, beta: b, eps });
          let s = 0;
          for (let i = 0; i < y.length; i++) s += dy[i] * y[i];
          return s;
        };
        const stats = ref.layerNorm(x, rows, n, { gamma, beta, eps });
        const want = ref.layerNormBackward(dy, x, rows, n, { gamma, mean: stats.mean, rstd: stats.rstd });
        // L's rounding: rows n terms dy_i y_i, each y_i within (4n + 20) 2^-53 of
        // |gamma_i| (|h_i| + 2 rstd) + |beta_i| (its sums, and the mean's error times rstd).
        let mag = 0;
        for (let at = 0; at < rows * n; at++) {
          const r = Math.floor(at / n);
          const i = at % n;
          mag += abs(dy[at]) * (abs(gamma[i]) * (abs(want.h[at]) + 2 * stats.rstd[r]) + abs(beta[i]));
        }
        const fError = (rows * n + 4 * n + 20) * 2 ** -53 * mag;
        const dX = checkedDifferences((xx) => loss(xx), x, 2 ** -12, fError);
        const dG = checkedDifferences((gg) => loss(x, gg), Float64Array.from(gamma), 2 ** -12, fError);
        const dB = checkedDifferences((bb) => loss(x, gamma, bb), Float64Array.from(beta), 2 ** -12, fError);
        let bad =
          firstOutside('dx', want.dx, dX.grad, dX.error) ??
          firstOutside('dGamma', want.dGamma, dG.grad, dG.error) ??
          firstOutside('dBeta', want.dBeta, dB.grad, dB.error);
        // The kernel directly: its bound at the float32 mean and rstd it computes, plus what
        // those change in the float64 gradients (computed, not estimated), plus the
        // differences' own error.
        const xt = { data: Float32Array.from(x), shape: [rows, n] };
        const got = ag.layerNormBackward({ data: dy, shape: [rows, n] }, xt, { gamma, eps });
        const fwd = ag.layerNorm(xt, { gamma, eps });
        const atFloat = ref.layerNormBackward(dy, x, rows, n, { gamma, mean: fwd.mean.data, rstd: fwd.rstd.data });
        const t = layerNormBackwardTolerances(rows, n, fwd.rstd.data, atFloat);
        const near = (own, exact, float, fd) => (i) => own(i) + abs(float[i] - exact[i]) + fd(i);
        bad ??=
          firstOutside('kernel dx', got.dx.data, dX.grad, near(t.dx, want.dx, atFloat.dx, dX.error)) ??
          firstOutside(
            'kernel dGamma',
            got.dGamma.data,
            dG.grad,
            near(t.dGamma, want.dGamma, atFloat.dGamma, dG.error),
          ) ??
          firstOutside('kernel dBeta', got.dBeta.data, dB.grad, near(t.dBeta, want.dBeta, atFloat.dBeta, dB.error));
        if (bad) throw new Error(bad);
      }),
      { seed: SEED + 2, numRuns: RUNS },
    );
  });

  test('crossEntropy: losses, loss, count and dLogits within their bounds; ignored rows are zero', () => {
    fc.assert(
      fc.property(
        shapeArb,
        fc.constantFrom([-8, 8], [90, 100], [-30, 30]),
        fc.option(fc.constantFrom(1, -2, f(1 / 3)), { nil: undefined }),
        fc.integer(),
        ({ rows, n: vocab }, [lo, hi], gradScale, seed) => {
          const gen = ref.rng(seed);
          const logits = gen.f32(rows * vocab, lo, hi);
          const targets = Array.from({ length: rows }, () => Math.floor(gen() * (vocab + 1)) - 1);
          const got = ag.crossEntropy(
            { data: logits, shape: [rows, vocab] },
            Int32Array.from(targets),
            gradScale === undefined ? {} : { gradScale },
          );
          const count = targets.filter((t) => t >= 0).length;
          const scale = gradScale ?? (count > 0 ? 1 / count : 1);
          const want = ref.crossEntropy(logits, targets, rows, vocab, f(scale));
          expect(got.count).toBe(count);
          const t = crossEntropyTolerances(variant(), logits, targets, vocab, f(scale), want);
          let sum = 0;
          for (let r = 0; r < rows; r++) {
            sum += got.losses.data[r];
            if (targets[r] >= 0) continue;
            expect(Object.is(got.losses.data[r], 0)).toBe(true);
            for (let i = 0; i < vocab; i++) expect(Object.is(got.dLogits.data[r * vocab + i], 0)).toBe(true);
          }
          const bad =
            firstOutside('losses', got.losses.data, want.losses, t.losses) ??
            firstOutside('dLogits', got.dLogits.data, want.dLogits, t.dLogits);
          if (bad) throw new Error(bad);
          // The mean over the scored rows, summed in float64 from the float32 losses.
          expect(got.loss).toBe(count > 0 ? sum / count : 0);
        },
      ),
      { seed: SEED + 3, numRuns: RUNS },
    );
  });

  test('cross-entropy gradient, float64 and kernel, against central differences of the mean loss', () => {
    fc.assert(
      fc.property(smallShapeArb, fc.integer(), ({ rows, n: vocab }, seed) => {
        const gen = ref.rng(seed);
        const logits = Float64Array.from(gen.f32(rows * vocab, -4, 4));
        const targets = Array.from({ length: rows }, () => Math.floor(gen() * (vocab + 1)) - 1);
        const count = targets.filter((t) => t >= 0).length;
        const scale = count > 0 ? 1 / count : 1;
        const loss = (z) => {
          const { losses } = ref.crossEntropy(z, targets, rows, vocab);
          return losses.reduce((a, b) => a + b, 0) * scale;
        };
        const want = ref.crossEntropy(logits, targets, rows, vocab, scale);
        // The mean loss's rounding: each loss within (vocab + 4) 2^-53 + 2^-53 |loss| (its
        // log-sum-exp), their sum within rows 2^-53 of the sum of |losses|.
        let mag = 0;
        for (let r = 0; r < rows; r++) mag += (rows + 2) * want.losses[r] + vocab + 4;
        const d = checkedDifferences(loss, logits, 2 ** -12, 2 ** -53 * scale * mag);
        // The kernel directly: its bound, its float32 grad_scale (1/count rounded: u relatively)
        // and the differences' own error.
        const got = ag.crossEntropy({ data: Float32Array.from(logits), shape: [rows, vocab] }, targets);
        const t = crossEntropyTolerances(variant(), logits, targets, vocab, f(scale), want);
        const bad =
          firstOutside('dLogits', want.dLogits, d.grad, d.error) ??
          firstOutside(
            'kernel dLogits',
            got.dLogits.data,
            d.grad,
            (i) => t.dLogits(i) + 1.01 * U * abs(want.dLogits[i]) + d.error(i),
          );
        if (bad) throw new Error(bad);
      }),
      { seed: SEED + 4, numRuns: RUNS },
    );
  });

  test('adamUpdate: param, m and v within the bounds of registry.inc; the arguments are not changed', () => {
    const cases = [
      { lr: 1e-3, step: 1 },
      { lr: 3e-2, beta1: 0.9, beta2: 0.98, eps: 1e-6, gradScale: 0.25, step: 7 },
      { lr: 0.5, beta1: 0.3, beta2: 0.7, eps: 1e-3, gradScale: 3, step: 1000 },
    ];
    let seed = 31;
    for (const n of [1, 3, 4, 5, 8, 17, 65, 300]) {
      for (const opts of cases) {
        const gen = ref.rng(seed++);
        const param = gen.f32(n);
        const grad = gen.f32(n, -2, 2);
        const m = gen.f32(n, -0.5, 0.5);
        const v = gen.f32(n, 0, 0.3);
        const copies = [param, grad, m, v].map((a) => Float32Array.from(a));
        const got = ag.adamUpdate(param, grad, { m, v }, opts);
        [param, grad, m, v].forEach((a, k) => expect(Array.from(a)).toEqual(Array.from(copies[k])));
        const o = { beta1: 0.9, beta2: 0.999, eps: 1e-8, gradScale: 1, ...opts };
        const fo = {
          lr: f(o.lr),
          beta1: f(o.beta1),
          beta2: f(o.beta2),
          eps: f(o.eps),
          gradScale: f(o.gradScale),
          step: o.step,
        };
        const want = ref.adamUpdate(param, grad, m, v, fo);
        const t = adamTolerances(fo, want);
        const bad =
          firstOutside('m', got.m.data, want.m, t.m) ??
          firstOutside('v', got.v.data, want.v, t.v) ??
          firstOutside('param', got.param.data, want.param, t.param);
        if (bad) throw new Error(`n=${n} ${JSON.stringify(opts)}: ${bad}`);
      }
    }
    // No state: the first step from m = v = 0.
    const first = ag.adamUpdate([1, -1], [0.5, 0.5], undefined, { lr: 0.1, step: 1 });
    const m1 = f(f(1 - f(0.9)) * 0.5); // (1 - b1) g, 1 - b1 formed in float32 from the float32 b1
    expect(Array.from(first.m.data)).toEqual([m1, m1]);
  });

  test('the PyTorch cases of tests/data/torch-gradients', () => {
    // The folder also holds attention's and the softmax's cases (tests/js/torch-gradients.test.mjs).
    const files = listJson('torch-gradients').filter((f) => /^(layer_norm|cross_entropy|adam)_/.test(f));
    expect(files.length).toBe(11);
    const ran = [];
    for (const file of files) {
      const c = readJson(`torch-gradients/${file}`);
      const input = (name) => c.inputs.find((t) => t.name === name);
      const output = (name) => c.outputs.find((t) => t.name === name);
      if (c.op === 'LayerNorm') checkTorchLayerNorm(ag, c, input, output);
      else if (c.op === 'CrossEntropy') checkTorchCrossEntropy(ag, variant(), input, output);
      else if (c.op === 'Adam') checkTorchAdam(ag, c, input, output);
      else throw new Error(`${file}: unknown op ${c.op}`);
      ran.push(file);
    }
    console.log(`PyTorch gradient cases on ${cfg.label}:\n${ran.map((f) => `  - ${f}`).join('\n')}`);
  });
});

// LayerNorm against PyTorch: y within layer_norm's bound; the gradients are
// the kernel's at the float32 mean and rstd of the forward pass, PyTorch's at
// the exact ones. A mean off by delta (|delta| <= d) moves dx_i by
// delta r^2 (mean(g h) + h_i mean(g)) to first order, and an rstd off by a
// factor (1 + rho) scales r (g - mean g) by it and r h mean(g h) by its cube,
// so the bound adds d r^2 (sum|g h| + |h_i| sum|g|) / n + 3 rho r (|g_i| +
// sum|g| / n + |h_i| sum|g h| / n) to dx's; h moves by rho |h| + d r, which
// moves dGamma by sum_r |dy| (rho |h| + d r).
function checkTorchLayerNorm(ag, c, input, output) {
  const [rows, n] = input('x').shape;
  const x = Float32Array.from(input('x').data);
  const dy = Float32Array.from(input('dy').data);
  const gamma = input('gamma') ? Float32Array.from(input('gamma').data) : null;
  const beta = input('beta') ? Float32Array.from(input('beta').data) : null;
  const eps = c.attributes.eps;
  const xt = { data: x, shape: [rows, n] };
  const got = ag.layerNorm(xt, { gamma: gamma ?? undefined, beta: beta ?? undefined, eps });
  const back = ag.layerNormBackward({ data: dy, shape: [rows, n] }, xt, { gamma: gamma ?? undefined, eps });
  const stats = ref.layerNorm(x, rows, n, { gamma, beta, eps: f(eps) });
  const yT = output('y').data;
  const dxT = output('dx').data;
  const lt = layerNormTolerances(x, n, stats, f(eps), gamma);
  const ex = ref.layerNormBackward(dy, x, rows, n, { gamma, mean: stats.mean, rstd: stats.rstd });
  const own = layerNormBackwardTolerances(rows, n, stats.rstd, ex);
  // y: PyTorch's y and the reference's are the same float64 formula (2^-50 apart at most).
  let bad = firstOutside('y', got.y.data, yT, (at) => lt.y(at) + 2 ** -50 * abs(yT[at]));
  bad ??= firstOutside('dx', back.dx.data, dxT, (at) => {
    const r = Math.floor(at / n);
    const [d, rho, rs] = [lt.d[r], lt.rho[r], stats.rstd[r]];
    const stat =
      (d * rs * rs * (ex.rowAbsGH[r] + abs(ex.h[at]) * ex.rowAbsG[r])) / n +
      3 * rho * rs * (abs(ex.g[at]) + ex.rowAbsG[r] / n + abs(ex.h[at]) * (ex.rowAbsGH[r] / n));
    return own.dx(at) + 1.01 * stat;
  });
  if (gamma) {
    bad ??= firstOutside('dGamma', back.dGamma.data, output('dgamma').data, (j) => {
      let moved = 0;
      for (let r = 0; r < rows; r++)
        moved += abs(dy[r * n + j]) * (lt.rho[r] * abs(ex.h[r * n + j]) + lt.d[r] * stats.rstd[r]);
      return own.dGamma(j) + 1.01 * moved;
    });
    bad ??= firstOutside('dBeta', back.dBeta.data, output('dbeta').data, own.dBeta);
  }
  if (bad) throw new Error(`${c.source}: ${bad}`);
}

// CrossEntropy against PyTorch (ignore_index -1, mean over the scored rows):
// the same inputs, so registry.inc's bounds as they are.
function checkTorchCrossEntropy(ag, variant, input, output) {
  const [rows, vocab] = input('logits').shape;
  const logits = Float32Array.from(input('logits').data);
  const targets = input('targets').data;
  const got = ag.crossEntropy({ data: logits, shape: [rows, vocab] }, targets);
  const scale = f(1 / got.count);
  const ex = ref.crossEntropy(logits, targets, rows, vocab, scale);
  const lossesT = output('losses').data;
  const dT = output('dlogits').data;
  const t = crossEntropyTolerances(variant, logits, targets, vocab, scale, ex);
  // The reference and PyTorch: one float64 formula, 2^-50 apart at most.
  let bad = firstOutside('losses', got.losses.data, lossesT, (r) => t.losses(r) + 2 ** -50 * abs(lossesT[r]));
  // The mean: each loss within its bound, summed in float64 and divided by the count.
  let meanBound = 0;
  for (let r = 0; r < rows; r++) if (targets[r] >= 0) meanBound += t.losses(r) / got.count;
  const lossT = output('loss').data;
  bad ??= firstOutside('loss', [got.loss], lossT, () => meanBound + 2 ** -50 * abs(lossT[0]));
  // PyTorch's gradient has the exact 1 / count; the kernel's grad_scale is its float32 rounding (u relatively).
  bad ??= firstOutside('dLogits', got.dLogits.data, dT, (at) => t.dLogits(at) + 1.01 * U * abs(dT[at]));
  if (bad) throw new Error(bad);
}

// Adam against torch.optim.Adam, step by step: step s starts from PyTorch's
// float64 state after step s - 1, rounded to float32 (the kernel's inputs),
// and the kernel's hyperparameters are float32 (1 - b2 from the float32 b2
// differs from 1 - 0.999 by 1.3e-5 relatively). The tolerance is the
// kernel's bound against the float64 formulas on its own float32 inputs,
// plus the exact effect of those roundings: the same float64 formulas on
// PyTorch's float64 state and hyperparameters, minus on the float32 ones.
// The float64 formulas on PyTorch's inputs must give PyTorch's outputs
// within 2^-40 relatively (two float64 arrangements of one formula).
function checkTorchAdam(ag, c, input, output) {
  const { lr, beta1, beta2, eps, steps } = c.attributes;
  const n = input('param').shape[0];
  const grads = input('grads').data;
  let state64 = { param: Float64Array.from(input('param').data, f), m: new Float64Array(n), v: new Float64Array(n) };
  for (let s = 1; s <= steps; s++) {
    const grad = Float32Array.from(grads.slice((s - 1) * n, s * n));
    const param = Float32Array.from(state64.param);
    const m = Float32Array.from(state64.m);
    const v = Float32Array.from(state64.v);
    const got = ag.adamUpdate(param, grad, { m, v }, { lr, beta1, beta2, eps, step: s });
    const want = { param: output(`param_${s}`).data, m: output(`m_${s}`).data, v: output(`v_${s}`).data };
    const fo = { lr: f(lr), beta1: f(beta1), beta2: f(beta2), eps: f(eps), step: s };
    const ex = ref.adamUpdate(param, grad, m, v, fo);
    const exact = ref.adamUpdate(state64.param, grad, state64.m, state64.v, { lr, beta1, beta2, eps, step: s });
    const same = (name) =>
      firstOutside(`float64 ${name}_${s}`, exact[name], want[name], (i) => 2 ** -40 * (abs(want[name][i]) + 2 ** -40));
    const t = adamTolerances(fo, ex);
    const moved = (name, i) => abs(exact[name][i] - ex[name][i]);
    const bad =
      same('param') ??
      same('m') ??
      same('v') ??
      firstOutside(`m_${s}`, got.m.data, want.m, (i) => t.m(i) + moved('m', i)) ??
      firstOutside(`v_${s}`, got.v.data, want.v, (i) => t.v(i) + moved('v', i)) ??
      firstOutside(`param_${s}`, got.param.data, want.param, (i) => t.param(i) + moved('param', i));
    if (bad) throw new Error(`${c.source}: ${bad}`);
    state64 = { param: Float64Array.from(want.param), m: Float64Array.from(want.m), v: Float64Array.from(want.v) };
  }
}
