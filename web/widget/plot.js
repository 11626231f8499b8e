// The few d3 set-ups that every 2-D figure repeats: a square plane with
// equal scales and axes through the origin, and draggable points that the
// keyboard can reach and whose new value is announced (live region,
// announce.js). Drawing itself is plain d3 in each widget.
import { axisBottom, axisLeft, drag, scaleLinear, select } from 'd3';
import { announceFrom } from './announce.js';
import { ownLayout } from './figure-layout.js';
import './d3-changes-only.js'; // d3 writes only what changes

/**
 * An SVG plane (viewBox, so it scales with its box) with x and y scales over
 * [-extent, extent] and axes through the origin.
 * @returns {{ svg, x, y, layer: (name) => d3 selection }}
 */
export function plane(container, { extent = 6, size = 320, margin = 16, label = 'Figure' } = {}) {
  const svg = select(container)
    .append('svg')
    .attr('class', 'plane')
    .attr('viewBox', `0 0 ${size} ${size}`)
    .attr('role', 'group')
    .attr('aria-label', label)
    .attr('data-extent', extent)
    .attr('data-margin', margin);
  ownLayout(svg);
  const x = scaleLinear()
    .domain([-extent, extent])
    .range([margin, size - margin]);
  const y = scaleLinear()
    .domain([-extent, extent])
    .range([size - margin, margin]);
  const ticks = Array.from({ length: 2 * extent + 1 }, (_, i) => i - extent).filter((t) => t !== 0);
  const grid = svg.append('g').attr('class', 'grid').attr('aria-hidden', 'true');
  // A line at every tick across the plane: vertical ones (gx) at x = t, horizontal ones (gy) at y = t.
  const scales = { x, y };
  for (const [cls, at, across] of [
    ['gx', 'x', 'y'],
    ['gy', 'y', 'x'],
  ]) {
    grid
      .selectAll(`line.${cls}`)
      .data(ticks)
      .join('line')
      .attr('class', cls)
      .attr(`${at}1`, scales[at])
      .attr(`${at}2`, scales[at])
      .attr(`${across}1`, scales[across](-extent))
      .attr(`${across}2`, scales[across](extent));
  }
  const axes = svg.append('g').attr('class', 'axes').attr('aria-hidden', 'true');
  const tickValues = ticks.filter((t) => t % 2 === 0);
  axes
    .append('g')
    .attr('transform', `translate(0,${y(0)})`)
    .call(axisBottom(x).tickValues(tickValues).tickSize(4));
  axes
    .append('g')
    .attr('transform', `translate(${x(0)},0)`)
    .call(axisLeft(y).tickValues(tickValues).tickSize(4));
  const layers = new Map();
  return {
    svg,
    x,
    y,
    extent,
    layer(name) {
      if (!layers.has(name)) layers.set(name, svg.append('g').attr('class', `layer-${name}`));
      return layers.get(name);
    },
  };
}

/** An arrowhead's length and width, in stroke widths of its line (the marker's size). */
export const ARROWHEAD = 7;

/** Adds an arrowhead marker (id unique within the shadow root) and returns its url(). */
export function arrowMarker(svg, id, className) {
  let defs = svg.select('defs');
  if (defs.empty()) defs = svg.insert('defs', ':first-child');
  defs
    .append('marker')
    .attr('id', id)
    .attr('class', className)
    .attr('viewBox', '0 0 10 10')
    .attr('refX', 9)
    .attr('refY', 5)
    .attr('markerWidth', ARROWHEAD)
    .attr('markerHeight', ARROWHEAD)
    .attr('orient', 'auto-start-reverse')
    .append('path')
    .attr('d', 'M0,0 L10,5 L0,10 z');
  return `url(#${id})`;
}

const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

/** Radii (px) of a handle's hit circle (what the pointer can grab) and of its visible dot. */
export const HIT = 18;
export const DOT = 7;

/**
 * A point the learner can drag (mouse, touch, pen) or move with the arrow
 * keys once it has focus (Tab reaches it; Shift + arrow takes a bigger step).
 * The plot has touch-action: none (widget CSS), so dragging does not scroll.
 * After each key step, and at the end of a drag that moved the point, the
 * text of `announce` (default: `describe`) is read through the widget's
 * polite live region; the handle's aria-valuetext always holds `describe`.
 *
 * @param {{ plane: ReturnType<typeof plane>, layer: d3 selection, name: string, className: string,
 *           get: () => [number, number], set: (p: [number, number], how: 'drag'|'key') => void,
 *           step?: number, bigStep?: number, snap?: number, describe: (p) => string,
 *           announce?: (p: [number, number]) => string }} o
 * @returns {{ node: SVGGElement, update: () => void }}
 */
export function draggablePoint({
  plane: p,
  layer,
  name,
  className,
  get,
  set,
  step = 0.25,
  bigStep = 1,
  snap = 0.25,
  describe,
  announce = describe,
}) {
  const clamp = (v) => Math.max(-p.extent, Math.min(p.extent, v));
  const round = (v) => Math.round(v / snap) * snap;
  const g = layer
    .append('g')
    .attr('class', `handle ${className}`)
    .attr('tabindex', 0)
    .attr('role', 'slider') // a 2-D handle; aria-valuetext carries both coordinates
    .attr('aria-roledescription', 'draggable point')
    .attr('aria-label', `point ${name}`)
    .attr('data-point', name);
  g.append('circle').attr('class', 'hit').attr('r', HIT);
  g.append('circle').attr('class', 'dot').attr('r', DOT);

  const move = (pt, how) => set([clamp(round(pt[0])), clamp(round(pt[1]))], how);
  const say = () => announceFrom(g.node(), announce(get()));
  let before = null; // where a drag started
  g.call(
    drag()
      .container(p.svg.node())
      .on('start', () => {
        before = get().join();
        g.classed('is-dragging', true);
      })
      .on('drag', (event) => {
        // d3-drag gives x, y in the container's coordinates for mouse, pen and
        // touch alike (a touch event has no clientX for d3.pointer to read).
        move([p.x.invert(event.x), p.y.invert(event.y)], 'drag');
      })
      .on('end', () => {
        g.classed('is-dragging', false);
        if (get().join() !== before) say();
      }),
  );
  g.on('keydown', (event) => {
    const d = KEYS[event.key];
    if (!d) return;
    event.preventDefault();
    const s = event.shiftKey ? bigStep : step;
    const [x0, y0] = get();
    move([x0 + d[0] * s, y0 + d[1] * s], 'key');
    say();
  });
  function update() {
    const [px, py] = get();
    g.attr('transform', `translate(${p.x(px)},${p.y(py)})`).attr('aria-valuetext', describe([px, py]));
  }
  update();
  return { node: g.node(), update };
}
