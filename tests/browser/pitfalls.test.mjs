// "Pitfalls" (#ch-pitfalls, <ag-pitfalls>): four misreadings with numbers from the module (against float64
// references) and a button that puts a chapter widget above into the right state and scrolls to it.
import { describe, expect, test } from '@jest/globals';
import { predictChoice, pressKeys, settledUrl, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged, readNumbers, U } from './shown-numbers.mjs';
import { CHAPTERS } from '../../web/chapters.js';
import { softmax } from '../reference/float64.mjs';

const TAG = 'ag-pitfalls';
const CH = 'pitfalls';
const PITFALL_TARGETS = {
  'raw-dot': 'cosine',
  scale: 'scale-fix',
  zero: 'orthogonality',
  dimension: 'near-orthogonal',
};

const softmax64 = (s) => softmax(s, 1, s.length);

const env = useEnv();

describe('pitfalls: pitfalls', () => {
  test('the first pitfall shows raw scores 2 and 10 and equal cosines, from logged wasm calls', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(numbers.filter((n) => n.role === 'raw').map((n) => n.value)).toEqual([2, 10]);
      for (const c of numbers.filter((n) => n.role === 'cosine'))
        expect(Math.abs(c.value - 1)).toBeLessThanOrEqual(8 * U);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    });
  });

  test('arrow keys move between the pitfalls; the zero-score numbers match softmax(3, 0, -2.5); the URL keeps the tab', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} [role=tab][data-pitfall="raw-dot"]`).focus();
      await pressKeys(page, 'ArrowRight', 'ArrowRight');
      expect((await stateOf(page, TAG)).open).toBe('zero');
      expect(await page.locator(TAG).evaluate((el) => el.shadowRoot.activeElement?.dataset.pitfall)).toBe('zero');
      const w = (await readNumbers(page, TAG)).filter((n) => n.role === 'weight').map((n) => n.value);
      const ref = softmax64([3, 0, -2.5]);
      w.forEach((x, i) => expect(Math.abs(x - ref[i])).toBeLessThanOrEqual(40 * U * ref[i]));
      expect(w[1]).toBeGreaterThan(w[2]);
      await expectAllLogged(page, TAG);
      expect((await urlParams(page)).get('open')).toBe('zero');
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        expect((await stateOf(copy.page, TAG)).open).toBe('zero');
      });
      // A mouse click on another tab.
      await page.locator(`${TAG} [role=tab][data-pitfall="scale"]`).click();
      const scale = await readNumbers(page, TAG);
      expect(scale.find((n) => n.role === 'max-unscaled').value).toBeGreaterThan(0.99);
      expect(scale.find((n) => n.role === 'max-scaled').value).toBeLessThan(0.9);
      await expectAllLogged(page, TAG);
    });
  });

  test('each demonstration whose chapter has a widget opens it in the right state and the shell writes its URL', async () => {
    const withWidget = Object.entries(PITFALL_TARGETS).filter(([, id]) => CHAPTERS.find((c) => c.id === id)?.tag);
    expect(withWidget.length).toBeGreaterThanOrEqual(3);
    const expected = {
      cosine: { q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false },
      'scale-fix': { seed: 7, tokens: 16, dk: '4096' },
      orthogonality: { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] },
    };
    for (const [pitfall, id] of withWidget) {
      await withChapter(env, CH, TAG, { search: `?ch=pitfalls&v=1&open=${pitfall}` }, async (opened) => {
        const { page } = opened;
        const chapter = CHAPTERS.find((c) => c.id === id);
        await page.locator(`${TAG} button.go[data-go="${pitfall}"]`).click();
        // Wait for the target without scrolling to it (that is the button's job).
        await page.waitForSelector(`${chapter.tag}[data-status="ready"]`, { timeout: 20000 });
        if (expected[id]) expect(await page.locator(chapter.tag).evaluate((el) => el.state)).toEqual(expected[id]);
        // The target section is in view and holds the focus; the shell wrote its state into the URL.
        await page.waitForFunction((want) => new URLSearchParams(window.location.search).get('ch') === want, id, {
          timeout: 5000,
        });
        expect((await urlParams(page)).get('ch')).toBe(id);
        const top = await page.locator(`#ch-${id}`).evaluate((el) => el.getBoundingClientRect().top);
        expect(Math.abs(top)).toBeLessThan(64);
        expect(await page.evaluate(() => document.activeElement?.closest('section')?.id)).toBe(`ch-${id}`);
      });
    }
  });

  test('predict, then reveal: a zero score takes more weight than a negative one', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, 'same', 'wrong');
      await predictChoice(page, TAG, 'zero', 'right');
      expect((await stateOf(page, TAG)).open).toBe('zero');
    });
  });
});
