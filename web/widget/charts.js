// The d3 charts the chapters draw: a figure holding a plot, its scales and
// axes, a histogram with a density curve (its bars: bars.js), log-log plots
// with a reference line, dots and curves, a legend, and a chart whose x the
// learner picks (pointer or keys). Drawing only:
// the numbers come from the widget (results of wasm calls or measurements),
// and nothing here writes a number as data.
//
// A chart's geometry is a box { width, height, m: { l, r, t, b } } (the
// viewBox and the margins around the plotting area).
import { axisBottom, axisLeft, line, pointer, scaleBand, scaleLinear, scaleLog, select } from 'd3';
import { arrowKeys } from './arrow-keys.js';
import { bars, bins } from './bars.js';
import { h, svg } from './dom.js';
import { ownLayout } from './figure-layout.js';

/**
 * A <figure class="fig {cls}"> with an <svg class="plot"> (role img, laid
 * out on its own) and, unless `caption` is undefined, a <figcaption>.
 * @returns {{ fig: HTMLElement, s: d3.Selection, caption: HTMLElement|null }}
 */
export function chartFigure(cls, { box, label, caption, svgClass = 'plot' }) {
  const fig = h('figure', { class: `fig ${cls}` });
  const s = select(fig).append(() =>
    svg('svg', { class: svgClass, viewBox: `0 0 ${box.width} ${box.height}`, role: 'img', 'aria-label': label }),
  );
  ownLayout(s);
  const cap = caption === undefined ? null : h('figcaption', {}, caption);
  if (cap) fig.append(cap);
  return { fig, s, caption: cap };
}

const scaleOf = (kind, domain, range) =>
  (kind === 'log2' ? scaleLog().base(2) : kind === 'log' ? scaleLog() : scaleLinear()).domain(domain).range(range);

/** The horizontal scale of `box` ('linear', 'log' or 'log2'). */
export const xScale = (box, domain, kind = 'linear') => scaleOf(kind, domain, [box.m.l, box.width - box.m.r]);

/** The vertical scale of `box` (upwards). */
export const yScale = (box, domain, kind = 'linear') => scaleOf(kind, domain, [box.height - box.m.b, box.m.t]);

/** A band scale: `domain` (one band each) over the pixels `range`, `padding` of a band between bands. */
export const bandScale = (domain, range, padding) => scaleBand().domain(domain).range(range).padding(padding);

/** Ticks: a count (with a d3 format specifier) or the values themselves (written with `format`, else as text). */
const ticked = (axis, ticks, format) =>
  Array.isArray(ticks) ? axis.tickValues(ticks).tickFormat(format ?? String) : axis.ticks(ticks, format);

/**
 * The two axes (g.axis) and their labels (text.axis-label): the x label at
 * the right end, over the axis (or at `xLabelY`), the y label at the top left.
 * Counted y ticks are written in plain decimals ('~r': 10, not 1e+1). A scale given as null has no
 * axis (one drawn once, the other again with its data); `tickSize` in pixels (d3's 6 by default).
 * @returns {{ x: d3.Selection|null, y: d3.Selection|null }} the two axes' groups (for moveAxes)
 */
export function axes(s, box, x, y, o = {}) {
  const { width: W, height: H, m } = box;
  const groups = { x: null, y: null };
  if (x) groups.x = draw(s, 'g', { class: 'axis', transform: `translate(0,${H - m.b})` });
  if (y) groups.y = draw(s, 'g', { class: 'axis', transform: `translate(${m.l},0)` });
  moveAxes(groups, x, y, o);
  if (o.xLabel) label(s, 'axis-label', o.xLabel, W - m.r, o.xLabelY ?? H - m.b - 6).attr('text-anchor', 'end');
  if (o.yLabel) label(s, 'axis-label', o.yLabel, m.l + 6, m.t + 10);
  return groups;
}

/**
 * Draws the axes that axes() made (`groups`, what it returned) again for the scales `x` and `y` (null leaves one
 * as it is), with the same options `o`: d3's axis joins the ticks it had, moving, adding and removing only what
 * the new domain changes, so that the figure holds what axes() would draw for these scales.
 */
export function moveAxes(groups, x, y, o = {}) {
  const size = o.tickSize ?? 6;
  if (x && groups.x) groups.x.call(ticked(axisBottom(x).tickSize(size), o.xTicks ?? 5, o.xFormat));
  if (y && groups.y)
    groups.y.call(
      ticked(axisLeft(y).tickSize(size), o.yTicks ?? 4, o.yFormat ?? (Array.isArray(o.yTicks) ? undefined : '~r')),
    );
}

/** A <text class={cls}> at (x, y). */
export function label(s, cls, text, x, y) {
  return s.append('text').attr('class', cls).attr('x', x).attr('y', y).text(text);
}

/**
 * A histogram of `counts` over [lo, hi) drawn as a density (count / (total ·
 * bin width)), with the curve (xs, ys) over it (path.density), cut at the
 * height the bars call for. Clears `s` first.
 */
export function densityHistogram(s, box, { lo, hi, counts, total, xs, ys, xLabel }) {
  const width = (hi - lo) / counts.length;
  const heights = Array.from(counts, (c) => c / (total * width));
  const finite = Array.from(ys).filter(Number.isFinite);
  const tallest = Math.max(...heights, 1e-9);
  const top = Math.max(...heights, ...finite.map((v) => Math.min(v, 2 * tallest))) * 1.08 || 1;
  const x = xScale(box, [lo, hi]);
  const y = yScale(box, [0, top]);
  s.selectAll('*').remove();
  bars(draw(s, 'g', { class: 'bars' }), null, heights, {
    x,
    y,
    ...bins(x, { lo, width }),
    value: (v) => Math.min(v, top),
  });
  const pts = Array.from(xs, (v, i) => [v, Math.min(ys[i], top)]).filter((p) => Number.isFinite(p[1]));
  curve({ s, x, y }, 'density', pts);
  axes(s, box, x, y, { xLabel });
  return { s, x, y };
}

/**
 * A log-log frame (x in base 2, y in base 10), cleared first, with its axes:
 * ticks at the values given, written as text unless a format is given.
 * @returns {{ s, x, y }} the frame for curve() and dots()
 */
export function logLogFrame(s, box, { x: xd, y: yd, ...o }) {
  s.selectAll('*').remove();
  const x = xScale(box, xd, 'log2');
  const y = yScale(box, yd, 'log');
  axes(s, box, x, y, o);
  return { s, x, y };
}

/** The path data of the line through `points` ([x, y] pairs) in the frame { x, y }; null for fewer than two points. */
const lineThrough = ({ x, y }, points) =>
  points.length > 1
    ? line()
        .x((p) => x(p[0]))
        .y((p) => y(p[1]))(points)
    : null;

/** A path of class `cls` through `points` ([x, y] pairs) in the frame { s, x, y }; empty for fewer than two points. */
export function curve(f, cls, points) {
  return f.s.append('path').attr('class', cls).attr('d', lineThrough(f, points));
}

/**
 * Makes the path of curve() (a d3 selection) go through `points` when it goes through the first `drawn` of them
 * already (in the same frame): only the segments to the new points are added to its data, the same text a new
 * curve() would have. Returns points.length, the points it now goes through.
 */
export function extendCurve(path, f, points, drawn) {
  if (drawn < 2 || drawn > points.length) path.attr('d', lineThrough(f, points));
  else if (drawn < points.length) {
    const tail = lineThrough(f, points.slice(drawn - 1)); // "M" the last point drawn, then "L" each new one
    path.attr('d', path.attr('d') + tail.slice(tail.indexOf('L')));
  }
  return points.length;
}

/** Dots (g.{cls} > circle) at `points` ([x, y] pairs) in the frame { s, x, y }. */
export function dots({ s, x, y }, cls, points, r = 3.5) {
  return s
    .append('g')
    .attr('class', cls)
    .selectAll('circle')
    .data(points)
    .join('circle')
    .attr('cx', (p) => x(p[0]))
    .attr('cy', (p) => y(p[1]))
    .attr('r', r);
}

/**
 * A legend (g.legend) at [x, y], one entry per [cls, text]: by default a column of dots
 * (circle.dot {cls}) with their words; with `across` (pixels from one entry to the next) a row
 * of short lines (line.{cls}), each entry in its own g.
 */
export function legend(s, [x, y], items, { across } = {}) {
  const g = draw(s, 'g', { class: 'legend', transform: `translate(${x},${y})` });
  items.forEach(([cls, text], i) => {
    if (across === undefined) {
      draw(g, 'circle', { class: `dot ${cls}`, cx: 4, cy: i * 15, r: 3.5 });
      draw(g, 'text', { x: 12, y: i * 15, dy: '0.35em' }).text(text);
      return;
    }
    const entry = draw(g, 'g', { transform: `translate(${i * across},0)` });
    draw(entry, 'line', { class: cls, x1: 0, x2: 18, y1: 0, y2: 0 });
    draw(entry, 'text', { x: 22, y: 4 }).text(text);
  });
  return g;
}

/** A measured series in the frame { s, x, y }: the line through its points (path.{line}) and their dots (g.{dots}). */
export function series(f, points, { line: lineClass, dots: dotsClass }) {
  if (lineClass) curve(f, lineClass, points);
  dots(f, dotsClass, points);
}

/** A chart's keys: Right and Up to larger values, Page Up and Page Down three at a time. */
const PICK_KEYS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 3, PageDown: -3 };

/**
 * A chart whose x the learner picks among `values` (on the scale `x`, between `from` and `to`
 * pixels; the nearest, the larger of two as near): dragging across it (mouse, pen, touch; the page does not scroll) or the keys (arrows one
 * step, Page Up/Down three, Home and End the ends) once it has focus. `pick(i)` is told the index
 * chosen; `say()` is called after a key and at the end of a drag that changed `index()`.
 */
export function pickAlong(s, { values, x, from, to, index, pick, say }) {
  const at = (event) => {
    const [px] = pointer(event, s.node());
    const p = Math.max(from, Math.min(to, px));
    const i = values.reduce((best, v, j) => (Math.abs(x(v) - p) <= Math.abs(x(values[best]) - p) ? j : best), 0);
    if (i !== index()) pick(i);
  };
  let before = null; // where a drag started: the end of a drag that changed it is said
  s.on('pointerdown', (event) => {
    event.preventDefault();
    s.node().setPointerCapture?.(event.pointerId);
    s.node().focus({ preventScroll: true });
    before = index();
    at(event);
    s.on('pointermove', at);
  });
  const stop = () => {
    s.on('pointermove', null);
    if (before !== null && before !== index()) say();
    before = null;
  };
  s.on('pointerup', stop).on('pointercancel', stop);
  const go = (j) => {
    if (j !== index()) pick(j);
    say();
  };
  arrowKeys(s.node(), { count: values.length, index, go, keys: PICK_KEYS });
}

/** Sets the attributes `values` (constants or functions of the datum) on the d3 selection `sel`. */
export function attrs(sel, values) {
  for (const [name, value] of Object.entries(values)) sel.attr(name, value);
  return sel;
}

/** Appends a <tag> with the attributes `values` to the d3 selection `parent`. */
export const draw = (parent, tag, values = {}) => attrs(parent.append(tag), values);

/**
 * The d3 data join of `data` to the <tag class="cls"> elements of `parent` (made, kept or removed as
 * the data change), with the class and the attributes `values` (a function class may add to `cls`).
 */
export const drawAll = (parent, tag, cls, data, values = {}) =>
  attrs(parent.selectAll(`${tag}.${cls}`).data(data).join(tag), { class: cls, ...values });
