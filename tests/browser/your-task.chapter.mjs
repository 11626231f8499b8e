// "Your own task" (#ch-your-task, <ag-your-task>): a run trained in the worker from the state's config and seed;
// the held-out example is row 0 of the task's held-out batch (the float64 Philox draw of the task's layout); every
// shown weight row is a causal softmax row (exactly 0 past the query); the same link trains the same losses, bit
// for bit; sizes the API refuses show its RangeError and the page keeps working; the prediction trains the five
// tasks as the widget trains (16 rows a step) and names the one a 1-layer, 1-head model learns worst, and the
// widget's own run of that task then shows the same held-out accuracy. The chapter opens with the model of the
// state at step 0 (at a link too) and trains only when Train is pressed or the prediction answered; a change of
// the sizes before that makes the model of the new config at step 0. (The reveal waits for no run of the widget: its five
// runs are measured apart, so no Cancel can reach it.)
// Time: each run here is 50 steps of a tiny model (well under a second in the worker); the reveal's five tiny runs
// (100 steps each) are measured in a worker after the first run, or else on the page (about 2 s in test mode).
import { expect } from '@jest/globals';
import { taskRow } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, U } from './chapter-tests.mjs';
import { exportJson, exportText } from './helpers.mjs';
import { HELD_OUT, HELD_OUT_SEED, PROBE } from '../../web/models/your-task.js';

/** The shown weights: T rows of a causal softmax (0 exactly past the query; a row sums to 1 within its rounding). */
function match(numbers, { t: T }) {
  const w = byRole(numbers, 'weight');
  expect(w).toHaveLength(T * T);
  for (let i = 1; i <= T; i++) {
    const cells = w.filter((n) => n.key.startsWith(`${i}-`));
    const row = cells.map((n) => n.value);
    cells.filter((n) => Number(n.key.split('-')[1]) > i).forEach((n) => expect(n.value).toBe(0));
    // T weights, each within (2 log2 T + 6) u of its exact value (the softmax's bound), sum to 1 within T of those.
    expectClose(
      row.reduce((a, b) => a + b),
      1,
      T * (2 * Math.ceil(Math.log2(T)) + 6) * U + T * U,
      `row ${i} sum`,
    );
  }
  return w;
}

const it = chapterTests({ ch: 'your-task', tag: 'ag-your-task', match });

/**
 * Sets the state of `params` and waits for its run to end (data-run done), after Train if it waits at step 0 (on
 * a page where nothing has trained yet); returns the CSV of the curves.
 */
async function trained(w, params) {
  await w.trainAt(params, 60000);
  return exportText(w.page, w.tag, 'csv');
}

/** The rows of the CSV of the curves (a row per update: its step first). */
const rowsOf = (csv) => csv.split('\r\n').filter((l) => /^\d/.test(l));

it('opens at step 0 at a link and trains nothing until Train; a change before then makes the new model at step 0', async (w) => {
  await w.waitData('run', 'done', 60000);
  await w.untrained(200);
  await w.see({ '.step-text': '0 of 200', '[data-role="grad-norm"]': 'none yet' });
  expect(rowsOf(await exportText(w.page, w.tag, 'csv'))).toHaveLength(1);
  await w.matches({ t: 8 });
  await w.logged();
  // The number beside the steps slider follows it as it moves (input); the state waits until it is let go (change).
  const move = (value) =>
    w.at('input[data-control="steps"]').evaluate((input, v) => {
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
  await move('150');
  await w.see({ '.steps-value': '150' });
  expect((await w.state()).steps).toBe(200);
  await move('200');
  await w.see({ '.steps-value': '200' });
  // The steps slider (a change in the widget, after a pause): the model of the new config, still at step 0.
  await w.press('input[data-control="steps"]', 'ArrowLeft', 3);
  await w.waitState({ steps: 50 });
  await w.waitData('run', 'done', 60000);
  await w.untrained(50);
  await w.see({ '.step-text': '0 of 50' });
  // Train: the 50 steps, a row of the curves per 10 from step 0.
  expect(await w.train(60000)).toBe(1);
  expect(rowsOf(await exportText(w.page, w.tag, 'csv')).map((r) => Number(r.split(',')[0]))).toEqual([
    0, 10, 20, 30, 40, 50,
  ]);
  await w.see({ '.step-text': '50 of 50' });
  await w.matches({ t: 8 });
  await w.logged();
}).at({ link: 'task=copyPrevious&t=8&vocab=8&d=16&heads=2&layers=1&lr=0.01&steps=200&seed=1' });

/** The example shown is row 0 of the held-out batch of `task` at the state's sizes (the float64 draw). */
async function expectExample(w, task, T, vocab, seed) {
  const { example } = await exportJson(w.page, w.tag);
  const ref = taskRow(task, { T, vocab, batch: HELD_OUT, seed: seed + HELD_OUT_SEED }, 0);
  expect(example).toEqual(ref);
  await w.see({ '.example': new RegExp(`^Tokens ${ref.tokens.join(' ')};`) });
}

it('the same link trains the same losses, bit for bit; another seed does not; the example is the float64 draw', async (w) => {
  const first = await trained(w, 'steps=50');
  expect(rowsOf(first)).toHaveLength(6); // steps 0, 10, ..., 50
  await w.matches({ t: 8 });
  await expectExample(w, 'copyPrevious', 8, 8, 1);
  const other = await trained(w, 'steps=50&seed=2');
  expect(other).not.toBe(first);
  expect(await trained(w, 'steps=50')).toBe(first);
  await w.matches({ t: 8 });
  await w.logged();
});

it('sizes the API refuses: its RangeError in the note, and the page keeps working', async (w) => {
  await w.set('heads=3&steps=50');
  await w.waitData('run', 'error', 60000);
  await w.see({ '.note': /config\.heads must divide config\.dModel/ });
  await w.set('task=inductionCopy&t=16&vocab=4&steps=50');
  await w.see({ '.note': /vocab must be at least 8/ });
  await trained(w, 'task=inductionCopy&t=12&heads=4&layers=2&steps=50');
  expect(await w.at('.note').first().isVisible()).toBe(false);
  await w.matches({ t: 12 });
  await expectExample(w, 'inductionCopy', 12, 8, 1);
  await w.logged();
  // A link's problems stay in the note once its (default) sizes start a new model, as in every chapter.
  await w.link('seed=NaN&steps=1e999', null, { part: { seed: 1, steps: 200 }, note: ['seed=NaN', 'steps=1e999'] });
});

it('predict, then reveal: induction copy is the task one layer and one head learn worst; the widget shows its number', async (w) => {
  // The reveal moves to the probe's config, whose run starts anew: its numbers are checked once it is done.
  await w.reveal({ wrong: 'sort', says: /induction copy \d+(\.\d+)? %/, right: 'inductionCopy', logged: false });
  expect(await w.state()).toMatchObject(PROBE);
  await w.waitData('run', 'done', 60000);
  await w.see({ '.step-text': `${PROBE.steps} of ${PROBE.steps}` });
  await w.matches({ t: PROBE.t });
  await w.logged();
  // The reveal's runs are the widget's training (16 rows a step): its run of induction copy shows the same accuracy.
  const said = await w.text('.predict-result');
  expect(said).toMatch(/after 100 steps of 16 rows:/);
  expect(said).toContain(`induction copy ${await w.text('[data-role="accuracy"]')}`);
});
