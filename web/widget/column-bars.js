// Vertical bars on a band scale (one band per key, a step, a token): the d3
// data join of the <rect>s of one series, each from y(0) up to its value.
// A drawing of numbers the widget shows or computed with the API: no number
// is computed here.
import { attrs } from './charts.js';

/**
 * The bars `rect.cls` of `parent` (every <rect> of it when `cls` is null: a group of its own) for `data`
 * (made, kept or removed as the data change): datum d at band `key(d, j)` of the band scale `x` (j by
 * default) moved right by `shift`, `width` wide (the band's by default), from y(0) up to y(value(d)) (the
 * datum itself by default); `more` are other attributes (a class function replaces `cls`: return it too).
 */
export function columnBars(
  parent,
  cls,
  data,
  { x, y, key = (_, j) => j, value = (d) => d, shift = 0, width, ...more },
) {
  const bars = parent
    .selectAll(cls ? `rect.${cls}` : 'rect')
    .data(data)
    .join('rect');
  return attrs(bars, {
    ...(cls ? { class: cls } : {}),
    x: (d, j) => x(key(d, j)) + shift,
    width: width ?? x.bandwidth(),
    y: (d) => y(value(d)),
    height: (d) => Math.max(0, y(0) - y(value(d))),
    ...more,
  });
}
