// "The matrix form" (#ch-matrix-form, <ag-matrix-form>): A = row-wise
// softmax of the logits (optionally causal), its row sums, Y = AV and one
// query's αV, against a float64 reference after a slider drag, arrow keys,
// a typed logit, the causal toggle and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { expectReopens, predictChoice, rowsOf, stateOf, textIn, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragSlider, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, matrixOf, readNumbers } from './shown-numbers.mjs';
import { softmax } from '../reference/float64.mjs';

const TAG = 'ag-matrix-form';
const CH = 'matrix-form';
const S0 = rowsOf('2,0,1,-1;0.5,1.5,0,1;1,0,2,0.5;-1,1,0.5,2');
const V0 = rowsOf('1,0;0,1;-1,0.5;2,2');

/** float64 reference: A (row softmax, causal keys j <= i), Y = AV. */
function reference(S, V, causal) {
  const A = S.map((row, i) =>
    softmax(row.map(Math.fround), 1, row.length, { mask: row.map((_, j) => (causal && j > i ? -Infinity : 0)) }),
  );
  return { A, Y: A.map((r) => V[0].map((_, c) => r.reduce((acc, a, j) => acc + a * V[j][c], 0))) };
}

async function expectMatches(page, S, V, causal, row) {
  const numbers = await readNumbers(page, TAG);
  const ref = reference(S, V, causal);
  expect(numbers.filter((n) => n.role === 'a')).toHaveLength(16);
  for (const c of numbers.filter((n) => n.role === 'a')) {
    const [i, j] = c.key.split('-').map(Number);
    expectClose(c.value, ref.A[i - 1][j - 1], 1e-6, `A ${c.key}`);
    expectShown(c, ref.A[i - 1][j - 1], { digits: 2, extra: 1e-6 });
    if (causal && j > i) expect(c.value).toBe(0); // lower-triangular
  }
  byRole(numbers, 'row-sum').forEach((r) => expectClose(r.value, 1, 1e-6, `row sum ${r.key}`));
  matrixOf(numbers, 'y').forEach((r, i) =>
    r.forEach((y, c) => {
      expectClose(y, ref.Y[i][c], 4e-6, `Y ${i + 1}-${c + 1}`);
      expectShown(byRole(numbers, 'y')[2 * i + c], ref.Y[i][c], { extra: 4e-6 });
    }),
  );
  byRole(numbers, 'alpha').forEach((a, j) => expectClose(a.value, ref.A[row - 1][j], 1e-6, `alpha ${a.key}`));
  byRole(numbers, 'y-one').forEach((y, c) => expectClose(y.value, ref.Y[row - 1][c], 4e-6, `y one ${y.key}`));
  return { numbers, ref };
}

const env = useEnv();

describe('matrix-form: the matrix form', () => {
  test('opens with A, its row sums (each 1), Y = AV and row 1 as alpha V, all matching the reference; predict, then reveal: a causal row still sums to 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await expectMatches(page, S0, V0, false, 1);
      expect(await textIn(page, TAG, '[data-role="shape"]')).toBe('A [4, 4] \u00b7 V [4, 2] \u2192 Y [4, 2]');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(3);
      await predictChoice(page, TAG, 'less', 'wrong');
      await predictChoice(page, TAG, 'one', 'right');
      expect((await stateOf(page, TAG)).causal).toBe(true);
      await expectMatches(page, S0, V0, true, 1);
    });
  });

  test('drag, keys, a typed logit, picking a row and the causal toggle; the URL reopens it all', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      // Pick row 3 on the heat map with the keyboard, drag s34 to the right end, two keys down on s31.
      await pressOn(page, TAG, '[data-cell="1-1"]', ['ArrowDown', 'ArrowDown', 'Enter']);
      expect((await stateOf(page, TAG)).row).toBe(3);
      await dragSlider(page, TAG, 'input[data-logit="4"]', 8.5 / 12, 1.1);
      expect((await stateOf(page, TAG)).s[2][3]).toBe(6);
      await pressOn(page, TAG, 'input[data-logit="1"]', 'ArrowLeft', 2);
      expectClose((await stateOf(page, TAG)).s[2][0], 0.8, 1e-9, 's31');
      // Type a logit of row 2.
      await page.locator(`${TAG} details.all-logits summary`).click();
      await page.locator(`${TAG} input.vec-input[data-r="1"][data-index="0"]`).fill('-3.5');
      const { s } = await stateOf(page, TAG);
      expect(s[1][0]).toBe(-3.5);
      await expectMatches(page, s, V0, false, 3);
      await page.locator(`${TAG} input.causal`).check();
      expect((await stateOf(page, TAG)).causal).toBe(true);
      const { numbers } = await expectMatches(page, s, V0, true, 3);
      await expectAllLogged(page, TAG);

      const params = await urlParams(page);
      expect([params.get('ch'), params.get('causal'), params.get('row')]).toEqual([CH, '1', '3']);
      await expectReopens(env, page, CH, TAG, numbers, async (copy) =>
        expect(await copy.page.locator(`${TAG} input.causal`).isChecked()).toBe(true),
      );
    });
  });

  test('a URL with other values and the causal mask: lower-triangular A, rows summing to 1, Y as the reference', async () => {
    const S = '-6,6,0,1;3,3,3,3;0,0,5,-2;1.5,-0.5,2.5,4';
    const V = '2,-1;0.5,3;-2,-2;4,0';
    const search = `?ch=${CH}&v=1&s=${encodeURIComponent(S)}&values=${encodeURIComponent(V)}&causal=1&row=4`;
    await withChapter(env, CH, TAG, { search }, async ({ page }) => {
      const { ref } = await expectMatches(page, rowsOf(S), rowsOf(V), true, 4);
      expect(ref.A[0]).toEqual([1, 0, 0, 0]);
      await expectAllLogged(page, TAG);
    });
  });
});
