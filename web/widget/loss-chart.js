// The loss curve of a Part 4 training run (widget/training.js's updates): the training loss of every
// step (nats) against the step, and the held-out accuracy (0 to 1, its own axis on the right) as dots
// where it was measured. Drawing only: the numbers are the updates' (results of the worker's calls).
// `add(u)` keeps an update's points and `draw()` draws what was added since the last draw: the curve
// grows by the new steps' segments; the axes are drawn again only when the run's length changes or a
// loss rises above the top of the loss axis.
import { axisRight } from 'd3';
import { attrs, axes, chartFigure, curve, draw, drawAll, extendCurve, legend, xScale, yScale } from './charts.js';

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

  let frame = null; // the axes of the domain drawn: { top, steps, s, x, y, a, path, drawn, dots }

  /** The axes, the legend and an empty curve for the domain [0, steps] x [0, top]. */
  function drawFrame() {
    s.selectAll('*').remove();
    const x = xScale(BOX, [0, steps]);
    const y = yScale(BOX, [0, top]);
    const a = yScale(BOX, [0, 1]);
    axes(s, BOX, x, y, { xLabel: 'step', xTicks: 5, yTicks: 4 });
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
      path: curve(f, 'loss-line', []),
      drawn: 0,
      dots: draw(s, 'g', { class: 'accuracy-dots' }),
    };
  }

  /** What was added since the last draw: the new segments of the curve and the dots (everything on a new frame). */
  function drawNew() {
    if (!frame || frame.steps !== steps || top > frame.top) drawFrame();
    frame.drawn = extendCurve(frame.path, frame, losses, frame.drawn);
    const { x, a } = frame;
    drawAll(frame.dots, 'circle', 'dot', accuracy, { cx: (p) => x(p[0]), cy: (p) => a(p[1]), r: 3 });
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
      frame = null;
      drawNew();
    },
    /** The points kept: { losses: [step, loss][], accuracy: [step, accuracy][] } (for the exports). */
    points: () => ({ losses: losses.slice(), accuracy: accuracy.slice() }),
  };
}
