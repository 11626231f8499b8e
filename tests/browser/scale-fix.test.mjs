// "The 1/√d_k fix" (#ch-scale-fix, <ag-scale-fix>): for each d_k a row of random
// scores through softmax unscaled and scaled. The float64 reference below
// recomputes softmax, the largest weight, the entropy (bits) and the
// Frobenius norm of the softmax Jacobian from the scores the widget exports.
import { describe, expect, test } from '@jest/globals';
import { exportJson, exportText, predictChoice, settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged, one, readNumbers } from './shown-numbers.mjs';
import { entropyBits, norm, softmax, softmaxJacobian } from '../reference/float64.mjs';

const TAG = 'ag-scale-fix';
const CH = 'scale-fix';

/** float64 reference for one row of scores s at temperature t. */
function reference(s, t) {
  const w = softmax(s, 1, s.length, { temperature: t });
  return { w, max: Math.max(...w), entropy: entropyBits(w), jacobian: norm(softmaxJacobian(w)) };
}

/** Compares the shown detail numbers at the chosen d_k with the reference for the exported scores. */
async function expectDetail(page, dk) {
  const json = await exportJson(page, TAG);
  expect(json.row.dk).toBe(dk);
  const s = json.row.scores;
  expect(s.length).toBe(json.state.tokens);
  const numbers = await readNumbers(page, TAG);
  for (const [key, t] of [
    ['unscaled', 1],
    ['scaled', Math.sqrt(dk)],
  ]) {
    const ref = reference(s, t);
    // Weights: float32 softmax (relative error a few tens of u, plus the
    // rounding of s / t that exp turns into an absolute error of |z| u).
    const zmax = Math.max(...s.map((x) => Math.abs(x / t)));
    json.row[key].forEach((w, i) =>
      expect(Math.abs(w - ref.w[i])).toBeLessThanOrEqual(1e-5 * ref.w[i] + 4 * zmax * 2 ** -24 * ref.w[i] + 1e-30),
    );
    const max = one(numbers, 'max', key);
    expect(Math.abs(max.value - ref.max)).toBeLessThanOrEqual(1e-5 * ref.max + 4 * zmax * 2 ** -24);
    const h = one(numbers, 'entropy', key);
    expect(Math.abs(h.value - ref.entropy)).toBeLessThanOrEqual(1e-4 * (ref.entropy + 1e-3) + 1e-6);
    const j = one(numbers, 'jacobian', key);
    // A weight within 2^-24 of 1 is stored as 1 in float32, so its diagonal
    // entry alpha (1 - alpha) can lose all of its (tiny) value: an absolute
    // error up to 2^-24 besides the relative one.
    expect(Math.abs(j.value - ref.jacobian)).toBeLessThanOrEqual(1e-4 * ref.jacobian + 2 ** -24);
    // The text shown is the stored value to four significant digits.
    expect(max.text.length).toBeGreaterThan(0);
  }
  return json;
}

const env = useEnv();

describe('scale-fix: the 1/sqrt(d_k) fix', () => {
  test('opens at d_k = 64; every number is a logged wasm result and matches the float64 reference', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await expectDetail(page, 64);
      const numbers = await readNumbers(page, TAG);
      // The curves: 12 values of d_k, 6 numbers each.
      expect(numbers.filter((n) => n.role.startsWith('curve-')).length).toBe(72);
      // The maximum entropy of 16 weights is log2 16 = 4 bits.
      expect(Math.abs(one(numbers, 'max-entropy').value - 4)).toBeLessThanOrEqual(1e-5);
      // Unscaled, the largest weight grows towards 1 with d_k; scaled, it stays well below.
      const curve = (k, s, dk) => one(numbers, `curve-${k}`, `${s}-${dk}`).value;
      expect(curve('max', 'unscaled', 4096)).toBeGreaterThan(0.99);
      expect(curve('max', 'scaled', 4096)).toBeLessThan(0.9);
      expect(curve('jacobian', 'unscaled', 4096)).toBeLessThan(curve('jacobian', 'scaled', 4096));
      await expectAllLogged(page, TAG);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    });
  });

  test('dragging across the panels and the arrow keys choose d_k; the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const svg = page.locator(`${TAG} svg.scale-plot`);
      await svg.scrollIntoViewIfNeeded();
      const scrollBefore = await page.evaluate(() => window.scrollY);
      const box = await svg.boundingBox();
      // Drag from the left (d_k = 2) to the right edge (d_k = 4096).
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 4 });
      await page.mouse.move(box.x + box.width - 2, box.y + box.height * 0.5, { steps: 4 });
      await page.mouse.up();
      // The drag does not scroll the page. (Scroll anchoring may move it by a
      // few pixels when the numbers below change their wrapping; a scroll by the
      // gesture would move it by the drag's length.)
      expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(16);
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('4096');
      await expectDetail(page, 4096);
      // Keys: Left twice = 1024, Home = 2, End = 4096, Left = 2048.
      await svg.focus();
      for (const key of ['ArrowLeft', 'ArrowLeft']) await page.keyboard.press(key);
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('1024');
      await page.keyboard.press('Home');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('2');
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('2048');
      await expect(svg.getAttribute('aria-valuetext')).resolves.toBe('d\u2096 = 2048');
      await expect(page.locator(`${TAG} [aria-live]`).last().textContent()).resolves.toMatch(/d\u2096 = 2048/);
      await expectDetail(page, 2048);
      await expectAllLogged(page, TAG);
      const params = await urlParams(page);
      expect(params.get('ch')).toBe(CH);
      expect(params.get('dk')).toBe('2048');
      expect(params.get('seed')).toBe('7');

      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        const a = (await readNumbers(page, TAG)).map((n) => n.text);
        const b = (await readNumbers(copy.page, TAG)).map((n) => n.text);
        expect(b).toEqual(a);
      });
    });
  });

  test('a URL with another seed, T and d_k shows their reference values', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=scale-fix&v=1&seed=123&tokens=5&dk=16' }, async ({ page }) => {
      const json = await expectDetail(page, 16);
      expect(json.state).toEqual({ seed: 123, tokens: 5, dk: '16' });
      const numbers = await readNumbers(page, TAG);
      expect(Math.abs(one(numbers, 'max-entropy').value - Math.log2(5))).toBeLessThanOrEqual(1e-5);
      await expectAllLogged(page, TAG);
    });
  });

  test('predict, then reveal: unscaled, the largest weight approaches 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, 'uniform', 'wrong');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('4096');
      await predictChoice(page, TAG, 'one', 'right');
      await expectDetail(page, 4096);
      await expectAllLogged(page, TAG);
    });
  });

  test('exports the figure (SVG, PNG) and the curves (CSV)', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const csv = (await exportText(page, TAG, 'csv')).split('\r\n');
      expect(csv[0]).toBe(
        'dk,max_unscaled,max_scaled,entropy_unscaled,entropy_scaled,jacobian_unscaled,jacobian_scaled',
      );
      expect(csv.filter((l) => /^\d/.test(l)).length).toBe(12);
      expect(await exportText(page, TAG, 'svg')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    });
  });
});
