// Learning tests of createTransformer (issue 21's acceptance), on both builds
// with fixed seeds: a 1-layer, 1-head model learns copyPrevious to >= 99 %
// accuracy, and 2-layer models learn inductionCopy (its repeat offset drawn per
// row, so only content matching solves it) to >= 90 %, each within a stated
// step budget, measured on a held-out batch (another seed). The trained
// inductionCopy models need both layers: with layer 0 switched off (the
// previous-token heads) or layer 1 (the induction heads), the held-out
// accuracy falls below half of the trained one; and their heads show both
// patterns: a layer-0 head weighs the previous token most, a layer-1 head the
// token after the current token's earlier occurrence (Elhage et al. 2021;
// Olsson et al. 2022). And the 1/sqrt(d_k) scale at d_k = 256: without it the
// softmax of the freshly initialised model is saturated (its weights' entropy
// far below the scaled model's) and the loss falls more slowly.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init } from './helpers.mjs';

const BUILDS = [
  { label: 'simd build (simd128)', options: { simd: true, variant: 'simd128' } },
  { label: 'baseline build', options: { simd: false } },
];

/**
 * Trains until the held-out accuracy reaches `goal` or the budget is spent; returns { accuracy, steps }, and
 * `after(model, heldOut)`'s result as `after` (the model is disposed after it).
 */
function train(ag, task, config, { batch, lr, budget, goal, every = 25, after = () => undefined }) {
  const model = ag.createTransformer(config);
  const data = ag.tasks[task]({ T: config.T, vocab: config.vocab, batch, seed: 1 });
  const heldOut = ag.tasks[task]({ T: config.T, vocab: config.vocab, batch: 64, seed: 999 }).next();
  let accuracy = 0;
  let steps = 0;
  while (steps < budget && accuracy < goal) {
    model.step(data.next(), { lr, clip: 1 });
    steps++;
    if (steps % every === 0) accuracy = model.evaluate(heldOut).accuracy;
  }
  const measured = after(model, heldOut);
  model.dispose();
  return { accuracy, steps, after: measured };
}

// Mean entropy (nats) of the attention rows that see at least two keys.
function meanEntropy(weights, T) {
  let h = 0;
  let rows = 0;
  for (let r = 0; r < weights.data.length / T; r++) {
    if (r % T === 0) continue; // position 0 sees one key
    for (let j = 0; j < T; j++) {
      const a = weights.data[r * T + j];
      if (a > 0) h -= a * Math.log(a);
    }
    rows++;
  }
  return h / rows;
}

/**
 * From each layer's weights [B, heads, T, T] of the rows `tokens`: byOffset[j][d], head j of layer 0's mean weight
 * on the key d positions before the query (over every query), and induction[j], head j of layer 1's mean weight on
 * the keys just after the earlier occurrences of the query's token (over the queries whose token came before).
 */
function headPatterns(weights, tokens, heads, T) {
  const B = tokens.length / T;
  const at = (l, b, j, t, k) => weights[l].data[((b * heads + j) * T + t) * T + k];
  const byOffset = [];
  const induction = [];
  for (let j = 0; j < heads; j++) {
    const sums = new Array(T).fill(0);
    let ind = 0;
    let repeated = 0;
    for (let b = 0; b < B; b++) {
      const row = tokens.subarray(b * T, (b + 1) * T);
      for (let t = 0; t < T; t++) {
        for (let k = 0; k <= t; k++) sums[t - k] += at(0, b, j, t, k) / (B * T);
        const after = [];
        for (let i = 0; i < t; i++) if (row[i] === row[t]) after.push(i + 1);
        if (after.length) repeated++;
        for (const k of after) ind += at(1, b, j, t, k);
      }
    }
    byOffset.push(sums);
    induction.push(ind / repeated);
  }
  return { byOffset, induction };
}

describe.each(BUILDS)('learning: $label', ({ options }) => {
  let ag;
  beforeAll(async () => {
    ag = await init(options);
  });

  test('copyPrevious: >= 99 % held-out accuracy within 200 steps (1 layer, 1 head, dModel 16)', () => {
    const config = { vocab: 8, T: 8, dModel: 16, heads: 1, layers: 1, mlp: false, seed: 1 };
    const r = train(ag, 'copyPrevious', config, { batch: 16, lr: 0.01, budget: 200, goal: 0.99 });
    console.log(`copyPrevious: accuracy ${r.accuracy} after ${r.steps} steps`);
    expect(r.accuracy).toBeGreaterThanOrEqual(0.99);
  });

  test.each([
    { heads: 2, dModel: 32 },
    { heads: 1, dModel: 32 },
  ])(
    'inductionCopy: >= 90 % held-out accuracy within 300 steps (2 layers, $heads head(s), dModel $dModel); either layer off: below half of it',
    ({ heads, dModel }) => {
      const config = { vocab: 16, T: 16, dModel, heads, layers: 2, mlp: false, seed: 1 };
      const off = (layer) => Array.from({ length: 2 }, (_, l) => new Array(heads).fill(l === layer ? 0 : 1));
      const r = train(ag, 'inductionCopy', config, {
        batch: 16,
        lr: 0.01,
        budget: 300,
        goal: 0.9,
        after: (model, heldOut) => ({
          layer0Off: model.evaluate(heldOut, { headMask: off(0) }).accuracy,
          layer1Off: model.evaluate(heldOut, { headMask: off(1) }).accuracy,
          ...headPatterns(model.forward(heldOut.tokens, { returnWeights: true }).weights, heldOut.tokens, heads, 16),
        }),
      });
      const { layer0Off, layer1Off, byOffset, induction } = r.after;
      const offsets = byOffset.map((w) =>
        w
          .slice(0, 8)
          .map((x) => x.toFixed(2))
          .join(' '),
      );
      console.log(
        `inductionCopy, ${heads} head(s): accuracy ${r.accuracy} after ${r.steps} steps; layer 0 off ${layer0Off}, layer 1 off ${layer1Off}; layer 0 by offset 0..7 [${offsets.join('; ')}]; layer 1 on the induction keys ${induction}`,
      );
      expect(r.accuracy).toBeGreaterThanOrEqual(0.9);
      // A previous-token head in layer 0: one head's largest mean weight is on the key just before the query.
      expect(byOffset.some((w) => w.every((x, d) => d === 1 || x < w[1]))).toBe(true);
      // An induction head in layer 1: one head puts more than half its weight, from a repeated token, on the keys
      // after the token's earlier occurrences (a row spread evenly over its keys would put at most 3/13 there).
      expect(Math.max(...induction)).toBeGreaterThan(0.5);
      // Without layer 0 no position carries the token before it, so layer 1 cannot find the token after the
      // current one's earlier occurrence; without layer 1 nothing looks that far back at all.
      expect(r.after.layer0Off).toBeLessThan(r.accuracy / 2);
      expect(r.after.layer1Off).toBeLessThan(r.accuracy / 2);
    },
  );

  test('d_k = 256 without 1/sqrt(d_k): a saturated softmax, and a loss that falls more slowly', () => {
    const base = { vocab: 16, T: 16, dModel: 256, heads: 1, layers: 1, mlp: false, seed: 3 };
    const run = (scaleScores) => {
      const model = ag.createTransformer({ ...base, scaleScores });
      const data = ag.tasks.copyPrevious({ T: base.T, vocab: base.vocab, batch: 4, seed: 5 });
      const probe = data.at(1000);
      const entropy = meanEntropy(model.forward(probe.tokens, { returnWeights: true }).weights[0], base.T);
      for (let i = 0; i < 30; i++) model.step(data.next(), { lr: 0.003 });
      const { loss } = model.evaluate(probe);
      model.dispose();
      return { entropy, loss };
    };
    const scaled = run(true);
    const unscaled = run(false);
    console.log(
      `d_k 256: entropy ${scaled.entropy} vs ${unscaled.entropy} nats; loss after 30 steps ${scaled.loss} vs ${unscaled.loss}`,
    );
    // q and k have unit-variance entries at initialisation, so q.k has variance d_k = 256: unscaled
    // scores spread over +-16 and each row's largest weight takes nearly everything.
    expect(unscaled.entropy).toBeLessThan(0.25 * scaled.entropy);
    expect(unscaled.loss).toBeGreaterThan(2 * scaled.loss);
  });

  // The expectation that the unscaled model's query projection gets a *smaller* gradient is tested here
  // and does not hold: nothing divides its gradient by sqrt(d_k), and the rows whose two largest scores
  // nearly tie (the only rows a saturated softmax passes a gradient through) carry scores 16 times
  // larger. What the saturation does shrink is the gradient reaching the losing keys, a_j (delta - a):
  // the loss stalls (above) although the gradient of W_Q is larger. Chapter scale-in-training shows both.
  test('d_k = 256: the gradient of W_Q at initialisation is larger without the scale, not smaller (5 seeds)', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const base = { vocab: 16, T: 16, dModel: 256, heads: 1, layers: 1, mlp: false, seed };
      const batch = ag.tasks.copyPrevious({ T: base.T, vocab: base.vocab, batch: 4, seed: 5 }).at(0);
      const [scaled, unscaled] = [true, false].map((scaleScores) => {
        const model = ag.createTransformer({ ...base, scaleScores });
        const norm = model.gradients(batch).gradNorms['layers.0.attn.wq'];
        model.dispose();
        return norm;
      });
      console.log(`seed ${seed}: |grad W_Q| ${scaled} scaled, ${unscaled} unscaled`);
      expect(unscaled).toBeGreaterThan(2 * scaled);
    }
  });
});
