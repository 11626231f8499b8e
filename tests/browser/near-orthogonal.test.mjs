// "Near-orthogonality in high dimension" (#ch-near-orthogonal): the worker runs of <ag-near-orthogonal>
// (rms and mean |cos| against float64 moments within sampling error, the angles against acos) and
// <ag-greedy-packing> (counts, a float64 re-check of logged directions); cancel, keys, mouse, links.
import { describe, expect, test } from '@jest/globals';
import { exportJson, predictChoice, seedCase as worked, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, one, readNumbers, U } from './shown-numbers.mjs';
import { dot } from '../reference/float64.mjs';

const TAG = 'ag-near-orthogonal';
const PACK = 'ag-greedy-packing'; // the chapter's second widget
const CH = 'near-orthogonal';
const DIMS = [2, 3, 10, 100, 1000];

// Float64 moments of cos between two uniformly random directions in d dimensions.
const meanCos2 = (d) => 1 / d;
const varCos2 = (d) => 3 / (d * (d + 2)) - 1 / (d * d);
/** E|cos| = Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)), by the recurrence r(d+2) = r(d) d/(d+1) from r(2) = 2/pi, r(3) = 1/2. */
function meanAbsCos(d) {
  let r = d % 2 === 0 ? 2 / Math.PI : 0.5;
  for (let k = d % 2 === 0 ? 2 : 3; k < d; k += 2) r *= k / (k + 1);
  return r;
}
/** Standard error of the sample rms of cos over n pairs (delta method). */
const seRms = (d, n) => Math.sqrt(varCos2(d) / n) / (2 * Math.sqrt(meanCos2(d)));
const seMeanAbs = (d, n) => Math.sqrt((1 / d - meanAbsCos(d) ** 2) / n);
const degrees = (r) => (r * 180) / Math.PI;

async function waitFor(page, attr, value = 'done', timeout = 90000) {
  const tag = attr === 'packRun' ? PACK : TAG;
  await page.waitForFunction(([t, a, v]) => document.querySelector(t)?.dataset[a] === v, [tag, attr, value], {
    timeout,
  });
}

const env = useEnv();

describe('near-orthogonal: near-orthogonality in high dimension', () => {
  test('rms of cos is 1/sqrt(d) and mean |cos| is about sqrt(2/pi)/sqrt(d), within sampling error; the angles match acos', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=1000&pairs=50000&seed=7` }, async ({ page }) => {
      await waitFor(page, 'histRun');
      const n = 50000;
      const numbers = await readNumbers(page, TAG);
      // The worked examples: 1/sqrt(1000) and its angle.
      const typical = worked('cos-typical-1000');
      const typicalAngle = worked('angle-typical-1000');
      expectClose(typical.expected, 1 / Math.sqrt(1000), typical.tolerance, 'worked example cos');
      const rms = one(numbers, 'rms').value;
      expect(Math.abs(rms - typical.expected)).toBeLessThanOrEqual(4 * seRms(1000, n));
      expect(one(numbers, 'rms').text).toMatch(/^0\.03/);
      expectClose(one(numbers, 'inv-sqrt-d').value, 1 / Math.sqrt(1000), (8 * U) / Math.sqrt(1000), '1/sqrt(1000)');
      const rmsAngle = degrees(one(numbers, 'rms-angle').value);
      expectClose(rmsAngle, typicalAngle.expected, typicalAngle.tolerance, 'angle of 1/sqrt(1000)');
      expect(one(numbers, 'rms-angle').text).toBe('88.19\u00b0');
      const meanAbs = one(numbers, 'mean-abs').value;
      const approx = Math.sqrt(2 / Math.PI) / Math.sqrt(1000);
      expect(Math.abs(meanAbs - approx)).toBeLessThanOrEqual(
        4 * seMeanAbs(1000, n) + Math.abs(meanAbsCos(1000) - approx),
      );
      expectClose(one(numbers, 'rms-sqrt-d').value, rms * Math.sqrt(1000), 8 * U, 'rms * sqrt(d)');
      expectClose(one(numbers, 'mean-abs-sqrt-d').value, meanAbs * Math.sqrt(1000), 8 * U, 'mean|cos| * sqrt(d)');
      expect(Math.abs(one(numbers, 'mean').value)).toBeLessThanOrEqual(4 / Math.sqrt(1000 * n));
      // The table: every d, with the columns times sqrt(d) the things to try point at.
      const heads = await page.locator(`${TAG} table.dims thead th`).allTextContents();
      expect(heads.join(' | ')).toBe(
        'd | rms cos | angle of 1/\u221ad | rms \u00d7 \u221ad | mean |cos| | mean |cos| \u00d7 \u221ad',
      );
      const tries = await page.locator(`#ch-${CH} .tries li`).allTextContents();
      const pointer = tries.find((t) => t.includes('\u00d7 \u221ad'));
      for (const quoted of pointer.match(/\u201c[^\u201d]*\u201d/g)) expect(heads).toContain(quoted.slice(1, -1));
      for (const role of ['rms-sqrt-d', 'mean-abs-sqrt-d', 'rms'])
        expect(byRole(numbers, `table-${role}`).length).toBe(5);
      const cell = (role, d) => one(numbers, `table-${role}`, d);
      for (const d of DIMS) {
        const [r, a] = [cell('rms', d).value, cell('mean-abs', d).value];
        expect(Math.abs(r - 1 / Math.sqrt(d))).toBeLessThanOrEqual(4 * seRms(d, n));
        expect(Math.abs(a - meanAbsCos(d))).toBeLessThanOrEqual(4 * seMeanAbs(d, n));
        expect(a).toBeLessThan(r); // the mean |cos| sits inside the rms
        const [rs, as] = [cell('rms-sqrt-d', d), cell('mean-abs-sqrt-d', d)];
        expectClose(rs.value, r * Math.sqrt(d), 8 * U * Math.sqrt(d), `rms * sqrt(${d})`);
        expectClose(as.value, a * Math.sqrt(d), 8 * U * Math.sqrt(d), `mean|cos| * sqrt(${d})`);
        expect(Math.abs(rs.value - 1)).toBeLessThanOrEqual(4 * seRms(d, n) * Math.sqrt(d));
        expect(Math.abs(rs.shown - rs.value)).toBeLessThanOrEqual(5e-4 * Math.abs(rs.value));
        expect(Math.abs(as.shown - as.value)).toBeLessThanOrEqual(5e-4 * Math.abs(as.value));
        if (d >= 100) expect(Math.abs(as.value - Math.sqrt(2 / Math.PI))).toBeLessThan(0.02);
        expectClose(cell('angle', d).value, Math.acos(1 / Math.sqrt(d)), 2e-6, `acos(1/sqrt(${d}))`);
      }
      // One random pair at d = 1000 is within a few degrees of a right angle.
      expect(Math.abs(degrees(one(numbers, 'pair-angle').value) - 90)).toBeLessThan(8);
      await expectAllLogged(page, TAG);
      expect(
        await page.evaluate(() => window.__agCallLog.some((c) => c.worker && c.kernel === 'random_dot_experiment')),
      ).toBe(true);
    });
  }, 150000);

  test('the close-up labels meet neither each other nor a line; every tick is a plain number, at every d', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}` }, async ({ page }) => {
      await waitFor(page, 'histRun');
      const look = () =>
        page.evaluate((tag) => {
          const root = document.querySelector(tag).shadowRoot;
          const g = root.querySelector('svg g.detail');
          const box = (n) => {
            const b = n.getBoundingClientRect();
            return { l: b.left, r: b.right, t: b.top, b: b.bottom };
          };
          const ticks = [...document.querySelectorAll(`${tag}, ag-greedy-packing`)].flatMap((el) =>
            [...el.shadowRoot.querySelectorAll('svg .tick text, svg text.tick')].map((n) => n.textContent),
          );
          return {
            d: g.dataset.dim,
            rms: box(g.querySelector('.label-rms')),
            abs: box(g.querySelector('.label-abs')),
            lines: [...g.querySelectorAll('.marks line')].map(box),
            ticks,
          };
        }, TAG);
      const meet = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
      const check = (seen, d) => {
        expect(seen.d).toBe(String(d));
        expect(seen.rms.r - seen.rms.l).toBeGreaterThan(5);
        expect(seen.abs.r - seen.abs.l).toBeGreaterThan(20);
        expect(meet(seen.rms, seen.abs)).toBe(false);
        expect(seen.lines.length).toBe(4);
        for (const line of seen.lines) {
          expect(meet(seen.rms, line)).toBe(false);
          expect(meet(seen.abs, line)).toBe(false);
        }
        expect(seen.ticks.length).toBeGreaterThan(10);
        for (const t of seen.ticks) expect(t).toMatch(/^\u2212?\d+(\.\d+)?$/);
      };
      // The default state is d = 1000.
      check(await look(), 1000);
      for (const d of DIMS) {
        await page.locator(`${TAG} .multiple[data-dim="${d}"]`).click();
        await page.waitForFunction(([tag, dd]) => document.querySelector(tag).state.d === dd, [TAG, String(d)]);
        check(await look(), d);
      }
    });
  }, 120000);

  test('keys and clicks select d, a changed URL gives its state, and the URL follows', async () => {
    const search = `?ch=${CH}&v=1&d=10&pairs=2000&seed=5&cand=5000&eps=0.1`;
    await withChapter(env, CH, TAG, { search }, async (opened) => {
      const { page } = opened;
      expect(await stateOf(page, TAG)).toEqual({ d: '10', pairs: '2000', seed: 5 });
      expect(await stateOf(page, PACK)).toEqual({ eps: '0.1', cand: '5000', seed: 5 });
      await waitFor(page, 'histRun');
      await page.locator(`${TAG} .multiple[data-dim="10"]`).focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((tag) => document.querySelector(tag).state.d === '100', TAG);
      expect(await page.locator(TAG).evaluate((el) => el.shadowRoot.activeElement?.dataset.dim)).toBe('100');
      let numbers = await readNumbers(page, TAG);
      expect(Math.abs(one(numbers, 'rms').value - 0.1)).toBeLessThanOrEqual(4 * seRms(100, 2000));
      expectClose(degrees(one(numbers, 'rms-angle').value), degrees(Math.acos(0.1)), 1e-4, 'angle of 0.1');
      await page.waitForFunction(() => new URLSearchParams(window.location.search).get('d') === '100');
      // The mouse: d = 2, where the angle of the rms is 45 degrees.
      await page.locator(`${TAG} .multiple[data-dim="2"]`).click();
      numbers = await readNumbers(page, TAG);
      expect(Math.abs(one(numbers, 'rms').value - Math.SQRT1_2)).toBeLessThanOrEqual(4 * seRms(2, 2000));
      expect(Math.abs(one(numbers, 'mean-abs').value - 2 / Math.PI)).toBeLessThanOrEqual(4 * seMeanAbs(2, 2000));
      expect(one(numbers, 'rms-angle').text).toBe('45\u00b0');
      await page.keyboard.press('End');
      await page.waitForFunction((tag) => document.querySelector(tag).state.d === '1000', TAG);
      await page.waitForFunction(() => new URLSearchParams(window.location.search).get('d') === '1000');
      expect((await urlParams(page)).get('seed')).toBe('5');
      await expectAllLogged(page, TAG);
    });
  }, 120000);

  test('greedy packing: far more than d directions at d = 256, pairwise within eps (float64 re-check)', async () => {
    const search = `?ch=${CH}&v=1&pairs=2000&seed=1&eps=0.2&cand=20000`;
    await withChapter(env, CH, TAG, { search }, async ({ page }) => {
      await waitFor(page, 'packRun', 'done', 120000);
      const numbers = await readNumbers(page, PACK);
      const kept = Object.fromEntries(byRole(numbers, 'kept').map((x) => [Number(x.key), x.value]));
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
      const logged = await page.evaluate(() =>
        window.__agCallLog
          .filter((c) => c.kernel === 'greedy_packing' && c.result.directions.data.length > 0)
          .map((c) => ({ d: c.args.d[0], kept: c.result.kept, data: Array.from(c.result.directions.data) })),
      );
      const checked = new Set();
      for (const d of [3, 8, 16, 32, 64]) {
        const last = logged.filter((c) => c.d === d).at(-1);
        if (!last) continue;
        expect(last.kept).toBe(kept[d]);
        const rows = Array.from({ length: last.kept }, (_, i) => last.data.slice(i * d, (i + 1) * d));
        for (const r of rows) expectClose(Math.hypot(...r), 1, 1e-5, `unit length at d=${d}`);
        for (let i = 0; i < rows.length; i++)
          for (let j = 0; j < i; j++) expect(Math.abs(dot(rows[i], rows[j]))).toBeLessThanOrEqual(0.2 + 1e-5);
        checked.add(d);
      }
      expect(checked.size).toBeGreaterThanOrEqual(3);
      await expectAllLogged(page, PACK);
    });
  }, 180000);

  test('dragging eps starts a new run; cancel leaves the page responsive; a key starts a right run', async () => {
    const search = `?ch=${CH}&v=1&pairs=2000&seed=2&eps=0.2&cand=20000`;
    await withChapter(env, CH, TAG, { search }, async ({ page }) => {
      await waitFor(page, 'histRun');
      await waitFor(page, 'packRun');
      // Every state of the packing run from now on (a fast run may be done before a check could see it).
      await page.locator(PACK).evaluate((el) => {
        window.__packRuns = [];
        new MutationObserver(() => window.__packRuns.push(el.dataset.packRun)).observe(el, {
          attributes: true,
          attributeFilter: ['data-pack-run'],
        });
      });
      // Drag the slider with the mouse to its right end: eps = 0.3.
      const slider = page.locator(`${PACK} [data-control="eps"]`);
      await slider.scrollIntoViewIfNeeded();
      const box = await slider.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width + 20, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.waitForFunction((tag) => document.querySelector(tag).state.eps === '0.3', PACK);
      expect(await page.evaluate(() => window.__packRuns)).toContain('running');
      // Cancel a run in the same task that starts it (a new seed), so that it cannot end first.
      const runs = await page.locator(PACK).evaluate((el) => {
        el.setState({ seed: el.state.seed + 1 });
        const started = el.dataset.packRun;
        el.shadowRoot.querySelector('[data-action="cancel-pack"]').click();
        return [started, el.dataset.packRun];
      });
      expect(runs).toEqual(['running', 'cancelled']);
      // The main thread answers (a page frozen by the run would not: no time is
      // gated here, a shared machine's timings are noise).
      expect(await page.evaluate(() => 1 + 1)).toBe(2);
      // The d buttons still answer at once.
      await page.locator(`${TAG} .multiple[data-dim="3"]`).click();
      expect(await page.locator(TAG).evaluate((el) => el.state.d)).toBe('3');
      // Fewer candidates and one key step left: eps = 0.25, a new run that finishes.
      await page.locator(`${PACK} [data-control="cand"]`).selectOption('5000');
      await slider.focus();
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction((tag) => document.querySelector(tag).state.eps === '0.25', PACK);
      await waitFor(page, 'packRun', 'done', 120000);
      await page.waitForFunction(() => new URLSearchParams(window.location.search).get('eps') === '0.25');
      const kept = Object.fromEntries(
        byRole(await readNumbers(page, PACK), 'kept').map((x) => [Number(x.key), x.value]),
      );
      expect(Math.max(...Object.keys(kept).map(Number))).toBe(128);
      expect(kept[128]).toBeGreaterThan(128);
      await expectAllLogged(page, PACK);
    });
  }, 180000);

  test('predict, then reveal: closer to 90 degrees at d = 1000; exports', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=2&pairs=2000&cand=5000` }, async ({ page }) => {
      await predictChoice(page, TAG, '0', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/88\.19\u00b0/);
      expect(await page.locator(TAG).evaluate((el) => el.state.d)).toBe('1000');
      await predictChoice(page, TAG, '90', 'right');
      await waitFor(page, 'histRun');
      await expectAllLogged(page, TAG);
      const json = await exportJson(page, TAG);
      expect(json.state.d).toBe('1000');
      expect(typeof json.numbers.rms).toBe('number');
      expect(typeof json.numbers['mean-abs']).toBe('number');
    });
  }, 120000);
});
