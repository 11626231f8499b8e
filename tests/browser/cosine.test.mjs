// "Cosine versus the raw dot product" (#ch-cosine, <ag-cosine-vs-dot>): raw scores and cosines, raw and
// normalised, against a float64 reference (drags, keys, links) and the article's numbers (seed file).
import { describe, expect, test } from '@jest/globals';
import { atLink, expectAnnounced, expectParams, expectReveal, seedCase } from './helpers.mjs';
import { stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyTo } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectNumbers, one } from './shown-numbers.mjs';
import { readNumbers, U } from './shown-numbers.mjs';
import { cosine, dot, norm, normalize, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-cosine-vs-dot';
const CH = 'cosine';
const ARTICLE = { q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false };

/** float64 reference: lengths, raw scores and cosines, of the vectors as given or as unit vectors. */
function reference({ q, k1, k2, normalise }) {
  const use = (a) => (normalise ? normalize(a) : a);
  const uq = use(q);
  const keys = [k1, k2].map((k) => {
    const u = use(k);
    return { unit: normalize(k), norm: norm(u), raw: dot(uq, u), cos: cosine(q, k), magnitude: sumAbsProd(uq, u) };
  });
  return { qNorm: norm(uq), qUnit: normalize(q), keys };
}

function expectMatches(numbers, state) {
  const ref = reference(state);
  expectNumbers(numbers, [
    ['norm', 'q', ref.qNorm, 6 * U * ref.qNorm],
    ...ref.keys.flatMap((r, i) => [
      ['norm', i + 1, r.norm, 6 * U * r.norm],
      ['dot', i + 1, r.raw, 12 * U * Math.max(r.magnitude, 1)],
      ['cosine', i + 1, r.cos, 20 * U],
    ]),
  ]);
  ref.keys.forEach((r, i) => {
    const key = i + 1;
    const raw = one(numbers, 'dot', key);
    const units = numbers.filter((x) => x.role === 'unit' && x.key.startsWith(`${key}.`));
    if (state.normalise) {
      expect(units).toHaveLength(2);
      units.forEach((u, j) => expectClose(u.value, r.unit[j], 4 * U, `unit k${key}[${j}]`));
      // Normalised, the raw dot product is the cosine.
      expectClose(raw.value, r.cos, 20 * U, `normalised q.k${key} = cos`);
    } else expect(units).toHaveLength(0);
  });
  return ref;
}

const verdicts = (page) =>
  page.locator(TAG).evaluate((el) =>
    [...el.shadowRoot.querySelectorAll('.verdict')].map((v) => ({
      measure: v.dataset.measure,
      winner: v.dataset.winner,
      text: v.textContent,
    })),
  );

const env = useEnv();

describe('cosine: cosine versus the raw dot product', () => {
  test('opens on the article: raw 2 and 10, cosine 1 and 1; k2 wins the raw score, the cosine ties', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'dot').map((n) => n.text)).toEqual(['2', '10']);
      expect(byRole(numbers, 'cosine').map((n) => n.text)).toEqual(['1', '1']);
      expectMatches(numbers, ARTICLE);
      for (const [id, key, role] of [
        ['cos-vs-dot-k1-dot', 1, 'dot'],
        ['cos-vs-dot-k2-dot', 2, 'dot'],
        ['cos-vs-dot-k1-cos', 1, 'cosine'],
        ['cos-vs-dot-k2-cos', 2, 'cosine'],
      ]) {
        const c = seedCase(id);
        expect(c.inputs.a).toEqual(ARTICLE.q);
        expect(c.inputs.b).toEqual(ARTICLE[`k${key}`]);
        expectClose(one(numbers, role, key).value, c.expected, c.tolerance, `seed ${id}`);
      }
      const v = await verdicts(page);
      expect(v.map((x) => [x.measure, x.winner])).toEqual([
        ['raw', 'k2'],
        ['cosine', 'tie'],
      ]);
      expect(v[0].text).toMatch(/k\u2082 wins/);
      expect(v[1].text).toMatch(/tie/);
      await expectAllLogged(page, TAG);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    });
  });

  test('the normalise toggle replaces every vector by its unit vector: the raw score becomes the cosine, and the winner follows', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} #cd-normalise`).check();
      await page.waitForSelector(`${TAG}[data-normalised="true"]`);
      const state = { ...ARTICLE, normalise: true };
      expect(await stateOf(page, TAG)).toEqual(state);
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, state);
      expect(byRole(numbers, 'dot').map((n) => n.text)).toEqual(['1', '1']);
      expect(byRole(numbers, 'norm').map((n) => n.text)).toEqual(['1', '1', '1']);
      expect((await verdicts(page)).map((x) => x.winner)).toEqual(['tie', 'tie']);
      expect((await urlParams(page)).get('normalise')).toBe('1');
      await expectAllLogged(page, TAG);
      // Normalising calls the module's normalize for q and both keys.
      const kernels = await page.evaluate(() => window.__agCallLog.map((c) => c.kernel));
      expect(kernels.filter((k) => /normali[sz]e/.test(k)).length).toBeGreaterThanOrEqual(3);
      await page.locator(`${TAG} #cd-normalise`).uncheck();
      await page.waitForSelector(`${TAG}[data-normalised="false"]`);
      expectMatches(await readNumbers(page, TAG), ARTICLE);
      // A preset turns Normalise off: its point is the raw score against the cosine.
      await page.locator(`${TAG} #cd-normalise`).check();
      await page.waitForSelector(`${TAG}[data-normalised="true"]`);
      await page.locator(`${TAG} [data-preset="long-off"]`).click();
      await page.waitForSelector(`${TAG}[data-normalised="false"]`);
      expect(await stateOf(page, TAG)).toEqual({ q: [1, 1], k1: [1, 1.25], k2: [5.5, -1], normalise: false });
      await expect(page.locator(`${TAG} #cd-normalise`).isChecked()).resolves.toBe(false);
    });
  });

  test('q and k1 start on one point: the centre of the stack takes q, its ring takes k1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const dot = page.locator(`${TAG} [data-point="q"] circle.dot`);
      await dot.scrollIntoViewIfNeeded();
      const box = await dot.boundingBox();
      const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      const ring = await page.locator(`${TAG} [data-point="k1"] circle.dot`).boundingBox();
      // Grab the centre: q moves and k1 stays.
      await page.mouse.move(centre.x, centre.y);
      await page.mouse.down();
      await page.mouse.move(centre.x + 40, centre.y + 60, { steps: 6 });
      await page.mouse.up();
      let state = await stateOf(page, TAG);
      expect(state.k1).toEqual(ARTICLE.k1);
      expect(state.q).not.toEqual(ARTICLE.q);
      // Back on one point, grab the ring (outside q's dot, inside k1's ring): k1 moves and q stays.
      await page.locator(TAG).evaluate((el, a) => el.setState({ q: a.q, k1: a.k1 }), ARTICLE);
      const edge = { x: centre.x + ring.width / 2 - 1.5, y: centre.y };
      await page.mouse.move(edge.x, edge.y);
      await page.mouse.down();
      await page.mouse.move(edge.x - 60, edge.y - 20, { steps: 6 });
      await page.mouse.up();
      state = await stateOf(page, TAG);
      expect(state.q).toEqual(ARTICLE.q);
      expect(state.k1).not.toEqual(ARTICLE.k1);
    });
  });

  test('dragging k2 off the line and moving k1 with the keys: the raw score and the cosine disagree, as the reference says; the URL reopens it', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'k2', [5.5, 1]);
      await keyTo(page, TAG, 'k1', ['ArrowUp', 'ArrowLeft', 'Shift+ArrowUp'], [0.75, 2.25], 'k\u2081 = (0.75, 2.25)');
      const state = { q: [1, 1], k1: [0.75, 2.25], k2: [5.5, 1], normalise: false };
      expect(await stateOf(page, TAG)).toEqual(state);
      const numbers = await readNumbers(page, TAG);
      const ref = expectMatches(numbers, state);
      // The reference decides the winners: k2 by raw score, k1 by cosine.
      expect(ref.keys[1].raw > ref.keys[0].raw).toBe(true);
      expect(ref.keys[0].cos > ref.keys[1].cos).toBe(true);
      expect((await verdicts(page)).map((x) => x.winner)).toEqual(['k2', 'k1']);
      await expectAnnounced(page, TAG, `k1: raw ${one(numbers, 'dot', 1).text}`);
      await expectAllLogged(page, TAG);
      const link = await expectParams(page, CH, { k1: '0.75,2.25', k2: '5.5,1', normalise: '0' });
      link.set('normalise', '1');
      await withChapter(env, CH, TAG, { search: `?${link}` }, async (copy) => {
        const reopened = await readNumbers(copy.page, TAG);
        expectMatches(reopened, { ...state, normalise: true });
        expect((await verdicts(copy.page)).map((x) => x.winner)).toEqual(['k1', 'k1']);
        await expectAllLogged(copy.page, TAG);
      });
    });
  });

  test('a URL with a zero key: no cosine and nothing to normalise, said in a note', async () => {
    await atLink(env, CH, TAG, 'q=-2,3.5&k1=0,0&k2=4,-1.5&normalise=1', async (numbers, { page }) => {
      expect(one(numbers, 'dot', 1).value).toBe(0);
      expect(numbers.some((n) => n.role === 'cosine' && n.key === '1')).toBe(false);
      const r = reference({ q: [-2, 3.5], k1: [1, 0], k2: [4, -1.5], normalise: false }).keys[1];
      expectClose(one(numbers, 'dot', 2).value, r.raw, 12 * U * r.magnitude, 'q.k2');
      expectClose(one(numbers, 'cosine', 2).value, r.cos, 20 * U, 'cos k2');
      await expect(page.locator(`${TAG} .note`).textContent()).resolves.toMatch(/length zero/);
    });
  });

  test('predict, then reveal: by cosine, k1 and k2 tie', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&k2=3,-2` }, async ({ page }) => {
      const says = /cos = 1 for k\u2081 and 1 for k\u2082/;
      expectMatches(await expectReveal(page, TAG, { wrong: 'k2', right: 'tie', says, state: ARTICLE }), ARTICLE);
    });
  });
});
