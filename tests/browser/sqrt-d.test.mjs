// "Why scores grow like √d" (#ch-sqrt-d, <ag-sqrt-d>): the Monte Carlo
// experiment in a Web Worker. Checks the statistics against √d_k within
// sampling error (fixed seed, 20,000 pairs at d_k = 4096, beyond one call's
// work bound, so streamed in chunks, then at 64 and 512 as in the worked
// examples), the exact density curve against an independent float64
// density written here, cancel (the page stays responsive and a new run is
// right), the log-linked state, the prediction, exports and the layout.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { predictChoice, ROOT, urlParams, useEnv, waitRun as waitFor, withChapter } from './helpers.mjs';
import { dragSlider, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-sqrt-d';
const CH = 'sqrt-d';
const seeds = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8'));
const expectedSpread = (d) => {
  const list = Array.isArray(seeds) ? seeds : (seeds.examples ?? Object.values(seeds).find(Array.isArray));
  const item = list.find((e) => e.id === `sqrt-d-spread-${d}`);
  return item ? item.expected : Math.sqrt(d);
};

const waitRun = (page, timeout = 60000) => waitFor(page, TAG, timeout);

/** The curve of the latest logged density call at d (its y values). */
const densityAt = async (page, d) =>
  (
    await page.evaluate(() =>
      window.__agCallLog.filter((c) => c.kernel === 'dot_density').map((c) => [c.args.d[0], Array.from(c.result.data)]),
    )
  ).findLast((c) => c[0] === d)[1];

// An independent float64 density of q.k: the Fourier integral
// (1/pi) int_0^inf cos(tx) (1 + t^2)^(-d/2) dt by Simpson's rule (d >= 2,
// where the integrand decays at least like 1/t^2).
function densityRef(x, d) {
  const T = d === 2 ? 4000 : d < 8 ? 400 : 60 / Math.sqrt(d) + 20 / Math.sqrt(d);
  const n = d === 2 ? 400000 : 20000;
  const h = T / n;
  let s = 0;
  for (let i = 0; i <= n; i++) {
    const t = i * h;
    const w = i === 0 || i === n ? 1 : i % 2 ? 4 : 2;
    s += w * Math.cos(t * x) * (1 + t * t) ** (-d / 2);
  }
  return (s * h) / 3 / Math.PI;
}

const env = useEnv();

describe('sqrt-d: why scores grow like sqrt(d)', () => {
  test('20,000 pairs run in full, streamed in chunks: sqrt(4096) and the sweep, then the worked examples at 64 and 512', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=4096&pairs=20000&seed=7` }, async (opened) => {
      const { page } = opened;
      await waitRun(page, 300000);
      let numbers = await readNumbers(page, TAG);
      // Every pair asked for ran (one call may do 2^26 / 4096 = 16,384), and the page says so.
      expect(await page.locator(`${TAG} [data-role="pairs-used"]`).textContent()).toBe('20,000');
      expect(await page.locator(`${TAG} .run [role="status"]`).textContent()).toMatch(
        /^Done: 20,000 pairs at d\u2096 = 4096, seed 7; 20,000 pairs at each d\u2096 of the sweep\.$/,
      );
      const n = 20000;
      // A sample std of n values has a standard error of about sigma / sqrt(2n)
      // times sqrt(1 + kurtosis excess / 2); the excess of q.k is 6 / d, so the
      // factor is sqrt(1 + 3/d). At d_k = 4096: 64 / sqrt(4e4) = 0.32.
      const se = (d) => (Math.sqrt(d) * Math.sqrt(1 + 3 / d)) / Math.sqrt(2 * n);
      expect(Math.abs(one(numbers, 'std').value - 64)).toBeLessThanOrEqual(3 * se(4096));
      // The sweep ran 20,000 pairs at every d_k too (it used to stop at 2^20 / d_k, 256 at
      // d_k = 4096, 4 % off): each point within 4 standard errors of sqrt(d_k) (1.28 at 4096, 2 %).
      const sweep = byRole(numbers, 'sweep-std');
      expect(sweep.length).toBe(12);
      for (const p of sweep) {
        const d = Number(p.key);
        expect(Math.abs(p.value - Math.sqrt(d))).toBeLessThanOrEqual(4 * se(d));
      }
      expect(one(numbers, 'sweep-std', '4096').value).toBe(one(numbers, 'std').value);
      await expectAllLogged(page, TAG);
      // The worker's calls reached the page's log: one call per chunk (2 at d_k = 4096).
      const chunks = await page.evaluate(
        () =>
          window.__agCallLog.filter((c) => c.worker && c.kernel === 'random_dot_experiment' && c.args.d[0] === 4096)
            .length,
      );
      expect(chunks).toBe(2);

      // The worked examples (the sweep is kept: only the histogram run is new).
      for (const d of [64, 512]) {
        await page.locator(TAG).evaluate((el, d) => (el.state = { ...el.state, d }), d);
        await page.waitForFunction((tag) => document.querySelector(tag).state.d !== 4096, TAG);
        await waitRun(page, 300000);
        numbers = await readNumbers(page, TAG);
        const sigma = expectedSpread(d);
        expectClose(sigma, Math.sqrt(d), 1e-9, 'worked example');
        expect(Math.abs(one(numbers, 'std').value - sigma)).toBeLessThanOrEqual(3 * (sigma / Math.sqrt(2 * n)));
        expect(Math.abs(one(numbers, 'mean').value)).toBeLessThanOrEqual((3 * sigma) / Math.sqrt(n));
        expectClose(one(numbers, 'sqrt-d').value, Math.sqrt(d), 4 * U * Math.sqrt(d) * 12, 'sqrt(d) from the module');
        expect(await page.locator(`${TAG} [data-role="pairs-used"]`).textContent()).toBe('20,000');
        await expectAllLogged(page, TAG);
      }
    });
  }, 600000);

  test('the exact density: Laplace at d = 2, matching an independent float64 integral; slider and keys change d', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=2&pairs=5000&seed=1` }, async ({ page }) => {
      await waitRun(page);
      // The curve's numbers come from a logged dot_density call: check them against the reference.
      const two = await densityAt(page, 2);
      expect(two.length).toBe(161);
      const lo = Math.fround(-5 * Math.sqrt(2));
      const hi = Math.fround(5 * Math.sqrt(2));
      for (const i of [0, 40, 79, 80, 81, 120, 160]) {
        const x = Math.fround(lo + ((hi - lo) * i) / 160);
        expectClose(two[i], Math.exp(-Math.abs(x)) / 2, 4 * U * two[i] + 1e-12, `Laplace at ${x}`);
      }
      // Keys on the log slider: two steps right = a factor 2^(1/2).
      await pressOn(page, TAG, '[data-control="d"]', 'ArrowRight', 8);
      await page.waitForFunction((tag) => document.querySelector(tag).state.d === 8, TAG);
      await waitRun(page);
      const eight = await densityAt(page, 8);
      const lo8 = Math.fround(-5 * Math.sqrt(8));
      const hi8 = Math.fround(5 * Math.sqrt(8));
      for (const i of [10, 60, 80, 100]) {
        const x = Math.fround(lo8 + ((hi8 - lo8) * i) / 160);
        expectClose(eight[i], densityRef(x, 8), 1e-6 * densityRef(x, 8) + 1e-9, `density d=8 at ${x}`);
      }
      expect((await urlParams(page)).get('d')).toBe('8');
      // Drag the slider with the mouse to its right end: d = 4096.
      await dragSlider(page, TAG, '[data-control="d"]', 0.5, 1.1);
      await page.waitForFunction((tag) => document.querySelector(tag).state.d === 4096, TAG);
      await waitRun(page);
      const numbers = await readNumbers(page, TAG);
      const std = one(numbers, 'std').value;
      const n = 5000;
      expect(Math.abs(std - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(2 * n));
      // The sweep: every measured std within 5 standard errors of sqrt(d).
      const sweep = byRole(numbers, 'sweep-std');
      expect(sweep.length).toBe(12);
      sweep.forEach((p) => {
        const d = Number(p.key);
        const t = 5000; // every point runs the pairs asked for
        // d = 2 has heavy tails (kurtosis 6): widen by sqrt(1 + kurtosis excess / 2).
        expect(Math.abs(p.value - Math.sqrt(d))).toBeLessThanOrEqual(
          (5 * Math.sqrt(d) * Math.sqrt(1 + 3 / d)) / Math.sqrt(2 * t),
        );
      });
      await expectAllLogged(page, TAG);
    });
  }, 120000);

  test('cancel stops the run, leaves the page responsive, and a new run is right', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&d=4096&pairs=100000&seed=3` }, async ({ page }) => {
      await page.waitForFunction((tag) => document.querySelector(tag)?.dataset.run === 'running', TAG);
      // By keyboard: the Cancel button disables itself, and the focus goes on to "Run again", not to the page.
      await page.locator(`${TAG} [data-action="cancel"]`).focus();
      await page.keyboard.press('Enter');
      expect(await page.locator(TAG).evaluate((el) => el.dataset.run)).toBe('cancelled');
      expect(await page.locator(TAG).evaluate((el) => el.shadowRoot.activeElement?.textContent)).toBe('Run again');
      const status = () => page.locator(`${TAG} .status`).textContent();
      // The status says how far it went, and that nothing shown is of a run.
      expect(await status()).toMatch(/^Cancelled at \d+ %\. No run has finished yet, so there is nothing to show\./);
      // The main thread answers (a page frozen by the run would not: no time is
      // gated here, a shared machine's timings are noise).
      expect(await page.evaluate(() => 1 + 1)).toBe(2);
      // A new run (smaller) completes and is right.
      await page.locator(`${TAG} [data-control="pairs"]`).selectOption('1000');
      await waitRun(page);
      const numbers = await readNumbers(page, TAG);
      expect(Math.abs(one(numbers, 'std').value - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(2 * 1000));
      expect(await page.locator(`${TAG} [data-role="pairs-used"]`).textContent()).toBe('1,000');
      await expectAllLogged(page, TAG);
      // A long run cancelled after that one: the figures are said to be the finished run's, of other settings.
      await page.locator(`${TAG} [data-control="pairs"]`).selectOption('100000');
      await page.waitForFunction((tag) => document.querySelector(tag).dataset.run === 'running', TAG);
      await page.locator(`${TAG} [data-action="cancel"]`).click();
      expect(await status()).toMatch(
        /^Cancelled at \d+ %\. The figures and numbers below are those of the last finished run, of other settings, not of these \(1,000 pairs at d\u2096 = 4096, seed 3\)\./,
      );
      expect(await page.locator(`${TAG} [data-role="pairs-used"]`).textContent()).toBe('1,000');
    });
  }, 120000);

  test('predict, then reveal: about 64 at d = 4096', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, '4096', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/64/);
      expect(await page.locator(TAG).evaluate((el) => el.state.d)).toBe(4096);
      await waitRun(page);
    });
  }, 120000);
});
