// "Two definitions agree" (#ch-dot-product, <ag-two-definitions>): the algebraic
// and geometric dot products of two draggable 2-D vectors, checked against a
// float64 reference after mouse drags, arrow keys, touch and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReopens, expectReveal } from './helpers.mjs';
import { stateOf, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo, touchDragPoint } from './pointer.mjs';
import { angleRow, byRole, expectAllLogged, expectNumbers, one } from './shown-numbers.mjs';
import { readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, norm, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-two-definitions';
const CH = 'dot-product';

/** Every number shown (stored float32 and shown text) against the float64 reference for a and b. */
function expectMatches(numbers, a, b) {
  const [na, nb, cos, d] = [norm(a), norm(b), cosine(a, b), dot(a, b)];
  const terms = [a[0] * b[0], a[1] * b[1]];
  const dotTol = 3 * U * sumAbsProd(a, b) + 1e-12;
  // The geometric side reaches a.b through lengths and a cosine: a few units of roundoff relative to |a||b|.
  const geoTol = 20 * U * na * nb;
  expectNumbers(numbers, [
    ...terms.map((t, i) => ['term', i + 1, t, 2 * U * Math.abs(t), 0]),
    ['dot', null, d, dotTol],
    ['norm', 'a', na, 4 * U * na, 0],
    ['norm', 'b', nb, 4 * U * nb, 0],
    ['norm-product', null, na * nb, 10 * U * na * nb, false],
    ['geometric', null, na * nb * cos, geoTol],
    ['cosine', null, cos, 20 * U],
    angleRow('angle', null, angle(a, b)),
  ]);
}

const env = useEnv();

describe('dot-product: two definitions agree', () => {
  test('opens on the article pair: (3, 4) and (4, 3) give 24 both ways, every number from a logged kernel call; predict, then reveal: "zero" is right for (3, 4) and (-4, 3)', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(['dot', 'geometric', 'angle'].map((r) => one(numbers, r).text)).toEqual(['24', '24', '16.26\u00b0']);
      expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['12', '12']);
      expect(one(numbers, 'norm', 'a').text).toBe('5');
      expectMatches(numbers, [3, 4], [4, 3]);
      // Math is typeset by KaTeX in the shadow root, with the fonts declared by the host page.
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      const state = { a: [3, 4], b: [-4, 3] };
      const revealed = await expectReveal(page, TAG, { wrong: 'positive', right: 'zero', says: /a\u00b7b = 0/, state });
      expectMatches(revealed, [3, 4], [-4, 3]);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);
      // Keyboard: Tab-reachable handle, arrows step 0.25, Shift+arrow steps 1; described on the handle.
      const b = [4.5, 3.75];
      await keyTo(page, TAG, 'b', ['ArrowRight', 'ArrowRight', 'Shift+ArrowUp', 'ArrowDown'], b, 'b = (4.5, 3.75)');
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [-2, 3.5], b);
      await expectAllLogged(page, TAG);
      await expectAnnounced(page, TAG, `a\u00b7b = ${one(numbers, 'dot').text}`);
      expect(await page.locator(`${TAG} [data-point="a"]`).getAttribute('tabindex')).toBe('0');
      // Only the shell wrote the URL: chapter, versioned state.
      await expectParams(page, CH, { a: '-2,3.5', b: '4.5,3.75' });
      expectMatches(await expectReopens(env, page, CH, TAG, numbers), [-2, 3.5], b);
    });
  });

  test('on a phone, a finger drags a point (touch events), the page does not scroll, and the numbers follow', async () => {
    await withChapter(env, CH, TAG, { width: 375, height: 800, hasTouch: true }, async ({ page }) => {
      const scrollBefore = await page.locator(`${TAG} [data-point="a"]`).evaluate((el) => {
        el.scrollIntoView({ block: 'center' });
        return window.scrollY;
      });
      await touchDragPoint(page, TAG, 'a', [-1, 2.5]);
      expect((await stateOf(page, TAG)).a).toEqual([-1, 2.5]);
      expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(2);
      expectMatches(await readNumbers(page, TAG), [-1, 2.5], [4, 3]);
      await expectAllLogged(page, TAG);
    });
  });

  test('a URL with other vectors, including a zero vector, shows their reference values', async () => {
    await atLink(env, CH, TAG, 'a=-5.5,1.25&b=2,-6', { clean: false }, (n) => expectMatches(n, [-5.5, 1.25], [2, -6]));
    await atLink(env, CH, TAG, 'a=0,0&b=2,-6', { logged: false }, async (numbers, { page }) => {
      expect([one(numbers, 'dot').value, one(numbers, 'geometric').value]).toEqual([0, 0]);
      expect(numbers.some((n) => n.role === 'angle')).toBe(false); // no angle for a zero vector: none shown
      await expect(page.locator(`${TAG} [data-role="angle"]`).textContent()).resolves.toBe('not defined');
    });
  });
});
