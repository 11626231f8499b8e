// <ag-qkt-grid>: chapter 8, "QKᵀ as a grid". Small editable embeddings X
// [N, d_model] and projections W_Q, W_K [d_model, d_k]; the queries
// Q = X W_Q and keys K = X W_K [N, d_k]; the heat map of S = QKᵀ [N, N].
// Hovering or focusing a cell shows its number; clicking it (or Enter)
// expands that score q_i·k_j term by term. Every number shown is a wasm
// result: ag.matmul for Q, K and S, ag.dot of one-element vectors for each
// term q_i,c k_j,c, and ag.dot(q_i, k_j) for the sum.
//
//   <ag-qkt-grid x="1,0,1;0,2,1;2,1,0;-1,0,2" wq="1,0;0,1;1,-1" wk="0,1;1,0;1,1" cell="1,2"></ag-qkt-grid>
import { AgWidget, defineWidget } from '../widget/base.js';
import { cellExpansion } from '../widget/cell-expansion.js';
import { num } from '../widget/controls.js';
import { h, setText, symbol } from '../widget/dom.js';
import { fmt, paren, sub } from '../widget/format.js';
import { headers, heatmap } from '../widget/heatmap.js';
import { matrixForm } from '../widget/matrix-form.js';
import { shapes, texElement } from '../widget/math.js';
import { bodyRow, numberCells, table } from '../widget/matrix-table.js';
import { defineState, fixedMatrix, vector } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { rowsOf, tensorOf as tensor } from '../models/tensor.js';

const TOKENS = ['birds', 'sing', 'at', 'dawn'];
const N = TOKENS.length;
const D_MODEL = 3;
const D_K = 2;
const MAX_ABS = 5;

export class AgQktGrid extends AgWidget {
  static title = 'QK\u1d40 as a grid';
  static styles = ['styles/heatmap.css', 'styles/qkt-grid.css'];
  static figureSelector = 'svg.heatmap';
  static stateDecl = defineState({
    version: 1,
    fields: {
      x: fixedMatrix('1,0,1;0,2,1;2,1,0;-1,0,2', MAX_ABS),
      wq: fixedMatrix('1,0;0,1;1,-1', MAX_ABS),
      wk: fixedMatrix('0,1;1,0;1,1', MAX_ABS),
      // The expanded cell (row i = query, column j = key), 1-based.
      cell: vector({ length: 2, min: 1, max: N, integer: true, default: [1, 2] }),
    },
  });

  #ui = null;
  #scores = null; // the last S (wasm result), for the hover readout

  build(body) {
    const predict = this.predict({
      id: 'same-projection',
      question:
        'Copy W_Q into W_K, so that keys and queries are made by the same projection. Will the grid S then be symmetric (S_ij = S_ji for every pair)?',
      choices: choices({ yes: 'Yes, always', no: 'No, not in general' }),
      misconceptions: {
        no: 'That puts the asymmetry of S in the projection itself: it comes from using two different projections; with W_K = W_Q every key is its own token\u2019s query, and q_i\u00b7q_j = q_j\u00b7q_i.',
      },
      reveal: (_choice, ag) => {
        const { x, wq } = this.state;
        this.setState({ wk: wq, cell: [1, 2] });
        const Q = ag.matmul(tensor(x), tensor(wq));
        const K = ag.matmul(tensor(x), tensor(wq));
        const S = ag.matmul(Q, K, { transposeB: true }).data;
        let symmetric = true;
        for (let i = 0; i < N; i += 1)
          for (let j = 0; j < N; j += 1) if (S[i * N + j] !== S[j * N + i]) symmetric = false;
        return {
          answer: symmetric ? 'yes' : 'no',
          explanation: `With one projection every key equals its own token\u2019s query, so S_ij = q_i\u00b7q_j = q_j\u00b7q_i. The module\u2019s grid: S\u2081\u2082 = ${fmt(S[1])} and S\u2082\u2081 = ${fmt(S[N])}. Two different projections are what let \u201ca looks at b\u201d differ from \u201cb looks at a\u201d.`,
        };
      },
    });

    const edits = matrixForm(this, {
      fields: ['x', 'wq', 'wk'],
      max: MAX_ABS,
      entry: 'entry',
      what: 'results',
      onStale: () => this.#ui.results.classList.add('is-stale'),
    });
    const xGrid = edits.grid({
      rows: TOKENS.map((t, i) => ({ name: `x${i + 1}`, label: symbol('x', i + 1) })),
      cols: D_MODEL,
      legend: ['Embeddings ', symbol('X'), ' [N, d_model] = [4, 3]'],
      field: 'x',
    });
    const wGrid = (field, name) =>
      edits.grid({
        rows: Array.from({ length: D_MODEL }, (_, r) => ({ name: `${name} row ${r + 1}`, label: String(r + 1) })),
        cols: D_K,
        legend: [symbol('W', name === 'W_Q' ? 'Q' : 'K'), ' [d_model, d_k] = [3, 2]'],
        field,
      });
    const wqGrid = wGrid('wq', 'W_Q');
    const wkGrid = wGrid('wk', 'W_K');
    const tokenList = h(
      'p',
      { class: 'tokens' },
      'Tokens: ',
      TOKENS.map((t, i) => [i ? ', ' : '', symbol('x', i + 1), ` \u201c${t}\u201d`]),
    );
    const form = edits.form(
      'inputs',
      tokenList,
      h('div', { class: 'grids' }, xGrid.element, wqGrid.element, wkGrid.element),
    );

    // Q and K: small read-only tables of wasm results.
    const projTable = (role, caption) => {
      const cells = numberCells(role, N, D_K);
      const rows = cells.map((row, i) => bodyRow(symbol(role, i + 1), row, { dataset: { row: i + 1 } }));
      return { table: table({ className: `proj proj-${role}`, caption, rows }), cells };
    };
    const qTable = projTable('q', texElement('Q = XW_Q\\;[4,2]'));
    const kTable = projTable('k', texElement('K = XW_K\\;[4,2]'));

    const grid = h('div', { class: 'grid-box' });
    const hm = heatmap(grid, {
      rows: headers('q', N, TOKENS),
      cols: headers('k', N, TOKENS),
      label: 'Scores S = Q K transposed; press Enter on a cell to expand its dot product',
      legendTitle: 'score',
      role: 'score',
      readout: false, // the chapter's own readout below the grid
      describe: (i, j, text) =>
        `S${i + 1}${j + 1}, \u201c${TOKENS[i]}\u201d looking at \u201c${TOKENS[j]}\u201d: ${text}`,
      show: (el, value, o) => this.show(el, value, o),
      onSelect: (i, j) => this.#readout(i, j),
      onActivate: (i, j) => this.setState({ cell: [i + 1, j + 1] }),
    });
    const readValue = num('readout');
    const readLabel = h('span', { class: 'readout-label' });
    const readout = h(
      'p',
      { class: 'readout' },
      readLabel,
      readValue,
      h('span', { class: 'hint' }, ' \u2014 click or press Enter to expand'),
    );
    const shapeLine = shapes(
      '\\underset{[4,3]}{X}\\;\\underset{[3,2]}{W_Q}=\\underset{[4,2]}{Q}',
      '\\underset{[4,3]}{X}\\;\\underset{[3,2]}{W_K}=\\underset{[4,2]}{K}',
      'S=\\underset{[4,2]}{Q}\\;\\underset{[2,4]}{K^{\\top}}:[N,N]=[4,4]',
    );

    const factors = Object.fromEntries(['q1', 'k1', 'q2', 'k2'].map((f) => [f, num('factor', f)]));
    const f = factors;
    const expansion = cellExpansion({
      label: 'The expanded cell, term by term',
      heading: 'h3',
      factors: [f.q1, '\u00d7', f.k1, ' + ', f.q2, '\u00d7', f.k2],
    });

    const results = h(
      'div',
      { class: 'results' },
      shapeLine,
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'projs' }, qTable.table, kTable.table),
        h('div', { class: 'right' }, grid, readout),
      ),
      expansion.element,
    );
    body.append(predict, form, results);
    this.#ui = { edits, xGrid, wqGrid, wkGrid, hm, readLabel, readValue, expansion, factors, results };
    Object.assign(this.#ui, { qCells: qTable.cells, kCells: kTable.cells });
  }

  #readout(i, j) {
    const ui = this.#ui;
    if (!this.#scores) return;
    setText(ui.readLabel, `S${sub(i + 1)}${sub(j + 1)} (\u201c${TOKENS[i]}\u201d \u2192 \u201c${TOKENS[j]}\u201d) = `);
    this.show(ui.readValue, this.#scores[i * N + j]);
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.xGrid.set(state.x);
    ui.wqGrid.set(state.wq);
    ui.wkGrid.set(state.wk);
  }

  stateChanged(source) {
    // A state from outside replaces whatever was being typed.
    if (source !== 'user' && this.#ui) this.#ui.edits.reset();
  }

  render(ag, { x, wq, wk, cell }) {
    const ui = this.#ui;
    if (ui.edits.anyInvalid()) return;
    ui.results.classList.remove('is-stale');
    const X = tensor(x);
    const Q = ag.matmul(X, tensor(wq));
    const K = ag.matmul(X, tensor(wk));
    const S = ag.matmul(Q, K, { transposeB: true });
    this.#scores = S.data;
    for (let i = 0; i < N; i += 1) {
      for (let c = 0; c < D_K; c += 1) {
        this.show(ui.qCells[i][c], Q.data[i * D_K + c]);
        this.show(ui.kCells[i][c], K.data[i * D_K + c]);
      }
    }
    const i = cell[0] - 1;
    const j = cell[1] - 1;
    ui.hm.update(rowsOf(S, N, N), { selected: [i, j] });
    this.#readout(i, j);

    // The expanded cell: each term a one-element dot product, then the whole q_i·k_j.
    const qi = Q.data.subarray(i * D_K, (i + 1) * D_K);
    const kj = K.data.subarray(j * D_K, (j + 1) * D_K);
    ui.expansion.show(this, ag, i, j, qi, kj);
    const { heading, vectors } = ui.expansion;
    setText(heading, `S${sub(i + 1)}${sub(j + 1)}: \u201c${TOKENS[i]}\u201d looking at \u201c${TOKENS[j]}\u201d`);
    setText(vectors, `q${sub(i + 1)} is row ${i + 1} of Q, k${sub(j + 1)} is row ${j + 1} of K.`);
    // The factors: entries of Q and K (wasm results), negative ones in brackets after a sign.
    for (let c = 0; c < D_K; c += 1) {
      this.show(ui.factors[`q${c + 1}`], qi[c], c ? { format: paren } : {});
      this.show(ui.factors[`k${c + 1}`], kj[c], { format: paren });
    }
  }
}

defineWidget('ag-qkt-grid', AgQktGrid);
