// Controls that each write one field of a widget's state: a slider and a
// group of radio buttons (controls.js makes them) whose input calls
// widget.setState({ [field]: value }) and, for a slider, announces what the
// move changed. No number shown comes from here.
import { radioGroup, slider } from './controls.js';

/**
 * A slider (controls.js `slider`, whose other options pass through) for the field `field`: a move sets the
 * field to `value(position)` (the position itself by default), then announces `say(value)` when given (read
 * after the render, so it can quote the numbers the move changed). Steps of 1 from 0 by default.
 */
export function fieldSlider(widget, { field, min = 0, step = 1, value = (v) => v, say, ...o }) {
  return slider({
    min,
    step,
    ...o,
    onInput: (position) => {
      const v = value(position);
      widget.setState({ [field]: v });
      if (say) widget.announce(say(v));
    },
  });
}

/**
 * Radio buttons (controls.js `radioGroup`, named `field` unless `name` is given; its other options pass
 * through) for the field `field`: `options` is `{ value: label }`, or a list of values labelled `text(value)`.
 * A change sets the field, or calls `onChange(value)` instead when given.
 */
export function fieldChoice(widget, field, options, { text = String, onChange, ...o } = {}) {
  const list = Array.isArray(options)
    ? options.map((value) => ({ value, label: text(value) }))
    : Object.entries(options).map(([value, label]) => ({ value, label }));
  return radioGroup({
    name: field,
    ...o,
    options: list,
    onChange: onChange ?? ((v) => widget.setState({ [field]: v })),
  });
}
