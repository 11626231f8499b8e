// "Multi-head attention" (#ch-multi-head, <ag-multi-head>): the output and the per-head weights against a
// float64 multi-head attention written here; the named heads peak where their names say.
import { describe, expect, test } from '@jest/globals';
import {
  expectClean,
  openPage,
  predictChoice,
  settledUrl,
  stateOf,
  urlParams,
  useEnv,
  waitReady,
  withChapter,
} from './helpers.mjs';
import { expectAllLogged, expectClose, readNumbers, matrixOf, expectThreeDigits, one } from './shown-numbers.mjs';
import { multiHeadRows } from './reference-rows.mjs';

const TAG = 'ag-multi-head';
const CH = 'multi-head';

async function check(page) {
  const numbers = await readNumbers(page, TAG);
  const inputs = await page.locator(TAG).evaluate((el) => JSON.parse(JSON.stringify(el.inputs)));
  // The word columns of X are shown wasm results (the positional code, columns 1-2, is typed-in input).
  const X = matrixOf(numbers, 'x');
  X.forEach((r, i) => r.forEach((x, j) => j >= 2 && expect(x).toBe(inputs.X[i][j])));
  expect(X.every((r) => r[0] === undefined && r[1] === undefined)).toBe(true);
  const ref = multiHeadRows(inputs.X, inputs.weights, inputs.numHeads);
  const out = matrixOf(numbers, 'out');
  const scale = Math.max(1, ...ref.output.flat().map(Math.abs));
  ref.output.forEach((r, i) =>
    r.forEach((x, j) => expectClose(out[i][j], x, 5e-5 * scale, `output[${i + 1},${j + 1}]`)),
  );
  ref.weights.forEach((A, k) => {
    const got = matrixOf(numbers, `weight-h${k + 1}`);
    A.forEach((r, i) =>
      r.forEach((x, j) => expectClose(got[i][j], x, 5e-5 * 30, `head ${k + 1} A[${i + 1},${j + 1}]`)),
    );
  });
  expect(one(numbers, 'check').value).toBeLessThan(1e-8);
  // Shown: 3 significant digits; the heat-map cells 2 decimals.
  expectThreeDigits(numbers, (n) => n.role.startsWith('weight-h'));
  return { numbers, inputs, ref };
}

const argmaxes = (row) => {
  const m = Math.max(...row);
  return row.flatMap((x, j) => (x === m || Math.abs(x - m) < 1e-6 ? [j] : []));
};

const env = useEnv();

describe('multi-head: multi-head attention', () => {
  test('the named heads of "the cat saw the dog" peak where their names say; output and weights match float64', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const { inputs, ref, numbers } = await check(page);
      expect(inputs.patterns).toEqual(['previous', 'same', 'first']);
      const words = inputs.words;
      const T = words.length;
      const peaks = {
        previous: (i) => [Math.max(0, i - 1)],
        first: () => [0],
        same: (i) => words.flatMap((w, j) => (w === words[i] ? [j] : [])),
      };
      for (let k = 0; k < 3; k += 1) {
        const A = matrixOf(numbers, `weight-h${k + 1}`);
        for (let i = 0; i < T; i += 1) {
          const peak = argmaxes(A[i]);
          expect(peak).toEqual(peaks[inputs.patterns[k]](i));
          // The peak is clear: at least 0.4 of the row (the same-word head shares it between copies).
          expect(Math.max(...A[i])).toBeGreaterThan(0.4);
          // The reference agrees on the peak.
          expect(argmaxes(ref.weights[k][i])).toEqual(peak);
        }
      }
      const shapes = (await page.locator(`${TAG} [data-shape]`).allTextContents()).join(' ');
      for (const shape of ['[1, 3, 5, 4]', '[1, 3, 5, 5]']) expect(shapes).toContain(shape);
      expect(await page.locator(`${TAG} [data-role="dims"]`).textContent()).toBe(
        'd_model = 12, h = 3, d_k = d_v = d_model / h = 4',
      );
      const kernels = await page.evaluate(() => [...new Set(window.__agCallLog.map((c) => c.kernel))]);
      expect(kernels).toEqual(expect.arrayContaining(['attention', 'multi_head_attention']));
    });
  });

  test('choosing d_model, h and weights by keyboard and mouse, a new sentence, and the URL', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} input[name="heads"][value="6"]`).check();
      expect(await stateOf(page, TAG).then((s) => s.heads)).toBe(6);
      await check(page);
      expect(await page.locator(`${TAG} .head-map`).count()).toBe(6);
      await page.locator(`${TAG} input[name="dmodel"][value="8"]`).check();
      expect(await page.locator(TAG).evaluate((el) => [el.state.dmodel, el.state.heads])).toEqual(['8', 4]);
      expect(await page.locator(`${TAG} input[name="heads"][value="3"]`).isDisabled()).toBe(true);
      // Keyboard on the radio group: arrow keys move the choice.
      await page.locator(`${TAG} input[name="preset"][value="named"]`).focus();
      await page.keyboard.press('ArrowRight');
      expect(await page.locator(TAG).evaluate((el) => el.state.preset)).toBe('random');
      await check(page);
      const input = page.locator(`${TAG} .sentence-input`);
      await input.fill('birds sing at dawn');
      await input.press('Enter');
      await page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, TAG);
      // Heat-map keys: Enter on head 2, row 3 selects that head and query.
      await page.locator(`${TAG} .head-map[data-head="2"] [data-cell="1-1"]`).focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      expect(await page.locator(TAG).evaluate((el) => [el.state.head, el.state.query])).toEqual([2, 3]);
      const { numbers } = await check(page);
      await expectAllLogged(page, TAG);
      const params = await urlParams(page);
      const link = Object.fromEntries(['dmodel', 'heads', 'preset', 'head'].map((name) => [name, params.get(name)]));
      expect(link).toEqual({ dmodel: '8', heads: '4', preset: 'random', head: '2' });
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        expect((await readNumbers(copy.page, TAG)).map((n) => n.value)).toEqual(numbers.map((n) => n.value));
      });
    });
  });

  test('a URL with another model size reopens it; h that does not divide d_model gives a note', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&dmodel=6&heads=2&preset=named` }, async ({ page }) => {
      await check(page);
      await expectAllLogged(page, TAG);
    });
    // h = 3 with d_model = 8: neither h nor the default h divides 8, so both go back to their
    // defaults (12 and 3); the note names both, and the widget computes (never stuck loading).
    const bad = await openPage(env, `?ch=${CH}&v=1&dmodel=8&heads=3&agtest=1#ch-${CH}`);
    await waitReady(bad.page, TAG);
    const note = await bad.page.locator(`${TAG} .note`).textContent();
    expect(note).toMatch(/heads=3 \u2014 expected a number of heads that divides d_model = 8: 1, 2, 4/);
    expect(note).toMatch(/dmodel=8 \u2014 expected a d_model that h = 3 divides/);
    expect(await bad.page.locator(TAG).evaluate((el) => [el.state.dmodel, el.state.heads])).toEqual(['12', 3]);
    expect(bad.problems.foreign).toEqual([]);
    await bad.context.close();
    // h = 5 with d_model = 12: h alone goes back to 3; a radio is checked and the numbers are computed.
    const five = await openPage(env, `?ch=${CH}&v=1&heads=5&agtest=1#ch-${CH}`);
    await waitReady(five.page, TAG);
    expect(await five.page.locator(`${TAG} .note`).textContent()).toMatch(
      /heads=5 \u2014 expected a number of heads that divides d_model = 12/,
    );
    expect(await five.page.locator(`${TAG} input[name="heads"]:checked`).getAttribute('value')).toBe('3');
    expect(await five.page.locator(TAG).evaluate((el) => el.stateText)).toMatch(/&heads=3&/);
    await expectClean(five);
    await five.context.close();
  });

  test('predict, then reveal: the same-word head splits between the two "the"', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&preset=random` }, async ({ page }) => {
      await predictChoice(page, TAG, 'itself', 'wrong');
      expect(await page.locator(TAG).evaluate((el) => el.state.preset)).toBe('named');
      const { numbers } = await check(page);
      const row = matrixOf(numbers, 'weight-h2')[3];
      expect(row[0]).toBe(row[3]);
      await predictChoice(page, TAG, 'both', 'right');
    });
  });

  // The 12 columns of X and MultiHead(X), and the formulas, are wider than the
  // card at these widths: they scroll, and say so (a shadow on the side with more).
  test.each([1024, 375])(
    'at %i px a wide table or formula shows that it scrolls; the keyboard scrolls it to column 12',
    async (width) => {
      await withChapter(env, CH, TAG, { width }, async ({ page }) => {
        const box = page.locator(`${TAG} .mat-wrap:has([data-role="x-table"])`);
        const fits = await box.evaluate((el) => el.scrollWidth - el.clientWidth <= 1);
        const lastHeader = box.locator('thead th').last();
        await expect(lastHeader.textContent()).resolves.toBe('12');
        /** Whether column 12's header lies within the box's visible width. */
        const inView = () =>
          box.evaluate((el) => {
            const r = el.getBoundingClientRect();
            const c = el.querySelector('thead th:last-child').getBoundingClientRect();
            return c.left >= r.left - 1 && c.right <= r.right + 1;
          });
        if (fits) {
          expect(await inView()).toBe(true);
          return;
        }
        const sign = () =>
          box.evaluate((el) => ({ sides: el.dataset.scrollMore, image: getComputedStyle(el).backgroundImage }));
        await page.waitForFunction((el) => el.dataset.scrollMore === 'end', await box.elementHandle());
        expect(await inView()).toBe(false);
        const start = await sign();
        expect(start.image).toMatch(/^linear-gradient/);
        expect(start.image.match(/gradient/g)).toHaveLength(1);
        // Reached by Tab, named, scrolled by the arrow keys.
        await expect(box.getAttribute('tabindex')).resolves.toBe('0');
        await expect(box.getAttribute('aria-label')).resolves.toMatch(/^X \(wider than the screen/);
        await box.focus();
        await page.keyboard.press('ArrowRight');
        await page.waitForFunction((el) => el.dataset.scrollMore === 'start end', await box.elementHandle());
        expect((await sign()).image.match(/gradient/g)).toHaveLength(2);
        for (let i = 0; i < 60 && !(await inView()); i += 1) await page.keyboard.press('ArrowRight');
        await page.waitForFunction((el) => el.dataset.scrollMore === 'start', await box.elementHandle());
        expect(await inView()).toBe(true);
        // A formula wider than its panel gets the same sign.
        const formulas = page.locator(`${TAG} .katex-display`);
        const wide = await formulas.evaluateAll(
          (els) => els.filter((el) => el.scrollWidth - el.clientWidth > 1).length,
        );
        if (width < 500) expect(wide).toBeGreaterThan(0);
        expect(await page.locator(`${TAG} .katex-display[data-scroll-more="end"]`).count()).toBe(wide);
      });
    },
  );
});
