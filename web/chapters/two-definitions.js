// <ag-two-definitions>: chapter 2, "Two definitions agree". Two draggable
// 2-D vectors a and b; the algebraic dot product Σ aᵢbᵢ term by term beside
// the geometric |a|·|b|·cos θ. Every number shown is a wasm result:
// ag.dot (the whole sum, each term aᵢbᵢ as a 1-element dot, and the products
// of the geometric side), ag.norm, ag.cosine and ag.angle (shown in degrees:
// the radians-to-degrees step is formatting).
//
//   <ag-two-definitions a="3,4" b="4,3"></ag-two-definitions>
//
// This file is the model chapter: see WIDGETS.md.
import { AgWidget, defineWidget } from '../widget/base.js';
import { h, setText } from '../widget/dom.js';
import { formatNumber } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { arrowMarker, draggablePoint, plane } from '../widget/plot.js';
import { defineState, vector } from '../widget/state.js';

const EXTENT = 6;

/** Presets: the article's pair first. */
const PRESETS = [
  { id: 'article', label: '(3, 4) and (4, 3)', a: [3, 4], b: [4, 3] },
  { id: 'perpendicular', label: 'At right angles', a: [3, 4], b: [-4, 3] },
  { id: 'opposed', label: 'Opposed', a: [3, 4], b: [-2, -3] },
  { id: 'longer', label: 'Same direction, longer b', a: [1, 1], b: [4, 4] },
];

const fmt = (x) => formatNumber(x, 4);
const deg = (radians) => `${formatNumber((radians * 180) / Math.PI, 4)}\u00b0`;
const pair = ([x, y]) => `(${fmt(x)}, ${fmt(y)})`;

export class AgTwoDefinitions extends AgWidget {
  static title = 'Two definitions agree';
  static styles = ['styles/two-definitions.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      a: vector({ length: 2, min: -EXTENT, max: EXTENT, default: [3, 4] }),
      b: vector({ length: 2, min: -EXTENT, max: EXTENT, default: [4, 3] }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'perpendicular-sign',
      question:
        'Keep a = (3, 4) and turn b a quarter turn to (\u22124, 3). Will a\u00b7b be positive, zero or negative?',
      choices: [
        { value: 'positive', label: 'Positive' },
        { value: 'zero', label: 'Zero' },
        { value: 'negative', label: 'Negative' },
      ],
      reveal: (_choice, ag) => {
        this.setState({ a: [3, 4], b: [-4, 3] });
        const d = ag.dot([3, 4], [-4, 3]);
        const answer = d > 0 ? 'positive' : d < 0 ? 'negative' : 'zero';
        return {
          answer,
          explanation: `The module computed a\u00b7b = ${fmt(d)}: the terms 3\u00d7(\u22124) and 4\u00d73 cancel, and the angle is ${deg(ag.angle([3, 4], [-4, 3]))}.`,
        };
      },
    });

    const presets = h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': 'Presets' },
      h('span', { class: 'presets-label' }, 'Try:'),
      PRESETS.map((p) => {
        const b = h('button', { type: 'button', dataset: { preset: p.id } }, p.label);
        b.addEventListener('click', () => this.setState({ a: p.a, b: p.b }));
        return b;
      }),
    );

    // The figure: d3 on a plane with axes through the origin.
    const figure = h('div', { class: 'figure' });
    const p = plane(figure, {
      extent: EXTENT,
      label: 'Vectors a and b from the origin; drag their tips or use the arrow keys',
    });
    const markA = arrowMarker(p.svg, 'arrow-a', 'marker-a');
    const markB = arrowMarker(p.svg, 'arrow-b', 'marker-b');
    const arc = p.layer('angle').append('path').attr('class', 'angle-arc');
    const arrows = p.layer('arrows');
    const lineA = arrows.append('line').attr('class', 'vec vec-a').attr('marker-end', markA);
    const lineB = arrows.append('line').attr('class', 'vec vec-b').attr('marker-end', markB);
    const labels = p.layer('labels');
    const labelA = labels.append('text').attr('class', 'vec-label label-a').text('a');
    const labelB = labels.append('text').attr('class', 'vec-label label-b').text('b');
    const handles = p.layer('handles');
    const point = (name) =>
      draggablePoint({
        plane: p,
        layer: handles,
        name,
        className: `handle-${name}`,
        get: () => this.state[name],
        set: (value) => {
          this.setState({ [name]: value });
        },
        describe: (v) => `${name} = ${pair(v)}`,
        announce: (v) => `${name} = ${pair(v)}; a\u00b7b = ${this.#ui.dot.textContent}`,
      });
    const handleA = point('a');
    const handleB = point('b');

    // The numbers: two columns, each a formula typeset once and a line of values.
    const num = (role, key) =>
      h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
    const termA = [num('term', 1), num('term', 2)];
    const dot = num('dot');
    const normA = num('norm', 'a');
    const normB = num('norm', 'b');
    const cos = num('cosine');
    const angle = num('angle');
    const normProduct = num('norm-product');
    const geometric = num('geometric');
    const coords = h('p', { class: 'coords' });
    const algebra = h(
      'section',
      { class: 'side algebra', 'aria-label': 'Algebraic definition' },
      h('h3', {}, 'Multiply and add'),
      texElement('a\\cdot b=\\sum_i a_i b_i = a_1 b_1 + a_2 b_2', { display: true }),
      h(
        'p',
        { class: 'line terms' },
        h('span', { class: 'expr', dataset: { role: 'products' } }),
        ' = ',
        termA[0],
        ' + ',
        termA[1],
      ),
      h('p', { class: 'line result' }, '= ', dot),
    );
    const geometry = h(
      'section',
      { class: 'side geometry', 'aria-label': 'Geometric definition' },
      h('h3', {}, 'Lengths and angle'),
      texElement('a\\cdot b=|a|\\,|b|\\cos\\theta', { display: true }),
      h(
        'p',
        { class: 'line' },
        h('span', { class: 'lbl' }, '|a| = '),
        normA,
        h('span', { class: 'lbl' }, ', |b| = '),
        normB,
      ),
      h(
        'p',
        { class: 'line' },
        h('span', { class: 'lbl' }, '\u03b8 = '),
        angle,
        h('span', { class: 'lbl' }, ', cos \u03b8 = '),
        cos,
      ),
      h('p', { class: 'line' }, h('span', { class: 'lbl' }, '|a|\u00b7|b| = '), normProduct),
      h('p', { class: 'line result' }, h('span', { class: 'lbl' }, '|a|\u00b7|b|\u00b7cos \u03b8 = '), geometric),
    );
    const numbers = h('div', { class: 'numbers' }, coords, h('div', { class: 'sides' }, algebra, geometry));
    body.append(predict, presets, h('div', { class: 'layout' }, figure, numbers));

    this.#ui = {
      p,
      arc,
      lineA,
      lineB,
      labelA,
      labelB,
      handleA,
      handleB,
      termA,
      dot,
      normA,
      normB,
      cos,
      angle,
      normProduct,
      geometric,
      coords,
      products: algebra.querySelector('[data-role=products]'),
    };
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    // Algebra: each term a_i b_i is a one-element dot product, then the whole sum.
    const terms = [ag.dot([a[0]], [b[0]]), ag.dot([a[1]], [b[1]])];
    terms.forEach((t, i) => this.show(ui.termA[i], t));
    this.show(ui.dot, ag.dot(a, b));
    setText(ui.products, `${fmt(a[0])}\u00d7${paren(b[0])} + ${fmt(a[1])}\u00d7${paren(b[1])}`);
    setText(ui.coords, `a = ${pair(a)}, b = ${pair(b)}`);

    // Geometry: lengths, angle and cosine, and the product, all from the module.
    const nA = ag.norm(a);
    const nB = ag.norm(b);
    this.show(ui.normA, nA);
    this.show(ui.normB, nB);
    const nn = ag.dot([nA], [nB]);
    this.show(ui.normProduct, nn);
    if (nA === 0 || nB === 0) {
      // A zero vector has no direction: no angle, and the product is 0.
      for (const el of [ui.cos, ui.angle]) {
        setText(el, 'not defined');
        delete el.dataset.value;
      }
      this.show(ui.geometric, nn);
    } else {
      const c = ag.cosine(a, b);
      this.show(ui.cos, c);
      this.show(ui.angle, ag.angle(a, b), { format: deg });
      this.show(ui.geometric, ag.dot([nn], [c]));
    }
    this.#draw(a, b);
  }

  #draw(a, b) {
    const { p, arc, lineA, lineB, labelA, labelB, handleA, handleB } = this.#ui;
    const o = [p.x(0), p.y(0)];
    lineA.attr('x1', o[0]).attr('y1', o[1]).attr('x2', p.x(a[0])).attr('y2', p.y(a[1]));
    lineB.attr('x1', o[0]).attr('y1', o[1]).attr('x2', p.x(b[0])).attr('y2', p.y(b[1]));
    const place = (label, v) => {
      const len = Math.hypot(v[0], v[1]) || 1;
      label.attr('x', p.x(v[0] + (0.6 * v[0]) / len) - 4).attr('y', p.y(v[1] + (0.6 * v[1]) / len) + 5);
    };
    place(labelA, a);
    place(labelB, b);
    handleA.update();
    handleB.update();
    // The angle: a short arc from a to b the short way round (drawing only).
    const ta = Math.atan2(a[1], a[0]);
    const tb = Math.atan2(b[1], b[0]);
    let delta = tb - ta;
    if (delta > Math.PI) delta -= 2 * Math.PI;
    if (delta < -Math.PI) delta += 2 * Math.PI;
    const r = p.x(1.2) - p.x(0);
    const show = Math.hypot(...a) > 0 && Math.hypot(...b) > 0;
    const end = ta + delta;
    const sweep = delta > 0 ? 0 : 1; // screen y points down
    arc
      .attr('visibility', show ? 'visible' : 'hidden')
      .attr(
        'd',
        `M${o[0] + r * Math.cos(ta)},${o[1] - r * Math.sin(ta)} A${r},${r} 0 0 ${sweep} ${o[0] + r * Math.cos(end)},${o[1] - r * Math.sin(end)}`,
      );
  }

  figure() {
    return this.#ui ? this.#ui.p.svg.node() : null;
  }
}

function paren(x) {
  return x < 0 ? `(${fmt(x)})` : fmt(x);
}

defineWidget('ag-two-definitions', AgTwoDefinitions);
