// <ag-convex-hull>: part 2, chapter 2, "A convex combination stays in the
// hull". T draggable 2-D values v₁..v_T (T from 2 to 8) and their convex hull;
// weights from sliders, or for T = 3 from a point dragged in the weight
// simplex (its barycentric coordinates are the weights). Two buttons break one
// constraint at a time: a negative weight (sum still 1) or a sum of 2.
// Numbers: ag.weightedSum (y), ag.dot (Σαⱼ as α·1). Whether y lies in the hull
// is decided on the drawing (d3.polygonContains), a yes or no, not a number.
//
//   <ag-convex-hull values="-4,-2;4,-3;1,4" alpha="0.2,0.3,0.5"></ag-convex-hull>
import { select } from 'd3';
import { AgWidget, defineWidget } from '../widget/base.js';
import { inHull } from '../models/hull.js';
import { rowsFrom } from '../widget/state.js';
import { button, columns, lbl, num } from '../widget/controls.js';
import { h, setAttr, setFlag, setText } from '../widget/dom.js';
import { ownFigure } from '../widget/figure-layout.js';
import { fmt, pair, sub } from '../widget/format.js';
import { display } from '../widget/math.js';
import { draggablePoint } from '../widget/plot.js';
import { setLine, vectorFigure } from '../widget/vector-figure.js';
import {
  A_STEP,
  EXTENT,
  fitWeights,
  hullPath,
  pairLine,
  resizeValues,
  valueCount,
  valueMixState,
  valuePoints,
  weightSliders,
} from '../widget/value-set.js';

const A_MIN = -1;
const A_MAX = 2;
const SPOTS = rowsFrom('-4,-2;4,-3;1,4;-3,3;4,2;-1,-4;-5,0;2,-5');
/** Corners of the weight simplex in its picker (SVG units): αⱼ = 1 at corner j. */
const CORNERS = rowsFrom('22,150;178,150;100,18');

const round2 = (x) => Number((Math.round(x / A_STEP) * A_STEP).toFixed(2));
const alphaText = (alpha) => `(${alpha.map(fmt).join(', ')})`;
/** Equal weights for T values (convex), to two decimals with the rest on the last one. */
const evenWeights = (T) => {
  const even = Array.from({ length: T }, () => Math.floor(100 / T) / 100);
  even[T - 1] = Number((1 - even.slice(0, -1).reduce((s, a) => s + a, 0)).toFixed(2));
  return even;
};
/** A scale of the simplex picker (SVG units, y downwards) for draggablePoint, which takes y upwards. */
const scale = (k) => Object.assign((v) => k * v, { invert: (v) => k * v });

/** Barycentric coordinates of a picker point, clamped to the simplex and rounded to the slider step (the sum stays exactly 1). */
export function simplexWeights([px, py]) {
  const [[x1, y1], [x2, y2], [x3, y3]] = CORNERS;
  const det = (y2 - y3) * (x1 - x3) + (x3 - x2) * (y1 - y3);
  let l1 = ((y2 - y3) * (px - x3) + (x3 - x2) * (py - y3)) / det;
  let l2 = ((y3 - y1) * (px - x3) + (x1 - x3) * (py - y3)) / det;
  let l3 = 1 - l1 - l2;
  [l1, l2, l3] = [l1, l2, l3].map((l) => Math.max(0, l));
  const s = l1 + l2 + l3;
  const a1 = round2(l1 / s);
  const a2 = Math.min(round2(l2 / s), Number((1 - a1).toFixed(2)));
  return [a1, a2, Number((1 - a1 - a2).toFixed(2))];
}

export class AgConvexHull extends AgWidget {
  static title = 'A convex combination stays in the hull';
  static styles = ['styles/value-set.css', 'styles/convex-hull.css'];
  static stateDecl = valueMixState({ values: SPOTS.slice(0, 3), alpha: [0.2, 0.3, 0.5], min: A_MIN, max: A_MAX });

  #ui = null;
  /** The last weights that satisfied both constraints (the buttons break them from there). */
  #convex = [0.2, 0.3, 0.5];

  build(body) {
    // T and the two ways to break one constraint.
    const size = valueCount((delta) =>
      resizeValues(
        this,
        delta,
        SPOTS,
        (T) => ({ alpha: this.state.alpha.length === T ? this.state.alpha : evenWeights(T) }),
        (T) => `, weights ${alphaText(evenWeights(T))}`,
      ),
    );
    const convex = () => fitWeights(this.#convex, this.state.values.length);
    const breakTo = (alpha) => {
      this.setState({ alpha });
      this.announce(`weights ${alphaText(alpha)}; ${this.#ui.status.textContent}`);
    };
    const act = (action, label, fn) => button({ dataset: { action } }, label, fn);
    const breakRow = h(
      'div',
      { class: 'controls break', role: 'group', 'aria-label': 'Break one constraint at a time' },
      lbl('Break one constraint:'),
      act('negative', 'A negative weight', () => {
        const c = convex();
        const i = c.indexOf(Math.min(...c));
        const k = c.indexOf(Math.max(...c));
        const to = k === i ? (i + 1) % c.length : k;
        const next = c.slice();
        next[i] = Number((c[i] - 0.6).toFixed(2));
        next[to] = Number((next[to] + 0.6).toFixed(2));
        breakTo(next);
      }),
      act('double', 'Sum 2', () => breakTo(convex().map((a) => Number((2 * a).toFixed(2))))),
      act('restore', 'Back to convex', () => this.setState({ alpha: convex() })),
    );

    // The plane: hull, values (draggable), y.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The values, their convex hull and the output y; drag the values or use the arrow keys',
    });
    const hull = fig.layer('hull').append('path').attr('class', 'hull');
    const ray = fig.layer('ray').append('line').attr('class', 'ray');
    const ghost = fig.layer('ghost').append('circle').attr('class', 'ghost').attr('r', 6);
    fig.layer('labels');
    fig.layer('handles');
    const y = pairLine('y', 'y = ');
    const status = h('p', { class: 'status', dataset: { role: 'status' } });
    const points = valuePoints(fig, () => `y = ${y.text()}; ${status.textContent}`);
    const yDot = fig.layer('output').append('path').attr('class', 'y-dot').attr('d', 'M0,-8 L8,0 L0,8 L-8,0 Z');
    const yLabel = fig.label('y', { className: 'vec-label label-y', layer: 'output' });
    const predict = this.predict({
      id: 'negative-weight',
      question:
        'The weights (\u22120.5, 0.75, 0.75) still add up to 1, but one of them is negative. With the three values of the default triangle, where does y land? Drag the dashed ring on the figure (or click there, or move it with the arrow keys) to where you expect y, then commit.',
      point: { plane: fig.plane, name: 'y', radius: 0.75, start: [0, 0] },
      misconceptions: [
        {
          where: (guess) => inHull(guess, SPOTS.slice(0, 3)),
          text: 'That takes \u201cthe weights add up to 1\u201d as enough: a convex combination also needs every weight \u2265 0, and a negative weight pushes y away from its value, out of the hull.',
        },
      ],
      reveal: (_guess, ag) => {
        const values = SPOTS.slice(0, 3);
        const alpha = [-0.5, 0.75, 0.75];
        this.setState({ values, alpha });
        const y = Array.from(ag.weightedSum(alpha, values).data);
        return {
          value: y,
          explanation: `The module computed y = ${pair(y)}, ${inHull(y, values) ? 'inside' : 'outside'} the triangle. A negative weight pushes y away from that value, past the far edge: the sum alone does not keep y in the hull.`,
        };
      },
    });

    const weights = weightSliders(this, {
      id: 'ch-alpha',
      min: A_MIN,
      max: A_MAX,
      legend: 'Weights (free: from \u22121 to 2)',
      say: () => status.textContent,
    });

    // The simplex picker (T = 3): the triangle of all convex weights.
    const simplexBox = h('div', { class: 'simplex-box' });
    const sx = ownFigure(simplexBox, {
      className: 'simplex',
      width: 200,
      height: 172,
      role: 'group',
      label:
        'The weight simplex: every point of the triangle is one choice of three weights that are non-negative and sum to 1',
    });
    sx.append('path')
      .attr('class', 'simplex-tri')
      .attr('d', `M${CORNERS.map((c) => c.join(',')).join(' L')} Z`);
    rowsFrom('-14,17;-26,17;10,4').forEach(([dx, dy], j) =>
      sx
        .append('text')
        .attr('class', 'corner')
        .attr('x', CORNERS[j][0] + dx)
        .attr('y', CORNERS[j][1] + dy)
        .text(`\u03b1${sub(j + 1)} = 1`),
    );
    // The point at the weights (clamped at 0) in the picker, y upwards as draggablePoint takes it.
    const at = () => {
      const a = fitWeights(this.state.alpha, 3).map((x) => Math.max(0, x));
      const tot = a[0] + a[1] + a[2] || 1;
      const [px, py] = [0, 1].map((i) => CORNERS.reduce((acc, c, j) => acc + (a[j] / tot) * c[i], 0));
      return [px, -py];
    };
    const pick = draggablePoint({
      plane: { svg: sx, x: scale(1), y: scale(-1), extent: Infinity },
      layer: sx,
      name: 'simplex',
      className: 'handle-simplex',
      get: at,
      set: ([px, py]) => this.setState({ alpha: simplexWeights([px, -py]) }),
      step: 8,
      bigStep: 30,
      describe: () => `weights ${alphaText(this.state.alpha)}`,
      announce: () => `weights ${alphaText(this.state.alpha)}; y = ${y.text()}`,
    });
    const pickNode = select(pick.node).attr('aria-label', 'weights on the simplex');
    const simplexNote = h('p', { class: 'simplex-note' });
    const simplex = h(
      'div',
      { class: 'simplex-panel' },
      h('p', { class: 'simplex-title' }, 'Pick three weights on the simplex'),
      simplexBox,
      simplexNote,
    );

    // Numbers and the constraints.
    const sum = num('sum');
    const checkNonneg = h('li', { class: 'check', dataset: { check: 'nonneg' } });
    const checkSum = h('li', { class: 'check', dataset: { check: 'sum' } });
    const small = (text) => h('p', { class: 'lbl small' }, text);
    const numbers = h(
      'div',
      { class: 'numbers' },
      display('y=\\sum_{j=1}^{T}\\alpha_j v_j'),
      small('Convex when both constraints hold:'),
      display('\\alpha_j\\ge 0\\quad(j=1,\\dots,T)'),
      display('\\sum_{j=1}^{T}\\alpha_j=1'),
      small('and then y lies in the convex hull of the values, the set of all such mixtures:'),
      display('y\\in\\operatorname{conv}\\{v_1,\\dots,v_T\\}'),
      display('\\operatorname{conv}\\{v_1,\\dots,v_T\\}=\\Big\\{\\textstyle\\sum_{j}\\alpha_j v_j\\Big\\}'),
      small('taken over all weights \u03b1 that meet both constraints.'),
      h('ul', { class: 'checks' }, checkNonneg, checkSum),
      y.element,
      status,
    );

    body.append(predict, size.row, breakRow, columns(fig.element, [numbers, simplex, weights.element]));
    this.#ui = { p: fig.plane, points, hull, ray, ghost, yDot, yLabel, weights, size, y: y.els, sum, status };
    Object.assign(this.#ui, { checkNonneg, checkSum, simplex, simplexNote, pick, pickNode });
  }

  syncControls(state) {
    this.#ui.weights.sync(state);
    this.#ui.size.sync(state.values.length);
    setFlag(this.#ui.simplex, 'hidden', state.values.length !== 3);
  }

  render(ag, { values, alpha: given }) {
    const ui = this.#ui;
    const T = values.length;
    const alpha = fitWeights(given, T);
    const mix = (w) => Array.from(ag.weightedSum(w, values).data);
    const y = mix(alpha);
    ui.y.forEach((el, i) => this.show(el, y[i]));
    const s = ag.dot(alpha, new Array(T).fill(1));
    this.show(ui.sum, s);
    const sumOne = Math.abs(s - 1) <= 1e-6;
    const negatives = alpha.map((a, j) => [a, j]).filter(([a]) => a < 0);
    const nonneg = negatives.length === 0;
    if (nonneg && sumOne) this.#convex = alpha.slice();
    const check = (li, ok, ...parts) => {
      li.replaceChildren(h('span', { class: 'mark', 'aria-hidden': 'true' }, ok ? '\u2713' : '\u2717'), ...parts);
      setAttr(li, 'data-ok', String(ok));
    };
    const broken = (...text) => h('span', { class: 'broken' }, ...text);
    const below = negatives.map(([a, j]) => `\u03b1${sub(j + 1)} = ${fmt(a)}`).join(', ');
    check(
      ui.checkNonneg,
      nonneg,
      ' Non-negative: ',
      nonneg ? 'every \u03b1\u2c7c \u2265 0' : broken(below, ' < 0 (broken)'),
    );
    check(ui.checkSum, sumOne, ' Sum: \u03a3\u03b1\u2c7c = ', ui.sum, sumOne ? '' : broken(' \u2260 1 (broken)'));

    const inside = inHull(y, values);
    const onFigure = Math.abs(y[0]) <= EXTENT && Math.abs(y[1]) <= EXTENT;
    const where = `y is ${inside ? 'inside the hull' : 'outside the hull'}${onFigure ? '' : ' (beyond the edge of the figure)'}`;
    let text;
    if (nonneg && sumOne) text = `Both constraints hold: y is a convex combination, and ${where}.`;
    else if (!nonneg && sumOne)
      text = `Only non-negativity is broken (the sum is still 1): ${where}. A negative weight pushes y away from its value, and can push it past the hull\u2019s edge.`;
    else if (nonneg && !sumOne)
      text = `Only the sum is broken: y is ${fmt(s)} times the convex mixture with the same proportions (hollow dot), stretched along the line from the origin; ${where}.`;
    else text = `Both constraints are broken: ${where}.`;
    setText(ui.status, text);
    setAttr(ui.status, 'data-inside', String(inside));
    setAttr(
      ui.status,
      'data-broken',
      [nonneg ? '' : 'nonneg', sumOne ? '' : 'sum'].filter(Boolean).join(' ') || 'none',
    );

    // The simplex point (T = 3): where the weights sit in the triangle, hollow when they are not convex.
    if (T === 3) {
      ui.pickNode.attr('visibility', 'visible').classed('is-off', !(nonneg && sumOne));
      ui.pick.update();
      setText(
        ui.simplexNote,
        nonneg && sumOne
          ? `\u03b1 = ${alphaText(alpha)}: the point\u2019s barycentric coordinates.`
          : `\u03b1 = ${alphaText(alpha)} is off the simplex; drag the point (or press an arrow key) to come back onto it.`,
      );
    }
    // The convex mixture with the same proportions, when only the sum is off (a drawing).
    const ghostAt = !sumOne && nonneg && s > 0 ? mix(alpha.map((x) => x / s)) : null;
    this.#draw(values, y, ghostAt);
  }

  #draw(values, y, ghostAt) {
    const ui = this.#ui;
    const { p } = ui;
    ui.points.sync(values);
    ui.hull.attr('d', hullPath(p, values));
    ui.yDot.attr('transform', `translate(${p.x(y[0])},${p.y(y[1])})`);
    const clamp = (t) => Math.max(-EXTENT + 0.4, Math.min(EXTENT - 0.4, t));
    ui.yLabel.attr('x', p.x(clamp(y[0])) + 10).attr('y', p.y(clamp(y[1])) + 18);
    ui.ghost.attr('visibility', ghostAt ? 'visible' : 'hidden');
    ui.ray.attr('visibility', ghostAt ? 'visible' : 'hidden');
    if (ghostAt) {
      ui.ghost.attr('cx', p.x(ghostAt[0])).attr('cy', p.y(ghostAt[1]));
      setLine(p, ui.ray, [0, 0], y);
    }
  }
}

defineWidget('ag-convex-hull', AgConvexHull);
