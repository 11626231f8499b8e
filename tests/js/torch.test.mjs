// The PyTorch reference cases (tests/data/torch, see its README.md) on every
// configuration: scaled dot-product attention, multi-head attention and the
// vector ops, with the README's tolerance |got - ref| <= 1e-5 + 1e-4 |ref|
// (its "looser check" with headroom; a float32 implementation that subtracts
// the row maximum meets 1e-6 + 1e-5 |ref|).
//
// Conventions converted here, in the test (data movement, no arithmetic):
// - PyTorch nn.Linear weights are [out, in]; the API takes W as [in, out], so
//   W_Q, W_K, W_V, W_O are transposed.
// - PyTorch MHA boolean attn_mask: true = masked out; the API's boolean mask:
//   true = may attend, so it is negated. key_padding_mask: true = ignored in
//   both.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, expectClose, init, listJson, num, readJson, reportSkipped } from './helpers.mjs';

const torchTol = (i, want) => 1e-5 + 1e-4 * Math.abs(want);

const get = (c, name) => c.inputs.find((t) => t.name === name);
const out = (c, name) => c.outputs.find((t) => t.name === name);
const f32 = (t) => ({ data: Float32Array.from(t.data.map(num)), shape: t.shape });
const bool = (t) => ({ data: t.data.map(Boolean), shape: t.shape });

function transposeSquare(t) {
  const [r, cdim] = t.shape;
  const data = new Float32Array(r * cdim);
  for (let i = 0; i < r; i++) for (let j = 0; j < cdim; j++) data[j * r + i] = num(t.data[i * cdim + j]);
  return { data, shape: [cdim, r] };
}

function run(ag, c) {
  const a = c.attributes;
  switch (c.op) {
    case 'Dot':
      return [['y', ag.dot(f32(get(c, 'a')).data, f32(get(c, 'b')).data), out(c, 'y')]];
    case 'L2Norm':
      return [['y', ag.norm(f32(get(c, 'a')).data), out(c, 'y')]];
    case 'CosineSimilarity':
      return [['y', ag.cosine(f32(get(c, 'a')).data, f32(get(c, 'b')).data), out(c, 'y')]];
    case 'ScalarProjection':
      return [['y', ag.scalarProjection(f32(get(c, 'a')).data, f32(get(c, 'b')).data), out(c, 'y')]];
    case 'ScaledDotProductAttention': {
      const opts = { scale: a.scale, returnWeights: true, returnScores: Boolean(out(c, 'scores')) };
      const m = get(c, 'attn_mask');
      if (m) opts.mask = m.dtype === 'bool' ? bool(m) : f32(m); // bool: true = attend, as in the API
      const r = ag.attention(f32(get(c, 'Q')), f32(get(c, 'K')), f32(get(c, 'V')), opts);
      const checks = [
        ['Y', r.output, out(c, 'Y')],
        ['attn_weights', r.weights, out(c, 'attn_weights')],
      ];
      if (out(c, 'scores')) checks.push(['scores', r.scores, out(c, 'scores')]);
      return checks;
    }
    case 'MultiHeadAttention': {
      const params = {};
      for (const w of ['Q', 'K', 'V', 'O']) {
        params[`w${w}`] = transposeSquare(get(c, `W_${w}`)); // [out, in] -> [in, out]
        if (get(c, `b_${w}`)) params[`b${w}`] = f32(get(c, `b_${w}`));
      }
      const opts = { numHeads: a.num_heads, returnWeights: true };
      const m = get(c, 'attn_mask');
      if (m) {
        // PyTorch MHA: true = not allowed; the API: true = may attend.
        opts.mask = m.dtype === 'bool' ? { data: m.data.map((x) => !x), shape: m.shape } : f32(m);
      }
      const kpm = get(c, 'key_padding_mask');
      if (kpm) opts.keyPaddingMask = bool(kpm); // true = ignored in both
      const r = ag.multiHeadAttention(
        { query: f32(get(c, 'query')), key: f32(get(c, 'key')), value: f32(get(c, 'value')) },
        params,
        opts,
      );
      return [
        ['attn_output', r.output, out(c, 'attn_output')],
        ['attn_weights', r.weights, out(c, 'attn_weights')],
      ];
    }
    default:
      return null;
  }
}

const cases = listJson('torch').map((f) => ({ file: f.replace(/\.json$/, ''), ...readJson(`torch/${f}`) }));
const COVERED = new Set([
  'Dot',
  'L2Norm',
  'CosineSimilarity',
  'ScalarProjection',
  'ScaledDotProductAttention',
  'MultiHeadAttention',
]);

test('the torch data is all there (88 cases, README.md)', () => {
  expect(cases.length).toBe(88);
});

describe.each(CONFIGS)('PyTorch reference cases: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });
  for (const c of cases) {
    if (!COVERED.has(c.op)) {
      test.skip(`${c.file} (${c.op}) skipped, missing feature: op ${c.op}`, () => {});
      continue;
    }
    test(`${c.file} (${c.op})`, () => {
      for (const [label, got, want] of run(ag, c)) {
        if (typeof got === 'number') {
          expect(want.shape).toEqual([]);
          expectClose(got, num(want.data[0]), torchTol, `${c.file}: ${label}`);
        } else {
          expect([label, got.shape]).toEqual([label, want.shape]);
          expectClose(got.data, want.data.map(num), torchTol, `${c.file}: ${label}`);
        }
      }
    });
  }
});

afterAll(() => {
  reportSkipped(
    'PyTorch cases (tests/data/torch)',
    cases.filter((c) => !COVERED.has(c.op)).map((c) => [c.file, `op ${c.op}`]),
  );
});
