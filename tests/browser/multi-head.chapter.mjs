// "Multi-head attention" (#ch-multi-head, <ag-multi-head>): the output and the per-head weights against a
// float64 multi-head attention written here; the named heads peak where their names say. The link read back
// here is taken in the same page; a copy in a new page is the contract's link round trip.
import { expect } from '@jest/globals';
import { multiHeadRows } from './reference-rows.mjs';
import { chapterTests, expectStages, expectThreeDigits, matrixOf, one } from './chapter-tests.mjs';

const it = chapterTests({ ch: 'multi-head', tag: 'ag-multi-head' });

async function check(w) {
  const numbers = await w.read();
  const inputs = await w.at().evaluate((el) => JSON.parse(JSON.stringify(el.inputs)));
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

it('the named heads of "the cat saw the dog" peak where their names say; output and weights match float64', async (w) => {
  const { inputs, ref, numbers } = await check(w);
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
  const shapes = (await w.at('[data-shape]').allTextContents()).join(' ');
  for (const shape of ['[1, 3, 5, 4]', '[1, 3, 5, 5]']) expect(shapes).toContain(shape);
  await w.see({ '[data-role="dims"]': 'd_model = 12, h = 3, d_k = d_v = d_model / h = 4' });
  expect(await w.kernels()).toEqual(expect.arrayContaining(['attention', 'multi_head_attention']));
});
it('choosing d_model, h and weights by keyboard and mouse, a new sentence, and the URL', async (w) => {
  await w.at('input[name="heads"][value="6"]').check();
  expect((await w.state()).heads).toBe(6);
  await check(w);
  await w.see({ '.head-map': 6 });
  await w.at('input[name="dmodel"][value="8"]').check();
  expect(await w.state()).toMatchObject({ dmodel: '8', heads: 4 });
  await w.see({ 'input[name="heads"][value="3"]': { disabled: true } });
  // Keyboard on the radio group: arrow keys move the choice.
  await w.keys('input[name="preset"][value="named"]', ['ArrowRight', { preset: 'random' }]);
  await check(w);
  const input = w.at('.sentence-input');
  await input.fill('birds sing at dawn'); // no Enter: a pause in typing applies a good sentence
  await w.page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, w.tag);
  // Heat-map keys: Enter on head 2, row 3 selects that head and query.
  await w.keys('.head-map[data-head="2"] [data-cell="1-1"]', [
    ['ArrowDown', 'ArrowDown', 'Enter'],
    { head: 2, query: 3 },
  ]);
  const { numbers } = await check(w);
  await w.reopens(numbers, { by: 'value', params: { dmodel: '8', heads: '4', preset: 'random', head: '2' } });
});

it('a URL with another model size reopens it', async (w) => {
  await check(w);
  await w.logged();
}).at('dmodel=6&heads=2&preset=named');

it('h that does not divide d_model gives a note: h goes back to 3, or with d_model both go back to their defaults', async (w) => {
  // h = 5 with d_model = 12: h alone goes back to 3; a radio is checked and the numbers are computed.
  await w.link('heads=5', null, { note: ['heads=5 \u2014 expected a number of heads that divides d_model = 12'] });
  expect(await w.at('input[name="heads"]:checked').getAttribute('value')).toBe('3');
  expect(await w.at().evaluate((el) => el.stateText)).toMatch(/&heads=3&/);
  // h = 3 with d_model = 8: neither h nor the default h divides 8, so both go back to their
  // defaults (12 and 3); the note names both, and the widget computes (never stuck loading).
  const note = [
    'heads=3 \u2014 expected a number of heads that divides d_model = 8: 1, 2, 4',
    'dmodel=8 \u2014 expected a d_model that h = 3 divides',
  ];
  const own = { clean: false };
  await w.link('dmodel=8&heads=3', null, { own, part: { dmodel: '12', heads: 3 }, note }, (z) =>
    expect(z.opened.problems.foreign).toEqual([]),
  );
});

it('predict, then reveal: the same-word head splits between the two "the"', async (w) => {
  await w.reveal({ wrong: 'itself', part: { preset: 'named' }, right: 'both', logged: false });
  const row = matrixOf((await check(w)).numbers, 'weight-h2')[3];
  expect(row[0]).toBe(row[3]);
}).at('preset=random');

// The 12 columns of X and MultiHead(X), and the formulas, are wider than the
// card at these widths: they scroll, and say so (a shadow on the side with more).
for (const width of [1024, 375])
  it(`at ${width} px a wide table or formula shows that it scrolls; the keyboard scrolls it to column 12`, async (w) => {
    await w.page.setViewportSize({ width, height: 900 });
    const box = w.at('.mat-wrap:has([data-role="x-table"])');
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
      w.page.waitForFunction(([el, s]) => el.dataset.scrollMore === s, [await box.elementHandle(), v]);
    await sides('end');
    expect(await inView()).toBe(false);
    const start = await sign();
    expect(start.image).toMatch(/^linear-gradient/);
    expect(start.image.match(/gradient/g)).toHaveLength(1);
    // Reached by Tab, named, scrolled by the arrow keys.
    expect(await box.getAttribute('tabindex')).toBe('0');
    expect(await box.getAttribute('aria-label')).toMatch(/^X \(wider than the screen/);
    await box.focus();
    await w.page.keyboard.press('ArrowRight');
    await sides('start end');
    expect((await sign()).image.match(/gradient/g)).toHaveLength(2);
    for (let i = 0; i < 60 && !(await inView()); i += 1) await w.page.keyboard.press('ArrowRight');
    await sides('start');
    expect(await inView()).toBe(true);
    // A formula wider than its panel gets the same sign.
    const wide = await w
      .at('.katex-display')
      .evaluateAll((els) => els.filter((el) => el.scrollWidth - el.clientWidth > 1).length);
    if (width < 500) expect(wide).toBeGreaterThan(0);
    expect(await w.at('.katex-display[data-scroll-more="end"]').count()).toBe(wide);
  });
