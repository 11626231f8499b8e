// createTransformer (src/js/transformer.js; the model is the family
// "transformer" of registry.inc) on every build and variant: the forward pass,
// the loss and every gradient against the float64 reference model
// (tests/reference/transformer.mjs) run on the model's own parameters, one
// Adam step against Algorithm 1 of Kingma & Ba 2015, heads switched off by a
// head mask, determinism, the parameters' round trip, dispose and bad configs
// and batches.
//
// Tolerances. The model composes kernels whose bounds have the form
// |error| <= c u sum |terms| (registry.inc): each product of a sum is off by at
// most c u relatively. The reference model is run again with every such term,
// and every result of a kernel, multiplied by (1 + e), e = +-c u with random
// signs (its `noise` option), c = Kmax + 10 covering the longest sum: the simd128
// GEMM's min(K, 256) + ceil(K / 256) for the largest contraction Kmax of the
// model (d_model, 4 d_model, vocab or B T rows), and the layer norm's and
// attention's constant terms (at most 9 + 2 ceil(log2 n)). The largest
// deviation of the perturbed outputs from the exact ones, over 4 draws, times
// 4 (random signs are not the worst case: their effect grows about as the
// square root of the worst case's), is the normwise tolerance of each output
// tensor; the float32 model must be within it, elementwise. The variants sum
// in different orders, so they are compared with the reference, not with each
// other.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init } from './helpers.mjs';
import { referenceModel, referenceWithTolerance } from '../reference/transformer.mjs';
import { U, rng } from '../reference/float64.mjs';

const CASES = [
  { vocab: 7, T: 5, dModel: 8, heads: 2, layers: 1, mlp: false, norm: 'none' },
  { vocab: 7, T: 5, dModel: 8, heads: 4, layers: 2, mlp: true, norm: 'layer' },
  { vocab: 6, T: 4, dModel: 4, heads: 1, layers: 1, mlp: true, norm: 'layer', scaleScores: false },
  { vocab: 5, T: 6, dModel: 12, heads: 3, layers: 2, mlp: false, norm: 'layer' },
];
const B = 2;

function batchOf(config, seed) {
  const r = rng(seed);
  const tokens = Int32Array.from({ length: B * config.T }, () => Math.floor(r() * config.vocab));
  const targets = Int32Array.from({ length: B * config.T }, () => Math.floor(r() * config.vocab));
  targets[1] = -1;
  targets[config.T + 2] = -1;
  return { tokens, targets };
}

function expectWithin(got, want, tol, label) {
  let worst = null;
  for (let i = 0; i < want.length; i++) {
    const diff = Math.abs(got[i] - want[i]);
    if (!(diff <= tol) && (!worst || diff > worst.diff)) worst = { label, i, got: got[i], want: want[i], diff, tol };
  }
  expect(worst).toBeNull();
}

describe.each(CONFIGS)('createTransformer: $label', ({ options }) => {
  let ag;
  beforeAll(async () => {
    ag = await init(options);
  });

  test.each(CASES.map((c) => [JSON.stringify(c), c]))(
    'forward, loss and gradients = float64 reference within the derived bound: %s',
    (_, config) => {
      const model = ag.createTransformer({ ...config, seed: 9 });
      const params = model.parameters();
      const batch = batchOf(config, 4);
      const { want, tol } = referenceWithTolerance(config, params, batch.tokens, batch.targets, B);
      expectWithin(model.forward(batch.tokens).logits.data, want.logits, tol.logits, 'logits');
      const got = model.gradients(batch);
      expectWithin([got.loss], [want.loss], tol.loss, 'loss');
      expect(got.scored).toBe(B * config.T - 2);
      expect(got.accuracy).toBeCloseTo(want.accuracy, 6);
      for (const [name, g] of Object.entries(want.grads)) {
        expectWithin(got.gradients[name], g, tol[name], name);
        // the per-parameter norm is the norm kernel of the gradient (relative bound (ceil(log2 n) + 2) u)
        let sq = 0;
        for (const v of got.gradients[name]) sq += v * v;
        expect(Math.abs(got.gradNorms[name] - Math.sqrt(sq))).toBeLessThanOrEqual(20 * U * Math.sqrt(sq));
      }
      expect(Object.keys(got.gradNorms)).toEqual(model.layout.map((p) => p.name));
      const ev = model.evaluate(batch);
      expect(ev.loss).toBe(got.loss);
      expect(ev.accuracy).toBe(got.accuracy);
      model.dispose();
    },
  );

  test('returnWeights and returnQK: causal rows summing to 1, q and k of the reference', () => {
    const config = CASES[1];
    const model = ag.createTransformer({ ...config, seed: 2 });
    const batch = batchOf(config, 8);
    const out = model.forward(batch.tokens, { returnWeights: true, returnQK: true });
    const ref = referenceModel(config, model.parameters()).forward(batch.tokens, B);
    expect(out.logits.shape).toEqual([B, config.T, config.vocab]);
    expect(out.weights).toHaveLength(config.layers);
    for (let l = 0; l < config.layers; l++) {
      const w = out.weights[l];
      expect(w.shape).toEqual([B, config.heads, config.T, config.T]);
      for (let row = 0; row < B * config.heads * config.T; row++) {
        const t = row % config.T;
        let s = 0;
        for (let j = 0; j < config.T; j++) {
          const a = w.data[row * config.T + j];
          if (j > t) expect(a).toBe(0);
          s += a;
        }
        expect(Math.abs(s - 1)).toBeLessThanOrEqual(16 * U);
      }
      // q, k: a matmul over d_model after at most l layers; 1e-4 relative to the largest entry is far
      // above float32's error for these sizes (d_model 8) and far below a wrong column.
      for (const [key, refKey] of [
        ['q', 'q'],
        ['k', 'k'],
      ]) {
        expect(out[key][l].shape).toEqual([B, config.T, config.dModel]);
        const m = Math.max(...ref[refKey][l].map(Math.abs));
        expectWithin(out[key][l].data, ref[refKey][l], 1e-4 * m, `${key}[${l}]`);
      }
      const m = Math.max(...ref.weights[l]);
      expectWithin(w.data, ref.weights[l], 1e-4 * m, `weights[${l}]`);
    }
    model.dispose();
  });

  test('headMask: forward and evaluate = the float64 reference with those heads off; bad masks', () => {
    const config = CASES[1]; // 2 layers, 4 heads
    const model = ag.createTransformer({ ...config, seed: 6 });
    const params = model.parameters();
    const batch = batchOf(config, 12);
    const rows = B * config.T;
    const ones = [
      [1, 1, 1, 1],
      [1, 1, 1, 1],
    ];
    // a mask of ones runs the same sums as no mask: the same bits
    expect(model.forward(batch.tokens, { headMask: ones }).logits).toEqual(model.forward(batch.tokens).logits);
    expect(model.evaluate(batch, { headMask: ones.flat() })).toEqual(model.evaluate(batch));
    // layer 0's head 0 off; layer 1's heads 1 and 2 off; every head off
    for (const text of ['0111;1111', '1111;1001', '0000;0000']) {
      const headMask = text.split(';').map((row) => Array.from(row, Number));
      const exact = referenceModel(config, params);
      const wantLogits = exact.forward(batch.tokens, B, { headMask }).logits;
      const want = exact.lossOf(wantLogits, batch.targets, rows);
      // Tolerances as in expected() above: the spread of the perturbed reference, 4 draws, times 4.
      const c = Math.max(4 * config.dModel, config.vocab, rows) + 10;
      let devLogits = 0;
      let devLoss = 0;
      for (let draw = 0; draw < 4; draw++) {
        const r = rng(200 + draw);
        const noisy = referenceModel(config, params, { noise: () => (r() < 0.5 ? -c : c) * U });
        const logits = noisy.forward(batch.tokens, B, { headMask }).logits;
        for (let i = 0; i < logits.length; i++) devLogits = Math.max(devLogits, Math.abs(logits[i] - wantLogits[i]));
        devLoss = Math.max(devLoss, Math.abs(noisy.lossOf(logits, batch.targets, rows).loss - want.loss));
      }
      const out = model.forward(batch.tokens, { headMask, returnWeights: true });
      expectWithin(out.logits.data, wantLogits, 4 * devLogits, `logits, mask ${headMask}`);
      const ev = model.evaluate(batch, { headMask });
      expectWithin([ev.loss], [want.loss], 4 * devLoss, `loss, mask ${headMask}`);
      expect(ev.accuracy).toBeCloseTo(want.accuracy, 6);
      // a switched-off head still computes its weights: the first layer's are those without a mask
      expect(out.weights[0]).toEqual(model.forward(batch.tokens, { returnWeights: true }).weights[0]);
    }
    // switching a head off changes the loss
    expect(model.evaluate(batch, { headMask: [0, 1, 1, 1, 1, 1, 1, 1] }).loss).not.toBe(model.evaluate(batch).loss);
    const bad = [
      [
        [1, 1, 1, 1],
        RangeError,
        /options.headMask must be 2 arrays of 4 \(layers x heads\) or 8 numbers; got 4 numbers/,
      ],
      [[[1, 1, 1, 1]], RangeError, /options.headMask must be 2 arrays of 4.*got 1 arrays/],
      [
        [
          [1, 1, 1],
          [1, 1, 1, 1],
        ],
        RangeError,
        /options.headMask\[0\] must be an array of heads = 4 numbers/,
      ],
      [
        [1, 1, 1, 1, 1, 1, 1, 0.5],
        RangeError,
        /options.headMask must hold 0 \(head off\) or 1 \(head on\); got number 0.5 at \[1, 3\]/,
      ],
      [[1, 1, NaN, 1, 1, 1, 1, 1], RangeError, /options.headMask must hold 0.*at \[0, 2\]/],
      ['1111', TypeError, /options.headMask must be 2 arrays of 4/],
      [7, TypeError, /options.headMask must be/],
    ];
    for (const [headMask, type, message] of bad) {
      expect(() => model.forward(batch.tokens, { headMask })).toThrow(type);
      expect(() => model.forward(batch.tokens, { headMask })).toThrow(message);
      expect(() => model.evaluate(batch, { headMask })).toThrow(message);
    }
    expect(() => model.evaluate(batch, { headmask: ones })).toThrow(/unknown key 'headmask'/);
    expect(model.evaluate(batch).loss).toBe(model.evaluate(batch, {}).loss);
    model.dispose();
  });

  test('one Adam step is Algorithm 1 on the model gradients; clip scales them', () => {
    const config = CASES[1];
    const batch = batchOf(config, 3);
    for (const clip of [undefined, 0.5]) {
      const model = ag.createTransformer({ ...config, seed: 4 });
      const before = model.parameters();
      const { gradients, gradNorm } = model.gradients(batch);
      const r = model.step(batch, { lr: 0.01, clip });
      expect(r.gradNorm).toBe(gradNorm);
      const after = model.parameters();
      const c = clip && gradNorm > clip ? clip / gradNorm : 1;
      // Step 1: m^ = g, v^ = g^2, so p' = p - lr g / (|g| + eps) (g scaled by c). adam_update's bound
      // (registry.inc), with m' = 0.1 g, M = 0.1 |g| and sqrt(v'/(1 - b2)) = |g|, is u |p'| + 14 u lr;
      // c g is one more rounding of g (u relatively, at most u lr more): 16 u (|p| + lr) covers them.
      for (const [name, p] of Object.entries(before)) {
        for (let i = 0; i < p.length; i++) {
          const g = c * gradients[name][i];
          const want = p[i] - (0.01 * g) / (Math.abs(g) + 1e-8);
          expect(Math.abs(after[name][i] - want)).toBeLessThanOrEqual(16 * U * (Math.abs(p[i]) + 0.01));
        }
      }
      expect(model.steps).toBe(1);
      model.dispose();
    }
  });

  test('same seed, same numbers bit for bit; another seed, other numbers', () => {
    const config = { vocab: 8, T: 6, dModel: 8, heads: 2, layers: 2, mlp: true };
    const batch = batchOf(config, 5);
    const run = (seed) => {
      const model = ag.createTransformer({ ...config, seed });
      const losses = [];
      for (let i = 0; i < 3; i++) losses.push(model.step(batch, { lr: 0.01, clip: 1 }).loss);
      const out = { losses, params: model.parameters(), logits: model.forward(batch.tokens).logits.data };
      model.dispose();
      return out;
    };
    const a = run(7);
    const b = run(7);
    expect(b).toEqual(a);
    expect(a.losses[2]).toBeLessThan(a.losses[0]);
    expect(run(8).params['layers.0.attn.wq']).not.toEqual(a.params['layers.0.attn.wq']);
  });

  test('parameters() round-trips through JSON into another model; dispose frees everything', () => {
    const config = { vocab: 6, T: 4, dModel: 4, heads: 2, layers: 1 };
    const heap = ag.heapAllocatedBytes();
    const a = ag.createTransformer({ ...config, seed: 1 });
    const b = ag.createTransformer({ ...config, seed: 2 });
    const json = JSON.stringify(a.parameters()); // each tensor written as an array of numbers
    b.loadParameters(JSON.parse(json));
    expect(b.parameters()).toEqual(a.parameters());
    const tokens = [
      [0, 1, 2, 3],
      [5, 4, 3, 2],
    ];
    expect(b.forward(tokens).logits).toEqual(a.forward(tokens).logits);
    expect(Object.isFrozen(a.config)).toBe(true);
    expect(a.config).toEqual({ ...config, mlp: true, norm: 'layer', scaleScores: true, seed: 1 });
    expect(() => b.loadParameters({ ...a.parameters(), extra: [1] })).toThrow(/unknown parameter 'extra'/);
    const { unembed, ...missing } = a.parameters();
    expect(unembed).toHaveLength(24);
    expect(() => b.loadParameters(missing)).toThrow(/params has no parameter 'unembed' \[4,6\]/);
    const short = { ...a.parameters(), unembed: [1, 2] };
    expect(() => b.loadParameters(short)).toThrow(/params\['unembed'\] must hold 24 numbers/);
    expect(() => b.loadParameters({ ...a.parameters(), unembed: new Float32Array(24).fill(NaN) })).toThrow(RangeError);
    a.dispose();
    b.dispose();
    a.dispose();
    expect(ag.heapAllocatedBytes()).toBe(heap);
    expect(() => a.step({ tokens, targets: tokens }, { lr: 0.1 })).toThrow(/disposed/);
    expect(() => a.parameters()).toThrow(/disposed/);
  });

  test('an Adam step that would overflow float32 is refused and changes nothing', () => {
    const model = ag.createTransformer({ vocab: 5, T: 4, dModel: 8, heads: 2, seed: 3 });
    const batch = { tokens: [0, 1, 2, 3], targets: [-1, 0, 1, 2] };
    model.step(batch, { lr: 0.01 });
    const before = model.parameters();
    const loss = model.evaluate(batch).loss;
    // Options that round to 0 (lr, eps) or to 1 (beta2) in float32, where the kernel computes.
    expect(() => model.step(batch, { lr: 0.01, eps: 1e-50 })).toThrow(/options\.eps is 1e-50, which is 0 in float32/);
    expect(() => model.step(batch, { lr: 1e-50 })).toThrow(/options\.lr is 1e-50, which is 0 in float32/);
    expect(() => model.step(batch, { lr: 0.01, beta2: 0.99999999 })).toThrow(
      /options\.beta2 must be in \[0, 1\) in float32/,
    );
    // A finite lr whose update leaves float32 (the first step moves each entry by about lr).
    expect(() => model.step(batch, { lr: 1e38 })).toThrow(/would overflow float32.*unchanged; lower options\.lr/);
    expect(model.steps).toBe(1);
    expect(model.parameters()).toEqual(before);
    expect(model.evaluate(batch).loss).toBe(loss);
    model.step(batch, { lr: 0.01 }); // and it trains on
    expect(model.steps).toBe(2);
    model.dispose();
  });

  test('scores that overflow float32 are a RangeError naming the first score, not NaN', () => {
    // norm 'none' (no layer norm rescales the input): token embeddings of 1e3 and W_Q, W_K entries of
    // 1e18 make each entry of q and k about 8e21 and each q·k (d_k = 4) about 2.6e44, far past
    // float32's 3.4e38, from finite parameters.
    const model = ag.createTransformer({ vocab: 5, T: 4, dModel: 8, heads: 2, seed: 3, norm: 'none' });
    const p = model.parameters();
    const params = { ...p, 'embed.token': p['embed.token'].map(() => 1e3) };
    for (const name of ['layers.0.attn.wq', 'layers.0.attn.wk']) params[name] = p[name].map(() => 1e18);
    model.loadParameters(params);
    const batch = { tokens: [0, 1, 2, 3], targets: [-1, 0, 1, 2] };
    for (const call of [() => model.evaluate(batch), () => model.gradients(batch)])
      expect(call).toThrow(
        /: the attention scores\[0, 0, 0, 0\] overflowed float32 .*\(the shape of the attention scores is \[1, 2, 4, 4\]\); the first such score of the layers is named/,
      );
    model.loadParameters(p); // and the model is usable again
    expect(Number.isFinite(model.evaluate(batch).loss)).toBe(true);
    model.dispose();
  });

  test("a layer norm's variance that overflows float32 is a RangeError naming the layer and row; nothing changes", () => {
    // Token 0's embedding holds s and -s: the sum of squares that the two-pass variance forms before dividing by
    // dModel is at least 2 s^2 (float64), past float32's largest value for s = 1.4e19 and 3.4e38 (finite
    // parameters), in range for s = 1e19.
    const config = { vocab: 8, T: 4, dModel: 8, heads: 2, layers: 1, mlp: true, seed: 1 };
    const FLT_MAX = 3.4028234663852886e38;
    const model = ag.createTransformer(config);
    const p = model.parameters();
    const batch = { tokens: [0, 2, 3, 4], targets: [2, 3, 4, 5] };
    const withRow = (name, s) => {
      const e = Array.from(p[name]);
      e[0] = s;
      e[1] = -s;
      return { ...p, [name]: e };
    };
    model.loadParameters(withRow('embed.token', 1e19));
    expect(2 * 1e19 ** 2).toBeLessThan(FLT_MAX);
    expect(model.forward([[0, 2, 3, 4]]).logits.data.every(Number.isFinite)).toBe(true);
    for (const s of [1.4e19, 3.4e38]) {
      expect(2 * s ** 2).toBeGreaterThan(FLT_MAX);
      const params = withRow('embed.token', s);
      model.loadParameters(params);
      const before = model.parameters();
      const want =
        /: the variance of layer 0's ln1 input row 0 \(batch 0, position 0\) overflowed float32 .*the parameters are left as they were/;
      expect(() => model.forward([[0, 2, 3, 4]])).toThrow(want);
      expect(() => model.evaluate(batch)).toThrow(want);
      expect(() => model.gradients(batch)).toThrow(want);
      expect(() => model.step(batch, { lr: 0.01 })).toThrow(want);
      expect(model.steps).toBe(0);
      expect(model.parameters()).toEqual(before);
      // Token 0 first at position 2: the first row is batch 0, position 2.
      expect(() => model.forward([[1, 2, 0, 4]])).toThrow(/ln1 input row 2 \(batch 0, position 2\)/);
      expect(() =>
        model.forward([
          [1, 2, 3, 4],
          [5, 0, 3, 4],
        ]),
      ).toThrow(/ln1 input row 5 \(batch 1, position 1\)/);
    }
    // The last layer's b2 is added to every row of the final layer norm's input.
    model.loadParameters(withRow('layers.0.mlp.b2', 1e20));
    expect(() => model.forward([[1, 2, 3, 4]])).toThrow(/: the variance of lnf input row 0 \(batch 0, position 0\)/);
    model.loadParameters(p); // and the model is usable again
    expect(Number.isFinite(model.step(batch, { lr: 0.01 }).loss)).toBe(true);
    model.dispose();
  });

  test('a backward pass that overflows float32 after a finite forward is a RangeError; nothing changes', () => {
    // Weights and embeddings scaled by 1e-4 give each row of lnf's input a variance far below eps, so its
    // rstd is near 1 / sqrt(eps); unembed entries up to 3e37 in alternating signs give finite logits but a
    // gradient into lnf's input, times that rstd, beyond float32.
    const config = { vocab: 8, T: 4, dModel: 8, heads: 2, layers: 1, mlp: true, seed: 1 };
    const FLT_MAX = 3.4028234663852886e38;
    const model = ag.createTransformer(config);
    const p = model.parameters();
    const params = {};
    for (const [name, v] of Object.entries(p)) {
      if (name === 'unembed')
        params[name] = Array.from(v, (_, i) => ((Math.floor(i / 8) + (i % 8)) % 2 ? 1 : -1) * ((i % 8) + 1) * 3.75e36);
      else params[name] = name.includes('ln') ? Array.from(v) : Array.from(v, (x) => x * 1e-4);
    }
    model.loadParameters(params);
    const batch = { tokens: [0, 2, 3, 4], targets: [2, 3, 4, 5] };
    // float64: the loss is finite, but the gradient of embed.token (the first tensor of the layout) is not in float32.
    const want = referenceModel(model.config, model.parameters()).gradients(
      Int32Array.from(batch.tokens),
      Int32Array.from(batch.targets),
      1,
    );
    expect(want.loss).toBeLessThan(FLT_MAX);
    expect(Math.max(...want.grads['embed.token'].map(Math.abs))).toBeGreaterThan(FLT_MAX);
    expect(Number.isFinite(model.evaluate(batch).loss)).toBe(true);
    const before = model.parameters();
    const err = /: the gradient of embed\.token overflowed float32 in the backward pass .*left as they were/;
    expect(() => model.gradients(batch)).toThrow(err);
    expect(() => model.step(batch, { lr: 0.01 })).toThrow(err);
    expect(model.steps).toBe(0);
    expect(model.parameters()).toEqual(before);
    model.dispose();
  });

  test('bad configs and batches: named RangeError/TypeError; the module stays usable', () => {
    const heap = ag.heapAllocatedBytes();
    const base = { vocab: 5, T: 4, dModel: 8, heads: 2 };
    const bad = [
      [{ ...base, heads: 3 }, /config.heads must divide config.dModel/],
      [{ ...base, T: 0 }, /config.T must be between 1 and 4096/],
      [{ ...base, vocab: -1 }, /config.vocab must be between 1/],
      [{ ...base, vocab: 2.5 }, /config.vocab must be an integer/],
      [{ ...base, dModel: 1e6 }, /config.dModel must be between 1 and 4096/],
      [{ ...base, layers: 65 }, /config.layers must be between 1 and 64/],
      [{ ...base, norm: 'batch' }, /config.norm must be 'layer' or 'none'/],
      [{ ...base, mlp: 1 }, /config.mlp must be true or false/],
      [{ ...base, heads: 0 }, /config.heads must be between 1/],
      [{ ...base, vocab: 65536, dModel: 4096, T: 4096, layers: 8 }, /512 MiB.*1 GiB/],
      [{ ...base, width: 3 }, /unknown key 'width'/],
    ];
    for (const [config, message] of bad) expect(() => ag.createTransformer(config)).toThrow(message);
    expect(() => ag.createTransformer({ ...base, heads: 3 })).toThrow(RangeError);
    expect(() => ag.createTransformer({ ...base, T: 1.5 })).toThrow(TypeError);
    const model = ag.createTransformer(base);
    const ok = { tokens: [0, 1, 2, 3], targets: [1, 2, 3, -1] };
    const badBatches = [
      [{ ...ok, tokens: [0, 1, 2, 5] }, /batch.tokens must hold integers in 0..4; got number 5 at \[0, 3\]/],
      [{ ...ok, tokens: [0, 1, 2] }, /batch.tokens must hold B \* T tokens, a positive multiple of T = 4; got 3/],
      [{ ...ok, targets: [1, 2, 3, -2] }, /batch.targets must hold integers in -1..4/],
      [{ ...ok, targets: [1, 2, 3, -1, 0, 0, 0, 0] }, /batch.targets must have the shape of batch.tokens/],
      [{ ...ok, tokens: [[0, 1, 2]] }, /batch.tokens\[0\] must be an array of T = 4 tokens/],
      [{ ...ok, tokens: [0.5, 1, 2, 3] }, RangeError],
    ];
    for (const [batch, message] of badBatches) {
      expect(() => model.step(batch, { lr: 0.1 })).toThrow(message);
      expect(() => model.evaluate(batch)).toThrow(message);
    }
    expect(() => model.forward([9, 0, 0, 0])).toThrow(/tokens must hold integers in 0..4/);
    expect(() => model.step(ok, { lr: 0 })).toThrow(/options.lr must be > 0/);
    expect(() => model.step(ok, { lr: 0.1, optimizer: 'sgd' })).toThrow(/optimizer must be 'adam'/);
    expect(() => model.step(ok, { lr: 0.1, beta1: 1 })).toThrow(/beta1 must be in \[0, 1\)/);
    expect(() => model.step(ok, { lr: 0.1, momentum: 1 })).toThrow(/unknown key 'momentum'/);
    expect(model.steps).toBe(0);
    expect(Number.isFinite(model.step(ok, { lr: 0.1 }).loss)).toBe(true);
    model.dispose();
    expect(ag.heapAllocatedBytes()).toBe(heap);
    expect(ag.dot([3, 4], [4, 3])).toBe(24);
  });
});

describe('createTransformer across builds', () => {
  let simd;
  let baseline;
  beforeAll(async () => {
    simd = await init({ simd: true });
    baseline = await init({ simd: false });
  });
  afterAll(() => {
    simd = baseline = null;
  });
  test('the same seed gives the same initial parameters, bit for bit, in both builds', () => {
    const config = { vocab: 9, T: 5, dModel: 8, heads: 2, layers: 2, seed: 123456789 };
    const a = simd.createTransformer(config);
    const b = baseline.createTransformer(config);
    expect(b.parameters()).toEqual(a.parameters());
    expect(a.layout).toEqual(b.layout);
    // N(0, 1/fan_in): the weights' spread is about 1/sqrt(d_model) (here 64 draws each, within 40 %)
    const wq = a.parameters()['layers.0.attn.wq'];
    const sd = Math.sqrt(wq.reduce((s, v) => s + v * v, 0) / wq.length);
    expect(Math.abs(sd * Math.sqrt(8) - 1)).toBeLessThan(0.4);
    expect(a.parameters()['layers.0.ln1.gamma']).toEqual(new Float32Array(8).fill(1));
    a.dispose();
    b.dispose();
  });
});
