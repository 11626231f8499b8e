// "Masks are added to the scores" (#ch-masks, <ag-masks>): the mask M (causal,
// padding, sliding window, ALiBi, with flipped cells), the weights A =
// softmax(S + M), their row sums and one query's row key by key, against the
// float64 reference after a click, keys, the fill switch and links; a row with
// no visible key gives zeros with −∞ and 1/T on every key with −1e9.
import { expect } from '@jest/globals';
import { attentionSlice, clog2 } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, matrixOf, U } from './chapter-tests.mjs';
import { K, Q, V } from '../../web/models/masks.js';

const T = 6;
const SCALE = Math.fround(1 / Math.sqrt(2)); // the API's default scale 1/sqrt(d_k), rounded to float32
const NO_FLIPS = Array.from({ length: T }, () => Array(T).fill(0));
const START = { kind: 'causal', fill: 'inf', len: 4, w: 3, head: 1, flip: NO_FLIPS, row: 3 };

/** Whether key j is hidden from query i (the definitions of the masks; flips turn a cell over). */
function hidden({ kind, len, w, flip }, i, j) {
  const h = { causal: j > i, padding: j >= len, window: j > i || j <= i - w }[kind] ?? false;
  return h !== (flip[i][j] === 1);
}

/** float64 reference: M (mask plus ALiBi bias), S, S + M, A, y (attentionSlice), row sums, with their bounds. */
function reference(state) {
  const fill = state.fill === 'inf' ? -Infinity : -1e9;
  // ALiBi slopes of 8 heads: m_h = 2^(-8h/8) = 2^-h (Press et al. 2022, §3); a power of 2, so every bias is exact.
  const slope = state.kind === 'alibi' ? 2 ** -state.head : 0;
  const maskAt = (i, j) => (hidden(state, i, j) ? fill : 0);
  const M = Array.from({ length: T }, (_, i) =>
    Array.from({ length: T }, (_, j) => maskAt(i, j) - slope * Math.abs(i - j)),
  );
  const ref = attentionSlice(Q.flat(), K.flat(), V.flat(), T, T, 2, 2, {
    scale: SCALE,
    maskAt,
    alibi: slope ? { slope, offset: 0 } : null,
  });
  const A = Array.from({ length: T }, (_, i) => ref.A.slice(i * T, (i + 1) * T));
  const Y = Array.from({ length: T }, (_, i) => ref.Y.slice(i * 2, i * 2 + 2));
  const yTol = Array.from({ length: T }, (_, i) => ref.bound.slice(i * 2, i * 2 + 2));
  const blind = A.map((_, i) => M[i].every((m) => m <= -1e9));
  if (fill === -1e9)
    blind.forEach((b, i) => {
      if (!b) return;
      // In float32, -1e9 + s is -1e9 for |s| < 32 (floats near 1e9 are 64 apart): the row is constant,
      // so its softmax is 1/T on every key and y is the mean of V.
      for (let j = 0; j < T; j += 1)
        expect(Math.fround(SCALE * (Q[i][0] * K[j][0] + Q[i][1] * K[j][1]) - 1e9)).toBe(-1e9);
      A[i] = Array(T).fill(1 / T);
      Y[i] = [0, 1].map((c) => V.reduce((acc, v) => acc + v[c], 0) / T);
      yTol[i] = [4 * U, 4 * U]; // a constant row: exp(0) = 1 each, a sum of 6 and 6 products and sums of ±1
    });
  // Row sums A·1: the weights' relative error eRow (attentionSlice) plus the pairwise sum, (2 ceil(log2 T) + 1) u.
  const sumTol = ref.eRow.map((e) => e + (2 * clog2(T) + 1) * U);
  return { M, A, Y, yTol, blind, sumTol, eRow: ref.eRow };
}

function match(numbers, state) {
  const ref = reference(state);
  expect(matrixOf(numbers, 'mask')).toEqual(ref.M); // 0, the fill and -m|i - j| are exact in float32
  const A = matrixOf(numbers, 'weight');
  A.forEach((row, i) =>
    row.forEach((a, j) => {
      if (ref.M[i][j] === -Infinity || (ref.M[i][j] === -1e9 && !ref.blind[i]))
        expect(a).toBe(0); // exp underflows to exactly 0
      else expectClose(a, ref.A[i][j], ref.A[i][j] * ref.eRow[i] + 2 ** -149, `A${i + 1}${j + 1}`);
    }),
  );
  byRole(numbers, 'row-sum').forEach((n, i) => {
    if (ref.blind[i] && state.fill === 'inf')
      expect(n.value).toBe(0); // no visible key: zero weights, never NaN
    else expectClose(n.value, 1, ref.sumTol[i], `row sum ${i + 1}`);
  });
  const i = state.row - 1;
  byRole(numbers, 'y').forEach((n, c) => expectClose(n.value, ref.Y[i][c], ref.yTol[i][c], `y${c + 1}`));
  expect(byRole(numbers, 'row-weight').map((n) => n.value)).toEqual(A[i]);
  expect(byRole(numbers, 'row-mask').map((n) => n.value)).toEqual(ref.M[i]);
  return ref;
}

const it = chapterTests({ ch: 'masks', tag: 'ag-masks', match });
const flips = (cells) => NO_FLIPS.map((r, i) => r.map((_, j) => (cells.includes(`${i + 1}-${j + 1}`) ? 1 : 0)));
const flipText = (f) => f.map((r) => r.join(',')).join(';');

it('opens causal: M is 0 and -inf, hidden weights exactly 0, rows sum to 1, as { causal: true }; predict, then reveal: -1e9 spreads a blind row evenly', async (w) => {
  const { numbers } = await w.matches(START);
  expect(
    byRole(numbers, 'row-masked')
      .map((n) => n.text)
      .slice(3),
  ).toEqual(['\u2212\u221e', '\u2212\u221e', '\u2212\u221e']);
  await w.see({ '[data-role="same"]': /\{ causal: true \}\) gives the same weights/ });
  expect(await w.katex()).toBeGreaterThanOrEqual(2);
  const blind = { ...START, fill: '1e9', flip: flips(['3-1', '3-2', '3-3']) };
  const { ref } = await w.reveal({ wrong: 'zeros', says: /averages the values/, state: blind, right: 'uniform' });
  expect(ref.A[2]).toEqual(Array(T).fill(1 / T));
  await w.see({ '[data-role="same"]': /other weights in row 3\./, '[data-role="verdict"]': /rounds to \u22121e9/ });
});

it('a click and Enter flip cells of M; a blind row is 0 with -inf and 1/6 with -1e9; the link reopens it', async (w) => {
  await w.at('.left [data-cell="1-1"]').click(); // row 1 of a causal mask sees only key 1: now nothing
  await w.press('.left [data-cell="1-1"]', ['ArrowDown', 'ArrowRight', 'ArrowRight', 'Enter']); // and query 2 sees key 3
  let state = { ...START, flip: flips(['1-1', '2-3']), row: 2 };
  expect(await w.state()).toEqual(state);
  await w.matches(state);
  await w.at('input[name="fill"][value="1e9"]').check();
  state = { ...state, fill: '1e9', row: 1 };
  await w.at('.right [data-cell="1-1"]').click(); // a cell of A picks its row
  const { numbers, ref } = await w.matches(state);
  expect(ref.A[0]).toEqual(Array(T).fill(1 / T));
  await w.see({ '[data-role="same"]': /other weights in rows 1, 2\./ });
  await w.reopens(numbers, { params: { kind: 'causal', fill: '1e9', row: '1', flip: flipText(state.flip) } });
});

it('links: padding L = 0 with -1e9 averages every row; a window of 2, then 3 by key (announced); ALiBi head 3 (m = 1/8) hides no key', async (w) => {
  const empty = { ...START, kind: 'padding', len: 0, fill: '1e9' };
  await w.link('kind=padding&len=0&fill=1e9', empty, { state: empty }, (z, numbers, ref) => {
    expect(ref.blind).toEqual(Array(T).fill(true));
    return z.see({ '[data-role="same"]': /\{ kvSeqLen: \[0\] \}\) gives other weights in rows 1, 2, 3, 4, 5, 6\./ });
  });
  const win = { ...START, kind: 'window', w: 2 };
  await w.link('kind=window&w=2', win, { state: win }, (z) =>
    z.see({ '[data-role="same"]': /\{ window: 2 \}\) gives the same/ }),
  );
  await w.press('#mk-w', ['ArrowRight']); // w = 3: the slider says what the chosen query now weighs
  const { numbers } = await w.matches({ ...win, w: 3 });
  const weights = byRole(numbers, 'row-weight').map((n) => n.text);
  await w.announced(`w = 3: query 3 weights ${weights.join(', ')}`);
  const alibi = { ...START, kind: 'alibi', head: 3 };
  await w.link('kind=alibi&head=3', alibi, { state: alibi }, async (z, numbers) => {
    expect(matrixOf(numbers, 'mask')[1][0]).toBe(-1 / 8); // -m at distance 1
    await z.see({ '[data-role="slope-text"]': /m = 2\u207b\u00b3/ });
    for (const n of byRole(numbers, 'weight')) expect(n.value).toBeGreaterThan(0); // a soft mask: no weight is 0
  });
});
