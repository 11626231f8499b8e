// The float64 reference model (tests/reference/transformer.mjs) checked against
// itself: its analytic gradients against float64 central finite differences of
// its loss, on tiny configurations (with and without layer norm and the MLP,
// one and two layers, one and two heads), and one Adam step against the update
// of Kingma & Ba 2015, Algorithm 1, written out for one parameter; a head
// switched off by the head mask against the same model with that head's rows
// of Wo set to 0.
import { describe, expect, test } from '@jest/globals';
import { parameterShapes, referenceModel } from '../reference/transformer.mjs';
import { rng } from '../reference/float64.mjs';

function randomParams(config, seed) {
  const r = rng(seed);
  const params = {};
  for (const [name, shape] of parameterShapes({ norm: 'layer', ...config })) {
    const n = shape.reduce((a, b) => a * b, 1);
    // gamma near 1 so that layer norm is not degenerate; everything else in [-0.5, 0.5)
    params[name] = name.endsWith('.gamma') ? r.f32(n, 0.5, 1.5) : r.f32(n, -0.5, 0.5);
  }
  return params;
}

function batchOf(config, B, seed) {
  const r = rng(seed);
  const tokens = Int32Array.from({ length: B * config.T }, () => Math.floor(r() * config.vocab));
  const targets = Int32Array.from({ length: B * config.T }, () => Math.floor(r() * config.vocab));
  targets[0] = -1; // one position not scored
  return { tokens, targets };
}

const CASES = [
  { vocab: 5, T: 4, dModel: 4, heads: 1, layers: 1, mlp: false, norm: 'none' },
  { vocab: 5, T: 4, dModel: 4, heads: 2, layers: 1, mlp: true, norm: 'layer' },
  { vocab: 6, T: 3, dModel: 4, heads: 2, layers: 2, mlp: true, norm: 'layer', scaleScores: false },
];

describe('float64 reference transformer', () => {
  test.each(CASES.map((c) => [JSON.stringify(c), c]))('gradients = central differences: %s', (_, config) => {
    const params = randomParams(config, 7);
    const B = 2;
    const { tokens, targets } = batchOf(config, B, 11);
    const model = referenceModel(config, params);
    const { grads } = model.gradients(tokens, targets, B);
    // Central differences with step h = 1e-5 in float64: truncation error
    // h^2 |L'''| / 6 (about 1e-11 for these O(1) losses) plus rounding 2^-52
    // |L| / h (about 1e-11): 1e-8 absolute is far above both, and far below the
    // gradients' size (a wrong term is off by O(1e-3) or more).
    const h = 1e-5;
    let checked = 0;
    for (const [name, shape] of model.shapes) {
      const n = shape.reduce((a, b) => a * b, 1);
      // every entry of small parameters, a spread of 7 entries of larger ones
      const idx =
        n <= 8 ? [...Array(n).keys()] : Array.from({ length: 7 }, (_, i) => Math.floor((i * n) / 7) + (i % 2));
      for (const i of idx) {
        const at = (delta) => {
          const p = { ...params, [name]: Float64Array.from(params[name]) };
          p[name][i] += delta;
          const m = referenceModel(config, p);
          return m.lossOf(m.forward(tokens, B).logits, targets, B * config.T).loss;
        };
        const fd = (at(h) - at(-h)) / (2 * h);
        expect(Math.abs(grads[name][i] - fd)).toBeLessThanOrEqual(1e-8);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('a head mask is the model with the rows of that head in Wo set to 0', () => {
    const config = CASES[2]; // 2 layers, 2 heads
    const params = randomParams(config, 13);
    const B = 2;
    const { tokens } = batchOf(config, B, 17);
    const dk = config.dModel / config.heads;
    for (const [l, j] of [
      [0, 0],
      [1, 1],
    ]) {
      const headMask = [
        [1, 1],
        [1, 1],
      ];
      headMask[l][j] = 0;
      const masked = referenceModel(config, params).forward(tokens, B, { headMask }).logits;
      const wo = Float64Array.from(params[`layers.${l}.attn.wo`]);
      wo.fill(0, j * dk * config.dModel, (j + 1) * dk * config.dModel); // rows j d_k .. of Wo [d, d]
      const zeroed = referenceModel(config, { ...params, [`layers.${l}.attn.wo`]: wo }).forward(tokens, B).logits;
      // the same float64 sums with zero terms in place of the head's: equal to rounding (1e-12 of O(1) logits)
      for (let i = 0; i < masked.length; i++) expect(Math.abs(masked[i] - zeroed[i])).toBeLessThanOrEqual(1e-12);
      const all = referenceModel(config, params).forward(tokens, B).logits;
      expect(all.some((v, i) => Math.abs(v - masked[i]) > 1e-6)).toBe(true);
    }
  });

  test('one Adam step is Algorithm 1 of Kingma & Ba 2015, with global-norm clipping', () => {
    const config = CASES[1];
    const params = randomParams(config, 3);
    const { tokens, targets } = batchOf(config, 1, 5);
    const model = referenceModel(config, params);
    const { grads, gradNorm } = model.gradients(tokens, targets, 1);
    const state = {};
    const clip = gradNorm / 2;
    model.adamStep(grads, gradNorm, state, { lr: 0.01, clip });
    // Step 1: m = (1 - b1) g, v = (1 - b2) g^2, so m^ = g, v^ = g^2 and the
    // update is lr g / (|g| + eps) with g the clipped gradient (half of it here).
    const name = 'layers.0.attn.wq';
    for (let i = 0; i < 4; i++) {
      const g = grads[name][i] / 2;
      const want = params[name][i] - (0.01 * g) / (Math.abs(g) + 1e-8);
      expect(model.params[name][i]).toBeCloseTo(want, 12);
    }
    expect(state.step).toBe(1);
  });
});
