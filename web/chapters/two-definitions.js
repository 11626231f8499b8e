// <ag-two-definitions>: chapter 2, "Two definitions agree" (the model chapter,
// see WIDGETS.md). Draggable a and b; the algebraic Σ aᵢbᵢ term by term beside
// the geometric |a|·|b|·cos θ. Numbers: ag.dot (the sum, each term as a
// 1-element dot, the products), ag.norm, ag.cosine, ag.angle (in degrees).
//
//   <ag-two-definitions a="3,4" b="4,3"></ag-two-definitions>
import { AgWidget, defineWidget } from '../widget/base.js';
import { lbl, line, num, nums, section, signedTerm } from '../widget/controls.js';
import { h, setText } from '../widget/dom.js';
import { deg, fmt, paren } from '../widget/format.js';
import { pairPresets, pairSlots, showAngle, showPair, signOf } from '../widget/pair-numbers.js';
import { display } from '../widget/math.js';
import { choices } from '../widget/predict.js';
import { pairState, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;
const PRESETS = [
  { id: 'perpendicular', label: 'At right angles', a: [3, 4], b: [-4, 3] },
  { id: 'opposed', label: 'Opposed', a: [3, 4], b: [-2, -3] },
  { id: 'longer', label: 'Same direction, longer b', a: [1, 1], b: [4, 4] },
];

export class AgTwoDefinitions extends AgWidget {
  static title = 'Two definitions agree';
  static styles = ['styles/two-definitions.css'];
  static stateDecl = pairState(EXTENT);

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'perpendicular-sign',
      question:
        'Keep a = (3, 4) and turn b a quarter turn to (\u22124, 3). Will a\u00b7b be positive, zero or negative?',
      choices: choices({ positive: 'Positive', zero: 'Zero', negative: 'Negative' }),
      misconceptions: {
        positive:
          'That reads a\u00b7b as positive because both arrows have positive length: the lengths only scale it, the sign is the sign of cos \u03b8, and at a right angle cos \u03b8 is zero.',
        negative:
          'That reads \u201cturned away\u201d as \u201copposed\u201d: a negative score needs an obtuse angle, more than a right angle; at exactly a right angle the two terms cancel.',
      },
      reveal: (_choice, ag) => {
        this.setState({ a: [3, 4], b: [-4, 3] });
        const d = ag.dot([3, 4], [-4, 3]);
        return {
          answer: signOf(d),
          explanation: `The module computed a\u00b7b = ${fmt(d)}: the terms 3\u00d7(\u22124) and 4\u00d73 cancel, and the angle is ${deg(ag.angle([3, 4], [-4, 3]))}.`,
        };
      },
    });
    const ui = {
      ...pairSlots(),
      terms: nums('term', 2),
      normProduct: num('norm-product'),
      geometric: num('geometric'),
      products: h('span', { class: 'expr', dataset: { role: 'products' } }),
    };
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'Vectors a and b from the origin; drag their tips or use the arrow keys',
    });
    const say = () => `a\u00b7b = ${ui.dot.textContent}`;
    Object.assign(ui, { arc: fig.angleArc(), a: fig.vector('a', { say }), b: fig.vector('b', { say }) });
    const algebra = section('side algebra', 'Algebraic definition', 'Multiply and add', [
      display('a\\cdot b=\\sum_i a_i b_i = a_1 b_1 + a_2 b_2'),
      h('p', { class: 'line terms' }, ui.products, ' = ', ui.terms[0], signedTerm('+', ui.terms[1])),
      h('p', { class: 'line result' }, '= ', ui.dot),
    ]);
    const geometry = section('side geometry', 'Geometric definition', 'Lengths and angle', [
      display('a\\cdot b=|a|\\,|b|\\cos\\theta'),
      line(lbl('|a| = '), ui.normA, lbl(', |b| = '), ui.normB),
      line(lbl('\u03b8 = '), ui.angle, lbl(', cos \u03b8 = '), ui.cos),
      line(lbl('|a|\u00b7|b| = '), ui.normProduct),
      h('p', { class: 'line result' }, lbl('|a|\u00b7|b|\u00b7cos \u03b8 = '), ui.geometric),
    ]);
    const numbers = h('div', { class: 'numbers' }, ui.coords, h('div', { class: 'sides' }, algebra, geometry));
    body.append(predict, pairPresets(this, PRESETS), h('div', { class: 'layout' }, fig.element, numbers));
    this.#ui = ui;
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    ui.terms.forEach((el, i) => this.show(el, ag.dot([a[i]], [b[i]])));
    setText(ui.products, `${fmt(a[0])}\u00d7${paren(b[0])} + ${fmt(a[1])}\u00d7${paren(b[1])}`);
    const { na: nA, nb: nB } = showPair(this, ag, ui, a, b);
    const nn = ag.dot([nA], [nB]);
    this.show(ui.normProduct, nn);
    // A zero vector has no direction: no angle, and the product is 0.
    const c = showAngle(this, ag, ui, a, b, nA !== 0 && nB !== 0);
    this.show(ui.geometric, c === null ? nn : ag.dot([nn], [c]));
    ui.a.draw(a);
    ui.b.draw(b);
    ui.arc.draw(a, b);
  }
}

defineWidget('ag-two-definitions', AgTwoDefinitions);
