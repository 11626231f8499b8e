// "Competition through the shared denominator"
// (<ag-competition>): the weights before and after raising one logit, the
// softmax Jacobian heat map and its row sums, against a float64 reference
// after slider drags, arrow keys, heat-map keys and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { predictChoice, settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';
import { softmax, softmaxJacobian } from '../reference/float64.mjs';

const TAG = 'ag-competition';
const CH = 'competition';

const softmax64 = (s) => softmax(s, 1, s.length);

/** float64 reference: weights, after raising s_j by delta, J, row sums. */
function reference(s, j, delta) {
  const x = s.map(Math.fround);
  const alpha = softmax64(x);
  const raised = x.map((v, k) => (k === j - 1 ? v + Math.fround(delta) : v));
  const after = softmax64(raised);
  const n = alpha.length;
  const flat = softmaxJacobian(alpha);
  const J = alpha.map((_, i) => flat.slice(i * n, (i + 1) * n));
  const rowSums = J.map((row) => row.reduce((a, b) => a + b, 0));
  return {
    alpha,
    after,
    change: after.map((b, i) => b - alpha[i]),
    J,
    rowSums,
    linear: J.map((row) => row[j - 1] * delta),
  };
}

function expectMatches(numbers, s, j, delta) {
  const ref = reference(s, j, delta);
  const key = (n) => Number(n.key);
  byRole(numbers, 'alpha').forEach((a) => {
    expectClose(a.value, ref.alpha[key(a) - 1], 1e-6, `alpha ${a.key}`);
    expectShown(a, ref.alpha[key(a) - 1], { extra: 1e-6 });
  });
  byRole(numbers, 'alpha-after').forEach((a) =>
    expectClose(a.value, ref.after[key(a) - 1], 1e-6, `alpha after ${a.key}`),
  );
  byRole(numbers, 'change').forEach((c) => {
    expectClose(c.value, ref.change[key(c) - 1], 2e-6, `change ${c.key}`);
    // Competition: the raised weight goes up, every other one down (for delta > 0).
    if (delta > 0) expect(Math.sign(c.value)).toBe(key(c) === j ? 1 : -1);
  });
  byRole(numbers, 'linear').forEach((l) => expectClose(l.value, ref.linear[key(l) - 1], 2e-6, `J delta ${l.key}`));
  const cells = numbers.filter((n) => n.role === 'jacobian');
  expect(cells).toHaveLength(16);
  for (const c of cells) {
    const [i, k] = c.key.split('-').map(Number);
    const r = ref.J[i - 1][k - 1];
    expectClose(c.value, r, 1e-6, `J ${c.key}`);
    expectShown(c, r, { digits: 2, extra: 1e-6 });
    if (i === k) expect(c.value).toBeGreaterThanOrEqual(0);
    else expect(c.value).toBeLessThanOrEqual(0);
  }
  byRole(numbers, 'row-sum').forEach((r) => expectClose(r.value, 0, 1e-6, `row sum ${r.key}`));
  expect(byRole(numbers, 'row-sum')).toHaveLength(4);
  return ref;
}

const st = (page) => page.locator(TAG).evaluate((el) => el.state);

const env = useEnv();

describe('competition: competition through the shared denominator', () => {
  test('opens with the Jacobian of (1, 0.5, 0, -0.5): float64 reference, zero row sums, every number logged; predict, then reveal: alpha_3 falls when s_1 rises', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [1, 0.5, 0, -0.5], 1, 1);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(2);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'same', 'wrong');
      await predictChoice(page, TAG, 'down', 'right');
      const revealed = await readNumbers(page, TAG);
      const ref = expectMatches(revealed, [1, 0.5, 0, -0.5], 1, 1);
      expect(ref.change[2]).toBeLessThan(0);
      await expectAllLogged(page, TAG);
    });
  });

  test('drag and keys on the sliders, keys and hover on the heat map; the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const slider = page.locator(`${TAG} input[data-logit="3"]`);
      await slider.scrollIntoViewIfNeeded();
      const box = await slider.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2, { steps: 6 });
      await page.mouse.up();
      let s = (await st(page)).s;
      expect(s[2]).toBeGreaterThan(2);
      expectMatches(await readNumbers(page, TAG), s, 1, 1);

      await page.locator(`${TAG} input[data-logit="4"]`).focus();
      for (let i = 0; i < 5; i += 1) await page.keyboard.press('ArrowLeft');
      s = (await st(page)).s;
      expectClose(s[3], -1, 1e-9, 's4');

      // The heat map: focus cell (1,1), arrows to (2,3), Enter raises s3.
      await page.locator(`${TAG} [data-cell="1-1"]`).focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      const state = await st(page);
      expect(state.j).toBe(3);
      const numbers = await readNumbers(page, TAG);
      const ref = expectMatches(numbers, state.s, 3, 1);
      expectClose(one(numbers, 'read-j').value, ref.J[1][2], 1e-6, 'readout J23');
      await expect(page.locator(`${TAG} .readout`).textContent()).resolves.toMatch(/\u2202\u03b1\u2082\/\u2202s\u2083/);
      // Hover another cell: the readout follows.
      await page.locator(`${TAG} [data-cell="4-4"]`).hover();
      expectClose(one(await readNumbers(page, TAG), 'read-j').value, ref.J[3][3], 1e-6, 'readout J44');
      await expectAllLogged(page, TAG);

      const params = await urlParams(page);
      expect(params.get('ch')).toBe(CH);
      expect(params.get('j')).toBe('3');
      expect(params.get('s').split(',').map(Number)).toEqual(state.s);
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        expectMatches(await readNumbers(copy.page, TAG), state.s, 3, 1);
        expect((await st(copy.page)).j).toBe(3);
      });
    });
  });

  test('a URL with a dominant logit and a negative delta: the reference values, and the row sums stay zero', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&s=5.5,-2,0.3,-6&j=2&delta=-2.5` }, async ({ page }) => {
      expectMatches(await readNumbers(page, TAG), [5.5, -2, 0.3, -6], 2, -2.5);
      await expectAllLogged(page, TAG);
    });
  });
});
