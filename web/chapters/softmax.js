// <ag-softmax>: part 2, chapter 4, "Softmax turns logits into weights".
// Four logit sliders (from −120 to 120, so that a logit can pass
// ln FLT_MAX ≈ 88.72); the exponentials as bars; the sum and the division,
// step by step, side by side: the textbook float32 softmax (no maximum
// subtracted), which overflows to Infinity and then NaN, and the stable one.
// Numbers: ag.exp (the numerators), ag.weightedSum (the shift s − m as
// 1·s + (−1)·m), ag.dot with ones (the sums), ag.softmaxNaive and ag.softmax.
//
//   <ag-softmax s="2,1,0.5,-1"></ag-softmax>
import { scaleLinear } from 'd3';
import { AgWidget, defineWidget } from '../widget/base.js';
import { bars } from '../widget/bars.js';
import { bandScale, draw, drawAll } from '../widget/charts.js';
import { columns, num, presetBar, section } from '../widget/controls.js';
import { h, setText } from '../widget/dom.js';
import { ownFigure } from '../widget/figure-layout.js';
import { fmt, sub } from '../widget/format.js';
import { logitSliders, setLogit } from '../widget/logit-sliders.js';
import { formulas } from '../widget/math.js';
import { bodyRow, slotTable } from '../widget/matrix-table.js';
import { defineState, vector } from '../widget/state.js';
import { choices } from '../widget/predict.js';

const T = 4;
const LIMIT = 120;
const STEP = 0.1;
const ONES = new Array(T).fill(1);

// The labels name the logits, not what they do: "past the edge" or "the sum overflows" would tell the answer.
const PRESETS = [
  { id: 'gentle', label: 'Gentle', s: [2, 1, 0.5, -1] },
  { id: 'edge', label: 's\u2081 = 88.7', s: [88.7, 1, 0.5, -1] },
  { id: 'over', label: 's\u2081 = 88.8', s: [88.8, 1, 0.5, -1] },
  { id: 'sum', label: 'Four logits near 88', s: [88, 87.5, 87, 86.5] },
  { id: 'large', label: 'All large', s: [100, 99, 98, 97] },
  { id: 'negative', label: 'All very negative', s: [-110, -111, -112, -113] },
];

export class AgSoftmax extends AgWidget {
  static title = 'Softmax turns logits into weights';
  static styles = ['styles/softmax.css'];
  static figureSelector = 'svg.bars';
  static stateDecl = defineState({
    version: 1,
    fields: {
      s: vector({ length: T, min: -LIMIT, max: LIMIT, default: [2, 1, 0.5, -1] }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'naive-overflow',
      question:
        'Raise s\u2081 to 90 and keep the other logits small. What does the textbook float32 softmax (no maximum subtracted) give for \u03b1\u2081?',
      choices: choices({ one: 'About 1', infinity: 'Infinity', nan: 'NaN (not a number)' }),
      misconceptions: {
        one: 'That expects the textbook formula to behave like the mathematics: exp(s\u2081) overflows float32; only the stable softmax, which subtracts the maximum first, gives a weight near 1.',
        infinity:
          'That stops at the numerator: exp(s\u2081) overflows to \u221e, but so does the sum in the denominator, and \u221e/\u221e is not a number.',
      },
      reveal: (_choice, ag) => {
        const s = [90, 1, 0.5, -1];
        this.setState({ s });
        const naive = ag.softmaxNaive(s).data[0];
        const stable = ag.softmax(s).data[0];
        const e = ag.exp(s).data[0];
        const answer = Number.isNaN(naive) ? 'nan' : naive === Infinity ? 'infinity' : 'one';
        return {
          answer,
          explanation: `exp(90) is larger than the largest float32 (about 3.4\u00d710\u00b3\u2078), so the module\u2019s exp gives ${fmt(e)}; the sum is then \u221e too, and \u221e/\u221e is ${fmt(naive)}. Subtracting the maximum first, the stable softmax gives \u03b1\u2081 = ${fmt(stable)}.`,
        };
      },
    });

    const presets = presetBar(PRESETS, (p) => this.setState({ s: p.s }));

    // The sliders: one per logit, keyboard-operable (arrows 0.1, Page keys bigger steps).
    const logits = logitSliders({
      id: 'sm-s',
      count: T,
      limit: LIMIT,
      step: STEP,
      legend: 'Logits (drag, or focus and use the arrow keys)',
      onInput: (j, v) => {
        const s = setLogit(this, j, v);
        const { stable, naive } = this.#ui;
        this.announce(
          `s${sub(j + 1)} = ${fmt(s[j])}; stable \u03b1${sub(j + 1)} = ${stable.alpha[j].textContent}; textbook \u03b1${sub(j + 1)} = ${naive.alpha[j].textContent}`,
        );
      },
    });

    // The bars: exp(s_j) as computed by the textbook kernel, and the stable weights.
    const figure = h('div', { class: 'bars-figure' });
    const W = 320;
    const H = 170;
    const label =
      'Bars: exp(s_j) from the textbook kernel (left, scaled to the largest finite one; overflowed ones marked) and the stable weights alpha_j (right, from 0 to 1)';
    const svg = ownFigure(figure, { className: 'bars', width: W, height: H, label });
    const panelW = (W - 30) / 2;
    const top = 26;
    const bottom = H - 22;
    const yScale = scaleLinear().range([bottom, top + 16]);
    const panel = (x0, title, cls) => {
      const g = draw(svg, 'g', { class: `panel ${cls}`, transform: `translate(${x0},0)` });
      const middle = { 'text-anchor': 'middle' };
      draw(g, 'text', { class: 'panel-title', x: panelW / 2, y: 14, ...middle }).text(title);
      draw(g, 'line', { class: 'baseline', x1: 0, x2: panelW, y1: bottom, y2: bottom });
      const x = bandScale([0, 1, 2, 3], [4, panelW - 4], 0.25);
      const mid = { x: (_, j) => x(j) + x.bandwidth() / 2, ...middle };
      bars(g, 'bar', ONES, { x, y: yScale, value: () => null }); // drawn first: a bar's ∞ mark lies over it
      drawAll(g, 'text', 'bar-mark', ONES, mid);
      drawAll(g, 'text', 'bar-name', ONES, { ...mid, y: H - 6 }).text((_, j) => `s${sub(j + 1)}`);
      return { g, x };
    };
    const expBars = panel(10, 'exp(s\u2c7c), textbook', 'panel-exp');
    const alphaBars = panel(20 + panelW, '\u03b1\u2c7c, stable', 'panel-alpha');

    const side = (kind) => {
      const stable = kind === 'stable';
      const sum = num(`${kind}-sum`);
      const { element: table, cells } = slotTable({
        className: `steps steps-${kind}`,
        headers: stable
          ? ['j', 's\u2c7c \u2212 m', 'exp(s\u2c7c \u2212 m)', '\u03b1\u2c7c']
          : ['j', 'exp(s\u2c7c)', '\u03b1\u2c7c'],
        rows: ONES.map((_, j) => String(j + 1)),
        cols: [...(stable ? ['shifted'] : []), `${kind}-exp`, { role: `${kind}-alpha`, class: 'c-alpha' }],
        foot: bodyRow('\u03a3', [...(stable ? [''] : []), sum, '']),
      });
      const verdict = h('p', { class: 'verdict', dataset: { role: `${kind}-verdict` } });
      const title = stable ? 'Stable: subtract the maximum first' : 'Textbook float32: no shift';
      const box = section(`side side-${kind}`, title, title, [
        stable ? h('p', { class: 'm-line' }) : null,
        table,
        verdict,
      ]);
      const [exp, alpha] = [cells[`${kind}-exp`], cells[`${kind}-alpha`]];
      return { section: box, shifted: cells.shifted, exp, alpha, sum, verdict, mLine: box.querySelector('.m-line') };
    };
    const naive = side('naive');
    const stable = side('stable');
    // Held: where exp(s) overflows answers the prediction (s₁ = 90 is past it).
    const note = this.afterAnswer(
      h(
        'p',
        { class: 'limit' },
        'The largest float32 is about 3.4\u00d710\u00b3\u2078, so exp(s) overflows once s passes ln(3.4\u00d710\u00b3\u2078) \u2248 88.72. Each \u03b1\u2c7c is its exp divided by the \u03a3 row.',
      ),
    );

    body.append(
      predict,
      presets,
      columns(
        [
          logits.element,
          formulas(
            '\\alpha_j=\\frac{\\exp(s_j)}{\\sum_{k=1}^{T}\\exp(s_k)}',
            '\\alpha_j=\\frac{\\exp(s_j-m)}{\\sum_{k=1}^{T}\\exp(s_k-m)}',
            '\\text{with } m=\\max_k s_k',
          ),
          figure,
        ],
        [h('div', { class: 'sides' }, naive.section, stable.section), note],
      ),
    );
    this.#ui = { logits, expBars, alphaBars, yScale, naive, stable, svg };
  }

  syncControls({ s }) {
    const ui = this.#ui;
    ui.logits.set(s);
  }

  render(ag, { s }) {
    const ui = this.#ui;
    // Textbook: exp of each logit, the sum, and the kernel's weights.
    const e = ag.exp(s).data;
    e.forEach((x, j) => this.show(ui.naive.exp[j], x));
    // The sum of the numerators: ag.dot with ones when every exp is finite
    // (it may still overflow to Infinity); an infinite term makes the sum the
    // Infinity the module's exp returned.
    const inf = Array.from(e).find((x) => x === Infinity);
    const naiveSum = inf === undefined ? ag.dot(e, ONES) : inf;
    this.show(ui.naive.sum, naiveSum);
    const an = ag.softmaxNaive(s).data;
    an.forEach((x, j) => this.show(ui.naive.alpha[j], x));

    // Stable: shift by the maximum (an input value), exp, sum, weights.
    const m = Math.max(...s);
    setText(ui.stable.mLine, `m = max\u2096 s\u2096 = ${fmt(m)}`);
    const shifted = ag.weightedSum([1, -1], [s, ONES.map(() => m)]).data;
    shifted.forEach((x, j) => this.show(ui.stable.shifted[j], x));
    const es = ag.exp(shifted).data;
    es.forEach((x, j) => this.show(ui.stable.exp[j], x));
    this.show(ui.stable.sum, ag.dot(es, ONES));
    const as = ag.softmax(s).data;
    as.forEach((x, j) => this.show(ui.stable.alpha[j], x));

    // Verdicts in words (what the numbers above say).
    const nanCount = Array.from(an).filter(Number.isNaN).length;
    const overflowed = Array.from(e).filter((x) => x === Infinity).length;
    let verdict;
    if (nanCount > 0 && overflowed > 0)
      verdict = `${overflowed === 1 ? 'One exponential' : `${overflowed} exponentials`} overflowed to \u221e; \u221e/\u221e is NaN, and every finite term over \u221e is 0.`;
    else if (nanCount > 0) verdict = 'Every exponential underflowed to 0, and 0/0 is NaN.';
    else if (naiveSum === Infinity)
      verdict =
        'No single exponential overflowed, but their sum did: every weight became 0, and they no longer sum to 1.';
    else verdict = 'No overflow: the textbook weights agree with the stable ones up to float32 rounding.';
    setText(ui.naive.verdict, verdict);
    ui.naive.section.classList.toggle('is-broken', nanCount > 0 || naiveSum === Infinity);
    setText(
      ui.stable.verdict,
      'After the shift the largest exponent is exp(0) = 1, so nothing overflows and the sum is at least 1.',
    );
    this.#draw(e, as);
  }

  #draw(e, alpha) {
    const { expBars, alphaBars, yScale } = this.#ui;
    const finite = Array.from(e).filter(Number.isFinite);
    const top = Math.max(...finite, 0) || 1;
    const y = yScale.copy().domain([0, top]);
    // An overflowed exp is drawn past the largest finite one, marked ∞.
    const over = (v) => v === Infinity;
    const ye = (v) => (over(v) ? yScale.range()[1] - 16 : y(v));
    bars(expBars.g, 'bar', e, { x: expBars.x, y: ye, class: (v) => (over(v) ? 'bar is-overflow' : 'bar') });
    drawAll(expBars.g, 'text', 'bar-mark', e, { y: (v) => ye(v) + 16 }).text((v) => (over(v) ? '\u221e' : ''));
    const ya = yScale.copy().domain([0, 1]);
    bars(alphaBars.g, 'bar', alpha, { x: alphaBars.x, y: ya, value: (a) => (Number.isFinite(a) ? a : null) });
  }
}

defineWidget('ag-softmax', AgSoftmax);
