// Part 2, chapter 3, "Entropy of the weights" (<ag-weight-entropy>): the
// temperature slider (keys and presets), values dragged and keyed, T from
// buttons and the URL; softmax(s / τ), its entropy in bits, log₂T, y and the
// centroid against a float64 reference; the article's hard-pointer and
// mean-pooling cases from tests/data/seeds/worked-examples.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  byRole,
  dragPoint,
  expectAllLogged,
  expectClean,
  expectClose,
  expectShown,
  exportFile,
  keyPoint,
  one,
  openChapter,
  overflow,
  readNumbers,
  ROOT,
  screenshot,
  settledUrl,
  startEnv,
  urlParams,
} from './helpers.mjs';

const TAG = 'ag-weight-entropy';
const CH = 'entropy';
/** The chapter's fixed logits, restated here (the first T are used). */
const S = [1, 0.5, 2, -1, 1.5, 0, -0.5, 0.25];
const ARTICLE_V = [
  [1, 0],
  [0, 1],
  [1, 1],
];
const CASES = Object.fromEntries(
  JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases.map((c) => [c.id, c]),
);

/** float64 reference: softmax(s / tau), entropy in bits, y and the centroid. */
function reference(values, logt) {
  const T = values.length;
  const tau = 10 ** logt;
  const z = S.slice(0, T).map((s) => s / tau);
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const sum = e.reduce((a, b) => a + b, 0);
  const alpha = e.map((x) => x / sum);
  const H = -alpha.reduce((acc, a) => acc + (a > 0 ? a * Math.log2(a) : 0), 0);
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

const state = (page) => page.locator(TAG).evaluate((el) => el.state);

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('part 2, chapter 3: entropy of the weights', () => {
  test('opens at tau = 1 on the article values; every number is a logged result and matches the reference', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    await expectMatches(page, ARTICLE_V, 0);
    await expect(page.locator(`${TAG} .status`).getAttribute('data-regime')).resolves.toBe('between');
    expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(2);
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test("the article's hard pointer and mean pooling: the two ends of the slider (worked examples)", async () => {
    const hp = CASES['hard-pointer'];
    const mp = CASES['mean-pooling'];
    expect(hp.inputs.V).toEqual(ARTICLE_V);
    expect(mp.inputs.V).toEqual(ARTICLE_V);
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    await page.locator(`${TAG} button[data-action="pointer"]`).click();
    expect((await state(page)).logt).toBe(-3);
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
    expect((await state(page)).logt).toBe(9);
    ({ numbers } = await expectMatches(page, ARTICLE_V, 9));
    byRole(numbers, 'alpha').forEach((n, j) => expectClose(n.value, mp.inputs.alpha[j], 1e-7, `uniform alpha${j + 1}`));
    byRole(numbers, 'y').forEach((n, i) =>
      expectClose(n.value, mp.expected[i], mp.tolerance, `mean pooling y${i + 1}`),
    );
    expect(byRole(numbers, 'y').map((n) => n.value)).toEqual(byRole(numbers, 'centroid').map((n) => n.value));
    expectClose(one(numbers, 'entropy').value, Math.log2(3), 1e-6, 'entropy at the flat end');
    await expect(page.locator(`${TAG} .status`).getAttribute('data-regime')).resolves.toBe('uniform');
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('keys on the slider, a dragged and a keyed value, a fourth value: reference each time; the URL reopens it', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    await page.locator(`${TAG} input#we-logt`).focus();
    for (let i = 0; i < 6; i += 1) await page.keyboard.press('ArrowLeft'); // 6 steps of 0.05
    const { logt } = await state(page);
    expect(logt).toBeCloseTo(-0.3, 12);
    await expectMatches(page, ARTICLE_V, logt);
    await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toMatch(
      /^temperature .*entropy .* bits; y = \(/,
    );

    await dragPoint(page, TAG, 'v1', [-2, -1.5]);
    await keyPoint(page, TAG, 'v2', ['ArrowUp', 'Shift+ArrowLeft']);
    const values = [
      [-2, -1.5],
      [-1, 1.25],
      [1, 1],
    ];
    expect((await state(page)).values).toEqual(values);
    await page.locator(`${TAG} button[data-action="add"]`).click();
    values.push([-1.5, 1]);
    const { numbers } = await expectMatches(page, values, logt);
    expectClose(one(numbers, 'entropy-max').value, 2, 1e-6, 'log2 4');
    await expectAllLogged(page, TAG);

    const params = await urlParams(page);
    expect(params.get('ch')).toBe(CH);
    expect(params.get('v')).toBe('1');
    expect(params.get('values')).toBe('-2,-1.5;-1,1.25;1,1;-1.5,1');
    expect(Number(params.get('logt'))).toBeCloseTo(-0.3, 12);
    const copy = await openChapter(env, CH, TAG, { search: (await settledUrl(page)).search });
    expect((await readNumbers(copy.page, TAG)).map((n) => n.text)).toEqual(numbers.map((n) => n.text));
    await expectClean(copy);
    await copy.context.close();
    await expectClean(opened);
    await opened.context.close();
  });

  test('a URL with T = 8 at a high temperature: entropy close to, and below, 3 bits', async () => {
    const V8 = [
      [1, 0],
      [0, 1],
      [1, 1],
      [-1.5, 1],
      [1.5, -1.5],
      [-1, -1.75],
      [-2, -0.5],
      [0.5, 2],
    ];
    const opened = await openChapter(env, CH, TAG, {
      search: `?ch=${CH}&v=1&values=${V8.map((r) => r.join(',')).join(';')}&logt=1.5`,
    });
    const { numbers } = await expectMatches(opened.page, V8, 1.5);
    expect(one(numbers, 'entropy').value).toBeGreaterThan(2.99);
    expect(one(numbers, 'entropy').value).toBeLessThan(3);
    await expectAllLogged(opened.page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('predict, then reveal: the flat end has log2 3 bits', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    await page.locator(`${TAG} .predict-choice[data-choice="3"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('wrong');
    await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/H = 1\.585 bits/);
    expect((await state(page)).logt).toBe(9);
    await expectMatches(page, ARTICLE_V, 9);
    await page.locator(`${TAG} .predict-again`).click();
    await page.locator(`${TAG} .predict-choice[data-choice="1.585"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('right');
    await expect(page.locator(`#toc li[data-chapter="${CH}"] [data-role=progress]`).textContent()).resolves.toMatch(
      /predicted/,
    );
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('exports the figure as SVG and PNG and the numbers as JSON and CSV', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const json = JSON.parse((await exportFile(page, TAG, 'json')).bytes.toString('utf8'));
    expect(json.state).toEqual({ values: ARTICLE_V, logt: 0 });
    expectClose(json.numbers.entropy, reference(ARTICLE_V, 0).H, 1e-5, 'exported entropy');
    const csv = (await exportFile(page, TAG, 'csv')).bytes.toString('utf8');
    expect(csv).toMatch(/\r\nentropy,/);
    const svg = await exportFile(page, TAG, 'svg');
    expect(svg.bytes.toString('utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const png = await exportFile(page, TAG, 'png');
    expect([...png.bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    await expectClean(opened);
    await opened.context.close();
  });

  test.each([
    [1024, 'desktop'],
    [375, 'phone-375'],
    [320, 'phone-320'],
  ])('fits %i px with no horizontal scrolling, light and dark', async (width, name) => {
    const opened = await openChapter(env, CH, TAG, { width, height: 1000 });
    const { page } = opened;
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page.locator(`#ch-${CH}`), `part2-03-${name}-${scheme}`);
    }
    expect(
      await page.locator(TAG).evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('svg.plane')).touchAction),
    ).toBe('none');
    await expectClean(opened);
    await opened.context.close();
  });
});
