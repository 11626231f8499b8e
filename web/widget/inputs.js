// A grid of number inputs for vectors and matrices (rows named q, k1, ...),
// each labelled for screen readers ("k2, component 3"). Text that is not a
// number in range marks the input invalid and calls onInvalid; a good value
// calls onChange with the new rows.
import { h } from './dom.js';
import { readNumber } from './state.js';

/**
 * @param {{ rows: { name: string, label: Node|string }[], cols: number, spec: { min: number, max: number },
 *           legend: Node|string, onChange: (r: number, i: number, value: number) => void,
 *           onInvalid: (name: string, i: number) => void }} o
 * @returns {{ element: HTMLFieldSetElement, set: (values: number[][]) => void, invalid: Set<HTMLInputElement> }}
 */
export function numberGrid({ rows, cols, spec, legend, onChange, onInvalid }) {
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
      inputs[r].map((input, i) => h('label', { class: 'vec-cell' }, h('span', { class: 'visually-hidden' }, `${row.name}, component ${i + 1}`), input)),
    ]),
  );
  const element = h('fieldset', { class: 'vectors' }, h('legend', {}, legend), grid);
  element.addEventListener('input', (event) => {
    const input = event.target;
    if (!input.classList?.contains('vec-input')) return;
    const value = readNumber(input.value, spec);
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
  });
  function set(values) {
    inputs.forEach((row, r) =>
      row.forEach((input, i) => {
        if (invalid.has(input)) return; // keep what the learner is typing
        const text = String(values[r][i]);
        if (input.value !== text && Number(input.value) !== values[r][i]) input.value = text;
        else if (input.value === '') input.value = text;
      }),
    );
  }
  function reset() {
    invalid.clear();
    for (const row of inputs) for (const input of row) input.removeAttribute('aria-invalid');
  }
  return { element, set, invalid, reset };
}
