// The loss curve of a Part 4 training run (widget/training.js's updates): the training loss of every
// step (nats) against the step, and the held-out accuracy (0 to 1, its own axis on the right) as dots
// where it was measured. Drawing only: the numbers are the updates' (results of the worker's calls).
import { axisRight } from 'd3';
import { attrs, axes, chartFigure, curve, dots, draw, legend, xScale, yScale } from './charts.js';

const BOX = { width: 420, height: 230, m: { l: 44, r: 40, t: 40, b: 30 } };

/**
 * @param {HTMLElement} box where the figure goes
 * @param {{ label: string, caption?: string }} o the chart's aria-label (and caption)
 * @returns {{ fig: HTMLElement, svg: SVGSVGElement, add(u: object): void, reset(): void, points(): object }}
 */
export function lossChart(box, { label, caption }) {
  const { fig, s } = chartFigure('loss-chart', { box: BOX, label, caption });
  box.append(fig);
  let losses = []; // [step, loss]
  let accuracy = []; // [step, accuracy]
  let steps = 1;

  function draw_() {
    s.selectAll('*').remove();
    const top = Math.max(1, ...losses.map((p) => p[1]));
    const x = xScale(BOX, [0, steps]);
    const y = yScale(BOX, [0, top]);
    const a = yScale(BOX, [0, 1]);
    axes(s, BOX, x, y, { xLabel: 'step', xTicks: 5, yTicks: 4 });
    draw(s, 'text', { class: 'axis-label', x: 4, y: BOX.m.t - 12 }).text('loss (nats)');
    draw(s, 'g', { class: 'axis', transform: `translate(${BOX.width - BOX.m.r},0)` }).call(axisRight(a).ticks(4, '~r'));
    attrs(draw(s, 'text', { class: 'axis-label', x: BOX.width - 4, y: BOX.m.t - 12 }), {
      'text-anchor': 'end',
    }).text('accuracy');
    curve({ s, x, y }, 'loss-line', losses);
    dots({ s, x, y: a }, 'accuracy-dots', accuracy, 3);
    legend(
      s,
      [BOX.m.l + 4, 10],
      [
        ['loss-line', 'training loss'],
        ['accuracy-line', 'held-out accuracy'],
      ],
      { across: 150 },
    );
  }

  draw_();
  return {
    fig,
    svg: s.node(),
    /** Adds an update's losses (and accuracy, when measured) and draws the chart again. */
    add(u) {
      steps = Math.max(1, u.steps);
      const at = losses.length ? losses[losses.length - 1][0] : -1;
      for (const p of u.losses ?? []) if (p[0] > at) losses.push(p);
      if (u.accuracy !== undefined && !accuracy.some((p) => p[0] === u.step)) accuracy.push([u.step, u.accuracy]);
      draw_();
    },
    /** Empties the chart (a run from step 0 again). */
    reset() {
      losses = [];
      accuracy = [];
      draw_();
    },
    /** The points drawn: { losses: [step, loss][], accuracy: [step, accuracy][] } (for the exports). */
    points: () => ({ losses: losses.slice(), accuracy: accuracy.slice() }),
  };
}
