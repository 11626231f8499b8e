// <ag-projection>: chapter 4, "Projection as a shadow". a's shadow on the line
// through b (foot of the perpendicular, drop line); a negative one points
// backwards. Numbers: ag.scalarProjection, ag.vectorProjection, ag.normalize,
// ag.cosine, ag.angle, ag.norm, ag.dot (|a| cos θ and |b| × shadow too).
//
//   <ag-projection a="3,4" b="4,3"></ag-projection>
import { AgWidget, defineWidget } from '../widget/base.js';
import { lbl, line, nums, section, slots } from '../widget/controls.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { deg, fmt } from '../widget/format.js';
import { pairPresets, pairSlots, showAngle, showPair, signOf } from '../widget/pair-numbers.js';
import { display, texElement } from '../widget/math.js';
import { choices } from '../widget/predict.js';
import { placeLabel, rightAngle, setLine, pairState, showIf, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;
const PRESETS = [
  { id: 'longer', label: 'Longer b, same line', a: [3, 4], b: [6, 4.5] },
  { id: 'right', label: 'Right angle', a: [3, 4], b: [-4, 3] },
  { id: 'obtuse', label: 'Obtuse', a: [3, 4], b: [-4, -1] },
];

/** Where the shadow falls, by the sign of the scalar projection, and what that says. */
const WHERE = { positive: 'along', negative: 'against', zero: 'none' };
const DIRECTION = {
  along: 'The angle is acute: the shadow points the same way as b.',
  against:
    'The angle is obtuse: the shadow falls behind the origin and points against b, so the projection is negative.',
  none: 'a is perpendicular to b (or zero): the shadow shrinks to a point and the projection is 0.',
};

export class AgProjection extends AgWidget {
  static title = 'Projection as a shadow';
  static styles = ['styles/projection.css'];
  static stateDecl = pairState(EXTENT);

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'backward-shadow',
      question:
        'Keep a = (3, 4) and swing b round to (\u22124, \u22121), more than a right angle away from a. Where does a\u2019s shadow on the line through b fall?',
      choices: choices({
        along: 'Along b',
        none: 'Nowhere: it has length zero',
        against: 'Behind the origin, against b',
      }),
      misconceptions: {
        along:
          'That reads the shadow as a length, which is never negative: the scalar projection a\u00b7b/|b| = |a| cos \u03b8 carries the sign of cos \u03b8, so past a right angle it points against b.',
        none: 'That expects the shadow to vanish once b turns far enough: it is zero only at exactly a right angle, and past it the shadow reappears behind the origin.',
      },
      reveal: (_choice, ag) => {
        const a = [3, 4];
        const b = [-4, -1];
        this.setState({ a, b });
        const s = ag.scalarProjection(a, b);
        return {
          answer: WHERE[signOf(s)],
          explanation: `The module computed a\u00b7b/|b| = ${fmt(s)}. The angle is ${deg(ag.angle(a, b))}, so cos \u03b8 is negative and the shadow falls on the far side of the origin, pointing away from b.`,
        };
      },
    });

    const fig = vectorFigure(this, {
      extent: EXTENT,
      label:
        'Vector a, its shadow on the line through b, and the perpendicular drop; drag the tips of a and b or use the arrow keys',
      markers: 'proj-arrow',
    });
    const guide = fig.layer('guide');
    const ui = {
      fig,
      lineThrough: guide.append('line').attr('class', 'through-b'),
      shadow: fig.layer('shadow').append('line').attr('class', 'shadow'),
      drop: guide.append('line').attr('class', 'drop'),
      corner: guide.append('path').attr('class', 'corner'),
      ...pairSlots(),
      ...slots('scalar-projection shadow-cosine shadow-times-length'),
      unit: nums('unit-b', 2),
      vec: nums('vector-projection', 2),
      direction: h('p', { class: 'direction', dataset: { role: 'direction' }, role: 'status' }),
    };
    const say = () => `shadow a\u00b7b/|b| = ${ui.scalarProjection.textContent}`;
    ui.a = fig.vector('a', { say });
    ui.b = fig.vector('b', { say });
    ui.foot = fig.layer('arrows').append('circle').attr('class', 'foot').attr('r', 4.5);
    ui.labelS = fig.label('shadow', { className: 'vec-label label-shadow halo', anchor: 'middle' });
    const scalarSide = section('side', 'Scalar projection', 'How long is the shadow?', [
      display('\\operatorname{comp}_b a=\\frac{a\\cdot b}{|b|}=|a|\\cos\\theta'),
      line(lbl('a\u00b7b = '), ui.dot, lbl(', |b| = '), ui.normB),
      line(h('strong', { class: 'result' }, lbl('a\u00b7b / |b| = '), ui.scalarProjection)),
      line(lbl('|a| = '), ui.normA, lbl(', \u03b8 = '), ui.angle, lbl(', cos \u03b8 = '), ui.cos),
      line(lbl('|a| cos \u03b8 = '), ui.shadowCosine),
      ui.direction,
    ]);
    const vectorSide = section('side', 'Vector projection', 'The shadow as a vector', [
      display('\\operatorname{proj}_b a=\\frac{a\\cdot b}{|b|^2}\\,b=\\left(\\frac{a\\cdot b}{|b|}\\right)\\hat b'),
      line(texElement('\\hat b=b/|b|'), lbl(' = ('), ui.unit[0], lbl(', '), ui.unit[1], lbl(')')),
      line(h('strong', { class: 'result' }, lbl('proj = ('), ui.vec[0], lbl(', '), ui.vec[1], lbl(')'))),
    ]);
    const back = section('side back', 'The score from the shadow', 'Back to the score', [
      display('a\\cdot b=|b|\\times\\operatorname{comp}_b a'),
      line(lbl('|b| \u00d7 shadow = '), ui.shadowTimesLength),
      h('p', { class: 'explain' }, 'The score is how far a reaches along b, scaled by the length of b.'),
    ]);
    const numbers = h(
      'div',
      { class: 'numbers' },
      ui.coords,
      h('div', { class: 'sides' }, scalarSide, vectorSide, back),
    );
    body.append(predict, pairPresets(this, PRESETS), h('div', { class: 'layout sticky-figure' }, fig.element, numbers));
    this.#ui = ui;
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    const { na, nb } = showPair(this, ag, ui, a, b);
    if (nb === 0) {
      // No line through a zero b: no shadow at all.
      this.notShown([
        ui.scalarProjection,
        ui.cos,
        ui.angle,
        ui.shadowCosine,
        ...ui.unit,
        ...ui.vec,
        ui.shadowTimesLength,
      ]);
      setText(ui.direction, 'b is the zero vector: there is no line to cast a shadow on.');
      setAttr(this, 'data-shadow', 'undefined');
      this.#draw(a, b, null);
      return;
    }
    const s = ag.scalarProjection(a, b);
    this.show(ui.scalarProjection, s);
    const unit = ag.normalize(b).data;
    unit.forEach((u, i) => this.show(ui.unit[i], u));
    const proj = ag.vectorProjection(a, b).data;
    proj.forEach((x, i) => this.show(ui.vec[i], x));
    this.show(ui.shadowTimesLength, ag.dot([nb], [s]));
    const c = showAngle(this, ag, ui, a, b, na !== 0);
    if (c === null) this.notShown([ui.shadowCosine]);
    else this.show(ui.shadowCosine, ag.dot([na], [c]));
    // The sign of the shadow, read from the computed scalar projection.
    const where = WHERE[signOf(s)];
    setAttr(this, 'data-shadow', where);
    ui.direction.textContent = DIRECTION[where];
    this.#draw(a, b, [proj[0], proj[1]]);
  }

  #draw(a, b, proj) {
    const ui = this.#ui;
    const p = ui.fig.plane;
    ui.a.draw(a);
    ui.b.draw(b);
    showIf(proj, ui.lineThrough, ui.shadow, ui.foot);
    if (!proj) return showIf(false, ui.drop, ui.corner, ui.labelS);
    // Drawing only: the line through b, as the chord of the square plot.
    const len = Math.hypot(b[0], b[1]);
    const u = [b[0] / len, b[1] / len];
    ui.fig.chord(ui.lineThrough, b);
    setLine(p, ui.shadow, [0, 0], proj);
    setLine(p, ui.drop, a, proj);
    ui.foot.attr('cx', p.x(proj[0])).attr('cy', p.y(proj[1]));
    const dropVec = [a[0] - proj[0], a[1] - proj[1]];
    const dropLen = Math.hypot(...dropVec);
    showIf(dropLen > 0.3, ui.drop, ui.corner);
    if (dropLen > 0.3) {
      // A small right-angle mark at the foot, on a's side of the line.
      const sgn = Math.hypot(...proj) > 0.3 && proj[0] * u[0] + proj[1] * u[1] > 0 ? -1 : 1;
      const w = [dropVec[0] / dropLen, dropVec[1] / dropLen];
      rightAngle(p, ui.corner, proj, [sgn * u[0], sgn * u[1]], w, 0.3);
    }
    // The word "shadow" beside the middle of the highlighted segment, away from a.
    showIf(Math.hypot(...proj) > 1.5, ui.labelS);
    const n = (u[1] * a[0] - u[0] * a[1] >= 0 ? 1 : -1) * 0.55;
    placeLabel(p, ui.labelS, [proj[0] / 2 - n * u[1], proj[1] / 2 + n * u[0]], { away: 0, dx: 0 });
  }
}

defineWidget('ag-projection', AgProjection);
