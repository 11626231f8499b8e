// "Near-orthogonality in high dimension" (#ch-near-orthogonal): the worker runs of <ag-near-orthogonal>
// (rms and mean |cos| against float64 moments within sampling error, the angles against acos) and
// <ag-greedy-packing> (counts, a float64 re-check of logged directions); cancel, keys, mouse, links.
import { expect } from '@jest/globals';
import { exportJson } from './helpers.mjs';
import { dot } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, expectSeed, one, readNumbers, U } from './chapter-tests.mjs';

const PACK = 'ag-greedy-packing'; // the chapter's second widget
const DIMS = [2, 3, 10, 100, 1000];

// Float64 moments of cos between two uniformly random directions in d dimensions: E cos^2 = 1/d, Var cos^2, and
// E|cos| = Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)), by r(d+2) = r(d) d/(d+1) from r(2) = 2/pi, r(3) = 1/2.
const varCos2 = (d) => 3 / (d * (d + 2)) - 1 / (d * d);
function meanAbsCos(d) {
  let r = d % 2 === 0 ? 2 / Math.PI : 0.5;
  for (let k = d % 2 === 0 ? 2 : 3; k < d; k += 2) r *= k / (k + 1);
  return r;
}
/** Standard errors over n pairs of the sample rms of cos (delta method) and of the mean |cos|. */
const seRms = (d, n) => Math.sqrt(varCos2(d) / n) / (2 * Math.sqrt(1 / d));
const seMeanAbs = (d, n) => Math.sqrt((1 / d - meanAbsCos(d) ** 2) / n);
const degrees = (r) => (r * 180) / Math.PI;
/** |value - ref| within 4 standard errors. */
const within4 = (value, ref, se) => expect(Math.abs(value - ref)).toBeLessThanOrEqual(4 * se);

const waitHist = (w) => w.waitData('histRun', 'done', 90000);
const waitPack = (w) => w.waitData('packRun', 'done', 120000, PACK);
/** The packing's counts by d. */
const keptOf = async (w) =>
  Object.fromEntries(byRole(await readNumbers(w.page, PACK), 'kept').map((x) => [Number(x.key), x.value]));
const chooseDim = async (w, d) => {
  await w.at(`.multiple[data-dim="${d}"]`).click();
  await w.waitState({ d: String(d) });
};

/** The worker's runs take minutes on a busy machine. */
const it = chapterTests({ ch: 'near-orthogonal', tag: 'ag-near-orthogonal', timeout: 180000 });

it('rms of cos is 1/sqrt(d) and mean |cos| is about sqrt(2/pi)/sqrt(d), within sampling error; the angles match acos', async (w) => {
  await waitHist(w);
  const n = 50000;
  const numbers = await w.read();
  const [value, text] = [(role) => one(numbers, role).value, (role) => one(numbers, role).text];
  const typical = expectSeed('cos-typical-1000', 1 / Math.sqrt(1000));
  const [rms, meanAbs] = [value('rms'), value('mean-abs')];
  within4(rms, typical.expected, seRms(1000, n));
  expect(text('rms')).toMatch(/^0\.03/);
  expectClose(value('inv-sqrt-d'), 1 / Math.sqrt(1000), (8 * U) / Math.sqrt(1000), '1/sqrt(1000)');
  expectSeed('angle-typical-1000', degrees(value('rms-angle')));
  expect(text('rms-angle')).toBe('88.19\u00b0');
  const approx = Math.sqrt(2 / Math.PI) / Math.sqrt(1000);
  expect(Math.abs(meanAbs - approx)).toBeLessThanOrEqual(4 * seMeanAbs(1000, n) + Math.abs(meanAbsCos(1000) - approx));
  expectClose(value('rms-sqrt-d'), rms * Math.sqrt(1000), 8 * U, 'rms * sqrt(d)');
  expectClose(value('mean-abs-sqrt-d'), meanAbs * Math.sqrt(1000), 8 * U, 'mean|cos| * sqrt(d)');
  expect(Math.abs(value('mean'))).toBeLessThanOrEqual(4 / Math.sqrt(1000 * n));
  // The table: every d, with the columns times sqrt(d) the things to try point at.
  const heads = await w.at('table.dims thead th').allTextContents();
  expect(heads.join(' | ')).toBe(
    'd | rms cos | angle of 1/\u221ad | rms \u00d7 \u221ad | mean |cos| | mean |cos| \u00d7 \u221ad',
  );
  const tries = await w.page.locator(`#ch-${w.ch} .tries li`).allTextContents();
  const pointer = tries.find((t) => t.includes('\u00d7 \u221ad'));
  for (const quoted of pointer.match(/\u201c[^\u201d]*\u201d/g)) expect(heads).toContain(quoted.slice(1, -1));
  for (const role of ['rms-sqrt-d', 'mean-abs-sqrt-d', 'rms']) expect(byRole(numbers, `table-${role}`).length).toBe(5);
  const cell = (role, d) => one(numbers, `table-${role}`, d);
  for (const d of DIMS) {
    const [r, a, rs, as] = ['rms', 'mean-abs', 'rms-sqrt-d', 'mean-abs-sqrt-d'].map((role) => cell(role, d));
    within4(r.value, 1 / Math.sqrt(d), seRms(d, n));
    within4(a.value, meanAbsCos(d), seMeanAbs(d, n));
    expect(a.value).toBeLessThan(r.value); // the mean |cos| sits inside the rms
    expectClose(rs.value, r.value * Math.sqrt(d), 8 * U * Math.sqrt(d), `rms * sqrt(${d})`);
    expectClose(as.value, a.value * Math.sqrt(d), 8 * U * Math.sqrt(d), `mean|cos| * sqrt(${d})`);
    within4(rs.value, 1, seRms(d, n) * Math.sqrt(d));
    for (const x of [rs, as]) expect(Math.abs(x.shown - x.value)).toBeLessThanOrEqual(5e-4 * Math.abs(x.value));
    if (d >= 100) expect(Math.abs(as.value - Math.sqrt(2 / Math.PI))).toBeLessThan(0.02);
    expectClose(cell('angle', d).value, Math.acos(1 / Math.sqrt(d)), 2e-6, `acos(1/sqrt(${d}))`);
  }
  // One random pair at d = 1000 is within a few degrees of a right angle.
  expect(Math.abs(degrees(value('pair-angle')) - 90)).toBeLessThan(8);
  await w.logged();
  expect(
    await w.page.evaluate(() => window.__agCallLog.some((c) => c.worker && c.kernel === 'random_dot_experiment')),
  ).toBe(true);
}).at('d=1000&pairs=50000&seed=7');
it('the close-up labels meet neither each other nor a line; every tick is a plain number, at every d', async (w) => {
  await waitHist(w);
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const check = async (d) => {
    const seen = await w.page.evaluate((tag) => {
      const g = document.querySelector(tag).shadowRoot.querySelector('svg g.detail');
      const box = (n) => n.getBoundingClientRect().toJSON();
      const ticks = [...document.querySelectorAll(`${tag}, ag-greedy-packing`)].flatMap((el) =>
        [...el.shadowRoot.querySelectorAll('svg .tick text, svg text.tick')].map((n) => n.textContent),
      );
      const [rms, abs] = [box(g.querySelector('.label-rms')), box(g.querySelector('.label-abs'))];
      return { d: g.dataset.dim, rms, abs, lines: [...g.querySelectorAll('.marks line')].map(box), ticks };
    }, w.tag);
    expect(seen.d).toBe(String(d));
    expect(seen.rms.right - seen.rms.left).toBeGreaterThan(5);
    expect(seen.abs.right - seen.abs.left).toBeGreaterThan(20);
    expect(meet(seen.rms, seen.abs)).toBe(false);
    expect(seen.lines.length).toBe(4);
    for (const line of seen.lines) expect([meet(seen.rms, line), meet(seen.abs, line)]).toEqual([false, false]);
    expect(seen.ticks.length).toBeGreaterThan(10);
    for (const t of seen.ticks) expect(t).toMatch(/^\u2212?\d+(\.\d+)?$/);
  };
  // The default state is d = 1000, the question's: its close-up waits for the answer, then is drawn.
  const held = () => w.at('g.detail[data-dim="1000"]').getAttribute('data-after-answer');
  expect(await held()).toBe('held');
  await w.eval((el) => el.answerShown('answer'));
  expect(await held()).toBe('shown');
  await check(1000);
  for (const d of DIMS) await chooseDim(w, d).then(() => check(d));
});
it('keys and clicks select d, a changed URL gives its state, and the URL follows', async (w) => {
  expect(await w.state()).toEqual({ d: '10', pairs: '2000', seed: 5 });
  expect(await w.state(PACK)).toEqual({ eps: '0.1', cand: '5000', seed: 5 });
  await waitHist(w);
  const urlD = (d) => w.page.waitForFunction((v) => new URLSearchParams(window.location.search).get('d') === v, d);
  await w.press('.multiple[data-dim="10"]', 'ArrowRight');
  await w.waitState({ d: '100' });
  expect(await w.at().evaluate((el) => el.shadowRoot.activeElement?.dataset.dim)).toBe('100');
  let numbers = await w.read();
  within4(one(numbers, 'rms').value, 0.1, seRms(100, 2000));
  expectClose(degrees(one(numbers, 'rms-angle').value), degrees(Math.acos(0.1)), 1e-4, 'angle of 0.1');
  await urlD('100');
  // The mouse: d = 2, where the angle of the rms is 45 degrees.
  await w.at('.multiple[data-dim="2"]').click();
  numbers = await w.read();
  within4(one(numbers, 'rms').value, Math.SQRT1_2, seRms(2, 2000));
  within4(one(numbers, 'mean-abs').value, 2 / Math.PI, seMeanAbs(2, 2000));
  expect(one(numbers, 'rms-angle').text).toBe('45\u00b0');
  await w.page.keyboard.press('End');
  await w.waitState({ d: '1000' });
  await urlD('1000');
  expect((await w.url()).get('seed')).toBe('5');
  await w.logged();
}).at('d=10&pairs=2000&seed=5&cand=5000&eps=0.1');

// On a page of its own: the call log holds this run's directions alone.
it('greedy packing: far more than d directions at d = 256, pairwise within eps (float64 re-check)', async (w) => {
  await waitPack(w);
  const kept = await keptOf(w);
  expect(Object.keys(kept).map(Number)).toEqual([2, 3, 4, 8, 16, 32, 64, 96, 128, 192, 256]);
  expect(kept[2]).toBeLessThanOrEqual(2); // in the plane only two directions fit in a band of +-0.2 around 90 degrees
  expect(kept[256]).toBeGreaterThan(2 * 256);
  expect(kept[192]).toBeGreaterThan(192);
  for (const [d, k] of Object.entries(kept)) {
    expect(Number.isInteger(k)).toBe(true);
    expect(k).toBeGreaterThanOrEqual(1);
    expect(k).toBeLessThanOrEqual(20000);
    if (Number(d) >= 8) expect(k).toBeGreaterThanOrEqual(kept[Number(d) / 2] ?? 0); // counts grow with d
  }
  // The directions of small cases (the worker logs arrays up to 4096 floats): unit vectors, pairwise |cos| <= 0.2.
  const logged = await w.page.evaluate(() =>
    window.__agCallLog
      .filter((c) => c.kernel === 'greedy_packing' && c.result.directions.data.length > 0)
      .map((c) => ({ d: c.args.d[0], kept: c.result.kept, data: Array.from(c.result.directions.data) })),
  );
  const checked = new Set();
  for (const d of [3, 8, 16, 32, 64]) {
    const last = logged.filter((x) => x.d === d).at(-1);
    if (!last) continue;
    expect(last.kept).toBe(kept[d]);
    const rows = Array.from({ length: last.kept }, (_, i) => last.data.slice(i * d, (i + 1) * d));
    for (const r of rows) expectClose(Math.hypot(...r), 1, 1e-5, `unit length at d=${d}`);
    for (let i = 0; i < rows.length; i++)
      for (let j = 0; j < i; j++) expect(Math.abs(dot(rows[i], rows[j]))).toBeLessThanOrEqual(0.2 + 1e-5);
    checked.add(d);
  }
  expect(checked.size).toBeGreaterThanOrEqual(3);
  await w.logged(PACK);
}).at({ link: 'pairs=2000&seed=1&eps=0.2&cand=20000' });
it('dragging eps starts a new run; cancel leaves the page responsive; a key starts a right run', async (w) => {
  await waitHist(w);
  await waitPack(w);
  // Every state of the packing run from now on (a fast run may be done before a check could see it).
  await w.page.locator(PACK).evaluate((el) => {
    const runs = (window.__packRuns = []);
    new MutationObserver(() => runs.push(el.dataset.packRun)).observe(el, { attributeFilter: ['data-pack-run'] });
  });
  await w.slide('[data-control="eps"]', 0.5, 1.1, PACK);
  await w.waitState({ eps: '0.3' }, PACK);
  expect(await w.page.evaluate(() => window.__packRuns)).toContain('running');
  // Cancel a run in the same task that starts it (a new seed), so that it cannot end first.
  const runs = await w.page.locator(PACK).evaluate((el) => {
    el.setState({ seed: el.state.seed + 1 });
    const started = el.dataset.packRun;
    el.shadowRoot.querySelector('[data-action="cancel-pack"]').click();
    return [started, el.dataset.packRun];
  });
  expect(runs).toEqual(['running', 'cancelled']);
  // The main thread answers (a frozen page would not; no time is gated: a shared machine's timings are noise).
  expect(await w.page.evaluate(() => 1 + 1)).toBe(2);
  // The d buttons still answer at once.
  await w.at('.multiple[data-dim="3"]').click();
  expect((await w.state()).d).toBe('3');
  // Fewer candidates and one key step left: eps = 0.25, a new run that finishes.
  await w.page.locator(`${PACK} [data-control="cand"]`).selectOption('5000');
  await w.page.locator(`${PACK} [data-control="eps"]`).press('ArrowLeft');
  await w.waitState({ eps: '0.25' }, PACK);
  await waitPack(w);
  await w.page.waitForFunction(() => new URLSearchParams(window.location.search).get('eps') === '0.25');
  const kept = await keptOf(w);
  expect(Math.max(...Object.keys(kept).map(Number))).toBe(128);
  expect(kept[128]).toBeGreaterThan(128);
  await w.logged(PACK);
}).at('pairs=2000&seed=2&eps=0.2&cand=20000');

it('predict, then reveal: closer to 90 degrees at d = 1000; exports', async (w) => {
  await w.reveal({ wrong: '0', says: /88\.19\u00b0/, part: { d: '1000' }, right: '90', logged: false });
  await waitHist(w);
  await w.logged();
  const json = await exportJson(w.page, w.tag);
  expect(json.state.d).toBe('1000');
  for (const name of ['rms', 'mean-abs']) expect(typeof json.numbers[name]).toBe('number');
}).at('d=2&pairs=2000&cand=5000');
