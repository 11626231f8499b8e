// The controls chapters share: a bar of preset buttons, a labelled slider, a
// group of radio buttons, a checkbox and the slot of a shown number. Each
// makes the DOM the chapters (and their stylesheets and tests) rely on, and
// hands back the elements plus a `set` that writes only what changes.
//
//   import { num, presetBar, radioGroup, slider } from '../widget/controls.js';
//
//   build(body) {
//     const presets = presetBar(PRESETS, (p) => this.setState({ a: p.a, b: p.b }));
//     const t = slider({ id: 'll-t', min: 0, max: 3, step: 0.1, label: 'Stretch t',
//                        onInput: (t) => this.setState({ t }) });
//     const edit = radioGroup({ name: 'edit', label: 'Matrix to edit', class: 'edit-choice',
//                               options: [{ value: 'q', label: 'W_Q' }, { value: 'k', label: 'W_K' }],
//                               onChange: (edit) => this.setState({ edit }) });
//     const dot = num('dot');                       // <span class="num" data-role="dot">…</span>
//     const sum = line('= ', num('first'), signedTerm('+', num('second'))); // "= 6 − 1", not "= 6 + −1"
//     body.append(presets, t.row, edit.element, dot, sum);
//   }
//   syncControls(state) { t.set(state.t, `t = ${fmt(state.t)}`); edit.set(state.edit); }
//   render(ag, state) { this.show(dot, ag.dot(state.a, state.b)); }
import { arrowKeys } from './arrow-keys.js';
import { focusInPlace, h, setAttr, setFlag, setText } from './dom.js';

// Control groups: each control made here names its group (the preset bar, a slider's row, a radio group, a
// checkbox's row) with data-control-group, so that the studio (widget/studio.js) can list them and an embed
// can leave some out (the hide option, widget/studio-options.js) in every chapter, with no code of its own.
/** The dataset of a control group named `group` (none for null or ''). */
export const groupData = (group) => (group ? { controlGroup: group } : undefined);

/**
 * The slot of one shown number: `<span class="num" data-role=role data-key=key>…</span>`
 * (no data-key when `key` is undefined); `this.show(el, value)` fills it.
 */
export function num(role, key) {
  return h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
}

const FLIPPED = { '+': '\u2212', '\u2212': '+' };

/**
 * A signed term of a sum written out: `<span class="term"><span class="sep" data-op=op> op </span>...parts</span>`,
 * `op` '+' or '\u2212', the last of `parts` a number slot (num), which gets data-sign. When show() writes a
 * negative number there, it writes the number without its minus and flips the separator, so that 30 \u2212 (\u221220)
 * reads "30 + 20" and 6 + (\u22121) reads "6 \u2212 1"; data-value keeps the number itself and data-sign is -1.
 * Parts between the separator and the slot (" 2 \u00d7 ", positive factors) are written as they are.
 */
export function signedTerm(op, ...parts) {
  if (!FLIPPED[op]) throw new Error(`signedTerm: the separator is + or \u2212, not ${op}`);
  const slot = parts.at(-1);
  slot.dataset.sign = '1';
  return h('span', { class: 'term' }, h('span', { class: 'sep', dataset: { op } }, ` ${op} `), parts);
}

/**
 * The text to write in `slot` (AgWidget.show), given its formatted number `text`: unchanged for a plain slot;
 * for the slot of a signed term, the text without a leading minus, with the term's separator and data-sign set
 * to match (a text that is not a number, such as "not defined", puts the separator back as written).
 */
export function signedText(slot, text) {
  if (slot.dataset.sign === undefined) return text;
  const negative = text.startsWith('\u2212');
  setAttr(slot, 'data-sign', negative ? -1 : 1);
  const sep = slot.closest('.term')?.querySelector(':scope > .sep');
  if (sep) setText(sep, ` ${negative ? FLIPPED[sep.dataset.op] : sep.dataset.op} `);
  return negative ? text.slice(1) : text;
}

/** Number slots named by their roles: `slots('mean mean-abs')` is { mean: num('mean'), meanAbs: num('mean-abs') }. */
export const slots = (roles) =>
  Object.fromEntries(roles.split(' ').map((role) => [role.replace(/-(\w)/g, (_, c) => c.toUpperCase()), num(role)]));

/** `count` number slots of one role, keyed first, first + 1, ... (1-based by default). */
export function nums(role, count, first = 1) {
  return Array.from({ length: count }, (_, i) => num(role, i + first));
}

/**
 * The bar of preset buttons: `<div class="presets" role="group" aria-label=label>`
 * with a "Try:" lead and one `<button data-preset=id>` per preset; a click calls
 * `pick(preset)`. `lead: null` leaves the lead out; `before` and `after` are
 * nodes (other buttons) placed before and after the presets. `group` names its control group (default
 * "presets"; null: none).
 *
 * @param {{ id: string, label: string }[]} presets
 * @param {(preset: object) => void} pick
 * @param {{ label?: string, lead?: string|null, before?: Node[], after?: Node[], group?: string|null }} [options]
 * @returns {HTMLDivElement}
 */
export function presetBar(
  presets,
  pick,
  { label = 'Presets', lead = 'Try:', before = [], after = [], group = 'presets' } = {},
) {
  return h(
    'div',
    { class: 'presets', role: 'group', 'aria-label': label, dataset: groupData(group) },
    lead === null ? null : h('span', { class: 'presets-label' }, lead),
    before,
    presets.map((p) => button({ dataset: { preset: p.id } }, p.label, () => pick(p))),
    after,
  );
}

/** A `<button type="button">` with props (class, dataset, ...), text and a click handler. */
export function button(props, text, onClick) {
  const b = h('button', { type: 'button', ...props }, text);
  if (onClick) b.addEventListener('click', onClick);
  return b;
}

const CHOSEN = { tab: 'aria-selected', radio: 'aria-checked' };

/**
 * A group of buttons of which one is chosen: a tab list (`role` 'tablist', items 'tab', marked aria-selected)
 * or a radio group ('radiogroup', items 'radio', marked aria-checked), named `label`. `item(x, i)` gives the
 * props and the content of the button of each of `items`; a click calls `pick(i)`. Only the chosen button is
 * in the tab order, and the arrow keys (Home, End; round the ends with `wrap`) move the choice and the focus
 * (arrow-keys.js), then announce `say(i)` when given. `set(i)` marks the chosen button (and gives it the class
 * `chosenClass`, when given), writing only what changes.
 *
 * @returns {{ element: HTMLDivElement, buttons: HTMLButtonElement[], set: (index: number) => void }}
 */
export function choiceGroup({ role, label, class: cls, items, item, index, pick, wrap, say, chosenClass }) {
  const itemRole = role === 'tablist' ? 'tab' : 'radio';
  const buttons = items.map((x, i) => {
    const [props, content] = item(x, i);
    return button({ role: itemRole, ...props }, content, () => pick(i));
  });
  const element = h('div', { class: cls, role, 'aria-label': label }, buttons);
  arrowKeys(element, {
    count: items.length,
    index,
    wrap,
    go: (k) => {
      focusInPlace(buttons[k]);
      pick(k);
      if (say) say(k);
    },
  });
  const set = (chosen) =>
    buttons.forEach((b, i) => {
      setAttr(b, CHOSEN[itemRole], i === chosen);
      setAttr(b, 'tabindex', i === chosen ? 0 : -1);
      if (chosenClass && b.classList.contains(chosenClass) !== (i === chosen)) b.classList.toggle(chosenClass);
    });
  return { element, buttons, set };
}

/**
 * A range input with its label and its shown value:
 * `<div class=rowClass><label for=id class=labelClass>label</label><input type="range" id=id
 * class=class><output class=outClass for=id></output></div>`. `label: null` leaves out the label
 * (label it elsewhere, or give `attrs['aria-label']`), `outClass: null` the output, `rowClass: null`
 * the row (place `input` and `out` yourself). `onInput(value, input)` gets the number at each move,
 * `onChange(value, input)` once the slider is let go (or moved by a key): a state costly to change waits for it.
 * `set(value, text, valuetext = text)` puts the state into the input (only when it differs), the
 * output's text and aria-valuetext. The row is the control group `group` (default: the id; null: none);
 * without a row, the input is, when `group` is given.
 *
 * @returns {{ input: HTMLInputElement, out: HTMLOutputElement|null, label: HTMLLabelElement|null,
 *             row: HTMLDivElement|null, set: (value: number, text?: string, valuetext?: string) => void }}
 */
export function slider({
  id,
  min,
  max,
  step,
  value,
  class: className = 'slider',
  dataset,
  attrs = {},
  label = null,
  labelClass = 's-label',
  outClass = 's-value',
  outId,
  rowClass = 'slider-row',
  group,
  onInput,
  onChange,
}) {
  const own = rowClass === null && group ? { ...dataset, ...groupData(group) } : dataset;
  const input = h('input', { type: 'range', min, max, step, value, class: className, id, dataset: own, ...attrs });
  const out = outClass === null ? null : h('output', { class: outClass, id: outId, for: id });
  const labelEl = label === null ? null : h('label', { for: id, class: labelClass }, label);
  const row =
    rowClass === null
      ? null
      : h('div', { class: rowClass, dataset: groupData(group === undefined ? id : group) }, labelEl, input, out);
  if (onInput) input.addEventListener('input', () => onInput(Number(input.value), input));
  if (onChange) input.addEventListener('change', () => onChange(Number(input.value), input));
  const set = (v, text, valuetext = text) => {
    if (Number(input.value) !== v) input.value = String(v);
    if (valuetext !== undefined) setAttr(input, 'aria-valuetext', valuetext);
    if (out && text !== undefined) setText(out, text);
  };
  return { input, out, label: labelEl, row, set };
}

/**
 * A group of radio buttons, one `<label class=itemClass><input type="radio" name value> text</label>`
 * per option (the text as " label", or in a `<span>` with `span: true`; `optionData: true` adds
 * data-option=value to the label). The group is `<div class=class role="radiogroup" aria-label=label>`
 * with an optional `<span class="lbl">lead</span>` first, or, given `legend`,
 * `<fieldset class=class><legend>legend</legend>...</fieldset>`. A change calls `onChange(option.value)`
 * (the value as given, a number stays a number); `set(value)` checks the matching input. The group is the
 * control group `group` (default: the name; null: none).
 *
 * @param {{ name: string, options: { value: string|number, label: string|Node|(string|Node)[] }[],
 *           onChange: (value: any) => void, label?: string, lead?: string, legend?: string|Node,
 *           class?: string, itemClass?: string, span?: boolean, optionData?: boolean, group?: string|null }} o
 * @returns {{ element: HTMLElement, inputs: HTMLInputElement[], set: (value: string|number) => void }}
 */
export function radioGroup({
  name,
  options,
  onChange,
  label,
  lead,
  legend,
  class: className = 'choice-group',
  itemClass = 'radio',
  span = false,
  optionData = false,
  group = name,
}) {
  const inputs = [];
  const items = options.map((o) => {
    const input = h('input', { type: 'radio', name, value: String(o.value) });
    input.addEventListener('change', () => input.checked && onChange(o.value));
    inputs.push(input);
    return h(
      'label',
      { class: itemClass, dataset: optionData ? { option: String(o.value) } : undefined },
      input,
      span ? h('span', {}, o.label) : typeof o.label === 'string' ? ` ${o.label}` : [' ', o.label],
    );
  });
  const element =
    legend === undefined
      ? h(
          'div',
          { class: className, role: 'radiogroup', 'aria-label': label, dataset: groupData(group) },
          lead === undefined ? null : h('span', { class: 'lbl' }, lead),
          items,
        )
      : h('fieldset', { class: className, dataset: groupData(group) }, h('legend', {}, legend), items);
  const set = (value) => {
    for (const input of inputs) setFlag(input, 'checked', input.value === String(value));
  };
  return { element, inputs, set };
}

/**
 * A checkbox with its label: `<div class=rowClass><input type="checkbox" class=class id=id>
 * <label for=id>label</label></div>`. `onChange(checked)`; `set(on)` writes only a change. The row is the
 * control group `group` (default: the id; null: none).
 *
 * @returns {{ input: HTMLInputElement, row: HTMLDivElement, set: (on: boolean) => void }}
 */
export function checkbox({ id, label, class: className = 'toggle', rowClass = 'toggle-row', group = id, onChange }) {
  const input = h('input', { type: 'checkbox', class: className, id });
  if (onChange) input.addEventListener('change', () => onChange(input.checked));
  const row = h('div', { class: rowClass, dataset: groupData(group) }, input, h('label', { for: id }, label));
  return { input, row, set: (on) => setFlag(input, 'checked', on) };
}

/** Number slots with no value (a zero vector has no direction): "not defined" (or `text`), no data-value. */
export function notDefined(els, text = 'not defined') {
  for (const el of els) {
    setText(el, signedText(el, text));
    delete el.dataset.value;
  }
}

/** A line of numbers and words: `<p class="line">...parts</p>`. */
export function line(...parts) {
  return h('p', { class: 'line' }, ...parts);
}

/** A titled part of the numbers: `<section class={cls} aria-label={label}><h3>title</h3>...content</section>`. */
export function section(cls, label, title, content) {
  return h('section', { class: cls, 'aria-label': label }, h('h3', {}, title), content);
}

/** The words between numbers: `<span class="lbl">text</span>`. */
export function lbl(text) {
  return h('span', { class: 'lbl' }, text);
}

/**
 * Two columns side by side (one above the other when narrow): `.layout` with a `.left` and a `.right`
 * box; `stackEarly` (a wide table or grid in a column) stacks them from 40rem down (`.stack-early`).
 */
export function columns(left, right, { stackEarly = false } = {}) {
  const layout = stackEarly ? 'layout stack-early' : 'layout';
  return h('div', { class: layout }, h('div', { class: 'left' }, left), h('div', { class: 'right' }, right));
}
