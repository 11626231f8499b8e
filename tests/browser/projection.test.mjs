// "Projection as a shadow" (#ch-projection, <ag-projection>): the scalar and vector
// projections against a float64 reference (drags, keys, links); an obtuse angle casts the shadow backwards.
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReopens, predictChoice } from './helpers.mjs';
import { screenshot, seedCase, stateOf, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { angleRow, byRole, expectAllLogged, expectClose, expectNumbers } from './shown-numbers.mjs';
import { one, readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, norm, normalize, scalarProjection } from '../reference/float64.mjs';
import { sumAbsProd, vectorProjection } from '../reference/float64.mjs';

const TAG = 'ag-projection';
const CH = 'projection';

/** Every number shown against the float64 reference for a and b (b not zero); returns the shadow a.b/|b|. */
function expectMatches(numbers, a, b) {
  const [na, nb, scalar, unit, vec] = [norm(a), norm(b), scalarProjection(a, b), normalize(b), vectorProjection(a, b)];
  const tol = 20 * U * (na + 1) + 1e-12;
  expectNumbers(
    numbers,
    [
      ['dot', null, dot(a, b), 3 * U * sumAbsProd(a, b)],
      ['shadow-times-length', null, dot(a, b), 20 * U * (na * nb + 1)],
      ['norm', 'a', na, 4 * U * na],
      ['norm', 'b', nb, 4 * U * nb],
      ['scalar-projection', null, scalar, tol],
      ...[0, 1].map((i) => ['unit-b', i + 1, unit[i], 20 * U]),
      ...[0, 1].map((i) => ['vector-projection', i + 1, vec[i], tol]),
    ].map(([role, key, ref, t]) => [role, key, ref, t + 1e-12]),
  );
  if (na)
    expectNumbers(numbers, [
      ['cosine', null, cosine(a, b), 20 * U, false],
      angleRow('angle', null, angle(a, b)),
      ['shadow-cosine', null, scalar, tol],
    ]);
  return scalar;
}

/** The drawn foot of the perpendicular and the shadow's ends, in plot units. */
async function drawnFoot(page) {
  return page.locator(TAG).evaluate((el) => {
    const svg = el.shadowRoot.querySelector('svg.plane');
    const [e, m, w] = [Number(svg.dataset.extent), Number(svg.dataset.margin), svg.viewBox.baseVal.width];
    const at = (sel, x, y) => {
      const n = el.shadowRoot.querySelector(sel);
      return [((n.getAttribute(x) - m) / (w - 2 * m)) * 2 * e - e, e - ((n.getAttribute(y) - m) / (w - 2 * m)) * 2 * e];
    };
    return {
      foot: at('circle.foot', 'cx', 'cy'),
      shadowStart: at('line.shadow', 'x1', 'y1'),
      shadowEnd: at('line.shadow', 'x2', 'y2'),
      drop: el.shadowRoot.querySelector('line.drop').getAttribute('visibility'),
    };
  });
}

const env = useEnv();

describe('projection: projection as a shadow', () => {
  test('opens on the article pair: shadow a.b/|b| = 4.8, vector projection (3.84, 2.88), drawn at the foot of the perpendicular; predict, then reveal: at (-4, -1) the shadow falls behind the origin', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      const texts = [['scalar-projection'], ['dot'], ['norm', 'b'], ['shadow-times-length']];
      expect(texts.map(([role, key]) => one(numbers, role, key).text)).toEqual(['4.8', '24', '5', '24']);
      expect(byRole(numbers, 'vector-projection').map((n) => n.text)).toEqual(['3.84', '2.88']);
      // Beside the numbers (1024 px), the figure stays in view as they scroll past.
      const position = await page.locator(`${TAG} .layout > .figure`).evaluate((el) => getComputedStyle(el).position);
      expect(position).toBe('sticky');
      expectMatches(numbers, [3, 4], [4, 3]);
      // The article's claims (seed file).
      const [scalar, vec] = [seedCase('scalar-projection'), seedCase('vector-projection')];
      expect([scalar.inputs, vec.inputs]).toEqual([
        { a: [3, 4], b: [4, 3] },
        { a: [3, 4], b: [4, 3] },
      ]);
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
      expect(await stateOf(page, TAG)).toEqual({ a: [3, 4], b: [-4, -1] });
      const revealed = await readNumbers(page, TAG);
      expect(expectMatches(revealed, [3, 4], [-4, -1])).toBeLessThan(0);
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toContain(
        `a\u00b7b/|b| = ${one(revealed, 'scalar-projection').text}`,
      );
      await predictChoice(page, TAG, 'against', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, an obtuse angle a backward shadow, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);
      // b: (4, 3) -> (3.75, 1) with the keys; a = (-2, 3.5) is then more than 90 degrees away.
      const b = [3.75, 1];
      await keyTo(page, TAG, 'b', ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown'], b, 'b = (3.75, 1)');
      const numbers = await readNumbers(page, TAG);
      expect(expectMatches(numbers, [-2, 3.5], b)).toBeLessThan(0);
      expect(one(numbers, 'scalar-projection').value).toBeLessThan(0);
      expect(await page.locator(TAG).getAttribute('data-shadow')).toBe('against');
      await expect(page.locator(`${TAG} [data-role="direction"]`).textContent()).resolves.toMatch(/obtuse/);
      // The drawn shadow points against b.
      const drawn = await drawnFoot(page);
      expect(drawn.foot[0] * b[0] + drawn.foot[1] * b[1]).toBeLessThan(0);
      await screenshot(page.locator(TAG), 'projection-desktop-backward-shadow');
      await expectAllLogged(page, TAG);
      await expectAnnounced(page, TAG, `a\u00b7b/|b| = ${one(numbers, 'scalar-projection').text}`);
      await expectParams(page, CH, { a: '-2,3.5', b: '3.75,1' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with a longer b on the same line keeps the shadow; a zero b has none', async () => {
    await atLink(env, CH, TAG, 'a=3,4&b=6,4.5', (numbers) => {
      expectMatches(numbers, [3, 4], [6, 4.5]);
      expect([one(numbers, 'scalar-projection').text, one(numbers, 'dot').text]).toEqual(['4.8', '36']);
    });
    await atLink(env, CH, TAG, 'a=-5.5,1.25&b=2,-6', (numbers) => expectMatches(numbers, [-5.5, 1.25], [2, -6]));
    await atLink(env, CH, TAG, 'a=3,4&b=0,0', { logged: false }, async (z, { page }) => {
      expect(z.some((n) => ['scalar-projection', 'vector-projection', 'cosine', 'angle'].includes(n.role))).toBe(false);
      const scalar = page.locator(`${TAG} [data-role="scalar-projection"]`);
      await expect(scalar.textContent()).resolves.toBe('not defined');
      expect(await page.locator(TAG).getAttribute('data-shadow')).toBe('undefined');
    });
  });
});
