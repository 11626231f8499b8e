// <ag-worked-example>: one query q, three keys k_1..k_3 (d_k = 4), their
// scores q·k_j and the softmax weights, unscaled or scaled by 1/√d_k.
//
//   <ag-worked-example q="1,2,0,1" k="1,2,1,0;-1,-2,0,1;0,0,1,0" scale="none">
//
// Attributes set the initial state (text form as in state.js). The page gives
// the element an `engine` ({ id, label, computeWorkedExample(state) }); every
// number shown is what that engine returned from the WebAssembly module.
// When the learner changes an input the element fires `ag-statechange`
// (detail: { state }); it never writes the page URL itself.
import { h, symbol } from './dom.js';
import { exactText, formatNumber } from './format.js';
import { copyState, D_K, DEFAULT_STATE, KEY_COUNT, MAX_ABS, readK, readNumber, readQ, readScale } from './state.js';

const ROWS = [{ name: 'q', key: null }, ...Array.from({ length: KEY_COUNT }, (_, j) => ({ name: 'k', key: j + 1 }))];

function rowLabel(row) {
  return row.key === null ? 'q' : `k${row.key}`;
}

export class AgWorkedExample extends HTMLElement {
  static observedAttributes = ['q', 'k', 'scale'];

  #state = copyState(DEFAULT_STATE);
  #engine = null;
  #parts = null; // built on first connection
  #invalid = new Set(); // inputs whose text is not a usable number

  get state() {
    return copyState(this.#state);
  }

  set state(value) {
    this.#state = copyState(value);
    this.#invalid.clear();
    this.#syncInputs();
    this.#compute();
  }

  get engine() {
    return this.#engine;
  }

  set engine(value) {
    this.#engine = value;
    this.#compute();
  }

  /** Says, in place of the results, why there are none. */
  showUnavailable(message) {
    if (!this.#parts) this.#build();
    this.#parts.computedBy.textContent = message;
  }

  attributeChangedCallback(name, _old, text) {
    if (text === null) return;
    const read = { q: readQ, k: readK, scale: readScale }[name](text);
    if (read === null) return; // an unreadable attribute keeps the current value
    this.#state[name] = read;
    this.#syncInputs();
    this.#compute();
  }

  connectedCallback() {
    if (!this.#parts) this.#build();
    this.#syncInputs();
    this.#compute();
  }

  #build() {
    const inputs = ROWS.map((row) =>
      Array.from({ length: D_K }, (_, i) =>
        h('input', {
          type: 'number',
          step: 'any',
          min: -MAX_ABS,
          max: MAX_ABS,
          inputmode: 'decimal',
          class: 'vec-input',
          dataset: { row: rowLabel(row), index: i },
        }),
      ),
    );
    const grid = h(
      'div',
      { class: 'vec-grid' },
      h('span', { class: 'vec-corner', 'aria-hidden': 'true' }),
      Array.from({ length: D_K }, (_, i) => h('span', { class: 'vec-col', 'aria-hidden': 'true' }, String(i + 1))),
      ROWS.map((row, r) => [
        h('span', { class: 'vec-name', 'aria-hidden': 'true' }, symbol(row.name, row.key ?? undefined)),
        inputs[r].map((input, i) =>
          h('label', { class: 'vec-cell' }, h('span', { class: 'visually-hidden' }, `${rowLabel(row)}, component ${i + 1}`), input),
        ),
      ]),
    );
    const scaleRadios = [
      ['none', ['unscaled: weights = softmax(scores)']],
      ['sqrt-dk', ['scaled: weights = softmax(scores / \u221a', symbol('d', 'k'), ')']],
    ].map(([value, text]) =>
      h('label', { class: 'scale-choice' }, h('input', { type: 'radio', name: 'scale', value }), h('span', {}, ...text)),
    );
    // A radio group needs a name unique on the page; the form scopes it.
    const form = h(
      'form',
      { class: 'we-form', novalidate: true },
      h('fieldset', { class: 'vectors' }, h('legend', {}, 'Query and keys (', symbol('d', 'k'), ' = ', String(D_K), ')'), grid),
      h('fieldset', { class: 'scale' }, h('legend', {}, 'Scale'), scaleRadios),
    );
    form.addEventListener('submit', (event) => event.preventDefault());
    form.addEventListener('input', (event) => this.#onInput(event));

    const inputNote = h('p', { class: 'note input-note', role: 'status', hidden: true });
    const head = h(
      'tr',
      {},
      h('th', { scope: 'col' }, 'Key'),
      h('th', { scope: 'col' }, 'Score ', symbol('q'), '\u00b7', symbol('k', 'j')),
      h('th', { scope: 'col', class: 'scaled-col' }, 'Scaled ', symbol('q'), '\u00b7', symbol('k', 'j'), ' / \u221a', symbol('d', 'k')),
      h('th', { scope: 'col' }, 'Weight'),
    );
    const cells = Array.from({ length: KEY_COUNT }, (_, j) => {
      const key = j + 1;
      const score = h('td', { class: 'num score', dataset: { role: 'score', key } }, '\u2026');
      const scaled = h('td', { class: 'num scaled-col', dataset: { role: 'scaled-score', key } }, '\u2026');
      const weightValue = h('span', { class: 'num', dataset: { role: 'weight', key } }, '\u2026');
      const bar = h('span', { class: 'bar-fill' });
      const weight = h('td', { class: 'weight' }, weightValue, h('span', { class: 'bar', 'aria-hidden': 'true' }, bar));
      return { row: h('tr', {}, h('th', { scope: 'row' }, symbol('k', key)), score, scaled, weight), score, scaled, weightValue, bar };
    });
    const table = h(
      'table',
      { class: 'results' },
      h('caption', {}, 'Scores and softmax weights'),
      h('thead', {}, head),
      h('tbody', {}, cells.map((c) => c.row)),
    );
    const computedBy = h('p', { class: 'computed-by' }, 'Waiting for the WebAssembly module\u2026');
    // Read out after each change, so a screen reader hears the new weights.
    const announce = h('p', { class: 'visually-hidden', 'aria-live': 'polite' });
    this.replaceChildren(form, inputNote, table, computedBy, announce);
    this.#parts = { form, inputs, scaleRadios: form.querySelectorAll('input[type=radio]'), inputNote, table, cells, computedBy, announce };
  }

  #syncInputs() {
    if (!this.#parts) return;
    const { inputs, scaleRadios } = this.#parts;
    ROWS.forEach((row, r) => {
      const values = row.key === null ? this.#state.q : this.#state.k[row.key - 1];
      inputs[r].forEach((input, i) => {
        input.value = String(values[i]);
        input.removeAttribute('aria-invalid');
      });
    });
    for (const radio of scaleRadios) radio.checked = radio.value === this.#state.scale;
    this.#showInputNote(null);
  }

  #onInput(event) {
    const target = event.target;
    if (target.type === 'radio') {
      if (!target.checked || target.value === this.#state.scale) return;
      this.#state.scale = target.value;
    } else if (target.classList.contains('vec-input')) {
      const value = readNumber(target.value);
      const r = ROWS.findIndex((row) => rowLabel(row) === target.dataset.row);
      const i = Number(target.dataset.index);
      if (value === null) {
        this.#invalid.add(target);
        target.setAttribute('aria-invalid', 'true');
      } else {
        this.#invalid.delete(target);
        target.removeAttribute('aria-invalid');
        const vector = ROWS[r].key === null ? this.#state.q : this.#state.k[ROWS[r].key - 1];
        vector[i] = value;
      }
    } else {
      return;
    }
    if (this.#invalid.size) {
      const first = [...this.#invalid][0];
      this.#showInputNote(
        `${first.dataset.row}, component ${Number(first.dataset.index) + 1}: enter a number from \u2212${MAX_ABS} to ${MAX_ABS}. ` +
          'The values below are for the last complete inputs.',
      );
      this.#parts.table.classList.add('is-stale');
      return;
    }
    this.#showInputNote(null);
    this.#compute();
    this.dispatchEvent(new CustomEvent('ag-statechange', { bubbles: true, composed: true, detail: { state: this.state } }));
  }

  #showInputNote(text) {
    const note = this.#parts?.inputNote;
    if (!note) return;
    note.hidden = text === null;
    note.textContent = text ?? '';
  }

  #compute() {
    if (!this.#parts || !this.#engine || this.#invalid.size) return;
    const { table, cells, computedBy, announce } = this.#parts;
    const scaled = this.#state.scale === 'sqrt-dk';
    let result;
    try {
      result = this.#engine.computeWorkedExample(this.#state);
    } catch (err) {
      this.#showInputNote(`These inputs could not be computed: ${err.message}`);
      table.classList.add('is-stale');
      return;
    }
    table.classList.toggle('is-scaled', scaled);
    table.classList.remove('is-stale');
    cells.forEach((c, j) => {
      show(c.score, result.scores[j]);
      show(c.scaled, result.scaledScores[j]);
      show(c.weightValue, result.weights[j]);
      // The bar is the weight itself, a number in [0, 1], used as a scale factor.
      c.bar.style.transform = `scaleX(${result.weights[j]})`;
    });
    computedBy.textContent = `Computed in WebAssembly by: ${this.#engine.label}.`;
    announce.textContent = `Weights: ${cells.map((c, j) => `k${j + 1} ${c.weightValue.textContent}`).join(', ')}.`;
    this.dataset.computedBy = this.#engine.id;
    this.dataset.scale = this.#state.scale;
  }
}

function show(el, value) {
  el.textContent = formatNumber(value);
  el.dataset.value = exactText(value);
}

customElements.define('ag-worked-example', AgWorkedExample);
