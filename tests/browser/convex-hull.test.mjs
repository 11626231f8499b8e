// "A convex combination stays in the hull" (#ch-convex-hull, <ag-convex-hull>):
// values dragged by mouse and keys, weights from the simplex picker (mouse and
// keys), the two "break one constraint" buttons, T from the URL; y and Σα
// against a float64 reference, and inside/outside against a hull computed here.
import { describe, expect, test } from '@jest/globals';
import {
  attrIn,
  expectParams,
  expectReopens,
  predictChoice,
  rowsOf,
  stateOf,
  textIn,
  useEnv,
  withChapter,
} from './helpers.mjs';
import { dragPoint, keyPoint, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-convex-hull';
const CH = 'convex-hull';
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
  return H.every((a, i) => {
    const b = H[(i + 1) % H.length];
    return (b[0] - a[0]) * (y[1] - a[1]) - (b[1] - a[1]) * (y[0] - a[0]) >= -1e-9;
  });
}

/** float64 y = sum_j alpha_j v_j. */
const mix = (alpha, values) => [0, 1].map((i) => values.reduce((s, v, j) => s + alpha[j] * v[i], 0));

/** Checks y and Σα, and the verdicts: which constraint is broken, inside or outside. */
async function expectState(page, alpha, values) {
  const numbers = await readNumbers(page, TAG);
  const ref = { y: mix(alpha, values), sum: alpha.reduce((s, a) => s + a, 0) };
  const magnitude = values.reduce((s, v, j) => s + Math.abs(alpha[j]) * (Math.abs(v[0]) + Math.abs(v[1])), 0);
  const tol = 4 * values.length * U * magnitude + 1e-12;
  byRole(numbers, 'y').forEach((n, i) => {
    expectClose(n.value, ref.y[i], tol, `y${i + 1}`);
    expectShown(n, ref.y[i], { extra: tol });
  });
  const sum = one(numbers, 'sum');
  expectClose(sum.value, ref.sum, 4 * values.length * U * alpha.reduce((s, a) => s + Math.abs(a), 0) + 1e-12, 'sum');
  expectShown(sum, ref.sum, { extra: 1e-6 });
  const broken =
    [alpha.some((a) => a < 0) ? 'nonneg' : '', Math.abs(ref.sum - 1) > 1e-6 ? 'sum' : ''].filter(Boolean).join(' ') ||
    'none';
  const status = page.locator(`${TAG} .status`);
  await expect(status.getAttribute('data-broken')).resolves.toBe(broken);
  await expect(status.getAttribute('data-inside')).resolves.toBe(String(inside(ref.y, values)));
  return { numbers, ref, broken };
}

const env = useEnv();

describe('convex-hull: a convex combination stays in the hull', () => {
  test('opens convex: weights (0.2, 0.3, 0.5), y inside the triangle, both constraints ticked, every number logged; predict, then reveal: (-0.5, 0.75, 0.75) puts y outside the hull', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const { numbers } = await expectState(page, [0.2, 0.3, 0.5], TRIANGLE);
      expect(byRole(numbers, 'y').map((n) => n.text)).toEqual(['0.9', '0.7']);
      expect(one(numbers, 'sum').text).toBe('1');
      expect(await textIn(page, TAG, '.status')).toMatch(/Both constraints hold.*inside the hull/);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThanOrEqual(3);
      await expect(page.locator(`${TAG} .simplex-panel`).isVisible()).resolves.toBe(true);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'inside', 'wrong');
      expect(await textIn(page, TAG, '.predict-result')).toMatch(/y = \(5\.75, 1\.75\), outside/);
      expect(inside([5.75, 1.75], TRIANGLE)).toBe(false);
      await expectState(page, [-0.5, 0.75, 0.75], TRIANGLE);
      await predictChoice(page, TAG, 'outside', 'right');
    });
  });

  test('break one constraint at a time: a negative weight leaves the hull, a sum of 2 doubles y; then back to convex', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} button[data-action="negative"]`).click();
      expect((await stateOf(page, TAG)).alpha).toEqual([-0.4, 0.3, 1.1]);
      await expectState(page, [-0.4, 0.3, 1.1], TRIANGLE);
      expect(inside(mix([-0.4, 0.3, 1.1], TRIANGLE), TRIANGLE)).toBe(false);
      expect(await textIn(page, TAG, '.status')).toMatch(/Only non-negativity is broken.*outside the hull/);
      expect(await textIn(page, TAG, '[data-check="nonneg"]')).toMatch(/\u03b1\u2081 = \u22120\.4 < 0 \(broken\)/);

      await page.locator(`${TAG} button[data-action="double"]`).click();
      expect((await stateOf(page, TAG)).alpha).toEqual([0.4, 0.6, 1]);
      const { numbers } = await expectState(page, [0.4, 0.6, 1], TRIANGLE);
      expect(byRole(numbers, 'y').map((n) => n.text)).toEqual(['1.8', '1.4']); // twice (0.9, 0.7)
      expect(one(numbers, 'sum').text).toBe('2');
      expect(await textIn(page, TAG, '.status')).toMatch(/Only the sum is broken: y is 2 times/);
      expect(
        await page.locator(TAG).evaluate((el) => el.shadowRoot.querySelector('.ghost').getAttribute('visibility')),
      ).toBe('visible');

      await page.locator(`${TAG} button[data-action="restore"]`).click();
      await expectState(page, [0.2, 0.3, 0.5], TRIANGLE);
      await expectParams(page, CH, { alpha: '0.2,0.3,0.5' });
      await expectAllLogged(page, TAG);
    });
  });

  test('the simplex picker: dragged to a corner gives the hard pointer y = v3; arrow keys keep the weights on the simplex', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const pick = page.locator(`${TAG} [data-point="simplex"]`);
      await pick.scrollIntoViewIfNeeded();
      const box = await pick.locator('circle.dot').boundingBox();
      const corner = await page.locator(TAG).evaluate((el) => {
        const svg = el.shadowRoot.querySelector('svg.simplex');
        const p = svg.createSVGPoint();
        p.x = 100;
        p.y = 10; // just beyond the top corner: clamped onto it
        const s = p.matrixTransform(svg.getScreenCTM());
        return { x: s.x, y: s.y };
      });
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(corner.x, corner.y, { steps: 6 });
      await page.mouse.up();
      expect((await stateOf(page, TAG)).alpha).toEqual([0, 0, 1]);
      const { numbers } = await expectState(page, [0, 0, 1], TRIANGLE);
      expect(byRole(numbers, 'y').map((n) => n.value)).toEqual([1, 4]); // exactly v3

      await pressOn(page, TAG, '[data-point="simplex"]', ['ArrowDown', 'ArrowDown', 'ArrowLeft', 'Shift+ArrowDown']);
      const { alpha } = await stateOf(page, TAG);
      expect(alpha.every((a) => a >= 0)).toBe(true);
      expect(alpha[0] + alpha[1] + alpha[2]).toBeCloseTo(1, 12);
      expect(alpha[2]).toBeLessThan(1);
      expect(alpha[0]).toBeGreaterThan(alpha[1]); // moved left: towards the corner alpha1 = 1
      await expectState(page, alpha, TRIANGLE);
      await expect(pick.getAttribute('aria-valuetext')).resolves.toMatch(/^weights \(/);
      expect(await textIn(page, TAG, '[aria-live]')).toMatch(/^weights \(.*y = /);
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging and keying values moves the hull; the URL keeps values and weights and reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragPoint(page, TAG, 'v1', [-5, 4]);
      await keyPoint(page, TAG, 'v2', ['ArrowLeft', 'Shift+ArrowDown']);
      const values = rowsOf('-5,4;3.75,-4;1,4');
      expect((await stateOf(page, TAG)).values).toEqual(values);
      const { numbers } = await expectState(page, [0.2, 0.3, 0.5], values);
      expect(await attrIn(page, TAG, '[data-point="v2"]', 'aria-valuetext')).toBe('v2 = (3.75, \u22124)');
      await expectParams(page, CH, { values: '-5,4;3.75,-4;1,4' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('URLs with T = 6 (both constraints broken) and T = 2 (the hull is a segment); the simplex hides for T other than 3', async () => {
    const V6 = '-4,-2;4,-3;1,4;-3,3;4,2;-1,-4';
    const a6 = [0.5, -0.25, 0.25, 0.5, 0.25, 0.25];
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&values=${V6}&alpha=${a6.join(',')}` }, async (six) => {
      await expectState(six.page, a6, rowsOf(V6));
      expect(await textIn(six.page, TAG, '.status')).toMatch(/Both constraints are broken/);
      await expect(six.page.locator(`${TAG} .simplex-panel`).isVisible()).resolves.toBe(false);
      await expectAllLogged(six.page, TAG);
    });

    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&values=-4,-2;4,2&alpha=0.25,0.75` }, async (two) => {
      expect(await attrIn(two.page, TAG, '.status', 'data-inside')).toBe('true');
      const numbers = await readNumbers(two.page, TAG);
      expect(byRole(numbers, 'y').map((n) => n.value)).toEqual([2, 1]);
      // One step past the end of the segment: the sum is still 1, y leaves it.
      await pressOn(two.page, TAG, 'input[data-alpha="1"]', 'ArrowLeft', 10);
      await pressOn(two.page, TAG, 'input[data-alpha="2"]', 'ArrowRight', 10);
      const { alpha } = await stateOf(two.page, TAG);
      expect(alpha[0]).toBeCloseTo(-0.25, 12);
      expect(alpha[1]).toBeCloseTo(1.25, 12);
      expect(await attrIn(two.page, TAG, '.status', 'data-inside')).toBe('false');
      expect(await attrIn(two.page, TAG, '.status', 'data-broken')).toBe('nonneg');
      const y = byRole(await readNumbers(two.page, TAG), 'y');
      expectClose(y[0].value, -0.25 * -4 + 1.25 * 4, 1e-5, 'y1 past the segment');
    });
  });
});
