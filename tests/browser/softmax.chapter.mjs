// "Softmax turns logits into weights" (#ch-softmax, <ag-softmax>): the
// textbook float32 softmax beside the stable one, checked against a float64
// reference after a mouse drag, arrow keys and a changed URL; the textbook
// kernel really gives NaN once a logit passes ln FLT_MAX ≈ 88.72, while the
// stable one keeps matching the reference.
import { expect } from '@jest/globals';
import { screenshot } from './helpers.mjs';
import { byRole, chapterTests, expectClose, expectRole, expectShown, one } from './chapter-tests.mjs';

const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** float64 reference (inputs rounded to float32 on the way in, as the API documents). */
function reference(s) {
  const x = s.map(Math.fround);
  const m = Math.max(...x);
  const shifted = x.map((v) => v - m);
  const stableExp = shifted.map(Math.exp);
  const stableSum = sum(stableExp);
  const exp = x.map(Math.exp);
  const expSum = sum(exp);
  const alpha = stableExp.map((e) => e / stableSum);
  return { shifted, stableExp, stableSum, alpha, exp, sum: expSum, overflows: exp.map((e) => e > FLT_MAX) };
}

/** Checks every number shown against the reference. */
function match(numbers, s) {
  const ref = reference(s);
  byRole(numbers, 'stable-alpha').forEach((a, j) => {
    expectClose(a.value, ref.alpha[j], 4e-7 + 4e-6 * ref.alpha[j], `stable alpha ${j + 1}`);
    if (ref.alpha[j] > 1e-30) expectShown(a, ref.alpha[j], { extra: 4e-6 * ref.alpha[j] });
    expect(Number.isNaN(a.value)).toBe(false);
  });
  expectRole(numbers, 'shifted', ref.shifted, (d) => 1e-5 * Math.max(1, Math.abs(d)));
  expectRole(numbers, 'stable-exp', ref.stableExp, (e) => 2e-5 * e + 1e-44);
  expectClose(one(numbers, 'stable-sum').value, ref.stableSum, 2e-5 * ref.stableSum, 'stable sum');
  byRole(numbers, 'naive-exp').forEach((e, j) => {
    if (ref.overflows[j]) expect(e.value).toBe(Infinity);
    else expectClose(e.value, ref.exp[j], 4e-6 * ref.exp[j] + 1e-44, `exp(s${j + 1})`);
  });
  const naiveSum = one(numbers, 'naive-sum').value;
  if (ref.sum > FLT_MAX) expect(naiveSum).toBe(Infinity);
  else expectClose(naiveSum, ref.sum, 1e-5 * ref.sum + 1e-44, 'textbook sum');
  byRole(numbers, 'naive-alpha').forEach((a, j) => {
    if (ref.overflows[j])
      expect(a.value).toBeNaN(); // ∞/∞
    else if (ref.sum > FLT_MAX)
      expect(a.value).toBe(0); // finite/∞
    else if (ref.sum > 1e-38) expectClose(a.value, ref.alpha[j], 1e-6 + 1e-5 * ref.alpha[j], `textbook alpha ${j + 1}`);
    else if (ref.exp.every((e) => Math.fround(e) === 0)) expect(a.value).toBeNaN(); // 0/0
  });
  return ref;
}

const broken = (w) => w.at('.side-naive').evaluate((el) => el.classList.contains('is-broken'));
const anyNaN = (numbers) => byRole(numbers, 'naive-alpha').some((a) => Number.isNaN(a.value));
const it = chapterTests({ ch: 'softmax', tag: 'ag-softmax', match });

it('opens on gentle logits: both softmaxes agree with the float64 reference; predict, then reveal: the textbook alpha_1 at s_1 = 90 is NaN', async (w) => {
  expect((await w.state()).s).toEqual([2, 1, 0.5, -1]);
  expect(anyNaN((await w.matches([2, 1, 0.5, -1])).numbers)).toBe(false);
  expect(await w.katex()).toBeGreaterThanOrEqual(2);
  expect(await broken(w)).toBe(false);
  const s = [90, 1, 0.5, -1];
  await w.reveal({ wrong: 'one', says: /NaN/, part: { s }, args: [s], right: 'nan' });
});

it('a mouse drag and arrow keys move the logits; the numbers follow the reference and the URL reopens them', async (w) => {
  // Drag s1's thumb (at 2) to about three quarters of the track (logit ≈ 60).
  await w.slide('input[data-logit="1"]', (2 + 120) / 240, 0.75);
  const afterDrag = (await w.state()).s;
  expect(afterDrag[0]).toBeGreaterThan(40);
  expect(afterDrag[0]).toBeLessThan(80);
  expect(afterDrag.slice(1)).toEqual([1, 0.5, -1]);
  await w.matches(afterDrag);

  // Keys: s2 up by three steps of 0.1.
  await w.press('input[data-logit="2"]', 'ArrowRight', 3);
  const { s } = await w.state();
  expectClose(s[1], 1.3, 1e-9, 's2 after three arrow presses');
  const { numbers } = await w.matches(s);
  await w.logged();
  await w.announced(`stable \u03b1\u2082 = ${one(numbers, 'stable-alpha', 2).text}`);
  expect((await w.params()).get('s').split(',').map(Number)).toEqual(s);
  await w.reopens(numbers);
});

it('the textbook kernel gives NaN once a logit passes 88.7, the stable one never does', async (w) => {
  // At 88.7 exp is still below FLT_MAX (float64 reference), at 88.8 above.
  expect(Math.exp(Math.fround(88.7))).toBeLessThan(FLT_MAX);
  expect(Math.exp(Math.fround(88.8))).toBeGreaterThan(FLT_MAX);
  let { numbers } = await w.matches([88.7, 1, 0.5, -1]);
  expect(anyNaN(numbers)).toBe(false);
  expect(Number.isFinite(one(numbers, 'naive-exp', 1).value)).toBe(true);

  // One arrow step further: 88.8.
  await w.press('input[data-logit="1"]', 'ArrowRight');
  const { s } = await w.state();
  expectClose(s[0], 88.8, 1e-9, 's1');
  let ref;
  ({ numbers, ref } = await w.matches(s));
  expect([one(numbers, 'naive-exp', 1).value, one(numbers, 'naive-sum').value]).toEqual([Infinity, Infinity]);
  expect(one(numbers, 'naive-exp', 1).text).toBe('\u221e');
  expect(one(numbers, 'naive-alpha', 1).value).toBeNaN();
  expect(one(numbers, 'naive-alpha', 1).text).toBe('NaN');
  expect(byRole(numbers, 'stable-alpha').every((a) => Number.isFinite(a.value))).toBe(true);
  expect(ref.alpha[0]).toBeGreaterThan(0.999);
  expect(await broken(w)).toBe(true);
  await expect(w.text('[data-role="naive-verdict"]')).resolves.toMatch(/NaN/);
  await w.logged();
  await screenshot(w.page.locator('#ch-softmax'), 'softmax-overflow-desktop-light');
}).at('s=88.7,1,0.5,-1');

// Far past the edge, only the sum overflowing (every weight 0), every exp underflowing (0/0), all large.
for (const s of ['120,-120,0,119.5', '88,87.5,87,86.5', '-110,-111,-112,-113', '100,99,98,97'])
  it(`the URL s = ${s}: the textbook kernel fails as the reference says, the stable one does not`, (w) =>
    w.link(`s=${s}`, [s.split(',').map(Number)], {}, (z, numbers, ref) => {
      if (s.startsWith('88,')) expect([ref.overflows.some(Boolean), ref.sum > FLT_MAX]).toEqual([false, true]);
    }));
