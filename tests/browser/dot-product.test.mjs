// "Two definitions agree" (#ch-dot-product, <ag-two-definitions>): the algebraic
// and geometric dot products of two draggable 2-D vectors, checked against a
// float64 reference after mouse drags, arrow keys and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyPoint, touchDragPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, norm, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-two-definitions';
const CH = 'dot-product';

/** float64 reference for a and b. */
function reference(a, b) {
  const terms = [a[0] * b[0], a[1] * b[1]];
  const [na, nb, cos] = [norm(a), norm(b), cosine(a, b)];
  return {
    terms,
    dot: dot(a, b),
    na,
    nb,
    cos,
    angle: angle(a, b),
    product: na * nb,
    geometric: na * nb * cos,
    magnitude: sumAbsProd(a, b),
  };
}

/** Checks every number shown (stored float32 and shown text) against the reference. */
function expectMatches(numbers, a, b) {
  const ref = reference(a, b);
  const dotTol = 3 * U * ref.magnitude + 1e-12;
  byRole(numbers, 'term').forEach((t, i) => {
    expectClose(t.value, ref.terms[i], 2 * U * Math.abs(ref.terms[i]), `term ${i + 1}`);
    expectShown(t, ref.terms[i]);
  });
  const dot = one(numbers, 'dot');
  expectClose(dot.value, ref.dot, dotTol, 'a.b');
  expectShown(dot, ref.dot, { extra: dotTol });
  for (const [key, r] of [
    ['a', ref.na],
    ['b', ref.nb],
  ]) {
    const n = one(numbers, 'norm', key);
    expectClose(n.value, r, 4 * U * r, `|${key}|`);
    expectShown(n, r);
  }
  const product = one(numbers, 'norm-product');
  expectClose(product.value, ref.product, 10 * U * ref.product, '|a||b|');
  // The geometric side reaches a.b through lengths and a cosine: float32 error
  // of a few units of roundoff relative to |a||b|.
  const geo = one(numbers, 'geometric');
  expectClose(geo.value, ref.geometric, 20 * U * ref.product, '|a||b|cos');
  expectShown(geo, ref.geometric, { extra: 20 * U * ref.product });
  const cos = one(numbers, 'cosine');
  expectClose(cos.value, ref.cos, 20 * U, 'cos');
  expectShown(cos, ref.cos, { extra: 20 * U });
  const angle = one(numbers, 'angle');
  expectClose(angle.value, ref.angle, 1e-5, 'angle (radians, stored)');
  expectShown(angle, (ref.angle * 180) / Math.PI, { extra: 1e-3 });
  return ref;
}

const env = useEnv();

describe('dot-product: two definitions agree', () => {
  test('opens on the article pair: (3, 4) and (4, 3) give 24 both ways, every number from a logged kernel call; predict, then reveal: "zero" is right for (3, 4) and (-4, 3)', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'dot').text).toBe('24');
      expect(one(numbers, 'geometric').text).toBe('24');
      expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['12', '12']);
      expect(one(numbers, 'norm', 'a').text).toBe('5');
      expect(one(numbers, 'angle').text).toBe('16.26\u00b0');
      expectMatches(numbers, [3, 4], [4, 3]);
      // Math is typeset by KaTeX in the shadow root, with the fonts declared by the host page.
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'positive', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/a\u00b7b = 0/);
      expect(await page.locator(TAG).evaluate((el) => el.state.b)).toEqual([-4, 3]);
      expectMatches(await readNumbers(page, TAG), [3, 4], [-4, 3]);
      await predictChoice(page, TAG, 'zero', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);

      // Keyboard: Tab-reachable handle, arrows step 0.25, Shift+arrow steps 1.
      await keyPoint(page, TAG, 'b', ['ArrowRight', 'ArrowRight', 'Shift+ArrowUp', 'ArrowDown']);
      const b = [4.5, 3.75];
      expect(await page.locator(TAG).evaluate((el) => el.state.b)).toEqual(b);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [-2, 3.5], b);
      await expectAllLogged(page, TAG);
      // Announced to screen readers, and described on the handle.
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
        `a\u00b7b = ${one(numbers, 'dot').text}`,
      );
      await expect(page.locator(`${TAG} [data-point="b"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'b = (4.5, 3.75)',
      );
      expect(await page.locator(`${TAG} [data-point="a"]`).getAttribute('tabindex')).toBe('0');

      // Only the shell wrote the URL: chapter, versioned state.
      await expectParams(page, CH, { a: '-2,3.5', b: '4.5,3.75' });

      const reopened = await expectReopens(env, page, CH, TAG, numbers);
      expectMatches(reopened, [-2, 3.5], b);
    });
  });

  test('on a phone, a finger drags a point (touch events), the page does not scroll, and the numbers follow', async () => {
    await withChapter(env, CH, TAG, { width: 375, height: 800, hasTouch: true }, async ({ page }) => {
      const scrollBefore = await page.locator(`${TAG} [data-point="a"]`).evaluate((el) => {
        el.scrollIntoView({ block: 'center' });
        return window.scrollY;
      });
      await touchDragPoint(page, TAG, 'a', [-1, 2.5]);
      expect(await page.locator(TAG).evaluate((el) => el.state.a)).toEqual([-1, 2.5]);
      expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(2);
      expectMatches(await readNumbers(page, TAG), [-1, 2.5], [4, 3]);
      await expectAllLogged(page, TAG);
    });
  });

  test('a URL with other vectors, including a zero vector, shows their reference values', async () => {
    await withChapter(
      env,
      CH,
      TAG,
      { search: '?ch=dot-product&v=1&a=-5.5,1.25&b=2,-6', clean: false },
      async ({ page }) => {
        expectMatches(await readNumbers(page, TAG), [-5.5, 1.25], [2, -6]);
        await expectAllLogged(page, TAG);
      },
    );

    await withChapter(env, CH, TAG, { search: '?ch=dot-product&v=1&a=0,0&b=2,-6' }, async (zero) => {
      const numbers = await readNumbers(zero.page, TAG);
      expect(one(numbers, 'dot').value).toBe(0);
      expect(one(numbers, 'geometric').value).toBe(0);
      expect(numbers.some((n) => n.role === 'angle')).toBe(false); // no angle for a zero vector: none shown
      await expect(zero.page.locator(`${TAG} [data-role="angle"]`).textContent()).resolves.toBe('not defined');
    });
  });
});
