// The loss curve of a Part 4 training run (widget/training.js's updates): the training loss of every
// step (nats) against the step, and the held-out accuracy (0 to 1, its own axis on the right) as dots
// where it was measured. Drawing only: the numbers are the updates' (results of the worker's calls).
// `add(u)` keeps an update's points and `draw()` draws what was added since the last draw: the curve
// grows by the new steps' segments and the dots by the new measurements; the axes move (their ticks joined in
// place, the curve and the dots drawn again) only when the run's length changes or a loss rises above the top of
// the loss axis.
import { axisRight } from 'd3';
import {
  attrs,
  axes,
  chartFigure,
  curve,
  draw,
  drawAll,
  extendCurve,
  legend,
  moveAxes,
  xScale,
  yScale,
} from './charts.js';

const BOX = { width: 420, height: 230, m: { l: 44, r: 40, t: 40, b: 30 } };

/**
 * @param {HTMLElement} box where the figure goes
 * @param {{ label: string, caption?: string }} o the chart's aria-label (and caption)
 * @returns {{ fig: HTMLElement, svg: SVGSVGElement, add(u: object): void, draw(): void, reset(): void, points(): object }}
 */
export function lossChart(box, { label, caption }) {
  const { fig, s } = chartFigure('loss-chart', { box: BOX, label, caption });
  box.append(fig);
  let losses = []; // [step, loss]
  let accuracy = []; // [step, accuracy]
  let steps = 1;
  let top = 1; // the largest loss (at least 1)

  let frame = null; // the figure's parts and the domain drawn: { top, steps, s, x, y, a, axes, path, drawn, dots, dotted }
  const AXES = { xLabel: 'step', xTicks: 5, yTicks: 4 };

  /**
   * The axes, the legend and an empty curve for the domain [0, steps] x [0, top]: made once, then moved to a new
   * domain in place (the ticks joined, the curve and the dots drawn again on the new scales).
   */
  function drawFrame() {
    const x = xScale(BOX, [0, steps]);
    const y = yScale(BOX, [0, top]);
    if (frame) {
      moveAxes(frame.axes, x, y, AXES);
      Object.assign(frame, { top, steps, x, y, drawn: 0, dotted: -1 });
      return;
    }
    s.selectAll('*').remove();
    const a = yScale(BOX, [0, 1]);
    const groups = axes(s, BOX, x, y, AXES);
    draw(s, 'text', { class: 'axis-label', x: 4, y: BOX.m.t - 12 }).text('loss (nats)');
    draw(s, 'g', { class: 'axis', transform: `translate(${BOX.width - BOX.m.r},0)` }).call(axisRight(a).ticks(4, '~r'));
    attrs(draw(s, 'text', { class: 'axis-label', x: BOX.width - 4, y: BOX.m.t - 12 }), {
      'text-anchor': 'end',
    }).text('accuracy');
    legend(
      s,
      [BOX.m.l + 4, 10],
      [
        ['loss-line', 'training loss'],
        ['accuracy-line', 'held-out accuracy'],
      ],
      { across: 150 },
    );
    const f = { s, x, y };
    frame = {
      top,
      steps,
      ...f,
      a,
      axes: groups,
      path: curve(f, 'loss-line', []),
      drawn: 0,
      dots: draw(s, 'g', { class: 'accuracy-dots' }),
      dotted: -1, // how many dots are drawn where they belong (-1: all to be drawn again)
    };
  }

  /** What was added since the last draw: the new segments of the curve and the new dots (all on a new domain). */
  function drawNew() {
    if (!frame || frame.steps !== steps || top > frame.top) drawFrame();
    frame.drawn = extendCurve(frame.path, frame, losses, frame.drawn);
    const { x, a } = frame;
    if (frame.dotted < 0 || frame.dotted > accuracy.length)
      drawAll(frame.dots, 'circle', 'dot', accuracy, { cx: (p) => x(p[0]), cy: (p) => a(p[1]), r: 3 });
    else
      for (const p of accuracy.slice(frame.dotted))
        draw(frame.dots, 'circle', { class: 'dot', cx: x(p[0]), cy: a(p[1]), r: 3 }).datum(p);
    frame.dotted = accuracy.length;
  }

  drawNew();
  return {
    fig,
    svg: s.node(),
    /** Keeps an update's losses (and accuracy, when measured); draw() draws them. */
    add(u) {
      steps = Math.max(1, u.steps);
      const at = losses.length ? losses[losses.length - 1][0] : -1;
      for (const p of u.losses ?? [])
        if (p[0] > at) {
          losses.push(p);
          if (p[1] > top) top = p[1];
        }
      if (u.accuracy !== undefined && !accuracy.some((p) => p[0] === u.step)) accuracy.push([u.step, u.accuracy]);
    },
    /** Draws the points added since the last draw. */
    draw: drawNew,
    /** Empties the chart and draws it empty (a run from step 0 again). */
    reset() {
      losses = [];
      accuracy = [];
      top = 1;
      if (frame) frame.steps = null; // the axes move to the new domain, the curve and the dots are drawn again
      drawNew();
    },
    /** The points kept: { losses: [step, loss][], accuracy: [step, accuracy][] } (for the exports). */
    points: () => ({ losses: losses.slice(), accuracy: accuracy.slice() }),
  };
}
