// "Why scores grow like √d" (#ch-sqrt-d, <ag-sqrt-d>): the Monte Carlo experiment in a Web Worker. The statistics
// against √d_k within sampling error (20,000 pairs at d_k = 4096, beyond one call's work bound, so streamed in
// chunks; 64 and 512 as in the worked examples), the exact density against an independent float64 one written
// here, cancel (the page stays responsive, a new run is right), the link and the number prediction.
import { expect } from '@jest/globals';
import { byRole, chapterTests, expectClose, one, seedCase, U } from './chapter-tests.mjs';

/** The worker's runs take minutes on a busy machine. */
const it = chapterTests({ ch: 'sqrt-d', tag: 'ag-sqrt-d', timeout: 600000 });
const waitRun = (w, timeout = 60000) => w.waitData('run', 'done', timeout);
const pairsUsed = (w) => w.text('[data-role="pairs-used"]');
/** Waits for d_k = d in the state, then for its run. */
const ranAt = async (w, d, timeout) => {
  await w.waitState({ d });
  await waitRun(w, timeout);
};

/** The curve of the latest logged density call at d (its 161 y values). */
const densityAt = async (w, d) =>
  (
    await w.page.evaluate(() =>
      window.__agCallLog.filter((c) => c.kernel === 'dot_density').map((c) => [c.args.d[0], Array.from(c.result.data)]),
    )
  ).findLast((c) => c[0] === d)[1];
/** The point i of the density's grid over ±5√d, in float32 as the module computes it. */
const gridX = (d, i) => {
  const [lo, hi] = [Math.fround(-5 * Math.sqrt(d)), Math.fround(5 * Math.sqrt(d))];
  return Math.fround(lo + ((hi - lo) * i) / 160);
};

// An independent float64 density of q.k: the Fourier integral (1/pi) int_0^inf cos(tx) (1 + t^2)^(-d/2) dt by
// Simpson's rule (d >= 2, where the integrand decays at least like 1/t^2).
function densityRef(x, d) {
  const T = d === 2 ? 4000 : d < 8 ? 400 : 60 / Math.sqrt(d) + 20 / Math.sqrt(d);
  const n = d === 2 ? 400000 : 20000;
  const h = T / n;
  let s = 0;
  for (let i = 0; i <= n; i++)
    s += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * Math.cos(i * h * x) * (1 + (i * h) ** 2) ** (-d / 2);
  return (s * h) / 3 / Math.PI;
}

/** Every point of the sweep (12 values of d_k) within k standard errors se(d) of sqrt(d). */
function expectSweep(numbers, k, se) {
  const sweep = byRole(numbers, 'sweep-std');
  expect(sweep.length).toBe(12);
  for (const p of sweep)
    expect(Math.abs(p.value - Math.sqrt(Number(p.key)))).toBeLessThanOrEqual(k * se(Number(p.key)));
}

// On a page of its own: the worker calls it counts are all those of the page since it opened.
it('20,000 pairs run in full, streamed in chunks: sqrt(4096) and the sweep, then the worked examples at 64 and 512', async (w) => {
  await waitRun(w, 300000);
  let numbers = await w.read();
  // Every pair asked for ran (one call may do 2^26 / 4096 = 16,384), and the page says so.
  await w.see({
    '[data-role="pairs-used"]': '20,000',
    '.run [role="status"]':
      /^Done: 20,000 pairs at d\u2096 = 4096, seed 7; 20,000 pairs at each d\u2096 of the sweep\.$/,
  });
  const n = 20000;
  // A sample std of n values has a standard error of about sigma / sqrt(2n) times sqrt(1 + kurtosis excess / 2);
  // the excess of q.k is 6 / d, so the factor is sqrt(1 + 3/d). At d_k = 4096: 64 / sqrt(4e4) = 0.32.
  const se = (d) => (Math.sqrt(d) * Math.sqrt(1 + 3 / d)) / Math.sqrt(2 * n);
  expect(Math.abs(one(numbers, 'std').value - 64)).toBeLessThanOrEqual(3 * se(4096));
  // The sweep ran 20,000 pairs at every d_k too (it used to stop at 2^20 / d_k, 256 at
  // d_k = 4096, 4 % off): each point within 4 standard errors of sqrt(d_k) (1.28 at 4096, 2 %).
  expectSweep(numbers, 4, se);
  expect(one(numbers, 'sweep-std', '4096').value).toBe(one(numbers, 'std').value);
  await w.logged();
  // The worker's calls reached the page's log: one call per chunk (2 at d_k = 4096).
  const chunks = await w.page.evaluate(
    () =>
      window.__agCallLog.filter((c) => c.worker && c.kernel === 'random_dot_experiment' && c.args.d[0] === 4096).length,
  );
  expect(chunks).toBe(2);
  // The worked examples (the sweep is kept: only the histogram run is new).
  for (const d of [64, 512]) {
    await w.eval((el, d) => (el.state = { ...el.state, d }), d); // as a link would
    await ranAt(w, d, 300000);
    numbers = await w.read();
    const sigma = seedCase(`sqrt-d-spread-${d}`).expected;
    expectClose(sigma, Math.sqrt(d), 1e-9, 'worked example');
    expect(Math.abs(one(numbers, 'std').value - sigma)).toBeLessThanOrEqual(3 * (sigma / Math.sqrt(2 * n)));
    expect(Math.abs(one(numbers, 'mean').value)).toBeLessThanOrEqual((3 * sigma) / Math.sqrt(n));
    expectClose(one(numbers, 'sqrt-d').value, Math.sqrt(d), 4 * U * Math.sqrt(d) * 12, 'sqrt(d) from the module');
    expect(await pairsUsed(w)).toBe('20,000');
    await w.logged();
  }
}).at({ link: 'd=4096&pairs=20000&seed=7' });
it('the exact density: Laplace at d = 2, matching an independent float64 integral; slider and keys change d', async (w) => {
  await waitRun(w);
  // The curve's numbers come from a logged dot_density call: check them against the reference.
  const two = await densityAt(w, 2);
  expect(two.length).toBe(161);
  for (const i of [0, 40, 79, 80, 81, 120, 160])
    expectClose(two[i], Math.exp(-Math.abs(gridX(2, i))) / 2, 4 * U * two[i] + 1e-12, `Laplace at ${gridX(2, i)}`);
  // Keys on the log slider: two steps right = a factor 2^(1/2).
  await w.press('[data-control="d"]', 'ArrowRight', 8);
  await ranAt(w, 8);
  const eight = await densityAt(w, 8);
  for (const i of [10, 60, 80, 100]) {
    const ref = densityRef(gridX(8, i), 8);
    expectClose(eight[i], ref, 1e-6 * ref + 1e-9, `density d=8 at ${gridX(8, i)}`);
  }
  expect((await w.url()).get('d')).toBe('8');
  await w.slide('[data-control="d"]', 0.5, 1.1);
  await ranAt(w, 4096);
  const numbers = await w.read();
  const n = 5000; // every point of the sweep runs the pairs asked for
  expect(Math.abs(one(numbers, 'std').value - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(2 * n));
  // The sweep within 5 standard errors of sqrt(d); d = 2 has heavy tails (kurtosis 6): sqrt(1 + excess / 2) more.
  expectSweep(numbers, 5, (d) => (Math.sqrt(d) * Math.sqrt(1 + 3 / d)) / Math.sqrt(2 * n));
  await w.logged();
}).at('d=2&pairs=5000&seed=1');

it('predict a number: bad input refused, not scored; 4096 wrong (its misconception), about 64 right, by mouse and keys', async (w) => {
  const field = w.at('input.predict-number');
  const refused = async (text, says) => {
    await field.fill(text);
    await w.at('.predict-commit').click(); // the mouse
    await w.see({ '.predict-problem': says, '.predict-score': { visible: false } });
    expect(await w.attr('.predict', 'data-result')).toBe(null);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
  };
  await refused('', 'Type a number first.');
  await refused('about 64', /^\u201cabout 64\u201d is not a number/);
  await refused('-3', /^\u201c-3\u201d is out of range: type a number from 0 to 100,000\.$/);
  await refused('1e400', /^\u201c1e400\u201d is out of range/);
  expect(await w.page.evaluate(() => window.agProgress.predictions())).toEqual({});
  // "4,096" with the page's thousands comma is d_k, the variance read as the standard deviation; the result
  // states the range judged (toleranceRange); the measured value within 4 standard errors of sqrt(4096).
  const says = /You said 4,096; .* from [\d.]+ to [\d.]+, within 15 % of /;
  await w.reveal({ wrong: '4,096', says, part: { d: 4096 }, logged: false });
  await w.see({ '.predict-misconception': /^That is d_k itself, the variance of q\u00b7k/ });
  const measured = Number(await w.attr('.predict', 'data-answer'));
  expect(Math.abs(measured - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(2 * 400));
  const [, lo, hi] = (await w.text('.predict-result')).match(/from ([\d.]+) to ([\d.]+),/);
  expect([Number(lo), Number(hi)]).toEqual([0.85, 1.15].map((f) => Number((measured * f).toPrecision(6))));
  // "-0" said as 0, the full cancellation; "4097" near d_k; "64,0" a decimal comma.
  for (const [typed, said, text] of [
    ['-0', 'You said 0;', /^That expects the products q\u1d62k\u1d62 to cancel completely/],
    ['4097', 'You said 4,097;', /^That adds the terms as if they all had the same sign/],
  ]) {
    await w.at('.predict-again').click();
    await field.fill(typed);
    await field.press('Enter');
    await w.at('.predict[data-result="wrong"]').waitFor();
    await w.see({ '.predict-result': new RegExp(said), '.predict-misconception': text });
  }
  // Typed and committed with the mouse: right within 15 %.
  await w.at('.predict-again').click();
  await field.fill('64,0');
  await w.at('.predict-commit').click();
  const right = /^Right\. You said 64; /;
  await w.see({ '.predict[data-result="right"] .predict-result': right, '.predict-problem': { visible: false } });
  await waitRun(w);
});

// On a page of its own: no run has finished there yet.
it('cancel stops the run, leaves the page responsive, and a new run is right', async (w) => {
  await w.waitData('run', 'running');
  // By keyboard: the Cancel button disables itself, and the focus goes on to "Run again", not to the page.
  await w.press('[data-action="cancel"]', 'Enter');
  expect(await w.data('run')).toBe('cancelled');
  expect(await w.eval((el) => el.shadowRoot.activeElement?.textContent)).toBe('Run again');
  await w.see({ '.status': /^Cancelled at \d+ %\. No run has finished yet, so there is nothing to show\./ });
  // The main thread answers (a frozen page would not; no time is gated: a shared machine's timings are noise).
  expect(await w.page.evaluate(() => 1 + 1)).toBe(2);
  await w.at('[data-control="pairs"]').selectOption('1000');
  await waitRun(w);
  expect(Math.abs(one(await w.read(), 'std').value - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(2 * 1000));
  expect(await pairsUsed(w)).toBe('1,000');
  await w.logged();
  // A long run cancelled after that one: the figures are said to be the finished run's, of other settings.
  await w.at('[data-control="pairs"]').selectOption('100000');
  await w.waitData('run', 'running');
  await w.cancel({
    says: /^Cancelled at \d+ %\. The figures and numbers below are those of the last finished run, of other settings, not of these \(1,000 pairs at d\u2096 = 4096, seed 3\)\./,
  });
  expect(await pairsUsed(w)).toBe('1,000');
}).at({ link: 'd=4096&pairs=100000&seed=3' });
