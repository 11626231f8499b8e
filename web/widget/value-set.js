// The parts of the chapters on T value vectors (values, convex-hull, entropy):
// T from 2 to 8 vectors in the plane [-6, 6]², the state that holds them and
// their weights, the weight sliders, the "T = 3 values" row with its add and
// remove buttons, the rule that grows or shrinks the list, the table with a
// row per value, the line of y and the hull. Stylesheet: styles/value-set.css.
// No number shown comes from here.
import { polygonHull } from 'd3';
import { button, lbl, notDefined, nums, slider } from './controls.js';
import { h, setFlag, setText, symbol } from './dom.js';
import { fmt } from './format.js';
import { bodyRow, table } from './matrix-table.js';
import { defineState, matrix, vector } from './state.js';

/** The plane's half-width, and the fewest and most values. */
export const EXTENT = 6;
export const T_MIN = 2;
export const T_MAX = 8;
/** The step of a weight slider. */
export const A_STEP = 0.05;

/** alpha fitted to T entries (when T changes: a new value gets weight 0, a removed one takes its weight away). */
export function fitWeights(alpha, T) {
  return Array.from({ length: T }, (_, j) => alpha[j] ?? 0);
}

/**
 * One weight per value: alpha must have as many entries as values has rows
 * (alpha = 0.5,0.5 with four values would leave two values unweighted). The
 * weights go back to their default, and the values too when the default
 * weights do not fit their count either.
 */
export function weightProblems(values, alpha, defaultAlpha) {
  const T = values.length;
  if (alpha.length === T) return [];
  const problems = [
    { name: 'alpha', value: alpha.join(','), expected: `${T} weights, one per value (values has ${T} rows)` },
  ];
  if (defaultAlpha.length !== T) {
    problems.push({
      name: 'values',
      value: values.map((r) => r.join(',')).join(';'),
      expected: `${defaultAlpha.length} values (with the weights back to their default, the values go back to their default too)`,
    });
  }
  return problems;
}

/** The state field of T values (T_MIN to T_MAX rows of 2-D vectors within [-extent, extent]²). */
export const valuesField = (values, extent = EXTENT) =>
  matrix({ minRows: T_MIN, maxRows: T_MAX, cols: 2, min: -extent, max: extent, default: values });

/**
 * The state of a chapter on T values (2 to 8, each 2-D within the plane) and
 * their weights alpha in [min, max], one per value, with these defaults.
 */
export function valueMixState({ values, alpha, min, max }) {
  return defineState({
    version: 1,
    fields: {
      values: valuesField(values),
      alpha: vector({ minLength: T_MIN, maxLength: T_MAX, min, max, default: alpha }),
    },
    check: (state) => weightProblems(state.values, state.alpha, alpha),
  });
}

/**
 * The weight sliders of a chapter on T values: one per value, made for T_MAX
 * and hidden beyond T (`sync(state)` in syncControls). A move sets that weight
 * and announces it, then `say()` (what changed with it).
 */
export function weightSliders(widget, { id, min, max, legend, say }) {
  const sliders = Array.from({ length: T_MAX }, (_, j) =>
    slider({
      id: `${id}-${j + 1}`,
      min,
      max,
      step: A_STEP,
      dataset: { alpha: j + 1 },
      label: symbol('\u03b1', j + 1),
      labelClass: 'weight-label',
      outClass: 'alpha-value',
      rowClass: 'weight-row',
      onInput: (value) => {
        const alpha = fitWeights(widget.state.alpha, widget.state.values.length);
        alpha[j] = value;
        widget.setState({ alpha });
        widget.announce(`\u03b1${j + 1} = ${fmt(alpha[j])}; ${say()}`);
      },
    }),
  );
  const element = h(
    'fieldset',
    { class: 'weights' },
    h('legend', {}, legend),
    sliders.map((s) => s.row),
  );
  const sync = ({ values, alpha }) => {
    const T = values.length;
    const a = fitWeights(alpha, T);
    sliders.forEach((s, j) => {
      setFlag(s.row, 'hidden', j >= T);
      if (j < T) s.set(a[j], fmt(a[j]), `\u03b1${j + 1} = ${fmt(a[j])}`);
    });
  };
  return { element, sliders, sync };
}

/**
 * The row "T = 3 values" with the buttons that add and remove a value
 * (`resize(+1 or -1)`), then `extra` elements, as a labelled group (`row`);
 * `sync(T)` updates the count and the buttons.
 */
export function valueCount(resize, ...extra) {
  const count = h('span', { class: 'count' });
  const add = button({ dataset: { action: 'add' } }, 'Add a value', () => resize(1));
  const remove = button({ dataset: { action: 'remove' } }, 'Remove the last', () => resize(-1));
  const row = h(
    'div',
    { class: 'controls', role: 'group', 'aria-label': 'Number of values' },
    count,
    add,
    remove,
    ...extra,
  );
  const sync = (T) => {
    setText(count, `T = ${T} values`);
    setFlag(add, 'disabled', T >= T_MAX);
    setFlag(remove, 'disabled', T <= T_MIN);
  };
  return { row, count, add, remove, sync };
}

/**
 * The values after adding (delta = 1) or removing (delta = -1) the last one,
 * within T_MIN..T_MAX: a new value takes the next of `spots` (where values
 * appear, in order). @returns {number[][] | null} null when T cannot change
 */
export function resizedValues(values, delta, spots) {
  const T = Math.max(T_MIN, Math.min(T_MAX, values.length + delta));
  if (T === values.length) return null;
  return T > values.length ? [...values, spots[values.length]] : values.slice(0, T);
}

/**
 * Adds (delta = 1) or removes (delta = -1) the last value of `widget` (a new one at the next of
 * `spots`) with `patch(T)` (weights for the new T), and announces "T = … values" and `say(T)`.
 */
export function resizeValues(widget, delta, spots, patch = () => ({}), say = () => '') {
  const values = resizedValues(widget.state.values, delta, spots);
  if (!values) return;
  widget.setState({ values, ...patch(values.length) });
  widget.announce(`T = ${values.length} values${say(values.length)}`);
}

/**
 * A table with a row per value: T_MAX rows, row j headed j + 1 with the cells `cells(j)`, and a
 * caption for screen readers only; `sync(T)` hides the rows beyond T and empties their number slots.
 */
export function valueTable({ className, caption, headers, cells }) {
  const rows = Array.from({ length: T_MAX }, (_, j) => cells(j));
  const trs = rows.map((c, j) => bodyRow(String(j + 1), c));
  const element = table({ className, caption, headers, rows: trs });
  element.caption.className = 'visually-hidden';
  const sync = (T) =>
    trs.forEach((tr, j) => {
      setFlag(tr, 'hidden', j >= T);
      if (j >= T) notDefined(tr.querySelectorAll('.num'), '');
    });
  return { element, rows, sync };
}

/** The line `label`(x, y) of the two number slots of `role`; `text()` is "(x, y)" as shown. */
export function pairLine(role, label, className = 'line result') {
  const els = nums(role, 2);
  const element = h('p', { class: className }, lbl(label), '(', els[0], ', ', els[1], ')');
  return { els, element, text: () => `(${els[0].textContent}, ${els[1].textContent})` };
}

/** How far (plot units) a value's label sits from its point, and how far inside the plot it stays. */
const LABEL_AWAY = 0.85;
const LABEL_INSIDE = 0.45;

/** The path (d) round the convex hull of `values` on the plane `p`, or through them when they lie on a line. */
export function hullPath(p, values) {
  const hull = polygonHull(values);
  return `M${(hull ?? values).map((v) => `${p.x(v[0])},${p.y(v[1])}`).join(' L')}${hull ? ' Z' : ''}`;
}

/**
 * The values as draggable points on `fig` (its rowHandles of the field `values`), each labelled v_j;
 * `sync(values)` makes or removes them as T changes and places them and their labels. A label sits
 * on the side of its point away from the values' centroid, outside their hull, so that no edge of
 * the hull runs through it.
 */
export function valuePoints(fig, say) {
  const points = fig.rowHandles('values', {
    say,
    onAdd: (j) => fig.label('v', { className: 'vec-label label-v', sub: String(j + 1), anchor: 'middle' }),
    onRemove: (label) => label.remove(),
  });
  const p = fig.plane;
  const sync = (values) => {
    points.sync(values);
    const mean = [0, 1].map((i) => values.reduce((acc, v) => acc + v[i], 0) / values.length);
    values.forEach((v, j) => {
      const out = [v[0] - mean[0], v[1] - mean[1]];
      const len = Math.hypot(out[0], out[1]);
      const dir = len > 1e-9 ? [out[0] / len, out[1] / len] : [Math.SQRT1_2, Math.SQRT1_2];
      const c = (z) => Math.max(-p.extent + LABEL_INSIDE, Math.min(p.extent - LABEL_INSIDE, z));
      const at = [c(v[0] + LABEL_AWAY * dir[0]), c(v[1] + LABEL_AWAY * dir[1])];
      // data-along: a collision moves the label further from the centroid first (label-separation.js).
      points.list[j].extra
        .attr('x', p.x(at[0]))
        .attr('y', p.y(at[1]) + 4)
        .attr('data-along', `${dir[0]},${-dir[1]}`);
    });
    fig.separateLabels();
  };
  return { list: points.list, sync };
}
