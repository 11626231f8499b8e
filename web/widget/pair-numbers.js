// The numbers every a/b chapter (dot-product, projection, sign) shows first:
// the coordinates as text, then a·b, |a| and |b|, each a wasm result.
import { setText } from './dom.js';
import { pair } from './format.js';

/**
 * Writes "a = (…), b = (…)" into `ui.coords` and shows ag.dot(a, b), ag.norm(a)
 * and ag.norm(b) in `ui.dot`, `ui.normA` and `ui.normB` (widget.show).
 * @param {import('./base.js').AgWidget} widget
 * @param {object} ag the module (dot, norm)
 * @param {{ coords: Element, dot: Element, normA: Element, normB: Element }} ui
 * @param {number[]} a a 2-vector
 * @param {number[]} b a 2-vector
 * @returns {{ dot: number, na: number, nb: number }} the three results
 */
export function showPair(widget, ag, ui, a, b) {
  setText(ui.coords, `a = ${pair(a)}, b = ${pair(b)}`);
  const dot = ag.dot(a, b);
  const na = ag.norm(a);
  const nb = ag.norm(b);
  widget.show(ui.dot, dot);
  widget.show(ui.normA, na);
  widget.show(ui.normB, nb);
  return { dot, na, nb };
}
