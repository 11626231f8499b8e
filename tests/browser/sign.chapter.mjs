// "Sign and size" (#ch-sign, <ag-sign-and-size>): the regions b splits the plane into, a's region named
// live, and the same score two ways, against a float64 reference after drags, keys and links.
import { expect } from '@jest/globals';
import { angle, cosine, dot, norm, sumAbsProd } from '../reference/float64.mjs';
import { angleRow, chapterTests, expectNumbers, expectTexts, one, U } from './chapter-tests.mjs';

/**
 * The numbers of a and b (the role `prefix` + name, key `key`: the live ones, or a same-score card's)
 * against the float64 reference; returns a.b and its region.
 */
function pair(numbers, a, b, prefix = '', key = null) {
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
function drawn(w) {
  return w.eval((el) => {
    const root = el.shadowRoot;
    const svg = root.querySelector('svg.plane');
    const [e, m, w] = [Number(svg.dataset.extent), Number(svg.dataset.margin), svg.viewBox.baseVal.width];
    const toPlot = (px, py) => [((px - m) / (w - 2 * m)) * 2 * e - e, e - ((py - m) / (w - 2 * m)) * 2 * e];
    const pairs = (sel) =>
      root
        .querySelector(sel)
        .getAttribute('d')
        .match(/-?[\d.]+(e-?\d+)?,-?[\d.]+(e-?\d+)?/g);
    const poly = (sel) => (pairs(sel) ?? []).map((s) => toPlot(...s.split(',').map(Number)));
    const zero = (k) => Number(root.querySelector('line.zero-line').getAttribute(k));
    const current = [...root.querySelectorAll('.reading.is-current')].map((li) => li.dataset.reading);
    const [positive, negative] = [poly('path.region-positive'), poly('path.region-negative')];
    const ends = [toPlot(zero('x1'), zero('y1')), toPlot(zero('x2'), zero('y2'))];
    return { region: el.dataset.region, current, positive, negative, zero: ends, extent: e };
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

/** The widget names `region` and highlights its reading; with `b`, the regions drawn follow b (expectRegions). */
async function expectDrawn(w, region, b) {
  const d = await drawn(w);
  expect([d.region, d.current]).toEqual([region, [region]]);
  if (b) expectRegions(d, b);
}

const it = chapterTests({ ch: 'sign', tag: 'ag-sign-and-size', match: (numbers, { a, b }) => pair(numbers, a, b) });

it('opens on (3, 4) and (4, 3): positive, acute, regions that follow b, and the same score 6 two ways; predict, then reveal: a = (-1, 3) against b = (4, 3) scores positive', async (w) => {
  const { numbers } = await w.matches({ a: [3, 4], b: [4, 3] });
  expectTexts(numbers, { dot: '24', angle: '16.26\u00b0' });
  await expectDrawn(w, 'positive', [4, 3]);
  // Same score, two ways: both pairs score 6, from very different lengths and angles.
  pair(numbers, [1.5, 2], [2, 1.5], 'demo-', 'short');
  pair(numbers, [6, 0], [1, 5], 'demo-', 'long');
  expectTexts(numbers, { 'demo-score.short': '6', 'demo-score.long': '6' });
  expect(one(numbers, 'demo-cosine', 'short').value).toBeGreaterThan(0.95);
  expect(one(numbers, 'demo-cosine', 'long').value).toBeLessThan(0.2);
  expect(await w.katex()).toBeGreaterThan(0);
  const state = { a: [-1, 3], b: [4, 3] };
  const { ref } = await w.reveal({ wrong: 'negative', right: 'positive', says: /a\u00b7b = 5/, state });
  expect(ref.dot).toBe(5);
});

it.dragKeys({
  name: 'dragging a across the zero line and turning b with the keys change the region, with reference values, and the URL reopens them',
  from: { a: [3, 4], b: [4, 3] },
  drag: ['a', [-3.5, 2]],
  afterDrag: async (w, numbers, ref) => {
    expect(ref.region).toBe('negative');
    await expectDrawn(w, 'negative');
    await expect(w.text('[data-role="region"]')).resolves.toMatch(/negative half-plane.*obtuse/);
  },
  // Turn b with the keyboard: a does not move, but the regions turn and a changes sides.
  key: ['b', Array(6).fill('Shift+ArrowLeft'), [-2, 3], 'b = (\u22122, 3)'],
  afterKeys: async (w, numbers, ref) => {
    expect(ref.region).toBe('positive');
    await expectDrawn(w, 'positive', [-2, 3]);
  },
  announce: (numbers) => `Score ${one(numbers, 'dot').text}`,
  params: { a: '-3.5,2', b: '-2,3' },
});

it('a URL on the zero line reads "zero" at a right angle; the "Show in the plot" buttons load the same-score pairs', async (w) => {
  await w.link('a=-3,4&b=4,3', { a: [-3, 4], b: [4, 3] }, {}, async (z, numbers) => {
    expect(one(numbers, 'dot').value).toBe(0);
    expect(one(numbers, 'angle').text).toBe('90\u00b0');
    await expectDrawn(z, 'zero', [4, 3]);
    await z.at('[data-load="long"]').click();
    expect(await z.state()).toEqual({ a: [6, 0], b: [1, 5] });
    expect(one((await z.matches({ a: [6, 0], b: [1, 5] })).numbers, 'dot').text).toBe('6');
    expect((await z.url()).get('a')).toBe('6,0');
    expect((await drawn(z)).region).toBe('positive');
  });
  await w.link('a=-5.5,1.25&b=2,-6', { a: [-5.5, 1.25], b: [2, -6] }, {}, async (z, numbers, ref) => {
    expect(ref.region).toBe('negative');
    expectRegions(await drawn(z), [2, -6]);
  });
});
