// "Values do the work" (#ch-values, <ag-value-mix>): weights set by
// sliders, values dragged by mouse and keyboard, T changed by buttons and by
// the URL; y = Σ αⱼvⱼ and each term αⱼvⱼ checked against a float64 reference.
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, useEnv, withChapter } from './helpers.mjs';
import { dragPoint, keyPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-value-mix';
const CH = 'values';

/** float64 reference: each term and their sum. */
function reference(alpha, values) {
  const terms = values.map((v, j) => [alpha[j] * v[0], alpha[j] * v[1]]);
  const y = [0, 1].map((i) => terms.reduce((s, t) => s + t[i], 0));
  const magnitude = values.reduce((s, v, j) => s + Math.abs(alpha[j]) * (Math.abs(v[0]) + Math.abs(v[1])), 0);
  return { terms, y, sum: alpha.reduce((s, a) => s + a, 0), magnitude };
}

function expectMatches(numbers, alpha, values) {
  const ref = reference(alpha, values);
  const tol = 4 * values.length * U * ref.magnitude + 1e-12;
  const y = byRole(numbers, 'y');
  expect(y).toHaveLength(2);
  y.forEach((n, i) => {
    expectClose(n.value, ref.y[i], tol, `y${i + 1}`);
    expectShown(n, ref.y[i], { extra: tol });
  });
  expect(byRole(numbers, 'term')).toHaveLength(2 * values.length);
  values.forEach((_, j) =>
    [0, 1].forEach((i) => {
      const t = one(numbers, 'term', `${j + 1}-${i + 1}`);
      expectClose(
        t.value,
        ref.terms[j][i],
        2 * U * Math.abs(ref.terms[j][i]) + 1e-12,
        `alpha${j + 1} v${j + 1}[${i + 1}]`,
      );
      expectShown(t, ref.terms[j][i], { extra: 2 * U * Math.abs(ref.terms[j][i]) });
    }),
  );
  const sum = one(numbers, 'sum');
  expectClose(sum.value, ref.sum, 4 * values.length * U * ref.sum + 1e-12, 'sum of the weights');
  expect(one(numbers, 'dv').value).toBe(2);
  return ref;
}

const DEFAULT_V = [
  [1, 5],
  [5, 1],
  [-4, -3],
];

const env = useEnv();

describe('values: values do the work', () => {
  test('opens with three values and weights (0.5, 0.3, 0.2); y is their weighted sum, every number logged; the page has a Part 2 heading; predict, then reveal: moving v1 by 2 with alpha1 = 0.5 moves y by 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [0.5, 0.3, 0.2], DEFAULT_V);
      expect(byRole(numbers, 'y').map((n) => n.text)).toEqual(['1.2', '2.2']);
      expect(one(numbers, 'sum').text).toBe('1');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The shell: a Part 2 heading in the contents and before this section; the numbers go on from part 1's 16.
      await expect(page.locator('#toc .toc-part[data-part="2"]').textContent()).resolves.toMatch(/Part 2/);
      await expect(page.locator('#toc li[data-chapter="values"] a').textContent()).resolves.toMatch(
        /^17\. Values do the work/,
      );
      expect(
        await page.evaluate(
          () => document.querySelector('#chapters .part-heading[data-part="2"]')?.nextElementSibling?.id,
        ),
      ).toBe('ch-values');
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, '0', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/y moved 1\b/);
      expect(await page.locator(TAG).evaluate((el) => el.state.values)).toEqual([
        [3, 5],
        [5, 1],
        [-4, -3],
      ]);
      expectMatches(
        await readNumbers(page, TAG),
        [0.5, 0.3, 0.2],
        [
          [3, 5],
          [5, 1],
          [-4, -3],
        ],
      );
      await predictChoice(page, TAG, '1', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('drag a value, key another, move a slider, add a value: float64 reference each time, and the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragPoint(page, TAG, 'v1', [-5, -1.5]);
      const values = [
        [-5, -1.5],
        [5, 1],
        [-4, -3],
      ];
      expect(await page.locator(TAG).evaluate((el) => el.state.values)).toEqual(values);
      expectMatches(await readNumbers(page, TAG), [0.5, 0.3, 0.2], values);

      await keyPoint(page, TAG, 'v3', ['ArrowLeft', 'Shift+ArrowUp']);
      values[2] = [-4.25, -2];
      expect(await page.locator(TAG).evaluate((el) => el.state.values)).toEqual(values);
      await expect(page.locator(`${TAG} [data-point="v3"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'v3 = (\u22124.25, \u22122)',
      );

      // The slider of alpha2: keys step 0.05.
      await page.locator(`${TAG} input[data-alpha="2"]`).focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      const alpha = await page.locator(TAG).evaluate((el) => el.state.alpha);
      expect(alpha[1]).toBeCloseTo(0.4, 12);
      expectMatches(await readNumbers(page, TAG), alpha, values);

      // A fourth value, with weight 0 until its slider moves: y does not change.
      const before = byRole(await readNumbers(page, TAG), 'y').map((n) => n.value);
      await page.locator(`${TAG} button[data-action="add"]`).click();
      values.push([-4, 3]);
      const alpha4 = [...alpha, 0];
      let numbers = await readNumbers(page, TAG);
      expectMatches(numbers, alpha4, values);
      expect(byRole(numbers, 'y').map((n) => n.value)).toEqual(before);
      await page.locator(`${TAG} input[data-alpha="4"]`).focus();
      await page.keyboard.press('End'); // alpha4 = 1
      alpha4[3] = 1;
      numbers = await readNumbers(page, TAG);
      expectMatches(numbers, alpha4, values);
      await expectAllLogged(page, TAG);

      const params = await expectParams(page, CH, { values: '-5,-1.5;5,1;-4.25,-2;-4,3' });
      expect(params.get('alpha').split(',').map(Number)).toEqual(alpha4);

      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with T = 8, and one whose weights are fewer than its values (the weights go back to their default, with a note)', async () => {
    const V8 = [
      [1, 0],
      [0, 1],
      [-1, 0],
      [0, -1],
      [2, 2],
      [-2, 2],
      [-2, -2],
      [2, -2],
    ];
    const a8 = [0.1, 0.2, 0.05, 0.15, 0.1, 0.1, 0.25, 0.05];
    const text = `?ch=${CH}&v=1&values=${V8.map((r) => r.join(',')).join(';')}&alpha=${a8.join(',')}`;
    await withChapter(env, CH, TAG, { search: text }, async ({ page }) => {
      expectMatches(await readNumbers(page, TAG), a8, V8);
      expect(await page.locator(`${TAG} button[data-action="add"]`).isDisabled()).toBe(true);
      await expectAllLogged(page, TAG);
    });

    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&values=1,0;0,1;1,1&alpha=0,1` }, async (short) => {
      expectMatches(
        await readNumbers(short.page, TAG),
        [0.5, 0.3, 0.2],
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
      );
      const note = await short.page
        .locator(TAG)
        .evaluate((el) =>
          el.shadowRoot.querySelector('.note').hidden ? '' : el.shadowRoot.querySelector('.note').textContent,
        );
      expect(note).toMatch(/alpha=0,1 \u2014 expected 3 weights, one per value/);
    });
  });
});
