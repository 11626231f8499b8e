// "Projection as a shadow" (#ch-projection, <ag-projection>): a's shadow on the
// line through b, the scalar projection a.b/|b| and the vector projection,
// checked against a float64 reference after mouse drags, arrow keys and a
// changed URL; an obtuse angle gives a negative shadow that points backwards.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, ROOT, screenshot, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers, U } from './shown-numbers.mjs';
import {
  angle,
  cosine,
  dot,
  norm,
  normalize,
  scalarProjection,
  sumAbsProd,
  vectorProjection,
} from '../reference/float64.mjs';

const TAG = 'ag-projection';
const CH = 'projection';

/** float64 reference for a and b (b not zero). */
function reference(a, b) {
  const na = norm(a);
  return {
    dot: dot(a, b),
    na,
    nb: norm(b),
    scalar: scalarProjection(a, b),
    unit: normalize(b),
    vec: vectorProjection(a, b),
    cos: na ? cosine(a, b) : NaN,
    angle: angle(a, b),
    magnitude: sumAbsProd(a, b),
  };
}

function expectMatches(numbers, a, b) {
  const r = reference(a, b);
  const tol = 20 * U * (r.na + 1) + 1e-12;
  for (const [role, key, ref, t] of [
    ['dot', null, r.dot, 3 * U * r.magnitude],
    ['shadow-times-length', null, r.dot, 20 * U * (r.na * r.nb + 1)],
    ['norm', 'a', r.na, 4 * U * r.na],
    ['norm', 'b', r.nb, 4 * U * r.nb],
    ['scalar-projection', null, r.scalar, tol],
    ['unit-b', '1', r.unit[0], 20 * U],
    ['unit-b', '2', r.unit[1], 20 * U],
    ['vector-projection', '1', r.vec[0], tol],
    ['vector-projection', '2', r.vec[1], tol],
  ]) {
    const n = numbers.find((x) => x.role === role && x.key === key);
    if (!n) throw new Error(`missing ${role}.${key}`);
    expectClose(n.value, ref, t + 1e-12, `${role}.${key}`);
    expectShown(n, ref, { extra: t + 1e-12 });
  }
  if (r.na) {
    const c = one(numbers, 'cosine');
    expectClose(c.value, r.cos, 20 * U, 'cos');
    const angle = one(numbers, 'angle');
    expectClose(angle.value, r.angle, 1e-5, 'angle');
    expectShown(angle, (r.angle * 180) / Math.PI, { extra: 1e-3 });
    const s = one(numbers, 'shadow-cosine');
    expectClose(s.value, r.scalar, tol, '|a| cos');
    expectShown(s, r.scalar, { extra: tol });
  }
  return r;
}

/** The drawn foot of the perpendicular and the shadow's end, in plot units. */
async function drawnFoot(page) {
  return page.locator(TAG).evaluate((el) => {
    const svg = el.shadowRoot.querySelector('svg.plane');
    const e = Number(svg.dataset.extent);
    const m = Number(svg.dataset.margin);
    const w = svg.viewBox.baseVal.width;
    const toX = (px) => ((px - m) / (w - 2 * m)) * 2 * e - e;
    const toY = (py) => e - ((py - m) / (w - 2 * m)) * 2 * e;
    const foot = el.shadowRoot.querySelector('circle.foot');
    const shadow = el.shadowRoot.querySelector('line.shadow');
    return {
      foot: [toX(Number(foot.getAttribute('cx'))), toY(Number(foot.getAttribute('cy')))],
      shadowStart: [toX(Number(shadow.getAttribute('x1'))), toY(Number(shadow.getAttribute('y1')))],
      shadowEnd: [toX(Number(shadow.getAttribute('x2'))), toY(Number(shadow.getAttribute('y2')))],
      drop: el.shadowRoot.querySelector('line.drop').getAttribute('visibility'),
    };
  });
}

const env = useEnv();

describe('projection: projection as a shadow', () => {
  test('opens on the article pair: shadow a.b/|b| = 4.8, vector projection (3.84, 2.88), drawn at the foot of the perpendicular; predict, then reveal: at (-4, -1) the shadow falls behind the origin', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'scalar-projection').text).toBe('4.8');
      expect(byRole(numbers, 'vector-projection').map((n) => n.text)).toEqual(['3.84', '2.88']);
      expect(one(numbers, 'dot').text).toBe('24');
      expect(one(numbers, 'norm', 'b').text).toBe('5');
      // Beside the numbers (1024 px), the figure stays in view as they scroll past.
      const position = await page.locator(`${TAG} .layout > .figure`).evaluate((el) => getComputedStyle(el).position);
      expect(position).toBe('sticky');
      expect(one(numbers, 'shadow-times-length').text).toBe('24');
      expectMatches(numbers, [3, 4], [4, 3]);
      // The article's claims (seed file).
      const cases = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;
      const scalar = cases.find((c) => c.id === 'scalar-projection');
      const vec = cases.find((c) => c.id === 'vector-projection');
      expect(scalar.inputs).toEqual({ a: [3, 4], b: [4, 3] });
      expect(vec.inputs).toEqual({ a: [3, 4], b: [4, 3] });
      expectClose(one(numbers, 'scalar-projection').value, scalar.expected, scalar.tolerance, 'seed scalar projection');
      vec.expected.forEach((x, i) =>
        expectClose(byRole(numbers, 'vector-projection')[i].value, x, vec.tolerance, `seed vector projection ${i + 1}`),
      );
      expect(await page.locator(TAG).getAttribute('data-shadow')).toBe('along');
      const drawn = await drawnFoot(page);
      expectClose(drawn.foot[0], 3.84, 1e-4, 'foot x');
      expectClose(drawn.foot[1], 2.88, 1e-4, 'foot y');
      expect(drawn.shadowStart.map((v) => Math.abs(v) < 1e-9)).toEqual([true, true]);
      expect(drawn.shadowEnd.map((v, i) => Math.abs(v - drawn.foot[i]) < 1e-9)).toEqual([true, true]);
      expect(drawn.drop).toBe('visible');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(2);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'along', 'wrong');
      expect(await page.locator(TAG).evaluate((el) => el.state)).toEqual({ a: [3, 4], b: [-4, -1] });
      const revealed = await readNumbers(page, TAG);
      const ref = expectMatches(revealed, [3, 4], [-4, -1]);
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toContain(
        `a\u00b7b/|b| = ${one(revealed, 'scalar-projection').text}`,
      );
      expect(ref.scalar).toBeLessThan(0);
      await predictChoice(page, TAG, 'against', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, an obtuse angle a backward shadow, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);

      // b: (4, 3) -> (3.75, 1) with the keys; a = (-2, 3.5) is then more than 90 degrees away.
      await keyPoint(page, TAG, 'b', ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown']);
      const b = [3.75, 1];
      expect(await page.locator(TAG).evaluate((el) => el.state.b)).toEqual(b);
      const numbers = await readNumbers(page, TAG);
      const ref = expectMatches(numbers, [-2, 3.5], b);
      expect(ref.scalar).toBeLessThan(0);
      expect(one(numbers, 'scalar-projection').value).toBeLessThan(0);
      expect(await page.locator(TAG).getAttribute('data-shadow')).toBe('against');
      await expect(page.locator(`${TAG} [data-role="direction"]`).textContent()).resolves.toMatch(/obtuse/);
      // The drawn shadow points against b.
      const drawn = await drawnFoot(page);
      expect(drawn.foot[0] * b[0] + drawn.foot[1] * b[1]).toBeLessThan(0);
      await screenshot(page.locator(TAG), 'projection-desktop-backward-shadow');
      await expectAllLogged(page, TAG);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
        `a\u00b7b/|b| = ${one(numbers, 'scalar-projection').text}`,
      );
      await expect(page.locator(`${TAG} [data-point="b"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'b = (3.75, 1)',
      );

      await expectParams(page, CH, { a: '-2,3.5', b: '3.75,1' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with a longer b on the same line keeps the shadow; a zero b has none', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=3,4&b=6,4.5` }, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [3, 4], [6, 4.5]);
      expect(one(numbers, 'scalar-projection').text).toBe('4.8');
      expect(one(numbers, 'dot').text).toBe('36');
      await expectAllLogged(page, TAG);
    });

    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=-5.5,1.25&b=2,-6` }, async (other) => {
      expectMatches(await readNumbers(other.page, TAG), [-5.5, 1.25], [2, -6]);
      await expectAllLogged(other.page, TAG);
    });

    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=3,4&b=0,0` }, async (zero) => {
      const z = await readNumbers(zero.page, TAG);
      expect(z.some((n) => ['scalar-projection', 'vector-projection', 'cosine', 'angle'].includes(n.role))).toBe(false);
      await expect(zero.page.locator(`${TAG} [data-role="scalar-projection"]`).textContent()).resolves.toBe(
        'not defined',
      );
      expect(await zero.page.locator(TAG).getAttribute('data-shadow')).toBe('undefined');
    });
  });
});
