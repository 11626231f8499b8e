// "The matrix form" (#ch-matrix-form, <ag-matrix-form>): A = row-wise
// softmax of the logits (optionally causal), its row sums, Y = AV and one
// query's αV, against a float64 reference after a slider drag, arrow keys,
// a typed logit, the causal toggle and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { expectReopens, predictChoice, urlParams, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, readNumbers } from './shown-numbers.mjs';
import { softmax } from '../reference/float64.mjs';

const TAG = 'ag-matrix-form';
const CH = 'matrix-form';
const S0 = [
  [2, 0, 1, -1],
  [0.5, 1.5, 0, 1],
  [1, 0, 2, 0.5],
  [-1, 1, 0.5, 2],
];
const V0 = [
  [1, 0],
  [0, 1],
  [-1, 0.5],
  [2, 2],
];

/** float64 reference: A (row softmax, causal keys j <= i), row sums, Y = AV. */
function reference(S, V, causal) {
  const A = S.map((row, i) =>
    softmax(row.map(Math.fround), 1, row.length, { mask: row.map((_, j) => (causal && j > i ? -Infinity : 0)) }),
  );
  const sums = A.map((r) => r.reduce((a, b) => a + b, 0));
  const Y = A.map((r) => V[0].map((_, c) => r.reduce((acc, a, j) => acc + a * V[j][c], 0)));
  return { A, sums, Y };
}

function expectMatches(numbers, S, V, causal, row) {
  const ref = reference(S, V, causal);
  for (const c of numbers.filter((n) => n.role === 'a')) {
    const [i, j] = c.key.split('-').map(Number);
    expectClose(c.value, ref.A[i - 1][j - 1], 1e-6, `A ${c.key}`);
    expectShown(c, ref.A[i - 1][j - 1], { digits: 2, extra: 1e-6 });
    if (causal && j > i) expect(c.value).toBe(0); // lower-triangular
  }
  expect(numbers.filter((n) => n.role === 'a')).toHaveLength(16);
  byRole(numbers, 'row-sum').forEach((r) => expectClose(r.value, 1, 1e-6, `row sum ${r.key}`));
  for (const y of byRole(numbers, 'y')) {
    const [i, c] = y.key.split('-').map(Number);
    expectClose(y.value, ref.Y[i - 1][c - 1], 4e-6, `Y ${y.key}`);
    expectShown(y, ref.Y[i - 1][c - 1], { extra: 4e-6 });
  }
  byRole(numbers, 'alpha').forEach((a) =>
    expectClose(a.value, ref.A[row - 1][Number(a.key) - 1], 1e-6, `alpha ${a.key}`),
  );
  byRole(numbers, 'y-one').forEach((y) =>
    expectClose(y.value, ref.Y[row - 1][Number(y.key) - 1], 4e-6, `y one ${y.key}`),
  );
  return ref;
}

const st = (page) => page.locator(TAG).evaluate((el) => el.state);

const env = useEnv();

describe('matrix-form: the matrix form', () => {
  test('opens with A, its row sums (each 1), Y = AV and row 1 as alpha V, all matching the reference and logged; predict, then reveal: a causal row still sums to 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      expectMatches(await readNumbers(page, TAG), S0, V0, false, 1);
      await expect(page.locator(`${TAG} [data-role="shape"]`).textContent()).resolves.toBe(
        'A [4, 4] \u00b7 V [4, 2] \u2192 Y [4, 2]',
      );
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(3);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'less', 'wrong');
      await predictChoice(page, TAG, 'one', 'right');
      expect((await st(page)).causal).toBe(true);
      expectMatches(await readNumbers(page, TAG), S0, V0, true, 1);
      await expectAllLogged(page, TAG);
    });
  });

  test('drag, keys, a typed logit, picking a row and the causal toggle; the URL reopens it all', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      // Pick row 3 on the heat map with the keyboard.
      await page.locator(`${TAG} [data-cell="1-1"]`).focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      expect((await st(page)).row).toBe(3);
      // Drag s34 to the right end.
      const slider = page.locator(`${TAG} input[data-logit="4"]`);
      await slider.scrollIntoViewIfNeeded();
      const box = await slider.boundingBox();
      await page.mouse.move(box.x + box.width * (8.5 / 12), box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width + 20, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      let s = (await st(page)).s;
      expect(s[2][3]).toBe(6);
      // Keys on s31.
      await page.locator(`${TAG} input[data-logit="1"]`).focus();
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      s = (await st(page)).s;
      expectClose(s[2][0], 0.8, 1e-9, 's31');
      // Type a logit of row 2.
      await page.locator(`${TAG} details.all-logits summary`).click();
      await page.locator(`${TAG} input.vec-input[data-r="1"][data-index="0"]`).fill('-3.5');
      s = (await st(page)).s;
      expect(s[1][0]).toBe(-3.5);
      expectMatches(await readNumbers(page, TAG), s, V0, false, 3);
      // Causal.
      await page.locator(`${TAG} input.causal`).check();
      const state = await st(page);
      expect(state.causal).toBe(true);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, state.s, V0, true, 3);
      await expectAllLogged(page, TAG);

      const params = await urlParams(page);
      expect(params.get('ch')).toBe(CH);
      expect(params.get('causal')).toBe('1');
      expect(params.get('row')).toBe('3');
      await expectReopens(env, page, CH, TAG, numbers, async (copy) =>
        expect(await copy.page.locator(`${TAG} input.causal`).isChecked()).toBe(true),
      );
    });
  });

  test('a URL with other values and the causal mask: lower-triangular A, rows summing to 1, Y as the reference', async () => {
    const S = [
      [-6, 6, 0, 1],
      [3, 3, 3, 3],
      [0, 0, 5, -2],
      [1.5, -0.5, 2.5, 4],
    ];
    const V = [
      [2, -1],
      [0.5, 3],
      [-2, -2],
      [4, 0],
    ];
    const text = (m) => m.map((r) => r.join(',')).join(';');
    await withChapter(
      env,
      CH,
      TAG,
      {
        search: `?ch=${CH}&v=1&s=${encodeURIComponent(text(S))}&values=${encodeURIComponent(text(V))}&causal=1&row=4`,
      },
      async ({ page }) => {
        const ref = expectMatches(await readNumbers(page, TAG), S, V, true, 4);
        expect(ref.A[0]).toEqual([1, 0, 0, 0]);
        await expectAllLogged(page, TAG);
      },
    );
  });
});
