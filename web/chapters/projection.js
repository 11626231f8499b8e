// <ag-projection>: chapter 4, "Projection as a shadow". a's shadow on the
// line through b: the foot of the perpendicular from a's tip, the dashed drop
// line, the shadow highlighted from the origin to the foot. The scalar
// projection a·b/|b| (ag.scalarProjection), the vector projection
// (ag.vectorProjection), the same shadow as |a| cos θ, and a·b = |b| × shadow
// (products of results through ag.dot). A negative shadow points backwards.
//
//   <ag-projection a="3,4" b="4,3"></ag-projection>
import { AgWidget, defineWidget } from '../widget/base.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { formatNumber } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { arrowMarker, draggablePoint, plane } from '../widget/plot.js';
import { defineState, vector } from '../widget/state.js';

const EXTENT = 6;

const PRESETS = [
  { id: 'article', label: '(3, 4) and (4, 3)', a: [3, 4], b: [4, 3] },
  { id: 'longer', label: 'Longer b, same line', a: [3, 4], b: [6, 4.5] },
  { id: 'right', label: 'Right angle', a: [3, 4], b: [-4, 3] },
  { id: 'obtuse', label: 'Obtuse', a: [3, 4], b: [-4, -1] },
];

const fmt = (x) => formatNumber(x, 4);
const deg = (radians) => `${formatNumber((radians * 180) / Math.PI, 4)}\u00b0`;
const pair = ([x, y]) => `(${fmt(x)}, ${fmt(y)})`;

export class AgProjection extends AgWidget {
  static title = 'Projection as a shadow';
  static styles = ['styles/projection.css'];
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
      id: 'backward-shadow',
      question:
        'Keep a = (3, 4) and swing b round to (\u22124, \u22121), more than a right angle away from a. Where does a\u2019s shadow on the line through b fall?',
      choices: [
        { value: 'along', label: 'Along b' },
        { value: 'none', label: 'Nowhere: it has length zero' },
        { value: 'against', label: 'Behind the origin, against b' },
      ],
      reveal: (_choice, ag) => {
        const a = [3, 4];
        const b = [-4, -1];
        this.setState({ a, b });
        const s = ag.scalarProjection(a, b);
        const answer = s > 0 ? 'along' : s < 0 ? 'against' : 'none';
        return {
          answer,
          explanation: `The module computed a\u00b7b/|b| = ${fmt(s)}. The angle is ${deg(ag.angle(a, b))}, so cos \u03b8 is negative and the shadow falls on the far side of the origin, pointing away from b.`,
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

    const figure = h('div', { class: 'figure' });
    const p = plane(figure, {
      extent: EXTENT,
      label:
        'Vector a, its shadow on the line through b, and the perpendicular drop; drag the tips of a and b or use the arrow keys',
    });
    const markA = arrowMarker(p.svg, 'proj-arrow-a', 'marker-a');
    const markB = arrowMarker(p.svg, 'proj-arrow-b', 'marker-b');
    const guide = p.layer('guide');
    const lineThrough = guide.append('line').attr('class', 'through-b');
    const shadow = p.layer('shadow').append('line').attr('class', 'shadow');
    const drop = guide.append('line').attr('class', 'drop');
    const corner = guide.append('path').attr('class', 'corner');
    const arrows = p.layer('arrows');
    const lineA = arrows.append('line').attr('class', 'vec vec-a').attr('marker-end', markA);
    const lineB = arrows.append('line').attr('class', 'vec vec-b').attr('marker-end', markB);
    const foot = arrows.append('circle').attr('class', 'foot').attr('r', 4.5);
    const labels = p.layer('labels');
    const labelA = labels.append('text').attr('class', 'vec-label label-a').text('a');
    const labelB = labels.append('text').attr('class', 'vec-label label-b').text('b');
    const labelS = labels
      .append('text')
      .attr('class', 'vec-label label-shadow')
      .attr('text-anchor', 'middle')
      .text('shadow');
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
        announce: (v) => `${name} = ${pair(v)}; shadow a\u00b7b/|b| = ${this.#ui.scalar.textContent}`,
      });
    const handleA = point('a');
    const handleB = point('b');

    const num = (role, key) =>
      h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
    const ui = {
      p,
      lineThrough,
      shadow,
      drop,
      corner,
      foot,
      lineA,
      lineB,
      labelA,
      labelB,
      labelS,
      handleA,
      handleB,
      dot: num('dot'),
      normB: num('norm', 'b'),
      normA: num('norm', 'a'),
      scalar: num('scalar-projection'),
      cos: num('cosine'),
      angle: num('angle'),
      shadowCos: num('shadow-cosine'),
      unit: [num('unit-b', 1), num('unit-b', 2)],
      vec: [num('vector-projection', 1), num('vector-projection', 2)],
      dotBack: num('shadow-times-length'),
      direction: h('p', { class: 'direction', dataset: { role: 'direction' }, role: 'status' }),
      coords: h('p', { class: 'coords' }),
    };
    const line = (...parts) => h('p', { class: 'line' }, ...parts);
    const lbl = (text) => h('span', { class: 'lbl' }, text);

    const scalarSide = h(
      'section',
      { class: 'side', 'aria-label': 'Scalar projection' },
      h('h3', {}, 'How long is the shadow?'),
      texElement('\\operatorname{comp}_b a=\\frac{a\\cdot b}{|b|}=|a|\\cos\\theta', { display: true }),
      line(lbl('a\u00b7b = '), ui.dot, lbl(', |b| = '), ui.normB),
      line(h('strong', { class: 'result' }, lbl('a\u00b7b / |b| = '), ui.scalar)),
      line(lbl('|a| = '), ui.normA, lbl(', \u03b8 = '), ui.angle, lbl(', cos \u03b8 = '), ui.cos),
      line(lbl('|a| cos \u03b8 = '), ui.shadowCos),
      ui.direction,
    );
    const vectorSide = h(
      'section',
      { class: 'side', 'aria-label': 'Vector projection' },
      h('h3', {}, 'The shadow as a vector'),
      texElement('\\operatorname{proj}_b a=\\frac{a\\cdot b}{|b|^2}\\,b=\\left(\\frac{a\\cdot b}{|b|}\\right)\\hat b', {
        display: true,
      }),
      line(texElement('\\hat b=b/|b|'), lbl(' = ('), ui.unit[0], lbl(', '), ui.unit[1], lbl(')')),
      line(h('strong', { class: 'result' }, lbl('proj = ('), ui.vec[0], lbl(', '), ui.vec[1], lbl(')'))),
    );
    const back = h(
      'section',
      { class: 'side back', 'aria-label': 'The score from the shadow' },
      h('h3', {}, 'Back to the score'),
      texElement('a\\cdot b=|b|\\times\\operatorname{comp}_b a', { display: true }),
      line(lbl('|b| \u00d7 shadow = '), ui.dotBack),
      h('p', { class: 'explain' }, 'The score is how far a reaches along b, scaled by the length of b.'),
    );
    const numbers = h(
      'div',
      { class: 'numbers' },
      ui.coords,
      h('div', { class: 'sides' }, scalarSide, vectorSide, back),
    );
    body.append(predict, presets, h('div', { class: 'layout' }, figure, numbers));
    this.#ui = ui;
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    setText(ui.coords, `a = ${pair(a)}, b = ${pair(b)}`);
    const dot = ag.dot(a, b);
    const na = ag.norm(a);
    const nb = ag.norm(b);
    this.show(ui.dot, dot);
    this.show(ui.normA, na);
    this.show(ui.normB, nb);
    if (nb === 0) {
      // No line through a zero b: no shadow at all.
      for (const el of [ui.scalar, ui.cos, ui.angle, ui.shadowCos, ...ui.unit, ...ui.vec, ui.dotBack]) {
        setText(el, 'not defined');
        delete el.dataset.value;
      }
      setText(ui.direction, 'b is the zero vector: there is no line to cast a shadow on.');
      setAttr(this, 'data-shadow', 'undefined');
      this.#draw(a, b, null);
      return;
    }
    const s = ag.scalarProjection(a, b);
    this.show(ui.scalar, s);
    const unit = ag.normalize(b).data;
    unit.forEach((u, i) => this.show(ui.unit[i], u));
    const proj = ag.vectorProjection(a, b).data;
    proj.forEach((x, i) => this.show(ui.vec[i], x));
    this.show(ui.dotBack, ag.dot([nb], [s]));
    if (na === 0) {
      for (const el of [ui.cos, ui.angle, ui.shadowCos]) {
        setText(el, 'not defined');
        delete el.dataset.value;
      }
    } else {
      const c = ag.cosine(a, b);
      this.show(ui.cos, c);
      this.show(ui.angle, ag.angle(a, b), { format: deg });
      this.show(ui.shadowCos, ag.dot([na], [c]));
    }
    // The sign of the shadow, read from the computed scalar projection.
    const where = s > 0 ? 'along' : s < 0 ? 'against' : 'none';
    setAttr(this, 'data-shadow', where);
    ui.direction.textContent =
      where === 'along'
        ? 'The angle is acute: the shadow points the same way as b.'
        : where === 'against'
          ? 'The angle is obtuse: the shadow falls behind the origin and points against b, so the projection is negative.'
          : 'a is perpendicular to b (or zero): the shadow shrinks to a point and the projection is 0.';
    this.#draw(a, b, [proj[0], proj[1]]);
  }

  #draw(a, b, proj) {
    const ui = this.#ui;
    const { p } = ui;
    const o = [p.x(0), p.y(0)];
    ui.lineA.attr('x1', o[0]).attr('y1', o[1]).attr('x2', p.x(a[0])).attr('y2', p.y(a[1]));
    ui.lineB.attr('x1', o[0]).attr('y1', o[1]).attr('x2', p.x(b[0])).attr('y2', p.y(b[1]));
    const place = (label, v) => {
      const len = Math.hypot(v[0], v[1]) || 1;
      label.attr('x', p.x(v[0] + (0.6 * v[0]) / len) - 4).attr('y', p.y(v[1] + (0.6 * v[1]) / len) + 5);
    };
    place(ui.labelA, a);
    place(ui.labelB, b);
    ui.handleA.update();
    ui.handleB.update();
    const hide = (...els) => els.forEach((el) => el.attr('visibility', 'hidden'));
    const showEls = (...els) => els.forEach((el) => el.attr('visibility', 'visible'));
    if (!proj) {
      hide(ui.lineThrough, ui.shadow, ui.drop, ui.corner, ui.foot, ui.labelS);
      return;
    }
    // Drawing only: the line through b, as the chord of the square plot.
    const len = Math.hypot(b[0], b[1]);
    const u = [b[0] / len, b[1] / len];
    const t = p.extent / Math.max(Math.abs(u[0]), Math.abs(u[1]));
    ui.lineThrough
      .attr('x1', p.x(-t * u[0]))
      .attr('y1', p.y(-t * u[1]))
      .attr('x2', p.x(t * u[0]))
      .attr('y2', p.y(t * u[1]));
    const F = [p.x(proj[0]), p.y(proj[1])];
    ui.shadow.attr('x1', o[0]).attr('y1', o[1]).attr('x2', F[0]).attr('y2', F[1]);
    ui.drop.attr('x1', p.x(a[0])).attr('y1', p.y(a[1])).attr('x2', F[0]).attr('y2', F[1]);
    ui.foot.attr('cx', F[0]).attr('cy', F[1]);
    showEls(ui.lineThrough, ui.shadow, ui.foot);
    const dropVec = [a[0] - proj[0], a[1] - proj[1]];
    const dropLen = Math.hypot(...dropVec);
    if (dropLen > 0.3) {
      showEls(ui.drop, ui.corner);
      // A small right-angle mark at the foot, on a's side of the line.
      const k = 0.3;
      const w = [dropVec[0] / dropLen, dropVec[1] / dropLen];
      const pt = (q) => `${p.x(q[0])},${p.y(q[1])}`;
      const sgn = Math.hypot(...proj) > 0.3 && proj[0] * u[0] + proj[1] * u[1] > 0 ? -1 : 1;
      const c1 = [proj[0] + sgn * k * u[0], proj[1] + sgn * k * u[1]];
      const c2 = [c1[0] + k * w[0], c1[1] + k * w[1]];
      const c3 = [proj[0] + k * w[0], proj[1] + k * w[1]];
      ui.corner.attr('d', `M${pt(c1)} L${pt(c2)} L${pt(c3)}`);
    } else {
      hide(ui.drop, ui.corner);
    }
    // The word "shadow" beside the middle of the highlighted segment, away from a.
    const plen = Math.hypot(...proj);
    if (plen > 1.5) {
      const mid = [proj[0] / 2, proj[1] / 2];
      let n = [-u[1], u[0]];
      if (n[0] * a[0] + n[1] * a[1] > 0) n = [-n[0], -n[1]];
      ui.labelS.attr('x', p.x(mid[0] + 0.55 * n[0])).attr('y', p.y(mid[1] + 0.55 * n[1]) + 5);
      showEls(ui.labelS);
    } else {
      hide(ui.labelS);
    }
  }

  figure() {
    return this.#ui ? this.#ui.p.svg.node() : null;
  }
}

defineWidget('ag-projection', AgProjection);
