// "QKᵀ as a grid" (#ch-qkt, <ag-qkt-grid>): editable X, W_Q and W_K, the
// projections Q = X W_Q and K = X W_K, the heat map S = QKᵀ and a cell's dot
// product expanded term by term; checked against a float64 reference after
// typed edits, arrow keys in an input, clicks, Enter on a cell and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { expectParams, predictChoice, rowsOf, settledUrl, stateOf, textIn, useEnv, withChapter } from './helpers.mjs';
import { pressOn } from './pointer.mjs';
import {
  byRole,
  expectAllLogged,
  expectClose,
  expectShown,
  matrixOf,
  one,
  readNumbers as readAll,
  U,
} from './shown-numbers.mjs';
import { matmulRows, matmulRowsT } from './reference-rows.mjs';

const TAG = 'ag-qkt-grid';
const CH = 'qkt';
const X0 = rowsOf('1,0,1;0,2,1;2,1,0;-1,0,2');
const WQ0 = rowsOf('1,0;0,1;1,-1');
const WK0 = rowsOf('0,1;1,0;1,1');

/** float64 reference: Q, K and S, with the absolute sums their error bounds are stated in. */
function reference(x, wq, wk) {
  const { C: Q, mag: Qabs } = matmulRows(x, wq);
  const { C: K, mag: Kabs } = matmulRows(x, wk);
  // Error bound of the float32 path: Q and K each carry a few roundoffs of their
  // absolute sums, which S multiplies.
  return { Q, K, S: matmulRowsT(Q, K), Sabs: matmulRowsT(Qabs, Kabs), Qabs, Kabs };
}

/** The number `role` (key) within `tol` of `ref`, stored and (unless `shown` is false) as shown. */
function expectNear(numbers, role, key, ref, tol, { shown = true, digits = 4 } = {}) {
  const n = one(numbers, role, key);
  expectClose(n.value, ref, tol, `${role} ${key}`);
  if (shown) expectShown(n, ref, { digits, extra: tol });
}

function expectMatches(numbers, x, wq, wk, cell) {
  const ref = reference(x, wq, wk);
  const Smag = 12 * U * Math.max(...ref.Sabs.flat()) + 1e-12;
  for (let i = 0; i < 4; i += 1) {
    for (let c = 0; c < 2; c += 1) {
      expectNear(numbers, 'q', `${i + 1}-${c + 1}`, ref.Q[i][c], 4 * U * ref.Qabs[i][c] + 1e-12);
      expectNear(numbers, 'k', `${i + 1}-${c + 1}`, ref.K[i][c], 4 * U * ref.Kabs[i][c] + 1e-12);
    }
    for (let j = 0; j < 4; j += 1)
      expectNear(numbers, 'score', `${i + 1}-${j + 1}`, ref.S[i][j], 12 * U * ref.Sabs[i][j] + 1e-12, { digits: 3 });
  }
  const [i, j] = [cell[0] - 1, cell[1] - 1];
  byRole(numbers, 'term').forEach((n, c) => {
    const tol = 10 * U * ref.Qabs[i][c] * ref.Kabs[j][c] + 1e-12;
    expectNear(numbers, 'term', c + 1, ref.Q[i][c] * ref.K[j][c], tol);
  });
  for (let c = 0; c < 2; c += 1) {
    expectNear(numbers, 'factor', `q${c + 1}`, ref.Q[i][c], 4 * U * ref.Qabs[i][c] + 1e-12, { shown: false });
    expectNear(numbers, 'factor', `k${c + 1}`, ref.K[j][c], 4 * U * ref.Kabs[j][c] + 1e-12, { shown: false });
  }
  expectNear(numbers, 'dot', null, ref.S[i][j], 12 * U * ref.Sabs[i][j] + 1e-12);
  expectNear(numbers, 'score-lowest', null, Math.min(...ref.S.flat()), Smag, { shown: false });
  expectNear(numbers, 'score-highest', null, Math.max(...ref.S.flat()), Smag, { shown: false });
  return ref;
}

const input = (page, row, index) => page.locator(`${TAG} input[data-row="${row}"][data-index="${index}"]`);
const stale = (page) => page.locator(`${TAG} .results`).evaluate((el) => el.classList.contains('is-stale'));

/** The numbers shown; a bracketed negative value "(−1)" (after a + sign) is read as −1. */
async function readNumbers(page, tag) {
  return (await readAll(page, tag)).map((n) =>
    /^\(.*\)$/.test(n.text) ? { ...n, shown: Number(n.text.slice(1, -1).replace(/\u2212/g, '-')) } : n,
  );
}

const env = useEnv();

describe('qkt: QKᵀ as a grid', () => {
  test('opens on the defaults: Q, K and S match the reference, S12 = 2×3 + (−1)×1 = 5, every number logged; predict, then reveal: with W_K = W_Q the grid is symmetric', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, X0, WQ0, WK0, [1, 2]);
      expect(one(numbers, 'dot').text).toBe('5');
      // The negative second term turns the + into a minus: 6 \u2212 1, not 6 + (\u22121); data-value stays \u22121.
      expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['6', '1']);
      expect(byRole(numbers, 'term').map((t) => t.value)).toEqual([6, -1]);
      expect(await page.locator(`${TAG} section.pair p.line`).allTextContents()).toContain('= 6 \u2212 1');
      expect(one(numbers, 'factor', 'k1').text).toBe('3');
      const calls = await page.evaluate(() =>
        window.__agCallLog.filter((c) => /matmul/.test(c.kernel)).map((c) => c.args),
      );
      expect(calls.length).toBeGreaterThanOrEqual(3);
      await expect(page.locator(`${TAG} [data-cell="1-2"]`).getAttribute('aria-label')).resolves.toBe(
        'S12, \u201cbirds\u201d looking at \u201csing\u201d: 5',
      );
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'no', 'wrong');
      expect(await textIn(page, TAG, '.predict-result')).toMatch(/S\u2081\u2082 = 1 and S\u2082\u2081 = 1/);
      expect((await stateOf(page, TAG)).wk).toEqual(WQ0);
      const revealed = await readNumbers(page, TAG);
      expectMatches(revealed, X0, WQ0, WQ0, [1, 2]);
      const S = matrixOf(revealed, 'score');
      expect(S).toEqual(S.map((row, i) => row.map((_, j) => S[j][i]))); // symmetric
      await predictChoice(page, TAG, 'yes', 'right');
    });
  });

  test('hover shows a number, a click or Enter expands the cell', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const ref = reference(X0, WQ0, WK0);
      await page.locator(`${TAG} [data-cell="4-3"]`).hover();
      let readout = one(await readNumbers(page, TAG), 'readout');
      expectClose(readout.value, ref.S[3][2], 1e-6, 'readout S43');
      expect((await stateOf(page, TAG)).cell).toEqual([1, 2]); // hovering does not expand

      await page.locator(`${TAG} [data-cell="3-4"]`).click();
      expect((await stateOf(page, TAG)).cell).toEqual([3, 4]);
      expectMatches(await readNumbers(page, TAG), X0, WQ0, WK0, [3, 4]);
      expect(one(await readNumbers(page, TAG), 'dot').text).toBe('5'); // (2, 1)·(2, 1)

      // Keyboard: arrows move the focus (and the readout), Enter expands.
      await pressOn(page, TAG, '[data-cell="3-4"]', ['ArrowUp', 'Home']);
      readout = one(await readNumbers(page, TAG), 'readout');
      expectClose(readout.value, ref.S[1][0], 1e-6, 'readout S21');
      expect((await stateOf(page, TAG)).cell).toEqual([3, 4]);
      await page.keyboard.press('Enter');
      expect((await stateOf(page, TAG)).cell).toEqual([2, 1]);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, X0, WQ0, WK0, [2, 1]);
      expect(one(numbers, 'dot').text).toBe('3'); // (1, 1)·(1, 2)
      await expectParams(page, CH, { cell: '2,1' });
      await expectAllLogged(page, TAG);
    });
  });

  test('editing X, W_Q (arrow key) and W_K gives the reference Q, K and S, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await input(page, 'x2', 2).fill('-2.5');
      await input(page, 'W_K row 2', 0).fill('3');
      await pressOn(page, TAG, 'input[data-row="W_Q row 1"][data-index="1"]', 'ArrowUp'); // 0 -> 1
      const x = X0.map((r) => [...r]);
      x[1][2] = -2.5;
      const wq = WQ0.map((r) => [...r]);
      wq[0][1] = 1;
      const wk = WK0.map((r) => [...r]);
      wk[1][0] = 3;
      const s = await stateOf(page, TAG);
      expect(s.x).toEqual(x);
      expect(s.wq).toEqual(wq);
      expect(s.wk).toEqual(wk);
      await page.locator(`${TAG} [data-cell="2-4"]`).click();
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, x, wq, wk, [2, 4]);
      await expectAllLogged(page, TAG);

      await expectParams(page, CH, {
        x: '1,0,1;0,2,-2.5;2,1,0;-1,0,2',
        wq: '1,1;0,1;1,-1',
        wk: '0,1;3,0;1,1',
        cell: '2,4',
      });

      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        const reopened = await readNumbers(copy.page, TAG);
        expect(reopened.filter((n) => n.role !== 'readout').map((n) => n.text)).toEqual(
          numbers.filter((n) => n.role !== 'readout').map((n) => n.text),
        );
        expectMatches(reopened, x, wq, wk, [2, 4]);
        expect(await input(copy.page, 'x2', 2).inputValue()).toBe('-2.5');
      });
    });
  });

  test('a URL with fractional inputs matches the reference; an entry out of range is flagged and waits', async () => {
    const [X, WQ, WK] = [
      '0.3,-1.7,2.2;4.9,0.1,-3.3;-0.25,1.5,0.75;2,-2,5',
      '0.1,-0.7;1.3,0.9;-2.2,0.4',
      '-1.1,0.6;0.35,-4.5;2.8,1.9',
    ];
    const [x, wq, wk] = [X, WQ, WK].map(rowsOf);
    await withChapter(env, CH, TAG, { search: `?ch=qkt&v=1&x=${X}&wq=${WQ}&wk=${WK}&cell=4,4` }, async ({ page }) => {
      expectMatches(await readNumbers(page, TAG), x, wq, wk, [4, 4]);
      await expectAllLogged(page, TAG);

      await input(page, 'x1', 0).fill('9'); // out of range [-5, 5]
      await expect(input(page, 'x1', 0).getAttribute('aria-invalid')).resolves.toBe('true');
      expect(await textIn(page, TAG, '.note')).toContain('x1, entry 1');
      expect(await stale(page)).toBe(true);
      await input(page, 'x3', 1).fill('2'); // waits while x1 is out of range
      expect((await stateOf(page, TAG)).x[2][1]).toBe(1.5);
      await input(page, 'x1', 0).fill('1');
      const x2 = x.map((r) => [...r]);
      x2[0][0] = 1;
      x2[2][1] = 2;
      expect((await stateOf(page, TAG)).x).toEqual(x2);
      expect(await stale(page)).toBe(false);
      expectMatches(await readNumbers(page, TAG), x2, wq, wk, [4, 4]);
    });
  });
});
