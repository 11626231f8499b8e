// The one-widget page (embed.html) and the Embed control of the toolbar:
// the worked example by w= and by ch= against the articles' numbers; the
// page in a sandboxed iframe on another origin reports its height, the host
// sizes the frame and no inner scrollbar is left; the control's two
// snippets, pasted into fresh host pages, show the same state; hostile
// addresses fall back to a default with a note and inject nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { byRole, expectAllLogged, expectClean, expectHostClean, openChapter, openPage, openUrl, overflow, readNumbers, ROOT, screenshot, startEnv, startHostServer, waitReady } from './helpers.mjs';

const SEEDS = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;
const seed = (id) => SEEDS.find((c) => c.id === id);
const WORKED = 'ag-worked-example';

let env;
let host;
const pages = {};
beforeAll(async () => {
  env = await startEnv();
  host = await startHostServer({ pages });
});
afterAll(async () => {
  await host?.close();
  await env?.close();
});

/** The article's scores and (unscaled) weights, from the seeds file. */
function expectArticleNumbers(numbers) {
  expect(byRole(numbers, 'score').map((s) => s.value)).toEqual(seed('worked-scores').expected);
  const weights = seed('worked-softmax-unscaled');
  byRole(numbers, 'weight').forEach((w, j) => expect(Math.abs(w.value - weights.expected[j])).toBeLessThanOrEqual(weights.tolerance));
  expect(byRole(numbers, 'weight')).toHaveLength(3);
}

/** Polls `check` (async, returns a value or a falsy one) until it gives a truthy value. */
async function until(check, what, tries = 100) {
  let last;
  for (let i = 0; i < tries; i += 1) {
    last = await check();
    if (last) return last;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Every <img> and <script> in the document and in every shadow root. */
function injectedNodes(page) {
  return page.evaluate(() => {
    const found = [];
    const visit = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.localName === 'img' || el.localName === 'script' || el.localName === 'iframe') found.push(`${el.localName} ${el.getAttribute('src') ?? ''}`);
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(document);
    return found;
  });
}

describe('embed.html', () => {
  test('the worked example by w= and by ch= computes the articles\u2019 scores and weights', async () => {
    const byTag = await openPage(env, `embed.html?w=${WORKED}&agtest=1`);
    await waitReady(byTag.page, WORKED);
    expectArticleNumbers(await readNumbers(byTag.page, WORKED));
    await expectAllLogged(byTag.page, WORKED);
    // No page header; no note; the full-page link opens the chapter with its state.
    expect(await byTag.page.locator('h1').count()).toBe(0);
    expect(await byTag.page.locator('#embed-note').isHidden()).toBe(true);
    const link = byTag.page.locator('#embed-open');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener');
    const href = new URL(await link.evaluate((a) => a.href));
    expect(href.pathname).toMatch(/\/index\.html$/);
    expect(href.searchParams.get('ch')).toBe('worked-example');
    expect(href.searchParams.get('q')).toBe('1,2,0,1');
    expect(href.hash).toBe('#ch-worked-example');
    await expectClean(byTag);
    await byTag.context.close();

    const chapter = CHAPTERS.find((c) => c.id === 'worked-example');
    const byChapter = await openPage(env, 'embed.html?ch=worked-example&agtest=1', { width: 375 });
    await waitReady(byChapter.page, WORKED);
    expectArticleNumbers(await readNumbers(byChapter.page, WORKED));
    expect(await byChapter.page.locator('h1').textContent()).toBe(chapter.title);
    expect(await byChapter.page.locator('.intro').textContent()).toBe(chapter.intro);
    expect(await byChapter.page.locator('.tries li').allTextContents()).toEqual(chapter.after);
    await expectClean(byChapter);
    await byChapter.context.close();

    // A state given by s=: the articles' a = (3, 4), b = (4, 3) give a.b = 24.
    const withState = await openPage(env, `embed.html?w=ag-two-definitions&s=${encodeURIComponent('v=1&a=3,4&b=4,3')}&agtest=1`);
    await waitReady(withState.page, 'ag-two-definitions');
    const dots = await withState.page.locator('ag-two-definitions').evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-role="dot"]')].map((n) => Number(n.dataset.value)));
    expect(dots[0]).toBe(seed('dot-algebraic').expected);
    await expectClean(withState);
    await withState.context.close();
  });

  for (const width of [320, 1200]) {
    test(`in a sandboxed iframe on another origin at ${width} px: height messages, the host sizes the frame, no inner scrollbar`, async () => {
      const embedOrigin = new URL(env.server.url).origin;
      const src = new URL(`embed.html?w=${WORKED}&id=fig-1&agtest=1`, env.server.url).href;
      pages[`/frame-${width}.html`] = {
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Host</title></head>
<body><h1>A course page</h1>
<iframe src="${src}" title="Attention Geometry: worked example" width="100%" height="200" style="border:0" sandbox="allow-scripts allow-same-origin"></iframe>
<p>After the frame.</p>
<script>
  window.__messages = [];
  window.addEventListener('message', function (event) {
    var frame = document.querySelector('iframe');
    if (event.source !== frame.contentWindow || event.origin !== ${JSON.stringify(embedOrigin)}) return;
    window.__messages.push(event.data);
    if (event.data && event.data.type === 'attention-geometry:resize') frame.style.height = event.data.height + 'px';
  });
</script></body></html>`,
      };
      const opened = await openUrl(env, `${host.url}frame-${width}.html`, { width, height: 700 });
      const { page } = opened;
      const frame = await until(() => page.frames().find((f) => f.url().startsWith(src.split('?')[0])), 'the embed frame');
      await waitReady(frame, WORKED);
      expectArticleNumbers(await readNumbers(frame, WORKED));

      const settled = async () => {
        const inner = await frame.evaluate(() => ({
          height: Math.ceil(document.documentElement.getBoundingClientRect().height),
          scrollHeight: document.documentElement.scrollHeight,
          clientHeight: document.documentElement.clientHeight,
        }));
        const outer = await page.evaluate(() => ({ frame: document.querySelector('iframe').getBoundingClientRect().height, messages: window.__messages }));
        const last = outer.messages.filter((m) => m && m.type === 'attention-geometry:resize').at(-1);
        return last && last.height === inner.height && Math.abs(outer.frame - inner.height) <= 2 ? { inner, outer, last } : null;
      };
      const first = await until(settled, 'the frame to take its content\u2019s height');
      expect(first.last).toEqual({ type: 'attention-geometry:resize', height: first.inner.height, widget: WORKED, chapter: null, id: 'fig-1' });
      expect(first.inner.height).toBeGreaterThan(200);
      expect(first.inner.scrollHeight).toBeLessThanOrEqual(first.inner.clientHeight);
      const lti = first.outer.messages.filter((m) => typeof m === 'string').map((m) => JSON.parse(m));
      expect(lti.at(-1)).toEqual({ subject: 'lti.frameResize', height: first.inner.height });
      // Heights are posted only when they change: never the same one twice in a row.
      const heights = first.outer.messages.filter((m) => m && m.type).map((m) => m.height);
      heights.slice(1).forEach((hgt, i) => expect(hgt).not.toBe(heights[i]));

      // A state change that hides the output line makes the page shorter: posted again.
      await frame.locator(`${WORKED} input[name="step"][value="scores"]`).check();
      const second = await until(async () => {
        const s = await settled();
        return s && s.last.height < first.last.height ? s : null;
      }, 'a new, smaller height');
      expect(second.inner.scrollHeight).toBeLessThanOrEqual(second.inner.clientHeight);
      await expectHostClean(opened);
      await opened.context.close();
    });
  }

  test('the Embed control: both snippets, pasted into fresh pages on another origin, show the same state; Copy works or falls back', async () => {
    const tag = 'ag-two-definitions';
    const opened = await openChapter(env, 'dot-product', tag);
    const { page, context } = opened;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(env.server.url).origin });
    const widget = page.locator(tag);
    // Keyboard: the summary is focusable and opens with Enter.
    await widget.locator('details.embed summary').focus();
    await page.keyboard.press('Enter');
    expect(await widget.locator('details.embed').evaluate((d) => d.open)).toBe(true);
    // The snippets follow the state while open.
    await widget.evaluate((el) => el.setAttribute('a', '1,2'));
    await widget.evaluate((el) => el.setAttribute('b', '-2.5,1.5'));
    const numbers = (await readNumbers(page, tag)).map((n) => n.text);
    const iframeCode = await widget.locator('textarea[data-snippet="iframe"]').inputValue();
    const elementCode = await widget.locator('textarea[data-snippet="element"]').inputValue();
    const embedUrl = new URL('embed.html', env.server.url).href;
    expect(iframeCode).toContain(`src="${embedUrl}?w=${tag}&amp;s=${encodeURIComponent('v=1&a=1,2&b=-2.5,1.5').replace(/&/g, '&amp;')}"`);
    expect(iframeCode).toMatch(/title="Attention Geometry: [^"]+" width="100%" height="\d+" style="border:0" loading="lazy" sandbox="allow-scripts allow-same-origin"><\/iframe>$/);
    expect(elementCode).toBe(`<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script>\n<${tag} state="v=1&amp;a=1,2&amp;b=-2.5,1.5"></${tag}>`);

    // Copy: the clipboard gets the snippet, the live region says so.
    await widget.locator('.embed-copy').first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(iframeCode);
    expect(await widget.locator('.embed-status').textContent()).toMatch(/copied/);
    // A page that refuses the clipboard: the text is selected and the keys are named.
    await page.evaluate(() => Object.defineProperty(navigator.clipboard, 'writeText', { value: () => Promise.reject(new Error('blocked')) }));
    await widget.locator('.embed-copy').nth(1).click();
    expect(await widget.locator('.embed-status').textContent()).toMatch(/Ctrl\+C/);
    const selected = await widget.evaluate((el) => {
      const a = el.shadowRoot.activeElement;
      return a && a.dataset.snippet === 'element' && a.selectionStart === 0 && a.selectionEnd === a.value.length;
    });
    expect(selected).toBe(true);

    // The whole chapter in the frame.
    await widget.locator('input[type="radio"][value="chapter"]').check();
    const chapterCode = await widget.locator('textarea[data-snippet="iframe"]').inputValue();
    expect(chapterCode).toContain(`?ch=dot-product&amp;s=`);
    await expectClean(opened);
    await context.close();

    const wrap = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pasted</title></head><body><h1>Pasted</h1>\n${body}\n</body></html>`;
    pages['/pasted-iframe.html'] = { body: wrap(iframeCode) };
    pages['/pasted-element.html'] = { body: wrap(elementCode) };
    pages['/pasted-chapter.html'] = { body: wrap(chapterCode) };

    const viaFrame = await openUrl(env, `${host.url}pasted-iframe.html`);
    const frame = await until(() => viaFrame.page.frames().find((f) => f.url().includes('embed.html')), 'the pasted frame');
    await waitReady(frame, tag);
    expect((await readNumbers(frame, tag)).map((n) => n.text)).toEqual(numbers);
    await expectHostClean(viaFrame);
    await viaFrame.context.close();

    const viaElement = await openUrl(env, `${host.url}pasted-element.html`);
    await waitReady(viaElement.page, tag);
    expect((await readNumbers(viaElement.page, tag)).map((n) => n.text)).toEqual(numbers);
    await expectHostClean(viaElement);
    await viaElement.context.close();

    const viaChapter = await openUrl(env, `${host.url}pasted-chapter.html`);
    const chapterFrame = await until(() => viaChapter.page.frames().find((f) => f.url().includes('embed.html')), 'the pasted chapter frame');
    await waitReady(chapterFrame, tag);
    expect(await chapterFrame.locator('h1').textContent()).toBe(CHAPTERS.find((c) => c.id === 'dot-product').title);
    expect((await readNumbers(chapterFrame, tag)).map((n) => n.text)).toEqual(numbers);
    await expectHostClean(viaChapter);
    await viaChapter.context.close();
  });

  test('the open Embed control fits a 320 px screen', async () => {
    const tag = 'ag-two-definitions';
    const opened = await openChapter(env, 'dot-product', tag, { width: 320 });
    const widget = opened.page.locator(tag);
    await widget.locator('details.embed summary').click();
    await widget.locator('textarea[data-snippet="element"]').waitFor();
    expect(await overflow(opened.page)).toBeLessThanOrEqual(0);
    const box = await widget.locator('textarea[data-snippet="iframe"]').boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(320);
    await screenshot(widget.locator('.toolbar'), 'embed-control-phone-320');
    await expectClean(opened);
    await opened.context.close();
  });

  const enc = encodeURIComponent;
  const HOSTILE = [
    { what: 'markup as the tag', query: `w=${enc('<img src=x onerror=alert(1)>')}`, tag: WORKED, note: 'page' },
    { what: 'a negative number of heads', query: `w=ag-multi-head&s=${enc('v=1&heads=-3')}`, tag: 'ag-multi-head', note: 'widget' },
    { what: 'sizes of 10^9', query: `w=ag-multi-head&s=${enc('v=1&dmodel=1000000000&heads=1000000000')}`, tag: 'ag-multi-head', note: 'widget' },
    { what: 'values of 10^9', query: `w=${WORKED}&s=${enc('v=1&q=1e9,1e9,1e9,1e9')}`, tag: WORKED, note: 'widget' },
    { what: 'NaN', query: `w=${WORKED}&s=${enc('v=1&q=NaN,1,2,3&k=NaN')}`, tag: WORKED, note: 'widget' },
    { what: 'a script in the state', query: `w=${WORKED}&s=${enc('v=1&q=<script>alert(1)</script>&step=<img src=x onerror=alert(2)>')}`, tag: WORKED, note: 'widget' },
    { what: 'an over-long state', query: `w=${WORKED}&s=${enc(`v=1&q=${'1,'.repeat(30000)}1`)}`, tag: WORKED, note: 'widget' },
    { what: 'an unknown chapter', query: `ch=${enc('nope"><img src=x>')}&s=${enc('v=1&a=1,2')}`, tag: WORKED, note: 'page' },
    { what: 'no widget named', query: '', tag: WORKED, note: 'page' },
    { what: 'markup as the id', query: `w=${WORKED}&id=${enc('<img src=x>')}`, tag: WORKED, note: 'page' },
  ];
  test.each(HOSTILE)('hostile address ($what): a default with a note, nothing injected, still usable', async ({ query, tag, note }) => {
    const opened = await openPage(env, `embed.html?${query}${query ? '&' : ''}agtest=1`, { width: 375 });
    const { page } = opened;
    await waitReady(page, tag);
    expect(await page.locator('#embed').evaluate((main) => [...main.querySelectorAll('[data-status]')].map((el) => el.localName))).toEqual([tag]);
    expect(await injectedNodes(page)).toEqual(['script embed.js']);
    const state = await page.locator(tag).evaluate((el) => ({ state: el.state, fresh: document.createElement(el.localName).state }));
    expect(state.state).toEqual(state.fresh);
    const noteText = note === 'page' ? await page.locator('#embed-note').textContent() : await page.locator(`${tag} .note`).textContent();
    expect(noteText).toMatch(/could not be used/);
    expect(await page.locator(note === 'page' ? '#embed-note' : `${tag} .note`).isVisible()).toBe(true);
    if (tag === WORKED) {
      // Still usable: a new q computes new scores (q = (2, 2, 0, 1): 6, -5, 0).
      await page.locator(`${WORKED} input.vec-input`).first().fill('2');
      await until(async () => byRole(await readNumbers(page, WORKED), 'score').map((s) => s.value).join() === '6,-5,0', 'the new scores');
      await expectAllLogged(page, WORKED);
    } else {
      expect(byRole(await readNumbers(page, tag), 'weight').length + (await readNumbers(page, tag)).length).toBeGreaterThan(0);
    }
    await expectClean(opened);
    await opened.context.close();
  });
});
