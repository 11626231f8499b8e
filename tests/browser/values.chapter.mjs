// "Values do the work" (#ch-values, <ag-value-mix>): weights set by
// sliders, values dragged by mouse and keyboard, T changed by buttons and by
// the URL; y = Σ αⱼvⱼ and each term αⱼvⱼ checked against a float64 reference. The links of T = 4 and
// T = 8 are opened as links: the contract's round trip (after the reveal) has T = 3.
import { expect } from '@jest/globals';
import { byRole, chapterTests, expectClose, expectRole, expectTexts, one, rowsOf, U } from './chapter-tests.mjs';

/** Checks y, each term alpha_j v_j and the sum of the weights against float64. */
function match(numbers, alpha, values) {
  const terms = values.map((v, j) => v.map((x) => alpha[j] * x));
  const magnitude = terms.flat().reduce((s, t) => s + Math.abs(t), 0);
  const tol = 4 * values.length * U * magnitude + 1e-12;
  expect(byRole(numbers, 'y')).toHaveLength(2);
  const y = [0, 1].map((i) => terms.reduce((s, t) => s + t[i], 0));
  expectRole(numbers, 'y', y, tol, { extra: tol });
  expect(byRole(numbers, 'term')).toHaveLength(2 * values.length);
  const t = (ref) => 2 * U * Math.abs(ref);
  const termTol = (ref) => t(ref) + 1e-12;
  expectRole(numbers, 'term', terms.flat(), termTol, (ref) => ({ extra: t(ref) }));
  const sum = alpha.reduce((s, a) => s + a, 0);
  expectClose(one(numbers, 'sum').value, sum, 4 * values.length * U * sum + 1e-12, 'sum of the weights');
  expect(one(numbers, 'dv').value).toBe(2);
}

const V0 = rowsOf('1,5;5,1;-4,-3');
const it = chapterTests({ ch: 'values', tag: 'ag-value-mix', match });

it('opens with three values and weights (0.5, 0.3, 0.2); y is their weighted sum; the page has a Part 2 heading; predict, then reveal: moving v1 by 2 with alpha1 = 0.5 moves y by 1', async (w) => {
  const { numbers } = await w.matches([0.5, 0.3, 0.2], V0);
  expectTexts(numbers, { y: ['1.2', '2.2'], sum: '1' });
  expect(await w.katex()).toBeGreaterThan(0);
  // The shell: a Part 2 heading in the contents and before this section; the numbers go on from part 1's 16.
  const { page } = w;
  await expect(page.locator('#toc .toc-part[data-part="2"]').textContent()).resolves.toMatch(/Part 2/);
  await expect(page.locator('#toc li[data-chapter="values"] a').textContent()).resolves.toMatch(
    /^17\. Values do the work/,
  );
  const heading = () => document.querySelector('#chapters .part-heading[data-part="2"]')?.nextElementSibling?.id;
  expect(await page.evaluate(heading)).toBe('ch-values');
  const values = rowsOf('3,5;5,1;-4,-3');
  await w.reveal({ wrong: '0', says: /y moved 1\b/, part: { values }, args: [[0.5, 0.3, 0.2], values], right: '1' });
});

it('drag a value, key another, move a slider, add a value: float64 reference each time, and the URL reopens the state', async (w) => {
  await w.dragPoint('v1', [-5, -1.5]);
  const values = rowsOf('-5,-1.5;5,1;-4,-3');
  expect((await w.state()).values).toEqual(values);
  await w.matches([0.5, 0.3, 0.2], values);

  await w.keyPoint('v3', ['ArrowLeft', 'Shift+ArrowUp']);
  values[2] = [-4.25, -2];
  expect((await w.state()).values).toEqual(values);
  expect(await w.attr('[data-point="v3"]', 'aria-valuetext')).toBe('v3 = (\u22124.25, \u22122)');

  // The slider of alpha2: keys step 0.05.
  await w.press('input[data-alpha="2"]', 'ArrowRight', 2);
  const { alpha } = await w.state();
  expect(alpha[1]).toBeCloseTo(0.4, 12);
  const ys = async (...args) => byRole((await w.matches(...args)).numbers, 'y').map((n) => n.value);
  const before = await ys(alpha, values);

  // A fourth value, with weight 0 until its slider moves: y does not change.
  await w.at('button[data-action="add"]').click();
  values.push([-4, 3]);
  const alpha4 = [...alpha, 0];
  expect(await ys(alpha4, values)).toEqual(before);
  await w.press('input[data-alpha="4"]', 'End'); // alpha4 = 1
  alpha4[3] = 1;
  const { numbers } = await w.matches(alpha4, values);
  await w.logged();

  const params = await w.params({ values: '-5,-1.5;5,1;-4.25,-2;-4,3' });
  expect(params.get('alpha').split(',').map(Number)).toEqual(alpha4);
  await w.copyOpens(numbers);
});

const V8 = '1,0;0,1;-1,0;0,-1;2,2;-2,2;-2,-2;2,-2';
const A8 = [0.1, 0.2, 0.05, 0.15, 0.1, 0.1, 0.25, 0.05];
it('a URL with T = 8 (no more can be added)', async (w) => {
  await w.matches(A8, rowsOf(V8));
  expect(await w.at('button[data-action="add"]').isDisabled()).toBe(true);
  await w.logged();
}).at({ link: `values=${V8}&alpha=${A8}` });

const FEWER = 'values=1,0;0,1;1,1&alpha=0,1';
it('a URL whose weights are fewer than its values: the weights go back to their default, with a note', async (w) => {
  await w.matches([0.5, 0.3, 0.2], rowsOf('1,0;0,1;1,1'));
  await expect(w.text('.note:not([hidden])')).resolves.toMatch(/alpha=0,1 \u2014 expected 3 weights, one per value/);
}).at(FEWER);
