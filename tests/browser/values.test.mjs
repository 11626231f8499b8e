// "Values do the work" (#ch-values, <ag-value-mix>): weights set by
// sliders, values dragged by mouse and keyboard, T changed by buttons and by
// the URL; y = Σ αⱼvⱼ and each term αⱼvⱼ checked against a float64 reference.
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, rowsOf, stateOf, useEnv, withChapter } from './helpers.mjs';
import { dragPoint, keyPoint, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, matrixOf, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-value-mix';
const CH = 'values';

/** Checks y, each term alpha_j v_j and the sum of the weights against float64. */
async function expectMatches(page, alpha, values) {
  const numbers = await readNumbers(page, TAG);
  const terms = values.map((v, j) => v.map((x) => alpha[j] * x));
  const magnitude = terms.flat().reduce((s, t) => s + Math.abs(t), 0);
  const tol = 4 * values.length * U * magnitude + 1e-12;
  const y = byRole(numbers, 'y');
  expect(y).toHaveLength(2);
  y.forEach((n, i) => {
    const ref = terms.reduce((s, t) => s + t[i], 0);
    expectClose(n.value, ref, tol, `y${i + 1}`);
    expectShown(n, ref, { extra: tol });
  });
  expect(byRole(numbers, 'term')).toHaveLength(2 * values.length);
  matrixOf(numbers, 'term').forEach((row, j) =>
    row.forEach((t, i) => {
      const ref = terms[j][i];
      expectClose(t, ref, 2 * U * Math.abs(ref) + 1e-12, `alpha${j + 1} v${j + 1}[${i + 1}]`);
      expectShown(one(numbers, 'term', `${j + 1}-${i + 1}`), ref, { extra: 2 * U * Math.abs(ref) });
    }),
  );
  const sum = alpha.reduce((s, a) => s + a, 0);
  expectClose(one(numbers, 'sum').value, sum, 4 * values.length * U * sum + 1e-12, 'sum of the weights');
  expect(one(numbers, 'dv').value).toBe(2);
  return numbers;
}

const env = useEnv();

describe('values: values do the work', () => {
  test('opens with three values and weights (0.5, 0.3, 0.2); y is their weighted sum; the page has a Part 2 heading; predict, then reveal: moving v1 by 2 with alpha1 = 0.5 moves y by 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await expectMatches(page, [0.5, 0.3, 0.2], rowsOf('1,5;5,1;-4,-3'));
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
      await predictChoice(page, TAG, '0', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/y moved 1\b/);
      expect((await stateOf(page, TAG)).values).toEqual(rowsOf('3,5;5,1;-4,-3'));
      await expectMatches(page, [0.5, 0.3, 0.2], rowsOf('3,5;5,1;-4,-3'));
      await predictChoice(page, TAG, '1', 'right');
    });
  });

  test('drag a value, key another, move a slider, add a value: float64 reference each time, and the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragPoint(page, TAG, 'v1', [-5, -1.5]);
      const values = rowsOf('-5,-1.5;5,1;-4,-3');
      expect((await stateOf(page, TAG)).values).toEqual(values);
      await expectMatches(page, [0.5, 0.3, 0.2], values);

      await keyPoint(page, TAG, 'v3', ['ArrowLeft', 'Shift+ArrowUp']);
      values[2] = [-4.25, -2];
      expect((await stateOf(page, TAG)).values).toEqual(values);
      await expect(page.locator(`${TAG} [data-point="v3"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'v3 = (\u22124.25, \u22122)',
      );

      // The slider of alpha2: keys step 0.05.
      await pressOn(page, TAG, 'input[data-alpha="2"]', 'ArrowRight', 2);
      const { alpha } = await stateOf(page, TAG);
      expect(alpha[1]).toBeCloseTo(0.4, 12);
      const before = byRole(await expectMatches(page, alpha, values), 'y').map((n) => n.value);

      // A fourth value, with weight 0 until its slider moves: y does not change.
      await page.locator(`${TAG} button[data-action="add"]`).click();
      values.push([-4, 3]);
      const alpha4 = [...alpha, 0];
      expect(byRole(await expectMatches(page, alpha4, values), 'y').map((n) => n.value)).toEqual(before);
      await pressOn(page, TAG, 'input[data-alpha="4"]', 'End'); // alpha4 = 1
      alpha4[3] = 1;
      const numbers = await expectMatches(page, alpha4, values);
      await expectAllLogged(page, TAG);

      const params = await expectParams(page, CH, { values: '-5,-1.5;5,1;-4.25,-2;-4,3' });
      expect(params.get('alpha').split(',').map(Number)).toEqual(alpha4);
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with T = 8 (no more can be added)', async () => {
    const V8 = '1,0;0,1;-1,0;0,-1;2,2;-2,2;-2,-2;2,-2';
    const a8 = [0.1, 0.2, 0.05, 0.15, 0.1, 0.1, 0.25, 0.05];
    await withChapter(
      env,
      CH,
      TAG,
      { search: `?ch=${CH}&v=1&values=${V8}&alpha=${a8.join(',')}` },
      async ({ page }) => {
        await expectMatches(page, a8, rowsOf(V8));
        expect(await page.locator(`${TAG} button[data-action="add"]`).isDisabled()).toBe(true);
        await expectAllLogged(page, TAG);
      },
    );
  });

  test('a URL whose weights are fewer than its values: the weights go back to their default, with a note', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&values=1,0;0,1;1,1&alpha=0,1` }, async ({ page }) => {
      await expectMatches(page, [0.5, 0.3, 0.2], rowsOf('1,0;0,1;1,1'));
      await expect(page.locator(`${TAG} .note:not([hidden])`).textContent()).resolves.toMatch(
        /alpha=0,1 \u2014 expected 3 weights, one per value/,
      );
    });
  });
});
