// "The cost of attention" (#ch-cost, <ag-attention-cost>): plain against streaming attention for T = 64 ...
// tmax, measured in the worker. The bytes the module counts (ag.memoryStats) against the page's formulas:
// plain holds the [T, T] grid (4T² bytes) besides Q, K, V and the output (4·4·T·d_k bytes); streaming
// holds those and a work area of fixed size. Each path may hold a few more bytes than its formula, the same
// at every T. Times are only checked to be there (finite and positive).
import { expect } from '@jest/globals';
import { exportText } from './helpers.mjs';
import { chapterTests, measuredRows } from './chapter-tests.mjs';

const it = chapterTests({ ch: 'cost', tag: 'ag-attention-cost' });
const waitRun = (w) => w.waitData('run', 'done', 45000);
/** The table: per row T, whether it is the current one, the measured numbers and the grid formula. */
const tableRows = async (w) =>
  (await measuredRows(w, '.cost-table')).map(({ data, ...r }) => ({ T: Number(data.t), ...r }));
const current = async (w) => (await tableRows(w)).filter((r) => r.current).map((r) => r.T);
it('the sweep: a row per T, the plain path holds the 4T² bytes of the grid, the streaming path only O(T·d_k)', async (w) => {
  await waitRun(w);
  const rows = await tableRows(w);
  expect(rows.map((r) => r.T)).toEqual([64, 128, 256, 512, 1024]);
  const [plainExtra, streamExtra] = [[], []];
  for (const r of rows) {
    const [grid, tensors] = [4 * r.T * r.T, 4 * 4 * r.T * 64]; // Q, K, V in, the output out (d_k = 64)
    expect(r['grid-bytes']).toBe(grid);
    // Beyond the formula, each path holds a few bytes that do not depend on T.
    plainExtra.push(r['plain-bytes'] - (grid + tensors));
    streamExtra.push(r['streaming-bytes'] - tensors);
    for (const key of ['plain-ms', 'streaming-ms']) expect(Number.isFinite(r[key]) && r[key] > 0).toBe(true);
  }
  // Plain: the dims and the allocator's bookkeeping; streaming: a work area of fixed size (a tile of
  // scores), far below the grid at T = 1024 (4 MiB). Both the same at every T.
  // prettier-ignore
  for (const [extra, most] of [[plainExtra, 4096], [streamExtra, (4 * 1024 * 1024) / 8]])
        for (const x of extra) {
          expect(x).toBeGreaterThanOrEqual(0);
          expect(x).toBeLessThanOrEqual(most);
          expect(Math.abs(x - extra[0])).toBeLessThanOrEqual(64);
        }
  // Doubling T: the grid part of the plain path grows fourfold, the streaming path twofold.
  const [half, last] = rows.slice(-2);
  const grid = (r) => r['plain-bytes'] - r['streaming-bytes'];
  expect(grid(last)).toBeGreaterThan(3.9 * grid(half));
  expect((last['streaming-bytes'] - streamExtra[0]) / (half['streaming-bytes'] - streamExtra[0])).toBeCloseTo(2, 6);
  // Two log-log plots with a dot per T and path, the formulas as dashed lines, a cursor at T = 256.
  await w.see({
    'svg.plot': 2,
    '.memory .dots.plain circle': 5,
    '.memory .dots.streaming circle': 5,
    '.time .dots.plain circle': 5,
    '.memory path.formula': 2,
    '.missing': { visible: false },
    '.formulas .katex': 4,
  });
  expect(await w.at('line.cursor').first().getAttribute('data-t')).toBe('256');
  expect(rows.filter((r) => r.current).map((r) => r.T)).toEqual([256]);
  // The two outputs agree (a kernel result, logged by the worker).
  await w.logged();
  // The grid's formula waits for the answer, in the CSV as on screen.
  const measured = 'plain_peak_bytes,streaming_peak_bytes,plain_ms,streaming_ms,squared_distance';
  expect((await exportText(w.page, w.tag, 'csv')).split('\r\n')[0]).toBe(`T,${measured}`);
  await w.at().evaluate((el) => el.answerShown('answer'));
  const csv = (await exportText(w.page, w.tag, 'csv')).split('\r\n');
  expect(csv[0]).toBe(`T,grid_bytes_formula,${measured}`);
  expect(csv[1]).toMatch(new RegExp(`^64,${4 * 64 * 64},${rows[0]['plain-bytes']},${rows[0]['streaming-bytes']},`));
}).at('tmax=1024&dk=64&at=256');
it('the "Read at T" slider moves with the keys, the link keeps it, and d_k = 128 doubles Q, K, V and the output in both paths, not the grid', async (w) => {
  await waitRun(w);
  // Default reading T = 1024 is above tmax = 512: shown at 512.
  await w.see({ '.reading': /^T = 512:/ });
  await w.keys('.at-slider', [['ArrowLeft', 'ArrowLeft'], { at: 128 }]);
  await w.see({ '.reading': /^T = 128: the grid alone is 128² floats, 64 KiB/ });
  expect(await current(w)).toEqual([128]);
  await w.params({ at: '128', tmax: '512' });
  const at64 = await tableRows(w);
  await w.at('select[data-control="dk"]').selectOption('128');
  await waitRun(w);
  const at128 = await tableRows(w);
  // Q, K, V and the output double with d_k; the grid does not change.
  at64.forEach((r, i) => {
    expect(at128[i]['streaming-bytes'] - r['streaming-bytes']).toBe(4 * 4 * r.T * 64);
    expect(at128[i]['plain-bytes'] - r['plain-bytes']).toBe(4 * 4 * r.T * 64);
  });
}).at('tmax=512');
it('Cancel stops a long sweep and leaves the page responsive; Run again measures anew', async (w) => {
  await waitRun(w);
  await w.at('select[data-control="tmax"]').selectOption('4096');
  expect(await w.data('run')).toBe('running');
  // The reading stays at the T it was shown at (512, the default 1024 being above the old largest T).
  expect((await w.state()).at).toBe(512);
  // The main thread is free: the reading slider answers while the worker measures.
  await w.keys('.at-slider', ['ArrowLeft', { at: 256 }]);
  await w.cancel();
  // Reading the rows measured so far does not start the cancelled sweep again.
  await w.keys('.at-slider', ['ArrowLeft', { at: 128 }]);
  expect(await w.data('run')).toBe('cancelled');
  await w.at('select[data-control="tmax"]').selectOption('512');
  await waitRun(w);
  expect((await tableRows(w)).map((r) => r.T)).toEqual([64, 128, 256, 512]);
}).at('tmax=512');

// On a page of its own: the implementation is the link's (not a state of the widget).
it('the sweep runs on the implementation the page shows, from the link and from the menu', async (w) => {
  const sweepOn = (id) =>
    w.page.waitForFunction(([t, i]) => document.querySelector(t)?.exportData().sweep?.impl === i, [w.tag, id], {
      timeout: 45000,
    });
  await sweepOn('baseline');
  expect(await w.page.$eval('#implementation', (m) => m.value)).toBe('baseline');
  await waitRun(w);
  expect(await w.at().evaluate((el) => el.exportData().sweep?.impl ?? null)).toBe('baseline');
  const ids = await w.page.$$eval('#implementation option', (els) => els.map((el) => el.value));
  const other = ids.find((id) => id !== 'baseline');
  await w.page.selectOption('#implementation', other);
  await sweepOn(other);
  await waitRun(w);
  expect((await tableRows(w)).map((r) => r.T)).toEqual([64, 128, 256, 512]);
}).at({ link: 'tmax=512&impl=baseline' });
it('a reading above the largest T stays where it is shown when the largest T changes', async (w) => {
  await waitRun(w);
  await w.see({ '.reading': /^T = 512:/ });
  await w.at('select[data-control="tmax"]').selectOption('1024');
  expect((await w.state()).at).toBe(512);
  await w.see({ '.reading': /^T = 512:/ });
  await waitRun(w);
  expect(await current(w)).toEqual([512]);
}).at('tmax=512&at=4096');

it('predict, then reveal: doubling T multiplies the grid by 4, and the sweep goes to 4096', async (w) => {
  await w.reveal({ wrong: '2', says: /64 MiB/, part: { tmax: 4096, at: 4096 }, right: '4', logged: false });
  await w.at('[data-action="cancel"]').click();
}).at('tmax=512');

// The same form of message for every field that takes a list of values.
it('a link with sizes that are not offered gets a note and the defaults', async (w) => {
  const note = [
    'tmax=3000',
    'one of 512, 1024, 2048, 4096',
    'dk=100',
    'at=300',
    'one of 64, 128, 256, 512, 1024, 2048, 4096',
  ];
  await w.link('tmax=3000&dk=100&at=300', null, { state: { tmax: 2048, dk: 64, at: 1024 }, note, logged: false });
  await w.at('[data-action="cancel"]').click();
});
