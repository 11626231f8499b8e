// "What heads learn" (#ch-heads-learn, <ag-heads-learn>): after a short run (30 steps: the learning itself is
// tests/js/transformer-learning.test.mjs), the chosen head's grid, the four grids of the JSON export and the
// held-out accuracy against the float64 reference model (tests/reference/transformer.mjs) on the parameters
// of the same run, with every head on and with heads switched off (a link, a checkbox, the keyboard); the
// loss the worker shows is the page's run's own, bit for bit; the link keeps the mask and the head shown. The
// chapter opens with the model at step 0 (the same checks on the untrained parameters) and trains it only when
// Train is pressed or the prediction answered, whatever its link says; a Cancel while the answer waits ends it with
// an error and puts the untrained model back. And the
// prediction at the default 200 steps: its answer is the one the float64 model gives on the run's parameters (with
// both heads of layer 0 off, less than half the accuracy), and the state it leaves matches that model.
import { expect } from '@jest/globals';
import { referenceModel } from '../reference/transformer.mjs';
import { chapterTests, matrixOf, one, readNumbers, rowsOf } from './chapter-tests.mjs';
import { exportJson, waitRun } from './helpers.mjs';
import { ALL_ON, HEADS, HELD_OUT, LAYERS, T, jobOf } from '../../web/models/heads-learn.js';

const STEPS = 30;

/**
 * The grid of head `head` ('l-j'), the four grids of the JSON export `grids` (when given) and the accuracy
 * shown against the reference model on the run's parameters with `mask`.
 */
function match(numbers, run, mask, head, grids) {
  const ref = referenceModel(run.config, run.params);
  const { weights } = ref.forward(run.seq, 1, { headMask: mask });
  // Weights of a float32 forward pass over d_model = 32 on the same parameters: their error is of the order of
  // 1e-6; 1e-4 is far above it and far below a wrong row or head (entries of 1/16 and more apart).
  const expectGrid = (rows, l, j) => {
    expect(rows).toHaveLength(T);
    rows.forEach((row, t) =>
      row.forEach((a, s) => expect(Math.abs(a - weights[l][(j * T + t) * T + s])).toBeLessThanOrEqual(1e-4)),
    );
  };
  expectGrid(matrixOf(numbers, 'weight'), ...head.split('-').map(Number));
  if (grids)
    for (let l = 0; l < LAYERS; l++) for (let j = 0; j < HEADS; j++) expectGrid(grids[`layer ${l}, head ${j}`], l, j);
  const [tokens, targets] = run.held;
  const want = ref.lossOf(ref.forward(tokens, HELD_OUT.batch, { headMask: mask }).logits, targets, tokens.length);
  // The argmax of float32 logits may differ from float64's at a near tie: at most one of the scored positions.
  expect(Math.abs(one(numbers, 'accuracy').value - want.accuracy)).toBeLessThanOrEqual(1 / want.scored + 1e-9);
  expect(one(numbers, 'loss').value).toBe(Math.fround(run.loss)); // the worker's last step: the same run, bit for bit
  return want;
}

/** The numbers once the run of the state set has ended. */
async function read(page, tag) {
  await waitRun(page, tag, 120000);
  return readNumbers(page, tag);
}

const it = chapterTests({ ch: 'heads-learn', tag: 'ag-heads-learn', match, read });

/** The run of seed 1 to `steps` in the page, with its config (for the reference model). */
const runOf = async (w, steps) => {
  const job = jobOf({ seed: 1, steps, mask: ALL_ON }, []); // the worker's: the same config, batches, rate and clip
  return { config: job.config, ...(await w.trainInPage(job, steps, HELD_OUT)) };
};

it('a link written after training opens at step 0; nothing trains until Train or the answer; a Cancel while the answer waits ends it and shows step 0 again', async (w) => {
  await waitRun(w.page, w.tag);
  expect(await w.state()).toEqual({ seed: 1, steps: 200, mask: ALL_ON, head: '1-1' });
  await w.untrained(200);
  await w.see({ '[data-role="step-text"]': '0' });
  const start = await runOf(w, 0);
  await w.matches(start, ALL_ON, '1-1', (await exportJson(w.page, w.tag)).grids);
  await w.logged();
  // Before any training, a shorter run and a head switched off show the step-0 model of those settings.
  await w.at('#hl-steps').selectOption('30');
  await w.at('#hl-head-1-0').uncheck();
  const off = rowsOf('1,1;0,1');
  const numbers = await read(w.page, w.tag);
  await w.untrained(STEPS);
  w.check(numbers, start, off, '1-1');
  await w.at('#hl-head-1-0').check();
  await w.cancelReveal({
    choice: 'same',
    watch: '[data-role="step-text"]',
    when: /^[1-9]/,
    says: /the training of the 2-layer model was cancelled at step 20 of 30; the model is shown untrained again, at step 0$/,
  });
  // The question is open again: the model waits at step 0, untrained, its numbers those of the start.
  w.check(await read(w.page, w.tag), start, ALL_ON, '1-1');
  await w.untrained(STEPS);
  await w.see({ '[data-role="step-text"]': '0' });
  await w.logged();
  // The page goes on: Train trains the model from step 0 to the steps, and the trained numbers come.
  await w.at('[data-action="train"]').click();
  await w.matches(await runOf(w, STEPS), ALL_ON, '1-1');
  await w.logged();
  await w.answer('same', new RegExp(`held-out accuracy after ${STEPS} steps`));
}).at({ link: 'seed=1&steps=200&mask=1,1;1,1&head=1-1' });

it('30 steps: grids and held-out accuracy = the float64 model on the same parameters; heads off by link and box', async (w) => {
  await w.train(); // on a page of its own the run waits at step 0 (after the contract's answer it has trained)
  const run = await runOf(w, STEPS);
  const all = await w.matches(run, ALL_ON, '1-0', (await exportJson(w.page, w.tag)).grids);
  expect(await w.text('[data-role="sequence"]')).toContain(run.seq.join(' '));
  const layer1Off = rowsOf('1,1;0,0');
  const state = { seed: 1, steps: STEPS, mask: layer1Off, head: '1-1' };
  await w.link('steps=30&mask=1,1;0,0&head=1-1', [run, layer1Off, '1-1'], { state });
  await w.see({ '[data-role="off-text"]': 'layer 1, head 0; layer 1, head 1' });
  // A box switches layer 1, head 0 on again (the same model: no step is trained again).
  await w.at('#hl-head-1-0').check();
  const one10 = rowsOf('1,1;1,0');
  expect(await w.state()).toEqual({ ...state, mask: one10 });
  await w.matches(run, one10, '1-1');
  // The radio group picks the head shown in full: layer 0, head 1.
  await w.at('input[name="hl-head"][value="0-1"]').check();
  await w.matches(run, one10, '0-1', (await exportJson(w.page, w.tag)).grids);
  await w.logged();
  // The keyboard: Space on layer 0, head 0's box switches it off.
  await w.at('#hl-head-0-0').focus();
  await w.page.keyboard.press('Space');
  expect((await w.state()).mask).toEqual(rowsOf('0,1;1,0'));
  await w.matches(run, (await w.state()).mask, '0-1');
  await w.params({ steps: '30', mask: '0,1;1,0', head: '0-1' });
  // The reference scores positions L..T-2 of each held-out row, L the row's repeat offset read from its tokens (the
  // first position whose token came before): T - 1 - L a row.
  const [tokens] = run.held;
  const rows = Array.from({ length: HELD_OUT.batch }, (_, b) => tokens.slice(b * T, (b + 1) * T));
  const offsets = rows.map((row) => row.findIndex((v, t) => row.indexOf(v) < t));
  expect(all.ref.scored).toBe(offsets.reduce((n, L) => n + T - 1 - L, 0));
  expect(new Set(offsets).size).toBeGreaterThan(1); // the offset changes from row to row
}).at('steps=30');

it('predict, then reveal at 200 steps: layer 0 off, the accuracy falls below half, as the float64 model says', async (w) => {
  const steps = 200;
  const run = await runOf(w, steps);
  const ref = referenceModel(run.config, run.params);
  const [tokens, targets] = run.held;
  const accuracyOf = (mask) =>
    ref.lossOf(ref.forward(tokens, HELD_OUT.batch, { headMask: mask }).logits, targets, tokens.length).accuracy;
  const layer0Off = rowsOf('0,0;1,1');
  const full = accuracyOf(ALL_ON);
  const off = accuracyOf(layer0Off);
  const right = off < full / 2 ? 'far' : off < 0.9 * full ? 'some' : 'same';
  expect(right).toBe('far'); // the chapter's default run needs layer 0
  await w.train(); // a page of its own: the run waits at step 0 until Train
  await w.matches(run, ALL_ON, '1-0');
  // The reveal waits for the worker's evaluations (all heads on, then layer 0 off): wait for its mark.
  const choose = async (choice) => {
    if (await w.at('.predict-again').isVisible()) await w.at('.predict-again').click();
    await w.at(`.predict-choice[data-choice="${choice}"]`).click();
    await w.at('.predict[data-result]').waitFor({ timeout: 60000 });
    return w.attr('.predict', 'data-result');
  };
  expect(await choose('same')).toBe('wrong');
  expect(await w.text('.predict-result')).toMatch(/with both heads of layer 0 off it is \d/);
  expect(await w.attr('.predict-choice.is-answer', 'data-choice')).toBe(right);
  expect((await w.state()).mask).toEqual(layer0Off);
  expect(await choose(right)).toBe('right');
  await w.logged();
  const { head } = await w.state();
  expect(head).toMatch(/^1-[01]$/); // the grid shown: a head of layer 1
  await w.matches(run, layer0Off, head);
}).at('steps=200');
