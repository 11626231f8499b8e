// <ag-value-mix>: part 2, chapter 1, "Values do the work". T draggable 2-D
// value vectors v₁..v_T (T from 2 to 8) and their weights α₁..α_T given
// directly by sliders; the output y = Σ αⱼvⱼ drawn as a chain of the scaled
// values αⱼvⱼ laid tip to tail. Numbers: ag.weightedSum (y, each term αⱼvⱼ,
// the partial sums that place the chain), ag.dot (Σαⱼ as α·1).
//
//   <ag-value-mix values="-4,2;2,4;3,-3" alpha="0.5,0.3,0.2"></ag-value-mix>
import { AgWidget, defineWidget } from '../widget/base.js';
import { rowsFrom } from '../widget/state.js';
import { button, lbl, line, num } from '../widget/controls.js';
import { h, setText, symbol, words } from '../widget/dom.js';
import { fmt, pair } from '../widget/format.js';
import { display } from '../widget/math.js';
import { placeLabel, setLine, vectorFigure } from '../widget/vector-figure.js';
import { choices, nearestChoice } from '../widget/predict.js';
import {
  EXTENT,
  fitWeights,
  pairLine,
  resizeValues,
  valueCount,
  valueMixState,
  valueTable,
  weightSliders,
} from '../widget/value-set.js';

/** Where a new value appears when T grows (the first three are the default). */
const SPOTS = rowsFrom('1,5;5,1;-4,-3;-4,3;3,-5;-1,-5;-5,0;0,3');

export class AgValueMix extends AgWidget {
  static title = 'Values do the work';
  static styles = ['styles/value-set.css', 'styles/values.css'];
  static stateDecl = valueMixState({ values: SPOTS.slice(0, 3), alpha: [0.5, 0.3, 0.2], min: 0, max: 1 });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'move-a-value',
      question:
        'The weights stay at α = (0.5, 0.3, 0.2). Only the value v\u2081 moves, 2 units to the right, from (1, 5) to (3, 5). How far does the output y move?',
      choices: choices({
        0: 'Not at all: the weights did not change',
        1: '1 unit (half the move)',
        2: '2 units (the whole move)',
      }),
      misconceptions: {
        0: 'That reads attention as its weights alone: the weights say how much of each value goes into y, but y is made of the values, so when v\u2081 moves, y follows.',
        2: 'That reads y as a copy of v\u2081: y holds v\u2081 only at its weight, so it moves by that share of v\u2081\u2019s move.',
      },
      reveal: (_choice, ag) => {
        const before = SPOTS.slice(0, 3);
        const after = [[3, 5], ...SPOTS.slice(1, 3)];
        const alpha = [0.5, 0.3, 0.2];
        this.setState({ values: after, alpha });
        const y0 = ag.weightedSum(alpha, before).data;
        const y1 = ag.weightedSum(alpha, after).data;
        const moved = ag.norm(ag.weightedSum([1, -1], [Array.from(y1), Array.from(y0)]).data);
        return {
          answer: nearestChoice(['0', '1', '2'], moved),
          explanation: `The module computed y = ${pair(y0)} before and ${pair(y1)} after: y moved ${fmt(moved)}. The weights say how much of v\u2081 is in y (one half), so y follows v\u2081 at half its pace; what moved it was a value, not a weight.`,
        };
      },
    });

    const even = button({ dataset: { action: 'even' } }, 'Equal weights', () => {
      const T = this.state.values.length;
      this.setState({ alpha: Array.from({ length: T }, () => 1 / T) });
    });
    const size = valueCount(
      (delta) => resizeValues(this, delta, SPOTS, (T) => ({ alpha: fitWeights(this.state.alpha, T) })),
      even,
    );

    // The values (draggable), the chain of scaled values, y.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'Value vectors v and the output y; drag the tips of the values or use the arrow keys',
      markers: 'vm-arrow',
    });
    ['v', 't', 'y'].forEach(fig.marker);
    fig.layer('values');
    fig.layer('chain');
    const yArrow = fig.arrow('y', { layer: 'output', labelLayer: 'output', away: null });
    fig.layer('handles');
    const y = pairLine('y', 'y = ');
    const say = () => `y = ${y.text()}`;
    const points = fig.rowHandles('values', {
      say,
      onAdd: (j) => ({
        value: fig.arrow(`v${j + 1}`, { marker: 'v', layer: 'values', className: 'vec vec-v', text: null }),
        label: fig.label('v', { className: 'vec-label label-v', layer: 'values', sub: String(j + 1) }),
        link: fig.arrow(`t${j + 1}`, { marker: 't', layer: 'chain', className: 'vec vec-t', text: null }).line,
      }),
      onRemove: ({ value, label, link }) => [value.line, label, link].forEach((el) => el.remove()),
    });
    const weights = weightSliders(this, { id: 'vm-alpha', min: 0, max: 1, legend: 'Weights, set directly', say });

    const terms = valueTable({
      className: 'terms',
      caption: 'Each value, its weight and the scaled value',
      headers: ['j', symbol('\u03b1', 'j'), symbol('v', 'j'), ['\u03b1', h('sub', {}, 'j'), 'v', h('sub', {}, 'j')]],
      cells: (j) => [
        h('td', { class: 'plain' }),
        h('td', { class: 'plain' }),
        ['(', num('term', `${j + 1}-1`), ', ', num('term', `${j + 1}-2`), ')'],
      ],
    });
    const sum = num('sum');
    const dv = num('dv');
    const numbers = h(
      'div',
      { class: 'numbers' },
      display('y=\\sum_{j=1}^{T}\\alpha_j\\,v_j'),
      display('v_j\\in\\mathbb{R}^{d_v}\\ \\Rightarrow\\ y\\in\\mathbb{R}^{d_v}'),
      h('div', { class: 'table-wrap' }, terms.element),
      y.element,
      line(lbl('Sum of the weights \u03a3\u03b1'), h('sub', {}, 'j'), lbl(' = '), sum),
      h(
        'p',
        { class: 'line dv-line' },
        words`Each value has d${h('sub', {}, 'v')} = 2 coordinates here; y has ${dv}: mixing never changes the dimension (in the base Transformer d${h('sub', {}, 'v')} = 64).`,
      ),
    );

    body.append(
      predict,
      size.row,
      h('div', { class: 'layout' }, h('div', { class: 'left' }, fig.element, weights.element), numbers),
    );
    this.#ui = { p: fig.plane, points, yArrow, weights, size, terms, y: y.els, sum, dv };
  }

  syncControls(state) {
    this.#ui?.weights.sync(state);
    this.#ui?.size.sync(state.values.length);
  }

  render(ag, { values, alpha: given }) {
    const ui = this.#ui;
    const T = values.length;
    const alpha = fitWeights(given, T);
    const y = ag.weightedSum(alpha, values);
    ui.y.forEach((el, i) => this.show(el, y.data[i]));
    this.showAll(ui, { sum: ag.dot(alpha, new Array(T).fill(1)), dv: y.shape[0] });
    // Each term αⱼvⱼ is the weighted sum of one value; the partial sums place the chain.
    ui.terms.sync(T);
    const chain = values.map((v, j) => {
      const [aCell, vCell, [, t1, , t2]] = ui.terms.rows[j];
      const term = ag.weightedSum([alpha[j]], [v]).data;
      this.show(t1, term[0]);
      this.show(t2, term[1]);
      setText(aCell, fmt(alpha[j]));
      setText(vCell, pair(v));
      return Array.from(ag.weightedSum(alpha.slice(0, j + 1), values.slice(0, j + 1)).data);
    });
    this.#draw(values, chain, Array.from(y.data));
  }

  #draw(values, chain, y) {
    const ui = this.#ui;
    const { p, points } = ui;
    // Handles and value arrows: one per value, made or removed as T changes.
    points.sync(values);
    values.forEach((v, j) => {
      const { value, label, link } = points.list[j].extra;
      value.draw(v);
      placeLabel(p, label, v, { away: 0.7, dx: -6 });
      const from = j === 0 ? [0, 0] : chain[j - 1];
      const to = chain[j];
      const tiny = Math.hypot(to[0] - from[0], to[1] - from[1]) < 0.05;
      link.attr('visibility', tiny ? 'hidden' : 'visible');
      setLine(p, link, from, to);
    });
    ui.yArrow.line.attr('visibility', Math.hypot(y[0], y[1]) < 0.05 ? 'hidden' : 'visible');
    ui.yArrow.draw(y);
    const clamp = (t) => Math.max(-EXTENT + 0.3, Math.min(EXTENT - 0.3, t));
    ui.yArrow.label.attr('x', p.x(clamp(y[0] + 0.35))).attr('y', p.y(clamp(y[1] + 0.35)));
  }
}

defineWidget('ag-value-mix', AgValueMix);
