// The parts of an a/b chapter (dot-product, why-agree, projection, sign): the
// article's pair as the first preset, the bar of pair presets, the slots of
// the first numbers (pairSlots), the first numbers (the coordinates as text,
// then a·b, |a| and |b|) and the angle (showAngle, also for orthogonality's
// keys), each number a wasm result.
import { notDefined, num, presetBar } from './controls.js';
import { h, setText } from './dom.js';
import { deg, pair } from './format.js';

/** The article's pair, the first preset of every a/b chapter. */
export const ARTICLE_PAIR = { id: 'article', label: '(3, 4) and (4, 3)', a: [3, 4], b: [4, 3] };

/** The preset bar of an a/b chapter: the article's pair, then `more` ({ id, label, a, b }). */
export function pairPresets(widget, more) {
  return presetBar([ARTICLE_PAIR, ...more], (p) => widget.setState({ a: p.a, b: p.b }));
}

/** The slots of those numbers: the line `p.coords`, a·b, |a|, |b|, cos θ and θ (for showPair and showAngle). */
export const pairSlots = () => ({
  coords: h('p', { class: 'coords' }),
  dot: num('dot'),
  normA: num('norm', 'a'),
  normB: num('norm', 'b'),
  cos: num('cosine'),
  angle: num('angle'),
});

/** 'positive', 'negative' or 'zero': the sign of a computed result, as a word. */
export const signOf = (x) => (x > 0 ? 'positive' : x < 0 ? 'negative' : 'zero');

/**
 * Writes "a = (…), b = (…)" into `ui.coords` and shows ag.dot(a, b), ag.norm(a)
 * and ag.norm(b) in `ui.dot`, `ui.normA` and `ui.normB` (widget.show).
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

/**
 * Shows ag.cosine(a, b) in each slot of `cos` (one or a list) and ag.angle(a, b) in degrees in
 * `angle`, and returns the cosine; when `defined` is false (a zero vector has no direction)
 * writes "not defined" in them and returns null. `name` names the cosine in the exports.
 */
export function showAngle(widget, ag, { cos, angle }, a, b, defined, name) {
  const slots = [cos].flat();
  if (!defined) {
    notDefined([...slots, angle]);
    return null;
  }
  const c = ag.cosine(a, b);
  for (const el of slots) widget.show(el, c, { name });
  widget.show(angle, ag.angle(a, b), { format: deg });
  return c;
}
