// "Why they agree" (#ch-why-agree, <ag-why-agree>): the triangle a, b, a − b and
// the law-of-cosines proof with the current numbers, checked against a
// float64 reference after mouse drags, arrow keys and a changed URL.
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReopens, expectReveal } from './helpers.mjs';
import { seedCase, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { angleRow, byRole, expectAllLogged, expectClose, expectNumbers } from './shown-numbers.mjs';
import { one, readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, norm, squaredDistance, squaredNorm } from '../reference/float64.mjs';

const TAG = 'ag-why-agree';
const CH = 'why-agree';

/** Every number shown against the float64 reference for a and b; returns a.b. */
function expectMatches(numbers, a, b) {
  const [sa, sb, na, nb, d] = [squaredNorm(a), squaredNorm(b), norm(a), norm(b), dot(a, b)];
  const geometric = na && nb ? na * nb * cosine(a, b) : 0;
  const tol = 20 * U * (sa + sb) + 1e-12; // float32 roundoff relative to the largest terms
  const rows = [
    ['side', null, squaredDistance(a, b)],
    ['sq-norm', 'a', sa],
    ['sq-norm', 'b', sb],
    ['sq-norm', 'a-expand', sa],
    ['sq-norm', 'b-expand', sb],
    ['norm', 'a', na],
    ['norm', 'b', nb],
    ['sum-sq', 'law', sa + sb],
    ['sum-sq', 'expand', sa + sb],
    ['twice-geometric', null, 2 * geometric],
    ['law', null, sa + sb - 2 * geometric],
    ['dot', null, d],
    ['dot', 'final', d],
    ['twice-dot', null, 2 * d],
    ['expand', null, sa - 2 * d + sb],
    ['minus-twice', 'dot', -2 * d],
    ['minus-twice', 'geometric', -2 * geometric],
    ['geometric', null, geometric],
  ].map((r) => [...r, tol]);
  expectNumbers(numbers, [
    ...[0, 1].map((i) => ['difference', i + 1, a[i] - b[i], 4 * U * (Math.abs(a[i]) + Math.abs(b[i])), 0]),
    ...rows,
  ]);
  // The law of cosines and the expansion both equal the measured side.
  expectClose(one(numbers, 'law').value, one(numbers, 'side').value, tol, 'law = side');
  expectClose(one(numbers, 'expand').value, one(numbers, 'side').value, tol, 'expand = side');
  if (na && nb)
    expectNumbers(numbers, [
      ['cosine', 'angle-line', cosine(a, b), 20 * U],
      ['cosine', 'substituted', cosine(a, b), 20 * U],
      angleRow('angle', null, angle(a, b)),
    ]);
  return d;
}

const env = useEnv();

describe('why-agree: why they agree', () => {
  test('opens on the article pair: |a - b|^2 = 2 three ways (measured, law of cosines, expansion), a.b = 24 forced; predict, then reveal: at a right angle |a - b|^2 is exactly |a|^2 + |b|^2 = 50', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      const texts = [['side'], ['law'], ['expand'], ['sum-sq', 'law'], ['twice-geometric'], ['twice-dot']];
      texts.push(['dot', 'final'], ['geometric'], ['cosine', 'substituted']);
      expect(texts.map(([role, key]) => one(numbers, role, key).text)).toEqual([
        '2',
        '2',
        '2',
        '50',
        '48',
        '48',
        '24',
        '24',
        '0.96',
      ]);
      expect(byRole(numbers, 'difference').map((d) => d.text)).toEqual(['\u22121', '1']);
      expectMatches(numbers, [3, 4], [4, 3]);
      // The article's claim (seed file): |a - b|^2 = 2 for (3, 4) and (4, 3).
      const seed = seedCase('law-of-cosines');
      expect(seed.inputs).toEqual({ a: [3, 4], b: [4, 3] });
      for (const role of ['side', 'law', 'expand'])
        expectClose(one(numbers, role).value, seed.expected, seed.tolerance, `seed ${role}`);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(3);
      // The triangle: the third side is drawn from b's tip to a's tip.
      const side = await page.locator(TAG).evaluate((el) => {
        const ends = (name) => {
          const l = el.shadowRoot.querySelector(`line.vec-${name}`);
          return ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k)));
        };
        return { d: ends('d'), a: ends('a'), b: ends('b') };
      });
      expect(side.d).toEqual([...side.b.slice(2), ...side.a.slice(2)]);
      // The prediction's answer loads its example.
      const says = /\|a \u2212 b\|\u00b2 = 50/;
      const reveal = { wrong: 'less', right: 'equal', says, state: { a: [3, 4], b: [-4, 3] } };
      const revealed = await expectReveal(page, TAG, reveal);
      expectMatches(revealed, [3, 4], [-4, 3]);
      expect(one(revealed, 'twice-geometric').value).toBe(0);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);
      const b = [3.75, 1.25];
      const keys = ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown', 'ArrowUp'];
      await keyTo(page, TAG, 'b', keys, b, 'b = (3.75, 1.25)');
      const numbers = await readNumbers(page, TAG);
      // Obtuse: -2 a.b is positive, the side is longer than Pythagoras.
      expect(expectMatches(numbers, [-2, 3.5], b)).toBeLessThan(0);
      expect(one(numbers, 'side').value).toBeGreaterThan(one(numbers, 'sum-sq', 'law').value);
      await expectAllLogged(page, TAG);
      await expectAnnounced(page, TAG, `|a \u2212 b|\u00b2 = ${one(numbers, 'side').text}`);
      await expectParams(page, CH, { a: '-2,3.5', b: '3.75,1.25' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with other vectors, and one with a zero vector, shows their reference values', async () => {
    await atLink(env, CH, TAG, 'a=-5.5,1.25&b=2,-6', (numbers) => expectMatches(numbers, [-5.5, 1.25], [2, -6]));
    await atLink(env, CH, TAG, 'a=0,0&b=2,-6', (numbers) => {
      expectMatches(numbers, [0, 0], [2, -6]);
      expect(one(numbers, 'side').value).toBe(40);
      expect(numbers.some((n) => n.role === 'cosine' || n.role === 'angle')).toBe(false);
    });
  });

  test('a negative term flips its sign: 50 + 48, not 50 \u2212 \u221248, while data-value keeps the negative result', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=3,4&b=-4,-3` }, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [3, 4], [-4, -3]); // shown (with the flipped separators) against the reference
      const lines = (step) =>
        page
          .locator(`${TAG} .step.${step} p.line`)
          .evaluateAll((ps) => ps.map((p) => p.textContent.replace(/\s+/g, ' ').trim()));
      expect(await lines('law')).toEqual(
        expect.arrayContaining(['= 25 + 25 + 2 \u00d7 5 \u00d7 5 \u00d7 0.96', '= 50 + 48']),
      );
      expect(await lines('expand')).toEqual(expect.arrayContaining(['= 25 + 2 \u00d7 24 + 25', '= 50 + 48']));
      for (const role of ['twice-geometric', 'twice-dot']) {
        const n = one(numbers, role);
        expect([n.text, n.sign, n.sep, n.shown]).toEqual(['48', '-1', { op: '\u2212', text: '+' }, -48]);
        expectClose(n.value, -48, 40 * U * 50, role);
      }
      const dot = numbers.find((n) => n.role === 'dot' && n.key === null); // in "2 \u00d7 a\u00b7b"
      expect([dot.text, dot.value, dot.sep.text]).toEqual(['24', -24, '+']);
      const all = await page.locator(TAG).evaluate((el) => el.shadowRoot.textContent.replace(/\s+/g, ' '));
      expect(all).not.toMatch(/[+\u2212] [\u2212-]\d/);
      // Back to an acute pair: the separators are written as before.
      await page.evaluate((tag) => document.querySelector(tag).setState({ b: [4, 3] }), TAG);
      await page.waitForFunction((tag) => document.querySelector(tag).state.b[1] === 3, TAG);
      expect(await lines('law')).toContain('= 50 \u2212 48');
      expect(await lines('expand')).toContain('= 25 \u2212 2 \u00d7 24 + 25');
      expectMatches(await readNumbers(page, TAG), [3, 4], [4, 3]);
      await expectAllLogged(page, TAG);
    });
  });
});
