// "Length as a lever" (#ch-length, <ag-length-lever>): k = t·d scored by four fixed queries, against a
// float64 reference (slider, drag, keys, links) and the article's u, v, w numbers (seed file).
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReopens, expectReveal } from './helpers.mjs';
import { seedCase as seed, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectNumbers, one } from './shown-numbers.mjs';
import { readNumbers, U } from './shown-numbers.mjs';
import { dot, norm, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-length-lever';
const CH = 'length';
/** The fixed queries of the widget, written out again here (u is the article's). */
const QUERIES = [
  [1, 0],
  [0, 2],
  [-2, 1],
  [1, -1],
];

/** Every number shown against the float64 reference for the direction d and the stretch t. */
function expectMatches(numbers, d, t) {
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

const env = useEnv();

describe('length: length as a lever', () => {
  test('opens on the article: u = (1, 0), k = v = (1, 1): u.v = 1 and |v| = sqrt 2, every number from a logged call; predict, then reveal: tripling the length triples u.k', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'score', 1).text).toBe('1');
      expect(one(numbers, 'norm', 'k').text).toBe('1.414');
      expect(byRole(numbers, 'score').map((s) => s.text)).toEqual(['1', '2', '\u22121', '0']);
      expectMatches(numbers, [1, 1], 1);
      // The seed file's claims: u.v = 1 exactly, |v| = sqrt 2.
      const v = seed('length-lever-v');
      expect(v.inputs.a).toEqual(QUERIES[0]);
      expectClose(one(numbers, 'score', 1).value, v.expected, v.tolerance, 'seed u.v');
      const nv = seed('norm-v');
      expectClose(one(numbers, 'norm', 'k').value, nv.expected, nv.tolerance, 'seed |v|');
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      // The prediction's answer loads its example.
      const reveal = { wrong: 'same', right: 'triple', says: /u\u00b7w = 3/, state: { d: [1, 1], t: 3 } };
      expectMatches(await expectReveal(page, TAG, reveal), [1, 1], 3);
    });
  });

  test('the slider (arrow keys) stretches k to w = (3, 3): every score triples; u.w = 3, |w| = 3 sqrt 2', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const slider = page.locator(`${TAG} input.slider`);
      await slider.focus();
      for (let i = 0; i < 8; i += 1) await page.keyboard.press('ArrowRight');
      expect((await stateOf(page, TAG)).t).toBe(3);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [1, 1], 3);
      const base = byRole(numbers, 'base-score');
      byRole(numbers, 'score').forEach((s, i) => expect(s.value).toBe(3 * base[i].value)); // the ratio is t, exactly
      // Per unit of length, nothing moved: the same as at t = 1.
      expect(byRole(numbers, 'per-unit').map((n) => n.text)).toEqual(['0.7071', '1.414', '\u22120.7071', '0']);
      const w = seed('length-lever-w');
      expectClose(one(numbers, 'score', 1).value, w.expected, w.tolerance, 'seed u.w');
      const nw = seed('norm-w');
      expectClose(one(numbers, 'norm', 'k').value, nw.expected, nw.tolerance, 'seed |w|');
      expect(byRole(numbers, 'k').map((c) => c.value)).toEqual([3, 3]);
      await expectAnnounced(page, TAG, 't = 3');
      expect((await urlParams(page)).get('t')).toBe('3');
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging d with the mouse and moving it with the keys gives the reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=1,1&t=2` }, async ({ page }) => {
      await dragTo(page, TAG, 'd', [2, -1]);
      expectMatches(await readNumbers(page, TAG), [2, -1], 2);
      const d = [1.75, 0.25];
      await keyTo(page, TAG, 'd', ['ArrowLeft', 'Shift+ArrowUp', 'ArrowUp'], d, 'direction d = (1.75, 0.25)');
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, d, 2);
      await expectAnnounced(page, TAG, `u\u00b7k = ${one(numbers, 'score', 1).text}`);
      await expectParams(page, CH, { d: '1.75,0.25', t: '2' });
      await expectAllLogged(page, TAG);

      expectMatches(await expectReopens(env, page, CH, TAG, numbers), d, 2);
    });
  });

  test('a URL with other values, and t = 0 (no length, no score, no direction)', async () => {
    await atLink(env, CH, TAG, 'd=-2.5,1.75&t=2.25', async (numbers, { page }) => {
      expectMatches(numbers, [-2.5, 1.75], 2.25);
      expect(await page.locator(`${TAG} input.slider`).inputValue()).toBe('2.25');
    });
    await atLink(env, CH, TAG, 'd=1,1&t=0', { logged: false }, async (numbers, { page }) => {
      expectMatches(numbers, [1, 1], 0);
      byRole(numbers, 'score').forEach((s) => expect(s.value).toBe(0));
      const perUnit = page.locator(`${TAG} [data-role="per-unit"]`).first();
      await expect(perUnit.textContent()).resolves.toBe('not defined');
    });
  });
});
