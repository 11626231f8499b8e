// "Competition through the shared denominator" (#ch-competition, <ag-competition>):
// the weights before and after raising one logit, the softmax Jacobian heat
// map and its row sums, against a float64 reference after slider drags, arrow
// keys, heat-map keys and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { predictChoice, settledUrl, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragSlider, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, matrixOf, one, readNumbers } from './shown-numbers.mjs';
import { softmax, softmaxJacobian } from '../reference/float64.mjs';

const TAG = 'ag-competition';
const CH = 'competition';

/** float64 reference: weights, after raising s_j by delta, their change, J and J_ij delta. */
function reference(s, j, delta) {
  const x = s.map(Math.fround);
  const alpha = softmax(x, 1, 4);
  const after = softmax(
    x.map((v, k) => (k === j - 1 ? v + Math.fround(delta) : v)),
    1,
    4,
  );
  const flat = softmaxJacobian(alpha);
  const J = alpha.map((_, i) => flat.slice(i * 4, (i + 1) * 4));
  return { alpha, after, change: after.map((b, i) => b - alpha[i]), J, linear: J.map((row) => row[j - 1] * delta) };
}

async function expectMatches(page, s, j, delta) {
  const numbers = await readNumbers(page, TAG);
  const ref = reference(s, j, delta);
  byRole(numbers, 'alpha').forEach((a, i) => {
    expectClose(a.value, ref.alpha[i], 1e-6, `alpha ${a.key}`);
    expectShown(a, ref.alpha[i], { extra: 1e-6 });
  });
  byRole(numbers, 'alpha-after').forEach((a, i) => expectClose(a.value, ref.after[i], 1e-6, `alpha after ${a.key}`));
  byRole(numbers, 'change').forEach((c, i) => {
    expectClose(c.value, ref.change[i], 2e-6, `change ${c.key}`);
    // Competition: the raised weight goes up, every other one down (for delta > 0).
    if (delta > 0) expect(Math.sign(c.value)).toBe(i + 1 === j ? 1 : -1);
  });
  byRole(numbers, 'linear').forEach((l, i) => expectClose(l.value, ref.linear[i], 2e-6, `J delta ${l.key}`));
  const J = matrixOf(numbers, 'jacobian');
  expect(J.flat()).toHaveLength(16);
  J.forEach((row, i) =>
    row.forEach((v, k) => {
      expectClose(v, ref.J[i][k], 1e-6, `J ${i + 1}-${k + 1}`);
      expectShown(one(numbers, 'jacobian', `${i + 1}-${k + 1}`), ref.J[i][k], { digits: 2, extra: 1e-6 });
      expect(i === k ? v >= 0 : v <= 0).toBe(true);
    }),
  );
  expect(byRole(numbers, 'row-sum')).toHaveLength(4);
  byRole(numbers, 'row-sum').forEach((r) => expectClose(r.value, 0, 1e-6, `row sum ${r.key}`));
  return { numbers, ref };
}

const env = useEnv();

describe('competition: competition through the shared denominator', () => {
  test('opens with the Jacobian of (1, 0.5, 0, -0.5): float64 reference, zero row sums; predict, then reveal: alpha_3 falls when s_1 rises', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await expectMatches(page, [1, 0.5, 0, -0.5], 1, 1);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(2);
      await predictChoice(page, TAG, 'same', 'wrong');
      await predictChoice(page, TAG, 'down', 'right');
      expect((await expectMatches(page, [1, 0.5, 0, -0.5], 1, 1)).ref.change[2]).toBeLessThan(0);
    });
  });

  test('drag and keys on the sliders, keys and hover on the heat map; the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragSlider(page, TAG, 'input[data-logit="3"]', 0.5, 0.85);
      const { s } = await stateOf(page, TAG);
      expect(s[2]).toBeGreaterThan(2);
      await expectMatches(page, s, 1, 1);
      await pressOn(page, TAG, 'input[data-logit="4"]', 'ArrowLeft', 5);
      expectClose((await stateOf(page, TAG)).s[3], -1, 1e-9, 's4');

      // The heat map: focus cell (1,1), arrows to (2,3), Enter raises s3.
      await pressOn(page, TAG, '[data-cell="1-1"]', ['ArrowDown', 'ArrowRight', 'ArrowRight', 'Enter']);
      const state = await stateOf(page, TAG);
      expect(state.j).toBe(3);
      const { numbers, ref } = await expectMatches(page, state.s, 3, 1);
      expectClose(one(numbers, 'read-j').value, ref.J[1][2], 1e-6, 'readout J23');
      await expect(page.locator(`${TAG} .readout`).textContent()).resolves.toMatch(/\u2202\u03b1\u2082\/\u2202s\u2083/);
      // Hover another cell: the readout follows.
      await page.locator(`${TAG} [data-cell="4-4"]`).hover();
      expectClose(one(await readNumbers(page, TAG), 'read-j').value, ref.J[3][3], 1e-6, 'readout J44');
      await expectAllLogged(page, TAG);

      const params = await urlParams(page);
      expect([params.get('ch'), params.get('j')]).toEqual([CH, '3']);
      expect(params.get('s').split(',').map(Number)).toEqual(state.s);
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        await expectMatches(copy.page, state.s, 3, 1);
        expect((await stateOf(copy.page, TAG)).j).toBe(3);
      });
    });
  });

  test('a URL with a dominant logit and a negative delta: the reference values, and the row sums stay zero', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&s=5.5,-2,0.3,-6&j=2&delta=-2.5` }, async ({ page }) => {
      await expectMatches(page, [5.5, -2, 0.3, -6], 2, -2.5);
      await expectAllLogged(page, TAG);
    });
  });
});
