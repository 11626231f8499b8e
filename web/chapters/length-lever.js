// <ag-length-lever>: chapter 6, "Length as a lever". A key k = t·d (drag d,
// stretch with t) scored by four fixed queries (u = (1, 0) is the article's):
// every score is t times its value at t = 1, the score per unit length stays.
// Numbers: ag.weightedSum (k), ag.norm, ag.dot, ag.scalarProjection.
//
//   <ag-length-lever d="1,1" t="3"></ag-length-lever>
import { AgWidget, defineWidget } from '../widget/base.js';
import { lbl, line, num, nums, presetBar, slider } from '../widget/controls.js';
import { h, setText, symbol } from '../widget/dom.js';
import { axisBottom } from 'd3';
import { bars as drawBars } from '../widget/bars.js';
import { bandScale, draw, drawAll, xScale } from '../widget/charts.js';
import { ownFigure } from '../widget/figure-layout.js';
import { fmt, pair } from '../widget/format.js';
import { display, texElement } from '../widget/math.js';
import { bodyRow, table as dataTable } from '../widget/matrix-table.js';
import { choices } from '../widget/predict.js';
import { defineState, number, vector } from '../widget/state.js';
import { placeLabel, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;
const D_MAX = 3;
const T_MAX = 3;
const T_STEP = 0.25;
/** The fixed queries; u is the article's. */
export const QUERIES = [
  { name: 'u', label: 'u', v: [1, 0] },
  { name: 'q2', label: 'q\u2082', v: [0, 2] },
  { name: 'q3', label: 'q\u2083', v: [-2, 1] },
  { name: 'q4', label: 'q\u2084', v: [1, -1] },
];
/** Bar chart range: scores beyond it are drawn to the edge (and marked). */
const BAR_MAX = 10;

const PRESETS = [
  { id: 'v', label: 'k = v = (1, 1)', d: [1, 1], t: 1 },
  { id: 'w', label: 'k = w = (3, 3)', d: [1, 1], t: 3 },
  { id: 'half', label: 'Half of v', d: [1, 1], t: 0.5 },
  { id: 'zero', label: 'Length zero', d: [1, 1], t: 0 },
];

const clampD = (x) => Math.max(-D_MAX, Math.min(D_MAX, x));

export class AgLengthLever extends AgWidget {
  static title = 'Length as a lever';
  static styles = ['styles/length-lever.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      d: vector({ length: 2, min: -D_MAX, max: D_MAX, default: [1, 1] }),
      t: number({ min: 0, max: T_MAX, default: 1 }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'triple-length',
      question:
        'Keep the direction of v = (1, 1) and make it three times as long: w = (3, 3). What becomes of the score u\u00b7k with u = (1, 0), which is 1 for v?',
      choices: choices({ same: 'It stays 1', triple: 'It becomes 3', nine: 'It becomes 9' }),
      misconceptions: {
        same: 'That reads the dot product as the cosine, a measure of direction alone: the raw score is linear in the length of each vector, so stretching w stretches u\u00b7w.',
        nine: 'That squares the stretch, as if both vectors had grown: only w was stretched, and u\u00b7w grows with the first power of |w|.',
      },
      reveal: (_choice, ag) => {
        this.setState({ d: [1, 1], t: 3 });
        const w = ag.weightedSum([3], [[1, 1]]).data;
        const s = ag.dot([1, 0], w);
        return {
          answer: { 1: 'same', 3: 'triple', 9: 'nine' }[s] ?? 'other',
          explanation: `The module computed u\u00b7w = ${fmt(s)} and |w| = ${fmt(ag.norm(w))}: the angle did not change, the length tripled, and so did the score.`,
        };
      },
    });

    // The plane: the queries (fixed), the direction d (draggable) and k = t·d.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'Fixed queries, the direction d and the key k = t times d; drag d or use the arrow keys',
      markers: 'll-arrow',
    });
    const ui = { p: fig.plane };
    for (const m of ['q', 'd', 'k']) fig.marker(m);
    const clip = fig.clipSquare('ll-clip');
    for (const q of QUERIES) {
      const options = { text: q.label, marker: 'q', layer: 'queries', labelLayer: 'queries', away: 0.55, dx: -5 };
      fig.arrow(q.name, { ...options, className: 'vec vec-q', labelClass: 'vec-label label-q' }).draw(q.v);
    }
    fig.layer('arrows').attr('clip-path', clip);
    ui.arrowK = fig.arrow('k');
    ui.arrowD = fig.arrow('d', { away: null });
    ui.handleD = fig.handle('d', {
      set: (value) => this.setState({ d: value.map(clampD) }),
      describe: (v) => `direction d = ${pair(v)}`,
      announce: (v) => `d = ${pair(v)}; k = ${ui.kText.textContent}; ${this.#scoreSummary()}`,
    });

    // The slider: t, the stretch factor (an input, shown as typed).
    const t = slider({
      id: 'll-t',
      min: 0,
      max: T_MAX,
      step: T_STEP,
      attrs: { 'aria-describedby': 'll-t-value' },
      outClass: 't-value',
      outId: 'll-t-value',
      rowClass: 'stretch-row',
      group: null, // the control group is the row with its label, below
      onInput: (value) => {
        this.setState({ t: value });
        this.announce(`t = ${fmt(value)}; |k| = ${ui.normK.textContent}; ${this.#scoreSummary()}`);
      },
    });
    const control = h(
      'div',
      { class: 'stretch', dataset: { controlGroup: 'll-t' } },
      h('label', { for: 'll-t', class: 'stretch-label' }, 'Stretch ', texElement('t'), ' (k = t\u00b7d)'),
      t.row,
    );

    ui.normD = num('norm', 'd');
    ui.normK = num('norm', 'k');
    ui.kCoords = nums('k', 2);
    ui.kText = h('span', { class: 'k-text' }, '(', ui.kCoords[0], ', ', ui.kCoords[1], ')');
    ui.rows = QUERIES.map((q, i) => {
      const [base, score, perUnit] = ['base-score', 'score', 'per-unit'].map((role) => num(role, i + 1));
      const row = bodyRow(
        [h('var', {}, q.label), h('span', { class: 'q-coords' }, `= ${pair(q.v)}`)],
        [base, { text: score, class: 'c-score' }, { text: perUnit, class: 'c-unit' }],
        { dataset: { query: q.name } },
      );
      return { row, base, score, perUnit };
    });
    ui.tHead = h('span', { class: 't-head' });
    const v = symbol;
    const table = dataTable({
      className: 'scores',
      caption: 'Scores of each query against the key',
      headers: [
        'Query',
        [v('q'), '\u00b7', v('d'), h('br'), '(t\u00a0=\u00a01)'],
        { text: [v('q'), '\u00b7', v('k'), h('br'), ui.tHead], class: 'c-score' },
        { text: ['per unit length', h('br'), v('q'), '\u00b7', v('k'), ' / |', v('k'), '|'], class: 'c-unit' },
      ],
      rows: ui.rows.map((r) => r.row),
    });

    // A d3 bar chart: the score at t = 1 (outline) and at t (filled); a score beyond ±BAR_MAX reaches the edge.
    const bars = h('div', { class: 'bars-figure' });
    const label = 'Bars: each query\u2019s score at t = 1 (outline) and at the current t (filled)';
    const s = ownFigure(bars, { className: 'bars', width: 320, height: 150, label });
    const x = xScale({ width: 320, m: { l: 34, r: 8 } }, [-BAR_MAX, BAR_MAX]).clamp(true);
    const names = QUERIES.map((q) => q.name);
    const y = bandScale(names, [8, 128], 0.25);
    const axis = axisBottom(x).tickValues([-10, -5, 0, 5, 10]).tickSize(3);
    draw(s, 'g', { class: 'bar-axis', transform: 'translate(0,130)' }).call(axis);
    draw(s, 'line', { class: 'zero', x1: x(0), x2: x(0), y1: 4, y2: 130 });
    ui.barRows = drawAll(s, 'g', 'bar-row', QUERIES);
    const mid = y.bandwidth() / 2 + 5;
    draw(ui.barRows, 'text', { class: 'bar-name', x: 4, y: (q) => y(q.name) + mid }).text((q) => q.label);
    ui.bars = { x, y, horizontal: true, key: (d) => d[0], value: (d) => d[1] }; // d: [query name, score]

    ui.dText = h('span', { class: 'd-text' });
    // Held: "every score is t times its value" answers the prediction (scaling a key scales its score).
    ui.ratio = this.afterAnswer(h('p', { class: 'ratio-line', dataset: { role: 'ratio-text' } }));
    const numbers = h(
      'div',
      { class: 'numbers' },
      control,
      display('q\\cdot(t\\,d)=t\\,(q\\cdot d)'),
      line(lbl('d = '), ui.dText, lbl(', |d| = '), ui.normD),
      line(lbl('k = '), ui.kText, lbl(', |k| = '), ui.normK),
      ui.ratio,
      table,
      bars,
      h(
        'p',
        { class: 'bars-legend' },
        'Filled bars: the scores at the current t. Dashed outlines: the same scores at t = 1.',
      ),
    );
    const presets = presetBar(PRESETS, (p) => this.setState({ d: p.d, t: p.t }));
    body.append(predict, presets, h('div', { class: 'layout' }, fig.element, numbers));
    this.#ui = Object.assign(ui, { t });
  }

  #scoreSummary() {
    return this.#ui.rows.map((r, i) => `${QUERIES[i].label}\u00b7k = ${r.score.textContent}`).join(', ');
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.t.set(state.t, `t = ${fmt(state.t)}`);
    setText(ui.tHead, `(t\u00a0=\u00a0${fmt(state.t)})`);
    setText(ui.dText, pair(state.d));
  }

  render(ag, { d, t }) {
    const ui = this.#ui;
    // k = t·d, computed by the module (a weighted sum of one row).
    const k = Array.from(ag.weightedSum([t], [d]).data);
    k.forEach((c, i) => this.show(ui.kCoords[i], c));
    this.showAll(ui, { normD: ag.norm(d), normK: ag.norm(k) });
    const kZero = k[0] === 0 && k[1] === 0;
    const base = [];
    const now = [];
    QUERIES.forEach((q, i) => {
      const r = ui.rows[i];
      base[i] = ag.dot(q.v, d);
      now[i] = ag.dot(q.v, k);
      this.showAll(r, { base: base[i], score: now[i] });
      if (kZero) this.notShown([r.perUnit]);
      else this.show(r.perUnit, ag.scalarProjection(q.v, k));
    });
    ui.ratio.textContent = kZero
      ? 'A key of length zero scores 0 against every query: it has no direction left to compare.'
      : `Every score is t = ${fmt(t)} times its value at t = 1; the score per unit of length does not move.`;
    this.#draw(d, k, base, now);
  }

  #draw(d, k, base, now) {
    const { p, arrowD, arrowK, handleD, bars } = this.#ui;
    arrowD.draw(d);
    arrowK.draw(k);
    // d's label sits beside its tip, k's beyond its tip (drawing only).
    const beside = [d[0] - 0.45 * Math.sign(d[1] || 1), d[1] + 0.45 * Math.sign(d[0] || 1)];
    placeLabel(p, arrowD.label, beside, { away: 0, inside: 0.4 });
    arrowK.label.attr('visibility', k[0] === 0 && k[1] === 0 ? 'hidden' : 'visible');
    handleD.update();
    // Each row's bars (the later drawn above), from 0 to its score; a score beyond ±BAR_MAX is marked.
    for (const [layer, scores] of Object.entries({ 'bar-now': now, 'bar-base': base })) {
      const clipped = ([, v]) => (Math.abs(v) > BAR_MAX ? `${layer} is-clipped` : layer);
      drawBars(this.#ui.barRows, layer, (q, i) => [[q.name, scores[i]]], { ...bars, class: clipped });
    }
  }
}

defineWidget('ag-length-lever', AgLengthLever);
