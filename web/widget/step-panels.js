// Measures of several training runs against the step, a small chart a measure side by side (a
// `figure.fig.panel.panel-{id}` each, its title at the top left): one curve a run in every chart
// (`path.curve.curve-{run}`), named in the first chart's legend; the steps 0..steps across, and up a linear axis
// from 0 or a log axis over the measure's positive values. The axes are drawn again only when a scale changes.
// Drawing only: the points are the chapter's (results of the worker's calls and of the page's).
import { line as pathOf } from 'd3';
import { axes, chartFigure, draw, legend, xScale, yScale } from './charts.js';

const BOX = { width: 280, height: 180, m: { l: 42, r: 10, t: 30, b: 26 } };

/**
 * @param {{ id: string, label: string, kind: 'linear'|'log', top?: (largest: number) => number }[]} measures a
 *   chart each: the measure's name in the points, the chart's title, its scale (linear from 0 to top(the largest
 *   value), or log from the smallest to the largest positive value)
 * @param {{ id: string }[]} runs a curve each, in every chart
 * @param {(measure: object) => string} label the aria-label of a measure's chart
 * @returns {{ figs: HTMLElement[], svgs(): SVGSVGElement[], draw(steps: number, points: object): void }} draw:
 *   the curves of `points` ({ [run id]: [{ step, [measure id]: value }] }) over the steps 0..steps
 */
export function stepPanels(measures, runs, label) {
  const panels = measures.map((m) => {
    const chart = chartFigure(`panel panel-${m.id}`, { box: BOX, label: label(m) });
    draw(chart.s, 'text', { class: 'axis-label panel-title', x: 4, y: 12 }).text(m.label);
    const frame = draw(chart.s, 'g', { class: 'frame' });
    const paths = Object.fromEntries(runs.map((r) => [r.id, draw(chart.s, 'path', { class: `curve curve-${r.id}` })]));
    return { m, ...chart, frame, paths, drawn: null };
  });
  legend(
    panels[0].s,
    [BOX.width - 168, 9],
    runs.map((r) => [`curve-${r.id}`, r.id]),
    { across: 76 },
  );
  return {
    figs: panels.map((p) => p.fig),
    svgs: () => panels.map((p) => p.s.node()),
    draw(steps, points) {
      const all = runs.flatMap((r) => points[r.id]);
      const x = xScale(BOX, [0, steps]);
      for (const panel of panels) {
        const { id, kind, top } = panel.m;
        const values = all.map((q) => q[id]).filter((v) => v > 0);
        const y =
          kind === 'log'
            ? yScale(BOX, values.length ? [Math.min(...values), Math.max(...values)] : [1e-3, 10], 'log').nice()
            : yScale(BOX, [0, top(Math.max(0, ...values))]).nice();
        const frame = `${steps} ${y.domain()}`;
        if (panel.drawn !== frame) {
          panel.frame.selectAll('*').remove();
          axes(panel.frame, BOX, x, y, {
            xTicks: 4,
            yTicks: 4,
            xLabel: 'step',
            yFormat: kind === 'log' ? '~e' : undefined,
          });
          panel.drawn = frame;
        }
        for (const r of runs) {
          const pts = points[r.id].filter((q) => kind !== 'log' || q[id] > 0);
          panel.paths[r.id].attr('d', pts.length ? pathOf()(pts.map((q) => [x(q.step), y(q[id])])) : null);
        }
      }
    },
  };
}
