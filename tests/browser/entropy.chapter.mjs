// "Entropy of the weights" (#ch-entropy, <ag-weight-entropy>): the
// temperature slider (keys and presets), values dragged and keyed, T from
// buttons and the URL; softmax(s / τ), its entropy in bits, log₂T, y and the
// centroid against a float64 reference; the article's hard-pointer and
// mean-pooling cases from tests/data/seeds/worked-examples.json. The links of T = 4 and T = 8 are opened as
// links: the contract's round trip (after the reveal) has T = 3.
import { expect } from '@jest/globals';
import { entropyBits, softmax } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, expectRole, expectSeed, expectShown, one } from './chapter-tests.mjs';
import { rowsOf } from './chapter-tests.mjs';

/** The chapter's fixed logits, restated here (the first T are used). */
const S = [1, 0.5, 2, -1, 1.5, 0, -0.5, 0.25];
const ARTICLE_V = rowsOf('1,0;0,1;1,1');

/** float64 reference: softmax(s / tau), entropy in bits, y and the centroid. */
function reference(values, logt) {
  const T = values.length;
  const tau = 10 ** logt;
  const z = S.slice(0, T).map((s) => s / tau);
  const alpha = softmax(z, 1, T);
  const H = entropyBits(alpha);
  const y = [0, 1].map((i) => values.reduce((acc, v, j) => acc + alpha[j] * v[i], 0));
  const centroid = [0, 1].map((i) => values.reduce((acc, v) => acc + v[i], 0) / T);
  return { alpha, H, Hmax: Math.log2(T), y, centroid };
}

function match(numbers, values, logt) {
  const ref = reference(values, logt);
  expect(byRole(numbers, 'alpha')).toHaveLength(values.length);
  // float32 softmax of s / tau: a few units of roundoff relative to each weight, plus the 1/T spread near uniform.
  expectRole(numbers, 'alpha', ref.alpha, (a) => 1e-6 * a + 1e-7, { extra: 1e-6 });
  const H = one(numbers, 'entropy');
  expectClose(H.value, ref.H, 1e-5, 'entropy');
  expectShown(H, ref.H, { extra: 1e-5 });
  const Hmax = one(numbers, 'entropy-max');
  expectClose(Hmax.value, ref.Hmax, 1e-5, 'log2 T');
  expect(H.value).toBeLessThanOrEqual(Hmax.value + 1e-6);
  const span = values.reduce((acc, v) => acc + Math.abs(v[0]) + Math.abs(v[1]), 0);
  for (const role of ['y', 'centroid'])
    expectRole(numbers, role, ref[role], 2e-6 * span + 1e-7, { extra: 2e-6 * span });
  expect(one(numbers, 'dv').value).toBe(2); // d_v kept
  return ref;
}

const regime = (w) => w.attr('.status', 'data-regime');
const it = chapterTests({ ch: 'entropy', tag: 'ag-weight-entropy', match });

it('opens at tau = 1 on the article values, matching the reference; predict, then reveal: the flat end has log2 3 bits', async (w) => {
  await w.matches(ARTICLE_V, 0);
  await expect(regime(w)).resolves.toBe('between');
  expect(await w.katex()).toBeGreaterThanOrEqual(2);
  await w.reveal({ wrong: '3', says: /H = 1\.585 bits/, part: { logt: 9 }, args: [ARTICLE_V, 9], right: '1.585' });
});

it("the article's hard pointer and mean pooling: the two ends of the slider (worked examples)", async (w) => {
  const preset = async (action, logt) => {
    await w.at(`button[data-action="${action}"]`).click();
    expect((await w.state()).logt).toBe(logt);
    return (await w.matches(ARTICLE_V, logt)).numbers;
  };
  let numbers = await preset('pointer', -3);
  const value = (role) => byRole(numbers, role).map((n) => n.value);
  // One-hot on the largest logit (s3 = 2), as in the article's alpha = (0, 0, 1): y is v3 exactly.
  const hp = expectSeed('hard-pointer', value('y'));
  expect(hp.inputs.V).toEqual(ARTICLE_V);
  expect(value('alpha')).toEqual(hp.inputs.alpha);
  expect(one(numbers, 'entropy').value).toBe(0);
  await expect(regime(w)).resolves.toBe('pointer');
  await w.logged();

  numbers = await preset('uniform', 9);
  const mp = expectSeed('mean-pooling', value('y'));
  expect(mp.inputs.V).toEqual(ARTICLE_V);
  value('alpha').forEach((a, j) => expectClose(a, mp.inputs.alpha[j], 1e-7, `uniform alpha${j + 1}`));
  expect(value('y')).toEqual(value('centroid'));
  expectClose(one(numbers, 'entropy').value, Math.log2(3), 1e-6, 'entropy at the flat end');
  await expect(regime(w)).resolves.toBe('uniform');
  await w.logged();
});

it('keys on the slider, a dragged and a keyed value, a fourth value: reference each time; the URL reopens it', async (w) => {
  await w.press('input#we-logt', 'ArrowLeft', 6); // 6 steps of 0.05
  const { logt } = await w.state();
  expect(logt).toBeCloseTo(-0.3, 12);
  await w.matches(ARTICLE_V, logt);
  await expect(w.text('[aria-live]')).resolves.toMatch(/^temperature .*entropy .* bits; y = \(/);

  await w.dragPoint('v1', [-2, -1.5]);
  await w.keyPoint('v2', ['ArrowUp', 'Shift+ArrowLeft']);
  const values = rowsOf('-2,-1.5;-1,1.25;1,1');
  expect((await w.state()).values).toEqual(values);
  await w.at('button[data-action="add"]').click();
  values.push([-1.5, 1]);
  const { numbers } = await w.matches(values, logt);
  expectClose(one(numbers, 'entropy-max').value, 2, 1e-6, 'log2 4');
  await w.logged();

  const params = await w.params({ values: '-2,-1.5;-1,1.25;1,1;-1.5,1' });
  expect(Number(params.get('logt'))).toBeCloseTo(-0.3, 12);
  await w.copyOpens(numbers);
});

const V8 = '1,0;0,1;1,1;-1.5,1;1.5,-1.5;-1,-1.75;-2,-0.5;0.5,2';
it('a URL with T = 8 at a high temperature: entropy close to, and below, 3 bits', async (w) => {
  const { numbers } = await w.matches(rowsOf(V8), 1.5);
  expect(one(numbers, 'entropy').value).toBeGreaterThan(2.99);
  expect(one(numbers, 'entropy').value).toBeLessThan(3);
  await w.logged();
}).at({ link: `values=${V8}&logt=1.5` });
