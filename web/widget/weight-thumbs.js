// The attention weights of several heads as small pictures side by side (an `svg.head-thumbs`), each under its
// name in a frame: one pixel a weight, drawn T x T on a canvas in cividis (dark 0, yellow 1, as the weights' heat
// maps) and shown scaled up. A training run brings new weights every few steps; a picture a head changes with
// each, not T² cells, so that the page stays free for the learner's input while the model trains. Drawing only:
// the weights are the chapter's (results of the worker's forward).
import { interpolateCividis, rgb } from 'd3';
import { h } from './dom.js';
import { ownFigure } from './figure-layout.js';

/** CELL units a weight, GAP between pictures, TOP for each picture's name. */
const CELL = 6;
const GAP = 14;
const TOP = 16;
/** cividis at 256 steps as [r, g, b]. */
const CIVIDIS = Array.from({ length: 256 }, (_, i) => {
  const c = rgb(interpolateCividis(i / 255));
  return [c.r, c.g, c.b];
});

/**
 * @param {HTMLElement} box where the figure goes
 * @param {{ names: string[], T: number, label: string }} o a name per head (`text.thumb-name`), the T of the
 *   T x T weights, the figure's aria-label
 * @returns {{ svg: d3.Selection, choose(k: number): void, draw(k: number, rows: ArrayLike<number>[]): void }}
 *   choose: marks picture k's frame (`is-chosen`); draw: picture k shows `rows` (T rows of T weights, 0 to 1)
 */
export function weightThumbs(box, { names, T, label }) {
  const side = T * CELL;
  const svg = ownFigure(box, {
    className: 'head-thumbs',
    width: names.length * (side + GAP) - GAP + 4,
    height: TOP + side + 2,
    label,
  });
  const images = names.map((name, k) => {
    const g = svg.append('g').attr('transform', `translate(${2 + k * (side + GAP)},0)`);
    g.append('text')
      .attr('class', 'thumb-name')
      .attr('x', 0)
      .attr('y', TOP - 4)
      .text(name);
    g.append('rect')
      .attr('class', 'thumb-frame')
      .attr('x', -2)
      .attr('y', TOP - 2)
      .attr('width', side + 4)
      .attr('height', side + 4);
    return g
      .append('image')
      .attr('class', 'thumb-pixels')
      .attr('y', TOP)
      .attr('width', side)
      .attr('height', side)
      .attr('preserveAspectRatio', 'none')
      .attr('image-rendering', 'pixelated');
  });
  const canvas = h('canvas', { width: T, height: T });
  const pixels = canvas.getContext('2d');
  // The pixels each picture shows: a picture whose pixels did not change keeps its image (encoding a PNG and
  // loading it as the image's new href cost as much as the rest of a training run's draw).
  const shown = names.map(() => null);
  return {
    svg,
    choose: (k) => svg.selectAll('.thumb-frame').classed('is-chosen', (_d, i) => i === k),
    draw(k, rows) {
      const image = pixels.createImageData(T, T);
      const { data } = image;
      rows.forEach((row, a) =>
        row.forEach((w, b) => {
          const c = CIVIDIS[Math.round(255 * Math.min(1, Math.max(0, w)))];
          const at = 4 * (a * T + b);
          data[at] = c[0];
          data[at + 1] = c[1];
          data[at + 2] = c[2];
          data[at + 3] = 255;
        }),
      );
      if (shown[k] && shown[k].every((v, i) => v === data[i])) return;
      shown[k] = data;
      pixels.putImageData(image, 0, 0);
      images[k].attr('href', canvas.toDataURL('image/png'));
    },
  };
}
