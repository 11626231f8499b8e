// <ag-softcap>: part 3, "Softcap: tanh bends the large scores". A soft cap c
// replaces each score s by c·tanh(s/c): about s near 0, always inside (−c, c).
// One query against six keys (d_k = 1, q = 1, scale 1: each key's score is its
// own number), key 1's score s₁ set by the learner, the others near 0; the
// weights without and with the cap, and a mask that hides keys 5 and 6. The
// kernel caps after the scale and before the bias and the mask (registry.inc;
// the ONNX Attention operator, opset 23), so a masked key stays at −∞.
// Numbers: ag.attention (the raw and capped scores, the weights, the curve's
// capped scores), ag.dot (the weight left for keys 2 to 6, the leads, the
// slope), ag.entropy, ag.softmax (the slope 1 − tanh²(x) = 4σ(2x)σ(−2x)).
// Sources: Gemma Team 2024, Gemma 2 (attention logits capped at 50); Bello et
// al. 2016 (tanh clipping of logits); the ONNX Attention operator, opset 23.
//
//   <ag-softcap c="5" s1="40" masked="1"></ag-softcap>
import { line as pathOf } from 'd3';
import { AgWidget, defineWidget } from '../widget/base.js';
import { axes, bandScale, chartFigure, draw, drawAll, legend, xScale, yScale } from '../widget/charts.js';
import { checkbox, columns, lbl, line, num, presetBar } from '../widget/controls.js';
import { bars } from '../widget/bars.js';
import { withSeries } from '../widget/export-rows.js';
import { fieldSlider } from '../widget/field-controls.js';
import { hint, sources } from '../widget/chapter-notes.js';
import { h, setFlag, setText } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { slotTable } from '../widget/matrix-table.js';
import { choices } from '../widget/predict.js';
import { bool, defineState, number } from '../widget/state.js';
import { C_STEPS, HIDDEN, Q, S1_MAX, T, V, curveScores, keysOf, rowMask, spanOf } from '../models/softcap.js';

const CURVE = { width: 360, height: 240, m: { l: 40, r: 12, t: 14, b: 30 } };
const BARS = { width: 360, height: 170, m: { l: 34, r: 8, t: 26, b: 22 } };
const KEYS = Array.from({ length: T }, (_, j) => j);
/** Weights (four decimals) and bits (three), the same in every state. */
const fixed4 = (x) => x.toFixed(4);
const fixed3 = (x) => x.toFixed(3);
/** The slope where σ(−2x) is subnormal: float32 keeps too few of its digits to show them. */
const TINY = () => 'below 10\u207b\u00b3\u2077 (subnormal)';
/** Key 2 to 6 (the weight left beside key 1) and key 1 against key 6 (the lead). */
const OTHERS_MASK = [0, 1, 1, 1, 1, 1];
const DIFF = [1, -1];
const PRESETS = [
  { id: 'tight', label: 'A tight cap, c = 1', patch: { c: 1 } },
  { id: 'gemma', label: 'Gemma 2: c = 50, s\u2081 = 40', patch: { c: 50, s1: 40 } },
  { id: 'small', label: 'Scores near 0: s\u2081 = 2', patch: { s1: 2 } },
];

/** The cap c, key 1's score s₁ and whether keys 5 and 6 are masked. */
const STATE = defineState({
  version: 1,
  fields: {
    c: number({ values: C_STEPS, default: 10 }),
    s1: number({ min: 0, max: S1_MAX, integer: true, default: 20 }),
    masked: bool({ default: false }),
  },
});

export class AgSoftcap extends AgWidget {
  static title = 'Softcap: tanh bends the large scores';
  static styles = ['styles/softcap.css'];
  static figureSelector = 'svg.plot';
  static stateDecl = STATE;

  #ui = null;
  #curve = lastResult();
  #drawn = null; // the curve's { c, span, xs, capped } as drawn

  build(body) {
    const predict = this.predict({
      id: 'cap-40',
      question:
        'Key 1 scores 40; the other five keys score 1, 0.5, 0, \u22120.5 and \u22121. Without a cap, key 1 takes all the weight. With a soft cap c = 5, what weight does key 1 keep?',
      choices: choices({
        most: 'Still most of it, above 0.9',
        half: 'About half',
        even: 'Close to an even share, 1/6',
      }),
      misconceptions: {
        half: 'That reads the cap as squeezing the weights: it squeezes the scores into (\u2212c, c), and a gap of a few units there still becomes a large weight ratio after exp.',
        even: 'That expects a cap to level the scores: a soft cap c keeps each score within c of zero, so weight ratios up to e\u00b2\u1d9c remain; only a cap near the other scores spreads the weight out.',
      },
      reveal: (_choice, ag) => {
        this.setState({ c: 5, s1: 40, masked: false });
        const r = ag.attention(Q, keysOf(40), V, { scale: 1, softcap: 5, returnWeights: true, returnScores: 'capped' });
        const [a1, s] = [r.weights.data[0], r.scores.data];
        const lead = ag.dot([s[0], s[1]], DIFF);
        return {
          answer: a1 > 0.9 ? 'most' : a1 > 0.3 ? 'half' : 'even',
          explanation: `The cap brings 40 down to ${formatNumber(s[0], 4)} and the others to between ${formatNumber(s[5], 4)} and ${formatNumber(s[1], 4)}, so key 1 still leads key 2 by ${formatNumber(lead, 4)} and keeps a\u2081 = ${fixed4(a1)} (the module\u2019s weight). A cap c allows weight ratios up to e\u00b2\u1d9c; only a cap near the other scores (try c = 1) spreads the weight out.`,
        };
      },
    });
    const ui = {};
    const say = () => this.#said();
    ui.c = fieldSlider(this, {
      field: 'c',
      id: 'sc-c',
      max: C_STEPS.length - 1,
      label: 'Soft cap c',
      value: (i) => C_STEPS[i],
      say,
    });
    ui.s1 = fieldSlider(this, { field: 's1', id: 'sc-s1', max: S1_MAX, label: 'Key 1: score s\u2081', say });
    ui.masked = checkbox({
      id: 'sc-masked',
      label: 'Mask keys 5 and 6 (add \u2212\u221e)',
      onChange: (masked) => {
        this.setState({ masked });
        this.announce(say());
      },
    });
    const presets = presetBar(PRESETS, (p) => this.setState(p.patch));

    // The cap's curve: c·tanh(s/c) against s over [−L, L], with y = s and the lines y = ±c.
    const chart = chartFigure('cap-curve', {
      box: CURVE,
      label:
        'The capped score c tanh(s/c) against the score s, the line y = s, the lines at plus and minus c, and the six keys of the row',
      caption:
        'Curve: c\u00b7tanh(s/c) at 129 scores across the axis, each from the module; dots: the six keys of the row.',
    });
    const s = chart.s;
    ui.frame = draw(s, 'g', { class: 'frame' });
    const [x0, x1, y0, y1] = [CURVE.m.l, CURVE.width - CURVE.m.r, CURVE.height - CURVE.m.b, CURVE.m.t];
    draw(s, 'line', { class: 'ray', x1: x0, y1: y0, x2: x1, y2: y1 }); // y = s: corner to corner on [−L, L]²
    ui.caps = [draw(s, 'line', { class: 'ray', x1: x0, x2: x1 }), draw(s, 'line', { class: 'ray', x1: x0, x2: x1 })];
    ui.path = draw(s, 'path', { class: 'cap-path' });
    ui.dots = draw(s, 'g', { class: 'key-dots' });
    const labels = draw(s, 'g', { class: 'layer-labels' });
    draw(labels, 'text', {
      class: 'axis-label',
      x: x0 + 0.775 * (x1 - x0),
      y: y1 + 0.18 * (y0 - y1),
      'text-anchor': 'end',
    }).text('y = s');
    ui.plusC = draw(labels, 'text', { class: 'axis-label halo', x: x0 + 4 });
    ui.minusC = draw(labels, 'text', { class: 'axis-label halo', x: x1 - 4, 'text-anchor': 'end' });
    ui.capName = draw(labels, 'text', { class: 'axis-label cap-name halo', x: x0 + 4 }).text('c\u00b7tanh(s/c)');
    ui.k1 = draw(labels, 'text', { class: 'axis-label', 'text-anchor': 'middle' }).text('k\u2081');

    // The weights, without and with the cap, a pair of bars per key.
    const weights = chartFigure('weight-bars', {
      box: BARS,
      label: 'Weights of the six keys without the cap and with it, from 0 to 1',
    });
    const bx = bandScale(KEYS, [BARS.m.l, BARS.width - BARS.m.r], 0.2);
    const by = yScale(BARS, [0, 1]);
    ui.by = by;
    axes(weights.s, BARS, null, by, { yTicks: [0, 0.5, 1] });
    draw(weights.s, 'line', { class: 'baseline', x1: BARS.m.l, x2: BARS.width - BARS.m.r, y1: by(0), y2: by(0) });
    const half = bx.bandwidth() / 2;
    ui.bars = draw(weights.s, 'g', {}); // the bars of the two series, drawn in render
    ui.barsAt = (kind, k, values) =>
      bars(ui.bars, `bar-${kind}`, values, {
        x: bx,
        y: by,
        shift: k * half,
        width: half - 1,
        class: `bar bar-${kind}`,
      });
    ui.names = KEYS.map((j) =>
      draw(weights.s, 'text', { class: 'bar-name', x: bx(j) + half, y: BARS.height - 6, 'text-anchor': 'middle' }),
    );
    legend(
      weights.s,
      [BARS.m.l + 8, 10],
      [
        ['bar-plain', 'no cap'],
        ['bar-capped', 'capped'],
      ],
      { across: 90 },
    );

    const row = slotTable({
      className: 'scores row-table',
      caption: 'The row, key by key',
      headers: ['key', 's', 'c\u00b7tanh(s/c)', 'a, no cap', 'a, capped'],
      rows: KEYS.map((j) => `k${sub(j + 1)}`),
      cols: ['score', 'capped', 'weight', 'capped-weight'],
    });
    const { score: raw, capped, weight: plain, 'capped-weight': capw } = row.cells;
    Object.assign(ui, { raw, capped, plain, capw });
    const pair = (role) => [num(role, 'plain'), num(role, 'capped')];
    const [left, bits, lead] = [pair('others'), pair('entropy'), pair('lead')];
    Object.assign(ui, {
      left,
      bits,
      lead,
      slope: num('slope'),
      verdict: h('p', { class: 'verdict', dataset: { role: 'verdict' } }),
    });
    body.append(
      predict,
      presets,
      h('div', { class: 'sliders' }, ui.c.row, ui.s1.row, ui.masked.row),
      columns(chart.fig, [
        formulas(
          '\\tilde s=c\\tanh(s/c)\\in(-c,\\,c)',
          '\\frac{a_i}{a_j}=e^{\\tilde s_i-\\tilde s_j}<e^{2c}',
          '\\frac{d\\tilde s}{ds}=1-\\tanh^2(s/c)',
        ),
        line(
          lbl('Key 1 leads key 6 by '),
          lead[0],
          lbl(' without the cap, by '),
          lead[1],
          lbl(' with it (always less than 2c).'),
        ),
        line(lbl('Slope of the cap at s\u2081: 1 \u2212 tanh\u00b2(s\u2081/c) = '), ui.slope),
        hint(
          'A training step moves a capped score by the slope times its push: past about 2c the cap passes almost nothing on, which is why models set c well above the scores they need (Gemma 2: 50).',
        ),
      ]),
      columns(
        [weights.fig, ui.verdict],
        [
          row.element,
          line(lbl('Weight left for keys 2 to 6: '), left[0], lbl(' without the cap, '), left[1], lbl(' with it.')),
          line(
            lbl('Entropy of the weights: '),
            bits[0],
            lbl(' bits without the cap, '),
            bits[1],
            lbl(' bits with it.'),
          ),
        ],
        { stackEarly: true },
      ),
      formulas('S=c\\tanh\\!\\big(\\text{scale}\\cdot QK^{\\mathsf T}/c\\big)+M'),
      sources(
        'The cap comes after the scale and before the ALiBi bias and the mask M, as in the ONNX Attention operator (opset 23). Sources: Gemma Team 2024, Gemma 2 (attention scores capped at c = 50); Bello et al. 2016 (tanh clipping of logits).',
      ),
    );
    this.#ui = ui;
  }

  /** What a move of a slider or the mask did, for screen readers. */
  #said() {
    const { c, s1, masked } = this.state;
    const [capped, plain] = [this.#ui.capw[0].textContent, this.#ui.plain[0].textContent];
    const hidden = masked ? ', keys 5 and 6 masked' : '';
    return `c = ${c}, s\u2081 = ${s1}${hidden}: key 1 weighs ${capped} capped, ${plain} without`;
  }

  syncControls({ c, s1, masked }) {
    const ui = this.#ui;
    ui.c.set(C_STEPS.indexOf(c), `c = ${c}`);
    ui.s1.set(s1, `s\u2081 = ${s1}`);
    ui.masked.set(masked);
    KEYS.forEach((j) =>
      setText(ui.names[j].node(), `k${sub(j + 1)}${masked && HIDDEN.includes(j) ? ' \u2212\u221e' : ''}`),
    );
  }

  render(ag, { c, s1, masked }) {
    const ui = this.#ui;
    const keys = keysOf(s1);
    const mask = rowMask(masked);
    const plain = ag.attention(Q, keys, V, { scale: 1, mask, returnWeights: true, returnScores: 'raw' });
    const capped = ag.attention(Q, keys, V, {
      scale: 1,
      softcap: c,
      mask,
      returnWeights: true,
      returnScores: 'capped',
    });
    const [s, sc, a, ac] = [plain.scores.data, capped.scores.data, plain.weights.data, capped.weights.data];
    KEYS.forEach((j) => {
      this.show(ui.raw[j], s[j]);
      this.show(ui.capped[j], sc[j]);
      this.show(ui.plain[j], a[j], { format: fixed4 });
      this.show(ui.capw[j], ac[j], { format: fixed4 });
    });
    this.show(ui.left[0], ag.dot(a, OTHERS_MASK), { format: fmt });
    this.show(ui.left[1], ag.dot(ac, OTHERS_MASK), { format: fmt });
    this.show(ui.bits[0], ag.entropy(a), { format: fixed3 });
    this.show(ui.bits[1], ag.entropy(ac), { format: fixed3 });
    this.show(ui.lead[0], ag.dot([s[0], s[5]], DIFF));
    this.show(ui.lead[1], ag.dot([sc[0], sc[5]], DIFF));
    // 1 − tanh²(x) = 4σ(2x)σ(−2x), x = s₁/c: the weights of the pair (x, −x), which keep their digits where
    // 1 − tanh² would cancel; four copies of the product sum to it exactly.
    const [p, q] = ag.softmax([s1, -s1], { temperature: c }).data;
    this.show(ui.slope, ag.dot([p, p, p, p], [q, q, q, q]), { format: q < 2 ** -126 ? TINY : fmt });
    setFlag(ui.verdict, 'hidden', !masked);
    setText(
      ui.verdict,
      `Keys 5 and 6 are masked. Their capped scores (${ui.capped[4].textContent}, ${ui.capped[5].textContent}) are finite, but the mask is added after the cap: the softmax reads \u2212\u221e and gives them exactly 0, capped or not. Capped after the mask, \u2212\u221e would become \u2212c, and they would take weight.`,
    );
    ui.barsAt('plain', 0, a);
    ui.barsAt('capped', 1, ac);
    this.#draw(ag, c, s1, keys, sc, masked);
  }

  /** The curve (kept per c and L), the lines ±c, the axes when L changes, and the six keys on the curve. */
  #draw(ag, c, s1, keys, sc, masked) {
    const ui = this.#ui;
    const span = spanOf(c, s1);
    const curve = this.#curve(ag, `${c} ${span}`, () => {
      const xs = curveScores(span);
      const r = ag.attention(
        Q,
        xs.map((v) => [v]),
        xs.map(() => [1]),
        { scale: 1, softcap: c, returnScores: 'capped' },
      );
      return { c, span, xs, capped: r.scores.data };
    });
    const x = xScale(CURVE, [-span, span]);
    const y = yScale(CURVE, [-span, span]);
    if (curve !== this.#drawn) {
      if (curve.span !== this.#drawn?.span) {
        ui.frame.selectAll('*').remove();
        axes(ui.frame, CURVE, x, y, { xTicks: 6, yTicks: 6, xLabel: 'score s', yLabel: 'capped score' });
      }
      ui.path.attr('d', pathOf()(curve.xs.map((v, i) => [x(v), y(curve.capped[i])])));
      ui.caps[0].attr('y1', y(c)).attr('y2', y(c));
      ui.caps[1].attr('y1', y(-c)).attr('y2', y(-c));
      ui.plusC.attr('y', y(c) - 5).text(`+c = ${c}`);
      ui.minusC.attr('y', y(-c) + 14).text(`\u2212c = \u2212${c}`);
      ui.capName.attr('y', y(-c) + 14);
      this.#drawn = curve;
    }
    const points = KEYS.map((j) => ({ j, s: keys[j][0], v: sc[j], hidden: masked && HIDDEN.includes(j) }));
    drawAll(ui.dots, 'circle', 'key-dot', points, {
      class: (d) => `key-dot${d.j === 0 ? ' key-1' : ''}${d.hidden ? ' is-hidden' : ''}`,
      cx: (d) => x(d.s),
      cy: (d) => y(d.v),
      r: 4,
    });
    ui.k1.attr('x', x(s1)).attr('y', y(sc[0]) - 9);
  }

  exportData() {
    const data = super.exportData();
    const d = this.#drawn;
    if (d) data.curve = { c: d.c, span: d.span, s: d.xs, capped: Array.from(d.capped) };
    return data;
  }

  /** CSV: every number shown, then the curve's capped scores as curve.<i> (score −L + i·L/64). */
  exportTable() {
    return withSeries(super.exportTable(), 'curve', this.#drawn?.capped);
  }
}

defineWidget('ag-softcap', AgSoftcap);
