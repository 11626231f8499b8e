// "Projection as a shadow" (#ch-projection, <ag-projection>): the scalar and vector
// projections against a float64 reference (drags, keys, links); an obtuse angle casts the shadow backwards.
import { expect } from '@jest/globals';
import { screenshot } from './helpers.mjs';
import { angle, cosine, dot, norm, normalize, scalarProjection } from '../reference/float64.mjs';
import { sumAbsProd, vectorProjection } from '../reference/float64.mjs';
import { angleRow, byRole, chapterTests, expectClose, expectNumbers, expectSeed } from './chapter-tests.mjs';
import { expectTexts, one, U } from './chapter-tests.mjs';

const AB = { a: [3, 4], b: [4, 3] };

/** Every number shown against the float64 reference for a and b (b not zero); returns the shadow a.b/|b|. */
function match(numbers, { a, b }) {
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
function drawnFoot(w) {
  return w.eval((el) => {
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

const it = chapterTests({ ch: 'projection', tag: 'ag-projection', match });

it('opens on the article pair: shadow a.b/|b| = 4.8, vector projection (3.84, 2.88), drawn at the foot of the perpendicular; predict, then reveal: at (-4, -1) the shadow falls behind the origin', async (w) => {
  const { numbers } = await w.matches(AB);
  const texts = { 'scalar-projection': '4.8', dot: '24', 'norm.b': '5', 'shadow-times-length': '24' };
  expectTexts(numbers, { ...texts, 'vector-projection': ['3.84', '2.88'] });
  // Beside the numbers (1024 px), the figure stays in view as they scroll past, below the reading bar.
  const stuck = await w.at('.layout > .figure').evaluate(async (el) => {
    const y = window.scrollY;
    window.scrollBy(0, el.parentElement.getBoundingClientRect().top + 150); // the layout's top 150 px above the window
    await new Promise(requestAnimationFrame);
    const bar = document.getElementById('reading-bar').getBoundingClientRect();
    const seen = {
      position: getComputedStyle(el).position,
      top: el.getBoundingClientRect().top,
      barBottom: bar.bottom,
    };
    window.scrollTo(0, y);
    return seen;
  });
  expect(stuck.position).toBe('sticky');
  expect(stuck.top).toBeGreaterThanOrEqual(stuck.barBottom);
  // The article's claims (seed file).
  expectSeed('scalar-projection', one(numbers, 'scalar-projection').value, AB);
  const vector = byRole(numbers, 'vector-projection').map((n) => n.value);
  expectSeed('vector-projection', vector, AB);
  expect(await w.host('data-shadow')).toBe('along');
  const drawn = await drawnFoot(w);
  expectClose(drawn.foot[0], 3.84, 1e-4, 'foot x');
  expectClose(drawn.foot[1], 2.88, 1e-4, 'foot y');
  expect(drawn.shadowStart.map((v) => Math.abs(v) < 1e-9)).toEqual([true, true]);
  expect(drawn.shadowEnd.map((v, i) => Math.abs(v - drawn.foot[i]) < 1e-9)).toEqual([true, true]);
  expect(drawn.drop).toBe('visible');
  expect(await w.katex()).toBeGreaterThan(2);
  const behind = { a: [3, 4], b: [-4, -1] };
  const { numbers: revealed, ref } = await w.reveal({ wrong: 'along', state: behind, logged: false });
  expect(ref).toBeLessThan(0);
  const says = `a\u00b7b/|b| = ${one(revealed, 'scalar-projection').text}`;
  await expect(w.text('.predict-result')).resolves.toContain(says);
  await w.predict('against', 'right');
});

it.dragKeys({
  name: 'dragging a with the mouse and b with the keyboard gives the float64-reference values, an obtuse angle a backward shadow, and the URL reopens them',
  from: AB,
  drag: ['a', [-2, 3.5]],
  // b: (4, 3) -> (3.75, 1) with the keys; a = (-2, 3.5) is then more than 90 degrees away.
  key: ['b', ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown'], [3.75, 1], 'b = (3.75, 1)'],
  afterKeys: async (w, numbers, ref) => {
    expect(ref).toBeLessThan(0);
    expect(one(numbers, 'scalar-projection').value).toBeLessThan(0);
    expect(await w.host('data-shadow')).toBe('against');
    await expect(w.text('[data-role="direction"]')).resolves.toMatch(/obtuse/);
    // The drawn shadow points against b.
    const { foot } = await drawnFoot(w);
    expect(foot[0] * 3.75 + foot[1] * 1).toBeLessThan(0);
    await screenshot(w.page.locator(w.tag), 'projection-desktop-backward-shadow');
  },
  announce: (numbers) => `a\u00b7b/|b| = ${one(numbers, 'scalar-projection').text}`,
  params: { a: '-2,3.5', b: '3.75,1' },
});

it('a URL with a longer b on the same line keeps the shadow; a zero b has none', async (w) => {
  await w.link('a=3,4&b=6,4.5', { a: [3, 4], b: [6, 4.5] }, {}, (z, numbers) =>
    expectTexts(numbers, { 'scalar-projection': '4.8', dot: '36' }),
  );
  await w.link('a=-5.5,1.25&b=2,-6', { a: [-5.5, 1.25], b: [2, -6] });
  await w.link('a=3,4&b=0,0', null, { logged: false, own: true }, async (z, numbers) => {
    const none = ['scalar-projection', 'vector-projection', 'cosine', 'angle'];
    expect(numbers.some((n) => none.includes(n.role))).toBe(false);
    await expect(z.text('[data-role="scalar-projection"]')).resolves.toBe('not defined');
    expect(await z.host('data-shadow')).toBe('undefined');
  });
});
