// "The atom of attention" (#ch-atom, <ag-attention-atom>): the heat map S = QKᵀ and the chosen cell's dot
// product against a float64 reference after hovering and focusing cells, drags, arrow keys and a URL. The
// link read back here is taken in the same page; a copy in a new page is the contract's link round trip.
// A render whose inputs did not change writes nothing to the page (d3's writes go through
// widget/d3-changes-only.js, the widgets' own through widget/dom.js setText/setAttr): checked here for the
// atom's plane and heat map and, started in the same page, the tables and heat maps of multi-head and the bar
// chart and plane of entropy.
import { expect } from '@jest/globals';
import { overflow, waitReady } from './helpers.mjs';
import { byRole, chapterTests, expectNumbers, expectStages, one, readBracketed, rowsOf, U } from './chapter-tests.mjs';

const match = (numbers, cell, q = Q0, k = K0) => expectMatches(numbers, q, k, cell);
const it = chapterTests({ ch: 'atom', tag: 'ag-attention-atom', read: readBracketed, match });
const Q0 = rowsOf('0.5,0.5;1,2;2,0.5;-1,1.5');
const K0 = rowsOf('0.5,-0.5;2,1.5;-1,1;2.5,-0.5');

/** Every cell of the grid, the legend marks and the chosen pair against the float64 S[i][j] = q_i . k_j. */
function expectMatches(numbers, q, k, cell) {
  const S = q.map((qi) => k.map((kj) => qi[0] * kj[0] + qi[1] * kj[1]));
  const magnitude = (i, j) => Math.abs(q[i][0] * k[j][0]) + Math.abs(q[i][1] * k[j][1]);
  expectStages(numbers, [['score', S, (i, j) => 3 * U * magnitude(i, j) + 1e-12, 3]]);
  const [i, j] = [cell[0] - 1, cell[1] - 1];
  const t = [q[i][0] * k[j][0], q[i][1] * k[j][1]];
  expect(byRole(numbers, 'term')).toHaveLength(2);
  expectNumbers(numbers, [
    ['score-lowest', null, Math.min(...S.flat()), 1e-5, false],
    ['score-highest', null, Math.max(...S.flat()), 1e-5, false],
    ...t.map((x, c) => ['term', c + 1, x, 2 * U * Math.abs(x), 0]),
    ['dot', null, S[i][j], 3 * U * magnitude(i, j) + 1e-12, 3 * U * magnitude(i, j)],
  ]);
}
/** The cell [i, j] is chosen and every number matches the reference for q, k; returns the numbers. */
const expectCell = async (w, cell, ...qk) => (await w.matchesAt({ cell }, cell, ...qk)).numbers;

it('opens on the default sentence: the grid is QKᵀ and the chosen cell S32 = 2×2 + 0.5×1.5 = 4.75; predict, then reveal: S23 and S32 differ', async (w) => {
  const numbers = await expectCell(w, [3, 2]);
  expect(one(numbers, 'dot').text).toBe('4.75');
  expect(byRole(numbers, 'term').map((t) => t.text)).toEqual(['4', '0.75']);
  expect(numbers.filter((n) => n.role === 'score')).toHaveLength(16);
  // The grid came from one matmul with transposeB (the scores kernel).
  const kernels = await w.kernels();
  expect(kernels.some((k) => /matmul/.test(k))).toBe(true);
  // Cells carry their value and position for screen readers; shapes are typeset.
  const chosen = w.at('[data-cell="3-2"]');
  // S₃₂ is a cell of the question: its label names its number once the answer is on show.
  const label = 'S32: query of \u201cate\u201d with key of \u201ccat\u201d';
  expect(await chosen.getAttribute('aria-label')).toBe(`${label}, its number shown once you answer the prediction`);
  expect(await chosen.getAttribute('aria-selected')).toBe('true');
  await w.see({ '.katex': { more: 0 } });
  const says = /S\u2082\u2083 = q\u2082\u00b7k\u2083 = 1 but S\u2083\u2082 = q\u2083\u00b7k\u2082 = 4\.75/;
  await w.reveal({ wrong: 'equal', says, part: { cell: [2, 3] }, args: [[2, 3]], right: 'different' });
  expect(await chosen.getAttribute('aria-label')).toBe(`${label} = 4.75`);
});
it('hovering and focusing cells picks the pair: the other vectors fade and the dot product follows', async (w) => {
  await w.at('[data-cell="1-4"]').hover();
  await expectCell(w, [1, 4]);
  const faded = await w
    .at('[data-point]')
    .evaluateAll((els) => Object.fromEntries(els.map((n) => [n.dataset.point, n.classList.contains('is-faded')])));
  expect(faded).toEqual({ q1: false, q2: true, q3: true, q4: true, k1: true, k2: true, k3: true, k4: false });
  // Keyboard: the grid is one Tab stop; arrows move the focused cell, which is chosen.
  await w.keys('[data-cell="1-4"]', [['ArrowDown', 'ArrowLeft', 'ArrowLeft'], { cell: [2, 2] }]);
  expect(await w.at().evaluate((el) => el.shadowRoot.activeElement?.dataset.cell)).toBe('2-2');
  const tabbable = await w.at('.hm-cell[tabindex="0"]').evaluateAll((els) => els.map((n) => n.dataset.cell));
  expect(tabbable).toEqual(['2-2']);
  const numbers = await expectCell(w, [2, 2]);
  expect(one(numbers, 'dot').text).toBe('5'); // (1, 2)·(2, 1.5) = 2 + 3
  await w.logged();
  expect((await w.url()).get('cell')).toBe('2,2');
  // A hovered cell does not widen the page on a phone (light and dark alike: the contract).
  await w.page.setViewportSize({ width: 320, height: 1000 });
  await w.at('[data-cell="2-3"]').hover();
  expect(await overflow(w.page)).toBeLessThanOrEqual(0);
});
it('dragging q2 with the mouse and k4 with the keyboard updates the grid to the reference, and the URL reopens it', async (w) => {
  await w.drag('q2', [-2, 1.5]);
  const q = Q0.map((r, i) => (i === 1 ? [-2, 1.5] : [...r]));
  expect((await w.state()).q).toEqual(q);
  await expectCell(w, [2, 2], q); // dragging a query chooses its row
  await w.keyPoint('k4', ['ArrowLeft', 'ArrowLeft', 'Shift+ArrowUp']);
  const k = K0.map((r, i) => (i === 3 ? [2, 0.5] : [...r]));
  expect((await w.state()).k).toEqual(k);
  const numbers = await expectCell(w, [2, 4], q, k);
  expect(one(numbers, 'dot').text).toBe('\u22123.25'); // -4 + 0.75
  await w.see({ '[aria-live]': { contains: 'k4 (fish) = (2, 0.5); S24 = \u22123.25' } });
  expect(await w.at('[data-point="k4"]').getAttribute('aria-valuetext')).toBe('k4, key of \u201cfish\u201d = (2, 0.5)');
  const params = { q: '0.5,0.5;-2,1.5;2,0.5;-1,1.5', k: '0.5,-0.5;2,1.5;-1,1;2,0.5', cell: '2,4' };
  expectMatches(await w.reopens(numbers, { params }), q, k, [2, 4]);
});

it('a URL with other vectors shows their reference grid; a bad cell keeps the default with a note', async (w) => {
  const [q, k] = ['3,-3;0,0;-2.5,1.25;1,1', '-3,3;1.75,-0.5;0,2;-1,-1'];
  await w.set(`q=${q}&k=${k}&cell=1,1`);
  const numbers = await expectCell(w, [1, 1], rowsOf(q), rowsOf(k));
  expect(one(numbers, 'dot').text).toBe('\u221218');
  expect(one(numbers, 'score-lowest').text).toBe('\u221218');
  await w.logged();
  await w.link('cell=5,1', null, { part: { cell: [3, 2] }, note: ['cell=5,1'] });
});

/**
 * The mutations of `tag`'s shadow root (and host), as text, while the page
 * makes `change`: 'same' sets the widget's state to itself (a render with
 * the same inputs); 'move-k2' moves the atom's key k2 right by 0.25.
 */
function mutationsDuring(page, tag, change) {
  return page.locator(tag).evaluate((el, kind) => {
    const records = [];
    const observer = new MutationObserver((list) => records.push(...list));
    const all = { subtree: true, attributes: true, characterData: true, childList: true };
    observer.observe(el.shadowRoot, { ...all, attributeOldValue: true, characterDataOldValue: true });
    observer.observe(el, { attributes: true, attributeOldValue: true });
    if (kind === 'same') el.stateText = String(el.stateText);
    else el.setState({ k: el.state.k.map((r, i) => (i === 1 ? [r[0] + 0.25, r[1]] : r)) });
    records.push(...observer.takeRecords());
    observer.disconnect();
    const name = (n) =>
      n.nodeType === 3
        ? `text in <${n.parentNode?.localName}>`
        : `<${n.localName} class="${n.getAttribute('class') ?? ''}">`;
    return records.map((m) =>
      m.type === 'attributes'
        ? `${m.attributeName} on ${name(m.target)}${m.target.getAttribute(m.attributeName) === m.oldValue ? ' (same value)' : ''}`
        : m.type === 'characterData'
          ? `${name(m.target)}${m.target.nodeValue === m.oldValue ? ' (same text)' : ''}`
          : `children of ${name(m.target)}`,
    );
  }, change);
}

it('a render with unchanged inputs writes nothing, here and in two other chapters\u2019 figures; a change writes what changed', async (w) => {
  const others = ['ag-multi-head', 'ag-weight-entropy'];
  for (const tag of others) await w.page.locator(tag).evaluate((el) => el.start());
  for (const tag of others) await waitReady(w.page, tag);
  for (const tag of [w.tag, ...others])
    expect({ tag, writes: await mutationsDuring(w.page, tag, 'same') }).toEqual({ tag, writes: [] });
  // A real change: the moved key's handle and the numbers it changes are written, never a value onto itself.
  const moved = await mutationsDuring(w.page, w.tag, 'move-k2');
  expect(moved.length).toBeGreaterThan(0);
  expect(moved.filter((m) => m.includes('(same'))).toEqual([]);
  expect(moved.some((m) => m.startsWith('transform on <g class="handle'))).toBe(true);
});
