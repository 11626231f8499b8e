// "The 1/√d_k fix" (#ch-scale-fix, <ag-scale-fix>): for each d_k, 256 rows of random scores through softmax
// unscaled and scaled; the curves are means over the rows, computed in the experiment worker. The float64
// reference recomputes softmax, the largest weight, the entropy (bits) and ||J||_F of the softmax Jacobian from
// the scores the widget exports (the sample row) and, for the curves, from the generator's normals of every row
// (the inputs), with the scores q.k_j and the means taken in float64. The link is read back in the same page.
import { expect } from '@jest/globals';
import { exportJson, exportText } from './helpers.mjs';
import { entropyBits, norm, softmax, softmaxJacobian } from '../reference/float64.mjs';
import { chapterTests, one } from './chapter-tests.mjs';

const DKS = Array.from({ length: 12 }, (_, i) => 2 ** (i + 1));
const SCALINGS = Object.entries({ unscaled: () => 1, scaled: (dk) => Math.sqrt(dk) });
/** A test waits for the worker's curves (tens of seconds on a busy machine). */
const it = chapterTests({ ch: 'scale-fix', tag: 'ag-scale-fix', timeout: 300000 });
const waitRun = (w) => w.waitData('run', 'done', 200000);

/**
 * The float64 scores of every row at d_k, from the module's normals (the inputs): row r takes q (d_k normals) from
 * counter r B and its T keys (T d_k normals) from counter r B + ceil(d_k / 4), B = ceil(d_k / 4) + ceil(T d_k / 4),
 * as the chapter states. The draws are the test's, not the widget's: they leave the call log again.
 */
const rowScores = (w, dk) =>
  w.eval(
    (el, { seed, tokens, dk }) => {
      const n0 = window.__agCallLog.length;
      const [qb, per] = [Math.ceil(dk / 4), Math.ceil(dk / 4) + Math.ceil((tokens * dk) / 4)];
      return Array.from({ length: 256 }, (_, r) => {
        const q = el.engine.random.normal({ seed, counter: r * per, n: dk }).data;
        const K = el.engine.random.normal({ seed, counter: r * per + qb, n: tokens * dk }).data;
        window.__agCallLog.length = n0;
        return Array.from({ length: tokens }, (_, j) => q.reduce((s, x, i) => s + K[j * dk + i] * x, 0));
      });
    },
    { seed: 7, tokens: 16, dk },
  );

/** float64 reference for one row of scores s at temperature t. */
function reference(s, t) {
  const w = softmax(s, 1, s.length, { temperature: t });
  return { w, max: Math.max(...w), entropy: entropyBits(w), jacobian: norm(softmaxJacobian(w)) };
}

/** float64 means over the rows of the largest weight, the entropy and ||J||_F, unscaled and scaled. */
const meanCurves = (rows, dk) =>
  Object.fromEntries(
    SCALINGS.map(([key, t]) => {
      const refs = rows.map((s) => reference(s, t(dk)));
      const mean = (k) => refs.reduce((sum, r) => sum + r[k], 0) / rows.length;
      return [key, { max: mean('max'), entropy: mean('entropy'), jacobian: mean('jacobian') }];
    }),
  );

/** The answer on show (as after the learner's answer): what waits for it is displayed and exported. */
const answerShown = (w) => w.eval((el) => el.answerShown('answer'));

/** Compares the shown detail numbers at the chosen d_k with the reference for the exported scores. */
async function expectDetail(w, dk) {
  const json = await exportJson(w.page, w.tag);
  expect(json.row.dk).toBe(dk);
  const s = json.row.scores;
  expect(s.length).toBe(json.state.tokens);
  const numbers = await w.read();
  for (const [key, scale] of SCALINGS) {
    const t = scale(dk);
    const ref = reference(s, t);
    // Weights: float32 softmax (a few tens of u, plus the rounding of s / t that exp turns into |z| u).
    const zmax = Math.max(...s.map((x) => Math.abs(x / t)));
    json.row[key].forEach((w, i) =>
      expect(Math.abs(w - ref.w[i])).toBeLessThanOrEqual(1e-5 * ref.w[i] + 4 * zmax * 2 ** -24 * ref.w[i] + 1e-30),
    );
    const [max, h, j] = ['max', 'entropy', 'jacobian'].map((role) => one(numbers, role, key));
    expect(Math.abs(max.value - ref.max)).toBeLessThanOrEqual(1e-5 * ref.max + 4 * zmax * 2 ** -24);
    expect(Math.abs(h.value - ref.entropy)).toBeLessThanOrEqual(1e-4 * (ref.entropy + 1e-3) + 1e-6);
    // A weight within 2^-24 of 1 is stored as 1, so its diagonal entry alpha (1 - alpha) can lose all its
    // (tiny) value: an absolute error up to 2^-24 besides the relative one.
    expect(Math.abs(j.value - ref.jacobian)).toBeLessThanOrEqual(1e-4 * ref.jacobian + 2 ** -24);
    // The text shown is the stored value to at most four significant digits (rounded: within half a unit of the
    // fourth digit, 5e-4 of the value).
    expect(Math.abs(Number(max.text) - max.value)).toBeLessThanOrEqual(5e-4 * max.value);
    expect(max.text.replace(/e.*$/, '').replace(/^0\.0*|\./g, '').length).toBeLessThanOrEqual(4);
  }
  return json;
}
// One page for what the defaults show (each page open waits for a run of 256 rows per d_k).
it('opens at d_k = 64, matching float64; the mean curves: unscaled the largest weight rises towards 1, scaled it stays flat; exports', async (w) => {
  await waitRun(w);
  // Before the answer the unscaled series is held: the exports leave it out.
  expect(Object.keys((await exportJson(w.page, w.tag)).row)).toEqual(['dk', 'scores', 'scaled']);
  expect((await exportText(w.page, w.tag, 'csv')).split('\r\n')[0]).not.toMatch(/unscaled/);
  await answerShown(w);
  await expectDetail(w, 64);
  const numbers = await w.read();
  expect(numbers.filter((n) => n.role.startsWith('curve-')).length).toBe(72); // 12 values of d_k, 6 means each
  // The maximum entropy of 16 weights is log2 16 = 4 bits.
  expect(Math.abs(one(numbers, 'max-entropy').value - 4)).toBeLessThanOrEqual(1e-5);
  expect(await w.at('.katex').count()).toBeGreaterThan(0);
  const shown = (k, s, dk) => one(numbers, `curve-${k}`, `${s}-${dk}`).value;
  const ref = new Map();
  for (const dk of DKS) ref.set(dk, meanCurves(await rowScores(w, dk), dk));
  for (const dk of DKS)
    for (const [s] of SCALINGS)
      for (const k of ['max', 'entropy', 'jacobian'])
        // Each row's scores carry float32 rounding (about log2(d_k) u of sum |q_i k_ij|, up to ~1e-3 at
        // d_k = 4096, a relative change of the weights of that size); a mean of 256 rows keeps that size.
        // Allow 2e-3 of the measure's scale (1 for the weight and ||J||, log2 T = 4 bits).
        expect(Math.abs(shown(k, s, dk) - ref.get(dk)[s][k])).toBeLessThanOrEqual(2e-3 * (k === 'entropy' ? 4 : 1));
  const curve = (s, k) => DKS.map((dk) => ref.get(dk)[s][k]);
  // Unscaled: the mean largest weight rises at every step of d_k (reference and shown curve) to above 0.95; the
  // entropy falls at every step, to under 0.1; ||J|| (first growing a little, 2 to 4) falls from d_k = 4 on.
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
  await w.see({ 'path.band': 6, '.figure .caption': /10th to the 90th percentile/ });
  const csv = (await exportText(w.page, w.tag, 'csv')).split('\r\n');
  const series = ['max', 'entropy', 'jacobian'].flatMap((k) => SCALINGS.map(([s]) => `${k}_${s}`));
  expect(csv[0]).toBe(['dk', ...series.flatMap((h) => [h, `${h}_p10`, `${h}_p90`])].join(','));
  expect(csv.filter((l) => /^\d/.test(l)).length).toBe(12);
});
it('dragging across the panels and the arrow keys choose d_k; the URL reopens the state', async (w) => {
  await answerShown(w); // the unscaled series is compared too
  const svg = w.at('svg.scale-plot');
  await svg.scrollIntoViewIfNeeded();
  const scrollBefore = await w.page.evaluate(() => window.scrollY);
  const box = await svg.boundingBox();
  // Drag from the left (d_k = 2) to the right edge (d_k = 4096).
  const y = box.y + box.height * 0.5;
  await w.page.mouse.move(box.x + box.width * 0.3, y);
  await w.page.mouse.down();
  await w.page.mouse.move(box.x + box.width * 0.6, y, { steps: 4 });
  await w.page.mouse.move(box.x + box.width - 2, y, { steps: 4 });
  await w.page.mouse.up();
  // The drag does not scroll the page (scroll anchoring may move it a few pixels as the numbers below rewrap; a
  // scroll by the gesture would move it by the drag's length).
  expect(Math.abs((await w.page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(16);
  expect((await w.state()).dk).toBe('4096');
  await expectDetail(w, 4096);
  // Keys: Left twice = 1024, Home = 2, End = 4096, Left = 2048.
  const steps = { 1024: ['ArrowLeft', 'ArrowLeft'], 2: 'Home', 2048: ['End', 'ArrowLeft'] };
  await w.keys('svg.scale-plot', ...[1024, 2, 2048].map((dk) => [steps[dk], { dk: `${dk}` }]));
  expect(await svg.getAttribute('aria-valuetext')).toBe('d\u2096 = 2048');
  expect(await w.at('[aria-live]').last().textContent()).toMatch(/d\u2096 = 2048/);
  await expectDetail(w, 2048);
  await waitRun(w);
  await w.reopens(await w.read(), { params: { dk: '2048', seed: '7' }, before: waitRun });
});

it('predict, then reveal: unscaled, the largest weight approaches 1', async (w) => {
  await w.reveal({ wrong: 'uniform', part: { dk: '4096' }, right: 'one' });
  await expectDetail(w, 4096);
});
it('a URL with another seed, T and d_k shows their reference values', async (w) => {
  await waitRun(w);
  const json = await expectDetail(w, 16);
  expect(json.state).toEqual({ seed: 123, tokens: 5, dk: '16' });
  expect(Math.abs(one(await w.read(), 'max-entropy').value - Math.log2(5))).toBeLessThanOrEqual(1e-5);
  await w.logged();
}).at('seed=123&tokens=5&dk=16');
