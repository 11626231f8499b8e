// <ag-weight-entropy>: part 2, chapter 3, "Entropy of the weights". Fixed
// logits s₁..s_T, a temperature slider on a log scale (τ from 10⁻³ to 10⁹),
// the weights α = softmax(s / τ) as bars, their entropy in bits against its
// maximum log₂T, and y = Σ αⱼvⱼ on the plane with draggable values: from a
// hard pointer (one-hot, y = v_k) to uniform weights (y = the centroid).
// Numbers: ag.softmax (with temperature), ag.entropy (bits), ag.weightedSum
// (y, the centroid, the path of y over τ, drawn), log₂T as the entropy of
// softmax(0).
//
//   <ag-weight-entropy values="1,0;0,1;1,1" logt="0"></ag-weight-entropy>
import { axisBottom, line as d3line, select } from 'd3';
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, lbl, num, slider } from '../widget/controls.js';
import { h, setAttr, setText, symbol, words } from '../widget/dom.js';
import { ownFigure } from '../widget/figure-layout.js';
import { fmt, formatNumber, pair, sub } from '../widget/format.js';
import { attrs, bandScale, draw, yScale } from '../widget/charts.js';
import { bars } from '../widget/bars.js';
import { display, texElement } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { nearestChoice } from '../widget/predict.js';
import { defineState, number, rowsFrom } from '../widget/state.js';
import { vectorFigure } from '../widget/vector-figure.js';
import {
  hullPath,
  pairLine,
  resizeValues,
  valueCount,
  valuePoints,
  valuesField,
  valueTable,
} from '../widget/value-set.js';

const EXTENT = 2;
const LOG_MIN = -3;
const LOG_MAX = 9;
const LOG_STEP = 0.05;
/** The fixed logits: the largest is s₃ = 2 for every T ≥ 3, at least 0.5 above the rest. */
export const LOGITS = [1, 0.5, 2, -1, 1.5, 0, -0.5, 0.25];
const SPOTS = rowsFrom('1,0;0,1;1,1;-1.5,1;1.5,-1.5;-1,-1.75;-2,-0.5;0.5,2');
/** The path of y over the temperature: one point per step of log τ (drawing only). */
const PATH_LOGS = Array.from({ length: 49 }, (_, i) => -3 + i * 0.25);

/** Superscript forms of '-' and the digits. */
const SUP = { '-': '\u207b', ...Array.from('\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079') };
/** τ as typed by the slider (an input, not a computed number): 10^logt. */
export function tauText(logt) {
  if (Number.isInteger(logt)) return logt === 0 ? '1' : `10${String(logt).replace(/[-\d]/g, (c) => SUP[c])}`;
  const t = 10 ** logt;
  return t >= 1e4 || t < 1e-2
    ? t.toExponential(2).replace('e+', ' \u00d7 10^').replace('e-', ' \u00d7 10^\u2212')
    : formatNumber(t, 3);
}

export class AgWeightEntropy extends AgWidget {
  static title = 'Entropy of the weights';
  static styles = ['styles/value-set.css', 'styles/entropy.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      values: valuesField(SPOTS.slice(0, 3), EXTENT),
      logt: number({ min: LOG_MIN, max: LOG_MAX, default: 0 }),
    },
  });

  #ui = null;
  #fixed = lastResult(); // what depends on the values only (the path over τ, the centroid, H at most)
  #drawnFor = null; // the #fixed results the hull, path and centroid show
  #barsFor = null; // the T the bar chart's axis shows

  build(body) {
    const predict = this.predict({
      id: 'flat-entropy',
      question:
        'Turn the temperature all the way up (\u03c4 = 10\u2079) with T = 3 values. How many bits of entropy will the weights have?',
      choices: [
        { value: '0', label: '0 bits' },
        { value: '1', label: '1 bit' },
        { value: '1.585', label: 'log\u2082 3 \u2248 1.585 bits' },
        { value: '3', label: '3 bits' },
      ],
      misconceptions: {
        0: 'That reads a high temperature as making one weight win: the logits are divided by \u03c4, so a huge \u03c4 flattens them and the weights become even, the most uncertain case.',
        1: 'That takes one bit as the most any weights can hold: the largest entropy of T weights is log\u2082 T bits, and it grows with the number of values.',
        3: 'That counts one bit per value: the entropy of T even weights is log\u2082 T bits, not T bits.',
      },
      reveal: (_choice, ag) => {
        this.setState({
          values: this.state.values.slice(0, 3).concat(SPOTS.slice(this.state.values.length, 3)),
          logt: LOG_MAX,
        });
        const alpha = ag.softmax(LOGITS.slice(0, 3), { temperature: 10 ** LOG_MAX }).data;
        const H = ag.entropy(alpha);
        return {
          answer: nearestChoice(['0', '1', '1.585', '3'], H),
          explanation: `The module computed H = ${fmt(H)} bits: all three weights are equal (${fmt(alpha[0])} each), the most uncertain three weights can be, and that maximum is log\u2082 3, not 3 bits.`,
        };
      },
    });

    // T, and the temperature.
    const size = valueCount((delta) => resizeValues(this, delta, SPOTS));
    const y = pairLine('y', 'y = \u03a3 \u03b1\u2c7cv\u2c7c = ');

    const temperature = (logt) => {
      this.setState({ logt });
      const ui = this.#ui;
      this.announce(`temperature ${tauText(logt)}; entropy ${ui.entropy.textContent} bits; y = ${y.text()}`);
    };
    const tauSlider = slider({
      id: 'we-logt',
      min: LOG_MIN,
      max: LOG_MAX,
      step: LOG_STEP,
      attrs: { 'aria-describedby': 'we-tau' },
      outClass: null,
      rowClass: null,
      onInput: temperature,
    });
    const tau = h('output', { class: 'tau', id: 'we-tau', for: 'we-logt' });
    const jump = (action, label, logt) => button({ dataset: { action } }, label, () => temperature(logt));
    const end = (text) => h('span', { class: 'end', 'aria-hidden': 'true' }, text);
    const temp = h(
      'div',
      { class: 'temperature', dataset: { controlGroup: 'temperature' } },
      h('label', { for: 'we-logt', class: 'temp-label' }, 'Temperature ', texElement('\\tau'), ' (log scale): ', tau),
      h('div', { class: 'slider-row' }, end('sharp'), tauSlider.input, end('flat')),
      h(
        'div',
        { class: 'controls', role: 'group', 'aria-label': 'Temperature presets' },
        jump('pointer', 'Hard pointer (\u03c4 = 10\u207b\u00b3)', LOG_MIN),
        jump('one', '\u03c4 = 1', 0),
        jump('uniform', 'Uniform (\u03c4 = 10\u2079)', LOG_MAX),
      ),
    );

    // The plane: values (draggable), hull, centroid, the path of y, y.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label:
        'The values, their centroid and the output y; the curve is y over all temperatures; drag the values or use the arrow keys',
    });
    const hull = fig.layer('hull').append('path').attr('class', 'hull');
    const trace = fig.layer('trace').append('path').attr('class', 'trace');
    const centroid = fig.layer('centroid').append('circle').attr('class', 'centroid').attr('r', 7);
    fig.layer('labels');
    const points = valuePoints(fig, () => `y = ${y.text()}`);
    const yDot = fig.layer('output').append('path').attr('class', 'y-dot').attr('d', 'M0,-7 L7,0 L0,7 L-7,0 Z');

    // The weights as bars (d3), each with its number.
    const W = 300;
    const H = 150;
    const label = 'The weights as bars, one per value';
    const bars = ownFigure(h('div', { class: 'bars-box' }), { className: 'bars', width: W, height: H, label });
    const bx = bandScale([], [28, W - 6], 0.2);
    const by = yScale({ height: H, m: { t: 8, b: 22 } }, [0, 1]);
    draw(bars, 'g', { class: 'bar-axis', transform: `translate(0,${H - 22})` });
    const grid = draw(bars, 'g', { class: 'bar-grid' }).selectAll('line').data([0, 0.5, 1]).join('line');
    attrs(grid, { x1: 28, x2: W - 6, y1: by, y2: by });
    const ticks = draw(bars, 'g', { class: 'bar-ticks' }).selectAll('text').data([0, 0.5, 1]).join('text');
    attrs(ticks, { x: 24, y: (d) => by(d) + 4 }).text(String);
    const barLayer = bars.append('g');

    // Numbers.
    const table = valueTable({
      className: 'weights-table',
      caption: 'Fixed logits and their weights',
      headers: ['j', ['logit ', symbol('s', 'j')], ['weight ', symbol('\u03b1', 'j')]],
      cells: (j) => [h('td', { class: 'plain' }), num('alpha', j + 1)],
    });
    const entropy = num('entropy');
    const hmax = num('entropy-max');
    const meter = h('div', { class: 'meter', 'aria-hidden': 'true' }, h('div', { class: 'meter-fill' }));
    const cen = pairLine('centroid', 'Centroid (1/T)\u03a3v\u2c7c = ', 'line');
    const dv = num('dv');
    const status = h('p', { class: 'status' });
    const numbers = h(
      'div',
      { class: 'numbers' },
      display('\\alpha_j=\\frac{\\exp(s_j/\\tau)}{\\sum_{k=1}^{T}\\exp(s_k/\\tau)}'),
      display('H(\\alpha)=-\\sum_{j=1}^{T}\\alpha_j\\log_2\\alpha_j'),
      display('0\\le H(\\alpha)\\le\\log_2 T'),
      h('p', { class: 'line result' }, lbl('Entropy H = '), entropy, lbl(' bits of at most log\u2082T = '), hmax),
      meter,
      y.element,
      cen.element,
      status,
      h(
        'p',
        { class: 'line dv-line' },
        words`At every temperature y has ${dv} coordinates, like each v\u2c7c: only the mixture changes, never d${h('sub', {}, 'v')}.`,
      ),
    );
    const weightsBox = h(
      'div',
      { class: 'weights-box' },
      h('h3', {}, 'Weights'),
      bars.node().parentNode,
      h('div', { class: 'table-wrap' }, table.element),
    );

    body.append(
      predict,
      size.row,
      temp,
      h('div', { class: 'layout' }, h('div', { class: 'left' }, fig.element, weightsBox), numbers),
    );
    this.#ui = { p: fig.plane, fig, points, hull, trace, centroid, yDot, tauSlider, tau, bars, bx, by, barLayer };
    Object.assign(this.#ui, { table, entropy, hmax, meter, y: y.els, cen: cen.els, dv, status, size });
  }

  syncControls({ values, logt }) {
    const ui = this.#ui;
    ui.tauSlider.set(logt, undefined, `temperature ${tauText(logt)}`);
    setText(ui.tau, `\u03c4 = ${tauText(logt)}`);
    ui.size.sync(values.length);
  }

  render(ag, { values, logt }) {
    const ui = this.#ui;
    const T = values.length;
    const s = LOGITS.slice(0, T);
    const alpha = ag.softmax(s, { temperature: 10 ** logt }).data;
    ui.table.sync(T);
    alpha.forEach((a, j) => {
      setText(ui.table.rows[j][0], fmt(s[j]));
      this.show(ui.table.rows[j][1], a);
    });
    const H = ag.entropy(alpha);
    // What depends on the values alone (not on the temperature the slider moves): computed once per set of values.
    const valuesKey = values.map((v) => v.join()).join(';');
    const fixed = this.#fixed(ag, valuesKey, () => {
      const uniform = ag.softmax(new Array(T).fill(0)).data;
      return {
        uniform,
        Hmax: ag.entropy(uniform),
        c: Array.from(ag.weightedSum(uniform, values).data),
        // The path of y over the temperature (drawing: wasm calls, not shown as numbers).
        path: PATH_LOGS.map((l) =>
          Array.from(ag.weightedSum(ag.softmax(s, { temperature: 10 ** l }).data, values).data),
        ),
      };
    });
    const { Hmax, c, path } = fixed;
    this.showAll(ui, { entropy: H, hmax: Hmax });
    ui.meter.firstChild.style.width = `${Math.max(0, Math.min(1, H / Hmax)) * 100}%`;
    const yT = ag.weightedSum(alpha, values);
    const y = Array.from(yT.data);
    ui.y.forEach((el, i) => this.show(el, y[i]));
    ui.cen.forEach((el, i) => this.show(el, c[i]));
    this.show(ui.dv, yT.shape[0]);

    // Where y sits: exactly on the top value (one-hot), exactly the centroid, or between.
    const k = s.indexOf(Math.max(...s));
    const oneHot = Array.from(alpha).every((a, j) => a === (j === k ? 1 : 0));
    const isCentroid = y[0] === c[0] && y[1] === c[1];
    let text;
    if (oneHot)
      text = `Hard pointer: the weights are one-hot on j = ${k + 1} (the largest logit), entropy 0, and y is exactly v${sub(k + 1)} = ${pair(values[k])}.`;
    else if (isCentroid)
      text =
        'Uniform: every weight is 1/T, the entropy is at its maximum, and y is exactly the centroid: mean pooling.';
    else
      text = `In between: a soft selection that leans towards v${sub(k + 1)}. Lower \u03c4 sharpens the weights towards it; higher \u03c4 flattens them towards the centroid.`;
    setText(ui.status, text);
    setAttr(ui.status, 'data-regime', oneHot ? 'pointer' : isCentroid ? 'uniform' : 'between');

    this.#draw(values, y, c, path, k, fixed);
    this.#drawBars(Array.from(alpha), k);
  }

  #drawBars(alpha, k) {
    const { bx, by, barLayer } = this.#ui;
    if (this.#barsFor !== alpha.length) {
      // The axis names α₁ … α_T: drawn again only when T changes.
      bx.domain(alpha.map((_, j) => j + 1));
      this.#ui.bars.select('.bar-axis').call(
        axisBottom(bx)
          .tickSize(0)
          .tickFormat((j) => `\u03b1${sub(j)}`),
      );
      this.#barsFor = alpha.length;
    }
    const top = (_, j) => (j === k ? 'bar bar-top' : 'bar');
    bars(barLayer, null, alpha, { x: bx, y: by, key: (_, j) => j + 1, class: top });
  }

  #draw(values, y, c, path, k, fixed) {
    const { p, points } = this.#ui;
    points.sync(values);
    points.list.forEach(({ handle }, j) => select(handle.node).classed('is-top', j === k));
    if (this.#drawnFor !== fixed) {
      // The hull, the path over the temperature and the centroid move with the values only.
      this.#ui.hull.attr('d', hullPath(p, values));
      this.#ui.trace.attr(
        'd',
        d3line()
          .x((q) => p.x(q[0]))
          .y((q) => p.y(q[1]))(path),
      );
      this.#ui.centroid.attr('cx', p.x(c[0])).attr('cy', p.y(c[1]));
      this.#drawnFor = fixed;
    }
    this.#ui.yDot.attr('transform', `translate(${p.x(y[0])},${p.y(y[1])})`);
  }
}

defineWidget('ag-weight-entropy', AgWeightEntropy);
