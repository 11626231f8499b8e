// The full page fetches its widgets' stylesheets ahead (build/site/index.html,
// written by scripts/build.mjs): each sheet a widget links in its shadow root
// is preloaded or linked by the page itself, and nothing else is preloaded. A
// sheet fetched only when the widgets link it arrives after they are drawn and
// restyles and lays out the whole page again.
import { describe, expect, test } from '@jest/globals';
import { useEnv, withPage } from './helpers.mjs';

const env = useEnv();

describe('the widgets\u2019 stylesheets', () => {
  test('each one a widget links is preloaded or linked by the page, and only those are preloaded', async () => {
    await withPage(env, '?agtest=1', async ({ page }) => {
      await page.waitForSelector('body[data-state="ready"]', { timeout: 30000 });
      const sheets = await page.evaluate(() => {
        const hrefs = (root, rel) => [...root.querySelectorAll(`link[rel="${rel}"]`)].map((l) => l.href);
        const hosts = [...document.querySelectorAll('*')].filter((el) => el.shadowRoot);
        return {
          hosts: hosts.length,
          linked: [...new Set(hosts.flatMap((el) => hrefs(el.shadowRoot, 'stylesheet')))].sort(),
          page: hrefs(document, 'stylesheet'),
          preloaded: hrefs(document, 'preload').sort(),
        };
      });
      expect(sheets.hosts).toBeGreaterThan(30); // every chapter's widget is on the page, its sheets linked
      const fetchedAhead = (href) => sheets.preloaded.includes(href) || sheets.page.includes(href);
      expect(sheets.linked.filter((href) => !fetchedAhead(href))).toEqual([]);
      expect(sheets.preloaded.filter((href) => !sheets.linked.includes(href))).toEqual([]);
    });
  });
});
