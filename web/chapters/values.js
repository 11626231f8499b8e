// <ag-value-mix>: part 2, chapter 1, "Values do the work". T draggable 2-D
// value vectors v₁..v_T (T from 2 to 8) and their weights α₁..α_T given
// directly by sliders (no queries or keys yet). The output y = Σ αⱼvⱼ is
// drawn as a chain of the scaled values αⱼvⱼ laid tip to tail. Every number
// shown is a wasm result: ag.weightedSum (y, each term αⱼvⱼ as a one-weight
// sum, the partial sums that place the chain), ag.dot (Σαⱼ as α·1).
//
//   <ag-value-mix values="-4,2;2,4;3,-3" alpha="0.5,0.3,0.2"></ag-value-mix>
import { AgWidget, defineWidget } from '../widget/base.js';
import { h, setAttr, setFlag, setText, symbol } from '../widget/dom.js';
import { formatNumber } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { arrowMarker, draggablePoint, plane } from '../widget/plot.js';
import { defineState, matrix, vector } from '../widget/state.js';

const EXTENT = 6;
const T_MIN = 2;
const T_MAX = 8;
const A_STEP = 0.05;
/** Where a new value appears when T grows (the first three are the default). */
const SPOTS = [
  [1, 5],
  [5, 1],
  [-4, -3],
  [-4, 3],
  [3, -5],
  [-1, -5],
  [-5, 0],
  [0, 3],
];

const fmt = (x) => formatNumber(x, 4);
const pair = ([x, y]) => `(${fmt(x)}, ${fmt(y)})`;

/** alpha fitted to T entries (when T changes: a new value gets weight 0, a removed one takes its weight away). */
export function fitWeights(alpha, T) {
  return Array.from({ length: T }, (_, j) => alpha[j] ?? 0);
}

/**
 * One weight per value: alpha must have as many entries as values has rows
 * (alpha = 0.5,0.5 with four values would leave two values unweighted). The
 * weights go back to their default, and the values too when the default
 * weights do not fit their count either.
 */
export function weightProblems(values, alpha, defaultAlpha) {
  const T = values.length;
  if (alpha.length === T) return [];
  const problems = [
    { name: 'alpha', value: alpha.join(','), expected: `${T} weights, one per value (values has ${T} rows)` },
  ];
  if (defaultAlpha.length !== T) {
    problems.push({
      name: 'values',
      value: values.map((r) => r.join(',')).join(';'),
      expected: `${defaultAlpha.length} values (with the weights back to their default, the values go back to their default too)`,
    });
  }
  return problems;
}

export class AgValueMix extends AgWidget {
  static title = 'Values do the work';
  static styles = ['styles/values.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      values: matrix({
        minRows: T_MIN,
        maxRows: T_MAX,
        cols: 2,
        min: -EXTENT,
        max: EXTENT,
        default: SPOTS.slice(0, 3),
      }),
      alpha: vector({ minLength: T_MIN, maxLength: T_MAX, min: 0, max: 1, default: [0.5, 0.3, 0.2] }),
    },
    check: (state) => weightProblems(state.values, state.alpha, [0.5, 0.3, 0.2]),
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'move-a-value',
      question:
        'The weights stay at α = (0.5, 0.3, 0.2). Only the value v\u2081 moves, 2 units to the right, from (1, 5) to (3, 5). How far does the output y move?',
      choices: [
        { value: '0', label: 'Not at all: the weights did not change' },
        { value: '1', label: '1 unit (half the move)' },
        { value: '2', label: '2 units (the whole move)' },
      ],
      reveal: (_choice, ag) => {
        const before = SPOTS.slice(0, 3);
        const after = [[3, 5], ...SPOTS.slice(1, 3)];
        const alpha = [0.5, 0.3, 0.2];
        this.setState({ values: after, alpha });
        const y0 = ag.weightedSum(alpha, before).data;
        const y1 = ag.weightedSum(alpha, after).data;
        const moved = ag.norm(ag.weightedSum([1, -1], [Array.from(y1), Array.from(y0)]).data);
        const answer = ['0', '1', '2'].reduce(
          (best, c) => (Math.abs(Number(c) - moved) < Math.abs(Number(best) - moved) ? c : best),
          '0',
        );
        return {
          answer,
          explanation: `The module computed y = ${pair(y0)} before and ${pair(y1)} after: y moved ${fmt(moved)}. The weights say how much of v\u2081 is in y (one half), so y follows v\u2081 at half its pace; what moved it was a value, not a weight.`,
        };
      },
    });

    // T: add or remove a value.
    const count = h('span', { class: 'count' });
    const add = h('button', { type: 'button', dataset: { action: 'add' } }, 'Add a value');
    const remove = h('button', { type: 'button', dataset: { action: 'remove' } }, 'Remove the last');
    add.addEventListener('click', () => this.#resize(1));
    remove.addEventListener('click', () => this.#resize(-1));
    const even = h('button', { type: 'button', dataset: { action: 'even' } }, 'Equal weights');
    even.addEventListener('click', () => {
      const T = this.state.values.length;
      this.setState({ alpha: Array.from({ length: T }, () => 1 / T) });
    });
    const controls = h(
      'div',
      { class: 'controls', role: 'group', 'aria-label': 'Number of values' },
      count,
      add,
      remove,
      even,
    );

    // Figure.
    const figure = h('div', { class: 'figure' });
    const p = plane(figure, {
      extent: EXTENT,
      label: 'Value vectors v and the output y; drag the tips of the values or use the arrow keys',
    });
    const markV = arrowMarker(p.svg, 'vm-arrow-v', 'marker-v');
    const markT = arrowMarker(p.svg, 'vm-arrow-t', 'marker-t');
    const markY = arrowMarker(p.svg, 'vm-arrow-y', 'marker-y');
    const valuesLayer = p.layer('values');
    const chainLayer = p.layer('chain');
    const yLayer = p.layer('output');
    const yLine = yLayer.append('line').attr('class', 'vec vec-y').attr('marker-end', markY);
    const yLabel = yLayer.append('text').attr('class', 'vec-label label-y').text('y');
    const handles = p.layer('handles');

    // Weights: one slider per value, built for T_MAX and hidden beyond T.
    const sliders = Array.from({ length: T_MAX }, (_, j) => {
      const id = `vm-alpha-${j + 1}`;
      const input = h('input', {
        type: 'range',
        min: 0,
        max: 1,
        step: A_STEP,
        id,
        class: 'slider',
        dataset: { alpha: j + 1 },
      });
      const out = h('output', { class: 'alpha-value', for: id });
      input.addEventListener('input', () => {
        const alpha = fitWeights(this.state.alpha, this.state.values.length);
        alpha[j] = Number(input.value);
        this.setState({ alpha });
        this.announce(`\u03b1${j + 1} = ${fmt(alpha[j])}; y = ${this.#ui.yText()}`);
      });
      const row = h(
        'div',
        { class: 'weight-row' },
        h('label', { for: id, class: 'weight-label' }, symbol('\u03b1', j + 1)),
        input,
        out,
      );
      return { input, out, row };
    });
    const weights = h(
      'fieldset',
      { class: 'weights' },
      h('legend', {}, 'Weights, set directly'),
      sliders.map((s) => s.row),
    );

    // Numbers: the formula, a table of terms, y and the sum of the weights.
    const num = (role, key) =>
      h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
    const termRows = Array.from({ length: T_MAX }, (_, j) => {
      const cells = [num('term', `${j + 1}-1`), num('term', `${j + 1}-2`)];
      const alphaCell = h('td', { class: 'plain' });
      const valueCell = h('td', { class: 'plain' });
      const row = h(
        'tr',
        {},
        h('th', { scope: 'row' }, String(j + 1)),
        alphaCell,
        valueCell,
        h('td', {}, '(', cells[0], ', ', cells[1], ')'),
      );
      return { row, cells, alphaCell, valueCell };
    });
    const table = h(
      'table',
      { class: 'terms' },
      h('caption', { class: 'visually-hidden' }, 'Each value, its weight and the scaled value'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'j'),
          h('th', { scope: 'col' }, symbol('\u03b1', 'j')),
          h('th', { scope: 'col' }, symbol('v', 'j')),
          h('th', { scope: 'col' }, '\u03b1', h('sub', {}, 'j'), 'v', h('sub', {}, 'j')),
        ),
      ),
      h(
        'tbody',
        {},
        termRows.map((r) => r.row),
      ),
    );
    const y = [num('y', 1), num('y', 2)];
    const sum = num('sum');
    const dv = num('dv');
    const numbers = h(
      'div',
      { class: 'numbers' },
      texElement('y=\\sum_{j=1}^{T}\\alpha_j\\,v_j', { display: true }),
      texElement('v_j\\in\\mathbb{R}^{d_v}\\ \\Rightarrow\\ y\\in\\mathbb{R}^{d_v}', { display: true }),
      h('div', { class: 'table-wrap' }, table),
      h('p', { class: 'line result' }, h('span', { class: 'lbl' }, 'y = '), '(', y[0], ', ', y[1], ')'),
      h(
        'p',
        { class: 'line' },
        h('span', { class: 'lbl' }, 'Sum of the weights \u03a3\u03b1'),
        h('sub', {}, 'j'),
        h('span', { class: 'lbl' }, ' = '),
        sum,
      ),
      h(
        'p',
        { class: 'line dv-line' },
        'Each value has d',
        h('sub', {}, 'v'),
        ' = 2 coordinates here; y has ',
        dv,
        ': mixing never changes the dimension (in the base Transformer d',
        h('sub', {}, 'v'),
        ' = 64).',
      ),
    );

    body.append(
      predict,
      controls,
      h('div', { class: 'layout' }, h('div', { class: 'left' }, figure, weights), numbers),
    );
    this.#ui = {
      p,
      markV,
      markT,
      valuesLayer,
      chainLayer,
      handles,
      yLine,
      yLabel,
      sliders,
      termRows,
      y,
      sum,
      dv,
      count,
      add,
      remove,
      handleList: [],
      valueLines: [],
      chainLines: [],
      yText: () => `(${this.#ui.y[0].textContent}, ${this.#ui.y[1].textContent})`,
    };
  }

  #resize(delta) {
    const { values, alpha } = this.state;
    const T = Math.max(T_MIN, Math.min(T_MAX, values.length + delta));
    if (T === values.length) return;
    const next = T > values.length ? [...values, SPOTS[values.length]] : values.slice(0, T);
    this.setState({ values: next, alpha: fitWeights(alpha, T) });
    this.announce(`T = ${T} values`);
  }

  syncControls({ values, alpha }) {
    if (!this.#ui) return;
    const T = values.length;
    const a = fitWeights(alpha, T);
    this.#ui.sliders.forEach((s, j) => {
      setFlag(s.row, 'hidden', j >= T);
      if (j < T) {
        if (Number(s.input.value) !== a[j]) s.input.value = String(a[j]);
        setText(s.out, fmt(a[j]));
        setAttr(s.input, 'aria-valuetext', `\u03b1${j + 1} = ${fmt(a[j])}`);
      }
    });
    setText(this.#ui.count, `T = ${T} values`);
    setFlag(this.#ui.add, 'disabled', T >= T_MAX);
    setFlag(this.#ui.remove, 'disabled', T <= T_MIN);
  }

  render(ag, { values, alpha: given }) {
    const ui = this.#ui;
    const T = values.length;
    const alpha = fitWeights(given, T);
    const y = ag.weightedSum(alpha, values);
    ui.y.forEach((el, i) => this.show(el, y.data[i]));
    this.show(ui.sum, ag.dot(alpha, new Array(T).fill(1)));
    this.show(ui.dv, y.shape[0]);
    // Each term αⱼvⱼ is the weighted sum of one value; the partial sums place the chain.
    const chain = [];
    ui.termRows.forEach((r, j) => {
      setFlag(r.row, 'hidden', j >= T);
      if (j >= T) {
        for (const c of r.cells) {
          setText(c, '');
          delete c.dataset.value;
        }
        return;
      }
      const term = ag.weightedSum([alpha[j]], [values[j]]).data;
      r.cells.forEach((c, i) => this.show(c, term[i]));
      setText(r.alphaCell, fmt(alpha[j]));
      setText(r.valueCell, pair(values[j]));
      chain.push(Array.from(ag.weightedSum(alpha.slice(0, j + 1), values.slice(0, j + 1)).data));
    });
    this.#draw(values, chain, Array.from(y.data));
  }

  #draw(values, chain, y) {
    const ui = this.#ui;
    const { p } = ui;
    const T = values.length;
    // Handles and value arrows: one per value, made or removed as T changes.
    while (ui.handleList.length < T) {
      const j = ui.handleList.length;
      const name = `v${j + 1}`;
      const line = ui.valuesLayer.append('line').attr('class', 'vec vec-v').attr('marker-end', ui.markV);
      const label = ui.valuesLayer.append('text').attr('class', 'vec-label label-v');
      label.append('tspan').text('v');
      label
        .append('tspan')
        .attr('class', 'sub')
        .attr('dy', 5)
        .text(String(j + 1));
      const handle = draggablePoint({
        plane: p,
        layer: ui.handles,
        name,
        className: 'handle-v',
        get: () => this.state.values[j] ?? [0, 0],
        set: (value) => {
          const next = this.state.values;
          if (j >= next.length) return;
          next[j] = value;
          this.setState({ values: next });
        },
        describe: (v) => `v${j + 1} = ${pair(v)}`,
        announce: (v) => `v${j + 1} = ${pair(v)}; y = ${ui.yText()}`,
      });
      const link = ui.chainLayer.append('line').attr('class', 'vec vec-t').attr('marker-end', ui.markT);
      ui.handleList.push(handle);
      ui.valueLines.push({ line, label });
      ui.chainLines.push(link);
    }
    while (ui.handleList.length > T) {
      ui.handleList.pop().node.remove();
      const { line, label } = ui.valueLines.pop();
      line.remove();
      label.remove();
      ui.chainLines.pop().remove();
    }
    const o = [p.x(0), p.y(0)];
    values.forEach((v, j) => {
      ui.valueLines[j].line.attr('x1', o[0]).attr('y1', o[1]).attr('x2', p.x(v[0])).attr('y2', p.y(v[1]));
      const len = Math.hypot(v[0], v[1]) || 1;
      ui.valueLines[j].label
        .attr('x', p.x(v[0] + (0.7 * v[0]) / len) - 6)
        .attr('y', p.y(v[1] + (0.7 * v[1]) / len) + 5);
      ui.handleList[j].update();
      const from = j === 0 ? [0, 0] : chain[j - 1];
      const to = chain[j];
      const tiny = Math.hypot(to[0] - from[0], to[1] - from[1]) < 0.05;
      ui.chainLines[j]
        .attr('visibility', tiny ? 'hidden' : 'visible')
        .attr('x1', p.x(from[0]))
        .attr('y1', p.y(from[1]))
        .attr('x2', p.x(to[0]))
        .attr('y2', p.y(to[1]));
    });
    const yTiny = Math.hypot(y[0], y[1]) < 0.05;
    ui.yLine
      .attr('visibility', yTiny ? 'hidden' : 'visible')
      .attr('x1', o[0])
      .attr('y1', o[1])
      .attr('x2', p.x(y[0]))
      .attr('y2', p.y(y[1]));
    const clamp = (t) => Math.max(-EXTENT + 0.3, Math.min(EXTENT - 0.3, t));
    ui.yLabel.attr('x', p.x(clamp(y[0] + 0.35))).attr('y', p.y(clamp(y[1] + 0.35)));
  }

  figure() {
    return this.#ui ? this.#ui.p.svg.node() : null;
  }
}

defineWidget('ag-value-mix', AgValueMix);
