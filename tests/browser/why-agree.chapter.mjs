// "Why they agree" (#ch-why-agree, <ag-why-agree>): the triangle a, b, a − b and
// the law-of-cosines proof with the current numbers, checked against a
// float64 reference after mouse drags, arrow keys and a changed URL.
import { expect } from '@jest/globals';
import { angle, cosine, dot, norm, squaredDistance, squaredNorm } from '../reference/float64.mjs';
import { angleRow, chapterTests, expectClose, expectNumbers, expectSeed, expectTexts, one } from './chapter-tests.mjs';
import { U } from './chapter-tests.mjs';

const AB = { a: [3, 4], b: [4, 3] };

/** Every number shown against the float64 reference for a and b; returns a.b. */
function match(numbers, { a, b }) {
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

const it = chapterTests({ ch: 'why-agree', tag: 'ag-why-agree', match });

it('opens on the article pair: |a - b|^2 = 2 three ways (measured, law of cosines, expansion), a.b = 24 forced; predict, then reveal: at a right angle |a - b|^2 is exactly |a|^2 + |b|^2 = 50', async (w) => {
  const { numbers } = await w.matches(AB);
  const texts = { side: '2', law: '2', expand: '2', 'sum-sq.law': '50', 'twice-geometric': '48', 'twice-dot': '48' };
  Object.assign(texts, { 'dot.final': '24', geometric: '24', 'cosine.substituted': '0.96' });
  expectTexts(numbers, { ...texts, difference: ['\u22121', '1'] });
  // The article's claim (seed file): |a - b|^2 = 2 for (3, 4) and (4, 3).
  for (const role of ['side', 'law', 'expand']) expectSeed('law-of-cosines', one(numbers, role).value, AB);
  expect(await w.katex()).toBeGreaterThan(3);
  // The triangle: the third side is drawn from b's tip to a's tip.
  const side = await w.eval((el) => {
    const ends = (name) => {
      const l = el.shadowRoot.querySelector(`line.vec-${name}`);
      return ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k)));
    };
    return { d: ends('d'), a: ends('a'), b: ends('b') };
  });
  expect(side.d).toEqual([...side.b.slice(2), ...side.a.slice(2)]);
  // The prediction's answer loads its example.
  const [says, state] = [/\|a \u2212 b\|\u00b2 = 50/, { a: [3, 4], b: [-4, 3] }];
  const { numbers: revealed } = await w.reveal({ wrong: 'less', right: 'equal', says, state });
  expect(one(revealed, 'twice-geometric').value).toBe(0);
});

it.dragKeys({
  name: 'dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them',
  from: AB,
  drag: ['a', [-2, 3.5]],
  key: ['b', ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown', 'ArrowUp'], [3.75, 1.25], 'b = (3.75, 1.25)'],
  // Obtuse: -2 a.b is positive, the side is longer than Pythagoras.
  afterKeys: (w, numbers, ref) => {
    expect(ref).toBeLessThan(0);
    expect(one(numbers, 'side').value).toBeGreaterThan(one(numbers, 'sum-sq', 'law').value);
  },
  announce: (numbers) => `|a \u2212 b|\u00b2 = ${one(numbers, 'side').text}`,
  params: { a: '-2,3.5', b: '3.75,1.25' },
});

it('a URL with other vectors, and one with a zero vector, shows their reference values', async (w) => {
  await w.link('a=-5.5,1.25&b=2,-6', { a: [-5.5, 1.25], b: [2, -6] });
  await w.link('a=0,0&b=2,-6', { a: [0, 0], b: [2, -6] }, { own: true }, (z, numbers) => {
    expect(one(numbers, 'side').value).toBe(40);
    expect(numbers.some((n) => n.role === 'cosine' || n.role === 'angle')).toBe(false);
  });
});

it('a negative term flips its sign (50 + 48); its data-value keeps the negative result', async (w) => {
  // shown (with the flipped separators) against the reference
  const { numbers } = await w.matches({ a: [3, 4], b: [-4, -3] });
  const lines = (step) =>
    w.at(`.step.${step} p.line`).evaluateAll((ps) => ps.map((p) => p.textContent.replace(/\s+/g, ' ').trim()));
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
  const all = await w.eval((el) => el.shadowRoot.textContent.replace(/\s+/g, ' '));
  expect(all).not.toMatch(/[+\u2212] [\u2212-]\d/);
  // Back to an acute pair: the separators are written as before.
  await w.eval((el) => el.setState({ b: [4, 3] }));
  await w.page.waitForFunction((tag) => document.querySelector(tag).state.b[1] === 3, w.tag);
  expect(await lines('law')).toContain('= 50 \u2212 48');
  expect(await lines('expand')).toContain('= 25 \u2212 2 \u00d7 24 + 25');
  await w.matches({ a: [3, 4], b: [4, 3] });
  await w.logged();
}).at('a=3,4&b=-4,-3');
