// "The atom of attention" (#ch-atom, <ag-attention-atom>): the heat map S = QKᵀ and the chosen cell's dot
// product against a float64 reference after hovering and focusing cells, drags, arrow keys and a URL.
import { describe, expect, test } from '@jest/globals';
import {
  expectParams,
  expectReopens,
  overflow,
  predictChoice,
  pressKeys,
  rowsOf,
  urlParams,
  useEnv,
  withChapter,
} from './helpers.mjs';
import { dragTo, keyPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers as readAll, U } from './shown-numbers.mjs';

const TAG = 'ag-attention-atom';
const CH = 'atom';
const N = 4;
const Q0 = rowsOf('0.5,0.5;1,2;2,0.5;-1,1.5');
const K0 = rowsOf('0.5,-0.5;2,1.5;-1,1;2.5,-0.5');

/** float64 reference: S[i][j] = q_i . k_j, and each term. */
function reference(q, k) {
  const S = q.map((qi) => k.map((kj) => qi[0] * kj[0] + qi[1] * kj[1]));
  const terms = (i, j) => [q[i][0] * k[j][0], q[i][1] * k[j][1]];
  const magnitude = (i, j) => Math.abs(q[i][0] * k[j][0]) + Math.abs(q[i][1] * k[j][1]);
  return { S, terms, magnitude };
}

/** Every cell of the grid, the legend marks and the chosen pair against the reference. */
function expectMatches(numbers, q, k, cell) {
  const ref = reference(q, k);
  for (let i = 0; i < N; i += 1) {
    for (let j = 0; j < N; j += 1) {
      const s = one(numbers, 'score', `${i + 1}-${j + 1}`);
      const tol = 3 * U * ref.magnitude(i, j) + 1e-12;
      expectClose(s.value, ref.S[i][j], tol, `S${i + 1}${j + 1}`);
      expectShown(s, ref.S[i][j], { digits: 3, extra: tol });
    }
  }
  const flat = ref.S.flat();
  expectClose(one(numbers, 'score-lowest').value, Math.min(...flat), 1e-5, 'lowest');
  expectClose(one(numbers, 'score-highest').value, Math.max(...flat), 1e-5, 'highest');
  const [i, j] = [cell[0] - 1, cell[1] - 1];
  const t = ref.terms(i, j);
  byRole(numbers, 'term').forEach((n, c) => {
    expectClose(n.value, t[c], 2 * U * Math.abs(t[c]), `term ${c + 1}`);
    expectShown(n, t[c]);
  });
  const dot = one(numbers, 'dot');
  expectClose(dot.value, ref.S[i][j], 3 * U * ref.magnitude(i, j) + 1e-12, 'q.k');
  expectShown(dot, ref.S[i][j], { extra: 3 * U * ref.magnitude(i, j) });
  return ref;
}

const state = (page) => page.locator(TAG).evaluate((el) => el.state);

/** The numbers shown; a bracketed negative value "(−1)" (after a + sign) is read as −1. */
async function readNumbers(page, tag) {
  return (await readAll(page, tag)).map((n) =>
    /^\(.*\)$/.test(n.text) ? { ...n, shown: Number(n.text.slice(1, -1).replace(/\u2212/g, '-')) } : n,
  );
}

const env = useEnv();

describe('atom: the atom of attention', () => {
  test('opens on the default sentence: the grid is QKᵀ and the chosen cell S32 = 2×2 + 0.5×1.5 = 4.75, every number logged; predict, then reveal: S23 and S32 differ', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, Q0, K0, [3, 2]);
      expect(one(numbers, 'dot').text).toBe('4.75');
      expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['4', '0.75']);
      expect(numbers.filter((n) => n.role === 'score')).toHaveLength(16);
      // The grid came from one matmul with transposeB (the scores kernel).
      const kernels = await page.evaluate(() => window.__agCallLog.map((c) => c.kernel));
      expect(kernels.some((k) => /matmul/.test(k))).toBe(true);
      // Cells carry their value and position for screen readers; shapes are typeset.
      await expect(page.locator(`${TAG} [data-cell="3-2"]`).getAttribute('aria-label')).resolves.toBe(
        'S32: query of \u201cate\u201d with key of \u201ccat\u201d = 4.75',
      );
      await expect(page.locator(`${TAG} [data-cell="3-2"]`).getAttribute('aria-selected')).resolves.toBe('true');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'equal', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(
        /S\u2082\u2083 = q\u2082\u00b7k\u2083 = 1 but S\u2083\u2082 = q\u2083\u00b7k\u2082 = 4\.75/,
      );
      expect((await state(page)).cell).toEqual([2, 3]);
      expectMatches(await readNumbers(page, TAG), Q0, K0, [2, 3]);
      await predictChoice(page, TAG, 'different', 'right');
    });
  });

  test('hovering and focusing cells picks the pair: the other vectors fade and the dot product follows', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} [data-cell="1-4"]`).hover();
      expect((await state(page)).cell).toEqual([1, 4]);
      expectMatches(await readNumbers(page, TAG), Q0, K0, [1, 4]);
      const faded = await page
        .locator(TAG)
        .evaluate((el) =>
          Object.fromEntries(
            [...el.shadowRoot.querySelectorAll('[data-point]')].map((n) => [
              n.dataset.point,
              n.classList.contains('is-faded'),
            ]),
          ),
        );
      expect(faded).toEqual({ q1: false, q2: true, q3: true, q4: true, k1: true, k2: true, k3: true, k4: false });

      // Keyboard: the grid is one Tab stop; arrows move the focused cell, which is chosen.
      await page.locator(`${TAG} [data-cell="1-4"]`).focus();
      await pressKeys(page, 'ArrowDown', 'ArrowLeft', 'ArrowLeft');
      expect((await state(page)).cell).toEqual([2, 2]);
      expect(await page.locator(TAG).evaluate((el) => el.shadowRoot.activeElement?.dataset.cell)).toBe('2-2');
      const tabbable = await page
        .locator(TAG)
        .evaluate((el) => [...el.shadowRoot.querySelectorAll('.hm-cell[tabindex="0"]')].map((n) => n.dataset.cell));
      expect(tabbable).toEqual(['2-2']);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, Q0, K0, [2, 2]);
      expect(one(numbers, 'dot').text).toBe('5'); // (1, 2)·(2, 1.5) = 2 + 3
      await expectAllLogged(page, TAG);
      expect((await urlParams(page)).get('cell')).toBe('2,2');
      // A hovered cell does not widen the page on a phone (light and dark alike: the contract).
      await page.setViewportSize({ width: 320, height: 1000 });
      await page.locator(`${TAG} [data-cell="2-3"]`).hover();
      expect(await overflow(page)).toBeLessThanOrEqual(0);
    });
  });

  test('dragging q2 with the mouse and k4 with the keyboard updates the grid to the reference, and the URL reopens it', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'q2', [-2, 1.5]);
      const q = Q0.map((r) => [...r]);
      q[1] = [-2, 1.5];
      let s = await state(page);
      expect(s.q).toEqual(q);
      expect(s.cell).toEqual([2, 2]); // dragging a query chooses its row
      expectMatches(await readNumbers(page, TAG), q, K0, [2, 2]);

      await keyPoint(page, TAG, 'k4', ['ArrowLeft', 'ArrowLeft', 'Shift+ArrowUp']);
      const k = K0.map((r) => [...r]);
      k[3] = [2, 0.5];
      s = await state(page);
      expect(s.k).toEqual(k);
      expect(s.cell).toEqual([2, 4]);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, q, k, [2, 4]);
      expect(one(numbers, 'dot').text).toBe('\u22123.25'); // -4 + 0.75
      await expectAllLogged(page, TAG);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
        'k4 (fish) = (2, 0.5); S24 = \u22123.25',
      );
      await expect(page.locator(`${TAG} [data-point="k4"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'k4, key of \u201cfish\u201d = (2, 0.5)',
      );

      await expectParams(page, CH, { q: '0.5,0.5;-2,1.5;2,0.5;-1,1.5', k: '0.5,-0.5;2,1.5;-1,1;2,0.5', cell: '2,4' });

      const reopened = await expectReopens(env, page, CH, TAG, numbers);
      expectMatches(reopened, q, k, [2, 4]);
    });
  });

  test('a URL with other vectors shows their reference grid; a bad cell keeps the default with a note', async () => {
    const [q, k] = ['3,-3;0,0;-2.5,1.25;1,1', '-3,3;1.75,-0.5;0,2;-1,-1'];
    await withChapter(env, CH, TAG, { search: `?ch=atom&v=1&q=${q}&k=${k}&cell=1,1` }, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, rowsOf(q), rowsOf(k), [1, 1]);
      expect(one(numbers, 'dot').text).toBe('\u221218');
      expect(one(numbers, 'score-lowest').text).toBe('\u221218');
      await expectAllLogged(page, TAG);
    });

    await withChapter(env, CH, TAG, { search: '?ch=atom&v=1&cell=5,1' }, async (bad) => {
      expect((await state(bad.page)).cell).toEqual([3, 2]);
      await expect(bad.page.locator(`${TAG} .note`).textContent()).resolves.toContain('cell=5,1');
    });
  });
});
