// Where a link lands and what the history keeps. A ?ch= link puts its
// chapter at the top of the window and keeps it there while the chapters
// above it start and grow (web/shell/keep-in-view.js); the URL then still
// names that chapter and its state. Back or Forward right after a change
// (before the URL write, web/shell/url-writer.js) never puts one entry's
// state onto another.
import { describe, expect, test } from '@jest/globals';
import { expectParams, frames, pressKeys, settledUrl, useEnv, withPage } from './helpers.mjs';

const env = useEnv();

/**
 * The URL once the shell has taken in a Back or Forward: it looks at the chapter in view two frames after
 * the entry changed (web/app.js) and writes the URL after a pause when that chapter's state is to be kept.
 */
async function arrivedUrl(page) {
  await frames(page, 3);
  return settledUrl(page);
}

describe('links and history', () => {
  test('a ?ch= link far down the page lands on its chapter and the URL keeps naming it', async () => {
    await withPage(env, '?ch=pitfalls&v=1&open=dimension&agtest=1', async ({ page }) => {
      await page.waitForSelector('ag-pitfalls[data-status="ready"]', { timeout: 20000 });
      // The chapters near it start and grow (their widgets start once scrolled past or near): the page has
      // settled once none is still loading, the URL is written, and the chapter has been placed after the
      // last growth (a resize observer, web/shell/keep-in-view.js, places it in the next frame).
      await page.waitForFunction(() => !document.querySelector('[data-status="loading"]'), null, { timeout: 20000 });
      await settledUrl(page);
      await frames(page, 2);
      const top = await page.$eval('#ch-pitfalls', (el) => el.getBoundingClientRect().top); // from the window's top
      expect(top).toBeGreaterThanOrEqual(-2);
      expect(top).toBeLessThan(60);
      await expectParams(page, 'pitfalls', { open: 'dimension' });
    });
  });

  test('a scroll that the shell did not make while the chapters above still grow is left where it went', async () => {
    await withPage(env, '?ch=pitfalls&v=1&agtest=1', async ({ page }) => {
      await page.waitForSelector('ag-pitfalls[data-status="ready"]', { timeout: 20000 });
      // As find in page or a screen reader would: to the top, where the first chapters then start and grow.
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await page.waitForFunction(() => !document.querySelector('[data-status="loading"]'), null, { timeout: 20000 });
      // Keeping the chapter in view stops (at that growth, or after KEEP_IN_VIEW_MS at the latest): the body
      // gets its own style back (none).
      await page.waitForFunction(() => document.body.getAttribute('style') === null, null, {
        timeout: 20000,
      });
      await frames(page, 2);
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
    });
  });

  test('Back and Forward at once after a change: each entry keeps its own chapter; the URL ends up with the state shown', async () => {
    await withPage(env, '?agtest=1', async ({ page }) => {
      await page.locator('#toc a[href="#ch-worked-example"]').first().click();
      await page.waitForSelector('ag-worked-example[data-status="ready"]', { timeout: 20000 });
      await settledUrl(page);
      const field = page.getByLabel('q, component 1');
      await field.focus();
      await pressKeys(page, 'ArrowUp', 'ArrowUp');
      await page.goBack(); // before the URL write that the change scheduled
      const back = await arrivedUrl(page);
      expect(back.hash).not.toBe('#ch-worked-example');
      expect(back.searchParams.get('q')).toBeNull(); // no other chapter's state on this entry
      await page.goForward();
      const forward = await arrivedUrl(page);
      expect(forward.hash).toBe('#ch-worked-example');
      expect(await field.inputValue()).toBe('3');
      await expectParams(page, 'worked-example', { q: '3,2,0,1' });
    });
  });
});
