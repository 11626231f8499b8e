// The one-widget page (embed.html) and the Embed control of the toolbar: the worked example by w= and by ch=
// against the articles' numbers, with no reading bar or previous/next links, and the message when embed.js did
// not load; the page in a sandboxed iframe on another origin reports its height, the host sizes the frame and no
// inner scrollbar is left; the control's snippets, pasted into fresh host pages, show the same state, their
// heights, its site address and its guide link in a custom theme's accent; hostile addresses, attributes, `state`
// values and states that do not fit fall back with a note.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { formatHex, wcagContrast } from 'culori';
import { CHAPTERS } from '../../web/chapters.js';
import * as h from './helpers.mjs';
import { byRole, expectAllLogged, readNumbers } from './shown-numbers.mjs';

const env = h.useEnv();
const host = h.useHost(env);
const WORKED = 'ag-worked-example';
const TWO = 'ag-two-definitions';
const enc = encodeURIComponent;
const chapterOf = (id) => CHAPTERS.find((c) => c.id === id);
const texts = async (page, tag) => (await readNumbers(page, tag)).map((n) => n.text);
const s = (tag, state) => `w=${tag}&s=${enc(state)}`;
/** An iframe of embed.html?<query> (test mode) with the attributes `attrs`. */
const embedFrame = (query, attrs) =>
  `<iframe src="${new URL(`embed.html?${query}&agtest=1`, env.server.url).href}" style="border:0" ${attrs}></iframe>`;
/** withPage on the host page `name`.html made of `html`; `fn` gets the frame of embed.html too, once `tag` is ready. */
const withFrame = (name, html, tag, open, fn) =>
  h.withPage(env, host.add(`${name}.html`, html), open, async (opened) => {
    const frame = await h.frameOf(opened.page);
    await h.waitReady(frame, tag);
    return fn({ ...opened, frame });
  });
const snippetOf = (widget, kind) => widget.locator(`textarea[data-snippet="${kind}"]`).inputValue();
const PART = /^Part of an attribute could not be used\./;
/** What the page has to go through the tour, and an embed has not: the reading bar, previous/next links. */
const NO_TOUR = '#reading-bar, .reading-bar, .chapter-pager, .pager-next, .pager-prev';
const RESIZE = 'attention-geometry:resize';
const HEADS_5 = /heads=5 \u2014 expected a number of heads that divides d_model = 12/;

/**
 * For each row [selector, parts, { state, part }]: the note of that widget holds every part (a string it
 * contains, a pattern it matches, or an asymmetric matcher), and its state is `state` or holds `part`.
 */
async function expectNotes(page, rows) {
  for (const [id, parts, { state, part } = {}] of rows) {
    const note = await h.noteOf(page.locator(id));
    for (const p of parts)
      expect(note).toEqual(
        typeof p === 'string' ? expect.stringContaining(p) : p instanceof RegExp ? expect.stringMatching(p) : p,
      );
    if (state) expect(await h.stateOf(page, id)).toEqual(state);
    if (part) expect(await h.stateOf(page, id)).toMatchObject(part);
  }
}

/** Every <img>, <script> and <iframe> in the document and in every shadow root. */
const injectedNodes = (page) =>
  page.evaluate(function visit(root = document) {
    return [...root.querySelectorAll('*')].flatMap((el) => [
      ...(el.matches('img, script, iframe') ? [`${el.localName} ${el.getAttribute('src') ?? ''}`] : []),
      ...(el.shadowRoot ? visit(el.shadowRoot) : []),
    ]);
  });

/**
 * The embed page shows only the widget `tag`, in its default state, with the note `noteSelector` saying what
 * could not be used, nothing injected; the worked example still computes a new q, another widget its numbers.
 */
async function expectFallback(page, tag, noteSelector, what = '') {
  const main = page.locator('#embed');
  expect(await main.evaluate((m) => [...m.querySelectorAll('[data-status]')].map((el) => el.localName))).toEqual([tag]);
  expect(await injectedNodes(page)).toEqual(['script embed.js']);
  const widget = page.locator(tag);
  const [state, fresh] = await widget.evaluate((el) => [el.state, document.createElement(el.localName).state]);
  expect({ what, state }).toEqual({ what, state: fresh });
  const noteBox = page.locator(noteSelector);
  expect([what, await noteBox.textContent()]).toEqual([what, expect.stringMatching(/could not be used/)]);
  expect(await noteBox.isVisible()).toBe(true);
  if (tag !== WORKED) return expect((await readNumbers(page, tag)).length).toBeGreaterThan(0);
  // Still usable: a new q computes new scores (q = (2, 2, 0, 1): 6, -5, 0).
  await page.locator(`${WORKED} input.vec-input`).first().fill('2');
  const scores = async () => byRole(await readNumbers(page, WORKED), 'score').map((x) => x.value);
  await h.until(async () => (await scores()).join() === '6,-5,0', 'the new scores', 100);
  await expectAllLogged(page, WORKED);
}

// Custom themes set on a page's root, each the opposite of its colour scheme (the accent 4.5:1 or more on the surface).
const CUSTOM_THEMES = [
  {
    colorScheme: 'light',
    theme: {
      '--ag-bg': '#0b0d12',
      '--ag-surface': '#161a22',
      '--ag-fg': '#f1efe8',
      '--ag-muted': '#b4b9c2',
      '--ag-border': '#454b57',
      '--ag-accent': '#f0b429',
      '--ag-focus': '#7dd3fc',
    },
  },
  {
    colorScheme: 'dark',
    theme: {
      '--ag-bg': '#ffffff',
      '--ag-surface': '#f6f4ff',
      '--ag-fg': '#16121f',
      '--ag-muted': '#4b4660',
      '--ag-border': '#bdb7d1',
      '--ag-accent': '#6b21a8',
      '--ag-focus': '#b45309',
    },
  },
];

describe('embed.html', () => {
  test('with embed.js answered 404, the frame says the figure\u2019s script did not load and what to do', async () => {
    const setup = (p) => p.route('**/embed.js', h.gone);
    const open = { setup, waitFor: null, clean: false };
    await h.withPage(env, `embed.html?ch=dot-product&agtest=1`, open, async ({ page }) => {
      const message = page.locator('#embed .embed-missing');
      await message.waitFor({ state: 'visible' });
      expect(await message.textContent()).toMatch(
        /^This figure could not be shown: its script, embed\.js, did not load\. Serve the folder of this page as it is, .*, or open the full page\.$/,
      );
      expect(await page.locator('#embed-open').isVisible()).toBe(true);
      expect(await page.locator(TWO).count()).toBe(0);
    });
  });

  test("with styles/embed.css and the widget's styles/widget.css answered 404, the page names both in one message at its top, the widget points to it, and the figure computes", async () => {
    const setup = async (p) => {
      await p.route('**/styles/embed.css', h.gone);
      await p.route('**/styles/widget.css', h.gone);
    };
    await h.withEmbed(env, `w=${WORKED}`, WORKED, { setup, clean: false }, async ({ page }) => {
      const message = page.locator('body > .error[data-failure=page-styles]');
      const sheet = new URL('styles/embed.css', page.url()).href;
      const widgetSheet = new URL('styles/widget.css', page.url()).href;
      const detail = message.locator('[data-role=error-detail]');
      await h.until(async () => ((await detail.textContent().catch(() => '')) ?? '').includes(widgetSheet), 'both');
      expect(await page.evaluate(() => document.body.firstElementChild.dataset.failure)).toBe('page-styles');
      const text = await message.textContent();
      expect(text).toContain('2 stylesheets of this page and its figures could not be loaded, so they are shown');
      expect(text).toMatch(/For \S+ the server answered HTTP 404\./);
      expect((await detail.textContent()).split(' ').sort()).toEqual([sheet, widgetSheet].sort());
      // One alert naming each file, the advice once: the widget's frame has a one-line pointer.
      expect(await h.alertsNaming(page, sheet)).toEqual([text]);
      expect(await h.alertsNaming(page, widgetSheet)).toEqual([text]);
      expect(await h.countOnPage(page, 'serve that folder as it is')).toBe(1);
      await expect(page.locator(`${WORKED} .styles-pointer[data-failure=styles]`).textContent()).resolves.toBe(
        'Some styles of this figure did not load: see the stylesheet message at the top of the page.',
      );
      h.expectWorkedExample(await readNumbers(page, WORKED));
    });
  });

  test('the worked example by w= and by ch= computes the articles\u2019 scores and weights; no reading bar or previous/next links; once embed.js runs, no message that it did not load', async () => {
    await h.withEmbed(env, `w=${WORKED}`, WORKED, async ({ page }) => {
      h.expectWorkedExample(await readNumbers(page, WORKED));
      await expectAllLogged(page, WORKED);
      // No page header; no note; the full-page link opens the chapter with its state.
      expect(await page.locator('h1').count()).toBe(0);
      expect(await page.locator(NO_TOUR).count()).toBe(0);
      expect(await page.locator('#embed-note').isHidden()).toBe(true);
      const link = page.locator('#embed-open');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener');
      const href = new URL(await link.evaluate((a) => a.href));
      expect(href.pathname).toMatch(/\/index\.html$/);
      expect([href.searchParams.get('ch'), href.searchParams.get('q')]).toEqual(['worked-example', '1,2,0,1']);
      expect(href.hash).toBe('#ch-worked-example');
    });
    const chapter = chapterOf('worked-example');
    await h.withEmbed(env, 'ch=worked-example', WORKED, { width: 375 }, async ({ page }) => {
      h.expectWorkedExample(await readNumbers(page, WORKED));
      expect(await page.locator(NO_TOUR).count()).toBe(0);
      expect(await page.locator('.embed-missing').count()).toBe(0);
      expect(await page.locator('h1').textContent()).toBe(chapter.title);
      expect(await page.locator('.intro').textContent()).toBe(chapter.intro);
      expect(await page.locator('.tries li').allTextContents()).toEqual(
        chapter.after.map((line) => (typeof line === 'string' ? line : line.text)),
      );
    });
    // A state given by s=: the articles' a = (3, 4), b = (4, 3) give a.b = 24. A field outside s= (a=5,5): named
    // in the page's note; the widget shows its state from s=.
    await h.withEmbed(env, `${s(TWO, 'v=1&a=3,4&b=4,3')}&a=5,5`, TWO, async ({ page }) => {
      const dots = await page
        .locator(TWO)
        .evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-role="dot"]')].map((n) => Number(n.dataset.value)));
      expect(dots[0]).toBe(h.seedCase('dot-algebraic').expected);
      expect(await page.locator('#embed-note').textContent()).toContain('a=5,5');
      expect((await h.stateOf(page, TWO)).a).toEqual([3, 4]);
    });
  }, 120000); // three pages

  test.each([320, 1200])(
    'in a sandboxed iframe on another origin at %i px: height messages, the host sizes the frame, no inner scrollbar',
    async (width) => {
      const attrs = `title="Attention Geometry: worked example" width="100%" height="200" sandbox="allow-scripts allow-same-origin"`;
      const body = `<h1>A course page</h1>\n${embedFrame(`w=${WORKED}&id=fig-1`, attrs)}\n<p>After the frame.</p>
<script>
  window.__messages = [];
  window.addEventListener('message', function (event) {
    var frame = document.querySelector('iframe');
    if (event.source !== frame.contentWindow || event.origin !== ${JSON.stringify(new URL(env.server.url).origin)}) return;
    window.__messages.push(event.data);
    if (event.data && event.data.type === 'attention-geometry:resize') frame.style.height = event.data.height + 'px';
  });
</script>`;
      const head = '<meta name="viewport" content="width=device-width, initial-scale=1">';
      const html = h.hostPage(body, head);
      await withFrame(`frame-${width}`, html, WORKED, { width, height: 700 }, async ({ page, frame }) => {
        h.expectWorkedExample(await readNumbers(frame, WORKED));
        /** The heights once the last message gives the document's height and the frame has taken it (within 2 px). */
        const settled = async (smaller = Infinity) => {
          const heights = await h.frameHeights(page, frame);
          const messages = await page.evaluate(() => window.__messages);
          const last = messages.filter((m) => m && m.type === RESIZE).at(-1);
          const ok = last?.height === heights.height && Math.abs(heights.outer - heights.height) <= 2;
          return ok && last.height < smaller ? { ...heights, messages, last } : null;
        };
        const first = await h.until(settled, 'the frame to take its content\u2019s height', 100);
        const { height } = first;
        expect(first.last).toEqual({ type: RESIZE, height, widget: WORKED, chapter: null, id: 'fig-1' });
        expect(first.height).toBeGreaterThan(200);
        expect(first.scrolls).toBe(false);
        const lti = first.messages.filter((m) => typeof m === 'string').map((m) => JSON.parse(m));
        expect(lti.at(-1)).toEqual({ subject: 'lti.frameResize', height: first.height });
        // Heights are posted only when they change: never the same one twice in a row.
        const heights = first.messages.filter((m) => m && m.type).map((m) => m.height);
        heights.slice(1).forEach((hgt, i) => expect(hgt).not.toBe(heights[i]));
        // A state change that hides the output line makes the page shorter: posted again.
        await frame.locator(`${WORKED} input[name="step"][value="scores"]`).check();
        const second = await h.until(() => settled(first.last.height), 'a new, smaller height', 100);
        expect(second.scrolls).toBe(false);
      });
    },
  );

  test('the Embed control: both snippets, pasted into fresh pages on another origin, show the same state; Copy works or falls back; it fits 320 px; the iframe snippet\u2019s height is the widget\u2019s (panel closed) plus a small margin, and the chapter\u2019s when the frame shows the chapter; the site address: a loopback warning; a published address is used by both snippets and remembered; a bad one is refused', async () => {
    const origin = new URL(env.server.url).origin;
    const pasted = await h.withChapter(env, 'dot-product', TWO, { width: 900 }, async ({ page, context }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const widget = page.locator(TWO);
      const status = widget.locator('.embed-status');
      // Keyboard: the summary is focusable and opens with Enter.
      await widget.locator('details.embed summary').focus();
      await page.keyboard.press('Enter');
      expect(await widget.locator('details.embed').evaluate((d) => d.open)).toBe(true);
      // The heights in the iframe snippet, for the widget and for the chapter (filled on the toggle event, a task
      // after the key), on the default state at the widget's width, compared below with what embed.html reports.
      const width = await widget.evaluate((el) => Math.round(el.getBoundingClientRect().width));
      const heightIn = async () =>
        Number((await h.until(async () => /height="(\d+)"/.exec(await snippetOf(widget, 'iframe')), 'a height'))[1]);
      const radio = (value) => widget.locator(`input[type="radio"][value="${value}"]`).check();
      const forWidget = await heightIn();
      await radio('chapter');
      const heights = { width, widget: forWidget, chapter: await heightIn() };
      await radio('widget');
      // The snippets follow the state while open.
      await widget.evaluate((el) => el.setAttribute('a', '1,2'));
      await widget.evaluate((el) => el.setAttribute('b', '-2.5,1.5'));
      const [iframe, element] = [await snippetOf(widget, 'iframe'), await snippetOf(widget, 'element')];
      const state = 'v=1&a=1,2&b=-2.5,1.5';
      expect(iframe).toContain(`src="${origin}/embed.html?w=${TWO}&amp;s=${enc(state).replace(/&/g, '&amp;')}"`);
      expect(iframe).toMatch(
        /title="Attention Geometry: [^"]+" width="100%" height="\d+" style="border:0" loading="lazy" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-downloads" allow="clipboard-write"><\/iframe>$/,
      );
      expect(element).toBe(
        `<script type="module" src="${origin}/widgets.js"></script>\n<${TWO} state="${state.replace(/&/g, '&amp;')}"></${TWO}>`,
      );
      // Copy: the clipboard gets the snippet, the live region says so.
      await widget.locator('.embed-copy').first().click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(iframe);
      expect(await status.textContent()).toMatch(/copied/);
      // A page that refuses the clipboard: the text is selected and the keys are named.
      await page.evaluate(() =>
        Object.defineProperty(navigator.clipboard, 'writeText', { value: () => Promise.reject(new Error('blocked')) }),
      );
      await widget.locator('.embed-copy').nth(1).click();
      expect(await status.textContent()).toMatch(/Ctrl\+C/);
      const selected = await widget.evaluate((el) => {
        const a = el.shadowRoot.activeElement;
        return a && a.dataset.snippet === 'element' && a.selectionStart === 0 && a.selectionEnd === a.value.length;
      });
      expect(selected).toBe(true);
      // The whole chapter in the frame.
      await radio('chapter');
      const chapter = await snippetOf(widget, 'iframe');
      expect(chapter).toContain(`?ch=dot-product&amp;s=`);
      const numbers = await texts(page, TWO);
      // The open control fits a 320 px screen.
      await page.setViewportSize({ width: 320, height: 900 });
      expect(await h.overflow(page)).toBeLessThanOrEqual(0);
      const box = await widget.locator('textarea[data-snippet="iframe"]').boundingBox();
      expect(box.x + box.width).toBeLessThanOrEqual(320);
      await h.screenshot(widget.locator('.toolbar'), 'embed-control-phone-320');
      await page.setViewportSize({ width: 900, height: 900 });
      await radio('widget');
      // The site address: this server's is a loopback one, which the panel warns of.
      const warning = widget.locator('[data-role="embed-local"]');
      expect(new URL(origin).hostname).toBe('127.0.0.1');
      await expect(warning.isVisible()).resolves.toBe(true);
      expect(await warning.textContent()).toContain(`${origin} is an address of this computer only`);
      expect(await snippetOf(widget, 'iframe')).toContain(`src="${origin}/embed.html?w=${TWO}`);
      // The embedding guide is a page of the site, made from EMBEDDING.md.
      const guide = widget.locator('a[data-role="embed-guide"]');
      expect(await guide.getAttribute('href')).toBe(`${origin}/embedding.html`);
      const guidePage = await context.request.get(`${origin}/embedding.html`);
      expect(guidePage.status()).toBe(200);
      expect(await guidePage.text()).toMatch(/<h1>Embedding the widgets in course material<\/h1>/);
      // The guide link takes the theme's accent, not the browser's link colours: a dark custom theme in the light
      // scheme and a light one in the dark scheme, set on the root: 4.5:1 or more on the widget's surface.
      for (const { colorScheme, theme } of CUSTOM_THEMES) {
        await page.emulateMedia({ colorScheme });
        const shown = await guide.evaluate((a, props) => {
          const root = document.documentElement;
          for (const [name, value] of Object.entries(props)) root.style.setProperty(name, value);
          let el = a;
          let background = 'rgba(0, 0, 0, 0)';
          while (el && background === 'rgba(0, 0, 0, 0)') {
            background = getComputedStyle(el).backgroundColor;
            el = el.parentElement ?? el.getRootNode().host;
          }
          const colour = getComputedStyle(a).color;
          for (const name of Object.keys(props)) root.style.removeProperty(name);
          return { colour, background };
        }, theme);
        expect([colorScheme, formatHex(shown.colour)]).toEqual([colorScheme, theme['--ag-accent']]);
        expect([colorScheme, formatHex(shown.background)]).toEqual([colorScheme, theme['--ag-surface']]);
        expect(wcagContrast(shown.colour, shown.background)).toBeGreaterThanOrEqual(4.5);
      }
      await page.emulateMedia({ colorScheme: null });
      // A page address of the published site stands for its folder.
      const published = 'https://course.example.org/attention/';
      const site = widget.locator('input.embed-site');
      await site.fill(`${published}index.html`);
      await site.press('Enter');
      await site.blur();
      expect(await snippetOf(widget, 'iframe')).toContain(`src="${published}embed.html?w=${TWO}&amp;s=`);
      expect(await snippetOf(widget, 'element')).toContain(
        `<script type="module" src="${published}widgets.js"></script>`,
      );
      await expect(warning.isVisible()).resolves.toBe(false);
      expect(await guide.getAttribute('href')).toBe(`${published}embedding.html`);
      // Remembered on this browser.
      await page.reload();
      await page.locator(`${TWO}[data-status="ready"]`).waitFor();
      await widget.locator('details.embed summary').click();
      expect(await site.inputValue()).toBe(published);
      const kept = await snippetOf(widget, 'iframe');
      expect(kept).toContain(`src="${published}embed.html?`);
      // Not a web address: refused, named in the status line, nothing changed.
      await site.fill('ftp://files.example.org/');
      await site.blur();
      expect(await status.textContent()).toMatch(
        /ftp:\/\/files\.example\.org\/.*is not a web address.*still load from https:\/\/course\.example\.org\/attention\//,
      );
      expect(await site.inputValue()).toBe(published);
      expect(await snippetOf(widget, 'iframe')).toBe(kept);
      return { iframe, element, chapter, numbers, heights };
    });
    for (const kind of ['iframe', 'element', 'chapter']) {
      const url = host.add(`pasted-${kind}.html`, h.hostPage(`<h1>Pasted</h1>\n${pasted[kind]}`));
      await h.withPage(env, url, async ({ page }) => {
        const where = kind === 'element' ? page : await h.frameOf(page);
        await h.waitReady(where, TWO);
        if (kind === 'chapter') expect(await where.locator('h1').textContent()).toBe(chapterOf('dot-product').title);
        expect(await texts(where, TWO)).toEqual(pasted.numbers);
      });
    }
    // What embed.html reports at the widget's width.
    const { heights } = pasted;
    const reported = async (query) => {
      const body = `${embedFrame(query, `title="t" width="${heights.width}" height="150"`)}
<script>window.__h = []; addEventListener('message', function (e) { if (e.data && e.data.type === 'attention-geometry:resize') window.__h.push(e.data.height); });</script>`;
      const html = h.hostPage(body, '<style>body{margin:0}</style>');
      const open = { width: heights.width + 40, clean: false };
      return withFrame(`measure-${query.replace(/\W/g, '')}`, html, TWO, open, async ({ page, frame }) => {
        return h.until(async () => {
          const { height } = await h.frameHeights(page, frame);
          return (await page.evaluate(() => window.__h)).at(-1) === height ? height : null;
        }, 'a height message');
      });
    };
    const widgetReported = await reported(`w=${TWO}`);
    expect(heights.widget).toBeGreaterThanOrEqual(widgetReported);
    expect(heights.widget - widgetReported).toBeLessThanOrEqual(60);
    const chapterReported = await reported('ch=dot-product');
    expect(heights.chapter).toBeGreaterThanOrEqual(chapterReported - 20);
    expect(heights.chapter - chapterReported).toBeLessThanOrEqual(80);
  }, 120000); // six pages

  // Hostile states (s=, which embed.js gives the widget as its stateText) are set in an open page: the same parser.
  const WORKED_STATES = [
    ['values of 10^9', 'v=1&q=1e9,1e9,1e9,1e9'],
    ['NaN', 'v=1&q=NaN,1,2,3&k=NaN'],
    ['a script in the state', 'v=1&q=<script>alert(1)</script>&step=<img src=x onerror=alert(2)>'],
    ['an over-long state', `v=1&q=${'1,'.repeat(30000)}1`],
  ];
  test.each([
    ['markup as the tag', `w=${enc('<img src=x onerror=alert(1)>')}`],
    ['an unknown chapter', `ch=${enc('nope"><img src=x>')}&s=${enc('v=1&a=1,2')}`],
    ['no widget named', '', WORKED_STATES],
    ['markup as the id', `w=${WORKED}&id=${enc('<img src=x>')}`],
    // Each reported, before a change in the widget clears its note (a field outside s=: the worked example test).
    ['s= of another widget, a repeated w= or s=', `w=${WORKED}&w=${TWO}&s=${enc('v=1&a=3,4')}&s=x`, [], true],
  ])('hostile address (%s): a default with a note, nothing injected, still usable', async (_, q, states = [], re) => {
    await h.withEmbed(env, q, WORKED, { width: 375 }, async ({ page }) => {
      if (re) {
        const pageNote = await page.locator('#embed-note').textContent();
        expect(pageNote).toMatch(/w=ag-two-definitions \u2014 expected one w= only/);
        expect(pageNote).toMatch(/s=x \u2014 expected one s= only/);
        expect(await h.noteOf(page.locator(WORKED))).toMatch(/a=3,4 \u2014 expected no such name/);
      }
      await expectFallback(page, WORKED, '#embed-note');
      for (const [what, state] of states) {
        await h.setStateText(page, WORKED, state);
        await expectFallback(page, WORKED, `${WORKED} .note`, what);
      }
    });
  });

  test('h = 5 with d_model = 12 by s=: the widget computes with h = 3 and the note names heads=5; hostile states (a negative number of heads, sizes of 10^9): a default with a note, nothing injected', async () => {
    const tag = 'ag-multi-head';
    await h.withEmbed(env, s(tag, 'v=1&heads=5&dmodel=12'), tag, { width: 375 }, async ({ page }) => {
      const widget = page.locator(tag);
      expect(await widget.evaluate((el) => el.stateText)).toMatch(/&dmodel=12&heads=3&/);
      expect(await h.noteOf(widget)).toMatch(HEADS_5);
      expect(await widget.locator('input[name="heads"]:checked').getAttribute('value')).toBe('3');
      expect(await widget.locator('.computed-by').textContent()).toMatch(/Computed in WebAssembly/);
      for (const [what, state] of [
        ['a negative number of heads', 'v=1&heads=-3'],
        ['sizes of 10^9', 'v=1&dmodel=1000000000&heads=1000000000'],
      ]) {
        await h.setStateText(page, tag, state);
        await expectFallback(page, tag, `${tag} .note`, what);
      }
    });
  });
});

describe('states that do not fit together, names that are not fields, attributes, the state property', () => {
  // One host page, a widget (by id) for each case; the widgets script, all defined.
  const ATTRIBUTES = `<ag-multi-head id="m1" heads="99" head="77" query="55"></ag-multi-head>
<ag-multi-head id="m2" heads="5"></ag-multi-head>
<ag-two-definitions id="t1" a="9,9" state="v=1&amp;b=1,1"></ag-two-definitions>
<ag-two-definitions id="t2" a="1,1" state="v=1&amp;b=2,2"></ag-two-definitions>
<ag-two-definitions id="t3" state="v=1&amp;b=2,2" a="1,1"></ag-two-definitions>
<ag-worked-example id="w1" state="v=1&amp;a=3,4&amp;__proto__=1&amp;k=1,0,0,0;0,1,0,0;0,0,1,0&amp;k=0,0,0,0;0,0,0,0;0,0,0,0"></ag-worked-example>
<ag-two-definitions id="late" a="1,1"></ag-two-definitions>
<ag-two-definitions id="bad" a="nine" b="x"></ag-two-definitions>
<ag-two-definitions id="gone" state="v=1&amp;a=5,5&amp;b=2,2" a="1,1"></ag-two-definitions>
<ag-two-definitions id="plain" a="1,1" b="2,2"></ag-two-definitions>
<ag-multi-head id="head" heads="2" head="5"></ag-multi-head>
<ag-multi-head id="mq" query="6"></ag-multi-head>
<ag-content-to-weights id="cq" query="6"></ag-content-to-weights>
<ag-weights-explain id="eq"></ag-weights-explain>
<ag-value-mix id="v3" values="1,1;2,2;3,3" alpha="0.5,0.5"></ag-value-mix>
<ag-value-mix id="v4" values="1,1;2,2;3,3;4,4" alpha="0.5,0.5"></ag-value-mix>
<ag-convex-hull id="h3" values="1,1;2,2;3,3" alpha="0.5,0.5"></ag-convex-hull>
<ag-length-lever id="lever"></ag-length-lever>
<ag-orthogonality id="zero" state="v=1&amp;q=0,0&amp;k1=0,0&amp;k2=0,0&amp;k3=0,0"></ag-orthogonality>
<ag-simd id="lab"></ag-simd>`;
  const hosted = h.usePage(env, () => host.add('attributes.html', h.hostPage(ATTRIBUTES, h.widgetsScript(env))), {
    ready: ({ page }) => page.waitForFunction(() => !document.querySelector(':not(:defined)')),
  });

  test('attributes: every problem listed, in attribute wording; `state` first, then field attributes, in any order; unknown names reported', async () => {
    const { page } = hosted;
    await expectNotes(page, [
      ['#m1', [PART, 'heads=99', 'head=77', 'query=55']],
      ['#m2', [HEADS_5], { part: { heads: 3 } }],
      ['#t1', [PART, 'a=9,9'], { state: { a: [3, 4], b: [1, 1] } }],
      ['#t2', [], { state: { a: [1, 1], b: [2, 2] } }],
      ['#t3', [], { state: { a: [1, 1], b: [2, 2] } }],
      [
        '#w1',
        [
          /a=3,4 \u2014 expected no such name: it is not a field of this widget; its fields are /,
          '__proto__=1',
          /k=0,0,0,0;[^\u2014]*\u2014 expected one k= only/,
        ],
      ],
    ]);
    // The note is still there once the widget has started (drawn from the stored problems, same wording);
    // a change made in the widget clears it.
    await h.waitReady(page, '#m2');
    await expectNotes(page, [['#m2', [PART]]]);
    await page.locator('#m2 input[name="heads"][value="2"]').check();
    await expectNotes(page, [['#m2', [/^$/]]]);
  });

  test('attributes changed later: `state` set after a field attribute does not override it; a replaced or removed bad attribute leaves the note; a removed field attribute gives the `state` value or the default', async () => {
    const { page } = hosted;
    const set = (el, [n, v]) => (v === null ? el.removeAttribute(n) : el.setAttribute(n, v));
    // Each step: [widget, the attribute set (null: removed) or none, its note, its state after].
    for (const [id, change, parts, state] of [
      // The state attribute set after a field attribute: the field attribute still wins for its field.
      ['#late', ['state', 'v=1&a=5,5&b=2,2'], [], { a: [1, 1], b: [2, 2] }],
      ['#late', ['state', 'v=1&a=6,6&b=-2,-2'], [], { a: [1, 1], b: [-2, -2] }],
      // Two rejected attributes: replacing one with a good value drops its entry, removing the other empties the note.
      ['#bad', null, ['a=nine', 'b=x']],
      ['#bad', ['a', '2,2'], [expect.not.stringContaining('a=nine'), 'b=x'], { a: [2, 2], b: [4, 3] }],
      ['#bad', ['b', null], [/^$/], { a: [2, 2], b: [4, 3] }],
      // Removing a field attribute: the state attribute's value, then (state removed too) the default.
      ['#gone', null, [], { a: [1, 1], b: [2, 2] }],
      ['#gone', ['a', null], [], { a: [5, 5], b: [2, 2] }],
      ['#gone', ['state', null], [], { a: [3, 4], b: [4, 3] }],
      // Without a state attribute: the default, the other attribute kept.
      ['#plain', ['a', null], [], { a: [3, 4], b: [2, 2] }],
    ]) {
      if (change) await page.locator(id).evaluate(set, change);
      await expectNotes(page, [[id, parts, { state }]]);
    }
  });

  test('sizes and indices that must agree: head past h, query past the last word, weights not one per value; each reset to its default with a note', async () => {
    const { page } = hosted;
    const word = /query=6 \u2014 expected a word of the sentence, from 1 to 5/;
    const perValue = (n) => new RegExp(`alpha=0\\.5,0\\.5 \u2014 expected ${n} weights, one per value`);
    const values = [1, 2, 3].map((x) => [x, x]);
    await expectNotes(page, [
      ['#head', [/head=5 \u2014 expected a head from 1 to h = 2/], { part: { heads: 2, head: 1 } }],
      // The default sentences: five words in multi-head and content-to-weights.
      ['#mq', [word], { part: { query: 4 } }],
      ['#cq', [word], { part: { query: 2 } }],
      // Two weights for three values: the weights go back to their default, the values stay.
      ['#v3', [perValue(3)], { state: { values, alpha: [0.5, 0.3, 0.2] } }],
      ['#h3', [perValue(3)], { state: { values, alpha: [0.2, 0.3, 0.5] } }],
      // Four values: the default weights (three) do not fit either, so the values go back too, and both are named.
      ['#v4', [perValue(4), 'values=1,1;2,2;3,3;4,4'], { part: { alpha: [0.5, 0.3, 0.2] } }],
    ]);
    expect((await h.stateOf(page, '#v4')).values).toHaveLength(3);
    // The explain widget's default sentence has six words: five words given, then query 6.
    const explained = await page.locator('#eq').evaluate((el) => {
      const words = el.state.words.slice(0, 5);
      el.setAttribute('words', words.join(','));
      el.setAttribute('query', '6');
      return { words, state: el.state };
    });
    expect(explained.state).toMatchObject({ words: explained.words, query: 4 });
    await expectNotes(page, [['#eq', [word]]]);
  });

  test('the state property: a number as text or in an array, NaN, a list as text, a name that is not a field, a number for the object; each ignored with a note saying what is wrong, still computing', async () => {
    const { page } = hosted;
    const lever = page.locator('#lever');
    await h.waitReady(page, '#lever');
    const before = await h.stateOf(page, '#lever');
    for (const [value, shown] of [
      [{ t: '2' }, 't=2'],
      [{ t: [2] }, 't=[2]'],
      [{ t: NaN }, 't=NaN \u2014 expected a number from'], // as JS writes it (JSON writes null)
      [{ d: '1,2' }, /d=1,2 \u2014 expected an array of 2 numbers, each from [^.]* \(not a string\)\./],
      [{ T: 2 }, 'T=2 \u2014 expected no such name: it is not a field of this widget; its fields are d and t.'],
      [5, 'state=5'],
    ]) {
      await lever.evaluate((el, v) => (el.state = v), value);
      const after = await lever.evaluate((el) => ({ state: el.state, status: el.dataset.status }));
      expect(after).toEqual({ state: before, status: 'ready' });
      expect(typeof after.state.t).toBe('number');
      expect(await h.noteOf(lever)).toMatch(shown);
    }
  });

  test('orthogonality with every vector zero: nothing drawn from undefined numbers, no console error; angles "not defined"', async () => {
    const { page } = hosted;
    await h.waitReady(page, '#zero');
    const seen = await page.locator('#zero').evaluate((el) => ({
      stateText: el.stateText,
      cosines: [...el.shadowRoot.querySelectorAll('[data-role="cosine"]')].map((c) => c.textContent),
      paths: [...el.shadowRoot.querySelectorAll('svg path, svg line')].map(
        (n) => `${n.getAttribute('d') ?? ''} ${n.getAttribute('x2') ?? ''}`,
      ),
    }));
    expect(seen.stateText).toBe('v=1&q=0,0&k1=0,0&k2=0,0&k3=0,0');
    expect(seen.cosines).toEqual(['not defined', 'not defined', 'not defined']);
    for (const text of seen.paths) expect(text).not.toMatch(/undefined|NaN/);
  });

  test('a widget whose inputs cannot be computed says so: status "stale", never left "loading"', async () => {
    const { page } = hosted;
    const lab = page.locator('#lab');
    await h.waitReady(page, '#lab');
    // setState checks fields one by one only; two lengths reach render(), which refuses them.
    await lab.evaluate((el) => el.setState({ a: [1, 2, 3], b: [1, 2] }));
    await page.waitForSelector('#lab[data-status="stale"]');
    expect(await page.locator('#lab .computed-by').textContent()).toMatch(/could not be computed/);
    // The state property is checked as a whole: the lengths are made to fit again.
    await lab.evaluate((el) => (el.state = { a: [1, 2, 3], b: [1, 2] }));
    await h.waitReady(page, '#lab');
    expect(await h.noteOf(lab)).toMatch(/b=1,2 \u2014 expected as many numbers as a/);
  });

  test("on a page of its host (no page message of the site's), a widget whose stylesheet did not load names it itself, in an alert", async () => {
    const { page } = hosted;
    const plain = page.locator('#plain');
    await h.waitReady(page, '#plain');
    // Its link of styles/widget.css fires `error`, as one the server did not deliver does.
    const sheet = await plain.evaluate((el) => {
      const link = [...el.shadowRoot.querySelectorAll('link[rel=stylesheet]')].find((l) =>
        l.href.endsWith('/styles/widget.css'),
      );
      link.dispatchEvent(new Event('error'));
      return link.href;
    });
    const message = plain.locator('.error[data-failure=styles][role=alert]');
    await message.waitFor({ state: 'visible' });
    const text = await message.textContent();
    expect(text).toContain('A stylesheet of this figure could not be loaded, so it is shown without its styles.');
    expect(await h.alertsNaming(page, sheet)).toEqual([text]);
    expect(await page.locator('[data-failure=page-styles]').count()).toBe(0);
  });
});

describe('the Embed control in sandboxed frames, and pages that turn it off', () => {
  const SAME_ORIGIN = 'allow-scripts allow-same-origin';
  /**
   * withPage (not checked clean) on a host page `name`.html that holds embed.html?w=<tag> in a frame `height` px
   * high, sandboxed with `sandbox`; `fn` gets the frame too, once its widget is ready.
   */
  const withSandboxed = (name, tag, [sandbox, height], fn) => {
    const html = h.hostPage(embedFrame(`w=${tag}`, `title="t" width="100%" height="${height}" sandbox="${sandbox}"`));
    return withFrame(name, html, tag, { clean: false }, fn);
  };

  test('embed.html in a frame without allow-popups: "Open the full page" shows the address; Copy falls back without touching the blocked clipboard', async () => {
    await withSandboxed('minimal-sandbox', WORKED, [SAME_ORIGIN, 900], async ({ frame, context, problems }) => {
      await frame.locator('#embed-open').click();
      const address = new URL(await frame.locator('[data-role="full-page-address"]').textContent());
      expect(address.pathname).toMatch(/\/index\.html$/);
      expect(address.searchParams.get('ch')).toBe('worked-example');
      expect(context.pages()).toHaveLength(1);
      // Copy: no clipboard-write here; the snippet is selected instead, and nothing is logged as an error.
      const widget = frame.locator(WORKED);
      await widget.locator('details.embed summary').click();
      await widget.locator('.embed-copy').first().click();
      expect(await widget.locator('.embed-status').textContent()).toMatch(/Ctrl\+C/);
      // The blocked popup itself is reported by the browser; nothing else may be.
      expect(problems.errors.filter((e) => !/sandboxed|allow-popups/i.test(e))).toEqual([]);
    });
  });

  test('a number prediction in a frame with the minimum sandbox (no allow-forms) commits by click and by Enter', async () => {
    await withSandboxed('number-sandbox', 'ag-sqrt-d', [SAME_ORIGIN, 1400], async ({ frame, problems }) => {
      const widget = frame.locator('ag-sqrt-d');
      const field = widget.locator('input.predict-number');
      await field.fill('4,096');
      await widget.locator('.predict-commit').click();
      await widget.locator('.predict[data-result="wrong"]').waitFor({ timeout: 60000 });
      expect(await widget.locator('.predict-result').textContent()).toMatch(/You said 4,096;/);
      await widget.locator('.predict-again').click();
      await field.fill('64');
      await field.press('Enter');
      await widget.locator('.predict[data-result="right"]').waitFor({ timeout: 60000 });
      expect(problems.errors.filter((e) => /form|sandbox/i.test(e))).toEqual([]);
    });
  });

  test('in a frame sandboxed without allow-same-origin, the kernel lab says the frame needs it (its worker cannot start)', async () => {
    await withSandboxed('no-same-origin', 'ag-simd', ['allow-scripts', 1200], async ({ frame }) => {
      await frame.locator('ag-simd [data-action="run"]').click();
      await frame.waitForSelector('ag-simd[data-lab="error"]');
      expect(await frame.locator('ag-simd .lab-status').textContent()).toMatch(
        /^The timing could not run: the experiment worker could not start .*add allow-same-origin to the frame\u2019s sandbox attribute/,
      );
      // The page stays usable: the stepper still answers.
      await frame.locator('ag-simd button.next').click();
      expect(await frame.locator('ag-simd .step-text').textContent()).toMatch(/^Step 2 of/);
    });
  });

  test('a page with <meta name="attention-geometry-embed" content="off"> shows a short text instead of snippets', async () => {
    const head = `<meta name="attention-geometry-embed" content="off">${h.widgetsScript(env)}`;
    const url = host.add('embed-off.html', h.hostPage(`<${WORKED}></${WORKED}>`, head));
    await h.withPage(env, url, { tag: WORKED }, async ({ page }) => {
      const widget = page.locator(WORKED);
      await widget.locator('details.embed summary').click();
      expect(await widget.locator('[data-role="embed-unavailable"]').textContent()).toMatch(/turned off on this page/);
      expect(await widget.locator('textarea').count()).toBe(0);
    });
  });

  test('the npm package\'s copy of embed.html (no full page beside it) hides "Open the full page"', async () => {
    const page = readFileSync(join(h.ROOT, 'dist/widgets/embed.html'), 'utf8');
    expect(page).toContain('<meta name="attention-geometry-full-page" content="off">');
    // With no script run too: the link is hidden, and the message for an embed.js that did not load names no full page.
    expect(page).toContain('<p class="embed-open" hidden>');
    expect(page).toMatch(/class="embed-note embed-missing">[^<]*did not load[^<]*<\/p>/);
    writeFileSync(join(env.site, 'embed-package.html'), page);
    await h.withPage(env, `embed-package.html?w=${WORKED}&agtest=1`, { tag: WORKED }, async (opened) => {
      expect(await opened.page.locator('#embed-open').isVisible()).toBe(false);
    });
  });
});
