// "Length as a lever" (#ch-length, <ag-length-lever>): k = t·d scored by four fixed queries, against a
// float64 reference (slider, drag, keys, links) and the article's u, v, w numbers (seed file).
import { expect } from '@jest/globals';
import { dot, norm, sumAbsProd } from '../reference/float64.mjs';
import { byRole, chapterTests, expectNumbers, expectSeed, expectTexts, one, rowsOf, U } from './chapter-tests.mjs';

/** The fixed queries of the widget, written out again here (u is the article's). */
const QUERIES = rowsOf('1,0;0,2;-2,1;1,-1');

/** Every number shown against the float64 reference for the direction d and the stretch t. */
function match(numbers, { d, t }) {
  const k = [t * d[0], t * d[1]];
  const [nd, nk] = [norm(d), norm(k)];
  expectNumbers(numbers, [
    ...k.map((c, i) => ['k', i + 1, c, 2 * U * Math.abs(c), 0]),
    ['norm', 'd', nd, 6 * U * nd],
    ['norm', 'k', nk, 6 * U * nk],
    ...QUERIES.flatMap((q, i) => {
      const tol = 6 * U * (sumAbsProd(q, k) + sumAbsProd(q, d));
      const perUnit = nk === 0 ? [] : [['per-unit', i + 1, dot(q, k) / nk, 20 * U * Math.hypot(...q)]];
      return [['base-score', i + 1, dot(q, d), tol], ['score', i + 1, dot(q, k), tol], ...perUnit];
    }),
  ]);
  if (nk === 0) expect(numbers.some((n) => n.role === 'per-unit')).toBe(false);
}

const it = chapterTests({ ch: 'length', tag: 'ag-length-lever', match });

it('opens on the article: u = (1, 0), k = v = (1, 1): u.v = 1 and |v| = sqrt 2; predict, then reveal: tripling the length triples u.k', async (w) => {
  const { numbers } = await w.matches({ d: [1, 1], t: 1 });
  expectTexts(numbers, { 'score.1': '1', 'norm.k': '1.414', score: ['1', '2', '\u22121', '0'] });
  // The seed file's claims: u.v = 1 exactly, |v| = sqrt 2.
  expectSeed('length-lever-v', one(numbers, 'score', 1).value, { a: QUERIES[0], b: [1, 1] });
  expectSeed('norm-v', one(numbers, 'norm', 'k').value);
  expect(await w.katex()).toBeGreaterThan(0);
  await w.reveal({ wrong: 'same', right: 'triple', says: /u\u00b7w = 3/, state: { d: [1, 1], t: 3 } });
});

it('the slider (arrow keys) stretches k to w = (3, 3): every score triples; u.w = 3, |w| = 3 sqrt 2', async (w) => {
  await w.press('input.slider', 'ArrowRight', 8);
  expect((await w.state()).t).toBe(3);
  const { numbers } = await w.matches({ d: [1, 1], t: 3 });
  const base = byRole(numbers, 'base-score');
  byRole(numbers, 'score').forEach((s, i) => expect(s.value).toBe(3 * base[i].value)); // the ratio is t, exactly
  // Per unit of length, nothing moved: the same as at t = 1.
  expectTexts(numbers, { 'per-unit': ['0.7071', '1.414', '\u22120.7071', '0'] });
  expectSeed('length-lever-w', one(numbers, 'score', 1).value);
  expectSeed('norm-w', one(numbers, 'norm', 'k').value);
  expect(byRole(numbers, 'k').map((c) => c.value)).toEqual([3, 3]);
  await w.announced('t = 3');
  expect((await w.url()).get('t')).toBe('3');
  await w.logged();
});

it.dragKeys({
  name: 'dragging d with the mouse and moving it with the keys gives the reference values, and the URL reopens them',
  at: 'd=1,1&t=2',
  from: { d: [1, 1], t: 2 },
  drag: ['d', [2, -1]],
  key: ['d', ['ArrowLeft', 'Shift+ArrowUp', 'ArrowUp'], [1.75, 0.25], 'direction d = (1.75, 0.25)'],
  announce: (numbers) => `u\u00b7k = ${one(numbers, 'score', 1).text}`,
  params: { d: '1.75,0.25', t: '2' },
});

it('a URL with other values, and t = 0 (no length, no score, no direction)', async (w) => {
  await w.link('d=-2.5,1.75&t=2.25', { d: [-2.5, 1.75], t: 2.25 }, {}, async (z) =>
    expect(await z.at('input.slider').inputValue()).toBe('2.25'),
  );
  await w.link('d=1,1&t=0', { d: [1, 1], t: 0 }, { logged: false, own: true }, async (z, numbers) => {
    byRole(numbers, 'score').forEach((s) => expect(s.value).toBe(0));
    await expect(z.at('[data-role="per-unit"]').first().textContent()).resolves.toBe('not defined');
  });
});
