// "The 1/√d_k fix" (#ch-scale-fix, <ag-scale-fix>): for each d_k, 256 rows of
// random scores through softmax unscaled and scaled; the curves are means over
// the rows, computed in the experiment worker. The float64 reference below
// recomputes softmax, the largest weight, the entropy (bits) and the
// Frobenius norm of the softmax Jacobian from the scores the widget exports
// (the sample row) and, for the curves, from the generator's normals of every
// row (the inputs), with the scores q.k_j and the means taken in float64.
import { describe, expect, jest, test } from '@jest/globals';
import { exportJson, exportText, predictChoice, settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged, one, readNumbers } from './shown-numbers.mjs';
import { entropyBits, norm, softmax, softmaxJacobian } from '../reference/float64.mjs';

const TAG = 'ag-scale-fix';
const CH = 'scale-fix';
const DKS = Array.from({ length: 12 }, (_, i) => 2 ** (i + 1));
const ROWS = 256;
/** A test waits for the worker's curves (tens of seconds on a busy machine). */
const LONG = 240000;
jest.setTimeout(LONG);

/** Waits until the worker has computed the curves. */
async function waitRun(page) {
  await page.waitForFunction((tag) => document.querySelector(tag)?.dataset.run === 'done', TAG, { timeout: 200000 });
}

/**
 * The float64 scores of every row at d_k, from the module's normals (the
 * inputs): row r takes q (d_k normals) from counter r B and its T keys
 * (T d_k normals) from counter r B + ceil(d_k / 4), B = ceil(d_k / 4) +
 * ceil(T d_k / 4), as the chapter states. The draws are removed from the call
 * log again (they are the test's, not the widget's).
 */
async function rowScores(page, { seed, tokens, dk }) {
  return page.locator(TAG).evaluate(
    (el, { seed, tokens, dk, rows }) => {
      const n0 = window.__agCallLog.length;
      const qb = Math.ceil(dk / 4);
      const per = qb + Math.ceil((tokens * dk) / 4);
      const out = [];
      for (let r = 0; r < rows; r++) {
        const q = el.engine.random.normal({ seed, counter: r * per, n: dk }).data;
        const K = el.engine.random.normal({ seed, counter: r * per + qb, n: tokens * dk }).data;
        const s = [];
        for (let j = 0; j < tokens; j++) {
          let dot = 0;
          for (let i = 0; i < dk; i++) dot += K[j * dk + i] * q[i];
          s.push(dot);
        }
        out.push(s);
        window.__agCallLog.length = n0;
      }
      return out;
    },
    { seed, tokens, dk, rows: ROWS },
  );
}

/** float64 means over the rows of the largest weight, the entropy and ||J||_F, unscaled and scaled. */
function meanCurves(rows, dk) {
  const out = {};
  for (const [key, t] of [
    ['unscaled', 1],
    ['scaled', Math.sqrt(dk)],
  ]) {
    const sum = { max: 0, entropy: 0, jacobian: 0 };
    for (const s of rows) {
      const r = reference(s, t);
      for (const k of Object.keys(sum)) sum[k] += r[k];
    }
    out[key] = Object.fromEntries(Object.entries(sum).map(([k, v]) => [k, v / rows.length]));
  }
  return out;
}

/** float64 reference for one row of scores s at temperature t. */
function reference(s, t) {
  const w = softmax(s, 1, s.length, { temperature: t });
  return { w, max: Math.max(...w), entropy: entropyBits(w), jacobian: norm(softmaxJacobian(w)) };
}

/** Compares the shown detail numbers at the chosen d_k with the reference for the exported scores. */
async function expectDetail(page, dk) {
  const json = await exportJson(page, TAG);
  expect(json.row.dk).toBe(dk);
  const s = json.row.scores;
  expect(s.length).toBe(json.state.tokens);
  const numbers = await readNumbers(page, TAG);
  for (const [key, t] of [
    ['unscaled', 1],
    ['scaled', Math.sqrt(dk)],
  ]) {
    const ref = reference(s, t);
    // Weights: float32 softmax (relative error a few tens of u, plus the
    // rounding of s / t that exp turns into an absolute error of |z| u).
    const zmax = Math.max(...s.map((x) => Math.abs(x / t)));
    json.row[key].forEach((w, i) =>
      expect(Math.abs(w - ref.w[i])).toBeLessThanOrEqual(1e-5 * ref.w[i] + 4 * zmax * 2 ** -24 * ref.w[i] + 1e-30),
    );
    const max = one(numbers, 'max', key);
    expect(Math.abs(max.value - ref.max)).toBeLessThanOrEqual(1e-5 * ref.max + 4 * zmax * 2 ** -24);
    const h = one(numbers, 'entropy', key);
    expect(Math.abs(h.value - ref.entropy)).toBeLessThanOrEqual(1e-4 * (ref.entropy + 1e-3) + 1e-6);
    const j = one(numbers, 'jacobian', key);
    // A weight within 2^-24 of 1 is stored as 1 in float32, so its diagonal
    // entry alpha (1 - alpha) can lose all of its (tiny) value: an absolute
    // error up to 2^-24 besides the relative one.
    expect(Math.abs(j.value - ref.jacobian)).toBeLessThanOrEqual(1e-4 * ref.jacobian + 2 ** -24);
    // The text shown is the stored value to four significant digits.
    expect(max.text.length).toBeGreaterThan(0);
  }
  return json;
}

const env = useEnv();

describe('scale-fix: the 1/sqrt(d_k) fix', () => {
  // One page for what the defaults show (each page open waits for a run of 256 rows per d_k).
  test('opens at d_k = 64, every number logged and matching float64; the mean curves: unscaled the largest weight rises towards 1, scaled it stays flat; exports', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await waitRun(page);
      await expectDetail(page, 64);
      const numbers = await readNumbers(page, TAG);
      // The curves: 12 values of d_k, 6 means each.
      expect(numbers.filter((n) => n.role.startsWith('curve-')).length).toBe(72);
      // The maximum entropy of 16 weights is log2 16 = 4 bits.
      expect(Math.abs(one(numbers, 'max-entropy').value - 4)).toBeLessThanOrEqual(1e-5);
      await expectAllLogged(page, TAG);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
      const shown = (k, s, dk) => one(numbers, `curve-${k}`, `${s}-${dk}`).value;
      const ref = new Map();
      for (const dk of DKS) ref.set(dk, meanCurves(await rowScores(page, { seed: 7, tokens: 16, dk }), dk));
      for (const dk of DKS)
        for (const s of ['unscaled', 'scaled'])
          for (const k of ['max', 'entropy', 'jacobian']) {
            // Each row's scores carry float32 rounding (a sum of d_k products:
            // about log2(d_k) u of sum |q_i k_ij|, up to ~1e-3 at d_k = 4096,
            // which exp turns into a relative change of the weights of the same
            // size); a mean of 256 rows keeps that size. Allow 2e-3 of the
            // measure's scale (1 for the weight and ||J||, log2 T = 4 bits).
            const scale = k === 'entropy' ? 4 : 1;
            expect(Math.abs(shown(k, s, dk) - ref.get(dk)[s][k])).toBeLessThanOrEqual(2e-3 * scale);
          }
      const curve = (s, k) => DKS.map((dk) => ref.get(dk)[s][k]);
      // Unscaled: the mean largest weight rises at every step of d_k (the
      // reference and the shown curve alike) and ends above 0.95; the mean
      // entropy falls at every step, to under 0.1; the mean Jacobian norm
      // (which first grows a little, from d_k = 2 to 4) falls at every step
      // from d_k = 4 on, to under 0.05.
      const rising = (c) => c.every((v, i) => i === 0 || v > c[i - 1]);
      const falling = (c) => c.every((v, i) => i === 0 || v < c[i - 1]);
      expect(rising(curve('unscaled', 'max'))).toBe(true);
      expect(rising(DKS.map((dk) => shown('max', 'unscaled', dk)))).toBe(true);
      expect(curve('unscaled', 'max').at(-1)).toBeGreaterThan(0.95);
      expect(falling(curve('unscaled', 'entropy'))).toBe(true);
      expect(curve('unscaled', 'entropy').at(-1)).toBeLessThan(0.1);
      expect(falling(curve('unscaled', 'jacobian').slice(1))).toBe(true);
      expect(curve('unscaled', 'jacobian').at(-1)).toBeLessThan(0.05);
      // Scaled: every mean stays in a narrow band over the whole range of d_k.
      const spread = (c) => Math.max(...c) - Math.min(...c);
      expect(spread(curve('scaled', 'max'))).toBeLessThan(0.05);
      expect(spread(curve('scaled', 'entropy'))).toBeLessThan(0.15);
      expect(spread(curve('scaled', 'jacobian'))).toBeLessThan(0.03);
      expect(spread(DKS.map((dk) => shown('max', 'scaled', dk)))).toBeLessThan(0.05);
      // The figure: a band and a mean line per series and panel.
      expect(await page.locator(`${TAG} path.band`).count()).toBe(6);
      await expect(page.locator(`${TAG} .figure .caption`).textContent()).resolves.toMatch(
        /10th to the 90th percentile/,
      );
      // Exports: the figure (SVG, PNG) and the curves (CSV).
      const csv = (await exportText(page, TAG, 'csv')).split('\r\n');
      const heads = ['max', 'entropy', 'jacobian'].flatMap((k) =>
        ['unscaled', 'scaled'].flatMap((s) => [`${k}_${s}`, `${k}_${s}_p10`, `${k}_${s}_p90`]),
      );
      expect(csv[0]).toBe(['dk', ...heads].join(','));
      expect(csv.filter((l) => /^\d/.test(l)).length).toBe(12);
      expect(await exportText(page, TAG, 'svg')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    });
  }, 300000);

  test('dragging across the panels and the arrow keys choose d_k; the URL reopens the state', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const svg = page.locator(`${TAG} svg.scale-plot`);
      await svg.scrollIntoViewIfNeeded();
      const scrollBefore = await page.evaluate(() => window.scrollY);
      const box = await svg.boundingBox();
      // Drag from the left (d_k = 2) to the right edge (d_k = 4096).
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.5);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.5, { steps: 4 });
      await page.mouse.move(box.x + box.width - 2, box.y + box.height * 0.5, { steps: 4 });
      await page.mouse.up();
      // The drag does not scroll the page. (Scroll anchoring may move it by a
      // few pixels when the numbers below change their wrapping; a scroll by the
      // gesture would move it by the drag's length.)
      expect(Math.abs((await page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(16);
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('4096');
      await expectDetail(page, 4096);
      // Keys: Left twice = 1024, Home = 2, End = 4096, Left = 2048.
      await svg.focus();
      for (const key of ['ArrowLeft', 'ArrowLeft']) await page.keyboard.press(key);
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('1024');
      await page.keyboard.press('Home');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('2');
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('2048');
      await expect(svg.getAttribute('aria-valuetext')).resolves.toBe('d\u2096 = 2048');
      await expect(page.locator(`${TAG} [aria-live]`).last().textContent()).resolves.toMatch(/d\u2096 = 2048/);
      await expectDetail(page, 2048);
      await expectAllLogged(page, TAG);
      const params = await urlParams(page);
      expect(params.get('ch')).toBe(CH);
      expect(params.get('dk')).toBe('2048');
      expect(params.get('seed')).toBe('7');

      await waitRun(page);
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        await waitRun(copy.page);
        const a = (await readNumbers(page, TAG)).map((n) => n.text);
        const b = (await readNumbers(copy.page, TAG)).map((n) => n.text);
        expect(b).toEqual(a);
      });
    });
  });

  test('a URL with another seed, T and d_k shows their reference values', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=scale-fix&v=1&seed=123&tokens=5&dk=16' }, async ({ page }) => {
      await waitRun(page);
      const json = await expectDetail(page, 16);
      expect(json.state).toEqual({ seed: 123, tokens: 5, dk: '16' });
      const numbers = await readNumbers(page, TAG);
      expect(Math.abs(one(numbers, 'max-entropy').value - Math.log2(5))).toBeLessThanOrEqual(1e-5);
      await expectAllLogged(page, TAG);
    });
  });

  test('predict, then reveal: unscaled, the largest weight approaches 1', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, 'uniform', 'wrong');
      expect(await page.locator(TAG).evaluate((el) => el.state.dk)).toBe('4096');
      await predictChoice(page, TAG, 'one', 'right');
      await expectDetail(page, 4096);
      await expectAllLogged(page, TAG);
    });
  });
});
