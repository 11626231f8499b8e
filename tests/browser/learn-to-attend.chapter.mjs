// "Training tunes the projections" (#ch-learn-to-attend, <ag-learn-to-attend>): the worker's training run
// (widget/training.js). The grid is the float64 reference model's forward pass on the parameters trained to that
// step; the chosen query's scores and cosines are those of the q and k shown; the loss curve is, bit for bit, the
// same model's trained in the page; Train, Pause, Resume, Restart (the same losses) and Cancel. It opens untrained
// at step 0 and trains on the answer; an old link with step= opens at step 0 too, the question open, and Train
// trains it; a Cancel while the answer waits ends it with an error and puts the untrained model back.
import { expect } from '@jest/globals';
import { cosine, dot, sumAbsProd } from '../reference/float64.mjs';
import { referenceModel } from '../reference/transformer.mjs';
import { byRole, chapterTests, expectClose, matrixOf, one, U } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';
import { T, TOKENS, jobOf } from '../../web/models/learn-to-attend.js';

const [D, TAG] = [16, 'ag-learn-to-attend'];
const START = { seed: 1, lr: '0.01', steps: '100', pos: 5 };
/** The state `state` with the step of the model shown (what the reference check trains to). */
const atStep = (state, step) => ({ ...state, step });

/** The numbers shown against the float64 model of `state` trained to its step in the page (w.trainInPage). */
async function match(numbers, state, w) {
  const { config } = jobOf(state);
  const { params, losses } = await w.trainInPage(jobOf(state), state.step);
  const ref = referenceModel(config, params).forward(TOKENS, 1);
  // The weights: a matmul over d_model = 16 and a softmax; 1e-4 of the largest weight is far above float32's
  // error here and far below a wrong row (the bound of tests/js/transformer.test.mjs's returnWeights test).
  const A = matrixOf(numbers, 'weight');
  A.forEach((row, i) => row.forEach((a, j) => expectClose(a, ref.weights[0][i * T + j], 1e-4, `a${i + 1}${j + 1}`)));
  for (let j = 1; j < T; j += 1) expect(A[0][j]).toBe(0); // causal: exp(-inf) is exactly 0
  expect(A[0][0]).toBe(1); // one visible key: its weight is exactly 1
  // The chosen query against the q and k shown (exported as float32): ag.dot's and ag.cosine's bounds (registry.inc).
  const json = await exportJson(w.page, TAG);
  const row = (x, t) => json[x].slice(t * D, (t + 1) * D);
  const [q, kPrev] = [row('q', state.pos - 1), row('k', state.pos - 2)];
  const dotTol = (a, b) => (2 * Math.ceil(Math.log2(D)) + 1) * U * sumAbsProd(a, b);
  expectClose(one(numbers, 'score-prev').value, dot(q, kPrev), dotTol(q, kPrev), 'q.k of the previous key');
  byRole(numbers, 'cos').forEach((n, i) => {
    const [a, b] = [row('q', i + 1), row('k', i)];
    const c = cosine(a, b);
    const tol = U * Math.abs(c) + (D + 2) * 2 ** -52 * (sumAbsProd(a, b) / Math.sqrt(dot(a, a) * dot(b, b)));
    expectClose(n.value, c, tol + 2 ** -149, `cos(q${i + 2}, k${i + 1})`);
  });
  // The loss curve: the same model on the same batches, whatever the chunks (bit for bit, one build).
  expect(json.training.losses.map(([, l]) => l)).toEqual(losses);
  return { A, json };
}

const it = chapterTests({ ch: 'learn-to-attend', tag: TAG, match });

/** Clicks `action` in the page, then `then` right after the run's first update past step 0 (step 5: one chunk). */
const clickThen = (w, action, then) =>
  w.clickWhen(`[data-action="${action}"]`, '.step-text', /^Step [1-9] of /, `[data-action="${then}"]`);

/** The model waits at step 0, untrained: its numbers are the reference model's at step 0, query 5 spread out. */
async function untrained(w, state) {
  await w.waitData('run', 'done');
  const { numbers } = await w.matchesAt(state, atStep(state, 0), w);
  expect(Math.max(...matrixOf(numbers, 'weight')[4])).toBeLessThan(0.6); // no key takes most of the weight
  await w.untrained(state.steps);
  await w.see({ '[data-action="train"]': 'Train', '.step-text': `Step 0 of ${state.steps}` });
  await w.logged();
}

it('opens untrained at step 0: the grid is spread out and is the reference model\u2019s; the answer trains it; new steps train too', async (w) => {
  await untrained(w, START);
  // The answer trains the model to the steps (the trained numbers come only now); then a new setting trains too.
  await w.reveal({ wrong: 'own', says: /After 100 steps query 5/, state: START, args: [atStep(START, 100), w] });
  const fifty = { ...START, steps: '50', pos: 3 };
  await w.trainAt('steps=50&pos=3');
  await w.matchesAt(fifty, atStep(fifty, 50), w);
  await w.logged();
  await w.see({ '.status': 'Done: step 50 of 50.', '.step-text': 'Step 50 of 50' });
}).at({});

it('a link written after training (step=50, version 1) opens at step 0, the question open; Train trains to its steps', async (w) => {
  const state = { seed: 1, lr: '0.01', steps: '50', pos: 3 };
  await untrained(w, state);
  expect(await w.at('.note').first().isVisible()).toBe(false); // an old link opens without a problem
  expect(await w.attr('.predict', 'data-result')).toBe(null);
  for (const button of await w.at('.predict-choice').all()) expect(await button.isDisabled()).toBe(false);
  expect(await w.train()).toBe(1);
  await w.matchesAt(state, atStep(state, 50), w);
  await w.see({ '.status': 'Done: step 50 of 50.' });
  const url = await w.url();
  expect([url.get('v'), url.get('steps'), url.get('step')]).toEqual(['2', '50', null]);
  await w.logged();
}).at({ link: 'seed=1&lr=0.01&steps=50&step=50&pos=3' });

it('a Cancel while the answer waits ends it with an error and puts the untrained model back; answered again, it trains', async (w) => {
  await untrained(w, START);
  const says =
    /the training of the model was cancelled at step 5 of 100; the model is shown untrained again, at step 0$/;
  await w.cancelReveal({ choice: 'previous', watch: '.step-text', when: /^Step [1-9]\d? of 100$/, says });
  // The question is open again: the page shows the model untrained, as before the answer.
  await untrained(w, START);
  const { training } = await exportJson(w.page, TAG);
  expect(training.losses).toEqual([]);
  await w.predict('previous', 'right');
  await w.matchesAt(START, atStep(START, 100), w);
  await w.logged();
}).at({});

it('Train, Pause, Resume (keyboard) to the end: copyPrevious learned, query 5 on k4; Restart gives the same losses; Cancel stops', async (w) => {
  await w.trainAt('steps=50');
  await clickThen(w, 'train', 'pause'); // paused after the first chunk
  await w.waitData('train', 'paused');
  expect(await w.state()).toMatchObject({ steps: '50' });
  await w.see({ '.status': /Paused at step 5 of 50/, '.step-text': 'Step 5 of 50' });
  await w.press('[data-action="resume"]', 'Enter');
  await w.waitData('train', 'done');
  const done = { ...START, steps: '50', step: 50 };
  const { numbers, ref } = await w.matches(done, w);
  expect(byRole(numbers, 'weight').find((n) => n.key === '5-4').value).toBeGreaterThan(0.9);
  expect(one(numbers, 'accuracy').value).toBeGreaterThanOrEqual(0.9);
  await w.logged();
  await w.at('[data-action="restart"]').click();
  await w.waitData('train', 'done');
  expect((await exportJson(w.page, TAG)).training).toEqual(ref.json.training);
  await clickThen(w, 'train', 'cancel'); // "Train again", cancelled after its first chunk
  await w.see({ '.status': /Cancelled at step 5 of 50/ });
  expect(await w.data('train')).toBe('cancelled');
  await w.logged();
});

it('a Pause while a chunk is in the worker: the chunk is shown when it comes, and the status names its step', async (w) => {
  await w.trainAt('steps=50');
  // Train; once the first chunk is drawn, the loop asks for the next: Pause a task later, while it runs.
  await w.eval(
    (el) =>
      new Promise((resolve) => {
        const root = el.shadowRoot;
        const watched = new MutationObserver(() => {
          if (!/^Step [1-9] of /.test(root.querySelector('.step-text').textContent)) return;
          watched.disconnect();
          setTimeout(() => resolve(root.querySelector('[data-action="pause"]').click()));
        });
        watched.observe(root, { childList: true, characterData: true, subtree: true });
        root.querySelector('[data-action="train"]').click();
      }),
  );
  await w.waitData('train', 'paused');
  // The status and the figure agree on the step, once the chunk that was running has come and been drawn.
  const agree = await w.page.waitForFunction(
    (el) => {
      const root = el.shadowRoot;
      const shown = /^Step (\d+) of 50/.exec(root.querySelector('.step-text').textContent)?.[1];
      const said = /Paused at step (\d+) of 50/.exec(root.querySelector('.status').textContent)?.[1];
      return shown !== undefined && shown === said && shown;
    },
    await w.at().elementHandle(),
    { timeout: 10000 },
  );
  expect(Number(await agree.jsonValue())).toBeGreaterThanOrEqual(5);
});

it('Enter on a row of the grid picks its query: the scores and the announcement follow', async (w) => {
  await w.trainAt('steps=50');
  await w.press('[data-cell="5-4"]', ['ArrowDown', 'ArrowDown', 'Enter']);
  const state = { ...START, steps: '50', pos: 7 };
  expect(await w.state()).toEqual(state);
  const { numbers } = await w.matches(atStep(state, 50), w);
  const [score, weight] = ['score-prev', 'weight-prev'].map((role) => one(numbers, role).text);
  await w.announced(`query 7: score with the previous key ${score}, weight ${weight}`);
  await w.see({ '.qk h3': 'Query 7 and the keys it sees' });
});
