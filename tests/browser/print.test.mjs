// Printing the page. Widgets start when scrolled near (web/widget/base.js), so without web/widget/print.js a page
// printed from its top would show "starts when scrolled into view" for nearly every chapter. Chromium's print to
// PDF fires 'beforeprint' as the print menu does; after it, every widget must have rendered its numbers. The
// printout is light whatever the system's scheme, leaves out the page's and the widgets' controls, and scales
// boxes that scroll sideways to the paper.
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { hostPage, useEnv, waitReady, withEmbed, withPage } from './helpers.mjs';

// A page of the kind EMBEDDING.md describes: the widgets script and two widgets far below the first screen, so that
// neither starts by itself.
const HOST = hostPage(
  '<p>Text above the widgets.</p><div style="height: 4000px"></div>\n<ag-worked-example></ag-worked-example><ag-multi-head></ag-multi-head>',
  '<link rel="icon" href="data:,"><script type="module" src="widgets.js"></script>',
);

const env = useEnv({ extraFiles: { 'print-host.html': HOST } });
const dark = { setup: (page) => page.emulateMedia({ colorScheme: 'dark' }) };

const TAGS = [...new Set(CHAPTERS.filter((c) => c.tag).map((c) => c.tag))];

/** Fires `beforeprint` as the print menu does, and waits until multi-head has boxes scaled to fit the paper. */
async function beforePrint(page) {
  await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
  await page.waitForFunction(() =>
    document.querySelector('ag-multi-head').shadowRoot.querySelector('[data-print-fit]'),
  );
}

/** The status of every widget on the page: { tag: data-status or null }. */
const statuses = (page) =>
  page.evaluate(
    (tags) => Object.fromEntries(tags.map((t) => [t, document.querySelector(t)?.dataset.status ?? null])),
    TAGS,
  );

/** The two widgets of print-host.html: their status (or null), whether they wait for the module, their numbers. */
const hostWidgets = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('ag-worked-example, ag-multi-head')].map((w) => ({
      status: w.dataset.status ?? null,
      waiting: w.shadowRoot?.textContent.includes('Waiting for the WebAssembly module'),
      numbers: w.shadowRoot?.querySelectorAll('[data-value]').length,
    })),
  );

describe('printing', () => {
  test('in print the page and the widgets take the light colours and drop their controls, even in the dark scheme; printing from the top of the page renders every widget first', async () => {
    await withPage(env, '?agtest=1', dark, async ({ page }) => {
      const tag = TAGS[0];
      // The first widget sits below the contents (out of view at 900 px): scrolled to, it starts; then back up.
      await waitReady(page, tag);
      await page.evaluate(() => window.scrollTo(0, 0));
      const look = () =>
        page.evaluate((t) => {
          const w = document.querySelector(t).shadowRoot;
          const display = (el) => getComputedStyle(el).display;
          return {
            body: getComputedStyle(document.body).color,
            widget: getComputedStyle(w.querySelector('.widget')).color,
            toc: display(document.querySelector('#toc')),
            readingBar: display(document.querySelector('#reading-bar')),
            pagers: [...document.querySelectorAll('.chapter-pager')].map(display),
            menu: display(document.querySelector('.page-toolbar')),
            actions: display(w.querySelector('.toolbar-actions')),
            computedBy: display(w.querySelector('.computed-by')),
          };
        }, tag);
      const screen = await look();
      // The premise: on screen the dark scheme has light text (#e8e6e1) and shows the controls.
      expect([screen.body, screen.widget]).toEqual(['rgb(232, 230, 225)', 'rgb(232, 230, 225)']);
      for (const shown of [screen.toc, screen.readingBar, screen.actions]) expect(shown).not.toBe('none');
      expect(screen.pagers).toHaveLength(CHAPTERS.length);
      expect(screen.pagers.filter((d) => d === 'none')).toEqual([]);
      await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
      const print = await look();
      // The light text colour (#1d1f23, web/style.css and styles/base.css); neither the contents, the reading
      // bar, the links to the chapters before and after nor the controls are printed.
      expect([print.body, print.widget]).toEqual(['rgb(29, 31, 35)', 'rgb(29, 31, 35)']);
      for (const hidden of [print.toc, print.readingBar, print.menu, print.actions]) expect(hidden).toBe('none');
      expect(new Set(print.pagers)).toEqual(new Set(['none']));
      expect(print.computedBy).not.toBe('none');
      await page.emulateMedia({ media: 'screen', colorScheme: 'dark' });
      // Printing from the top of the page renders every widget first. The premise: most have not started.
      expect(Object.values(await statuses(page)).filter((s) => s === null).length).toBeGreaterThan(TAGS.length / 2);
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(Object.entries(await statuses(page)).filter(([, s]) => s !== 'ready')).toEqual([]);
      // Every widget shows numbers from the engine, not its placeholder.
      const placeholders = await page.evaluate(
        (tags) => tags.filter((t) => document.querySelector(t).shadowRoot.querySelector('.placeholder')),
        TAGS,
      );
      expect(placeholders).toEqual([]);
    });
  });

  test('a page whose widgets are all far below loads the engine when idle, so that printing it shows every widget computed', async () => {
    await withPage(env, 'print-host.html', { waitFor: null }, async ({ page }) => {
      // Nothing scrolled, no widget started, yet the module loads once the page is idle.
      await page.waitForFunction(
        () => performance.getEntriesByType('resource').some((e) => /\.wasm$/.test(e.name)),
        null,
        { timeout: 20000 },
      );
      await page.waitForTimeout(1000); // its compilation
      expect((await hostWidgets(page)).map((w) => w.status)).toEqual([null, null]);
      await page.pdf({ format: 'A4' });
      // Rendered during the print itself: ready, with numbers and no loading text.
      for (const w of await hostWidgets(page)) {
        expect(w.status).toBe('ready');
        expect(w.waiting).toBe(false);
        expect(w.numbers).toBeGreaterThan(0);
      }
    });
  });

  test('a widget on a page with no colours of its own (embed.html) prints light too; on paper, colours drawn as backgrounds print, and a figure whose experiment still runs says so', async () => {
    const tag = 'ag-worked-example';
    await withEmbed(env, `w=${tag}`, tag, dark, async ({ page }) => {
      const look = () =>
        page.evaluate((t) => {
          const root = document.querySelector(t).shadowRoot;
          const body = root.querySelector('.body');
          return {
            colour: getComputedStyle(root.querySelector('.widget')).color,
            adjust: getComputedStyle(body).printColorAdjust,
            note: getComputedStyle(body, '::before').content,
          };
        }, tag);
      // The widget's own defaults (styles/base.css): #e8e6e1 on a dark screen, #1d1f23 on paper.
      expect((await look()).colour).toBe('rgb(232, 230, 225)');
      await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
      expect(await look()).toEqual({ colour: 'rgb(29, 31, 35)', adjust: 'exact', note: 'none' });
      // data-run="running" is what the worker-driven chapters set while their experiment runs.
      await page.evaluate((t) => document.querySelector(t).setAttribute('data-run', 'running'), tag);
      expect((await look()).note).toMatch(/still running: print again once it has finished/);
      await page.emulateMedia({ media: 'screen' });
      expect((await look()).note).toBe('none');
    });
  });

  test('wide boxes (multi-head\u2019s tables, on one embed page): a box that scrolls sideways is scaled to fit the paper while printing, and restored after; a printout is scaled the same from a phone as from a desktop window', async () => {
    // multi-head's embedding and output tables (d_model = 12) are wider than A4 paper.
    await withEmbed(env, 'w=ag-multi-head', 'ag-multi-head', async ({ page }) => {
      const boxes = () =>
        page.evaluate(() => {
          const root = document.querySelector('ag-multi-head').shadowRoot;
          return [...root.querySelectorAll('*')]
            .filter((el) => el instanceof HTMLElement && /auto|scroll/.test(getComputedStyle(el).overflowX))
            .map((el) => ({ fit: el.getAttribute('data-print-fit'), over: el.scrollWidth - el.clientWidth }));
        });
      // The premise: at the width of A4 paper (718 px) some box scrolls.
      await page.setViewportSize({ width: 718, height: 900 });
      expect((await boxes()).some((b) => b.over > 1)).toBe(true);
      await page.setViewportSize({ width: 1024, height: 900 });
      await beforePrint(page);
      // On paper (print media, the paper's width) nothing is cut any more.
      await page.emulateMedia({ media: 'print' });
      await page.setViewportSize({ width: 718, height: 900 });
      expect((await boxes()).filter((b) => b.over > 1)).toEqual([]);
      // After printing, the boxes are as they were.
      await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
      await page.emulateMedia({ media: 'screen' });
      const restored = await boxes();
      expect(restored.filter((b) => b.fit !== null)).toEqual([]);
      expect(restored.some((b) => b.over > 1)).toBe(true);
      // The same scale from a phone as from a desktop window.
      const fits = async (width) => {
        await page.setViewportSize({ width, height: 800 });
        await beforePrint(page);
        const found = await page.evaluate(() =>
          [...document.querySelector('ag-multi-head').shadowRoot.querySelectorAll('[data-print-fit]')].map((el) =>
            Number(el.style.getPropertyValue('--ag-print-fit')),
          ),
        );
        await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
        await page.waitForFunction(
          () => !document.querySelector('ag-multi-head').shadowRoot.querySelector('[data-print-fit]'),
        );
        return found;
      };
      const desktop = await fits(1280);
      const phone = await fits(375);
      expect(desktop.length).toBeGreaterThan(0);
      expect(phone.length).toBe(desktop.length);
      phone.forEach((f, i) => expect(Math.abs(f - desktop[i])).toBeLessThan(0.02));
    });
  });
});
