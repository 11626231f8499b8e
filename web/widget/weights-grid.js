// The attention weights of one head on one sequence as a heat map (widget/heatmap.js): T rows q₁..q_T, T
// columns k₁..k_T (each with its token under it, when given), the sequential cividis scale on [0, 1], and every
// cell's number written through the widget's `show` (data-role "weight", so that it is checked as logged). The
// Part 4 chapters show a trained model's grid this way; `update(rows)` gets the T rows of T weights.
import { WEIGHTS, headers, heatmap } from './heatmap.js';

/**
 * @param {HTMLElement & { show: Function }} widget the chapter, whose `show` writes each cell
 * @param {HTMLElement} box where the heat map goes
 * @param {{ T: number, words?: string[] }} o the number of tokens, their words (notes of the headers), and
 *   heatmap's other options (label, cell, format, describe, onActivate...)
 * @returns the heatmap (`update(rows, o)`, `node`)
 */
export function weightsGrid(widget, box, { T, words, ...o }) {
  return heatmap(box, {
    rows: headers('q', T, words),
    cols: headers('k', T, words),
    role: 'weight',
    ...WEIGHTS,
    show: (el, value, opts) => widget.show(el, value, opts),
    ...o,
  });
}
