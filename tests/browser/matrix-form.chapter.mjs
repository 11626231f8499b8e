// "The matrix form" (#ch-matrix-form, <ag-matrix-form>): A = row-wise
// softmax of the logits (optionally causal), its row sums, Y = AV and one
// query's αV, against a float64 reference after a slider drag, arrow keys,
// a typed logit, the causal toggle and a changed URL.
import { expect } from '@jest/globals';
import { softmax } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, expectRole, rowsOf } from './chapter-tests.mjs';

const S0 = rowsOf('2,0,1,-1;0.5,1.5,0,1;1,0,2,0.5;-1,1,0.5,2');
const V0 = rowsOf('1,0;0,1;-1,0.5;2,2');

/** float64 reference: A (row softmax, causal keys j <= i), Y = AV. */
function reference(S, V, causal) {
  const A = S.map((row, i) =>
    softmax(row.map(Math.fround), 1, row.length, { mask: row.map((_, j) => (causal && j > i ? -Infinity : 0)) }),
  );
  return { A, Y: A.map((r) => V[0].map((_, c) => r.reduce((acc, a, j) => acc + a * V[j][c], 0))) };
}

function match(numbers, S, V, causal, row) {
  const ref = reference(S, V, causal);
  const A = byRole(numbers, 'a');
  expect(A).toHaveLength(16);
  expectRole(numbers, 'a', ref.A.flat(), 1e-6, { digits: 2, extra: 1e-6 });
  for (const { key, value } of A) if (causal && key[2] > key[0]) expect(value).toBe(0); // lower-triangular
  expectRole(numbers, 'row-sum', [1, 1, 1, 1], 1e-6);
  expectRole(numbers, 'y', ref.Y.flat(), 4e-6, { extra: 4e-6 });
  expectRole(numbers, 'alpha', ref.A[row - 1], 1e-6);
  expectRole(numbers, 'y-one', ref.Y[row - 1], 4e-6);
  return ref;
}

const it = chapterTests({ ch: 'matrix-form', tag: 'ag-matrix-form', match });

it('opens with A, its row sums (each 1), Y = AV and row 1 as alpha V, all matching the reference; predict, then reveal: a causal row still sums to 1', async (w) => {
  await w.matches(S0, V0, false, 1);
  expect(await w.text('[data-role="shape"]')).toBe('A [4, 4] \u00b7 V [4, 2] \u2192 Y [4, 2]');
  expect(await w.katex()).toBeGreaterThanOrEqual(3);
  await w.reveal({ wrong: 'less', part: { causal: true }, args: [S0, V0, true, 1], right: 'one' });
});

it('drag, keys, a typed logit, picking a row and the causal toggle; the URL reopens it all', async (w) => {
  // Pick row 3 on the heat map with the keyboard, drag s34 to the right end, two keys down on s31.
  await w.press('[data-cell="1-1"]', ['ArrowDown', 'ArrowDown', 'Enter']);
  expect((await w.state()).row).toBe(3);
  await w.slide('input[data-logit="4"]', 8.5 / 12, 1.1);
  expect((await w.state()).s[2][3]).toBe(6);
  await w.press('input[data-logit="1"]', 'ArrowLeft', 2);
  expectClose((await w.state()).s[2][0], 0.8, 1e-9, 's31');
  // Type a logit of row 2.
  await w.at('details.all-logits summary').click();
  await w.at('input.vec-input[data-r="1"][data-index="0"]').fill('-3.5');
  const { s } = await w.state();
  expect(s[1][0]).toBe(-3.5);
  await w.matches(s, V0, false, 3);
  await w.at('input.causal').check();
  expect((await w.state()).causal).toBe(true);
  const { numbers } = await w.matches(s, V0, true, 3);
  const checked = async () => expect(await w.at('input.causal').isChecked()).toBe(true);
  await w.reopens(numbers, { params: { causal: '1', row: '3' }, check: checked });
});

const S = '-6,6,0,1;3,3,3,3;0,0,5,-2;1.5,-0.5,2.5,4';
const V = '2,-1;0.5,3;-2,-2;4,0';
const LINK = `s=${encodeURIComponent(S)}&values=${encodeURIComponent(V)}&causal=1&row=4`;
it('a URL with the causal mask: lower-triangular A, rows summing to 1, Y as the reference', (w) =>
  w.link(LINK, [rowsOf(S), rowsOf(V), true, 4], {}, (z, numbers, ref) => expect(ref.A[0]).toEqual([1, 0, 0, 0])));
