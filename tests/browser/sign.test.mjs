// "Sign and size" (#ch-sign, <ag-sign-and-size>): the regions b splits the plane into, a's region named
// live, and the same score two ways, against a float64 reference after drags, keys and links.
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReopens, expectReveal } from './helpers.mjs';
import { stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { angleRow, expectAllLogged, expectNumbers, one, readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, norm, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-sign-and-size';
const CH = 'sign';

/**
 * The numbers of a and b (the role `prefix` + name, key `key`: the live ones, or a same-score card's)
 * against the float64 reference; returns a.b and its region.
 */
function expectMatches(numbers, a, b, prefix = '', key = null) {
  const [d, na, nb] = [dot(a, b), norm(a), norm(b)];
  const names = prefix ? ['score', 'norm-a', null, 'norm-b', null] : ['dot', 'norm', 'a', 'norm', 'b'];
  expectNumbers(numbers, [
    [prefix + names[0], key, d, 3 * U * sumAbsProd(a, b) + 1e-12],
    [prefix + names[1], names[2] ?? key, na, 4 * U * na, prefix ? false : 0],
    [prefix + names[3], names[4] ?? key, nb, 4 * U * nb, prefix ? false : 0],
    [prefix + (prefix ? 'product' : 'norm-product'), key, na * nb, 10 * U * na * nb],
    ...(na && nb ? [[`${prefix}cosine`, key, cosine(a, b), 20 * U], angleRow(`${prefix}angle`, key, angle(a, b))] : []),
  ]);
  return { dot: d, region: d > 0 ? 'positive' : d < 0 ? 'negative' : 'zero' };
}

/** The region the widget names, the highlighted reading, and the drawn polygons (plot units). */
async function drawn(page) {
  return page.locator(TAG).evaluate((el) => {
    const root = el.shadowRoot;
    const svg = root.querySelector('svg.plane');
    const e = Number(svg.dataset.extent);
    const m = Number(svg.dataset.margin);
    const w = svg.viewBox.baseVal.width;
    const toPlot = ([px, py]) => [((px - m) / (w - 2 * m)) * 2 * e - e, e - ((py - m) / (w - 2 * m)) * 2 * e];
    const poly = (sel) =>
      (
        root
          .querySelector(sel)
          .getAttribute('d')
          .match(/-?[\d.]+(e-?\d+)?,-?[\d.]+(e-?\d+)?/g) ?? []
      ).map((s) => toPlot(s.split(',').map(Number)));
    const zero = root.querySelector('line.zero-line');
    return {
      region: el.dataset.region,
      current: [...root.querySelectorAll('.reading.is-current')].map((li) => li.dataset.reading),
      positive: poly('path.region-positive'),
      negative: poly('path.region-negative'),
      zero: [
        toPlot([Number(zero.getAttribute('x1')), Number(zero.getAttribute('y1'))]),
        toPlot([Number(zero.getAttribute('x2')), Number(zero.getAttribute('y2'))]),
      ],
      extent: e,
    };
  });
}

/** The regions follow b: positive polygon on b's side, negative on the other, zero line perpendicular, all inside the plot. */
function expectRegions(d, b) {
  const side = (q) => q[0] * b[0] + q[1] * b[1];
  const scale = Math.hypot(...b) * d.extent;
  expect(d.positive.length).toBeGreaterThanOrEqual(3);
  expect(d.negative.length).toBeGreaterThanOrEqual(3);
  for (const q of d.positive) expect(side(q)).toBeGreaterThanOrEqual(-1e-6 * scale);
  for (const q of d.negative) expect(side(q)).toBeLessThanOrEqual(1e-6 * scale);
  for (const q of [...d.positive, ...d.negative, ...d.zero])
    for (const c of q) expect(Math.abs(c)).toBeLessThanOrEqual(d.extent + 1e-6);
  for (const q of d.zero) expect(Math.abs(side(q))).toBeLessThanOrEqual(1e-6 * scale);
}

const env = useEnv();

describe('sign: sign and size', () => {
  test('opens on (3, 4) and (4, 3): positive, acute, regions that follow b, and the same score 6 two ways; predict, then reveal: a = (-1, 3) against b = (4, 3) scores positive', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'dot').text).toBe('24');
      expect(one(numbers, 'angle').text).toBe('16.26\u00b0');
      expectMatches(numbers, [3, 4], [4, 3]);
      const d = await drawn(page);
      expect(d.region).toBe('positive');
      expect(d.current).toEqual(['positive']);
      expectRegions(d, [4, 3]);
      // Same score, two ways: both pairs score 6, from very different lengths and angles.
      expectMatches(numbers, [1.5, 2], [2, 1.5], 'demo-', 'short');
      expectMatches(numbers, [6, 0], [1, 5], 'demo-', 'long');
      expect(['short', 'long'].map((key) => one(numbers, 'demo-score', key).text)).toEqual(['6', '6']);
      expect(one(numbers, 'demo-cosine', 'short').value).toBeGreaterThan(0.95);
      expect(one(numbers, 'demo-cosine', 'long').value).toBeLessThan(0.2);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      const state = { a: [-1, 3], b: [4, 3] };
      const reveal = { wrong: 'negative', right: 'positive', says: /a\u00b7b = 5/, state };
      expect(expectMatches(await expectReveal(page, TAG, reveal), [-1, 3], [4, 3]).dot).toBe(5);
    });
  });

  test('dragging a across the zero line and turning b with the keys change the region, with reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-3.5, 2]);
      let numbers = await readNumbers(page, TAG);
      expect(expectMatches(numbers, [-3.5, 2], [4, 3]).region).toBe('negative');
      let d = await drawn(page);
      expect(d.region).toBe('negative');
      expect(d.current).toEqual(['negative']);
      await expect(page.locator(`${TAG} [data-role="region"]`).textContent()).resolves.toMatch(
        /negative half-plane.*obtuse/,
      );

      // Turn b with the keyboard: a does not move, but the regions turn and a changes sides.
      const b = [-2, 3];
      await keyTo(page, TAG, 'b', Array(6).fill('Shift+ArrowLeft'), b, 'b = (\u22122, 3)');
      numbers = await readNumbers(page, TAG);
      expect(expectMatches(numbers, [-3.5, 2], b).region).toBe('positive');
      d = await drawn(page);
      expect(d.region).toBe('positive');
      expect(d.current).toEqual(['positive']);
      expectRegions(d, b);
      await expectAllLogged(page, TAG);
      await expectAnnounced(page, TAG, `Score ${one(numbers, 'dot').text}`);
      await expectParams(page, CH, { a: '-3.5,2', b: '-2,3' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL on the zero line reads "zero" at a right angle; the "Show in the plot" buttons load the same-score pairs', async () => {
    await atLink(env, CH, TAG, 'a=-3,4&b=4,3', async (first, { page }) => {
      let numbers = first;
      expectMatches(numbers, [-3, 4], [4, 3]);
      expect(one(numbers, 'dot').value).toBe(0);
      expect(one(numbers, 'angle').text).toBe('90\u00b0');
      let d = await drawn(page);
      expect(d.region).toBe('zero');
      expect(d.current).toEqual(['zero']);
      expectRegions(d, [4, 3]);

      await page.locator(`${TAG} [data-load="long"]`).click();
      expect(await stateOf(page, TAG)).toEqual({ a: [6, 0], b: [1, 5] });
      numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [6, 0], [1, 5]);
      expect(one(numbers, 'dot').text).toBe('6');
      expect((await urlParams(page)).get('a')).toBe('6,0');
      expect((await drawn(page)).region).toBe('positive');
    });
    await atLink(env, CH, TAG, 'a=-5.5,1.25&b=2,-6', async (numbers, { page }) => {
      expect(expectMatches(numbers, [-5.5, 1.25], [2, -6]).region).toBe('negative');
      expectRegions(await drawn(page), [2, -6]);
    });
  });
});
