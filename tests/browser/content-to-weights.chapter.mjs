// "From content to weights" (#ch-content-to-weights, <ag-content-to-weights>): X -> Q, K, V -> scores ->
// weights -> Y against a float64 reference after drags, arrow keys, the stepper, the heat map, an edited
// sentence and a changed URL. The link read back here is taken in the same page; a copy in a new page is
// the contract's link round trip.
import { expect } from '@jest/globals';
import { attentionRows, matmulRows } from './reference-rows.mjs';
import {
  byRole,
  chapterTests,
  expectClose,
  expectStages,
  expectThreeDigits,
  matrixOf,
  rowsOf,
} from './chapter-tests.mjs';

const it = chapterTests({ ch: 'content-to-weights', tag: 'ag-content-to-weights' });
const WORDS = ['the', 'cat', 'ate', 'the', 'fish'];
const D_MODEL = 4;

/** Every number shown against the reference (float32 results: relative 1e-5 of the magnitudes involved). */
async function expectMatches(w, words = WORDS) {
  const [numbers, state] = [await w.read(), await w.state()];
  const X = matrixOf(numbers, 'x');
  expect(X.length).toBe(words.length);
  expect(X.every((r) => r.length === D_MODEL)).toBe(true);
  // Same word, same embedding; different words, different embeddings.
  for (let i = 0; i < words.length; i += 1)
    for (let j = 0; j < words.length; j += 1) expect(X[i].join() === X[j].join()).toBe(words[i] === words[j]);
  // The float64 reference of the whole pipeline from X and the three projections.
  const [Q, K, V] = [state.wq, state.wk, state.wv].map((w) => matmulRows(X, w).C);
  const ref = { Q, K, V, ...attentionRows(Q, K, V) };
  const tol = (M) => 2e-5 * (1 + Math.max(1, ...M.flat().map(Math.abs)));
  for (const role of ['q', 'k', 'v', 'y']) expect(matrixOf(numbers, role).length).toBe(words.length);
  // prettier-ignore
  const stages = [['q', Q], ['k', K], ['v', V], ['y', ref.Y], ['score', ref.S], ['weight', ref.A, ref.S]];
  expectStages(
    numbers,
    stages.map(([role, M, of = M]) => [role, M, tol(of)]),
  );
  // Row-stochastic: non-negative, row sums 1.
  expect(Math.min(...matrixOf(numbers, 'weight').flat())).toBeGreaterThanOrEqual(0);
  byRole(numbers, 'row-sum').forEach((n) => expectClose(n.value, 1, 1e-5, `row sum ${n.key}`));
  // The selected output row is row `query` of Y.
  byRole(numbers, 'y-selected').forEach((n, j) =>
    expectClose(n.value, ref.Y[state.query - 1][j], tol(ref.Y), `y ${j}`),
  );
  expectThreeDigits(numbers, () => false); // shown to 3 significant digits
  return { numbers, state };
}

it('opens on "the cat ate the fish": every tensor against the float64 reference, shapes shown', async (w) => {
  await expectMatches(w);
  const shapes = await w.at('[data-shape]').allTextContents();
  expect(shapes[0]).toContain('[5, 4]');
  expect(shapes[1]).toContain('[5, 4] \u00b7 [4, 2] \u2192 [5, 2]');
  expect(shapes[2]).toContain('[5, 5]');
  expect(shapes[4]).toContain('A [5, 5] \u00b7 V [5, 2] \u2192 Y [5, 2]');
  await w.see({ '.katex': { more: 4 } });
  // The numbers come from matmul and attention (with scores and weights).
  const kernels = await w.kernels();
  expect(kernels).toEqual(expect.arrayContaining(['attention']));
  expect(kernels.some((k) => k.startsWith('matmul'))).toBe(true);
  // The weights A are held until the answer: answered, both heat maps are on screen.
  await w.predict('identical', 'right');
  // Every number of both heat maps lies inside its cell, a long one (e.g. "0.00781") set smaller to fit.
  const overflowing = await w.at('.hm-cell').evaluateAll((cells) =>
    cells
      .map((c) => [c.querySelector('.hm-value'), Number(c.querySelector('.hm-rect').getAttribute('width'))])
      .filter(([t, width]) => t.getComputedTextLength() > width - 4)
      .map(([t]) => t.textContent),
  );
  expect(overflowing).toEqual([]);
});
it('drag and keys move rows of W_Q and W_K, the stepper and the heat map answer keys, the URL reopens the state', async (w) => {
  await w.dragPoint('r1', [2, -1.5]);
  expect((await w.state()).wq[0]).toEqual([2, -1.5]);
  await expectMatches(w);
  await w.at('.edit-choice input[value="wk"]').check();
  await w.keyPoint('r3', ['ArrowRight', 'Shift+ArrowUp']);
  expect((await w.state()).wk[2]).toEqual([-0.75, 2]);
  await w.see({ '[aria-live]': { contains: 'W_K row 3' } });
  // Stepper: arrow keys on a step button; hidden later panels.
  await w.keys('.step-button[data-step="5"]', [['ArrowLeft', 'ArrowLeft'], { step: 3 }]);
  await w.see({ '.panel[data-step="4"]': { visible: false }, '.panel[data-step="3"]': { visible: true } });
  await w.at('[data-nav="next"]').click();
  expect((await w.state()).step).toBe(4);
  // Heat map S (A is held until the answer): Enter on a cell of row 3 selects query 3.
  await w.keys('.panel[data-step="3"] [data-cell="1-1"]', [['ArrowDown', 'ArrowDown', 'Enter'], { query: 3 }]);
  const { numbers } = await expectMatches(w);
  await w.reopens(numbers, { by: 'value', params: { step: '4', query: '3', edit: 'wk' } });
});
it('an edited sentence changes X, the shapes and the URL; a bad sentence is refused with a note', async (w) => {
  const input = w.at('.sentence-input');
  await input.fill('dogs chase the ball');
  await input.press('Enter');
  await w.page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, w.tag);
  await expectMatches(w, ['dogs', 'chase', 'the', 'ball']);
  await w.see({ '[data-shape="s"]': { contains: '[4, 4]' } });
  const words = (await w.url()).get('words');
  expect(words.split(',').length).toBe(4);
  await w.logged();
  await input.fill('one two three four five six seven');
  await input.press('Enter');
  expect(await w.at('.note').first().textContent()).toMatch(/2 to 6 words/);
  expect((await w.url()).get('words')).toBe(words);
  // The field is marked invalid and described by the message (a screen reader reads it with the field).
  const said = () =>
    input.evaluate((el) => {
      const id = el.getAttribute('aria-describedby');
      return [el.getAttribute('aria-invalid'), id && el.getRootNode().getElementById(id)?.textContent];
    });
  const [invalid, description] = await said();
  expect(invalid).toBe('true');
  expect(description).toMatch(/2 to 6 words/);
  // Corrected, it is valid again and described by nothing.
  await input.fill('the cat sat down');
  await input.press('Enter');
  await w.page.waitForFunction((tag) => document.querySelector(tag).state.words.length === 4, w.tag);
  expect(await said()).toEqual([null, null]);
  // A URL with another sentence (packed words) and other weights.
  const wq = '1,0;0,1;1,1;0,0';
  await w.set(`words=${words}&wq=${wq}&step=5&query=4`);
  const { state } = await expectMatches(w, ['dogs', 'chase', 'the', 'ball']);
  expect(state.wq).toEqual(rowsOf(wq));
  await w.logged();
});

it('predict, then reveal: the two "the" rows of the weights are identical', async (w) => {
  const { numbers } = await w.reveal({ wrong: 'different', part: { step: 4 }, right: 'identical' });
  const A = matrixOf((await expectMatches(w)).numbers, 'weight');
  expect(A[0]).toEqual(A[3]);
  expect(matrixOf(numbers, 'weight')).toEqual(A);
}).at('step=2');
