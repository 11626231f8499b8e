// Bars: the d3 data join of the <rect>s of one series, each along its band (a band of a band scale, a bin of a
// histogram) and across from the value scale's 0 to its value: up or right above zero, down or left below it.
// Vertical (columns) or horizontal (rows). Drawing only: the numbers come from the widget, none is computed here.

/**
 * The bars `rect.cls` of `parent` (every <rect> of it when `cls` is null: a group of its own) for `data` (an array,
 * or d3's function of a parent's datum for bars inside groups; made, kept or removed as the data change).
 * Vertical (by default) on the band scale `x` and the value scale `y`; `horizontal`: on the band scale `y` and the
 * value scale `x`. Datum d (index j) lies at band `key(d, j)` (j by default) moved by `shift` pixels, `width` pixels
 * thick (the band's by default), from the value scale's 0 to `value(d, j)` (the datum by default; null: no bar),
 * at least `least` pixels long (a shorter one lengthened rightwards or downwards). `more` are other attributes (a
 * class function replaces `cls`: return it too).
 * @returns {d3.Selection} the bars
 */
export function bars(parent, cls, data, o) {
  const { x, y, horizontal = false, key = (_, j) => j, value = (d) => d, shift = 0, width, least = 0, ...more } = o;
  const [band, across] = horizontal ? [y, x] : [x, y];
  const [at, thick, from, long] = horizontal ? ['y', 'height', 'x', 'width'] : ['x', 'width', 'y', 'height'];
  const zero = across(0);
  const end = (d, j) => (value(d, j) === null ? zero : across(value(d, j)));
  const rects = parent
    .selectAll(cls ? `rect.${cls}` : 'rect')
    .data(data)
    .join('rect');
  const values = {
    ...(cls ? { class: cls } : {}),
    [at]: (d, j) => band(key(d, j)) + shift,
    [thick]: width ?? band.bandwidth(),
    [from]: (d, j) => Math.min(zero, end(d, j)),
    [long]: (d, j) => (value(d, j) === null ? 0 : Math.max(least, Math.abs(end(d, j) - zero))),
    ...more,
  };
  for (const [name, v] of Object.entries(values)) rects.attr(name, v);
  return rects;
}

/**
 * The placement of histogram bars (bars' `key`, `shift` and `width`) on the linear scale `x`: bar i over the bin
 * from lo + i·width, `gap` pixels between bars (at least half a pixel wide).
 */
export const bins = (x, { lo, width, gap = 1 }) => ({
  key: (_, i) => lo + i * width,
  shift: gap / 2,
  width: Math.max(0.5, x(lo + width) - x(lo) - gap),
});
