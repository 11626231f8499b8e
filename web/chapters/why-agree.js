// <ag-why-agree>: chapter 3, "Why they agree". The triangle a, b, a − b and the
// law-of-cosines proof with the current numbers: |a − b|² from the lengths and
// the angle and from expanding (a − b)·(a − b) forces a·b = |a||b| cos θ.
// Numbers: ag.squaredDistance, ag.squaredNorm, ag.norm, ag.cosine, ag.angle,
// ag.dot (also products and signed sums of results), ag.weightedSum (a − b).
//
//   <ag-why-agree a="3,4" b="4,3"></ag-why-agree>
import { AgWidget, defineWidget } from '../widget/base.js';
import { lbl, line, num, nums, section, signedTerm } from '../widget/controls.js';
import { h, setText } from '../widget/dom.js';
import { fmt, pair } from '../widget/format.js';
import { display } from '../widget/math.js';
import { pairPresets, pairSlots, showAngle } from '../widget/pair-numbers.js';
import { choices } from '../widget/predict.js';
import { pairState, placeLabel, showIf, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;
const PRESETS = [
  { id: 'right', label: 'Right angle', a: [3, 4], b: [-4, 3] },
  { id: 'obtuse', label: 'Obtuse', a: [4, 1], b: [-3, 2] },
  { id: 'thin', label: 'Nearly parallel', a: [5, 2], b: [2, 1] },
];

export class AgWhyAgree extends AgWidget {
  static title = 'Why they agree';
  static styles = ['styles/why-agree.css'];
  static stateDecl = pairState(EXTENT);

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'right-angle-side',
      question:
        'Keep a = (3, 4) and turn b to (\u22124, 3), a right angle from a. Here |a|\u00b2 + |b|\u00b2 = 50. Will the third side squared, |a \u2212 b|\u00b2, be less than 50, exactly 50, or more?',
      choices: choices({ less: 'Less than 50', equal: 'Exactly 50', more: 'More than 50' }),
      misconceptions: {
        less: 'That is the acute case: the third side is shorter than Pythagoras allows only when cos \u03b8 > 0, so that \u22122|a||b| cos \u03b8 subtracts.',
        more: 'That is the obtuse case: the third side grows past Pythagoras only when cos \u03b8 < 0, so that \u22122|a||b| cos \u03b8 adds; at a right angle the term is zero.',
      },
      reveal: (_choice, ag) => {
        const a = [3, 4];
        const b = [-4, 3];
        this.setState({ a, b });
        const side = ag.squaredDistance(a, b);
        const sum = ag.dot([ag.squaredNorm(a), ag.squaredNorm(b)], [1, 1]);
        return {
          answer: side < sum ? 'less' : side > sum ? 'more' : 'equal',
          explanation: `The module computed |a \u2212 b|\u00b2 = ${fmt(side)} and |a|\u00b2 + |b|\u00b2 = ${fmt(sum)}. At a right angle cos \u03b8 = 0, the correction term 2|a||b| cos \u03b8 vanishes, and the law of cosines becomes Pythagoras.`,
        };
      },
    });

    const ui = {
      ...pairSlots(),
      diff: nums('difference', 2),
      side: num('side'),
      sqA: num('sq-norm', 'a'),
      sqB: num('sq-norm', 'b'),
      cos: num('cosine', 'angle-line'),
      cosSub: num('cosine', 'substituted'),
      sumLaw: num('sum-sq', 'law'),
      twiceGeo: num('twice-geometric'),
      law: num('law'),
      sqA2: num('sq-norm', 'a-expand'),
      sqB2: num('sq-norm', 'b-expand'),
      sumExpand: num('sum-sq', 'expand'),
      twiceDot: num('twice-dot'),
      expand: num('expand'),
      minusDot: num('minus-twice', 'dot'),
      minusGeo: num('minus-twice', 'geometric'),
      dotFinal: num('dot', 'final'),
      geometric: num('geometric'),
    };
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The triangle formed by a, b and a \u2212 b; drag the tips of a and b or use the arrow keys',
      markers: 'why-arrow',
    });
    const say = () => `|a \u2212 b|\u00b2 = ${ui.side.textContent}; a\u00b7b = ${ui.dotFinal.textContent}`;
    Object.assign(ui, {
      fig,
      fill: fig.layer('triangle').append('path').attr('class', 'triangle'),
      arc: fig.angleArc({ radius: 1.1 }),
      a: fig.vector('a', { say }),
      b: fig.vector('b', { say }),
      d: fig.arrow('d', { text: 'a \u2212 b', away: null, labelClass: 'vec-label label-d halo' }),
      labelT: fig.label('\u03b8', { className: 'vec-label label-theta', anchor: 'middle' }),
    });

    const measured = section('step measured', 'The third side, measured', '1. Measure the third side', [
      display('a-b=(a_1-b_1,\\;a_2-b_2)'),
      line(lbl('a \u2212 b = ('), ui.diff[0], lbl(', '), ui.diff[1], lbl(')')),
      line(lbl('|a \u2212 b|\u00b2 = '), h('strong', { class: 'result' }, ui.side)),
    ]);
    const law = section('step law', 'The law of cosines', '2. Lengths and the angle (law of cosines)', [
      display('|a-b|^2=|a|^2+|b|^2-2\\,|a|\\,|b|\\cos\\theta'),
      line(lbl('\u03b8 = '), ui.angle, lbl(', cos \u03b8 = '), ui.cos),
      line(
        '= ',
        ui.sqA,
        ' + ',
        ui.sqB,
        signedTerm('\u2212', '2 \u00d7 ', ui.normA, ' \u00d7 ', ui.normB, ' \u00d7 ', ui.cosSub),
      ),
      line('= ', ui.sumLaw, signedTerm('\u2212', ui.twiceGeo)),
      line(h('strong', { class: 'result' }, '= ', ui.law)),
    ]);
    const expand = section('step expand', 'The algebraic expansion', '3. Coordinates only (expand the square)', [
      display(
        '\\begin{aligned}|a-b|^2&=(a-b)\\cdot(a-b)\\\\&=a\\cdot a-2\\,a\\cdot b+b\\cdot b\\\\&=|a|^2-2\\,a\\cdot b+|b|^2\\end{aligned}',
      ),
      line('= ', ui.sqA2, signedTerm('\u2212', '2 \u00d7 ', ui.dot), ' + ', ui.sqB2),
      line('= ', ui.sumExpand, signedTerm('\u2212', ui.twiceDot)),
      line(h('strong', { class: 'result' }, '= ', ui.expand)),
    ]);
    const forced = section('step forced', 'The conclusion', '4. Both describe the same side', [
      h(
        'p',
        { class: 'explain' },
        'Set the two expressions equal. |a|\u00b2 + |b|\u00b2 is on both sides and cancels; what is left must match:',
      ),
      display('-2\\,a\\cdot b=-2\\,|a|\\,|b|\\cos\\theta'),
      line(ui.minusDot, lbl(' and '), ui.minusGeo),
      display('\\Longrightarrow\\quad a\\cdot b=|a|\\,|b|\\cos\\theta'),
      line(
        h('strong', { class: 'result' }, lbl('a\u00b7b = '), ui.dotFinal, lbl(', |a||b| cos \u03b8 = '), ui.geometric),
      ),
    ]);
    const numbers = h(
      'div',
      { class: 'numbers' },
      ui.coords,
      h('div', { class: 'steps' }, measured, law, expand, forced),
    );
    body.append(predict, pairPresets(this, PRESETS), h('div', { class: 'layout sticky-figure' }, fig.element, numbers));
    this.#ui = ui;
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    setText(ui.coords, `a = ${pair(a)}, b = ${pair(b)}`);

    // 1. The third side, straight from the coordinates.
    const d = ag.weightedSum([1, -1], [a, b]).data;
    this.show(ui.diff[0], d[0]);
    this.show(ui.diff[1], d[1]);
    this.show(ui.side, ag.squaredDistance(a, b));

    // 2. Law of cosines: lengths, the angle, and the products of results.
    const sa = ag.squaredNorm(a);
    const sb = ag.squaredNorm(b);
    const na = ag.norm(a);
    const nb = ag.norm(b);
    this.showAll(ui, { sqA: sa, sqB: sb, normA: na, normB: nb });
    const sum = ag.dot([sa, sb], [1, 1]);
    this.show(ui.sumLaw, sum);
    const nn = ag.dot([na], [nb]);
    // A zero vector has no direction: no angle, and |a||b| = 0 makes the term 0 anyway.
    const c = showAngle(this, ag, { cos: [ui.cos, ui.cosSub], angle: ui.angle }, a, b, na !== 0 && nb !== 0, 'cosine');
    const geometric = c === null ? nn : ag.dot([nn], [c]);
    const twiceGeo = ag.dot([2], [geometric]);
    this.showAll(ui, { twiceGeo, law: ag.dot([sa, sb, twiceGeo], [1, 1, -1]) });

    // 3. The expansion: only coordinates, through a·b.
    const dot = ag.dot(a, b);
    this.showAll(ui, { sqA2: sa, sqB2: sb, dot, sumExpand: sum });
    const twiceDot = ag.dot([2], [dot]);
    this.showAll(ui, { twiceDot, expand: ag.dot([sa, twiceDot, sb], [1, -1, 1]) });

    // 4. What is left after cancelling.
    this.showAll(ui, { minusDot: ag.dot([-2], [dot]), minusGeo: ag.dot([-2], [geometric]), dotFinal: dot, geometric });

    this.#draw(a, b);
  }

  #draw(a, b) {
    const { fig, fill, arc, d, labelT } = this.#ui;
    const p = fig.plane;
    fill.attr('d', `M${p.x(0)},${p.y(0)} L${p.x(a[0])},${p.y(a[1])} L${p.x(b[0])},${p.y(b[1])} Z`);
    this.#ui.a.draw(a);
    this.#ui.b.draw(b);
    d.draw(a, b);
    // The label of a − b: beside the midpoint of the third side, away from the origin.
    const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
    const side = [a[0] - b[0], a[1] - b[1]];
    const sideLen = Math.hypot(...side);
    let nrm = sideLen > 0 ? [-side[1] / sideLen, side[0] / sideLen] : [0, 1];
    if (nrm[0] * mid[0] + nrm[1] * mid[1] < 0) nrm = [-nrm[0], -nrm[1]];
    showIf(sideLen > 0, d.label);
    // Where the normal points sideways, the text runs away from the figure (from its start on the
    // right, its end on the left), not across the labels of a and b beside the side's two ends;
    // where it points up or down, the text is centred. It stays inside the plot.
    const anchor = Math.abs(nrm[0]) < 0.5 ? 'middle' : nrm[0] > 0 ? 'start' : 'end';
    const width = d.label.node().getComputedTextLength?.() ?? 0;
    const [before, after] = { start: [0, width], middle: [width / 2, width / 2], end: [width, 0] }[anchor];
    const off = anchor === 'middle' ? 0.9 : 0.5; // plot units from the side: clear of it and of its arrowhead
    const x = p.x(mid[0] + off * nrm[0]) + { start: 2, middle: 0, end: -2 }[anchor];
    d.label
      .attr('text-anchor', anchor)
      .attr('x', Math.max(p.x(-p.extent) + before, Math.min(p.x(p.extent) - after, x)))
      .attr('y', p.y(mid[1] + off * nrm[1]) + 6)
      .attr('data-along', `${nrm[0]},${-nrm[1]}`); // a collision moves it further from the side
    // The angle θ at the origin (drawing only), its letter beside the arc.
    const angle = arc.draw(a, b);
    showIf(angle.visible, labelT);
    placeLabel(p, labelT, [1.75 * Math.cos(angle.mid), 1.75 * Math.sin(angle.mid)], { away: 0, dx: 0 });
  }
}

defineWidget('ag-why-agree', AgWhyAgree);
