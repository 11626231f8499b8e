// Accessibility: axe-core (through @axe-core/playwright) with the WCAG 2.1 A
// and AA rules finds no violation on the page or its embeds, in the light and
// the dark colour scheme (prefers-color-scheme, see web/THEMING.md):
// - the full page (index.html): header, table of contents, every chapter's
//   title, intro and "things to try", footer; the widgets inside it are left
//   to the widget pages below, which hold the same widget code;
// - the widget of every chapter in web/chapters.js (read at run time), each
//   once it has computed (data-status="ready"), all on one page made from
//   embed.html (its head, styles and CSP; its <main> holds every widget), so
//   that axe runs once per scheme; every widget's own nodes (its shadow root)
//   must be among those it checked; the widgets whose run in the experiment
//   worker is seconds of CPU at its default size run at the size of
//   SHORT_RUNS (the same parts, fewer rows);
// - embed.html?ch=<id> for two chapters (a title, intro and widget together),
//   which also checks the embed page's own parts (note, link to the full page).
// Light runs at a desktop width, dark at a phone width, so that narrow-screen
// layouts (tables that scroll sideways) are checked too. Each address is
// opened once, dark at the phone width, then switched to light at the desktop
// width (the page's colours are CSS only) and checked again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { SITE_ROOT } from '../../scripts/serve.mjs';
import { useEnv, waitReady } from './helpers.mjs';
import { axeWcag } from './wcag.mjs';

const SCHEMES = [
  { colorScheme: 'dark', width: 375, height: 800 },
  { colorScheme: 'light', width: 1024, height: 900 },
];
const WIDGET_CHAPTERS = CHAPTERS.filter((c) => c.tag);
const CHAPTER_EMBEDS = ['worked-example', 'dot-product'];
/**
 * The state (the widget's `state` attribute, as a link writes it) of the chapters whose widget has a run in the
 * experiment worker of seconds of CPU at its default size: the sizes of SHORT_RUNS (helpers.mjs) for the widget.
 */
const SHORT_STATES = { 'sqrt-d': 'v=1&pairs=1000', cost: 'v=1&tmax=512', 'near-orthogonal': 'v=2&pairs=2000' };

/**
 * embed.html with every widget in its <main> at once, loaded by widgets.js in place of embed.js (which shows
 * one widget): the same head (styles, CSP) and the same page around the widgets.
 */
function allWidgetsPage() {
  const embed = readFileSync(join(SITE_ROOT, 'embed.html'), 'utf8');
  const parts = [
    ['<script type="module" src="embed.js"></script>', '<script type="module" src="widgets.js"></script>'],
    [
      /<main id="embed" class="embed-main">[^]*?<\/main>/, // its message for an embed.js that did not load, too
      `<main id="embed" class="embed-main">${WIDGET_CHAPTERS.map(
        (c) =>
          `<${c.tag}${SHORT_STATES[c.id] ? ` state="${SHORT_STATES[c.id].replace(/&/g, '&amp;')}"` : ''}></${c.tag}>`,
      ).join('')}</main>`,
    ],
  ];
  return parts.reduce((page, [from, to]) => {
    if (!(typeof from === 'string' ? page.includes(from) : from.test(page)))
      throw new Error(`embed.html no longer holds ${from}`);
    return page.replace(from, to);
  }, embed);
}

jest.setTimeout(120000); // each address: axe in two schemes, one after the other
const env = useEnv({ extraFiles: { 'all-widgets.html': allWidgetsPage() } });
let page; // one page, reused for every address
beforeAll(async () => {
  // axe adds its own inline styles while it measures; the pages' CSP would refuse them.
  const context = await env.browser.newContext({ bypassCSP: true });
  page = await context.newPage();
});
afterAll(async () => page?.context().close());

/**
 * The page in the colour scheme and at the size of `scheme`, once laid out (two frames). The phone width comes
 * first: a box that scrolls sideways at the desktop width scrolls at the phone width too, where the first render
 * made it reachable by Tab (scroll-focus.js).
 */
async function switchTo({ colorScheme, width, height }) {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  expect(await page.evaluate((s) => matchMedia(`(prefers-color-scheme: ${s})`).matches, colorScheme)).toBe(true);
}

/** One line per failing node: scheme, address, rule, where, why. */
function describeViolations(results, where) {
  return results.violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${where}: ${v.id} (${v.impact}) at ${JSON.stringify(n.target)}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ')}`,
    ),
  );
}

/**
 * Opens `path` in the first scheme, waits with `ready(page)`, runs axe (with `configure(builder)`) in each
 * scheme in turn; `more(page, scheme)` runs before axe in each.
 */
async function audit(path, ready, configure = (b) => b, more = async () => {}) {
  const lines = [];
  const all = [];
  for (const [i, scheme] of SCHEMES.entries()) {
    await switchTo(scheme);
    if (i === 0) await page.goto(new URL(path, env.server.url).href).then(() => ready(page));
    await more(page, scheme);
    await page.evaluate(() => window.scrollTo(0, 0));
    const results = await axeWcag(page, configure); // legacy mode: the pages here have no frames of other origins
    expect(results.passes.length).toBeGreaterThan(0); // axe ran and checked something
    lines.push(...describeViolations(results, `${scheme.colorScheme} ${path}`));
    all.push([scheme, results]);
  }
  expect(lines).toEqual([]);
  return all;
}

/**
 * The number of nodes inside the shadow root of the element `tag` among the nodes of the rules axe passed
 * (a node in a shadow root has a target of selectors from the host down; the host's is the first).
 */
const passedIn = (results, tag) =>
  results.passes
    .flatMap((r) => r.nodes)
    .filter((n) => Array.isArray(n.target[0]) && new RegExp(`^${tag}(?![\\w-])`).test(n.target[0][0])).length;

describe('axe-core, WCAG 2.1 A and AA, light and dark', () => {
  test('the full page: header, table of contents, every chapter\u2019s text, footer; every chapter heading is in the accessibility tree at once, not only the chapters scrolled into view', async () => {
    await audit(
      '?agtest=1',
      async () => {
        await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
        const sections = await page.locator('main section.chapter').count();
        expect(sections).toBe(CHAPTERS.length);
      },
      (b) => b.exclude('.chapter-widget'),
      async (_page, { colorScheme }) => {
        if (colorScheme !== 'light') return;
        const cdp = await page.context().newCDPSession(page);
        const { nodes } = await cdp.send('Accessibility.getFullAXTree');
        const headings = new Set(
          nodes.filter((n) => !n.ignored && n.role?.value === 'heading').map((n) => n.name?.value ?? ''),
        );
        const titles = await page.$$eval('main section.chapter h2', (hs) => hs.map((h) => h.textContent.trim()));
        expect(titles).toHaveLength(CHAPTERS.length);
        expect(titles.filter((t) => !headings.has(t))).toEqual([]);
        await cdp.detach();
      },
    );
  });

  test(`the widget of every chapter (${WIDGET_CHAPTERS.length}), each checked in its own nodes`, async () => {
    const checked = await audit('all-widgets.html?agtest=1', async (page) => {
      for (const { tag } of WIDGET_CHAPTERS) await waitReady(page, tag);
      // The short runs' sizes were taken, with no problem to note.
      for (const [id, text] of Object.entries(SHORT_STATES)) {
        const { tag } = CHAPTERS.find((c) => c.id === id);
        const [stateText, noted] = await page
          .locator(tag)
          .evaluate((el) => [el.stateText, el.shadowRoot.querySelector('.note')?.hidden === false]);
        const taken = stateText.includes(text.split('&').at(-1));
        expect({ tag, taken, noted }).toEqual({ tag, taken: true, noted: false });
      }
    });
    for (const [scheme, results] of checked)
      for (const { tag } of WIDGET_CHAPTERS)
        expect([scheme.colorScheme, tag, passedIn(results, tag) > 0]).toEqual([scheme.colorScheme, tag, true]);
  }, 600000); // 35 widgets, axe twice over all of them: 2-3 min on a quiet machine, near 5 on a loaded one

  test.each(CHAPTER_EMBEDS)('embed.html?ch=%s', async (id) => {
    const { tag } = CHAPTERS.find((c) => c.id === id);
    await audit(`embed.html?agtest=1&ch=${id}`, (page) => waitReady(page, tag));
  });
});

describe('forced colours', () => {
  test('in forced-colours mode the current row of a table is outlined and marked aria-current', async () => {
    await page.setViewportSize({ width: 1024, height: 900 });
    await page.emulateMedia({ colorScheme: 'light', forcedColors: 'active' });
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
  });
});
