// The plane figure of the vector chapters: arrows from the origin (with
// arrowheads), their labels placed just beyond the tips, handles the learner
// drags or moves with the arrow keys (draggablePoint), the angle arc between
// two vectors, lines across the plot. Built on plot.js (d3); drawing only:
// no number shown comes from here.
//
//   const fig = vectorFigure(this, { extent: 6, label: 'Vectors a and b; drag their tips', markers: 'arrow' });
//   const arc = fig.angleArc();                       // layers stack in the order they are first used
//   const a = fig.vector('a', { say: () => `a·b = ${dot.textContent}` });   // arrow, label, handle
//   const b = fig.vector('b', { say: () => `a·b = ${dot.textContent}` });
//   body.append(fig.element);
//   // render(): a.draw(state.a); b.draw(state.b); arc.draw(state.a, state.b);
import { select } from 'd3';
import { h } from './dom.js';
import { pair } from './format.js';
import { afterLayout } from './after-layout.js';
import { separateLabels, textBoxes } from './label-separation.js';
import { ARROWHEAD, arrowMarker, DOT, draggablePoint, HIT, plane } from './plot.js';
import { defineState, vector } from './state.js';

const ORIGIN = [0, 0];
/** Radii (px) of a handle raised over a coincident one (its hit circle) and of the ring shown beneath it. */
const HIT_STACKED = 9;
const DOT_RING = 11;
/** How far inside the plot (plot units) an arrow's label is kept, so that a tip at the edge keeps its label whole. */
const LABEL_INSIDE = 0.4;

/**
 * State fields for the 2-D vectors of a plane chapter, each within [-extent, extent]:
 * vectorFields({ a: [3, 4], b: [4, 3] }, 6) gives a and b with those defaults.
 */
export function vectorFields(defaults, extent) {
  return Object.fromEntries(
    Object.entries(defaults).map(([name, v]) => [name, vector({ length: 2, min: -extent, max: extent, default: v })]),
  );
}

/**
 * Puts the text `label` (d3 selection) just beyond the tip of v, `away` plot
 * units further along v, shifted by (dx, dy) pixels to centre the letter;
 * given `inside` (plot units), kept that far inside the plot.
 */
export function placeLabel(p, label, v, { away = 0.6, dx = -4, dy = 5, inside = null } = {}) {
  const len = Math.hypot(v[0], v[1]) || 1;
  const c = inside === null ? (z) => z : (z) => Math.max(-p.extent + inside, Math.min(p.extent - inside, z));
  label.attr('x', p.x(c(v[0] + (away * v[0]) / len)) + dx).attr('y', p.y(c(v[1] + (away * v[1]) / len)) + dy);
  // The arrow's direction in px (y down): where a collision moves the label (label-separation.js).
  label.attr('data-along', v[0] || v[1] ? `${v[0] / len},${-v[1] / len}` : null);
}

/** Sets a line (d3 selection) from `from` to `to`, in plot units. */
export function setLine(p, line, from, to) {
  line.attr('x1', p.x(from[0])).attr('y1', p.y(from[1])).attr('x2', p.x(to[0])).attr('y2', p.y(to[1]));
}

/**
 * Sets the path (d3 selection) to the mark of a right angle at `at`: the two sides of a small square of
 * `size` plot units along the unit directions u and w (the corner at + size·u + size·w), in plot units.
 */
export function rightAngle(p, path, at, u, w, size) {
  const pt = (q) => `${p.x(q[0])},${p.y(q[1])}`;
  const c1 = [at[0] + size * u[0], at[1] + size * u[1]];
  const c3 = [at[0] + size * w[0], at[1] + size * w[1]];
  path.attr('d', `M${pt(c1)} L${pt([c1[0] + size * w[0], c1[1] + size * w[1]])} L${pt(c3)}`);
}

/**
 * The angle from a to b the short way round, at the origin: its start, its
 * signed size and its middle (radians, counterclockwise), and whether both
 * vectors have a direction at all.
 */
export function angleBetween(a, b) {
  const ta = Math.atan2(a[1], a[0]);
  let delta = Math.atan2(b[1], b[0]) - ta;
  if (delta > Math.PI) delta -= 2 * Math.PI;
  if (delta < -Math.PI) delta += 2 * Math.PI;
  const visible = Math.hypot(...a) > 0 && Math.hypot(...b) > 0;
  return { start: ta, delta, mid: ta + delta / 2, visible };
}

/** Shows the d3 selections `sels` (visibility visible) when `on`, else hides them. */
export function showIf(on, ...sels) {
  for (const sel of sels) sel.attr('visibility', on ? 'visible' : 'hidden');
}

/** The state of a chapter on a pair a, b of 2-D vectors: the article's a = (3, 4) and b = (4, 3). */
export function pairState(extent) {
  return defineState({ version: 1, fields: vectorFields({ a: [3, 4], b: [4, 3] }, extent) });
}

/**
 * A vector figure in a new `<div class="figure">` (`element`), over a plane
 * (`plane`: svg, x, y, extent, layer) of [-extent, extent]². Arrowhead markers
 * get the ids `${markers}-${name}` and the classes `marker-${name}`.
 *
 * @param {import('./base.js').AgWidget} widget the chapter: handles read `widget.state[name]`
 *   and call `widget.setState({ [name]: value })` unless given their own get and set
 * @param {{ extent?: number, label: string, markers?: string, size?: number, margin?: number }} o
 */
export function vectorFigure(widget, { extent = 6, label: name, markers = 'arrow', size, margin } = {}) {
  const element = h('div', { class: 'figure' });
  const p = plane(element, { extent, label: name, size, margin });
  const urls = new Map();
  const handles = [];
  const arrowLines = [];
  let separating = false;
  let drawn = false; // a separation was scheduled before: the figure has been drawn

  /**
   * After this render: labels of the 'labels' layer that overlap are pulled apart (separateLabels), before the
   * figure is painted. After the first render, right after the next layout (after-layout.js): as the page opens,
   * many figures draw at once, and each separation in a microtask would lay the whole page out for its reads.
   * After later renders (a drag, a key), at the end of the task, so that what the task changed is settled
   * when it ends.
   */
  function scheduleSeparation() {
    if (separating) return;
    separating = true;
    const go = () => {
      separating = false;
      separate('labels');
    };
    if (drawn) queueMicrotask(go);
    else afterLayout(p.svg.node(), go);
    drawn = true;
  }

  /** Pulls the overlapping labels of `layer` apart, clear of the handles and the axes' numbers, inside the figure. */
  function separate(layer) {
    const node = p.layer(layer).node();
    const ticks = p.svg.select('g.axes').node();
    const { x, y, width, height } = p.svg.node().viewBox.baseVal;
    const bounds = width > 0 ? { x, y, width, height } : null;
    const clear = [...stackedBoxes(), ...headBoxes(), ...(ticks ? textBoxes(ticks, node) : [])];
    return separateLabels(node, clear, bounds);
  }

  /**
   * The boxes of the arrowheads drawn (the markers of plot.js: ARROWHEAD stroke widths long and wide, their tip
   * at the line's end), which labels must not cover.
   */
  function headBoxes() {
    return arrowLines.flatMap((line) => {
      const style = getComputedStyle(line);
      if (style.visibility === 'hidden' || style.display === 'none' || !line.isConnected) return [];
      const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => Number(line.getAttribute(a)));
      const len = Math.hypot(x2 - x1, y2 - y1);
      const head = ARROWHEAD * (parseFloat(style.strokeWidth) || 0);
      if (!(len > 0) || !(head > 0)) return [];
      const [cx, cy] = [x2 - ((x2 - x1) * head * 0.5) / len, y2 - ((y2 - y1) * head * 0.5) / len];
      const r = head * 0.4;
      return [{ x: cx - r, y: cy - r, width: 2 * r, height: 2 * r }];
    });
  }

  /** The boxes of the handles' dots (a ring round a dot where two coincide), which labels must not cover. */
  function stackedBoxes() {
    return handles
      .filter((hd) => hd.node.style.display !== 'none' && hd.node.getAttribute('visibility') !== 'hidden')
      .map((hd) => {
        const { e: x, f: y } = hd.node.transform.baseVal.consolidate()?.matrix ?? { e: 0, f: 0 };
        const r = (hd.node.matches('.stack-under') ? DOT_RING : DOT) + 2;
        return { x: x - r, y: y - r, width: 2 * r, height: 2 * r };
      });
  }

  /**
   * Keeps coincident handles grabbable: where a handle sits on a later one
   * (drawn above it), the earlier handle is raised with a small hit circle and
   * the later one shows a ring around it, so the centre takes the first and
   * the ring the second (q over k₁ at the same point).
   */
  function restack() {
    const at = handles.map((hd) => hd.node.getAttribute('transform'));
    handles.forEach((hd, i) => {
      const top = at.some((t, j) => j > i && t === at[i]);
      const under = at.some((t, j) => j < i && t === at[i]);
      const g = select(hd.node)
        .classed('stack-top', top)
        .classed('stack-under', under && !top);
      g.select('circle.hit').attr('r', top ? HIT_STACKED : HIT);
      g.select('circle.dot').attr('r', under && !top ? DOT_RING : DOT);
      if (top) g.raise();
    });
  }

  /** The url() of the arrowhead marker `name` (made once). */
  function marker(name) {
    if (!urls.has(name)) urls.set(name, arrowMarker(p.svg, `${markers}-${name}`, `marker-${name}`));
    return urls.get(name);
  }

  /**
   * A `<text class=className>` in layer `layer` (default 'labels'), with text-anchor `anchor` if given;
   * with `sub`, the text is `<tspan>text</tspan><tspan class="sub" dy="5">sub</tspan>` (v₁ in SVG).
   */
  function label(text, { className, anchor, layer = 'labels', sub } = {}) {
    const t = p.layer(layer).append('text').attr('class', className);
    if (anchor) t.attr('text-anchor', anchor);
    if (sub === undefined) return t.text(text);
    t.append('tspan').text(text);
    t.append('tspan').attr('class', 'sub').attr('dy', 5).text(sub);
    return t;
  }

  /**
   * An arrow `line.vec.vec-<name>` in layer `layer` (default 'arrows') with
   * the marker `marker` (default name), and its label `text.vec-label.label-<name>`
   * in `labelLayer` (default 'labels'; `text: null` for none). `draw(tip, from)`
   * places both; the label goes beyond the tip unless `away` is null, kept `inside` plot units
   * inside the plot (default 0.4; null: not kept).
   */
  function arrow(
    name,
    {
      text = name,
      marker: m = name,
      layer = 'arrows',
      labelLayer = 'labels',
      className = `vec vec-${name}`,
      labelClass = `vec-label label-${name}`,
      anchor,
      away = 0.6,
      dx = -4,
      dy = 5,
      inside = LABEL_INSIDE,
    } = {},
  ) {
    const line = p.layer(layer).append('line').attr('class', className).attr('marker-end', marker(m));
    arrowLines.push(line.node());
    const labelEl = text === null ? null : label(text, { className: labelClass, anchor, layer: labelLayer });
    return {
      line,
      label: labelEl,
      draw(tip, from = ORIGIN) {
        setLine(p, line, from, tip);
        if (labelEl && away !== null) placeLabel(p, labelEl, tip, { away, dx, dy, inside });
        if (labelEl) scheduleSeparation();
      },
    };
  }

  /**
   * A handle at the tip of state field `name` (a 2-D vector): Tab reaches it,
   * the arrow keys move it (Shift: bigger steps), the pointer drags it. Its
   * aria-valuetext is `${title} = (x, y)`; after a move the live region reads
   * that and `say()` (the numbers that changed). Other draggablePoint options
   * (get, set, step, describe, announce, className) pass through.
   */
  function handle(name, { title = name, say, ...rest } = {}) {
    const describe = rest.describe ?? ((v) => `${title} = ${pair(v)}`);
    const point = draggablePoint({
      plane: p,
      layer: p.layer('handles'),
      name,
      className: `handle-${name}`,
      get: () => widget.state[name],
      set: (value) => widget.setState({ [name]: value }),
      announce: say ? (v) => `${describe(v)}; ${say()}` : describe,
      ...rest,
      describe,
    });
    return track(point);
  }

  /** Adds a handle to the figure's list: its update() also restacks coincident handles. */
  function track(point) {
    const tracked = {
      node: point.node,
      update() {
        point.update();
        restack();
      },
    };
    handles.push(tracked);
    return tracked;
  }

  /** An arrow from the origin with a handle at its tip; `draw(tip)` also moves the handle. */
  function vector(name, { text, marker: m, labelClass, anchor, away, dx, dy, inside, ...handleOptions } = {}) {
    const a = arrow(name, { text, marker: m, labelClass, anchor, away, dx, dy, inside });
    const point = handle(name, { title: text ?? name, ...handleOptions });
    return {
      ...a,
      handle: point,
      draw(tip) {
        a.draw(tip);
        point.update();
      },
    };
  }

  /**
   * Handles for the rows of the matrix field `field` (the values v₁..v_T), named
   * `${prefix}1`, `${prefix}2`, ...: `sync(rows)` makes or removes handles to match
   * the rows and moves them. `onAdd(j)` makes what goes with row j (an arrow, a
   * label) before its handle, and returns it; `onRemove(it)` removes it again.
   * `say(j)` is read after a move, after "v1 = (x, y); ". Returns the list of
   * `{ handle, extra }` too.
   */
  function rowHandles(field, { prefix = 'v', className = `handle-${prefix}`, say, onAdd = () => null, onRemove }) {
    const list = [];
    function sync(rows) {
      while (list.length < rows.length) {
        const j = list.length;
        const extra = onAdd(j);
        const point = draggablePoint({
          plane: p,
          layer: p.layer('handles'),
          name: `${prefix}${j + 1}`,
          className,
          get: () => widget.state[field][j] ?? [0, 0],
          set: (value) => {
            const next = widget.state[field];
            if (j >= next.length) return;
            next[j] = value;
            widget.setState({ [field]: next });
          },
          describe: (v) => `${prefix}${j + 1} = ${pair(v)}`,
          announce: (v) => `${prefix}${j + 1} = ${pair(v)}; ${say(j)}`,
        });
        list.push({ handle: track(point), extra });
      }
      while (list.length > rows.length) {
        const { handle: point, extra } = list.pop();
        point.node.remove();
        handles.splice(handles.indexOf(point), 1);
        onRemove?.(extra);
      }
      for (const { handle: point } of list) point.update();
    }
    return { list, sync };
  }

  /**
   * The arc `path.angle-arc` of the angle from a to b at the origin, radius
   * `radius` plot units, hidden when either vector is zero. `draw(a, b)`
   * returns angleBetween(a, b), to place a θ beside it.
   */
  function angleArc({ radius = 1.2, layer = 'angle', className = 'angle-arc' } = {}) {
    const path = p.layer(layer).append('path').attr('class', className);
    return {
      path,
      draw(a, b) {
        const angle = angleBetween(a, b);
        const o = [p.x(0), p.y(0)];
        const r = p.x(radius) - p.x(0);
        const end = angle.start + angle.delta;
        const sweep = angle.delta > 0 ? 0 : 1; // screen y points down
        path
          .attr('visibility', angle.visible ? 'visible' : 'hidden')
          .attr(
            'd',
            `M${o[0] + r * Math.cos(angle.start)},${o[1] - r * Math.sin(angle.start)} A${r},${r} 0 0 ${sweep} ${o[0] + r * Math.cos(end)},${o[1] - r * Math.sin(end)}`,
          );
        return angle;
      },
    };
  }

  /** Sets `line` to the chord of the plot square through the origin along `dir` (any length but 0). */
  function chord(line, dir) {
    const len = Math.hypot(dir[0], dir[1]);
    const u = [dir[0] / len, dir[1] / len];
    const t = p.extent / Math.max(Math.abs(u[0]), Math.abs(u[1]));
    setLine(p, line, [-t * u[0], -t * u[1]], [t * u[0], t * u[1]]);
  }

  /** A clipPath `id` of the plot square (for lines that may run past it); returns its url(). */
  function clipSquare(id) {
    let defs = p.svg.select('defs');
    if (defs.empty()) defs = p.svg.insert('defs', ':first-child');
    defs
      .append('clipPath')
      .attr('id', id)
      .append('rect')
      .attr('x', p.x(-extent))
      .attr('y', p.y(extent))
      .attr('width', p.x(extent) - p.x(-extent))
      .attr('height', p.y(-extent) - p.y(extent));
    return `url(#${id})`;
  }

  return {
    element,
    plane: p,
    svg: p.svg,
    node: p.svg.node(),
    layer: (name) => p.layer(name),
    marker,
    label,
    arrow,
    handle,
    vector,
    rowHandles,
    angleArc,
    chord,
    clipSquare,
    /** Pulls overlapping labels of a layer apart now (for 'labels', it also happens after each arrow's draw). */
    separateLabels: (layer = 'labels') => separate(layer),
    /** Moves every handle made so far to its field's value. */
    updateHandles: () => handles.forEach((hd) => hd.update()),
  };
}
