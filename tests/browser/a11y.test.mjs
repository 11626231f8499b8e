// Accessibility: axe-core (through @axe-core/playwright) with the WCAG 2.1 A
// and AA rules finds no violation on the page or its embeds, in the light and
// the dark colour scheme (prefers-color-scheme, see web/THEMING.md):
// - the full page (index.html): header, table of contents, every chapter's
//   title, intro and "things to try", footer; the widgets inside it are left
//   to the embeds below, which hold the same widget code;
// - embed.html?w=<tag> for the widget of every chapter in web/chapters.js
//   (read at run time), each once it has computed (data-status="ready");
// - embed.html?ch=<id> for two chapters (a title, intro and widget together).
// Light runs at a desktop width, dark at a phone width, so that narrow-screen
// layouts (tables that scroll sideways) are checked too. Both schemes run at
// once, in two pages of one browser.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { AxeBuilder } from '@axe-core/playwright';
import { CHAPTERS } from '../../web/chapters.js';
import { useEnv, waitReady } from './helpers.mjs';

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const SCHEMES = [
  { colorScheme: 'light', width: 1024, height: 900 },
  { colorScheme: 'dark', width: 375, height: 800 },
];
const WIDGET_CHAPTERS = CHAPTERS.filter((c) => c.tag);
const CHAPTER_EMBEDS = ['worked-example', 'dot-product'];

const env = useEnv();
let pages; // one page per colour scheme, reused for every address
beforeAll(async () => {
  pages = await Promise.all(
    SCHEMES.map(async ({ colorScheme, width, height }) => {
      // axe adds its own inline styles while it measures; the pages' CSP would refuse them.
      const context = await env.browser.newContext({ viewport: { width, height }, colorScheme, bypassCSP: true });
      return { colorScheme, page: await context.newPage() };
    }),
  );
});

/** One line per failing node: scheme, address, rule, where, why. */
function describeViolations(results, where) {
  return results.violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${where}: ${v.id} (${v.impact}) at ${JSON.stringify(n.target)}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
    ),
  );
}

/** Opens `path` in both schemes at once, waits with `ready(page)`, runs axe (with `configure(builder)`). */
async function audit(path, ready, configure = (b) => b) {
  const found = await Promise.all(
    pages.map(async ({ colorScheme, page }) => {
      await page.goto(new URL(path, env.server.url).href);
      await ready(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      // Legacy mode runs axe in the page itself (one call, no helper page): the
      // pages here have no frames from other origins, which is what the default mode is for.
      const results = await configure(new AxeBuilder({ page }).withTags(WCAG).setLegacyMode(true)).analyze();
      return {
        colorScheme,
        count: results.passes.length,
        lines: describeViolations(results, `${colorScheme} ${path}`),
      };
    }),
  );
  for (const f of found) expect(f.count).toBeGreaterThan(0); // axe ran and checked something
  expect(found.flatMap((f) => f.lines)).toEqual([]);
}

describe('axe-core, WCAG 2.1 A and AA, light and dark', () => {
  test('the full page: header, table of contents, every chapter\u2019s text, footer', async () => {
    await audit(
      '?agtest=1',
      async (page) => {
        await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
        const sections = await page.locator('main section.chapter').count();
        expect(sections).toBe(CHAPTERS.length);
      },
      (b) => b.exclude('.chapter-widget'),
    );
  });

  test.each(WIDGET_CHAPTERS.map((c) => [c.tag, c.id]))('embed.html?w=%s (chapter %s)', async (tag) => {
    await audit(`embed.html?agtest=1&w=${tag}`, (page) => waitReady(page, tag));
  });

  test.each(CHAPTER_EMBEDS)('embed.html?ch=%s', async (id) => {
    const { tag } = CHAPTERS.find((c) => c.id === id);
    await audit(`embed.html?agtest=1&ch=${id}`, (page) => waitReady(page, tag));
  });
});

describe('the accessibility tree and forced colours', () => {
  test('every chapter heading is in the accessibility tree at once, not only the chapters scrolled into view', async () => {
    const { page } = pages[0];
    await page.goto(new URL('?agtest=1', env.server.url).href);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const headings = new Set(
      nodes.filter((n) => !n.ignored && n.role?.value === 'heading').map((n) => n.name?.value ?? ''),
    );
    const titles = await page.$$eval('main section.chapter h2', (hs) => hs.map((h) => h.textContent.trim()));
    expect(titles).toHaveLength(CHAPTERS.length);
    expect(titles.filter((t) => !headings.has(t))).toEqual([]);
    await cdp.detach();
  });

  test('in forced-colours mode the current row of a table is outlined and marked aria-current', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1024, height: 900 }, forcedColors: 'active' });
    const page = await context.newPage();
    // A short run (T up to 512): the first row is all this needs.
    await page.goto(new URL('?ch=cost&v=1&tmax=512&agtest=1#ch-cost', env.server.url).href);
    await waitReady(page, 'ag-attention-cost');
    // The table fills in as the chapter's worker measures; its current row appears with the first results.
    await page.waitForSelector('ag-attention-cost tr.is-current', { timeout: 45000 });
    const rows = page.locator('ag-attention-cost tr.is-current');
    await expect(rows.count()).resolves.toBe(1);
    const row = rows.first();
    await expect(row.getAttribute('aria-current')).resolves.toBe('true');
    const outline = await row.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).toBe('solid');
    await context.close();
  });
});
