// Printing the page. Widgets start when scrolled near (web/widget/base.js),
// so without web/widget/print.js a page printed from its top would show
// "starts when scrolled into view" for nearly every chapter. Chromium's
// print to PDF fires 'beforeprint' as the print menu does; after it, every
// widget must have rendered its numbers. The printout is light whatever the
// system's scheme, and leaves out the page's and the widgets' controls.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { expectClean, openPage, startEnv } from './helpers.mjs';

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

const TAGS = [...new Set(CHAPTERS.filter((c) => c.tag).map((c) => c.tag))];

/** The status of every widget on the page: { tag: data-status or null }. */
const statuses = (page) => page.evaluate((tags) => Object.fromEntries(tags.map((t) => [t, document.querySelector(t)?.dataset.status ?? null])), TAGS);

describe('printing', () => {
  test('printing from the top of the page renders every widget first', async () => {
    const opened = await openPage(env, '?agtest=1');
    const { page } = opened;
    await page.waitForSelector(`${TAGS[0]}[data-status="ready"]`, { timeout: 20000 });
    const before = await statuses(page);
    // The premise: most widgets far down have not started.
    expect(Object.values(before).filter((s) => s === null).length).toBeGreaterThan(TAGS.length / 2);
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const after = await statuses(page);
    const notReady = Object.entries(after).filter(([, s]) => s !== 'ready');
    expect(notReady).toEqual([]);
    // Every widget shows numbers from the engine, not its placeholder.
    const placeholders = await page.evaluate((tags) => tags.filter((t) => document.querySelector(t).shadowRoot.querySelector('.placeholder')), TAGS);
    expect(placeholders).toEqual([]);
    await expectClean(opened);
    await opened.context.close();
  });

  test('in print the page and the widgets take the light colours and drop their controls, even in the dark scheme', async () => {
    const opened = await openPage(env, '?agtest=1', { setup: (page) => page.emulateMedia({ colorScheme: 'dark' }) });
    const { page } = opened;
    const tag = TAGS[0];
    await page.waitForSelector(`${tag}[data-status="ready"]`, { timeout: 20000 });
    const look = () =>
      page.evaluate((t) => {
        const w = document.querySelector(t);
        const frame = w.shadowRoot.querySelector('.widget');
        return {
          body: getComputedStyle(document.body).color,
          widget: getComputedStyle(frame).color,
          toc: getComputedStyle(document.querySelector('#toc')).display,
          menu: getComputedStyle(document.querySelector('.page-toolbar')).display,
          actions: getComputedStyle(w.shadowRoot.querySelector('.toolbar-actions')).display,
          computedBy: getComputedStyle(w.shadowRoot.querySelector('.computed-by')).display,
        };
      }, tag);
    const screen = await look();
    // The premise: on screen the dark scheme has light text (#e8e6e1) and shows the controls.
    expect(screen.body).toBe('rgb(232, 230, 225)');
    expect(screen.widget).toBe('rgb(232, 230, 225)');
    expect(screen.toc).not.toBe('none');
    expect(screen.actions).not.toBe('none');
    await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
    const print = await look();
    // The light text colour (#1d1f23, web/style.css and styles/widget.css).
    expect(print.body).toBe('rgb(29, 31, 35)');
    expect(print.widget).toBe('rgb(29, 31, 35)');
    expect(print.toc).toBe('none');
    expect(print.menu).toBe('none');
    expect(print.actions).toBe('none');
    expect(print.computedBy).not.toBe('none');
    await expectClean(opened);
    await opened.context.close();
  });

  test('a widget on a page with no colours of its own (embed.html) prints light too', async () => {
    const tag = 'ag-worked-example';
    const opened = await openPage(env, `embed.html?w=${tag}&agtest=1`, { setup: (page) => page.emulateMedia({ colorScheme: 'dark' }) });
    const { page } = opened;
    await page.waitForSelector(`${tag}[data-status="ready"]`, { timeout: 20000 });
    const colour = () => page.evaluate((t) => getComputedStyle(document.querySelector(t).shadowRoot.querySelector('.widget')).color, tag);
    // The widget's own defaults (styles/widget.css): #e8e6e1 on a dark screen, #1d1f23 on paper.
    expect(await colour()).toBe('rgb(232, 230, 225)');
    await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
    expect(await colour()).toBe('rgb(29, 31, 35)');
    await expectClean(opened);
    await opened.context.close();
  });
});
