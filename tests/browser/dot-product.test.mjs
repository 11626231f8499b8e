// Chapter 2, "Two definitions agree" (<ag-two-definitions>): the algebraic
// and geometric dot products of two draggable 2-D vectors, checked against a
// float64 reference after mouse drags, arrow keys and a changed URL.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  byRole,
  dragPoint,
  expectAllLogged,
  expectClean,
  expectClose,
  expectShown,
  exportFile,
  keyPoint,
  one,
  openChapter,
  overflow,
  readNumbers,
  screenshot,
  settledUrl,
  U,
  urlParams,
  startEnv,
  touchDragPoint,
} from './helpers.mjs';

const TAG = 'ag-two-definitions';
const CH = 'dot-product';

/** float64 reference for a and b. */
function reference(a, b) {
  const terms = [a[0] * b[0], a[1] * b[1]];
  const dot = terms[0] + terms[1];
  const na = Math.hypot(...a);
  const nb = Math.hypot(...b);
  const cos = dot / (na * nb);
  return {
    terms,
    dot,
    na,
    nb,
    cos,
    angle: Math.acos(Math.max(-1, Math.min(1, cos))),
    product: na * nb,
    geometric: na * nb * cos,
    magnitude: Math.abs(terms[0]) + Math.abs(terms[1]),
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

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('chapter 2: two definitions agree', () => {
  test('opens on the article pair: (3, 4) and (4, 3) give 24 both ways, every number from a logged kernel call', async () => {
    const opened = await openChapter(env, CH, TAG);
    const numbers = await readNumbers(opened.page, TAG);
    expect(one(numbers, 'dot').text).toBe('24');
    expect(one(numbers, 'geometric').text).toBe('24');
    expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['12', '12']);
    expect(one(numbers, 'norm', 'a').text).toBe('5');
    expect(one(numbers, 'angle').text).toBe('16.26\u00b0');
    expectMatches(numbers, [3, 4], [4, 3]);
    await expectAllLogged(opened.page, TAG);
    // Math is typeset by KaTeX in the shadow root, with the fonts declared by the host page.
    expect(await opened.page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    await expectClean(opened);
    await opened.context.close();
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const scrollBefore = await page.evaluate(() => window.scrollY);
    await dragPoint(page, TAG, 'a', [-2, 3.5]);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrollBefore); // dragging does not scroll
    expect(await page.locator(TAG).evaluate((el) => el.state.a)).toEqual([-2, 3.5]);
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
    const params = await urlParams(page);
    expect(params.get('ch')).toBe(CH);
    expect(params.get('v')).toBe('1');
    expect(params.get('a')).toBe('-2,3.5');
    expect(params.get('b')).toBe('4.5,3.75');

    const copy = await openChapter(env, CH, TAG, { search: (await settledUrl(page)).search });
    const reopened = await readNumbers(copy.page, TAG);
    expect(reopened.map((n) => n.text)).toEqual(numbers.map((n) => n.text));
    expectMatches(reopened, [-2, 3.5], b);
    await expectClean(copy);
    await copy.context.close();
    await expectClean(opened);
    await opened.context.close();
  });

  test('on a phone, a finger drags a point (touch events), the page does not scroll, and the numbers follow', async () => {
    const opened = await openChapter(env, CH, TAG, { width: 375, height: 800, hasTouch: true });
    const { page } = opened;
    const scrollBefore = await page.locator(`${TAG} [data-point="a"]`).evaluate((el) => {
      el.scrollIntoView({ block: 'center' });
      return window.scrollY;
    });
    await touchDragPoint(page, TAG, 'a', [-1, 2.5]);
    expect(await page.locator(TAG).evaluate((el) => el.state.a)).toEqual([-1, 2.5]);
    expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(2);
    expectMatches(await readNumbers(page, TAG), [-1, 2.5], [4, 3]);
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('a URL with other vectors, including a zero vector, shows their reference values', async () => {
    const opened = await openChapter(env, CH, TAG, { search: '?ch=dot-product&v=1&a=-5.5,1.25&b=2,-6' });
    expectMatches(await readNumbers(opened.page, TAG), [-5.5, 1.25], [2, -6]);
    await expectAllLogged(opened.page, TAG);
    await opened.context.close();

    const zero = await openChapter(env, CH, TAG, { search: '?ch=dot-product&v=1&a=0,0&b=2,-6' });
    const numbers = await readNumbers(zero.page, TAG);
    expect(one(numbers, 'dot').value).toBe(0);
    expect(one(numbers, 'geometric').value).toBe(0);
    expect(numbers.some((n) => n.role === 'angle')).toBe(false); // no angle for a zero vector: none shown
    await expect(zero.page.locator(`${TAG} [data-role="angle"]`).textContent()).resolves.toBe('not defined');
    await expectClean(zero);
    await zero.context.close();
  });

  test('predict, then reveal: "zero" is right for (3, 4) and (-4, 3)', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    await page.locator(`${TAG} .predict-choice[data-choice="positive"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('wrong');
    await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/a\u00b7b = 0/);
    expect(await page.locator(TAG).evaluate((el) => el.state.b)).toEqual([-4, 3]);
    expectMatches(await readNumbers(page, TAG), [3, 4], [-4, 3]);
    await page.locator(`${TAG} .predict-again`).click();
    await page.locator(`${TAG} .predict-choice[data-choice="zero"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('right');
    // The shell keeps the answer per chapter.
    await expect(
      page.locator('#toc li[data-chapter="dot-product"] [data-role=progress]').textContent(),
    ).resolves.toMatch(/predicted/);
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('exports the figure as SVG and PNG and the numbers as JSON and CSV', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const json = JSON.parse((await exportFile(page, TAG, 'json')).bytes.toString('utf8'));
    expect(json.state).toEqual({ a: [3, 4], b: [4, 3] });
    expect(json.stateText).toBe('v=1&a=3,4&b=4,3');
    expect(json.numbers.dot).toBe(24);
    const csv = (await exportFile(page, TAG, 'csv')).bytes.toString('utf8');
    expect(csv.split('\r\n')).toContain('dot,24');
    const svg = await exportFile(page, TAG, 'svg');
    expect(svg.name).toBe('ag-two-definitions.svg');
    expect(svg.bytes.toString('utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const png = await exportFile(page, TAG, 'png');
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await expectClean(opened);
    await opened.context.close();
  });

  test.each([
    [1024, 'desktop'],
    [375, 'phone-375'],
    [320, 'phone-320'],
  ])(
    'fits %i px with no horizontal scrolling, light and dark, and the plot does not scroll on touch',
    async (width, name) => {
      const opened = await openChapter(env, CH, TAG, { width, height: 1000 });
      const { page } = opened;
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await overflow(page)).toBeLessThanOrEqual(0);
        await screenshot(page.locator(`#ch-${CH}`), `chapter-02-${name}-${scheme}`);
      }
      expect(
        await page
          .locator(TAG)
          .evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('svg.plane')).touchAction),
      ).toBe('none');
      await expectClean(opened);
      await opened.context.close();
    },
  );
});
