// "What weights do and do not explain" (#ch-explain, <ag-weights-explain>): each key's weight beside the
// change of the stack's output when it is hidden, against a float64 reference written here; both kinds of
// case (large weight / small change and small weight / large change) exist for the default sentence. The
// link read back here is taken in the same page; a copy in a new page is the contract's link round trip.
import { expect } from '@jest/globals';
import { multiHeadRows } from './reference-rows.mjs';
import { byRole, chapterTests, expectClose, expectRole, expectThreeDigits } from './chapter-tests.mjs';

const it = chapterTests({ ch: 'explain', tag: 'ag-weights-explain' });

/** float64 two-layer residual stack of one-head attention layers; `ablate` hides a key in one layer. */
function stack(X, layers, ablate = null) {
  const add = (a, b) => a.map((r, i) => r.map((x, c) => x + b[i][c]));
  const mask = (layer) => (ablate?.layer === layer ? (i, j) => (j === ablate.key ? -Infinity : 0) : null);
  const l1 = multiHeadRows(X, layers[0], 1, mask(1));
  const x1 = add(X, l1.output);
  const l2 = multiHeadRows(x1, layers[1], 1, mask(2));
  return { x2: add(x1, l2.output), A: [l1.weights[0], l2.weights[0]] };
}

function reference(X, layers, layer, i) {
  const base = stack(X, layers);
  const effects = X.map((_, j) => {
    const y = stack(X, layers, { layer, key: j }).x2[i];
    return Math.hypot(...y.map((v, c) => v - base.x2[i][c]));
  });
  return { weights: base.A[layer - 1][i], effects };
}

const rank = (v) => v.map((x) => v.filter((y) => y > x).length);

function kinds(weights, effects) {
  const [T, rw, re] = [weights.length, rank(weights), rank(effects)];
  const [top, bottom] = [(r) => r < Math.floor(T / 2), (r) => r >= Math.ceil(T / 2)];
  return weights.map((_, j) =>
    top(rw[j]) && bottom(re[j]) ? 'large-little' : bottom(rw[j]) && top(re[j]) ? 'small-much' : null,
  );
}
const bothKinds = (ref) =>
  expect(kinds(ref.weights, ref.effects)).toEqual(expect.arrayContaining(['large-little', 'small-much']));

async function check(w) {
  const numbers = await w.read();
  const state = await w.state();
  const inputs = await w.at().evaluate((el) => JSON.parse(JSON.stringify(el.inputs)));
  const T = inputs.words.length;
  const i = state.query - 1;
  const ref = reference(inputs.X, inputs.layers, Number(state.layer), i);
  expect(byRole(numbers, 'key-weight').length).toBe(T);
  expectRole(numbers, 'key-weight', ref.weights, 2e-5);
  expectRole(numbers, 'effect', ref.effects, 1e-4 * (1 + Math.max(...ref.effects)));
  // The heat map row of the query holds the same weights.
  const hm = numbers.filter((n) => n.role === 'weight' && n.key.startsWith(`${i + 1}-`));
  hm.forEach((n) => expectClose(n.value, ref.weights[Number(n.key.split('-')[1]) - 1], 2e-5, `A ${n.key}`));
  expectThreeDigits(numbers, (n) => n.role.startsWith('weight'));
  // The page marks the cases the reference finds.
  const marked = await w.at('.effects tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.kind || null));
  expect(marked).toEqual(kinds(ref.weights, ref.effects));
  // Each tag says the key's two ranks among the query's keys (1 = the largest), as the page's rule states.
  await w.see({
    '[data-role="tag-rule"]':
      /Tags compare ranks among this query.s keys \(1 = the largest\).*top half by weight but in the bottom half by the change/,
  });
  const [rw, re] = [rank(ref.weights), rank(ref.effects)];
  const cases = await w
    .at('.cases li[data-kind]')
    .evaluateAll((items) => items.map((li) => [Number(li.dataset.key), li.textContent]));
  for (const [key, text] of cases)
    expect(text).toContain(`(weight rank ${rw[key - 1] + 1} of ${T}, change rank ${re[key - 1] + 1} of ${T})`);
  return { numbers, state, inputs, ref };
}

it('default sentence: weights and effects match float64, and both kinds of case exist', async (w) => {
  const { inputs, state, ref } = await check(w);
  expect(inputs.words).toEqual(['the', 'old', 'cat', 'sat', 'on', 'mats']);
  // The default view (layer 2, "sat") already shows both kinds.
  bothKinds(ref);
  expect(state).toMatchObject({ layer: '2', query: 4 });
  await w.see({
    '.cases li[data-kind="large-little"]': { more: 0 },
    '.cases li[data-kind="small-much"]': { more: 0 },
  });
  expect(await w.kernels()).toEqual(expect.arrayContaining(['multi_head_attention', 'norm']));
});
it('find, layer, heat-map keys and the URL', async (w) => {
  await w.at('[data-action="find"]').click();
  const s1 = await w.state();
  expect([s1.layer, s1.query]).not.toEqual(['2', 4]);
  bothKinds((await check(w)).ref);
  await w.at('input[name="layer"][value="1"]').check();
  await w.keys('[data-cell="1-1"]', [['ArrowDown', 'Enter'], { layer: '1', query: 2 }]);
  const { numbers } = await check(w);
  await w.reopens(numbers, { by: 'value', params: { layer: '1', query: '2' } });
  // The same link with another seed.
  const searchParams = await w.url();
  searchParams.set('seed', '7');
  searchParams.delete('v');
  await w.set(searchParams.toString());
  expect((await w.state()).seed).toBe(7);
  await check(w);
});

it('predict, then reveal: the largest weight is not the largest change', async (w) => {
  await w.reveal({ wrong: 'yes', logged: false });
  const { ref } = await check(w);
  const am = (v) => v.indexOf(Math.max(...v));
  expect(am(ref.weights)).not.toBe(am(ref.effects));
}).at('layer=1&query=1');
