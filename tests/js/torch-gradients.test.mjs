// The PyTorch gradient cases (tests/data/torch-gradients, see its README.md)
// on every configuration: attentionBackward and softmaxBackward against
// torch.autograd's float64 gradients of the same float32 inputs (rounded to
// float32). The tolerance is registry.inc's bound (attention_backward,
// softmax_backward), evaluated with the magnitudes of the float64 reference
// of tests/reference/float64.mjs on the case's inputs, plus the rounding of
// the stored value to float32 (u |ref|). Every case is listed (test.each).
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, expectClose, init, listJson, num, readJson } from './helpers.mjs';

const { U, clog2 } = ref;
// The folder also holds the layer kernels' cases (tests/js/layers.test.mjs runs those).
const FILES = listJson('torch-gradients').filter((f) => /^(attention|softmax)_/.test(f));
const CASES = FILES.map((f) => [f.replace(/\.json$/, ''), readJson(`torch-gradients/${f}`)]);

const get = (c, name) => c.inputs.find((t) => t.name === name);
const out = (c, name) => c.outputs.find((t) => t.name === name);
const f32 = (t) => ({ data: Float32Array.from(t.data.map(num)), shape: t.shape });

/** The registry bound of every element of dQ, dK, dV for a case (slices of [B, h, T, d]). */
function attentionBounds(c, variant) {
  const [Q, K, V, dY] = ['Q', 'K', 'V', 'dOutput'].map((n) => f32(get(c, n)));
  const [B, H, Tq, dk] = Q.shape;
  const [, Hkv, Tk] = K.shape;
  const dv = V.shape[3];
  const group = H / Hkv;
  const mask = get(c, 'mask');
  const bounds = { dQ: [], dK: new Array(K.data.length).fill(0), dV: new Array(V.data.length).fill(0) };
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / group);
      const sub = (t, n, w) => Array.from(t.data.subarray(n * w, (n + 1) * w));
      let maskAt = null;
      if (mask && c.attributes.mask === 'additive') maskAt = (i, j) => num(mask.data[((b * H + h) * Tq + i) * Tk + j]);
      if (mask && c.attributes.mask === 'boolean') maskAt = (i, j) => (mask.data[b * Tk + j] ? 0 : -Infinity);
      const opts = { scale: c.attributes.scale, causal: c.attributes.causal, maskAt };
      const g = ref.attentionGradients(
        sub(Q, b * H + h, Tq * dk),
        sub(K, b * Hkv + hk, Tk * dk),
        sub(V, b * Hkv + hk, Tk * dv),
        sub(dY, b * H + h, Tq * dv),
        Tq,
        Tk,
        dk,
        dv,
        opts,
      );
      const bound = ref.attentionGradientBounds(g, Tq, Tk, dk, dv, variant, { shared: group });
      bounds.dQ.push(...bound.dQ);
      bound.dK.forEach((x, n) => (bounds.dK[(b * Hkv + hk) * Tk * dk + n] += x));
      bound.dV.forEach((x, n) => (bounds.dV[(b * Hkv + hk) * Tk * dv + n] += x));
    }
  return bounds;
}

describe.each(CONFIGS)('PyTorch gradients: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test('the cases are there', () => {
    expect(CASES.length).toBe(10);
  });

  test.each(CASES)('%s', (name, c) => {
    if (c.op === 'SoftmaxBackward') {
      const w = f32(get(c, 'weights'));
      const dw = f32(get(c, 'dWeights'));
      const got = ag.softmaxBackward(w, dw);
      const [rows, n] = w.shape;
      const r = ref.softmaxBackward(w.data, dw.data, rows, n);
      const want = out(c, 'dLogits').data.map(num);
      const tol = r.sAbs.map(
        (s, i) => (2 * clog2(n) + 1) * U * s + 2 * U * r.dAbs[i] + 2 ** -149 + U * Math.abs(want[i]),
      );
      expect(got.shape).toEqual(w.shape);
      expectClose(got.data, want, tol, `${name} dLogits`);
      return;
    }
    expect(c.op).toBe('AttentionBackward');
    const opts = { scale: c.attributes.scale, causal: c.attributes.causal };
    const m = get(c, 'mask');
    if (m) opts.mask = m.dtype === 'bool' ? { data: m.data.map(Boolean), shape: m.shape } : f32(m);
    const got = ag.attentionBackward(
      f32(get(c, 'Q')),
      f32(get(c, 'K')),
      f32(get(c, 'V')),
      f32(get(c, 'dOutput')),
      opts,
    );
    const bounds = attentionBounds(c, cfg.variant);
    for (const g of ['dQ', 'dK', 'dV']) {
      const want = out(c, g).data.map(num);
      expect(got[g].shape).toEqual(out(c, g).shape);
      expectClose(got[g].data, want, (i, w) => bounds[g][i] + U * Math.abs(w), `${name} ${g}`);
    }
  });
});
