// "Entropy of the weights" (#ch-entropy, <ag-weight-entropy>): the
// temperature slider (keys and presets), values dragged and keyed, T from
// buttons and the URL; softmax(s / τ), its entropy in bits, log₂T, y and the
// centroid against a float64 reference; the article's hard-pointer and
// mean-pooling cases from tests/data/seeds/worked-examples.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, ROOT, rowsOf, stateOf, useEnv, withChapter } from './helpers.mjs';
import { dragPoint, keyPoint, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';
import { entropyBits, softmax } from '../reference/float64.mjs';

const TAG = 'ag-weight-entropy';
const CH = 'entropy';
/** The chapter's fixed logits, restated here (the first T are used). */
const S = [1, 0.5, 2, -1, 1.5, 0, -0.5, 0.25];
const ARTICLE_V = rowsOf('1,0;0,1;1,1');
const CASES = Object.fromEntries(
  JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases.map((c) => [c.id, c]),
);

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

async function expectMatches(page, values, logt) {
  const numbers = await readNumbers(page, TAG);
  const ref = reference(values, logt);
  const T = values.length;
  const a = byRole(numbers, 'alpha');
  expect(a).toHaveLength(T);
  // float32 softmax of s / tau: a few units of roundoff relative to each weight, plus the 1/T spread near uniform.
  a.forEach((n, j) => {
    expectClose(n.value, ref.alpha[j], 1e-6 * ref.alpha[j] + 1e-7, `alpha${j + 1}`);
    expectShown(n, ref.alpha[j], { extra: 1e-6 });
  });
  const H = one(numbers, 'entropy');
  expectClose(H.value, ref.H, 1e-5, 'entropy');
  expectShown(H, ref.H, { extra: 1e-5 });
  const Hmax = one(numbers, 'entropy-max');
  expectClose(Hmax.value, ref.Hmax, 1e-5, 'log2 T');
  expect(H.value).toBeLessThanOrEqual(Hmax.value + 1e-6);
  const span = values.reduce((acc, v) => acc + Math.abs(v[0]) + Math.abs(v[1]), 0);
  byRole(numbers, 'y').forEach((n, i) => {
    expectClose(n.value, ref.y[i], 2e-6 * span + 1e-7, `y${i + 1}`);
    expectShown(n, ref.y[i], { extra: 2e-6 * span });
  });
  byRole(numbers, 'centroid').forEach((n, i) => {
    expectClose(n.value, ref.centroid[i], 2e-6 * span + 1e-7, `centroid${i + 1}`);
    expectShown(n, ref.centroid[i], { extra: 2e-6 * span });
  });
  expect(one(numbers, 'dv').value).toBe(2); // d_v kept
  return { numbers, ref };
}

const env = useEnv();

describe('entropy: entropy of the weights', () => {
  test('opens at tau = 1 on the article values; every number is a logged result and matches the reference; predict, then reveal: the flat end has log2 3 bits', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await expectMatches(page, ARTICLE_V, 0);
      await expect(page.locator(`${TAG} .status`).getAttribute('data-regime')).resolves.toBe('between');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(2);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, '3', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/H = 1\.585 bits/);
      expect((await stateOf(page, TAG)).logt).toBe(9);
      await expectMatches(page, ARTICLE_V, 9);
      await predictChoice(page, TAG, '1.585', 'right');
    });
  });

  test("the article's hard pointer and mean pooling: the two ends of the slider (worked examples)", async () => {
    const hp = CASES['hard-pointer'];
    const mp = CASES['mean-pooling'];
    expect(hp.inputs.V).toEqual(ARTICLE_V);
    expect(mp.inputs.V).toEqual(ARTICLE_V);
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} button[data-action="pointer"]`).click();
      expect((await stateOf(page, TAG)).logt).toBe(-3);
      let { numbers } = await expectMatches(page, ARTICLE_V, -3);
      // One-hot on the largest logit (s3 = 2), as in the article's alpha = (0, 0, 1): y is v3 exactly.
      expect(byRole(numbers, 'alpha').map((n) => n.value)).toEqual(hp.inputs.alpha);
      byRole(numbers, 'y').forEach((n, i) =>
        expectClose(n.value, hp.expected[i], hp.tolerance, `hard pointer y${i + 1}`),
      );
      expect(one(numbers, 'entropy').value).toBe(0);
      await expect(page.locator(`${TAG} .status`).getAttribute('data-regime')).resolves.toBe('pointer');
      await expectAllLogged(page, TAG);

      await page.locator(`${TAG} button[data-action="uniform"]`).click();
      expect((await stateOf(page, TAG)).logt).toBe(9);
      ({ numbers } = await expectMatches(page, ARTICLE_V, 9));
      byRole(numbers, 'alpha').forEach((n, j) =>
        expectClose(n.value, mp.inputs.alpha[j], 1e-7, `uniform alpha${j + 1}`),
      );
      byRole(numbers, 'y').forEach((n, i) =>
        expectClose(n.value, mp.expected[i], mp.tolerance, `mean pooling y${i + 1}`),
      );
      expect(byRole(numbers, 'y').map((n) => n.value)).toEqual(byRole(numbers, 'centroid').map((n) => n.value));
      expectClose(one(numbers, 'entropy').value, Math.log2(3), 1e-6, 'entropy at the flat end');
      await expect(page.locator(`${TAG} .status`).getAttribute('data-regime')).resolves.toBe('uniform');
      await expectAllLogged(page, TAG);
    });
  });

  test('keys on the slider, a dragged and a keyed value, a fourth value: reference each time; the URL reopens it', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await pressOn(page, TAG, 'input#we-logt', 'ArrowLeft', 6); // 6 steps of 0.05
      const { logt } = await stateOf(page, TAG);
      expect(logt).toBeCloseTo(-0.3, 12);
      await expectMatches(page, ARTICLE_V, logt);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toMatch(
        /^temperature .*entropy .* bits; y = \(/,
      );

      await dragPoint(page, TAG, 'v1', [-2, -1.5]);
      await keyPoint(page, TAG, 'v2', ['ArrowUp', 'Shift+ArrowLeft']);
      const values = rowsOf('-2,-1.5;-1,1.25;1,1');
      expect((await stateOf(page, TAG)).values).toEqual(values);
      await page.locator(`${TAG} button[data-action="add"]`).click();
      values.push([-1.5, 1]);
      const { numbers } = await expectMatches(page, values, logt);
      expectClose(one(numbers, 'entropy-max').value, 2, 1e-6, 'log2 4');
      await expectAllLogged(page, TAG);

      const params = await expectParams(page, CH, { values: '-2,-1.5;-1,1.25;1,1;-1.5,1' });
      expect(Number(params.get('logt'))).toBeCloseTo(-0.3, 12);
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with T = 8 at a high temperature: entropy close to, and below, 3 bits', async () => {
    const V8 = '1,0;0,1;1,1;-1.5,1;1.5,-1.5;-1,-1.75;-2,-0.5;0.5,2';
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&values=${V8}&logt=1.5` }, async ({ page }) => {
      const { numbers } = await expectMatches(page, rowsOf(V8), 1.5);
      expect(one(numbers, 'entropy').value).toBeGreaterThan(2.99);
      expect(one(numbers, 'entropy').value).toBeLessThan(3);
      await expectAllLogged(page, TAG);
    });
  });
});
