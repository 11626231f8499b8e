// "Why 1/√d_k keeps learning alive" (#ch-scale-in-training, <ag-scale-in-training>): two seeded training runs in
// the worker, with and without the scale. The entropy shown is the mean of the float64 entropies of the probe's
// weights rows (the export holds them) within the kernels' bounds; at d_k = 256 the unscaled rows start saturated
// and the unscaled loss ends higher (the articles' claim, measured); the d_k slider and links rerun both, and the
// same link gives the same digits. The runs are small (20 to 40 steps of one layer): seconds.
// Left to the contract (chapters.contract.test.mjs): exports, the prediction's marking, the widths.
import { expect } from '@jest/globals';
import { clog2, entropyBits } from '../reference/float64.mjs';
import { chapterTests, expectClose, one, U } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';
import { CHUNK, T } from '../../web/models/scale-in-training.js';

const RUN_IDS = ['scaled', 'unscaled'];
const DEFAULT = { dk: 256, seed: 3, lr: 0.003, steps: 40 };
/** The mean's weight: 1/15 in float32. */
const W = Math.fround(1 / (T - 1));

/**
 * The mean entropy of the probe's T − 1 rows of weights `rows` (float32, taken as exact), in float64, and its bound:
 * each ag.entropy within (2 ceil(log2 T) + 6) u of its Σ|p log2 p| (the bound softcap's test uses), then ag.dot
 * with the weights fl(1/15) (pairwise, (2 ceil(log2 15) + 2) u of Σ|w H|), and the rounding of 1/15 itself.
 */
function meanEntropy(rows) {
  const hs = rows.map((p) => entropyBits(p));
  const each = rows.map(
    (p) => (2 * clog2(T) + 6) * U * p.reduce((s, x) => (x > 0 ? s + Math.abs(x * Math.log2(x)) : s), 0),
  );
  const sum = hs.reduce((a, b) => a + b, 0);
  const tol =
    W * each.reduce((a, b) => a + b, 0) + (2 * clog2(T - 1) + 2) * U * W * sum + Math.abs(W - 1 / (T - 1)) * sum;
  return { mean: sum / (T - 1), tol: tol + 1e-12 };
}

/** The shown entropies against the exported probe rows; the runs have `steps` steps in chunks of CHUNK. */
async function match(numbers, state, w) {
  const { runs, probe } = await exportJson(w.page, w.tag);
  for (const id of RUN_IDS) {
    expect(runs[id].map((p) => p.step)).toEqual(Array.from({ length: state.steps / CHUNK + 1 }, (_, i) => i * CHUNK));
    const { mean, tol } = meanEntropy(probe[id]);
    expectClose(one(numbers, 'entropy', id).value, mean, tol, `entropy ${id}`);
    expect(one(numbers, 'loss', id).value).toBe(runs[id].at(-1).loss);
    expect(one(numbers, 'grad', id).value).toBe(runs[id].at(-1).grad);
  }
  return runs;
}

const it = chapterTests({ ch: 'scale-in-training', tag: 'ag-scale-in-training', match });

/** The numbers once both runs of the state have ended. */
async function settled(w, state) {
  await w.waitData('run', 'done');
  expect(await w.state()).toEqual(state);
  const numbers = await w.read();
  return { numbers, runs: await match(numbers, state, w) };
}

it('d_k = 256: unscaled rows start saturated, its loss lags; predict, then the runs reveal it', async (w) => {
  const { runs } = await settled(w, DEFAULT);
  // The fresh unscaled model's rows hold far less entropy (one key takes nearly all the weight)...
  expect(runs.unscaled[0].entropy).toBeLessThan(0.5 * runs.scaled[0].entropy);
  // ...and after 40 steps the unscaled loss is well above the scaled one.
  expect(runs.unscaled.at(-1).loss).toBeGreaterThan(2 * runs.scaled.at(-1).loss);
  expect(await w.katex()).toBeGreaterThanOrEqual(4);
  await w.reveal({ wrong: 'faster', says: /nats behind/, state: DEFAULT, args: [DEFAULT, w], right: 'slower' });
});

it('the d_k slider reruns both; the live region says so; the link reopens the same digits', async (w) => {
  await w.press('#st-dk', 'ArrowLeft', 2);
  const state = { ...DEFAULT, dk: 16, steps: 20 };
  await w.announced('d\u2096 = 16, learning rate 0.003, 20 steps');
  const { numbers } = await settled(w, state);
  await w.logged();
  await w.params({ dk: '16', steps: '20' });
  await w.reopens(numbers, { before: (z) => z.waitData('run', 'done') });
}).at('steps=20');
