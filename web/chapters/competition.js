// <ag-competition>: part 2, chapter 5, "Competition through the shared
// denominator". Four logit sliders; one logit s_j is raised by δ and every
// weight is recomputed: α_j rises, every other α_i falls. The softmax
// Jacobian J_ij = ∂α_i/∂s_j = α_i(δ_ij − α_j) is a live heat map (hover or
// focus a cell for its formula; Enter picks the logit to raise), with its row
// sums, which are zero. Numbers: ag.softmax (weights before and after),
// ag.weightedSum (the raised logits, the changes α' − α), ag.softmaxJacobian
// (J), ag.matmul(J, 1) (the row sums), ag.dot of one-element vectors (J_ij·δ).
//
//   <ag-competition s="1,0.5,0,-0.5" j="2" delta="1"></ag-competition>
import { AgWidget, defineWidget } from '../widget/base.js';
import { columns, num, nums } from '../widget/controls.js';
import { h, setText } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { headers, heatmap } from '../widget/heatmap.js';
import { logitSliders, setLogit } from '../widget/logit-sliders.js';
import { formulas } from '../widget/math.js';
import { slotTable } from '../widget/matrix-table.js';
import { fieldSlider } from '../widget/field-controls.js';
import { defineState, number, vector } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { rowsOf } from '../models/tensor.js';

const T = 4;
const LIMIT = 6;
const ONES_COL = Array.from({ length: T }, () => [1]);

export class AgCompetition extends AgWidget {
  static title = 'Competition through the shared denominator';
  static styles = ['styles/heatmap.css', 'styles/competition.css'];
  static figureSelector = 'svg.heatmap';
  static stateDecl = defineState({
    version: 1,
    fields: {
      s: vector({ length: T, min: -LIMIT, max: LIMIT, default: [1, 0.5, 0, -0.5] }),
      j: number({ min: 1, max: T, integer: true, default: 1 }), // the logit that is raised
      delta: number({ min: -3, max: 3, default: 1 }),
    },
  });

  #ui = null;
  #J = null; // last Jacobian rows (wasm results), for the hover readout
  #alpha = null;

  build(body) {
    const predict = this.predict({
      id: 'raise-one',
      question:
        'With the logits (1, 0.5, 0, \u22120.5), raise s\u2081 by 1 and leave s\u2083 alone. What happens to \u03b1\u2083?',
      choices: choices({ up: 'It rises', same: 'It stays the same', down: 'It falls' }),
      misconceptions: {
        up: 'That reads the logits as independent scores: the softmax shares one denominator, so raising one logit takes weight from every other one.',
        same: 'That reads \u03b1\u2083 as depending on s\u2083 alone: its numerator exp(s\u2083) is unchanged, but the shared denominator grew.',
      },
      reveal: (_choice, ag) => {
        const s = [1, 0.5, 0, -0.5];
        this.setState({ s, j: 1, delta: 1 });
        const before = ag.softmax(s).data;
        const after = ag.softmax([2, 0.5, 0, -0.5]).data;
        const answer = after[2] < before[2] ? 'down' : after[2] > before[2] ? 'up' : 'same';
        return {
          answer,
          explanation: `\u03b1\u2083 goes from ${fmt(before[2])} to ${fmt(after[2])}. Its numerator exp(s\u2083) did not change, but the denominator grew with exp(s\u2081), so \u03b1\u2083 shrinks; so do \u03b1\u2082 and \u03b1\u2084.`,
        };
      },
    });

    const raiseSelect = h(
      'select',
      { class: 'raise', id: 'cp-raise' },
      Array.from({ length: T }, (_, k) => h('option', { value: k + 1 }, `s${sub(k + 1)}`)),
    );
    raiseSelect.addEventListener('change', () => this.setState({ j: Number(raiseSelect.value) }));
    const delta = fieldSlider(this, {
      field: 'delta',
      id: 'cp-delta',
      min: -3,
      max: 3,
      step: 0.1,
      class: 'slider delta',
      rowClass: null,
    });
    const logits = logitSliders({
      id: 'cp-s',
      count: T,
      limit: LIMIT,
      legend: 'Logits',
      onInput: (k, v) => {
        const s = setLogit(this, k, v);
        this.announce(
          `s${sub(k + 1)} = ${fmt(s[k])}; weights ${this.#ui.alpha.map((el) => el.textContent).join(', ')}`,
        );
      },
      after: h(
        'div',
        { class: 'raise-row' },
        h('label', { for: 'cp-raise' }, 'Raise '),
        raiseSelect,
        h('label', { for: 'cp-delta' }, ' by \u03b4 ='),
        delta.input,
        delta.out,
      ),
    });

    const afterHead = h('span', {});
    const table = slotTable({
      className: 'weights',
      caption: 'Every weight before and after the raise',
      headers: [
        'i',
        '\u03b1\u1d62',
        { text: ['\u03b1\u1d62 after ', afterHead], class: 'c-after' },
        { text: 'change', class: 'c-change' },
        { text: 'J\u1d62\u2c7c\u00b7\u03b4', class: 'c-linear' },
      ],
      rows: ONES_COL.map((_, i) => String(i + 1)),
      cols: [
        'alpha',
        { role: 'alpha-after', class: 'c-after' },
        { role: 'change', class: 'c-change' },
        { role: 'linear', class: 'c-linear' },
      ],
      rowData: (i) => ({ row: i + 1 }),
    });
    const { alpha, 'alpha-after': after, change, linear } = table.cells;
    const weights = table.element;
    // The defaults are the question (raise s\u2081 by 1): the weights after, their changes and the changes the
    // Jacobian predicts (J\u1d62\u2c7c\u00b7\u03b4) answer it, so they wait.
    this.afterAnswer(weights, '.c-after, .c-change, .c-linear');

    const grid = h('div', { class: 'grid-box' });
    const hm = heatmap(grid, {
      rows: headers('\u03b1', T),
      cols: headers('s', T),
      label:
        'Softmax Jacobian: row i is the weight alpha_i, column j the logit s_j; press Enter on a cell to raise that column\u2019s logit',
      legendTitle: '\u2202\u03b1\u1d62/\u2202s\u2c7c',
      role: 'jacobian',
      readout: false, // the readout below says the same, with the row and column
      format: (v) => formatNumber(v, 2),
      describe: (i, j, text) => `d alpha${i + 1} / d s${j + 1} = ${text}`,
      show: (el, value, o) => this.show(el, value, o),
      onSelect: (i, j) => this.#readout(i, j),
      onActivate: (i, j) => {
        this.setState({ j: j + 1 });
        this.#readout(i, j);
      },
    });
    const rowSums = nums('row-sum', T);
    const sums = h(
      'div',
      { class: 'row-sums' },
      h('p', { class: 'sums-title' }, 'Row sums \u03a3\u2c7c J\u1d62\u2c7c (J times a column of ones):'),
      h(
        'ul',
        {},
        rowSums.map((el, i) => h('li', {}, `row ${i + 1}: `, el)),
      ),
      h('p', { class: 'sums-note' }, 'Zero up to float32 rounding: moving every logit together moves no weight.'),
    );
    const readout = h('p', { class: 'readout', 'aria-live': 'off' });
    const readAlphaI = num('read-alpha-i');
    const readAlphaJ = num('read-alpha-j');
    const readJ = num('read-j');

    const readNums = ['with \u03b1\u1d62 = ', readAlphaI, ', \u03b1\u2c7c = ', readAlphaJ, ', value ', readJ];
    // The map's signs off the diagonal (and the readout's words on them) say that raising one logit lowers the
    // others: the answer. They wait for it; the row sums stay.
    body.append(
      predict,
      columns(
        [
          logits.element,
          weights,
          formulas(
            '\\alpha_i=\\frac{\\exp(s_i)}{\\sum_k \\exp(s_k)}',
            'J_{ij}=\\frac{\\partial \\alpha_i}{\\partial s_j}=\\alpha_i(\\delta_{ij}-\\alpha_j)',
          ),
        ],
        [
          this.afterAnswer(grid),
          this.afterAnswer(h('div', { class: 'cell-read' }, readout, h('p', { class: 'read-nums' }, readNums))),
          sums,
        ],
        { stackEarly: true },
      ),
    );
    this.#ui = { logits, raiseSelect, delta, alpha, after, change, linear, afterHead, hm, rowSums, readout };
    Object.assign(this.#ui, { readAlphaI, readAlphaJ, readJ, selected: [0, 0] });
  }

  syncControls({ s, j, delta }) {
    const ui = this.#ui;
    ui.logits.set(s);
    ui.raiseSelect.value = String(j);
    ui.delta.set(delta, fmt(delta), `delta = ${fmt(delta)}`);
    setText(ui.afterHead, `(s${sub(j)} ${delta < 0 ? '\u2212' : '+'} ${fmt(Math.abs(delta))})`);
  }

  render(ag, { s, j, delta }) {
    const ui = this.#ui;
    const a = ag.softmax(s).data;
    this.#alpha = a;
    a.forEach((x, i) => this.show(ui.alpha[i], x));
    // The raised logits s + δ e_j, by the module (a weighted sum of two rows).
    const unit = s.map((_, k) => (k === j - 1 ? 1 : 0));
    const raised = ag.weightedSum([1, delta], [s, unit]).data;
    const b = ag.softmax(raised).data;
    b.forEach((x, i) => this.show(ui.after[i], x));
    const d = ag.weightedSum([1, -1], [b, a]).data;
    d.forEach((x, i) => this.show(ui.change[i], x));
    ui.change.forEach((el, i) => {
      el.parentElement.classList.toggle('is-up', d[i] > 0);
      el.parentElement.classList.toggle('is-down', d[i] < 0);
    });

    const J = ag.softmaxJacobian(a);
    const rows = rowsOf(J, T, T);
    this.#J = rows;
    rows.forEach((row, i) => this.show(ui.linear[i], ag.dot([row[j - 1]], [delta])));
    const sel = [ui.selected[0], j - 1];
    ui.hm.update(rows, { selected: sel });
    const sums = ag.matmul(J, ONES_COL).data;
    sums.forEach((x, i) => this.show(ui.rowSums[i], x));
    this.#readout(...sel);
  }

  #readout(i, j) {
    const ui = this.#ui;
    if (!this.#J) return;
    ui.selected = [i, j];
    const same = i === j;
    ui.readout.textContent = same
      ? `\u2202\u03b1${sub(i + 1)}/\u2202s${sub(j + 1)} = \u03b1${sub(i + 1)}(1 \u2212 \u03b1${sub(j + 1)}): a weight grows with its own logit.`
      : `\u2202\u03b1${sub(i + 1)}/\u2202s${sub(j + 1)} = \u2212\u03b1${sub(i + 1)}\u03b1${sub(j + 1)}: raising s${sub(j + 1)} takes weight from \u03b1${sub(i + 1)}.`;
    this.showAll(ui, { readAlphaI: this.#alpha[i], readAlphaJ: this.#alpha[j], readJ: this.#J[i][j] });
  }
}

defineWidget('ag-competition', AgCompetition);
