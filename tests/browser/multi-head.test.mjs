// "Multi-head attention" (#ch-multi-head, <ag-multi-head>): the output and the per-head weights against a
// float64 multi-head attention written here; the named heads peak where their names say. The link read back
// here is taken in the same page; a copy in a new page is the contract's link round trip.
import { describe, expect, test } from '@jest/globals';
import { urlParams } from './helpers.mjs';
import { matrixOf, expectThreeDigits, one } from './shown-numbers.mjs';
import { multiHeadRows } from './reference-rows.mjs';
import { chapterWidget, expectStages, linkCases, predictCases } from './chapter-widget.mjs';

const TAG = 'ag-multi-head';
const c = chapterWidget('multi-head', TAG);

async function check(page) {
  const numbers = await c.numbers(page);
  const inputs = await c.el(page).evaluate((el) => JSON.parse(JSON.stringify(el.inputs)));
  // The word columns of X are shown wasm results (the positional code, columns 1-2, is typed-in input).
  const X = matrixOf(numbers, 'x');
  X.forEach((r, i) => r.forEach((x, j) => j >= 2 && expect(x).toBe(inputs.X[i][j])));
  expect(X.every((r) => r[0] === undefined && r[1] === undefined)).toBe(true);
  const ref = multiHeadRows(inputs.X, inputs.weights, inputs.numHeads);
  const scale = Math.max(1, ...ref.output.flat().map(Math.abs));
  expectStages(numbers, [
    ['out', ref.output, 5e-5 * scale],
    ...ref.weights.map((A, k) => [`weight-h${k + 1}`, A, 5e-5 * 30]),
  ]);
  expect(one(numbers, 'check').value).toBeLessThan(1e-8);
  // Shown: 3 significant digits; the heat-map cells 2 decimals.
  expectThreeDigits(numbers, (n) => n.role.startsWith('weight-h'));
  return { numbers, inputs, ref };
}

const argmaxes = (row) => {
  const m = Math.max(...row);
  return row.flatMap((x, j) => (x === m || Math.abs(x - m) < 1e-6 ? [j] : []));
};

describe('multi-head: multi-head attention', () => {
  test('the named heads of "the cat saw the dog" peak where their names say; output and weights match float64', () =>
    c.open(async ({ page }) => {
      const { inputs, ref, numbers } = await check(page);
      expect(inputs.patterns).toEqual(['previous', 'same', 'first']);
      const words = inputs.words;
      const peaks = {
        previous: (i) => [Math.max(0, i - 1)],
        first: () => [0],
        same: (i) => words.flatMap((w, j) => (w === words[i] ? [j] : [])),
      };
      for (let k = 0; k < 3; k += 1) {
        const A = matrixOf(numbers, `weight-h${k + 1}`);
        for (let i = 0; i < words.length; i += 1) {
          const peak = argmaxes(A[i]);
          expect(peak).toEqual(peaks[inputs.patterns[k]](i));
          // The peak is clear: at least 0.4 of the row (the same-word head shares it between copies).
          expect(Math.max(...A[i])).toBeGreaterThan(0.4);
          // The reference agrees on the peak.
          expect(argmaxes(ref.weights[k][i])).toEqual(peak);
        }
      }
      const shapes = (await c.el(page, '[data-shape]').allTextContents()).join(' ');
      for (const shape of ['[1, 3, 5, 4]', '[1, 3, 5, 5]']) expect(shapes).toContain(shape);
      await c.see(page, { '[data-role="dims"]': 'd_model = 12, h = 3, d_k = d_v = d_model / h = 4' });
      const kernels = await page.evaluate(() => [...new Set(window.__agCallLog.map((c) => c.kernel))]);
      expect(kernels).toEqual(expect.arrayContaining(['attention', 'multi_head_attention']));
    }));

  test('choosing d_model, h and weights by keyboard and mouse, a new sentence, and the URL', () =>
    c.open(async ({ page }) => {
      await c.el(page, 'input[name="heads"][value="6"]').check();
      expect((await c.state(page)).heads).toBe(6);
      await check(page);
      await c.see(page, { '.head-map': 6 });
      await c.el(page, 'input[name="dmodel"][value="8"]').check();
      expect(await c.state(page)).toMatchObject({ dmodel: '8', heads: 4 });
      await c.see(page, { 'input[name="heads"][value="3"]': { disabled: true } });
      // Keyboard on the radio group: arrow keys move the choice.
      await c.keys(page, 'input[name="preset"][value="named"]', ['ArrowRight', { preset: 'random' }]);
      await check(page);
      const input = c.el(page, '.sentence-input');
      await input.fill('birds sing at dawn');
      await input.press('Enter');
      await page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, TAG);
      // Heat-map keys: Enter on head 2, row 3 selects that head and query.
      await c.keys(page, '.head-map[data-head="2"] [data-cell="1-1"]', [
        ['ArrowDown', 'ArrowDown', 'Enter'],
        { head: 2, query: 3 },
      ]);
      const { numbers } = await check(page);
      await c.logged(page);
      const params = await urlParams(page);
      const link = Object.fromEntries(['dmodel', 'heads', 'preset', 'head'].map((name) => [name, params.get(name)]));
      expect(link).toEqual({ dmodel: '8', heads: '4', preset: 'random', head: '2' });
      await c.again(page, numbers, { by: 'value' });
    }));

  linkCases(c, [
    {
      name: 'a URL with another model size reopens it',
      params: 'dmodel=6&heads=2&preset=named',
      async then({ page }) {
        await check(page);
        await c.logged(page);
      },
    },
    {
      // h = 3 with d_model = 8: neither h nor the default h divides 8, so both go back to their
      // defaults (12 and 3); the note names both, and the widget computes (never stuck loading).
      name: 'h that does not divide d_model, nor the default h, gives a note, and both go back to their defaults',
      params: 'dmodel=8&heads=3',
      options: { clean: false },
      part: { dmodel: '12', heads: 3 },
      note: [
        'heads=3 \u2014 expected a number of heads that divides d_model = 8: 1, 2, 4',
        'dmodel=8 \u2014 expected a d_model that h = 3 divides',
      ],
      then: ({ problems }) => expect(problems.foreign).toEqual([]),
    },
    {
      // h = 5 with d_model = 12: h alone goes back to 3; a radio is checked and the numbers are computed.
      name: 'h that does not divide d_model gives a note, and h goes back to 3',
      params: 'heads=5',
      note: ['heads=5 \u2014 expected a number of heads that divides d_model = 12'],
      async then({ page }) {
        expect(await c.el(page, 'input[name="heads"]:checked').getAttribute('value')).toBe('3');
        expect(await c.el(page).evaluate((el) => el.stateText)).toMatch(/&heads=3&/);
      },
    },
  ]);

  predictCases(c, [
    {
      name: 'predict, then reveal: the same-word head splits between the two "the"',
      params: 'preset=random',
      wrong: 'itself',
      state: { preset: 'named' },
      async then(page) {
        const row = matrixOf((await check(page)).numbers, 'weight-h2')[3];
        expect(row[0]).toBe(row[3]);
      },
      right: 'both',
    },
  ]);

  // The 12 columns of X and MultiHead(X), and the formulas, are wider than the
  // card at these widths: they scroll, and say so (a shadow on the side with more).
  test.each([1024, 375])(
    'at %i px a wide table or formula shows that it scrolls; the keyboard scrolls it to column 12',
    (width) =>
      c.open(async ({ page }) => {
        await page.setViewportSize({ width, height: 900 });
        const box = c.el(page, '.mat-wrap:has([data-role="x-table"])');
        await box.evaluate((el) => el.scrollTo({ left: 0 })); // at its left edge, as a new page shows it
        const fits = await box.evaluate((el) => el.scrollWidth - el.clientWidth <= 1);
        expect(await box.locator('thead th').last().textContent()).toBe('12');
        /** Whether column 12's header lies within the box's visible width. */
        const inView = () =>
          box.evaluate((el) => {
            const r = el.getBoundingClientRect();
            const c = el.querySelector('thead th:last-child').getBoundingClientRect();
            return c.left >= r.left - 1 && c.right <= r.right + 1;
          });
        if (fits) return expect(await inView()).toBe(true);
        const sign = () =>
          box.evaluate((el) => ({ sides: el.dataset.scrollMore, image: getComputedStyle(el).backgroundImage }));
        const sides = async (v) =>
          page.waitForFunction(([el, s]) => el.dataset.scrollMore === s, [await box.elementHandle(), v]);
        await sides('end');
        expect(await inView()).toBe(false);
        const start = await sign();
        expect(start.image).toMatch(/^linear-gradient/);
        expect(start.image.match(/gradient/g)).toHaveLength(1);
        // Reached by Tab, named, scrolled by the arrow keys.
        expect(await box.getAttribute('tabindex')).toBe('0');
        expect(await box.getAttribute('aria-label')).toMatch(/^X \(wider than the screen/);
        await box.focus();
        await page.keyboard.press('ArrowRight');
        await sides('start end');
        expect((await sign()).image.match(/gradient/g)).toHaveLength(2);
        for (let i = 0; i < 60 && !(await inView()); i += 1) await page.keyboard.press('ArrowRight');
        await sides('start');
        expect(await inView()).toBe(true);
        // A formula wider than its panel gets the same sign.
        const wide = await c
          .el(page, '.katex-display')
          .evaluateAll((els) => els.filter((el) => el.scrollWidth - el.clientWidth > 1).length);
        if (width < 500) expect(wide).toBeGreaterThan(0);
        expect(await c.el(page, '.katex-display[data-scroll-more="end"]').count()).toBe(wide);
      }),
  );
});
