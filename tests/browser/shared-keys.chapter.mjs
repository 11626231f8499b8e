// "Sharing keys: MHA, GQA, MQA" (#ch-shared-keys, <ag-shared-keys>): four query heads of d_k = 2 take one
// decoding step over 5 tokens with h_kv = 4, 2 or 1 key/value heads (each the average of its group's heads);
// the weights of every head and the output of the one shown against the float64 reference after the radio
// buttons, keys on a query, a click in the weights and links; the copies call agrees bit for bit; the cache the
// step returns has 2·h_kv·T·d_k numbers.
import { expect } from '@jest/globals';
import { attentionSlice } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, matrixOf } from './chapter-tests.mjs';
import { K, Q, V } from '../../web/models/shared-keys.js';

const [HQ, T, D] = [4, 5, 2];
const SCALE = Math.fround(1 / Math.sqrt(D)); // the API's default scale 1/sqrt(d_k), rounded to float32
const START = { kv: '4', head: 1, q: Q };

/** The key/value head (0-based) that query head i (0-based) reads: floor(i h_kv / h_q) (Ainslie et al. 2023). */
const groupOf = (i, hkv) => Math.floor((i * hkv) / HQ);

/** Key/value head g of h_kv: the mean of the heads of its group (Ainslie et al. 2023, §2.1), rows [T][D]. */
function pooled(X, g, hkv) {
  const heads = X.filter((_, i) => groupOf(i, hkv) === g);
  const mean = X[0].map((_, t) => [0, 1].map((c) => heads.reduce((a, x) => a + x[t][c], 0) / heads.length));
  // Multiples of 1/2 averaged over 2 or 4 heads are multiples of 1/8: exact in float32, in any order of sums.
  for (const x of mean.flat()) expect(Math.fround(x)).toBe(x);
  return mean;
}

/** float64 reference: per query head, its weights A, output Y and their bounds (attentionSlice, one query). */
function reference({ kv, q }) {
  const hkv = Number(kv);
  return q.map((qi, i) => {
    const g = groupOf(i, hkv);
    return attentionSlice(qi, pooled(K, g, hkv).flat(), pooled(V, g, hkv).flat(), 1, T, D, D, { scale: SCALE });
  });
}

async function match(numbers, state, w) {
  const ref = reference(state);
  const A = matrixOf(numbers, 'weight');
  expect(A.map((row) => row.length)).toEqual([T, T, T, T]);
  expect(byRole(numbers, 'y')).toHaveLength(D);
  A.forEach((row, i) =>
    row.forEach((a, j) => expectClose(a, ref[i].A[j], ref[i].A[j] * ref[i].eRow[0] + 2 ** -149, `A${i + 1}${j + 1}`)),
  );
  const r = ref[state.head - 1];
  byRole(numbers, 'y').forEach((n, c) => expectClose(n.value, r.Y[c], r.bound[c], `y${c + 1}`));
  if (w) {
    // The cache of 5 tokens: K and V of h_kv heads of d_k = 2; with a copy per query head, of h_q heads.
    expect(await w.attr('[data-role="cache"]', 'data-count')).toBe(String(2 * Number(state.kv) * T * D));
    expect(await w.attr('[data-role="copies"]', 'data-count')).toBe(String(2 * HQ * T * D));
    await w.see({ '[data-role="same"]': /gives the same weights and outputs, bit for bit\./ });
  }
  return ref;
}

const it = chapterTests({ ch: 'shared-keys', tag: 'ag-shared-keys', match });

it('opens on MHA: 4 heads, each its own keys, a cache of 80 numbers; predict, then reveal: heads 1 and 2 share K in GQA but weigh differently', async (w) => {
  await w.matches(START, w);
  await w.see({
    '[data-role="copies"]': /nothing is shared yet/,
    '[data-role="groups"]': /1 \u2192 K\/V head 1; 2 \u2192/,
  });
  expect(await w.katex()).toBeGreaterThanOrEqual(3);
  const gqa = { ...START, kv: '2' };
  const { numbers } = await w.reveal({
    wrong: 'same',
    says: /q\u2081 and q\u2082 point different ways/,
    state: gqa,
    args: [gqa, w],
    right: 'differ',
  });
  const A = matrixOf(numbers, 'weight');
  expect(A[0]).not.toEqual(A[1]);
  await w.see({ '[data-role="copies"]': /80 numbers, twice as many/ });
});

it('the radio buttons, a query moved by keys and a row of the weights picked by a click each match the reference', async (w) => {
  await w.at('input[name="kv"][value="1"]').check();
  let state = { ...START, kv: '1' };
  expect(await w.state()).toEqual(state);
  await w.matches(state, w);
  await w.see({
    '[data-role="groups"]': /1, 2, 3, 4 \u2192 K\/V head 1\./,
    '[data-role="copies"]': /four times as many/,
  });
  await w.press('[data-point="q3"]', 'ArrowRight', 2); // q3 = (0.5, -1.5) moves to (1, -1.5); head 3 is shown
  state = { ...state, head: 3, q: Q.map((r, i) => (i === 2 ? [1, -1.5] : r)) };
  expect(await w.state()).toEqual(state);
  const { numbers } = await w.matches(state, w);
  await w.announced(`y = (${byRole(numbers, 'y')[0].text}, `);
  await w.at('input[name="kv"][value="2"]').check();
  await w.at('[data-cell="4-2"]').click(); // a cell of row 4 picks head 4
  state = { ...state, kv: '2', head: 4 };
  expect(await w.state()).toEqual(state);
  await w.matches(state, w);
  await w.reopens(await w.read(), { params: { kv: '2', head: '4', q: '1.5,1;-1,1.5;1,-1.5;-1.5,-0.5' } });
});

it('links: two heads of one group with the same query weigh alike; MQA with the queries of MHA', async (w) => {
  const twin = { ...START, kv: '2', head: 2, q: [Q[0], Q[0], Q[2], Q[3]] };
  await w.link('kv=2&head=2&q=1.5,1;1.5,1;0.5,-1.5;-1.5,-0.5', [twin, w], { state: twin }, (_z, numbers) => {
    const A = matrixOf(numbers, 'weight');
    expect(A[1]).toEqual(A[0]); // the same query against the same keys: the same computation, bit for bit
    expect(A[2]).not.toEqual(A[0]);
  });
  const mqa = { ...START, kv: '1', head: 4 };
  await w.link('kv=1&head=4', [mqa, w], { state: mqa }, (z) =>
    z.see({ '[data-role="cache"]': /\[1, 1, 5, 2\] each: 20 numbers/ }),
  );
});
