// "Softmax turns logits into weights" (#ch-softmax, <ag-softmax>): the
// textbook float32 softmax beside the stable one, checked against a float64
// reference after a mouse drag, arrow keys and a changed URL; the textbook
// kernel really gives NaN once a logit passes ln FLT_MAX ≈ 88.72, while the
// stable one keeps matching the reference.
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, screenshot, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';

const TAG = 'ag-softmax';
const CH = 'softmax';
const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;

/** float64 reference (inputs rounded to float32 on the way in, as the API documents). */
function reference(s) {
  const x = s.map(Math.fround);
  const m = Math.max(...x);
  const shifted = x.map((v) => v - m);
  const stableExp = shifted.map(Math.exp);
  const stableSum = stableExp.reduce((a, b) => a + b, 0);
  const alpha = stableExp.map((e) => e / stableSum);
  const exp = x.map(Math.exp);
  const sum = exp.reduce((a, b) => a + b, 0);
  return {
    m,
    shifted,
    stableExp,
    stableSum,
    alpha,
    exp,
    sum,
    overflows: exp.map((e) => e > FLT_MAX),
    sumOverflows: sum > FLT_MAX,
  };
}

const rel = (x, r = 2e-6) => r * Math.abs(x) + 1e-30;

/** Checks every number shown against the reference. */
function expectMatches(numbers, s) {
  const ref = reference(s);
  byRole(numbers, 'stable-alpha').forEach((a, j) => {
    expectClose(a.value, ref.alpha[j], 4e-7 + 4e-6 * ref.alpha[j], `stable alpha ${j + 1}`);
    if (ref.alpha[j] > 1e-30) expectShown(a, ref.alpha[j], { extra: 4e-6 * ref.alpha[j] });
  });
  byRole(numbers, 'shifted').forEach((d, j) =>
    expectClose(d.value, ref.shifted[j], 1e-5 * Math.max(1, Math.abs(ref.shifted[j])), `s${j + 1} - m`),
  );
  byRole(numbers, 'stable-exp').forEach((e, j) =>
    expectClose(e.value, ref.stableExp[j], 2e-5 * ref.stableExp[j] + 1e-44, `exp(s${j + 1} - m)`),
  );
  expectClose(one(numbers, 'stable-sum').value, ref.stableSum, 2e-5 * ref.stableSum, 'stable sum');
  const alphas = byRole(numbers, 'naive-alpha');
  byRole(numbers, 'naive-exp').forEach((e, j) => {
    if (ref.overflows[j]) expect(e.value).toBe(Infinity);
    else expectClose(e.value, ref.exp[j], rel(ref.exp[j], 4e-6) + 1e-44, `exp(s${j + 1})`);
  });
  const sum = one(numbers, 'naive-sum');
  if (ref.sumOverflows) expect(sum.value).toBe(Infinity);
  else expectClose(sum.value, ref.sum, rel(ref.sum, 1e-5) + 1e-44, 'textbook sum');
  alphas.forEach((a, j) => {
    if (ref.overflows[j])
      expect(a.value).toBeNaN(); // ∞/∞
    else if (ref.sumOverflows)
      expect(a.value).toBe(0); // finite/∞
    else if (ref.sum > 1e-38) expectClose(a.value, ref.alpha[j], 1e-6 + 1e-5 * ref.alpha[j], `textbook alpha ${j + 1}`);
  });
  return ref;
}

async function state(page) {
  return page.locator(TAG).evaluate((el) => el.state.s);
}

const env = useEnv();

describe('softmax: softmax turns logits into weights', () => {
  test('opens on gentle logits: both softmaxes agree with the float64 reference, every number from a logged kernel call; predict, then reveal: the textbook alpha_1 at s_1 = 90 is NaN', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(await state(page)).toEqual([2, 1, 0.5, -1]);
      expectMatches(numbers, [2, 1, 0.5, -1]);
      expect(byRole(numbers, 'naive-alpha').some((a) => Number.isNaN(a.value))).toBe(false);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator(`${TAG} .side-naive`).evaluate((el) => el.classList.contains('is-broken'))).toBe(false);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'one', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/NaN/);
      expect(await state(page)).toEqual([90, 1, 0.5, -1]);
      expectMatches(await readNumbers(page, TAG), [90, 1, 0.5, -1]);
      await predictChoice(page, TAG, 'nan', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('a mouse drag and arrow keys move the logits; the numbers follow the reference and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      // Drag s1's thumb to about three quarters of the track (logit ≈ 60).
      const slider = page.locator(`${TAG} input[data-logit="1"]`);
      await slider.scrollIntoViewIfNeeded();
      const box = await slider.boundingBox();
      await page.mouse.move(box.x + box.width * ((2 + 120) / 240), box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2, { steps: 6 });
      await page.mouse.up();
      const afterDrag = await state(page);
      expect(afterDrag[0]).toBeGreaterThan(40);
      expect(afterDrag[0]).toBeLessThan(80);
      expect(afterDrag.slice(1)).toEqual([1, 0.5, -1]);
      expectMatches(await readNumbers(page, TAG), afterDrag);

      // Keys: s2 up by three steps of 0.1.
      await page.locator(`${TAG} input[data-logit="2"]`).focus();
      for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowRight');
      const s = await state(page);
      expectClose(s[1], 1.3, 1e-9, 's2 after three arrow presses');
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, s);
      await expectAllLogged(page, TAG);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
        `stable \u03b1\u2082 = ${one(numbers, 'stable-alpha', 2).text}`,
      );

      const params = await expectParams(page, CH);
      expect(params.get('s').split(',').map(Number)).toEqual(s);
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('the textbook kernel gives NaN once a logit passes 88.7, the stable one never does', async () => {
    // At 88.7 exp is still below FLT_MAX (float64 reference): no NaN.
    expect(Math.exp(Math.fround(88.7))).toBeLessThan(FLT_MAX);
    expect(Math.exp(Math.fround(88.8))).toBeGreaterThan(FLT_MAX);
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&s=88.7,1,0.5,-1` }, async ({ page }) => {
      let numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'naive-alpha').some((a) => Number.isNaN(a.value))).toBe(false);
      expect(Number.isFinite(one(numbers, 'naive-exp', 1).value)).toBe(true);
      expectMatches(numbers, [88.7, 1, 0.5, -1]);

      // One arrow step further: 88.8.
      await page.locator(`${TAG} input[data-logit="1"]`).focus();
      await page.keyboard.press('ArrowRight');
      const s = await state(page);
      expectClose(s[0], 88.8, 1e-9, 's1');
      numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'naive-exp', 1).value).toBe(Infinity);
      expect(one(numbers, 'naive-exp', 1).text).toBe('\u221e');
      expect(one(numbers, 'naive-sum').value).toBe(Infinity);
      expect(one(numbers, 'naive-alpha', 1).value).toBeNaN();
      expect(one(numbers, 'naive-alpha', 1).text).toBe('NaN');
      expect(byRole(numbers, 'stable-alpha').every((a) => Number.isFinite(a.value))).toBe(true);
      const ref = expectMatches(numbers, s);
      expect(ref.alpha[0]).toBeGreaterThan(0.999);
      expect(await page.locator(`${TAG} .side-naive`).evaluate((el) => el.classList.contains('is-broken'))).toBe(true);
      await expect(page.locator(`${TAG} [data-role="naive-verdict"]`).textContent()).resolves.toMatch(/NaN/);
      await expectAllLogged(page, TAG);
      await screenshot(page.locator(`#ch-${CH}`), 'softmax-overflow-desktop-light');

      // Far past the edge and the other failure modes, from the URL.
      for (const logits of [
        [120, -120, 0, 119.5],
        [88, 87.5, 87, 86.5],
        [-110, -111, -112, -113],
        [100, 99, 98, 97],
      ]) {
        await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&s=${logits.join(',')}` }, async (other) => {
          const n = await readNumbers(other.page, TAG);
          const r = expectMatches(n, logits);
          if (logits[0] === -110) byRole(n, 'naive-alpha').forEach((a) => expect(a.value).toBeNaN()); // 0/0
          if (logits[0] === 88) {
            expect(r.overflows.some(Boolean)).toBe(false);
            expect(r.sumOverflows).toBe(true);
            byRole(n, 'naive-alpha').forEach((a) => expect(a.value).toBe(0));
          }
          byRole(n, 'stable-alpha').forEach((a) => expect(Number.isNaN(a.value)).toBe(false));
          await expectAllLogged(other.page, TAG);
        });
      }
    });
  });
});
