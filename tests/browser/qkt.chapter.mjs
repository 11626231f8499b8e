// "QKᵀ as a grid" (#ch-qkt, <ag-qkt-grid>): editable X, W_Q and W_K, the
// projections Q = X W_Q and K = X W_K, the heat map S = QKᵀ and a cell's dot
// product expanded term by term; checked against a float64 reference after
// typed edits, arrow keys in an input, clicks, Enter on a cell and a changed URL. The link read back
// here is taken in the same page; a copy in a new page is the contract's link round trip.
import { expect } from '@jest/globals';
import { matmulRows, matmulRowsT } from './reference-rows.mjs';
import { byRole, chapterTests, expectClose, expectNumbers, expectStages, matrixOf, one } from './chapter-tests.mjs';
import { readBracketed, rowsOf, U } from './chapter-tests.mjs';

const match = (numbers, cell, x = X0, wq = WQ0, wk = WK0) => expectMatches(numbers, x, wq, wk, cell);
const it = chapterTests({ ch: 'qkt', tag: 'ag-qkt-grid', read: readBracketed, match });
const X0 = rowsOf('1,0,1;0,2,1;2,1,0;-1,0,2');
const WQ0 = rowsOf('1,0;0,1;1,-1');
const WK0 = rowsOf('0,1;1,0;1,1');

/** float64 reference: Q, K and S, with the absolute sums their error bounds are stated in. */
function reference(x, wq, wk) {
  const { C: Q, mag: Qabs } = matmulRows(x, wq);
  const { C: K, mag: Kabs } = matmulRows(x, wk);
  // Error bound of the float32 path: Q and K each carry a few roundoffs of their
  // absolute sums, which S multiplies.
  return { Q, K, S: matmulRowsT(Q, K), Sabs: matmulRowsT(Qabs, Kabs), Qabs, Kabs };
}

function expectMatches(numbers, x, wq, wk, cell) {
  const ref = reference(x, wq, wk);
  const [qTol, kTol] = [ref.Qabs, ref.Kabs].map((M) => (i, j) => 4 * U * M[i][j] + 1e-12);
  const sTol = (i, j) => 12 * U * ref.Sabs[i][j] + 1e-12;
  // prettier-ignore
  expectStages(numbers, [['q', ref.Q, qTol, 4], ['k', ref.K, kTol, 4], ['score', ref.S, sTol, 3]]);
  const [i, j] = [cell[0] - 1, cell[1] - 1];
  const Smag = 12 * U * Math.max(...ref.Sabs.flat()) + 1e-12;
  expect(byRole(numbers, 'term')).toHaveLength(2);
  // Each number once, within its bound; the text (4 digits) too, unless false.
  expectNumbers(numbers, [
    ...[0, 1].flatMap((c) => [
      ['term', c + 1, ref.Q[i][c] * ref.K[j][c], 10 * U * ref.Qabs[i][c] * ref.Kabs[j][c] + 1e-12],
      ['factor', `q${c + 1}`, ref.Q[i][c], qTol(i, c), false],
      ['factor', `k${c + 1}`, ref.K[j][c], kTol(j, c), false],
    ]),
    ['dot', null, ref.S[i][j], sTol(i, j)],
    ['score-lowest', null, Math.min(...ref.S.flat()), Smag, false],
    ['score-highest', null, Math.max(...ref.S.flat()), Smag, false],
  ]);
  return ref;
}

const input = (w, row, index) => w.at(`input[data-row="${row}"][data-index="${index}"]`);
const stale = (w) => w.at('.results').evaluate((el) => el.classList.contains('is-stale'));
/** The cell [i, j] is chosen and every number matches the reference; returns the numbers. */
const expectCell = async (w, cell, ...inputs) => (await w.matchesAt({ cell }, cell, ...inputs)).numbers;

it('opens on the defaults: Q, K and S match the reference, S12 = 2×3 + (−1)×1 = 5; predict, then reveal: with W_K = W_Q the grid is symmetric', async (w) => {
  const numbers = await expectCell(w, [1, 2]);
  expect(one(numbers, 'dot').text).toBe('5');
  // The negative second term turns the + into a minus: 6 \u2212 1, not 6 + (\u22121); data-value stays \u22121.
  // prettier-ignore
  expect(byRole(numbers, 'term').map((t) => [t.text, t.value])).toEqual([['6', 6], ['1', -1]]);
  expect(await w.at('section.pair p.line').allTextContents()).toContain('= 6 \u2212 1');
  expect(one(numbers, 'factor', 'k1').text).toBe('3');
  const calls = await (await w.kernels()).filter((k) => /matmul/.test(k)).length;
  expect(calls).toBeGreaterThanOrEqual(3);
  expect(await w.at('[data-cell="1-2"]').getAttribute('aria-label')).toBe(
    'S12, \u201cbirds\u201d looking at \u201csing\u201d: 5',
  );
  await w.see({ '.katex': { more: 0 } });
  const says = /S\u2081\u2082 = 1 and S\u2082\u2081 = 1/;
  const spec = { wrong: 'no', says, part: { wk: WQ0, cell: [1, 2] }, args: [[1, 2], X0, WQ0, WQ0], right: 'yes' };
  const S = matrixOf((await w.reveal(spec)).numbers, 'score');
  expect(S).toEqual(S.map((row, i) => row.map((_, j) => S[j][i]))); // symmetric
});
it('hover shows a number, a click or Enter expands the cell', async (w) => {
  const ref = reference(X0, WQ0, WK0);
  const readout = async (i, j) =>
    expectClose(one(await w.read(), 'readout').value, ref.S[i - 1][j - 1], 1e-6, `readout S${i}${j}`);
  await w.at('[data-cell="4-3"]').hover();
  await readout(4, 3);
  expect((await w.state()).cell).toEqual([1, 2]); // hovering does not expand
  await w.at('[data-cell="3-4"]').click();
  expect(one(await expectCell(w, [3, 4]), 'dot').text).toBe('5'); // (2, 1)·(2, 1)
  // Keyboard: arrows move the focus (and the readout), Enter expands.
  await w.press('[data-cell="3-4"]', ['ArrowUp', 'Home']);
  await readout(2, 1);
  expect((await w.state()).cell).toEqual([3, 4]);
  await w.page.keyboard.press('Enter');
  expect(one(await expectCell(w, [2, 1]), 'dot').text).toBe('3'); // (1, 1)·(1, 2)
  await w.params({ cell: '2,1' });
  await w.logged();
});
it('editing X, W_Q (arrow key) and W_K gives the reference Q, K and S, and the URL reopens them', async (w) => {
  await input(w, 'x2', 2).fill('-2.5');
  await input(w, 'W_K row 2', 0).fill('3');
  await w.press('input[data-row="W_Q row 1"][data-index="1"]', 'ArrowUp'); // 0 -> 1
  const [x, wq, wk] = [X0, WQ0, WK0].map((M) => M.map((r) => [...r]));
  [x[1][2], wq[0][1], wk[1][0]] = [-2.5, 1, 3];
  expect(await w.state()).toMatchObject({ x, wq, wk });
  await w.at('[data-cell="2-4"]').click();
  const numbers = await expectCell(w, [2, 4], x, wq, wk);
  await w.reopens(numbers, {
    params: { x: '1,0,1;0,2,-2.5;2,1,0;-1,0,2', wq: '1,1;0,1;1,-1', wk: '0,1;3,0;1,1', cell: '2,4' },
    keep: (n) => n.role !== 'readout',
    async check(z, reopened) {
      expectMatches(reopened, x, wq, wk, [2, 4]);
      expect(await input(z, 'x2', 2).inputValue()).toBe('-2.5');
    },
  });
});

const X = '0.3,-1.7,2.2;4.9,0.1,-3.3;-0.25,1.5,0.75;2,-2,5';
const [WQ, WK] = ['0.1,-0.7;1.3,0.9;-2.2,0.4', '-1.1,0.6;0.35,-4.5;2.8,1.9'];
it('a URL with fractional inputs matches the reference; an entry out of range is flagged and waits', async (w) => {
  const [x, wq, wk] = [X, WQ, WK].map(rowsOf);
  await expectCell(w, [4, 4], x, wq, wk);
  await w.logged();
  await input(w, 'x1', 0).fill('9'); // out of range [-5, 5]
  expect(await input(w, 'x1', 0).getAttribute('aria-invalid')).toBe('true');
  await w.see({ '.note': { contains: 'x1, entry 1' } });
  expect(await stale(w)).toBe(true);
  await input(w, 'x3', 1).fill('2'); // waits while x1 is out of range
  expect((await w.state()).x[2][1]).toBe(1.5);
  await input(w, 'x1', 0).fill('1');
  const x2 = x.map((r) => [...r]);
  [x2[0][0], x2[2][1]] = [1, 2];
  expect((await w.state()).x).toEqual(x2);
  expect(await stale(w)).toBe(false);
  await expectCell(w, [4, 4], x2, wq, wk);
}).at(`x=${X}&wq=${WQ}&wk=${WK}&cell=4,4`);
