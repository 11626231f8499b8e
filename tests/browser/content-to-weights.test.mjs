// "From content to weights" (#ch-content-to-weights, <ag-content-to-weights>): X -> Q, K, V -> scores ->
// weights -> Y against a float64 reference after drags, arrow keys, the stepper, the heat map, an edited
// sentence and a changed URL.
import { describe, expect, test } from '@jest/globals';
import {
  expectParams,
  predictChoice,
  pressKeys,
  rowsOf,
  settledUrl,
  urlParams,
  useEnv,
  withChapter,
} from './helpers.mjs';
import { dragPoint, keyPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, readNumbers, matrixOf } from './shown-numbers.mjs';
import { attentionRows, matmulRows } from './reference-rows.mjs';

const TAG = 'ag-content-to-weights';
const CH = 'content-to-weights';
const D_MODEL = 4;

/** float64 reference of the whole pipeline from X and the three projections. */
function reference(X, wq, wk, wv) {
  const [Q, K, V] = [wq, wk, wv].map((w) => matmulRows(X, w).C);
  return { Q, K, V, ...attentionRows(Q, K, V) };
}

/** Every number shown against the reference (float32 results: relative 1e-5 of the magnitudes involved). */
async function expectMatches(page, { words }) {
  const numbers = await readNumbers(page, TAG);
  const state = await page.locator(TAG).evaluate((el) => el.state);
  const X = matrixOf(numbers, 'x');
  expect(X.length).toBe(words.length);
  expect(X.every((r) => r.length === D_MODEL)).toBe(true);
  // Same word, same embedding; different words, different embeddings.
  for (let i = 0; i < words.length; i += 1)
    for (let j = 0; j < words.length; j += 1) expect(X[i].join() === X[j].join()).toBe(words[i] === words[j]);
  const ref = reference(X, state.wq, state.wk, state.wv);
  const T = words.length;
  const close = (got, want, scale, what) => expectClose(got, want, 2e-5 * (1 + scale), what);
  const scaleOf = (M) => Math.max(1, ...M.flat().map(Math.abs));
  for (const [role, M] of [
    ['q', ref.Q],
    ['k', ref.K],
    ['v', ref.V],
    ['y', ref.Y],
  ]) {
    const got = matrixOf(numbers, role);
    expect(got.length).toBe(T);
    M.forEach((r, i) => r.forEach((x, c) => close(got[i][c], x, scaleOf(M), `${role}[${i + 1},${c + 1}]`)));
  }
  const S = matrixOf(numbers, 'score');
  const A = matrixOf(numbers, 'weight');
  ref.S.forEach((r, i) => r.forEach((x, j) => close(S[i][j], x, scaleOf(ref.S), `S[${i + 1},${j + 1}]`)));
  ref.A.forEach((r, i) => r.forEach((x, j) => close(A[i][j], x, scaleOf(ref.S), `A[${i + 1},${j + 1}]`)));
  // Row-stochastic: non-negative, row sums 1.
  expect(A.flat().every((a) => a >= 0)).toBe(true);
  byRole(numbers, 'row-sum').forEach((s) => expectClose(s.value, 1, 1e-5, `row sum ${s.key}`));
  // The selected output row is row `query` of Y.
  const qi = state.query - 1;
  byRole(numbers, 'y-selected').forEach((n, c) => close(n.value, ref.Y[qi][c], scaleOf(ref.Y), `y selected ${c + 1}`));
  // Shown texts are the values to 3 significant digits.
  for (const n of numbers)
    expectClose(n.shown, n.value, Math.abs(n.value) * 5e-3 + 5e-4, `${n.role}.${n.key} shown "${n.text}"`);
  return { numbers, ref, state };
}

const env = useEnv();

describe('content-to-weights: from content to weights', () => {
  test('opens on "the cat ate the fish": every tensor against the float64 reference, shapes shown, numbers logged', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await expectMatches(page, { words: ['the', 'cat', 'ate', 'the', 'fish'] });
      const shapes = await page.locator(`${TAG} [data-shape]`).allTextContents();
      expect(shapes[0]).toContain('[5, 4]');
      expect(shapes[1]).toContain('[5, 4] \u00b7 [4, 2] \u2192 [5, 2]');
      expect(shapes[2]).toContain('[5, 5]');
      expect(shapes[4]).toContain('A [5, 5] \u00b7 V [5, 2] \u2192 Y [5, 2]');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(4);
      // The numbers come from matmul and attention (with scores and weights).
      const kernels = await page.evaluate(() => [...new Set(window.__agCallLog.map((c) => c.kernel))]);
      expect(kernels).toEqual(expect.arrayContaining(['attention']));
      expect(kernels.some((k) => k.startsWith('matmul'))).toBe(true);
    });
  });

  test('drag and keys move rows of W_Q and W_K, the stepper and the heat map answer keys, the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const words = ['the', 'cat', 'ate', 'the', 'fish'];
      await dragPoint(page, TAG, 'r1', [2, -1.5]);
      expect((await page.locator(TAG).evaluate((el) => el.state.wq))[0]).toEqual([2, -1.5]);
      await expectMatches(page, { words });

      await page.locator(`${TAG} .edit-choice input[value="wk"]`).check();
      await keyPoint(page, TAG, 'r3', ['ArrowRight', 'Shift+ArrowUp']);
      expect((await page.locator(TAG).evaluate((el) => el.state.wk))[2]).toEqual([-0.75, 2]);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain('W_K row 3');

      // Stepper: arrow keys on a step button; hidden later panels.
      await page.locator(`${TAG} .step-button[data-step="5"]`).focus();
      await pressKeys(page, 'ArrowLeft', 'ArrowLeft');
      expect(await page.locator(TAG).evaluate((el) => el.state.step)).toBe(3);
      expect(await page.locator(`${TAG} .panel[data-step="4"]`).isHidden()).toBe(true);
      expect(await page.locator(`${TAG} .panel[data-step="3"]`).isVisible()).toBe(true);
      await page.locator(`${TAG} [data-nav="next"]`).click();
      expect(await page.locator(TAG).evaluate((el) => el.state.step)).toBe(4);

      // Heat map: Enter on a cell of row 3 selects query 3.
      const cell = page.locator(`${TAG} .panel[data-step="4"] [data-cell="1-1"]`);
      await cell.focus();
      await pressKeys(page, 'ArrowDown', 'ArrowDown', 'Enter');
      expect(await page.locator(TAG).evaluate((el) => el.state.query)).toBe(3);
      const { numbers } = await expectMatches(page, { words });
      await expectAllLogged(page, TAG);

      await expectParams(page, CH, { step: '4', query: '3', edit: 'wk' });
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        const again = await readNumbers(copy.page, TAG);
        expect(again.map((n) => n.value)).toEqual(numbers.map((n) => n.value));
      });
    });
  });

  test('an edited sentence changes X, the shapes and the URL; a bad sentence is refused with a note', async () => {
    const words = await withChapter(env, CH, TAG, async ({ page }) => {
      const input = page.locator(`${TAG} .sentence-input`);
      await input.fill('dogs chase the ball');
      await input.press('Enter');
      await page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, TAG);
      await expectMatches(page, { words: ['dogs', 'chase', 'the', 'ball'] });
      expect(await page.locator(`${TAG} [data-shape="s"]`).textContent()).toContain('[4, 4]');
      const words = (await urlParams(page)).get('words');
      expect(words.split(',').length).toBe(4);
      await expectAllLogged(page, TAG);

      await input.fill('one two three four five six seven');
      await input.press('Enter');
      await expect(page.locator(`${TAG} .note`).first().textContent()).resolves.toMatch(/2 to 6 words/);
      expect((await urlParams(page)).get('words')).toBe(words);
      // The field is marked invalid and described by the message (a screen reader reads it with the field).
      const said = () =>
        page.locator(`${TAG} .sentence-input`).evaluate((el) => {
          const id = el.getAttribute('aria-describedby');
          return [el.getAttribute('aria-invalid'), id && el.getRootNode().getElementById(id)?.textContent];
        });
      const [invalid, description] = await said();
      expect(invalid).toBe('true');
      expect(description).toMatch(/2 to 6 words/);
      // Corrected, it is valid again and described by nothing.
      await input.fill('the cat sat down');
      await input.press('Enter');
      await page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, TAG);
      expect(await said()).toEqual([null, null]);
      return words;
    });

    // A URL with another sentence (packed words) and other weights.
    const wq = '1,0;0,1;1,1;0,0';
    await withChapter(
      env,
      CH,
      TAG,
      { search: `?ch=${CH}&v=1&words=${words}&wq=${wq}&step=5&query=4` },
      async (copy) => {
        const { state } = await expectMatches(copy.page, { words: ['dogs', 'chase', 'the', 'ball'] });
        expect(state.wq).toEqual(rowsOf(wq));
        await expectAllLogged(copy.page, TAG);
      },
    );
  });

  test('predict, then reveal: the two "the" rows of the weights are identical', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&step=2` }, async ({ page }) => {
      await predictChoice(page, TAG, 'different', 'wrong');
      const { numbers } = await expectMatches(page, { words: ['the', 'cat', 'ate', 'the', 'fish'] });
      const A = matrixOf(numbers, 'weight');
      expect(A[0]).toEqual(A[3]);
      expect(await page.locator(TAG).evaluate((el) => el.state.step)).toBe(4);
      await predictChoice(page, TAG, 'identical', 'right');
      await expectAllLogged(page, TAG);
    });
  });
});
