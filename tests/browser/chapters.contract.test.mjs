// The chapter contract: what every chapter of the tour (web/chapters.js) must
// do, checked for each entry with a widget. It opens with no console error,
// page error, dialog, CSP violation or foreign request; every number it shows
// is a result in the kernel-call log; it exports its figure (SVG, PNG) and its
// numbers (JSON, CSV); its prediction reveals an answer, takes it and counts
// in the table of contents; the link the shell writes reopens the same state
// and digits; it fits 1024, 375 and 320 px in light and dark (screenshots in
// test-artifacts/), every input has a label, and its plane does not scroll on
// touch. What is special to a chapter is tested in <chapter id>.test.mjs.
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { exportFile, overflow, screenshot, settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged, readNumbers } from './shown-numbers.mjs';

const WITH_WIDGET = CHAPTERS.filter((c) => c.tag);
/** Listed as "coming" (no widget yet): nothing to test. */
const COMING = CHAPTERS.filter((c) => !c.tag).map((c) => c.id);
/** Links that keep a chapter's worker run short. */
const SEARCH = {
  cost: '?ch=cost&v=1&tmax=512',
  'near-orthogonal': '?ch=near-orthogonal&v=1&d=100&pairs=2000&cand=5000',
};
/** Chapters whose numbers come from a run in the experiment worker. */
const RUNS = new Set(['sqrt-d', 'scale-fix', 'near-orthogonal', 'cost']);
const WIDTHS = [
  [1024, 'desktop'],
  [375, 'phone-375'],
  [320, 'phone-320'],
];
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const env = useEnv();

/** Waits for the end of the worker run of a chapter that has one (data-run on the host). */
async function settle(page, { id, tag }) {
  if (!RUNS.has(id)) return;
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.run === 'done', tag, { timeout: 180000 });
}

/** Widths and the scheme: no horizontal overflow, a screenshot each; labelled inputs, a plane that keeps touches. */
async function expectFits(page, { id, tag }, scheme) {
  for (const [width, name] of WIDTHS) {
    await page.setViewportSize({ width, height: 1000 });
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page.locator(`#ch-${id}`), `${id}-${name}-${scheme}`);
  }
  const widget = await page.locator(tag).evaluate((el) => ({
    unlabelled: [...el.shadowRoot.querySelectorAll('input, select, textarea')]
      .filter((i) => i.labels.length === 0 && !i.getAttribute('aria-label') && !i.getAttribute('aria-labelledby'))
      .map((i) => i.outerHTML.slice(0, 80)),
    touch: [...el.shadowRoot.querySelectorAll('svg.plane')].map((svg) => getComputedStyle(svg).touchAction),
  }));
  expect(widget.unlabelled).toEqual([]);
  for (const touch of widget.touch) expect(touch).toBe('none');
}

describe('the chapter contract', () => {
  test('every chapter of the tour has a widget or is listed as coming', () => {
    expect(WITH_WIDGET.length + COMING.length).toBe(CHAPTERS.length);
    expect(WITH_WIDGET.length).toBeGreaterThan(0);
  });

  describe.each(WITH_WIDGET.map((c) => [c.id, c]))('%s', (id, chapter) => {
    const { tag } = chapter;
    const search = SEARCH[id] ?? '';

    test('opens clean, every number logged; exports; predicts; its link reopens it; fits in light', async () => {
      await withChapter(env, id, tag, { search, height: 1000 }, async ({ page }) => {
        await settle(page, chapter);
        await expectAllLogged(page, tag);

        const kinds = await page.locator(`${tag} [data-export]`).evaluateAll((els) => els.map((e) => e.dataset.export));
        expect(kinds).toEqual(expect.arrayContaining(['svg', 'png', 'json', 'csv']));
        const { state, stateText } = await page.locator(tag).evaluate((el) => ({
          state: el.state,
          stateText: el.stateText,
        }));
        const json = JSON.parse((await exportFile(page, tag, 'json')).bytes.toString('utf8'));
        expect(json.state).toEqual(state);
        expect(json.stateText).toBe(stateText);
        const csv = (await exportFile(page, tag, 'csv')).bytes.toString('utf8').split('\r\n');
        expect(csv.filter(Boolean).length).toBeGreaterThan(1);
        if (await page.locator(tag).evaluate((el) => Boolean(el.figure()))) {
          const svg = await exportFile(page, tag, 'svg');
          expect(svg.name).toBe(`${tag}.svg`);
          expect(svg.bytes.toString('utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
          const png = await exportFile(page, tag, 'png');
          expect([...png.bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
        } else {
          // A widget with no figure says so instead of downloading an empty one.
          await page.locator(`${tag} details.export summary`).click();
          await page.locator(`${tag} [data-export="svg"]`).click();
          await expect(page.locator(`${tag} .note`).first().textContent()).resolves.toMatch(/no figure to export/);
          await page.locator(`${tag} details.export summary`).click();
        }

        // Predict: any first choice is marked right or wrong, with the answer shown; the answer is then right.
        const predict = page.locator(`${tag} .predict`).first();
        await predict.locator('.predict-choice').first().click();
        await expect(predict.getAttribute('data-result')).resolves.toMatch(/^(right|wrong)$/);
        expect((await predict.locator('.predict-result').textContent()).length).toBeGreaterThan(10);
        const answer = await predict.locator('.predict-choice.is-answer').getAttribute('data-choice');
        await predict.locator('.predict-again').click();
        await predict.locator(`.predict-choice[data-choice="${answer}"]`).click();
        await expect(predict.getAttribute('data-result')).resolves.toBe('right');
        await expect(page.locator(`#toc li[data-chapter="${id}"] [data-role=progress]`).textContent()).resolves.toMatch(
          /predicted/,
        );
        await settle(page, chapter);
        await expectAllLogged(page, tag);

        // The link: the shell wrote the chapter and its state; a copy shows the same state and digits.
        const params = await urlParams(page);
        expect(params.get('ch')).toBe(id);
        const after = await page.locator(tag).evaluate((el) => el.stateText);
        if (params.has('v')) expect(after).toContain(`v=${params.get('v')}`);
        const shown = await withChapter(env, id, tag, { search: (await settledUrl(page)).search }, async (copy) => {
          await settle(copy.page, chapter);
          expect(await copy.page.locator(tag).evaluate((el) => el.stateText)).toBe(after);
          return (await readNumbers(copy.page, tag)).map((n) => n.text);
        });
        // The page itself shows the same digits (once a run the answer started has ended).
        await page
          .waitForFunction(
            ([t, texts]) =>
              JSON.stringify(
                [...document.querySelector(t).shadowRoot.querySelectorAll('[data-value]')].map((n) => n.textContent),
              ) === JSON.stringify(texts),
            [tag, shown],
            { timeout: 120000 },
          )
          .catch(() => null);
        expect((await readNumbers(page, tag)).map((n) => n.text)).toEqual(shown);

        await expectFits(page, chapter, 'light');
      });
    }, 300000);

    test('opens clean in dark and fits', async () => {
      await withChapter(env, id, tag, { search, height: 1000, colorScheme: 'dark' }, async ({ page }) => {
        await settle(page, chapter);
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
        await expectFits(page, chapter, 'dark');
      });
    }, 120000);
  });
});
