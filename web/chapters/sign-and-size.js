// <ag-sign-and-size>: chapter 5, "Sign and size". The plane split by b into the
// half-plane where a·b > 0, the zero line and the half-plane where a·b < 0; a's
// region named live. Then size: the same score from short, aligned vectors or
// long, poorly aligned ones. Numbers: ag.dot, ag.norm, ag.cosine, ag.angle.
//
//   <ag-sign-and-size a="3,4" b="4,3"></ag-sign-and-size>
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, lbl, line, num, section } from '../widget/controls.js';
import { h, markCurrent, setAttr, setText } from '../widget/dom.js';
import { deg, fmt, pair } from '../widget/format.js';
import { draw } from '../widget/charts.js';
import { pairPresets, pairSlots, showAngle, showPair, signOf } from '../widget/pair-numbers.js';
import { display } from '../widget/math.js';
import { choices } from '../widget/predict.js';
import { placeLabel, setLine, pairState, showIf, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;

/** The three readings, in the order of the list: id, angle, cosine, score, gloss. */
const READINGS = [
  ['positive', 'Acute angle, \u03b8 < 90\u00b0', 'cos \u03b8 > 0', 'a leans towards b: a related key'],
  [
    'zero',
    'Right angle, \u03b8 = 90\u00b0',
    'cos \u03b8 = 0',
    'a is perpendicular to b: unrelated, neither for nor against',
  ],
  ['negative', 'Obtuse angle, \u03b8 > 90\u00b0', 'cos \u03b8 < 0', 'a leans away from b: an opposed key'],
];

/** Two pairs with the same score 6: short and well aligned, long and poorly aligned. */
const SAME_SCORE = [
  { id: 'short', title: 'Short, well aligned', a: [1.5, 2], b: [2, 1.5] },
  { id: 'long', title: 'Long, poorly aligned', a: [6, 0], b: [1, 5] },
];

const PRESETS = [
  { id: 'right', label: 'On the zero line', a: [-3, 4], b: [4, 3] },
  { id: 'obtuse', label: 'Obtuse', a: [-4, -1], b: [4, 3] },
];

/**
 * Drawing only: the part of the square [-e, e]² where n·x >= 0 (one step of
 * Sutherland–Hodgman clipping), as a list of corners.
 */
function halfSquare(n, e) {
  const square = [-e, e, e, -e].map((x, i, xs) => [x, xs[(i + 3) % 4]]);
  const side = (q) => n[0] * q[0] + n[1] * q[1];
  const cross = (p, q) => {
    const t = side(p) / (side(p) - side(q));
    return [p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])];
  };
  return square.flatMap((cur, i) => {
    const prev = square[(i + 3) % 4];
    const [sc, sp] = [side(cur), side(prev)];
    if (sc >= 0) return sp < 0 ? [cross(prev, cur), cur] : [cur];
    return sp >= 0 ? [cross(prev, cur)] : [];
  });
}

/** Where a is, by the sign of its score (none: a or b is zero). */
const WHERE = {
  positive: 'in the positive half-plane: the angle is acute.',
  negative: 'in the negative half-plane: the angle is obtuse.',
  none: 'at the origin or b is zero: the score is 0, with no angle at all.',
  zero: 'on the zero line: the angle is a right angle.',
};

export class AgSignAndSize extends AgWidget {
  static title = 'Sign and size';
  static styles = ['styles/sign-and-size.css'];
  static stateDecl = pairState(EXTENT);

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'leaning-left',
      question:
        'b = (4, 3) points up and to the right. a = (\u22121, 3) leans to the left of the vertical axis. Will a\u00b7b be positive, zero or negative?',
      choices: choices({ positive: 'Positive', zero: 'Zero', negative: 'Negative' }),
      misconceptions: {
        zero: 'That takes the vertical axis as the dividing line: what separates positive from negative scores is the line through the origin perpendicular to b, and a is not on it.',
        negative:
          'That reads \u201cleans left\u201d as \u201cpoints away from b\u201d: the sign follows the angle between a and b, not the axes, and a is less than a right angle from b.',
      },
      reveal: (_choice, ag) => {
        const a = [-1, 3];
        const b = [4, 3];
        this.setState({ a, b });
        const d = ag.dot(a, b);
        return {
          answer: signOf(d),
          explanation: `The module computed a\u00b7b = ${fmt(d)} at an angle of ${deg(ag.angle(a, b))}. What decides the sign is the line perpendicular to b, not the axes: a is on b\u2019s side of it.`,
        };
      },
    });

    const fig = vectorFigure(this, {
      extent: EXTENT,
      label:
        'The plane split by b into positive and negative scores, with the zero line between; drag a and b or use the arrow keys',
      markers: 'sign-arrow',
    });
    const p = fig.plane;
    const defs = p.svg.insert('defs', ':first-child');
    const hatchPattern = { id: 'sign-hatch', class: 'hatch', patternUnits: 'userSpaceOnUse', width: 8, height: 8 };
    const pattern = draw(defs, 'pattern', { ...hatchPattern, patternTransform: 'rotate(45)' });
    draw(pattern, 'line', { x1: 0, y1: 0, x2: 0, y2: 8 });
    // Regions go under the grid and axes, so those stay readable.
    const regions = p.svg.insert('g', '.grid').attr('class', 'layer-regions');
    const positive = regions.append('path').attr('class', 'region region-positive');
    const negative = regions.append('path').attr('class', 'region region-negative');
    const hatch = regions.append('path').attr('class', 'region-hatch').attr('fill', 'url(#sign-hatch)');
    const zeroLine = fig.layer('zero').append('line').attr('class', 'zero-line');
    const regionLabel = (id, text) =>
      fig.label(text, { className: `region-label halo label-${id}`, anchor: 'middle', layer: 'region-labels' });
    const labelPos = regionLabel('positive', 'a\u00b7b > 0');
    const labelNeg = regionLabel('negative', 'a\u00b7b < 0');
    const labelZero = regionLabel('zero', 'a\u00b7b = 0');
    const say = () => this.#ui.status.textContent;
    const ui = {
      p,
      regions: { positive, negative, hatch, zeroLine, labelPos, labelNeg, labelZero },
      vecA: fig.vector('a', { say, labelClass: 'vec-label label-a halo' }),
      vecB: fig.vector('b', { say, labelClass: 'vec-label label-b halo' }),
      ...pairSlots(),
      product: num('norm-product'),
      regionName: h('strong', { class: 'region-name', dataset: { role: 'region' } }),
      status: h('p', { class: 'status', role: 'status' }),
      rows: new Map(),
      demo: new Map(),
    };

    const reading = h(
      'ol',
      { class: 'readings', 'aria-label': 'The three readings of a score' },
      READINGS.map(([id, angle, cos, gloss]) => {
        const text = [
          h('strong', {}, angle),
          ` \u2192 ${cos} \u2192 ${id} score. `,
          h('span', { class: 'gloss' }, `${gloss}.`),
        ];
        const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
        const li = h(
          'li',
          { class: `reading reading-${id}`, dataset: { reading: id } },
          swatch,
          h('span', { class: 'reading-text' }, text),
        );
        ui.rows.set(id, li);
        return li;
      }),
    );

    const live = section('panel live', 'Where a is now', 'Three readings of one sign', [
      display('a\\cdot b=\\underbrace{|a|\\,|b|}_{\\ge 0}\\,\\cos\\theta'),
      h(
        'p',
        { class: 'explain' },
        'Lengths are never negative, so the sign of a score is the sign of cos \u03b8. The line through the origin perpendicular to b splits the plane into the three cases:',
      ),
      reading,
      h('p', { class: 'where' }, 'a is ', ui.regionName),
      line(
        lbl('a\u00b7b = '),
        h('strong', { class: 'result' }, ui.dot),
        lbl(', \u03b8 = '),
        ui.angle,
        lbl(', cos \u03b8 = '),
        ui.cos,
      ),
      line(lbl('|a| = '), ui.normA, lbl(', |b| = '), ui.normB, lbl(', |a||b| = '), ui.product),
      ui.status,
    ]);

    // Size: the same score 6, two ways.
    const cards = SAME_SCORE.map((pairDef) => {
      const slot = (role) => num(`demo-${role}`, pairDef.id);
      const nums = { normA: slot('norm-a'), normB: slot('norm-b'), product: slot('product') };
      Object.assign(nums, { cos: slot('cosine'), angle: slot('angle'), score: slot('score') });
      ui.demo.set(pairDef.id, nums);
      const load = button({ class: 'load', dataset: { load: pairDef.id } }, 'Show in the plot', () =>
        this.setState({ a: pairDef.a, b: pairDef.b }),
      );
      return h(
        'div',
        { class: `card card-${pairDef.id}`, dataset: { pair: pairDef.id } },
        h('h4', {}, pairDef.title),
        h('p', { class: 'line coords-small' }, `a = ${pair(pairDef.a)}, b = ${pair(pairDef.b)}`),
        line(lbl('|a||b| = '), nums.normA, lbl(' \u00d7 '), nums.normB, lbl(' = '), nums.product),
        line(lbl('\u03b8 = '), nums.angle, lbl(', cos \u03b8 = '), nums.cos),
        line(lbl('a\u00b7b = '), h('strong', { class: 'result' }, nums.score)),
        load,
      );
    });
    const size = section('panel size', 'Same score, two ways', 'Same score, two ways', [
      h(
        'p',
        { class: 'explain' },
        'The size of a score mixes how long the vectors are with how well they line up. A big score alone does not say which:',
      ),
      h('div', { class: 'cards' }, cards),
    ]);

    const numbers = h('div', { class: 'numbers' }, ui.coords, live);
    body.append(
      predict,
      pairPresets(this, PRESETS),
      h('div', { class: 'layout sticky-figure' }, fig.element, numbers),
      size,
    );
    this.#ui = ui;
  }

  render(ag, { a, b }) {
    const ui = this.#ui;
    const { dot, na, nb } = showPair(this, ag, ui, a, b);
    this.show(ui.product, ag.dot([na], [nb]));
    const noAngle = showAngle(this, ag, ui, a, b, na !== 0 && nb !== 0) === null;
    // The region, read from the sign of the computed score.
    const region = signOf(dot);
    setAttr(this, 'data-region', region);
    for (const [id, li] of ui.rows) markCurrent(li, 'is-current', id === region);
    ui.regionName.textContent = WHERE[region === 'zero' && noAngle ? 'none' : region];
    setText(ui.status, `Score ${ui.dot.textContent}${noAngle ? '' : ` at ${ui.angle.textContent}`}: ${region}.`);

    for (const pairDef of SAME_SCORE) {
      const nums = ui.demo.get(pairDef.id);
      const pa = ag.norm(pairDef.a);
      const pb = ag.norm(pairDef.b);
      this.showAll(nums, { normA: pa, normB: pb, product: ag.dot([pa], [pb]) });
      showAngle(this, ag, nums, pairDef.a, pairDef.b, true);
      this.show(nums.score, ag.dot(pairDef.a, pairDef.b));
    }
    this.#draw(a, b);
  }

  #draw(a, b) {
    const ui = this.#ui;
    const { p } = ui;
    const e = p.extent;
    const path = (corners) =>
      corners.length ? `M${corners.map((q) => `${p.x(q[0])},${p.y(q[1])}`).join(' L')} Z` : '';
    const nb = Math.hypot(b[0], b[1]);
    const r = ui.regions;
    showIf(nb !== 0, ...Object.values(r));
    if (nb !== 0) {
      const neg = halfSquare([-b[0], -b[1]], e);
      r.positive.attr('d', path(halfSquare(b, e)));
      r.negative.attr('d', path(neg));
      r.hatch.attr('d', path(neg));
      // The zero line: through the origin, perpendicular to b, across the square.
      const u = [b[0] / nb, b[1] / nb];
      const w = [-u[1], u[0]];
      const tw = e / Math.max(Math.abs(w[0]), Math.abs(w[1]));
      setLine(p, r.zeroLine, [-tw * w[0], -tw * w[1]], [tw * w[0], tw * w[1]]);
      const tu = e / Math.max(Math.abs(u[0]), Math.abs(u[1]));
      // Region labels deep inside each half, a little off b's own line.
      const off = 1.3;
      const at = { away: 0, dx: 0 };
      placeLabel(p, r.labelPos, [0.62 * tu * u[0] - off * w[0], 0.62 * tu * u[1] - off * w[1]], at);
      placeLabel(p, r.labelNeg, [-0.62 * tu * u[0] - off * w[0], -0.62 * tu * u[1] - off * w[1]], at);
      // The zero line's label near one end, on the positive side, kept inside the plot.
      const z = [0.7 * tw * w[0] + 0.5 * u[0], 0.7 * tw * w[1] + 0.5 * u[1]];
      const angleDeg = (-Math.atan2(w[1], w[0]) * 180) / Math.PI;
      const upright = angleDeg > 90 ? angleDeg - 180 : angleDeg < -90 ? angleDeg + 180 : angleDeg;
      r.labelZero
        .attr('x', p.x(z[0]))
        .attr('y', p.y(z[1]))
        .attr('transform', `rotate(${upright},${p.x(z[0])},${p.y(z[1])})`);
    }
    ui.vecA.draw(a);
    ui.vecB.draw(b);
  }
}

defineWidget('ag-sign-and-size', AgSignAndSize);
