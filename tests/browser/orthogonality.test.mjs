// "Orthogonality" (#ch-orthogonality, <ag-orthogonality>): scores, cosines, angles and weights of three
// keys, the snap button and E Eᵀ = I, against a float64 reference after drags, keys and links.
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectReopens, expectReveal, seedCase } from './helpers.mjs';
import { stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { angleRow, byRole, expectAllLogged, expectClose, expectNumbers } from './shown-numbers.mjs';
import { one, readNumbers, U } from './shown-numbers.mjs';
import { angle, cosine, dot, softmax, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-orthogonality';
const CH = 'orthogonality';
const START = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
const KEYS = ['k1', 'k2', 'k3'];

/** float64 reference: scores, cosines, angles and the softmax of the scores. */
function reference(state) {
  const { q } = state;
  const scores = KEYS.map((k) => dot(q, state[k]));
  return {
    scores,
    weights: softmax(scores, 1, scores.length),
    cos: KEYS.map((k) => cosine(q, state[k])),
    angle: KEYS.map((k) => angle(q, state[k])),
    magnitude: KEYS.map((k) => sumAbsProd(q, state[k])),
  };
}

function expectMatches(numbers, state) {
  const ref = reference(state);
  const spread = Math.max(...ref.scores.map(Math.abs));
  expectNumbers(
    numbers,
    KEYS.flatMap((_, i) => [
      ['score', i + 1, ref.scores[i], 4 * U * ref.magnitude[i]],
      ['weight', i + 1, ref.weights[i], (10 + 4 * spread) * U * Math.max(ref.weights[i], 1e-3)],
      ['cosine', i + 1, ref.cos[i], 20 * U],
      angleRow('angle', i + 1, ref.angle[i]),
    ]),
  );
  // The basis: E E^T is the identity, exactly.
  const gram = byRole(numbers, 'gram');
  expect(gram.map((g) => g.key)).toEqual(['11', '12', '13', '21', '22', '23', '31', '32', '33']);
  gram.forEach((g) => expect(g.value).toBe(g.key[0] === g.key[1] ? 1 : 0));
  return ref;
}

const readings = (page) =>
  page
    .locator(TAG)
    .evaluate((el) => [...el.shadowRoot.querySelectorAll('tr[data-reading]')].map((r) => r.dataset.reading));

const env = useEnv();

describe('orthogonality: orthogonality', () => {
  test('opens with a supporting, a perpendicular and an opposing key: scores 3, 0, -2.5; the perpendicular weight sits between', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'score').map((s) => s.text)).toEqual(['3', '0', '\u22122.5']);
      expect(one(numbers, 'cosine', 2).text).toBe('0');
      expect(one(numbers, 'angle', 2).text).toBe('90\u00b0');
      const ref = expectMatches(numbers, START);
      const w = byRole(numbers, 'weight').map((x) => x.value);
      expect(w[0] > w[1] && w[1] > w[2]).toBe(true);
      expect(ref.weights[0] > ref.weights[1] && ref.weights[1] > ref.weights[2]).toBe(true);
      expect(await readings(page)).toEqual(['supports', 'perpendicular', 'opposes']);
      // The seed file: the standard basis is orthogonal, e1.e2 = 0.
      const basis = seedCase('orthogonal-basis');
      expect(basis.inputs.a).toEqual([1, 0, 0]);
      expect(basis.inputs.b).toEqual([0, 1, 0]);
      expectClose(one(numbers, 'gram', '12').value, basis.expected, basis.tolerance, 'seed e1.e2');
      expect(byRole(numbers, 'gram').map((g) => g.text)).toEqual(['1', '0', '0', '0', '1', '0', '0', '0', '1']);
      // A right-angle mark on k2 only; the basis table came from one matmul with transposeB.
      const corners = await page
        .locator(TAG)
        .evaluate((el) => [...el.shadowRoot.querySelectorAll('.right-angle')].map((c) => c.getAttribute('visibility')));
      expect(corners).toEqual(['hidden', 'visible', 'hidden']);
      const kernels = await page.evaluate(() => window.__agCallLog.map((c) => c.kernel));
      expect(kernels.some((k) => /matmul/.test(k))).toBe(true);
      expect(kernels.some((k) => /softmax/.test(k))).toBe(true);
      await expectAllLogged(page, TAG);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    });
  });

  test('dragging q with the mouse and k2 with the keys, then "snap": k2 is perpendicular again, score 0, 90 degrees', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'q', [1.5, 2.5]);
      const k2 = [-1.75, 1.75];
      await keyTo(page, TAG, 'k2', ['ArrowRight', 'ArrowDown', 'Shift+ArrowLeft'], k2, 'k\u2082 = (\u22121.75, 1.75)');
      const moved = { ...START, q: [1.5, 2.5], k2 };
      expect(await stateOf(page, TAG)).toEqual(moved);
      let numbers = await readNumbers(page, TAG);
      expectMatches(numbers, moved);
      expect(one(numbers, 'score', 2).value).not.toBe(0);
      await expectAnnounced(page, TAG, `k2: score ${one(numbers, 'score', 2).text}`);

      await page.locator(`${TAG} button[data-action="snap"]`).click();
      const snapped = { ...moved, k2: [-2.5, 1.5] }; // the quarter turn of q, on k2's side
      expect(await stateOf(page, TAG)).toEqual(snapped);
      numbers = await readNumbers(page, TAG);
      expectMatches(numbers, snapped);
      expect(one(numbers, 'score', 2).value).toBe(0);
      expect(one(numbers, 'cosine', 2).value).toBe(0);
      expect(one(numbers, 'angle', 2).text).toBe('90\u00b0');
      expect((await readings(page))[1]).toBe('perpendicular');
      const params = await urlParams(page);
      expect(params.get('ch')).toBe(CH);
      expect(params.get('q')).toBe('1.5,2.5');
      expect(params.get('k2')).toBe('-2.5,1.5');
      await expectAllLogged(page, TAG);

      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with every key perpendicular gives equal weights of one third; snapping from the other side keeps k2 there', async () => {
    const all = { q: [1, -2], k1: [2, 1], k2: [-3, -1.5], k3: [0.5, 0.25] };
    await atLink(env, CH, TAG, 'q=1,-2&k1=2,1&k2=-3,-1.5&k3=0.5,0.25', async (numbers, { page }) => {
      expectMatches(numbers, all);
      byRole(numbers, 'weight').forEach((w) => expectClose(w.value, 1 / 3, 2 * U, 'weight 1/3'));
      expect(await readings(page)).toEqual(['perpendicular', 'perpendicular', 'perpendicular']);
      await page.locator(`${TAG} button[data-action="snap"]`).click();
      expect((await stateOf(page, TAG)).k2).toEqual([-2, -1]); // -(2, 1): the side k2 was on
      expectMatches(await readNumbers(page, TAG), { ...all, k2: [-2, -1] });
    });
  });

  test('predict, then reveal: the perpendicular key\u2019s weight lands between the other two', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&k2=3,3` }, async ({ page }) => {
      const reveal = { wrong: 'zero', right: 'middle', says: /scores 3, 0, \u22122\.5/, state: START };
      expectMatches(await expectReveal(page, TAG, reveal), START);
    });
  });
});
