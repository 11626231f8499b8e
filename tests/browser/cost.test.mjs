// "The cost of attention" (#ch-cost, <ag-attention-cost>): plain against streaming attention for T = 64 ...
// tmax, measured in the worker. The bytes the module counts (ag.memoryStats) against the page's formulas:
// plain holds the [T, T] grid (4T² bytes) besides Q, K, V and the output (4·4·T·d_k bytes); streaming
// holds those and a work area of fixed size. Each path may hold a few more bytes than its formula, the same
// at every T. Times are only checked to be there (finite and positive).
import { describe, expect, test } from '@jest/globals';
import { expectParams, exportText, predictChoice, pressKeys, stateOf, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged } from './shown-numbers.mjs';

const TAG = 'ag-attention-cost';
const CH = 'cost';

const state = (page) => stateOf(page, TAG);
const run = (page) => page.locator(TAG).getAttribute('data-run');
const waitRun = (page, run = 'done') => page.waitForSelector(`${TAG}[data-run="${run}"]`, { timeout: 45000 });

/** The table: per row T and the measured numbers (data-measured), the grid formula (data-formula). */
const tableRows = (page) =>
  page.locator(TAG).evaluate((el) =>
    [...el.shadowRoot.querySelectorAll('.cost-table tbody tr')].map((tr) => {
      const row = { T: Number(tr.dataset.t), current: tr.classList.contains('is-current') };
      for (const td of tr.querySelectorAll('td[data-role]'))
        row[td.dataset.role] =
          td.dataset.measured !== undefined ? Number(td.dataset.measured) : Number(td.dataset.formula);
      return row;
    }),
  );

const env = useEnv();

describe('the cost of attention', () => {
  test('the sweep: a row per T, the plain path holds the 4T² bytes of the grid, the streaming path only O(T·d_k)', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=1024&dk=64&at=256' }, async ({ page }) => {
      await waitRun(page);
      const rows = await tableRows(page);
      const dk = 64;
      expect(rows.map((r) => r.T)).toEqual([64, 128, 256, 512, 1024]);
      const plainExtra = [];
      const streamExtra = [];
      for (const r of rows) {
        const grid = 4 * r.T * r.T;
        const tensors = 4 * 4 * r.T * dk; // Q, K, V in, the output out
        expect(r['grid-bytes']).toBe(grid);
        // Beyond the formula, each path holds a few bytes that do not depend on T.
        plainExtra.push(r['plain-bytes'] - (grid + tensors));
        streamExtra.push(r['streaming-bytes'] - tensors);
        for (const key of ['plain-ms', 'streaming-ms']) expect(Number.isFinite(r[key]) && r[key] > 0).toBe(true);
      }
      // Plain: the dims and the allocator's bookkeeping; streaming: a work area of fixed size (a tile of
      // scores), far below the grid at T = 1024 (4 MiB). Both the same at every T.
      for (const [extra, most] of [
        [plainExtra, 4096],
        [streamExtra, (4 * 1024 * 1024) / 8],
      ])
        for (const c of extra) {
          expect(c).toBeGreaterThanOrEqual(0);
          expect(c).toBeLessThanOrEqual(most);
          expect(Math.abs(c - extra[0])).toBeLessThanOrEqual(64);
        }
      // Doubling T: the grid part of the plain path grows fourfold, the streaming path twofold.
      const last = rows.at(-1);
      const half = rows.at(-2);
      expect(last['plain-bytes'] - last['streaming-bytes']).toBeGreaterThan(
        3.9 * (half['plain-bytes'] - half['streaming-bytes']),
      );
      expect((last['streaming-bytes'] - streamExtra[0]) / (half['streaming-bytes'] - streamExtra[0])).toBeCloseTo(2, 6);

      // Two log-log plots with a dot per T and path, the formulas as dashed lines, a cursor at T = 256.
      expect(await page.locator(`${TAG} svg.plot`).count()).toBe(2);
      for (const dots of ['.memory .dots.plain', '.memory .dots.streaming', '.time .dots.plain'])
        expect(await page.locator(`${TAG} ${dots} circle`).count()).toBe(5);
      expect(await page.locator(`${TAG} .memory path.formula`).count()).toBe(2);
      expect(await page.locator(`${TAG} line.cursor`).first().getAttribute('data-t')).toBe('256');
      expect(rows.filter((r) => r.current).map((r) => r.T)).toEqual([256]);
      expect(await page.locator(`${TAG} .missing`).isHidden()).toBe(true);
      expect(await page.locator(`${TAG} .formulas .katex`).count()).toBe(4);
      // The two outputs agree (a kernel result, logged by the worker).
      await expectAllLogged(page, TAG);
      const csv = (await exportText(page, TAG, 'csv')).split('\r\n');
      expect(csv[0]).toBe(
        'T,grid_bytes_formula,plain_peak_bytes,streaming_peak_bytes,plain_ms,streaming_ms,squared_distance',
      );
      expect(csv[1].startsWith(`64,${4 * 64 * 64},${rows[0]['plain-bytes']},${rows[0]['streaming-bytes']},`)).toBe(
        true,
      );
    });
  });

  test('the "Read at T" slider moves with the keys, the link keeps it, and d_k = 128 doubles Q, K, V and the output in both paths, not the grid', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=512' }, async ({ page }) => {
      await waitRun(page);
      // Default reading T = 1024 is above tmax = 512: shown at 512.
      expect(await page.locator(`${TAG} .reading`).textContent()).toMatch(/^T = 512:/);
      await page.locator(`${TAG} .at-slider`).focus();
      await pressKeys(page, 'ArrowLeft', 'ArrowLeft');
      expect((await state(page)).at).toBe(128);
      expect(await page.locator(`${TAG} .reading`).textContent()).toMatch(
        /^T = 128: the grid alone is 128² floats, 64 KiB/,
      );
      expect((await tableRows(page)).filter((r) => r.current).map((r) => r.T)).toEqual([128]);
      await expectParams(page, CH, { at: '128', tmax: '512' });
      const at64 = await tableRows(page);
      await page.locator(`${TAG} select[data-control="dk"]`).selectOption('128');
      await waitRun(page);
      const at128 = await tableRows(page);
      at64.forEach((r, i) => {
        // Q, K, V and the output double with d_k; the grid does not change.
        expect(at128[i]['streaming-bytes'] - at64[i]['streaming-bytes']).toBe(4 * 4 * r.T * 64);
        expect(at128[i]['plain-bytes'] - at64[i]['plain-bytes']).toBe(4 * 4 * r.T * 64);
      });
    });
  });

  test('Cancel stops a long sweep and leaves the page responsive; Run again measures anew', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=512' }, async ({ page }) => {
      await waitRun(page);
      await page.locator(`${TAG} select[data-control="tmax"]`).selectOption('4096');
      expect(await run(page)).toBe('running');
      // The reading stays at the T it was shown at (512, the default 1024 being above the old largest T).
      expect((await state(page)).at).toBe(512);
      // The main thread is free: the reading slider answers while the worker measures.
      await page.locator(`${TAG} .at-slider`).focus();
      await page.keyboard.press('ArrowLeft');
      expect((await state(page)).at).toBe(256);
      await page.locator(`${TAG} [data-action="cancel"]`).click();
      expect(await run(page)).toBe('cancelled');
      expect(await page.locator(`${TAG} .status`).textContent()).toMatch(/Cancelled/);
      // Reading the rows measured so far does not start the cancelled sweep again.
      await page.locator(`${TAG} .at-slider`).focus();
      await page.keyboard.press('ArrowLeft');
      expect((await state(page)).at).toBe(128);
      expect(await run(page)).toBe('cancelled');
      await page.locator(`${TAG} select[data-control="tmax"]`).selectOption('512');
      await waitRun(page);
      expect((await tableRows(page)).map((r) => r.T)).toEqual([64, 128, 256, 512]);
    });
  });

  test('the sweep runs on the implementation the page shows, from the link and from the menu', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=512&impl=baseline' }, async ({ page }) => {
      const sweepImpl = () => page.locator(TAG).evaluate((el) => el.exportData().sweep?.impl ?? null);
      await page.waitForFunction((tag) => document.querySelector(tag)?.exportData().sweep?.impl === 'baseline', TAG, {
        timeout: 45000,
      });
      expect(await page.$eval('#implementation', (m) => m.value)).toBe('baseline');
      await waitRun(page);
      expect(await sweepImpl()).toBe('baseline');
      const ids = await page.$$eval('#implementation option', (els) => els.map((el) => el.value));
      const other = ids.find((id) => id !== 'baseline');
      await page.selectOption('#implementation', other);
      await page.waitForFunction(
        ([tag, id]) => document.querySelector(tag)?.exportData().sweep?.impl === id,
        [TAG, other],
        { timeout: 45000 },
      );
      await waitRun(page);
      expect((await tableRows(page)).map((r) => r.T)).toEqual([64, 128, 256, 512]);
    });
  });

  test('a reading above the largest T stays where it is shown when the largest T changes', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=512&at=4096' }, async ({ page }) => {
      await waitRun(page);
      expect(await page.locator(`${TAG} .reading`).textContent()).toMatch(/^T = 512:/);
      await page.locator(`${TAG} select[data-control="tmax"]`).selectOption('1024');
      expect((await state(page)).at).toBe(512);
      expect(await page.locator(`${TAG} .reading`).textContent()).toMatch(/^T = 512:/);
      await waitRun(page);
      expect((await tableRows(page)).filter((r) => r.current).map((r) => r.T)).toEqual([512]);
    });
  });

  test('predict, then reveal: doubling T multiplies the grid by 4, and the sweep goes to 4096', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=512' }, async ({ page }) => {
      await predictChoice(page, TAG, '2', 'wrong');
      await predictChoice(page, TAG, '4', 'right');
      expect(await state(page)).toMatchObject({ tmax: 4096, at: 4096 });
      expect(await page.locator(`${TAG} .predict-result`).textContent()).toContain('64 MiB');
      await page.locator(`${TAG} [data-action="cancel"]`).click();
    });
  });

  test('a link with sizes that are not offered gets a note and the defaults', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=cost&v=1&tmax=3000&dk=100&at=300' }, async ({ page }) => {
      expect(await state(page)).toEqual({ tmax: 2048, dk: 64, at: 1024 });
      const note = await page.locator(`${TAG} .note`).textContent();
      // The same form of message for every field that takes a list of values.
      for (const part of [
        'tmax=3000',
        'one of 512, 1024, 2048, 4096',
        'dk=100',
        'at=300',
        'one of 64, 128, 256, 512, 1024, 2048, 4096',
      ])
        expect(note).toContain(part);
      await page.locator(`${TAG} [data-action="cancel"]`).click();
    });
  });
});
