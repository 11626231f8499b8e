// <ag-rope>: "Rotary positions as rotations" (Su et al. 2021, RoFormer, §3.2 and
// §3.4.3). In 2-D, RoPE turns q at position m by mθ and k at n by nθ
// (θ = 1 rad: the one pair of d = 2 has θ₀ = base⁰), so q_m·k_n = q·R((n − m)θ)k
// depends on the offset only: moving both positions by s leaves the score as
// it was, up to the float32 rounding of the turns. Below, with d = 64 and
// q = k = (1, ..., 1), the score of q at 0 against k at offset r falls off as r
// grows (RoFormer §3.4.3, Figure 2). Numbers: ag.rope (the turned vectors and
// the 257 keys of the decay), ag.dot (the scores, and their difference as a
// dot with (1, −1)), ag.matmul (the decay's scores).
//
//   <ag-rope q="3,1" k="1,2" m="2" n="5" s="10"></ag-rope>
import { line as pathOf } from 'd3';
import { rowsOf } from '../models/tensor.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { axes, chartFigure, curve, draw, pickAlong, xScale, yScale } from '../widget/charts.js';
import { lbl, line, num, nums, section, slots } from '../widget/controls.js';
import { withSeries } from '../widget/export-rows.js';
import { fieldChoice, fieldSlider } from '../widget/field-controls.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { fmt, sub } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, number } from '../widget/state.js';
import { placeLabel, vectorFields, vectorFigure } from '../widget/vector-figure.js';

/** q and k stay within ±LIMIT, so that a turned vector (length up to LIMIT·√2) stays on the plane. */
const LIMIT = 4;
const EXTENT = 6;
const POSITION_MAX = 64;
/** The decay: d channels, q = k = (1, ..., 1), k at offsets 0..T. */
const D = 64;
const T = 256;
const OFFSETS = Array.from({ length: T + 1 }, (_, r) => r);
const BASES = ['100', '10000', '500000'];
const ONES = Array.from({ length: T + 1 }, () => new Array(D).fill(1));
const BOX = { width: 360, height: 200, m: { l: 40, r: 12, t: 14, b: 30 } };
/**
 * The decay chart's y range: q₀·k_r lies within [−d, d]; with d = 64 the three bases stay above −20. Above d,
 * room for the axis name clear of the curve.
 */
const Y_DOMAIN = [-24, D + 16];
const position = (v) => number({ min: 0, max: POSITION_MAX, integer: true, default: v });
const clamp = (x) => Math.max(-LIMIT, Math.min(LIMIT, x));

/** q and k before turning, their positions m and n, the shift s of both; the decay's base and the offset read. */
const STATE = defineState({
  version: 1,
  fields: {
    ...vectorFields({ q: [3, 1], k: [1, 2] }, LIMIT),
    m: position(2),
    n: position(5),
    s: position(0),
    base: choice({ values: BASES, default: '10000' }),
    r: number({ min: 0, max: T, integer: true, default: 40 }),
  },
});

export class AgRope extends AgWidget {
  static title = 'Rotary positions as rotations';
  static styles = ['styles/rope.css'];
  static stateDecl = STATE;

  #ui = null;
  #decay = lastResult();
  #scores = null;

  build(body) {
    const predict = this.predict({
      id: 'move-both',
      question:
        'q sits at position 2 and k at position 5. Both move on by 10, to 12 and 15: each arrow turns 10 more radians. What happens to the score q\u00b7k after RoPE?',
      choices: choices({ same: 'It stays the same', larger: 'It grows', smaller: 'It shrinks' }),
      misconceptions: {
        larger:
          'That reads RoPE as adding each token\u2019s absolute position to the score: both arrows turn by the same extra angle, so the score depends only on the distance between the positions.',
        smaller:
          'That expects a score to fade as both tokens move further along: RoPE turns both arrows by the same extra angle, so the angle between them, and the score, only depend on their distance.',
      },
      reveal: (_choice, ag) => {
        this.setState({ m: 2, n: 5, s: 10 });
        const { q, k } = this.state;
        const [q2, k5, q12, k15] = rowsOf(ag.rope([q, k, q, k], { positions: [2, 5, 12, 15] }), 2, 4);
        const [before, after] = [ag.dot(q2, k5), ag.dot(q12, k15)];
        const diff = ag.dot([after, before], [1, -1]);
        // The same to float32 rounding: each score is within 12u|q|₁|k|₁ of its exact value (two turns within
        // 4u(|x_a| + |x_b|) each, a 2-term dot; |q|₁, |k|₁ <= 2·LIMIT), so the two differ by less than 2^-13.
        const same = Math.abs(diff) <= 2 ** -13;
        return {
          answer: same ? 'same' : diff > 0 ? 'larger' : 'smaller',
          explanation: `The module computed q\u2082\u00b7k\u2085 = ${fmt(before)} and q\u2081\u2082\u00b7k\u2081\u2085 = ${fmt(after)} (they differ by ${fmt(diff)}, the rounding of float32 turns). Both arrows turned by the same 10 radians, so the angle between them, and the score, stayed.`,
        };
      },
    });

    const fig = vectorFigure(this, {
      extent: EXTENT,
      label:
        'q and k before turning (dashed; drag their tips or use the arrow keys), and q and k turned to their positions',
      markers: 'rope-arrow',
    });
    const ui = { p: fig.plane, arc: fig.angleArc({ radius: 1 }) };
    const sayScore = () => `score ${ui.movedScore.textContent}`;
    const set = (name) => (v) => this.setState({ [name]: v.map(clamp) });
    ui.q = fig.vector('q', { say: sayScore, set: set('q'), labelClass: 'vec-label label-q at-zero' });
    ui.k = fig.vector('k', { say: sayScore, set: set('k'), labelClass: 'vec-label label-k at-zero' });
    for (const name of ['q', 'k']) {
      ui[`${name}Turned`] = fig.arrow(`${name}-turned`, {
        text: null,
        marker: name,
        className: `vec vec-${name} turned`,
      });
      ui[`${name}Label`] = fig.label(name, { className: `vec-label label-${name}`, sub: '0' });
    }

    const say = (name) => (v) => `${name} = ${v}; score ${ui.movedScore.textContent}`;
    const positions = ['m', 'n', 's'].map((name) => [
      name,
      fieldSlider(this, { field: name, id: `rope-${name}`, max: POSITION_MAX, label: name, say: say(name) }),
    ]);
    Object.assign(ui, Object.fromEntries(positions));
    const sliders = h(
      'fieldset',
      { class: 'positions' },
      h('legend', {}, 'Positions: q at m, k at n, both moved on by s'),
      positions.map(([, sl]) => sl.row),
    );

    Object.assign(ui, slots('plain-score score moved-score relative-score difference'));
    ui.qm = nums('q-turned', 2);
    ui.kn = nums('k-turned', 2);
    for (const name of ['labelScore', 'labelMoved', 'labelRelative', 'qmLabel', 'knLabel']) ui[name] = lbl('');
    const numbers = h(
      'div',
      { class: 'numbers' },
      sliders,
      line(lbl('Without positions: q\u00b7k = '), ui.plainScore),
      line(ui.qmLabel, '(', ui.qm[0], ', ', ui.qm[1], ')', lbl(', '), ui.knLabel, '(', ui.kn[0], ', ', ui.kn[1], ')'),
      line(ui.labelScore, ui.score),
      line(ui.labelMoved, ui.movedScore),
      line(ui.labelRelative, ui.relativeScore),
      h('p', { class: 'line same' }, 'Moved minus before: ', ui.difference),
    );
    const rotation = h(
      'div',
      { class: 'rotation' },
      formulas(
        'q_m=R(m\\theta)\\,q,\\quad k_n=R(n\\theta)\\,k',
        'R(\\phi)=\\begin{pmatrix}\\cos\\phi&-\\sin\\phi\\\\ \\sin\\phi&\\cos\\phi\\end{pmatrix}',
        // Two lines: one would not fit a phone.
        '\\begin{aligned}q_m\\cdot k_n&=q^{\\top}R(m\\theta)^{\\top}R(n\\theta)\\,k\\\\&=q\\cdot R\\big((n-m)\\theta\\big)\\,k\\end{aligned}',
      ),
      h('div', { class: 'layout' }, fig.element, numbers),
    );

    // The long-range decay: q = k = (1, ..., 1), d = 64, k at offset r from q.
    const chart = chartFigure('decay', {
      box: BOX,
      label: `Score of q at position 0 against k at offsets 0 to ${T}, d = ${D}`,
      caption: `Line: q\u2080\u00b7k\u1d63 for every offset r from 0 to ${T}, each from the module. Drag across the chart or use the arrow keys to read one.`,
    });
    const s = chart.s.attr('tabindex', 0).attr('role', 'slider').attr('aria-valuemin', 0).attr('aria-valuemax', T);
    const x = xScale(BOX, [0, T]);
    const y = yScale(BOX, Y_DOMAIN);
    axes(s, BOX, x, y, {
      xTicks: [0, 64, 128, 192, 256],
      yTicks: [-16, 0, 16, 32, 48, 64],
      xLabel: 'offset r',
      yLabel: 'q\u2080\u00b7k\u1d63',
    });
    draw(s, 'line', { class: 'zero', x1: x(0), x2: x(T), y1: y(0), y2: y(0) });
    const path = curve({ s, x, y }, 'decay-line', []);
    const cursor = draw(s, 'line', { class: 'cursor', y1: y(Y_DOMAIN[1]), y2: y(Y_DOMAIN[0]) });
    const dot = draw(s, 'circle', { class: 'decay-dot', r: 4 });
    pickAlong(s, {
      values: OFFSETS,
      x,
      from: BOX.m.l,
      to: BOX.width - BOX.m.r,
      index: () => this.state.r,
      pick: (r) => this.setState({ r }),
      say: () => this.announce(`offset ${this.state.r}: score ${ui.atR.textContent}`),
    });
    const base = fieldChoice(this, 'base', BASES, {
      name: 'rope-base',
      legend: 'base',
      class: 'base-choice',
      text: (b) => Number(b).toLocaleString('en-US'),
    });
    Object.assign(ui, {
      chart: chart.s.node(),
      x,
      y,
      path,
      cursor,
      dot,
      base,
      atZero: num('decay', 0),
      atR: num('decay-r'),
    });
    ui.rText = h('span', { class: 'r-text' });
    const decay = section('decay-part', 'The long-range decay', 'The long-range decay', [
      formulas(
        '\\theta_i=\\text{base}^{-2i/d}',
        'q_0\\cdot k_r=\\sum_{i=0}^{d/2-1}2\\cos(r\\,\\theta_i)\\quad\\text{for } q=k=(1,\\dots,1)',
      ),
      base.element,
      chart.fig,
      line(lbl('q\u2080\u00b7k\u2080 = '), ui.atZero, lbl(', at offset '), ui.rText, lbl(': '), ui.atR),
    ]);
    body.append(predict, rotation, decay);
    this.#ui = ui;
  }

  syncControls(state) {
    const ui = this.#ui;
    const [m, n, s] = [state.m, state.n, state.s];
    const where = { m: `q at position ${m}`, n: `k at position ${n}`, s: `both moved on by ${s}` };
    for (const name of ['m', 'n', 's']) ui[name].set(state[name], String(state[name]), where[name]);
    setText(ui.qmLabel, `q${sub(m + s)} = `);
    setText(ui.knLabel, `k${sub(n + s)} = `);
    setText(ui.labelScore, `q${sub(m)}\u00b7k${sub(n)} = `);
    setText(ui.labelMoved, `q${sub(m + s)}\u00b7k${sub(n + s)} = `);
    setText(ui.labelRelative, `q\u00b7R(${fmt(n - m)}\u03b8)k = `);
    ui.base.set(state.base);
    setText(ui.rText, String(state.r));
    setAttr(ui.chart, 'aria-valuenow', String(state.r));
    setAttr(ui.chart, 'aria-valuetext', `offset ${state.r}`);
  }

  render(ag, { q, k, m, n, s, base, r }) {
    const ui = this.#ui;
    // One call turns every vector: q and k at m and n, moved by s, and k at the offset n − m.
    const turned = ag.rope([q, k, q, k, k], { positions: [m, n, m + s, n + s, n - m] });
    const [qm, kn, qms, kns, kRel] = rowsOf(turned, 2, 5);
    qms.forEach((c, i) => this.show(ui.qm[i], c));
    kns.forEach((c, i) => this.show(ui.kn[i], c));
    const [score, moved] = [ag.dot(qm, kn), ag.dot(qms, kns)];
    this.showAll(ui, { plainScore: ag.dot(q, k), score, movedScore: moved, relativeScore: ag.dot(q, kRel) });
    this.show(ui.difference, ag.dot([moved, score], [1, -1]));
    this.#draw(q, k, qms, kns, m + s, n + s);

    // The decay: the keys turned to positions 0..T, each scored against q = (1, ..., 1) at position 0.
    const scores = this.#decay(ag, base, () => {
      const keys = ag.rope(ONES, { base: Number(base) });
      return ag.matmul([ONES[0]], keys, { transposeB: true }).data;
    });
    if (scores !== this.#scores) {
      ui.path.attr('d', pathOf()(Array.from(scores, (v, i) => [ui.x(i), ui.y(v)])));
      this.#scores = scores;
    }
    this.show(ui.atZero, scores[0]);
    this.show(ui.atR, scores[r]);
    ui.cursor.attr('x1', ui.x(r)).attr('x2', ui.x(r));
    ui.dot.attr('cx', ui.x(r)).attr('cy', ui.y(scores[r]));
  }

  #draw(q, k, qms, kns, mq, nk) {
    const ui = this.#ui;
    ui.q.draw(q);
    ui.k.draw(k);
    ui.qTurned.draw(qms);
    ui.kTurned.draw(kns);
    ui.qLabel.select('.sub').text(String(mq));
    ui.kLabel.select('.sub').text(String(nk));
    placeLabel(ui.p, ui.qLabel, qms, { inside: 0.6 });
    placeLabel(ui.p, ui.kLabel, kns, { inside: 0.6 });
    ui.arc.draw(qms, kns);
  }

  exportData() {
    const data = super.exportData();
    if (this.#scores) data.decay = { d: D, base: Number(this.state.base), scores: Array.from(this.#scores) };
    return data;
  }

  /** CSV: every number shown, then the decay's scores as curve.<offset>. */
  exportTable() {
    return withSeries(super.exportTable(), 'curve', this.#scores ?? []);
  }
}

defineWidget('ag-rope', AgRope);
