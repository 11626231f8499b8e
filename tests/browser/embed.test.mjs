// The one-widget page (embed.html) and the Embed control of the toolbar:
// the worked example by w= and by ch= against the articles' numbers; the
// page in a sandboxed iframe on another origin reports its height, the host
// sizes the frame and no inner scrollbar is left; the control's two
// snippets, pasted into fresh host pages, show the same state; hostile
// addresses fall back to a default with a note and inject nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import {
  expectClean,
  expectHostClean,
  openChapter,
  openPage,
  openUrl,
  overflow,
  ROOT,
  screenshot,
  startEnv,
  startHostServer,
  waitReady,
} from './helpers.mjs';
import { byRole, expectAllLogged, readNumbers } from './shown-numbers.mjs';

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
  byRole(numbers, 'weight').forEach((w, j) =>
    expect(Math.abs(w.value - weights.expected[j])).toBeLessThanOrEqual(weights.tolerance),
  );
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
        if (el.localName === 'img' || el.localName === 'script' || el.localName === 'iframe')
          found.push(`${el.localName} ${el.getAttribute('src') ?? ''}`);
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
    const withState = await openPage(
      env,
      `embed.html?w=ag-two-definitions&s=${encodeURIComponent('v=1&a=3,4&b=4,3')}&agtest=1`,
    );
    await waitReady(withState.page, 'ag-two-definitions');
    const dots = await withState.page
      .locator('ag-two-definitions')
      .evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-role="dot"]')].map((n) => Number(n.dataset.value)));
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
      const frame = await until(
        () => page.frames().find((f) => f.url().startsWith(src.split('?')[0])),
        'the embed frame',
      );
      await waitReady(frame, WORKED);
      expectArticleNumbers(await readNumbers(frame, WORKED));

      const settled = async () => {
        const inner = await frame.evaluate(() => ({
          height: Math.ceil(document.documentElement.getBoundingClientRect().height),
          scrollHeight: document.documentElement.scrollHeight,
          clientHeight: document.documentElement.clientHeight,
        }));
        const outer = await page.evaluate(() => ({
          frame: document.querySelector('iframe').getBoundingClientRect().height,
          messages: window.__messages,
        }));
        const last = outer.messages.filter((m) => m && m.type === 'attention-geometry:resize').at(-1);
        return last && last.height === inner.height && Math.abs(outer.frame - inner.height) <= 2
          ? { inner, outer, last }
          : null;
      };
      const first = await until(settled, 'the frame to take its content\u2019s height');
      expect(first.last).toEqual({
        type: 'attention-geometry:resize',
        height: first.inner.height,
        widget: WORKED,
        chapter: null,
        id: 'fig-1',
      });
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
    expect(iframeCode).toContain(
      `src="${embedUrl}?w=${tag}&amp;s=${encodeURIComponent('v=1&a=1,2&b=-2.5,1.5').replace(/&/g, '&amp;')}"`,
    );
    expect(iframeCode).toMatch(
      /title="Attention Geometry: [^"]+" width="100%" height="\d+" style="border:0" loading="lazy" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-downloads" allow="clipboard-write"><\/iframe>$/,
    );
    expect(elementCode).toBe(
      `<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script>\n<${tag} state="v=1&amp;a=1,2&amp;b=-2.5,1.5"></${tag}>`,
    );

    // Copy: the clipboard gets the snippet, the live region says so.
    await widget.locator('.embed-copy').first().click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(iframeCode);
    expect(await widget.locator('.embed-status').textContent()).toMatch(/copied/);
    // A page that refuses the clipboard: the text is selected and the keys are named.
    await page.evaluate(() =>
      Object.defineProperty(navigator.clipboard, 'writeText', { value: () => Promise.reject(new Error('blocked')) }),
    );
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

    const wrap = (body) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pasted</title></head><body><h1>Pasted</h1>\n${body}\n</body></html>`;
    pages['/pasted-iframe.html'] = { body: wrap(iframeCode) };
    pages['/pasted-element.html'] = { body: wrap(elementCode) };
    pages['/pasted-chapter.html'] = { body: wrap(chapterCode) };

    const viaFrame = await openUrl(env, `${host.url}pasted-iframe.html`);
    const frame = await until(
      () => viaFrame.page.frames().find((f) => f.url().includes('embed.html')),
      'the pasted frame',
    );
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
    const chapterFrame = await until(
      () => viaChapter.page.frames().find((f) => f.url().includes('embed.html')),
      'the pasted chapter frame',
    );
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
    {
      what: 'a negative number of heads',
      query: `w=ag-multi-head&s=${enc('v=1&heads=-3')}`,
      tag: 'ag-multi-head',
      note: 'widget',
    },
    {
      what: 'sizes of 10^9',
      query: `w=ag-multi-head&s=${enc('v=1&dmodel=1000000000&heads=1000000000')}`,
      tag: 'ag-multi-head',
      note: 'widget',
    },
    { what: 'values of 10^9', query: `w=${WORKED}&s=${enc('v=1&q=1e9,1e9,1e9,1e9')}`, tag: WORKED, note: 'widget' },
    { what: 'NaN', query: `w=${WORKED}&s=${enc('v=1&q=NaN,1,2,3&k=NaN')}`, tag: WORKED, note: 'widget' },
    {
      what: 'a script in the state',
      query: `w=${WORKED}&s=${enc('v=1&q=<script>alert(1)</script>&step=<img src=x onerror=alert(2)>')}`,
      tag: WORKED,
      note: 'widget',
    },
    {
      what: 'an over-long state',
      query: `w=${WORKED}&s=${enc(`v=1&q=${'1,'.repeat(30000)}1`)}`,
      tag: WORKED,
      note: 'widget',
    },
    {
      what: 'an unknown chapter',
      query: `ch=${enc('nope"><img src=x>')}&s=${enc('v=1&a=1,2')}`,
      tag: WORKED,
      note: 'page',
    },
    { what: 'no widget named', query: '', tag: WORKED, note: 'page' },
    { what: 'markup as the id', query: `w=${WORKED}&id=${enc('<img src=x>')}`, tag: WORKED, note: 'page' },
  ];
  test.each(HOSTILE)(
    'hostile address ($what): a default with a note, nothing injected, still usable',
    async ({ query, tag, note }) => {
      const opened = await openPage(env, `embed.html?${query}${query ? '&' : ''}agtest=1`, { width: 375 });
      const { page } = opened;
      await waitReady(page, tag);
      expect(
        await page
          .locator('#embed')
          .evaluate((main) => [...main.querySelectorAll('[data-status]')].map((el) => el.localName)),
      ).toEqual([tag]);
      expect(await injectedNodes(page)).toEqual(['script embed.js']);
      const state = await page
        .locator(tag)
        .evaluate((el) => ({ state: el.state, fresh: document.createElement(el.localName).state }));
      expect(state.state).toEqual(state.fresh);
      const noteText =
        note === 'page'
          ? await page.locator('#embed-note').textContent()
          : await page.locator(`${tag} .note`).textContent();
      expect(noteText).toMatch(/could not be used/);
      expect(await page.locator(note === 'page' ? '#embed-note' : `${tag} .note`).isVisible()).toBe(true);
      if (tag === WORKED) {
        // Still usable: a new q computes new scores (q = (2, 2, 0, 1): 6, -5, 0).
        await page.locator(`${WORKED} input.vec-input`).first().fill('2');
        await until(
          async () =>
            byRole(await readNumbers(page, WORKED), 'score')
              .map((s) => s.value)
              .join() === '6,-5,0',
          'the new scores',
        );
        await expectAllLogged(page, WORKED);
      } else {
        expect(
          byRole(await readNumbers(page, tag), 'weight').length + (await readNumbers(page, tag)).length,
        ).toBeGreaterThan(0);
      }
      await expectClean(opened);
      await opened.context.close();
    },
  );
});

/** The text of a widget's note (in its shadow root). */
const noteOf = (locator) =>
  locator.evaluate((el) =>
    el.shadowRoot.querySelector('.note').hidden ? '' : el.shadowRoot.querySelector('.note').textContent,
  );

describe('states that do not fit together, names that are not fields, attributes', () => {
  test('h = 5 with d_model = 12 by s=: the widget computes with h = 3 and the note names heads=5', async () => {
    const opened = await openPage(
      env,
      `embed.html?w=ag-multi-head&s=${encodeURIComponent('v=1&heads=5&dmodel=12')}&agtest=1`,
    );
    const { page } = opened;
    const widget = page.locator('ag-multi-head');
    await waitReady(page, 'ag-multi-head');
    expect(await widget.evaluate((el) => el.stateText)).toMatch(/&dmodel=12&heads=3&/);
    expect(await noteOf(widget)).toMatch(/heads=5 \u2014 expected a number of heads that divides d_model = 12/);
    expect(await widget.locator('input[name="heads"]:checked').getAttribute('value')).toBe('3');
    expect(await widget.locator('.computed-by').textContent()).toMatch(/Computed in WebAssembly/);
    await expectClean(opened);
    await opened.context.close();
  });

  test('attributes: every problem listed, in attribute wording; `state` first, then field attributes, in any order; unknown names reported', async () => {
    pages['/attributes.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Attributes</title>
<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script></head><body>
<ag-multi-head id="m1" heads="99" head="77" query="55"></ag-multi-head>
<ag-multi-head id="m2" heads="5"></ag-multi-head>
<ag-two-definitions id="t1" a="9,9" state="v=1&amp;b=1,1"></ag-two-definitions>
<ag-two-definitions id="t2" a="1,1" state="v=1&amp;b=2,2"></ag-two-definitions>
<ag-two-definitions id="t3" state="v=1&amp;b=2,2" a="1,1"></ag-two-definitions>
<ag-worked-example id="w1" state="v=1&amp;a=3,4&amp;__proto__=1&amp;k=1,0,0,0;0,1,0,0;0,0,1,0&amp;k=0,0,0,0;0,0,0,0;0,0,0,0"></ag-worked-example>
</body></html>`,
    };
    const opened = await openUrl(env, `${host.url}attributes.html`);
    const { page } = opened;
    await page.waitForFunction(() => customElements.get('ag-multi-head') && customElements.get('ag-worked-example'));
    const m1 = await noteOf(page.locator('#m1'));
    expect(m1).toMatch(/^Part of an attribute could not be used\./);
    for (const part of ['heads=99', 'head=77', 'query=55']) expect(m1).toContain(part);
    expect(await noteOf(page.locator('#m2'))).toMatch(
      /heads=5 \u2014 expected a number of heads that divides d_model = 12/,
    );
    expect(await page.locator('#m2').evaluate((el) => el.state.heads)).toBe(3);
    const t1 = await noteOf(page.locator('#t1'));
    expect(t1).toMatch(/^Part of an attribute could not be used\./);
    expect(t1).toContain('a=9,9');
    expect(await page.locator('#t1').evaluate((el) => el.state)).toEqual({ a: [3, 4], b: [1, 1] });
    const t2 = await page.locator('#t2').evaluate((el) => el.state);
    expect(t2).toEqual({ a: [1, 1], b: [2, 2] });
    expect(await page.locator('#t3').evaluate((el) => el.state)).toEqual(t2);
    const w1 = await noteOf(page.locator('#w1'));
    expect(w1).toMatch(/a=3,4 \u2014 expected no such name: it is not a field of this widget; its fields are /);
    expect(w1).toContain('__proto__=1');
    expect(w1).toMatch(/k=0,0,0,0;[^\u2014]*\u2014 expected one k= only/);
    // The note is still there once the widget has started (drawn from the stored problems, same wording).
    await waitReady(page, '#m2');
    expect(await noteOf(page.locator('#m2'))).toMatch(/^Part of an attribute could not be used\./);
    // A change made in the widget clears it.
    await page.locator('#m2 input[name="heads"][value="2"]').check();
    expect(await noteOf(page.locator('#m2'))).toBe('');
    await expectHostClean(opened);
    await opened.context.close();
  });

  test('attributes changed later: `state` set after a field attribute does not override it; a replaced or removed bad attribute leaves the note; a removed field attribute gives the `state` value or the default', async () => {
    pages['/attributes-later.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Attributes set later</title>
<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script></head><body>
<ag-two-definitions id="late" a="1,1"></ag-two-definitions>
<ag-two-definitions id="bad" a="nine" b="x"></ag-two-definitions>
<ag-two-definitions id="gone" state="v=1&amp;a=5,5&amp;b=2,2" a="1,1"></ag-two-definitions>
<ag-two-definitions id="plain" a="1,1" b="2,2"></ag-two-definitions>
</body></html>`,
    };
    const opened = await openUrl(env, `${host.url}attributes-later.html`);
    const { page } = opened;
    await page.waitForFunction(() => customElements.get('ag-two-definitions'));
    const state = (id) => page.locator(id).evaluate((el) => el.state);

    // The state attribute set after a field attribute: the field attribute still wins for its field.
    await page.locator('#late').evaluate((el) => el.setAttribute('state', 'v=1&a=5,5&b=2,2'));
    expect(await state('#late')).toEqual({ a: [1, 1], b: [2, 2] });
    await page.locator('#late').evaluate((el) => el.setAttribute('state', 'v=1&a=6,6&b=-2,-2'));
    expect(await state('#late')).toEqual({ a: [1, 1], b: [-2, -2] });

    // Two rejected attributes: replacing one with a good value drops its entry, removing the other empties the note.
    const bad = await noteOf(page.locator('#bad'));
    expect(bad).toContain('a=nine');
    expect(bad).toContain('b=x');
    await page.locator('#bad').evaluate((el) => el.setAttribute('a', '2,2'));
    const replaced = await noteOf(page.locator('#bad'));
    expect(replaced).not.toContain('a=nine');
    expect(replaced).toContain('b=x');
    expect(await state('#bad')).toEqual({ a: [2, 2], b: [4, 3] });
    await page.locator('#bad').evaluate((el) => el.removeAttribute('b'));
    expect(await noteOf(page.locator('#bad'))).toBe('');
    expect(await state('#bad')).toEqual({ a: [2, 2], b: [4, 3] });

    // Removing a field attribute: the state attribute's value, then (state removed too) the default.
    expect(await state('#gone')).toEqual({ a: [1, 1], b: [2, 2] });
    await page.locator('#gone').evaluate((el) => el.removeAttribute('a'));
    expect(await state('#gone')).toEqual({ a: [5, 5], b: [2, 2] });
    await page.locator('#gone').evaluate((el) => el.removeAttribute('state'));
    expect(await state('#gone')).toEqual({ a: [3, 4], b: [4, 3] });
    // Without a state attribute: the default, the other attribute kept.
    await page.locator('#plain').evaluate((el) => el.removeAttribute('a'));
    expect(await state('#plain')).toEqual({ a: [3, 4], b: [2, 2] });
    await expectHostClean(opened);
    await opened.context.close();
  });

  test('sizes and indices that must agree: head past h, query past the last word, weights not one per value; each reset to its default with a note', async () => {
    pages['/cross-field.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cross-field attributes</title>
<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script></head><body>
<ag-multi-head id="head" heads="2" head="5"></ag-multi-head>
<ag-multi-head id="mq" query="6"></ag-multi-head>
<ag-content-to-weights id="cq" query="6"></ag-content-to-weights>
<ag-weights-explain id="eq"></ag-weights-explain>
<ag-value-mix id="v3" values="1,1;2,2;3,3" alpha="0.5,0.5"></ag-value-mix>
<ag-value-mix id="v4" values="1,1;2,2;3,3;4,4" alpha="0.5,0.5"></ag-value-mix>
<ag-convex-hull id="h3" values="1,1;2,2;3,3" alpha="0.5,0.5"></ag-convex-hull>
</body></html>`,
    };
    const opened = await openUrl(env, `${host.url}cross-field.html`);
    const { page } = opened;
    await page.waitForFunction(() =>
      ['ag-multi-head', 'ag-content-to-weights', 'ag-weights-explain', 'ag-value-mix', 'ag-convex-hull'].every((t) =>
        customElements.get(t),
      ),
    );
    const state = (id) => page.locator(id).evaluate((el) => el.state);

    expect(await noteOf(page.locator('#head'))).toMatch(/head=5 \u2014 expected a head from 1 to h = 2/);
    expect(await state('#head')).toMatchObject({ heads: 2, head: 1 });
    // The default sentences: five words in multi-head and content-to-weights.
    expect(await noteOf(page.locator('#mq'))).toMatch(/query=6 \u2014 expected a word of the sentence, from 1 to 5/);
    expect((await state('#mq')).query).toBe(4);
    expect(await noteOf(page.locator('#cq'))).toMatch(/query=6 \u2014 expected a word of the sentence, from 1 to 5/);
    expect((await state('#cq')).query).toBe(2);
    // The explain widget's default sentence has six words: five words given, then query 6.
    const explained = await page.locator('#eq').evaluate((el) => {
      const words = el.state.words.slice(0, 5);
      el.setAttribute('words', words.join(','));
      el.setAttribute('query', '6');
      return { words, state: el.state };
    });
    expect(explained.state.words).toEqual(explained.words);
    expect(explained.state.query).toBe(4);
    expect(await noteOf(page.locator('#eq'))).toMatch(/query=6 \u2014 expected a word of the sentence, from 1 to 5/);

    // Two weights for three values: the weights go back to their default, the values stay.
    expect(await noteOf(page.locator('#v3'))).toMatch(/alpha=0\.5,0\.5 \u2014 expected 3 weights, one per value/);
    expect(await state('#v3')).toEqual({
      values: [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
      alpha: [0.5, 0.3, 0.2],
    });
    expect(await noteOf(page.locator('#h3'))).toMatch(/alpha=0\.5,0\.5 \u2014 expected 3 weights, one per value/);
    expect(await state('#h3')).toEqual({
      values: [
        [1, 1],
        [2, 2],
        [3, 3],
      ],
      alpha: [0.2, 0.3, 0.5],
    });
    // Four values: the default weights (three) do not fit either, so the values go back too, and both are named.
    const v4 = await noteOf(page.locator('#v4'));
    expect(v4).toMatch(/alpha=0\.5,0\.5 \u2014 expected 4 weights, one per value/);
    expect(v4).toContain('values=1,1;2,2;3,3;4,4');
    expect((await state('#v4')).alpha).toEqual([0.5, 0.3, 0.2]);
    expect((await state('#v4')).values).toHaveLength(3);
    await expectHostClean(opened);
    await opened.context.close();
  });

  test('orthogonality with every vector zero: nothing drawn from undefined numbers, no console error; angles "not defined"', async () => {
    const s = 'v=1&q=0,0&k1=0,0&k2=0,0&k3=0,0';
    const opened = await openPage(env, `embed.html?w=ag-orthogonality&s=${encodeURIComponent(s)}&agtest=1`);
    const { page } = opened;
    await waitReady(page, 'ag-orthogonality');
    const widget = page.locator('ag-orthogonality');
    expect(await widget.evaluate((el) => el.stateText)).toBe(s);
    const cosines = await widget.evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('[data-role="cosine"]')].map((c) => c.textContent),
    );
    expect(cosines).toEqual(['not defined', 'not defined', 'not defined']);
    const paths = await widget.evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('svg path, svg line')].map(
        (n) => `${n.getAttribute('d') ?? ''} ${n.getAttribute('x2') ?? ''}`,
      ),
    );
    for (const text of paths) expect(text).not.toMatch(/undefined|NaN/);
    await expectClean(opened);
    await opened.context.close();
  });

  test('embed.html: s= of another widget, and a repeated w= or s=, are reported', async () => {
    const opened = await openPage(
      env,
      `embed.html?w=${WORKED}&w=ag-two-definitions&s=${encodeURIComponent('v=1&a=3,4')}&s=x&agtest=1`,
    );
    const { page } = opened;
    await waitReady(page, WORKED);
    const pageNote = await page.locator('#embed-note').textContent();
    expect(pageNote).toMatch(/w=ag-two-definitions \u2014 expected one w= only/);
    expect(pageNote).toMatch(/s=x \u2014 expected one s= only/);
    expect(await noteOf(page.locator(WORKED))).toMatch(/a=3,4 \u2014 expected no such name/);
    await expectClean(opened);
    await opened.context.close();
  });

  test('a widget whose inputs cannot be computed says so: status "stale", never left "loading"', async () => {
    const opened = await openPage(env, `embed.html?w=ag-simd&agtest=1`);
    const { page } = opened;
    await waitReady(page, 'ag-simd');
    // setState checks fields one by one only; two lengths reach render(), which refuses them.
    await page.locator('ag-simd').evaluate((el) => el.setState({ a: [1, 2, 3], b: [1, 2] }));
    await page.waitForSelector('ag-simd[data-status="stale"]');
    expect(await page.locator('ag-simd .computed-by').textContent()).toMatch(/could not be computed/);
    // The state property is checked as a whole: the lengths are made to fit again.
    await page.locator('ag-simd').evaluate((el) => {
      el.state = { a: [1, 2, 3], b: [1, 2] };
    });
    await waitReady(page, 'ag-simd');
    expect(await noteOf(page.locator('ag-simd'))).toMatch(/b=1,2 \u2014 expected as many numbers as a/);
    await expectClean(opened);
    await opened.context.close();
  });
});

describe('the Embed control: heights, sandbox, pages that turn it off', () => {
  test('the iframe snippet\u2019s height is the widget\u2019s (panel closed) plus a small margin, and the chapter\u2019s when the frame shows the chapter', async () => {
    const tag = 'ag-two-definitions';
    const width = 900;
    const opened = await openChapter(env, 'dot-product', tag, { width });
    const widget = opened.page.locator(tag);
    const widgetWidth = await widget.evaluate((el) => Math.round(el.getBoundingClientRect().width));
    await widget.locator('details.embed summary').click();
    // The panel fills its snippets on the details element's toggle event, a task after the click.
    const snippet = widget.locator('textarea[data-snippet="iframe"]');
    for (let i = 0; i < 100 && !/height="\d+"/.test(await snippet.inputValue()); i++)
      await opened.page.waitForTimeout(50);
    const heightIn = async () =>
      Number((await widget.locator('textarea[data-snippet="iframe"]').inputValue()).match(/height="(\d+)"/)[1]);
    const widgetSnippet = await heightIn();
    await widget.locator('input[type="radio"][value="chapter"]').check();
    const chapterSnippet = await heightIn();
    await expectClean(opened);
    await opened.context.close();

    // What embed.html reports at the widget's width.
    const reported = async (query) => {
      const src = new URL(`embed.html?${query}&agtest=1`, env.server.url).href;
      const name = `/measure-${query.replace(/\W/g, '')}.html`;
      pages[name] = {
        body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title><style>body{margin:0}</style></head><body>
<iframe src="${src}" title="t" width="${widgetWidth}" height="150" style="border:0"></iframe>
<script>window.__h = []; addEventListener('message', function (e) { if (e.data && e.data.type === 'attention-geometry:resize') window.__h.push(e.data.height); });</script></body></html>`,
      };
      const host2 = await openUrl(env, `${host.url}${name.slice(1)}`, { width: widgetWidth + 40 });
      const frame = await until(() => host2.page.frames().find((f) => f.url().includes('embed.html')), 'the frame');
      await waitReady(frame, tag);
      const h = await until(async () => {
        const inner = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
        const last = (await host2.page.evaluate(() => window.__h)).at(-1);
        return last === inner ? last : null;
      }, 'a height message');
      await host2.context.close();
      return h;
    };
    const widgetReported = await reported(`w=${tag}`);
    expect(widgetSnippet).toBeGreaterThanOrEqual(widgetReported);
    expect(widgetSnippet - widgetReported).toBeLessThanOrEqual(60);
    const chapterReported = await reported('ch=dot-product');
    expect(chapterSnippet).toBeGreaterThanOrEqual(chapterReported - 20);
    expect(chapterSnippet - chapterReported).toBeLessThanOrEqual(80);
  });

  test('embed.html in a frame without allow-popups: "Open the full page" shows the address; Copy falls back without touching the blocked clipboard', async () => {
    const src = new URL(`embed.html?w=${WORKED}&agtest=1`, env.server.url).href;
    pages['/minimal-sandbox.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body>
<iframe src="${src}" title="t" width="100%" height="900" style="border:0" sandbox="allow-scripts allow-same-origin"></iframe></body></html>`,
    };
    const opened = await openUrl(env, `${host.url}minimal-sandbox.html`);
    const frame = await until(() => opened.page.frames().find((f) => f.url().includes('embed.html')), 'the frame');
    await waitReady(frame, WORKED);
    await frame.locator('#embed-open').click();
    await frame.locator('[data-role="full-page-address"]').waitFor();
    const address = await frame.locator('[data-role="full-page-address"]').textContent();
    expect(new URL(address).pathname).toMatch(/\/index\.html$/);
    expect(new URL(address).searchParams.get('ch')).toBe('worked-example');
    expect(opened.context.pages()).toHaveLength(1);
    // Copy: no clipboard-write here; the snippet is selected instead, and nothing is logged as an error.
    const widget = frame.locator(WORKED);
    await widget.locator('details.embed summary').click();
    await widget.locator('.embed-copy').first().click();
    expect(await widget.locator('.embed-status').textContent()).toMatch(/Ctrl\+C/);
    // The blocked popup itself is reported by the browser; nothing else may be.
    expect(opened.problems.errors.filter((e) => !/sandboxed|allow-popups/i.test(e))).toEqual([]);
    await opened.context.close();
  });

  test('in a frame sandboxed without allow-same-origin, the kernel lab says the frame needs it (its worker cannot start)', async () => {
    const src = new URL('embed.html?w=ag-simd&agtest=1', env.server.url).href;
    pages['/no-same-origin.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body>
<iframe src="${src}" title="t" width="100%" height="1200" style="border:0" sandbox="allow-scripts"></iframe></body></html>`,
    };
    const opened = await openUrl(env, `${host.url}no-same-origin.html`);
    const frame = await until(() => opened.page.frames().find((f) => f.url().includes('embed.html')), 'the frame');
    await waitReady(frame, 'ag-simd');
    await frame.locator('ag-simd [data-action="run"]').click();
    await frame.waitForSelector('ag-simd[data-lab="error"]');
    expect(await frame.locator('ag-simd .lab-status').textContent()).toMatch(
      /^The timing could not run: the experiment worker could not start .*add allow-same-origin to the frame\u2019s sandbox attribute/,
    );
    // The page stays usable: the stepper still answers.
    await frame.locator('ag-simd button.next').click();
    expect(await frame.locator('ag-simd .step-text').textContent()).toMatch(/^Step 2 of/);
    await opened.context.close();
  });

  test('a page with <meta name="attention-geometry-embed" content="off"> shows a short text instead of snippets', async () => {
    pages['/embed-off.html'] = {
      body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Off</title><meta name="attention-geometry-embed" content="off">
<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script></head><body>
<ag-worked-example></ag-worked-example></body></html>`,
    };
    const opened = await openUrl(env, `${host.url}embed-off.html`);
    await waitReady(opened.page, WORKED);
    const widget = opened.page.locator(WORKED);
    await widget.locator('details.embed summary').click();
    expect(await widget.locator('[data-role="embed-unavailable"]').textContent()).toMatch(/turned off on this page/);
    expect(await widget.locator('textarea').count()).toBe(0);
    await expectHostClean(opened);
    await opened.context.close();
  });

  test('the npm package\'s copy of embed.html (no full page beside it) hides "Open the full page"', async () => {
    const page = readFileSync(join(ROOT, 'dist/widgets/embed.html'), 'utf8');
    expect(page).toContain('<meta name="attention-geometry-full-page" content="off">');
    writeFileSync(join(env.site, 'embed-package.html'), page);
    const opened = await openPage(env, 'embed-package.html?w=ag-worked-example&agtest=1');
    await waitReady(opened.page, WORKED);
    expect(await opened.page.locator('#embed-open').isVisible()).toBe(false);
    await expectClean(opened);
    await opened.context.close();
  });
});
