// The page shell: the tour (table of contents, anchors, numbers, the reading bar, previous/next links, the address
// naming the chapter in view), links old and hostile, the wasm-load error state, a widget's stylesheet or the
// experiment worker that does not load, and the wrong-MIME fallback.
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import {
  alertsNaming,
  countOnPage,
  expectClean,
  expectParams,
  frames,
  gone,
  noteOf,
  overflow,
  pressKeys,
  rowsOf,
  settledUrl,
  stateOf,
  until,
  useEnv,
  usePage,
  waitReady,
  withPage,
} from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, one, readNumbers } from './shown-numbers.mjs';

const env = useEnv();
/** withPage on the page in test mode (`path` after ?agtest=1). */
const withTour = (path, options, fn) => withPage(env, `?agtest=1${path}`, options, fn);
/** Where the site's widgets find their files: beside its page, which holds no dist/widgets/ and no docs/. */
const SITE_ADVICE =
  'the folder this page came from: serve that folder as it is, with its styles/, wasm/ and vendor/ beside the page.';
/** The message `text` names the URL `url` that 404'd and where the widgets' files must be: the site's folder. */
function expectNamesFailure(text, url) {
  expect(text).toContain(`For ${url} the server answered HTTP 404.`);
  // `url` is in wasm/ or styles/ of the site's folder.
  expect(text).toContain(
    `from the folder of the module that defines them, here ${new URL('../', url).href}, ${SITE_ADVICE}`,
  );
  expect(text).not.toMatch(/dist\/widgets\/|docs\/package\.md/);
}

/** The message `box` has the background, the solid top border's colour and width of `look`. */
const expectLook = async (box, [backgroundColor, borderTopColor, borderTopWidth]) =>
  expect(
    await box.evaluate((el) => {
      const style = getComputedStyle(el);
      return [style.backgroundColor, style.borderTopColor, style.borderTopStyle, style.borderTopWidth];
    }),
  ).toEqual([backgroundColor, borderTopColor, 'solid', borderTopWidth]);

// A link made by the first page (state version 0, before chapters existed): it must keep opening the worked example.
const OLD_LINK = '?q=0.5,-1,2,0.25&k=2,0.125,-3,1;-0.5,4,1.5,-2;7,7,-7,7&scale=sqrt-dk';

describe('the page shell', () => {
  test.each(['#ch-projection', '&ch=projection&v=1&a=1,2#ch-projection'])(
    'a link to a chapter (%s) puts the focus on it, with no ring (no key put it there): the first Tab stays in that chapter',
    async (link) => {
      await withTour(link, { tag: 'ag-projection' }, async ({ page }) => {
        const focus = await page.evaluate(() => {
          const el = document.activeElement;
          return { id: el?.id, outline: el && getComputedStyle(el).outlineStyle };
        });
        expect(focus).toEqual({ id: 'ch-projection', outline: 'none' });
        await page.keyboard.press('Tab');
        const after = await page.evaluate(() => {
          const box = document.getElementById('ch-projection').getBoundingClientRect();
          const onScreen = box.top < window.innerHeight && box.bottom > 0; // not back at the top of the page
          return { section: document.activeElement?.closest('section')?.id ?? null, onScreen };
        });
        expect(after).toEqual({ section: 'ch-projection', onScreen: true });
      });
    },
  );

  test('an old link (version 0: ?q=&k=&scale=) still opens the worked example with its values, migrated', async () => {
    await withTour(`&${OLD_LINK.slice(1)}`, { tag: 'ag-worked-example' }, async ({ page }) => {
      const state = await stateOf(page, 'ag-worked-example');
      const q = [0.5, -1, 2, 0.25];
      const k = rowsOf('2,0.125,-3,1;-0.5,4,1.5,-2;7,7,-7,7');
      expect(state).toMatchObject({ q, k, scaled: true, step: 'output' });
      // float64 reference of the scaled scores q.k_j / 2.
      const ref = state.k.map((row) => row.reduce((sum, x, i) => sum + x * q[i], 0) / 2);
      byRole(await readNumbers(page, 'ag-worked-example'), 'scaled-score').forEach((x, j) =>
        expectClose(x.value, ref[j], 1e-5, `scaled score ${j + 1}`),
      );
      await expectAllLogged(page, 'ag-worked-example');
      await expect(page.locator('ag-worked-example .note').isHidden()).resolves.toBe(true);
      await expect(page.locator('#url-note').isHidden()).resolves.toBe(true); // scale= is version 0's
      // The shell rewrites the link in the current format.
      const params = await expectParams(page, 'worked-example', { scaled: '1' });
      expect(params.get('scale')).toBeNull();
      expect((await settledUrl(page)).hash).toBe('#ch-worked-example');
    });
  });

  test('hostile link values (markup, script, NaN, huge sizes) and names no chapter reads are ignored with a visible text note; defaults shown; no freeze', async () => {
    const a = encodeURIComponent('<img src=x onerror=alert(1)>');
    const impl = encodeURIComponent('<script>alert(2)</script>');
    const link = `&ch=dot-product&v=1&a=${a}&b=NaN,3&impl=${impl}&zz=1#ch-dot-product`;
    await withTour(link, { tag: 'ag-two-definitions' }, async ({ page }) => {
      const note = page.locator('ag-two-definitions .note');
      await expect(note.isVisible()).resolves.toBe(true);
      const text = await note.textContent();
      for (const part of ['a=<img src=x onerror=alert(1)>', 'b=NaN,3']) expect(text).toContain(part);
      const urlNote = await page.locator('#url-note').textContent();
      expect(urlNote).toContain('impl=<script>alert(2)</script>');
      expect(urlNote).toContain('zz=1 \u2014 expected a setting of chapter dot-product: a, b.');
      expect(await page.locator('img, script:not([src])').count()).toBe(0);
      expect(await stateOf(page, 'ag-two-definitions')).toEqual({ a: [3, 4], b: [4, 3] });
      expect(one(await readNumbers(page, 'ag-two-definitions'), 'dot').text).toBe('24');
    });
    // A huge list (6 kB: over the 4 kB a value may have) and an unknown version: refused
    // before parsing (a freeze would end the test at its time limit).
    const huge = Array.from({ length: 3000 }, () => '1').join(',');
    const big = `&ch=worked-example&v=99&q=${huge}&k=1;2;3;4;5;6;7;8#ch-worked-example`;
    await withTour(big, { width: 320, tag: 'ag-worked-example' }, async ({ page }) => {
      const bigNote = await page.locator('ag-worked-example .note').textContent();
      for (const part of ['v=99', 'q=1,1,1', 'k=1;2;3']) expect(bigNote).toContain(part);
      expect((await stateOf(page, 'ag-worked-example')).q).toEqual([1, 2, 0, 1]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
    });
  });

  test('a parameter no chapter reads is named once, when the link opens, and left out of the next address', async () => {
    await withTour('&ch=softmax&zz=1&utm_source=x#ch-softmax', { tag: 'ag-softmax' }, async ({ page }) => {
      const urlNote = await page.locator('#url-note').textContent();
      for (const part of ['zz=1', 'utm_source=x']) expect(urlNote).toContain(part);
      // Another chapter from the contents: the address the shell writes names it and its state only.
      await page.locator('#toc a[href="#ch-kv-cache"]').click();
      await waitReady(page, 'ag-kv-cache');
      await page.waitForFunction(() => new URLSearchParams(window.location.search).get('ch') === 'kv-cache');
      const { search, hash } = await settledUrl(page);
      const params = new URLSearchParams(search);
      expect([params.get('zz'), params.get('utm_source'), params.get('agtest')]).toEqual([null, null, '1']);
      expect(hash).toBe('#ch-kv-cache');
      // The copied link opens with no note.
      await withPage(env, `${search}${hash}`, { tag: 'ag-kv-cache' }, async (copy) => {
        await expect(copy.page.locator('#url-note').isHidden()).resolves.toBe(true);
      });
    });
  });

  test('shows a helpful error when the wasm cannot load, and no made-up numbers', async () => {
    const setup = (p) => p.route('**/*.wasm', gone);
    await withTour('#ch-dot-product', { waitFor: 'error', setup, clean: false }, async ({ page, problems }) => {
      const panel = page.locator('#load-error');
      await expect(panel.isVisible()).resolves.toBe(true);
      const wasm = new URL('wasm/ag-simd.wasm', page.url()).href;
      // The page's panel: the file that could not be fetched, HTTP 404 and the site's folder; not the advice of a
      // page opened from disk, nor init()'s options (a reader never calls init(); the site has no index.js).
      const panelText = await panel.textContent();
      expect(panelText).toContain('The WebAssembly module could not be fetched, so this page has no numbers.');
      expectNamesFailure(panelText, wasm);
      expect(panelText).not.toMatch(/init\(|locateFile|wasmUrl|wasmBinary|index\.js|web server|from disk/);
      await expect(panel.locator('[data-role=error-detail]').textContent()).resolves.toBe(wasm);
      await page.waitForSelector('ag-two-definitions[data-status="error"]');
      // The widget names the same file and gives the same advice.
      const widgetError = await page.locator('ag-two-definitions .error[data-failure=module]').textContent();
      expectNamesFailure(widgetError, wasm);
      expect(widgetError).toContain(await panel.locator('p').first().textContent());
      expect(widgetError).not.toMatch(/init\(|locateFile|wasmUrl|wasmBinary|index\.js|web server|from disk/);
      await expect(page.locator('ag-two-definitions [data-role=error-detail]').textContent()).resolves.toBe(wasm);
      expect(await readNumbers(page, 'ag-two-definitions')).toEqual([]);
      expect(problems.foreign).toEqual([]);
    });
  });

  test("names the page's own stylesheet that 404s at the top of the page, styled by base.css; the chapters compute", async () => {
    const setup = (p) => p.route('**/style.css', gone);
    await withTour(
      '#ch-dot-product',
      { tag: 'ag-two-definitions', setup, clean: false },
      async ({ page, problems }) => {
        const message = page.locator('body > .error[data-failure=page-styles]');
        await message.waitFor({ state: 'visible' });
        // The page's first element: the URL that failed, why, and where the site's files must be.
        expect(await page.evaluate(() => document.body.firstElementChild.dataset.failure)).toBe('page-styles');
        const sheet = new URL('style.css', page.url()).href;
        const text = await message.textContent();
        expect(text).toContain('A stylesheet of this page could not be loaded, so it is shown without its styles.');
        expectNamesFailure(text, sheet);
        await expect(message.locator('[data-role=error-detail]').textContent()).resolves.toBe(sheet);
        // Styled without style.css, by base.css: the error panel's colours of THEMING.md (--ag-error-bg #fde8e6,
        // --ag-error-border #b42318) and a 2 px border, where an unstyled div has none.
        await expectLook(message, ['rgb(253, 232, 230)', 'rgb(180, 35, 24)', '2px']);
        // The chapter works all the same: the articles' a = (3, 4), b = (4, 3) give a.b = 24.
        expect(one(await readNumbers(page, 'ag-two-definitions'), 'dot').text).toBe('24');
        await expect(page.locator('ag-two-definitions .error[data-failure=styles]').isHidden()).resolves.toBe(true);
        expect(problems.foreign).toEqual([]);
      },
    );
  });

  // One page for three failures of the server that leave the wasm module loading: a widget's stylesheet that 404s,
  // the .wasm sent with a wrong MIME type, and the experiment worker's script that 404s.
  describe('a stylesheet or a worker that 404s, a .wasm with a wrong MIME type', () => {
    const shared = usePage(env, '?agtest=1#ch-dot-product', {
      clean: false,
      setup: async (p) => {
        // widget.css: the sheet of every widget's frame; the message's own look (.error) is in base.css.
        await p.route('**/styles/widget.css', gone);
        await p.context().route('**/experiment-worker.js', gone);
        await p.route('**/*.wasm', async (route) => {
          const response = await route.fetch();
          await route.fulfill({
            response,
            headers: { ...response.headers(), 'content-type': 'application/octet-stream' },
          });
        });
      },
    });

    test("names a widget's stylesheet that 404s while the wasm loads once, at the top of the page, as it names a .wasm that 404s, and computes; each widget points to it; still computes when the server sends .wasm with a wrong MIME type", async () => {
      const { page, problems } = shared;
      await waitReady(page, 'ag-two-definitions');
      const message = page.locator('body > .error[data-failure=page-styles]');
      await message.waitFor({ state: 'visible' });
      // The URL that failed, why, and where the widgets' files must be, in the words of the .wasm's message.
      const text = await message.textContent();
      const sheet = new URL('styles/widget.css', page.url()).href;
      // The page itself is styled: the message speaks of its figures.
      expect(text).toContain(
        'A stylesheet of the figures on this page could not be loaded, so they are shown without its styles.',
      );
      expectNamesFailure(text, sheet);
      await expect(message.locator('[data-role=error-detail]').textContent()).resolves.toBe(sheet);
      // Every widget of the page (the tour's, started or not) meets the same 404: each has a one-line pointer, not
      // an alert, and the page has one message naming the file, with the advice once.
      const pointer = 'Some styles of this figure did not load: see the stylesheet message at the top of the page.';
      const pointers = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('#chapters *')]
            .filter((el) => el.localName.startsWith('ag-') && el.shadowRoot)
            .map((el) => el.shadowRoot.querySelector('[data-failure=styles]'))
            .map((n) => (n && !n.hidden ? `${n.className}|${n.getAttribute('role')}|${n.textContent}` : 'none')),
        );
      await until(async () => (await pointers()).every((p) => p !== 'none'), 'every widget pointing to the message');
      const all = await pointers();
      expect(all.length).toBeGreaterThan(30);
      expect(new Set(all)).toEqual(new Set([`styles-pointer|null|${pointer}`]));
      expect(await alertsNaming(page, sheet)).toEqual([text]);
      expect(await countOnPage(page, SITE_ADVICE)).toBe(1);
      // Styled by base.css's rules for it: the error panel's colours of THEMING.md (--ag-error-bg #fde8e6,
      // --ag-error-border #b42318) and a 2 px border, where an unstyled div has none.
      await expectLook(message, ['rgb(253, 232, 230)', 'rgb(180, 35, 24)', '2px']);
      // Only that sheet failed, and the module loaded: no module error, and the numbers are there.
      await expect(page.locator('ag-two-definitions .error[data-failure=module]').isHidden()).resolves.toBe(true);
      await expect(page.locator('ag-two-definitions').getAttribute('data-status')).resolves.toBe('ready');
      expect(one(await readNumbers(page, 'ag-two-definitions'), 'dot').text).toBe('24');
      expect(problems.foreign).toEqual([]);
    });

    test('a Part 4 chapter whose experiment-worker.js 404s: one message naming its URL and status, a short status line, no black grid', async () => {
      const { page, problems } = shared;
      const widget = page.locator('ag-learn-to-attend');
      await widget.scrollIntoViewIfNeeded();
      const worker = new URL('experiment-worker.js', page.url()).href;
      const expectOneMessage = async () => {
        const note = await until(() => noteOf(widget), 'the note of the worker that did not start');
        expect(note).toContain(
          `The training could not run: the experiment worker could not start. For ${worker} the server answered HTTP 404.`,
        );
        // The page's stylesheet message gives the folder advice (widget.css 404s too): the note points to it, the
        // advice is on the page once.
        expect(note).toContain(
          'Where the widgets\u2019 files must be: see the stylesheet message at the top of the page.',
        );
        expect((await widget.evaluate((el) => el.shadowRoot.textContent)).includes(SITE_ADVICE)).toBe(false);
        expect(await countOnPage(page, SITE_ADVICE)).toBe(1);
        // Styled without widget.css, by base.css's rules for it: the note colours of THEMING.md (--ag-note-bg
        // #fff4d6, --ag-note-border #d9a400) and a 1 px border, where an unstyled div has none.
        await expectLook(widget.locator('.note'), ['rgb(255, 244, 214)', 'rgb(217, 164, 0)', '1px']);
        const status = await widget.locator('.training .status').textContent();
        expect(status).toBe('Training stopped: the worker did not start; see the message above.');
        // The long text once in the widget: in the note only.
        expect((await widget.evaluate((el) => el.shadowRoot.textContent)).split('could not start').length).toBe(2);
      };
      await expectOneMessage();
      await widget.locator('button[data-action=train]').click();
      await until(async () => (await widget.getAttribute('data-train')) === 'error', 'the run stopped again');
      await expectOneMessage();
      // No model: the grid has no colour (not a black block) and no numbers; the numbers line, which a step leads,
      // is hidden: no line of the widget starts with a bare ":".
      const grid = await widget.evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('.grid-box .hm-rect')].map((r) => getComputedStyle(r).fill),
      );
      expect(grid.length).toBe(64);
      expect(new Set(grid)).toEqual(new Set(['none']));
      expect(await readNumbers(page, 'ag-learn-to-attend')).toEqual([]);
      expect(await widget.locator('.run-numbers').isHidden()).toBe(true);
      const lines = await widget.evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('p, li')].filter((n) => n.checkVisibility()).map((n) => n.innerText.trim()),
      );
      expect(lines.filter((t) => t.startsWith(':'))).toEqual([]);
      expect(problems.foreign).toEqual([]);
    });

    test('heads-learn, whose status line tells a worker that did not start: Train stops with its URL and status, pointing to the stylesheet message for the advice', async () => {
      const { page, problems } = shared;
      const widget = page.locator('ag-heads-learn');
      await widget.scrollIntoViewIfNeeded();
      await waitReady(page, 'ag-heads-learn');
      const worker = new URL('experiment-worker.js', page.url()).href;
      await widget.locator('button[data-action=train]').first().click();
      await until(async () => (await widget.getAttribute('data-train')) === 'error', 'the run stopped');
      const status = await widget.locator('.training .status').first().textContent();
      expect(status).toBe(
        `Training stopped: the experiment worker could not start. For ${worker} the server answered HTTP 404. ` +
          'Where the widgets\u2019 files must be: see the stylesheet message at the top of the page.',
      );
      expect(await countOnPage(page, SITE_ADVICE)).toBe(1);
      expect(problems.foreign).toEqual([]);
    });
  });
});

// ------------------------------------------------------------ the reading bar, the chapter links, the numbers

// From the tour's data: part 1's chapters are those without `part`.
const PART_1 = CHAPTERS.filter((c) => !c.part).length;
const NUMBER = Object.fromEntries(CHAPTERS.map((c, i) => [c.id, i + 1]));
const TITLE = Object.fromEntries(CHAPTERS.map((c) => [c.id, c.title]));

/** What the reading bar shows: its box, its text, the links marked current (in it and in the contents at the top). */
const bar = (page) =>
  page.evaluate(() => {
    const nav = document.querySelector('#reading-bar');
    const { top, bottom, height, width } = nav.getBoundingClientRect();
    const marked = (root) => [...root.querySelectorAll('a[aria-current]')].map((a) => a.getAttribute('href'));
    return {
      ...{ top, bottom, height, width },
      position: getComputedStyle(nav).position,
      where: nav.querySelector('.rb-where').textContent.replace(/\s+/g, ' ').trim(),
      current: marked(nav),
      toc: marked(document.querySelector('#toc')),
    };
  });

/** Waits until the bar marks the chapter `id` (null: none) as the one in view. */
const barMarks = (page, id) =>
  page.waitForFunction((ch) => {
    const a = document.querySelectorAll('#reading-bar a[aria-current]');
    return ch === null ? a.length === 0 : a.length === 1 && a[0].getAttribute('href') === `#ch-${ch}`;
  }, id);

/** Scrolls the chapter `id` to the top and waits until the bar marks it. */
async function scrollToChapter(page, id) {
  await page.locator(`#ch-${id}`).evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
  await barMarks(page, id);
}

/** The address once the shell has taken in a scroll (the chapter in view is looked at in the next frame). */
async function addressAfterScroll(page) {
  await frames(page, 2);
  return settledUrl(page);
}

/** Scrolls to the very end of the page at once (no chapter passes the reading line on the way). */
const scrollToEnd = (page) =>
  page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));

describe('reading the tour: the reading bar, previous/next links, numbers through both parts; the address', () => {
  // The tour's first test needs the page as it opens (nothing started); the tests after it use the same page.
  const shared = usePage(env, '?agtest=1');

  test('the tour: one stable anchor per chapter, lazy starts; numbered 1 to 35 through the four named parts alike in the contents, headings and bar; previous/next links under each chapter; the bar\u2019s dark colours and reduced motion', async () => {
    const { page } = shared;
    const hrefs = (selector) => page.$$eval(selector, (els) => els.map((a) => a.getAttribute('href')));
    const anchors = await hrefs('#toc li a');
    // One anchor per record of the tour (web/chapters.js), in its order; the concept check before and after it.
    expect(anchors).toEqual(CHAPTERS.map((c) => `#ch-${c.id}`));
    expect(await hrefs('#toc a')).toEqual(['#check-pre', ...anchors, '#check-post']);
    expect(anchors.length).toBe(16 + 9 + 6 + 4); // part 1 (with the cost of attention), part 2, part 3 (masks, rotary positions, shared keys, KV cache, online softmax, softcap), part 4 (learn to attend, the scale in training, what heads learn, your own task)
    for (const href of anchors) expect(await page.locator(href).count()).toBe(1);
    // Lazy start: the worked example (far below) has not started.
    expect(await page.locator('ag-worked-example').getAttribute('data-status')).toBeNull();

    const texts = (selector) => page.$$eval(selector, (els) => els.map((e) => e.textContent.trim()));
    const expected = CHAPTERS.map((c) => `${NUMBER[c.id]}. ${c.title}`);
    expect(NUMBER.values).toBe(PART_1 + 1); // part 2 goes on from part 1
    for (const where of ['#toc li a', '#reading-bar li a', 'main section.chapter h2'])
      expect(await texts(where)).toEqual(expected);
    for (const where of ['#toc', '#reading-bar', '#chapters']) {
      const parts = await texts(`${where} .toc-part, ${where} .part-heading`);
      expect(parts).toEqual([/^Part 1: /, /^Part 2: /, /^Part 3: /, /^Part 4: /].map((p) => expect.stringMatching(p)));
    }
    // Each part's list starts at its first number (read by screen readers).
    const starts = [0, PART_1, PART_1 + 9, PART_1 + 9 + 6].map((before) => before + 1);
    expect(await page.$$eval('#toc ol', (ols) => ols.map((o) => o.start))).toEqual(starts);

    // Under each chapter, outside its section: links to the chapters before and after.
    const pagers = await page.$$eval('main section.chapter', (sections) =>
      sections.map((s) => {
        const pager = s.nextElementSibling?.classList.contains('chapter-pager') ? s.nextElementSibling : null;
        const link = (a) => a && { href: a.getAttribute('href'), text: a.textContent.replace(/\s+/g, ' ').trim() };
        const [prev, next] = ['.pager-prev', '.pager-next'].map((cls) => link(pager?.querySelector(cls) ?? null));
        return { inside: s.querySelectorAll('.chapter-pager a').length, prev, next };
      }),
    );
    const to = (j, dir) =>
      CHAPTERS[j] ? { href: `#ch-${CHAPTERS[j].id}`, text: `${dir}: ${j + 1}. ${CHAPTERS[j].title}` } : null;
    expect(pagers).toEqual(
      CHAPTERS.map((c, i) => ({ inside: 0, prev: to(i - 1, 'Previous'), next: to(i + 1, 'Next') })),
    );

    // The bar has the page's colours, and its progress line moves; in the dark scheme under reduced motion,
    // the dark background (#15171b, web/style.css) and no movement.
    const look = () =>
      page.evaluate(() => ({
        bar: getComputedStyle(document.querySelector('#reading-bar')).backgroundColor,
        page: getComputedStyle(document.body).backgroundColor,
        motion: getComputedStyle(document.querySelector('#reading-bar .rb-fill')).transitionDuration,
      }));
    const light = await look();
    expect(light.bar).toBe(light.page);
    expect(light.motion).not.toBe('0s');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await look()).toEqual({ bar: 'rgb(21, 23, 27)', page: 'rgb(21, 23, 27)', motion: '0s' });
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });

    // A chapter anchor starts its widget.
    await page.locator('#toc a[href="#ch-worked-example"]').click();
    await waitReady(page, 'ag-worked-example');
    // The bar names the part of the chapter in view.
    await scrollToChapter(page, 'values');
    expect((await bar(page)).where).toMatch(/Part 2: /);
    // From the last chapter of part 1 to the first of part 2, and back.
    await scrollToChapter(page, 'pitfalls');
    await page.locator('#ch-pitfalls + .chapter-pager .pager-next').click();
    await barMarks(page, 'values');
    expect(new URL(page.url()).hash).toBe('#ch-values');
    const landed = await page.locator('#ch-values').evaluate((s) => s.getBoundingClientRect().top);
    const { bottom } = await bar(page);
    expect(landed).toBeGreaterThanOrEqual(bottom);
    expect(landed).toBeLessThan(bottom + 40);
    await page.locator('#ch-values + .chapter-pager .pager-prev').click();
    await barMarks(page, 'pitfalls');
  });

  test('at 1024, 375 and 320 px the bar stays at the top while reading and marks the chapter in view; nothing moves', async () => {
    const { page } = shared;
    for (const width of [1024, 375, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await barMarks(page, null);
      const atTop = await bar(page);
      expect(atTop.current).toEqual([]);
      expect(atTop.where).toBe(`${CHAPTERS.length} chapters`);
      expect(atTop.top).toBeGreaterThan(0); // in its place under the header, not yet stuck
      for (const id of ['values', 'projection', 'pitfalls']) {
        await scrollToChapter(page, id);
        const now = await bar(page);
        // Stuck to the top of the window, the same height whatever it shows.
        const href = `#ch-${id}`;
        expect(now).toMatchObject({ position: 'sticky', top: 0, height: atTop.height, current: [href], toc: [href] });
        expect(now.width).toBeLessThanOrEqual(width);
        expect(now.where).toContain(`Chapter ${NUMBER[id]} of ${CHAPTERS.length}`);
        expect(now.where).toContain(TITLE[id]);
        // The chapter's heading is below the bar, not under it.
        const heading = await page.locator(`#ch-${id} h2`).evaluate((h) => h.getBoundingClientRect().top);
        expect(heading).toBeGreaterThanOrEqual(now.bottom);
      }
      // Opening the contents moves nothing on the page: they open over it, the bar keeps its height.
      await page.locator('#reading-bar-toggle').click();
      await expect(page.locator('#reading-bar-contents').isVisible()).resolves.toBe(true);
      expect((await bar(page)).height).toBe(atTop.height);
      const panel = await page.locator('#reading-bar-contents').evaluate((p) => ({
        ...p.getBoundingClientRect().toJSON(),
        position: getComputedStyle(p).position,
      }));
      expect(panel.position).toBe('absolute');
      expect(panel.right).toBeLessThanOrEqual(width);
      expect(panel.bottom).toBeLessThanOrEqual(900);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      // Back at the top, no chapter is in view; the contents closed again.
      await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
      await barMarks(page, null);
      await page.locator('#reading-bar-toggle').click();
      await expect(page.locator('#reading-bar-contents').isVisible()).resolves.toBe(false);
    }
  });

  // The address names the chapter in view, from the top of the page to its end (at 1024 × 800 px).
  test('at the top of the page, above every chapter, the address names no chapter: a reload opens the top again', async () => {
    const { page } = shared;
    await page.setViewportSize({ width: 1024, height: 800 });
    await scrollToChapter(page, 'worked-example');
    await expectParams(page, 'worked-example');
    await page.keyboard.press('Home');
    await barMarks(page, null); // above every chapter
    const top = await addressAfterScroll(page);
    expect([...top.searchParams.keys()]).toEqual(['agtest']); // no ch=, no chapter's state
    expect(top.hash).toBe('');
    // The same view once reloaded: the top of the page, no chapter in view (the page clean before it reloads).
    await expectClean(shared);
    await page.reload();
    await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
    await barMarks(page, null);
    expect([...(await addressAfterScroll(page)).searchParams.keys()]).toEqual(['agtest']);
  });

  test('by keyboard: a skip link to the bar, the contents open with Enter, Tab into them, Escape closes without scrolling, a link goes; a link of the contents at the top too', async () => {
    const { page } = shared; // as it opens: reloaded at the top by the test above
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return { id: el.id, text: el.textContent.trim(), href: el.getAttribute('href') };
      });
    await pressKeys(page, 'Tab', 'Tab');
    expect((await focused()).text).toBe('Skip to the chapter list');
    await pressKeys(page, 'Enter', 'Tab');
    expect((await focused()).id).toBe('reading-bar-toggle');
    // Down in a chapter, with the bar stuck at the top (inside the page's scroll-padding-top): the focus going
    // back to the toggle (Shift+Tab, Escape) leaves the page where it is. Where it is: the place of a chapter in
    // the view, not scrollY, which the widgets above still settling move (scroll anchoring keeps the view).
    const place = () =>
      page.evaluate(() => Math.round(document.getElementById('ch-projection').getBoundingClientRect().top));
    await page.evaluate(() =>
      window.scrollBy(0, document.getElementById('ch-projection').getBoundingClientRect().top + 400),
    );
    const place0 = await place();
    expect(await page.evaluate(() => document.getElementById('reading-bar').getBoundingClientRect().top)).toBe(0);
    const toggle = page.locator('#reading-bar-toggle');
    await page.keyboard.press('Enter');
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(page.locator('#reading-bar-contents').isVisible()).resolves.toBe(true);
    await page.keyboard.press('Tab');
    expect((await focused()).href).toBe(`#ch-${CHAPTERS[0].id}`);
    await page.keyboard.press('Shift+Tab');
    expect({ focused: (await focused()).id, place: await place() }).toEqual({
      focused: 'reading-bar-toggle',
      place: place0,
    });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Escape');
    await expect(page.locator('#reading-bar-contents').isVisible()).resolves.toBe(false);
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    expect({ focused: (await focused()).id, place: await place() }).toEqual({
      focused: 'reading-bar-toggle',
      place: place0,
    });
    await page.keyboard.press('Enter');
    for (let i = 0; i < CHAPTERS.length && (await focused()).href !== '#ch-values'; i += 1)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await barMarks(page, 'values');
    expect(new URL(page.url()).hash).toBe('#ch-values');
    await expect(page.locator('#reading-bar-contents').isVisible()).resolves.toBe(false);
    // The focus goes with the reader: to the chosen chapter (its section), not back to the page; the key put it
    // there, so it shows the focus ring.
    expect((await focused()).id).toBe('ch-values');
    await expect(page.locator('#ch-values').evaluate((el) => getComputedStyle(el).outlineStyle)).resolves.toBe('solid');
    // A link of the contents at the top of the page goes the same way: the focus to the chapter, with the ring.
    await page.locator('#toc li[data-chapter="dot-product"] > a').focus();
    await page.keyboard.press('Enter');
    await barMarks(page, 'dot-product');
    expect(new URL(page.url()).hash).toBe('#ch-dot-product');
    expect((await focused()).id).toBe('ch-dot-product');
    await expect(page.locator('#ch-dot-product').evaluate((el) => getComputedStyle(el).outlineStyle)).resolves.toBe(
      'solid',
    );
  });

  test('at the very end of the page the address names the last chapter, on screen though its end stays above the line 30% down the window', async () => {
    const { page } = shared;
    await waitReady(page, 'ag-worked-example');
    // The last chapter started and grown first (it starts when scrolled near), then back to the worked example.
    await scrollToEnd(page);
    await waitReady(page, 'ag-your-task');
    await scrollToEnd(page);
    await scrollToChapter(page, 'worked-example');
    await expectParams(page, 'worked-example');
    await scrollToEnd(page);
    const last = await page.evaluate(() => {
      const root = document.documentElement;
      const box = document.getElementById('ch-your-task').getBoundingClientRect();
      return {
        atEnd: window.scrollY + window.innerHeight >= root.scrollHeight - 1,
        onScreen: box.bottom > 0,
        aboveLine: box.bottom < window.innerHeight * 0.3,
      };
    });
    expect(last).toEqual({ atEnd: true, onScreen: true, aboveLine: true }); // the case to check
    expect((await addressAfterScroll(page)).hash).toBe('#ch-your-task');
    await expectParams(page, 'your-task');
    await barMarks(page, 'your-task');
  });
});
