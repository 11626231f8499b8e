// The logit sliders of the softmax chapters (softmax, competition,
// matrix-form): a `fieldset.logits` with its legend and one labelled slider
// per logit (`input[data-logit=j]`, ids `${id}1`, `${id}2`, ...). No number
// shown comes from here.
import { slider } from './controls.js';
import { h, symbol } from './dom.js';
import { fmt, sub } from './format.js';

/**
 * Sliders for `count` logits from -limit to limit in steps of `step`, labelled `label(j)` (s_j),
 * then `after` (more controls) in the fieldset; a move calls `onInput(j, value)` (j 0-based).
 * `set(values, name)` puts the values in (aria-valuetext "name(j) = value", name(j) s_j by default).
 */
export function logitSliders({ id, count, limit, step = 0.1, legend, label = (j) => symbol('s', j), onInput, after }) {
  const sliders = Array.from({ length: count }, (_, j) =>
    slider({
      id: `${id}${j + 1}`,
      min: -limit,
      max: limit,
      step,
      dataset: { logit: j + 1 },
      label: label(j + 1),
      onInput: (v) => onInput(j, v),
    }),
  );
  const legendEl = h('legend', {}, legend);
  const element = h(
    'fieldset',
    { class: 'logits' },
    legendEl,
    sliders.map((x) => x.row),
    after,
  );
  const set = (values, name = (j) => `s${sub(j)}`) =>
    sliders.forEach((x, j) => x.set(values[j], fmt(values[j]), `${name(j + 1)} = ${fmt(values[j])}`));
  return { element, legend: legendEl, sliders, set };
}

/** Sets logit j of the widget's field `s` (a vector) to v; returns the new logits. */
export function setLogit(widget, j, v) {
  const s = widget.state.s;
  s[j] = v;
  widget.setState({ s });
  return s;
}
