// <ag-matrix-form>: part 2, chapter 6, "The matrix form". A logits matrix
// S [T, T] (editable; the selected row also has sliders), its row-wise
// softmax A [T, T] as a heat map with the row sums (each 1), the values
// V [T, d_v], Y = AV [T, d_v], and one query's α·V beside row i of Y; a causal
// toggle masks the keys after each query. Numbers: ag.softmax (A, with a
// boolean causal mask), ag.matmul (row sums A·1, Y = AV, and αV for one row).
//
//   <ag-matrix-form causal="1" row="3"></ag-matrix-form>
import { AgWidget, defineWidget } from '../widget/base.js';
import { columns, line, nums } from '../widget/controls.js';
import { h, setText, symbol } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { WEIGHTS, queryKeyMap } from '../widget/heatmap.js';
import { numberGrid } from '../widget/inputs.js';
import { logitSliders } from '../widget/logit-sliders.js';
import { display, formulas } from '../widget/math.js';
import { listed } from '../widget/number-list.js';
import { bodyRow, numberCells, table } from '../widget/matrix-table.js';
import { bool, defineState, fixedMatrix, number } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { rowsOf } from '../models/tensor.js';

const T = 4;
const DV = 2;
const LIMIT = 6;
const ONES_COL = Array.from({ length: T }, () => [1]);
const CAUSAL = Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => j <= i)); // true = may attend

export class AgMatrixForm extends AgWidget {
  static title = 'The matrix form';
  static styles = ['styles/heatmap.css', 'styles/matrix-form.css'];
  static figureSelector = 'svg.heatmap';
  static stateDecl = defineState({
    version: 1,
    fields: {
      s: fixedMatrix('2,0,1,-1;0.5,1.5,0,1;1,0,2,0.5;-1,1,0.5,2', LIMIT),
      values: fixedMatrix('1,0;0,1;-1,0.5;2,2', LIMIT),
      causal: bool({ default: false }),
      row: number({ min: 1, max: T, integer: true, default: 1 }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'causal-row-one',
      question:
        'Switch the causal mask on, so that each query may only look at itself and earlier keys. What do the weights in the first row of A add up to?',
      choices: choices({ one: 'Still 1', less: 'Less than 1 (weight was cut off)', quarter: '1/4' }),
      misconceptions: {
        less: 'That reads the mask as cutting weight off after the softmax: masked logits are left out before normalising, so each row renormalises over the keys it may see and still sums to 1.',
        quarter:
          'That spreads the row over every key as if no mask were there: row 1 may see only key 1, and the softmax gives that key the whole row.',
      },
      reveal: (_choice, ag) => {
        this.setState({ causal: true, row: 1 });
        const A = ag.softmax(this.state.s, { mask: CAUSAL });
        const sums = ag.matmul(A, ONES_COL).data;
        const answer = Math.abs(sums[0] - 1) < 1e-6 ? 'one' : sums[0] < 1 ? 'less' : 'quarter';
        return {
          answer,
          explanation: `The masked logits are left out before normalising, so the row renormalises over what is left: row 1 keeps only key 1, A\u2081\u2081 = ${fmt(A.data[0])}, and the row sums to ${fmt(sums[0])}. Every row of a causal A is still a full set of weights.`,
        };
      },
    });

    const causal = h('input', { type: 'checkbox', class: 'causal', id: 'mf-causal' });
    causal.addEventListener('change', () => this.setState({ causal: causal.checked }));
    const toggle = h(
      'label',
      { class: 'toggle', for: 'mf-causal' },
      causal,
      ' Causal mask: query i sees keys 1..i only',
    );

    // Sliders for the selected row of S (drag or arrow keys).
    const logits = logitSliders({
      id: 'mf-s',
      count: T,
      limit: LIMIT,
      legend: '',
      label: () => '',
      onInput: (j, v) => {
        const s = this.state.s;
        s[this.state.row - 1][j] = v;
        this.setState({ s });
        this.announce(`row ${this.state.row}: weights ${this.#ui.alpha.map((el) => el.textContent).join(', ')}`);
      },
    });

    const sGrid = numberGrid({
      rows: Array.from({ length: T }, (_, i) => ({ name: `s row ${i + 1}`, label: `q${sub(i + 1)}` })),
      cols: T,
      spec: { min: -LIMIT, max: LIMIT },
      legend: ['All logits ', symbol('S'), ' [T, T] = [4, 4]'],
      onChange: (r, c, value) => {
        const s = this.state.s;
        s[r][c] = value;
        this.setState({ s });
      },
      onInvalid: (name, i) => this.note(`${name}, entry ${i + 1}: enter a number from \u2212${LIMIT} to ${LIMIT}.`),
    });
    const sDetails = h('details', { class: 'all-logits' }, h('summary', {}, 'Edit every logit'), sGrid.element);

    const grid = h('div', { class: 'grid-box' });
    const hm = queryKeyMap(this, grid, {
      queries: T,
      label: 'Attention matrix A; press Enter on a cell to pick its row',
      ...WEIGHTS,
      role: 'a',
      format: (v) => formatNumber(v, 2),
      describe: (i, j, text) => `A${i + 1}${j + 1} = ${text}`,
      onActivate: (i) => this.setState({ row: i + 1 }),
    });
    const rowSums = nums('row-sum', T);
    const sums = h('p', { class: 'row-sums' }, 'Row sums \u03a3\u2c7c A\u1d62\u2c7c: ', listed(rowSums));

    // Y = AV.
    const yCells = numberCells('y', T, DV);
    const vCells = Array.from({ length: T }, () => Array.from({ length: DV }, () => h('span', { class: 'in' })));
    const shapeLine = h('p', { class: 'shape', dataset: { role: 'shape' } });
    const mat = (caption, cells, role) =>
      table({
        className: `mat mat-${role}`,
        caption,
        rows: cells.map((row, i) => bodyRow(String(i + 1), row, { dataset: { row: i + 1 } })),
      });
    const alpha = nums('alpha', T);
    const yOne = nums('y-one', DV);
    const oneTitle = h('h3', {});
    const one = h(
      'section',
      { class: 'one-query' },
      oneTitle,
      display('y_i=\\alpha V,\\quad [1,T]\\cdot[T,d_v]\\to[1,d_v]'),
      line('\u03b1 = (', listed(alpha), ')'),
      line('y = \u03b1V = (', listed(yOne), ')'),
      h('p', { class: 'same' }),
    );

    const stochastic = 'Non-negative entries and every row summing to 1: A is row-stochastic.';
    body.append(
      predict,
      columns(
        [toggle, logits.element, sDetails, grid, sums, h('p', { class: 'stochastic' }, stochastic)],
        [
          formulas(
            'A_{i\\cdot}=\\operatorname{softmax}(S_{i\\cdot})',
            'A_{ij}\\ge 0,\\qquad \\sum_{j=1}^{T}A_{ij}=1',
            'Y=AV,\\qquad [T,T]\\cdot[T,d_v]\\to[T,d_v]',
          ),
          shapeLine,
          h('div', { class: 'mats' }, mat('V [4, 2] (values)', vCells, 'v'), mat('Y = AV [4, 2]', yCells, 'y')),
          one,
        ],
        { stackEarly: true },
      ),
    );
    const same = one.querySelector('.same');
    this.#ui = { causal, logits, sGrid, hm, rowSums, yCells, vCells, shapeLine, alpha, yOne, oneTitle, same };
  }

  syncControls({ s, values, causal, row }) {
    const ui = this.#ui;
    ui.causal.checked = causal;
    setText(ui.logits.legend, `Logits of query ${row} (row ${row} of S)`);
    ui.logits.set(s[row - 1], (j) => `s${sub(row)}${sub(j)}`);
    ui.logits.sliders.forEach((x, j) => setText(x.label, `s${sub(row)}${sub(j + 1)}`));
    ui.sGrid.set(s);
    ui.vCells.forEach((r, i) => r.forEach((el, c) => (el.textContent = fmt(values[i][c]))));
    setText(ui.oneTitle, `One query: row ${row}`);
  }

  render(ag, { s, values, causal, row }) {
    const ui = this.#ui;
    const A = ag.softmax(s, causal ? { mask: CAUSAL } : {});
    const rows = rowsOf(A, T, T);
    ui.hm.update(rows, { selected: [row - 1, 0] });
    ag.matmul(A, ONES_COL).data.forEach((x, i) => this.show(ui.rowSums[i], x));
    const Y = ag.matmul(A, values);
    ui.yCells.forEach((r, i) => r.forEach((el, c) => this.show(el, Y.data[i * DV + c])));
    setText(ui.shapeLine, `A [${A.shape.join(', ')}] \u00b7 V [${T}, ${DV}] \u2192 Y [${Y.shape.join(', ')}]`);
    const a = rows[row - 1];
    a.forEach((x, j) => this.show(ui.alpha[j], x));
    const y = ag.matmul([Array.from(a)], values);
    y.data.forEach((x, c) => this.show(ui.yOne[c], x));
    const same = y.data.every((x, c) => x === Y.data[(row - 1) * DV + c]);
    setText(
      ui.same,
      `[${y.shape.join(', ')}]: ${same ? 'the same numbers as' : 'equal up to float32 rounding to'} row ${row} of Y.`,
    );
  }
}

defineWidget('ag-matrix-form', AgMatrixForm);
