// "A convex combination stays in the hull" (#ch-convex-hull, <ag-convex-hull>): values dragged by mouse and keys,
// weights from the simplex picker (mouse and keys), the two "break one constraint" buttons, T from the URL; y and Σα
// against a float64 reference, inside/outside against a hull computed here. A link of T = 6 is opened as a link
// (the round trip has T = 3); T = 2 is then set in that page.
import { expect } from '@jest/globals';
import { byRole, chapterTests, expectClose, expectRole, expectShown, expectTexts, one } from './chapter-tests.mjs';
import { rowsOf, U } from './chapter-tests.mjs';

const TRIANGLE = rowsOf('-4,-2;4,-3;1,4');

/** Convex hull (monotone chain), counter-clockwise, float64. */
function hull(points) {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list) => {
    const out = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out.at(-2), out.at(-1), p) <= 0) out.pop();
      out.push(p);
    }
    return out.slice(0, -1);
  };
  return [...half(pts), ...half([...pts].reverse())];
}

/** Inside (or on) a hull with area: every edge has y on its left. */
function inside(y, points) {
  const H = hull(points);
  const left = (a, b) => (b[0] - a[0]) * (y[1] - a[1]) - (b[1] - a[1]) * (y[0] - a[0]) >= -1e-9;
  return H.every((a, i) => left(a, H[(i + 1) % H.length]));
}

/** float64 y = sum_j alpha_j v_j. */
const mix = (alpha, values) => [0, 1].map((i) => values.reduce((s, v, j) => s + alpha[j] * v[i], 0));

/** Checks y and Σα against float64; returns them and the constraints broken. */
function match(numbers, alpha, values) {
  const ref = { y: mix(alpha, values), sum: alpha.reduce((s, a) => s + a, 0) };
  const magnitude = values.reduce((s, v, j) => s + Math.abs(alpha[j]) * (Math.abs(v[0]) + Math.abs(v[1])), 0);
  const tol = 4 * values.length * U * magnitude + 1e-12;
  expectRole(numbers, 'y', ref.y, tol, { extra: tol });
  const sum = one(numbers, 'sum');
  expectClose(sum.value, ref.sum, 4 * values.length * U * alpha.reduce((s, a) => s + Math.abs(a), 0) + 1e-12, 'sum');
  expectShown(sum, ref.sum, { extra: 1e-6 });
  const nonneg = alpha.some((a) => a < 0) ? 'nonneg' : '';
  return { ...ref, broken: [nonneg, Math.abs(ref.sum - 1) > 1e-6 ? 'sum' : ''].filter(Boolean).join(' ') || 'none' };
}

/** match, and the verdicts: which constraint is broken, inside or outside. */
async function expectState(w, alpha, values) {
  const { numbers, ref } = await w.matches(alpha, values);
  await expect(w.attr('.status', 'data-broken')).resolves.toBe(ref.broken);
  await expect(w.attr('.status', 'data-inside')).resolves.toBe(String(inside(ref.y, values)));
  return numbers;
}

const it = chapterTests({ ch: 'convex-hull', tag: 'ag-convex-hull', match });

it('opens convex: weights (0.2, 0.3, 0.5), y inside the triangle, both constraints ticked; predict, then reveal: (-0.5, 0.75, 0.75) puts y outside the hull', async (w) => {
  expectTexts(await expectState(w, [0.2, 0.3, 0.5], TRIANGLE), { y: ['0.9', '0.7'], sum: '1' });
  expect(await w.katex()).toBeGreaterThanOrEqual(3);
  await w.see({ '.status': /Both constraints hold.*inside the hull/, '.simplex-panel': { visible: true } });
  // A point inside the hull, placed with the keys and committed with Enter: wrong, the misconception of that
  // region, the distance to the true y; the answer loads its example and draws y beside the learner's point.
  const y = mix([-0.5, 0.75, 0.75], TRIANGLE);
  expect(inside(y, TRIANGLE)).toBe(false);
  expect(inside([1, 0.5], TRIANGLE)).toBe(true);
  await w.predict('1,0.5', 'wrong');
  const far = `${Math.hypot(y[0] - 1, y[1] - 0.5).toPrecision(4)}`.replace(/0+$/, '');
  const says = `^Not quite\\. You put y at \\(1, 0\\.5\\), ${far} from where it is; .*y = \\(5\\.75, 1\\.75\\), outside`;
  const misconception = /^That takes \u201cthe weights add up to 1\u201d as enough/;
  await w.see({ '.predict-result': new RegExp(says), '.predict-misconception': misconception });
  expect((await w.attr('.predict', 'data-answer')).split(',').map(Number)).toEqual(y);
  await w.see({ '.predict-truth.is-shown': 1, '.predict-gap.is-shown': 1 });
  await expectState(w, [-0.5, 0.75, 0.75], TRIANGLE);
  // A committed marker is no control: out of the tab order, hidden from assistive technology.
  await w.see({ '.handle-guess[tabindex="-1"][aria-hidden="true"]': 1 });
  // "Back to my setup": the learner's weights again; the true y and its line go, the result no longer says the
  // figure shows the example.
  expect(await w.text('.predict-result')).toMatch(/The figure now shows this example\.$/);
  await w.at('.predict-restore').click();
  expect((await w.state()).alpha).toEqual([0.2, 0.3, 0.5]);
  const left = /The figure has left this example since\.$/;
  await w.see({ '.predict-truth.is-shown': 0, '.predict-gap.is-shown': 0, '.predict-result': left });
  // With the mouse: a click on the figure where y is puts the marker there; Commit: right.
  await w.at('.predict-again').click();
  await w.see({ '.predict-truth.is-shown': 0 });
  const plane = w.at('svg.plane');
  const box = await plane.boundingBox();
  const [size, margin, extent] = await plane.evaluate((svg) =>
    [svg.viewBox.baseVal.width, svg.dataset.margin, svg.dataset.extent].map(Number),
  );
  const px = (v, flip) => margin + ((flip ? extent - v : v + extent) / (2 * extent)) * (size - 2 * margin);
  await w.page.mouse.click(box.x + (px(y[0]) * box.width) / size, box.y + (px(y[1], true) * box.height) / size);
  await w.see({ '.predict-at': '(5.75, 1.75)' });
  await w.at('.predict-commit').click();
  await w.see({ '.predict[data-result="right"] .predict-result': /^Right\. You put y at \(5\.75, 1\.75\), 0 from/ });
});

it('break one constraint at a time: a negative weight leaves the hull, a sum of 2 doubles y; then back to convex', async (w) => {
  const press = async (action, alpha) => {
    await w.at(`button[data-action="${action}"]`).click();
    expect((await w.state()).alpha).toEqual(alpha);
    return expectState(w, alpha, TRIANGLE);
  };
  await press('negative', [-0.4, 0.3, 1.1]);
  expect(inside(mix([-0.4, 0.3, 1.1], TRIANGLE), TRIANGLE)).toBe(false);
  const nonneg = /\u03b1\u2081 = \u22120\.4 < 0 \(broken\)/;
  await w.see({ '.status': /Only non-negativity is broken.*outside the hull/, '[data-check="nonneg"]': nonneg });
  expectTexts(await press('double', [0.4, 0.6, 1]), { y: ['1.8', '1.4'], sum: '2' }); // twice (0.9, 0.7)
  expect(await w.text('.status')).toMatch(/Only the sum is broken: y is 2 times/);
  expect(await w.at('.ghost').first().getAttribute('visibility')).toBe('visible');
  await press('restore', [0.2, 0.3, 0.5]);
  await w.params({ alpha: '0.2,0.3,0.5' });
  await w.logged();
});

it('the simplex picker: dragged to a corner gives the hard pointer y = v3; arrow keys keep the weights on the simplex', async (w) => {
  const pick = w.at('[data-point="simplex"]');
  await pick.scrollIntoViewIfNeeded();
  const box = await pick.locator('circle.dot').boundingBox();
  // Just beyond the top corner of the simplex: clamped onto it.
  const corner = await w.eval((el) =>
    new DOMPoint(100, 10).matrixTransform(el.shadowRoot.querySelector('svg.simplex').getScreenCTM()).toJSON(),
  );
  await w.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await w.page.mouse.down();
  await w.page.mouse.move(corner.x, corner.y, { steps: 6 });
  await w.page.mouse.up();
  expect((await w.state()).alpha).toEqual([0, 0, 1]);
  const numbers = await expectState(w, [0, 0, 1], TRIANGLE);
  expect(byRole(numbers, 'y').map((n) => n.value)).toEqual([1, 4]); // exactly v3
  await w.press('[data-point="simplex"]', ['ArrowDown', 'ArrowDown', 'ArrowLeft', 'Shift+ArrowDown']);
  const { alpha } = await w.state();
  expect(alpha.every((a) => a >= 0)).toBe(true);
  expect(alpha[0] + alpha[1] + alpha[2]).toBeCloseTo(1, 12);
  expect(alpha[2]).toBeLessThan(1);
  expect(alpha[0]).toBeGreaterThan(alpha[1]); // moved left: towards the corner alpha1 = 1
  await expectState(w, alpha, TRIANGLE);
  await expect(pick.getAttribute('aria-valuetext')).resolves.toMatch(/^weights \(/);
  expect(await w.text('[aria-live]')).toMatch(/^weights \(.*y = /);
  await w.logged();
});

it('dragging and keying values moves the hull; the URL keeps values and weights and reopens them', async (w) => {
  await w.dragPoint('v1', [-5, 4]);
  await w.keyPoint('v2', ['ArrowLeft', 'Shift+ArrowDown']);
  const values = rowsOf('-5,4;3.75,-4;1,4');
  expect((await w.state()).values).toEqual(values);
  const numbers = await expectState(w, [0.2, 0.3, 0.5], values);
  expect(await w.attr('[data-point="v2"]', 'aria-valuetext')).toBe('v2 = (3.75, \u22124)');
  await w.params({ values: '-5,4;3.75,-4;1,4' });
  await w.reopens(numbers);
});

const V6 = '-4,-2;4,-3;1,4;-3,3;4,2;-1,-4';
const A6 = [0.5, -0.25, 0.25, 0.5, 0.25, 0.25];
it('URLs with T = 6 (both constraints broken) and T = 2 (the hull is a segment); the simplex hides for T other than 3', async (w) => {
  await expectState(w, A6, rowsOf(V6));
  await w.see({ '.status': /Both constraints are broken/, '.simplex-panel': { visible: false } });
  await w.logged();
  await w.set('values=-4,-2;4,2&alpha=0.25,0.75');
  expect(await w.attr('.status', 'data-inside')).toBe('true');
  expect(byRole(await w.read(), 'y').map((n) => n.value)).toEqual([2, 1]);
  // One step past the end of the segment: the sum is still 1, y leaves it.
  await w.press('input[data-alpha="1"]', 'ArrowLeft', 10);
  await w.press('input[data-alpha="2"]', 'ArrowRight', 10);
  const { alpha } = await w.state();
  expect(alpha[0]).toBeCloseTo(-0.25, 12);
  expect(alpha[1]).toBeCloseTo(1.25, 12);
  expect([await w.attr('.status', 'data-inside'), await w.attr('.status', 'data-broken')]).toEqual(['false', 'nonneg']);
  expectClose(byRole(await w.read(), 'y')[0].value, -0.25 * -4 + 1.25 * 4, 1e-5, 'y1 past the segment');
}).at({ link: `values=${V6}&alpha=${A6}` });
