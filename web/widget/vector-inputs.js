// Text inputs for vectors of a chapter's state whose length the learner chooses (simd's a and b, 1 to 16
// elements each): a row of inputs per vector, made again when the length changes.
import { h, setAttr, setValue, symbol } from './dom.js';

/**
 * `element`: `div.pair` of a `div.pair-row` per field of `names` (its `span.pair-name`, then `div.pair-cells`
 * of `label.cell`, each an `span.idx` index and an `input.vec-input` named "<name>, element <i>"). A typed
 * number within ±max (a − sign is read as -) goes into the state (`widget.setState` of the vectors, element i
 * changed); other text marks the input aria-invalid and notes "<name>, element <i>: enter a number from −max
 * to max." `sync(state)` makes the rows again when the length of the vectors changed and writes their values,
 * but in an input that has the focus with an invalid text (the learner is typing it).
 *
 * @param {import('./base.js').AgWidget} widget
 * @param {{ names: string[], max: number }} o
 */
export function vectorInputs(widget, { names, max }) {
  const element = h('div', { class: 'pair' });
  element.addEventListener('change', (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement)) return;
    const x = Number(input.value.replace(/\u2212/g, '-'));
    const { row, index } = input.dataset;
    if (input.value.trim() === '' || !Number.isFinite(x) || Math.abs(x) > max) {
      setAttr(input, 'aria-invalid', 'true');
      widget.note(`${row}, element ${Number(index)}: enter a number from \u2212${max} to ${max}.`);
      return;
    }
    input.removeAttribute('aria-invalid');
    const s = widget.state;
    s[row][Number(index)] = x;
    widget.setState(Object.fromEntries(names.map((name) => [name, s[name]])));
  });
  const cell = (name, i) =>
    h(
      'label',
      { class: 'cell' },
      h('span', { class: 'idx', 'aria-hidden': 'true' }, String(i)),
      h('input', {
        type: 'text',
        inputmode: 'decimal',
        class: 'vec-input',
        'aria-label': `${name}, element ${i}`,
        dataset: { row: name, index: i },
      }),
    );
  const row = (name, n) =>
    h(
      'div',
      { class: 'pair-row' },
      h('span', { class: 'pair-name' }, symbol(name)),
      h(
        'div',
        { class: 'pair-cells' },
        Array.from({ length: n }, (_, i) => cell(name, i)),
      ),
    );
  function sync(state) {
    const n = state[names[0]].length;
    if (element.querySelectorAll('input').length !== names.length * n)
      element.replaceChildren(...names.map((name) => row(name, n)));
    for (const input of element.querySelectorAll('input')) {
      if (widget.shadowRoot.activeElement === input && input.hasAttribute('aria-invalid')) continue;
      setValue(input, String(state[input.dataset.row][Number(input.dataset.index)] ?? ''));
      if (input.hasAttribute('aria-invalid')) input.removeAttribute('aria-invalid');
    }
  }
  return { element, sync };
}
