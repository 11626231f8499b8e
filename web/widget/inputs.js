// A grid of number inputs for vectors and matrices (rows named q, k1, ...),
// each labelled for screen readers ("k2, component 3"). Text that is not a
// number in range marks the input invalid and calls onInvalid; a good value
// calls onChange with the new rows.
import { groupData } from './controls.js';
import { h } from './dom.js';
import { readNumber } from './state.js';

/** The control group of a grid by default: the first words of its rows' names, e.g. "q-k1-k2-k3", "W_Q". */
const gridGroup = (rows) =>
  [...new Set(rows.map((r) => r.name.split(' ')[0].replace(/[^A-Za-z0-9_.-]/g, '')))].filter(Boolean).join('-');

/**
 * The fieldset is the control group `group` (widget/controls.js; default: gridGroup).
 * @param {{ rows: { name: string, label: Node|string }[], cols: number, spec: { min: number, max: number },
 *           legend: Node|string, onChange: (r: number, i: number, value: number) => void,
 *           onInvalid: (name: string, i: number) => void, group?: string }} o
 * @returns {{ element: HTMLFieldSetElement, set: (values: number[][]) => void, invalid: Set<HTMLInputElement> }}
 */
export function numberGrid({ rows, cols, spec, legend, onChange, onInvalid, group = gridGroup(rows) }) {
  const invalid = new Set();
  const inputs = rows.map((row, r) =>
    Array.from({ length: cols }, (_, i) =>
      h('input', {
        type: 'number',
        step: 'any',
        min: spec.min,
        max: spec.max,
        inputmode: 'decimal',
        class: 'vec-input',
        dataset: { row: row.name, index: i, r },
      }),
    ),
  );
  const grid = h(
    'div',
    { class: 'vec-grid', dataset: { cols } },
    h('span', { class: 'vec-corner', 'aria-hidden': 'true' }),
    Array.from({ length: cols }, (_, i) => h('span', { class: 'vec-col', 'aria-hidden': 'true' }, String(i + 1))),
    rows.map((row, r) => [
      h('span', { class: 'vec-name', 'aria-hidden': 'true' }, row.label),
      inputs[r].map((input, i) =>
        h(
          'label',
          { class: 'vec-cell' },
          h('span', { class: 'visually-hidden' }, `${row.name}, component ${i + 1}`),
          input,
        ),
      ),
    ]),
  );
  const element = h('fieldset', { class: 'vectors', dataset: groupData(group) }, h('legend', {}, legend), grid);
  const accept = (input, value) => {
    const r = Number(input.dataset.r);
    const i = Number(input.dataset.index);
    if (value === null) {
      invalid.add(input);
      input.setAttribute('aria-invalid', 'true');
      onInvalid(input.dataset.row, i);
      return;
    }
    invalid.delete(input);
    input.removeAttribute('aria-invalid');
    onChange(r, i, value);
  };
  element.addEventListener('input', (event) => {
    const input = event.target;
    if (!input.classList?.contains('vec-input')) return;
    pending.delete(input); // the learner's own edit wins over a step not yet shown
    accept(input, readNumber(input.value, spec));
  });
  // The arrow keys step a value by 1 within [min, max], as the browser's
  // own number field does, but here in the key's handler: the browser steps
  // after the key's handlers and restyles the field before its input event,
  // which put about a millisecond between the key and the figure.
  //
  // The stepped text reaches the field in the next animation frame, not in
  // the key's handler: a value written to a focused field while the browser
  // handles a key event makes it lay out the page at once to place the caret
  // (about a millisecond here, before the figure could start), where in the
  // frame it is laid out with the figure. Until then `shown(input)` is the
  // field's text; a key other than an arrow, or the learner's own typing,
  // writes it first, so that the browser edits the text on the screen.
  const pending = new Map();
  let frame = 0;
  const shown = (input) => (pending.has(input) ? pending.get(input) : input.value);
  const flush = () => {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    for (const [input, text] of pending) input.value = text;
    pending.clear();
  };
  const show = (input, text) => {
    pending.set(input, text);
    if (!frame) frame = requestAnimationFrame(flush);
  };
  element.addEventListener('keydown', (event) => {
    const input = event.target;
    const dir = event.key === 'ArrowUp' ? 1 : event.key === 'ArrowDown' ? -1 : 0;
    if (!input.classList?.contains('vec-input')) return;
    if (dir === 0 || event.altKey || event.ctrlKey || event.metaKey) {
      if (pending.size) flush();
      return;
    }
    const text = shown(input);
    const next = stepped(text, dir, spec);
    if (next === null) return; // text that is not a plain number: the browser's own behaviour
    event.preventDefault();
    if (String(next) === text) return;
    show(input, String(next));
    accept(input, next);
  });
  function set(values) {
    inputs.forEach((row, r) =>
      row.forEach((input, i) => {
        if (invalid.has(input)) return; // keep what the learner is typing
        const text = String(values[r][i]);
        const now = shown(input);
        if ((now !== text && Number(now) !== values[r][i]) || now === '') {
          pending.delete(input);
          input.value = text;
        }
      }),
    );
  }
  function reset() {
    invalid.clear();
    for (const row of inputs) for (const input of row) input.removeAttribute('aria-invalid');
  }
  return { element, set, invalid, reset };
}

/**
 * The value of the number field's text `text` stepped by `dir` (+1 or -1),
 * clamped to [spec.min, spec.max], with as many decimals as the text has (so
 * that 2.3 - 1 is 1.3, not 1.2999999999999998); null when the text is not a
 * plain decimal number in range (an exponent, say), which is left to the
 * browser.
 */
export function stepped(text, dir, spec) {
  const t = String(text)
    .trim()
    .replace(/\u2212/g, '-');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(t)) return null;
  const current = readNumber(t, spec);
  if (current === null) return null;
  const decimals = t.includes('.') ? t.length - t.indexOf('.') - 1 : 0;
  const next = Number((current + dir).toFixed(Math.min(decimals, 20)));
  return Math.min(spec.max, Math.max(spec.min, next));
}

/**
 * The edits of number grids (numberGrid) that together make part of a
 * widget's state (`fields`). While an entry of any grid is not a number, good
 * entries wait and `onStale()` marks the results as those of the last
 * complete inputs; otherwise the edit goes to widget.setState. Add each grid
 * with `add(grid)`, edit with `edit((s) => (s.x[r][c] = value))`, and call
 * `reset()` when a state from outside replaces whatever was being typed.
 * `invalid(say)` is a grid's onInvalid: the note `say(name, i)`, and `onStale()`.
 */
export function gridEdits(widget, fields, onStale) {
  const grids = [];
  let pending = null;
  const anyInvalid = () => grids.some((g) => g.invalid.size > 0);
  return {
    anyInvalid,
    add(grid) {
      grids.push(grid);
      return grid;
    },
    invalid: (say) => (name, i) => {
      widget.note(say(name, i));
      onStale();
    },
    edit(change) {
      // Deep copies: the arrays of a state are not changed in place.
      const state = widget.state;
      const s = structuredClone({ ...Object.fromEntries(fields.map((f) => [f, state[f]])), ...(pending ?? {}) });
      change(s);
      if (anyInvalid()) {
        pending = s;
        onStale();
        return;
      }
      pending = null;
      widget.setState(s);
    },
    reset() {
      for (const g of grids) g.reset();
      pending = null;
    },
  };
}
