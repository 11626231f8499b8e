// The form of number grids (inputs.js) whose entries are part of a chapter's state: the matrices and
// vectors a learner types in (qkt-grid's X, W_Q and W_K; worked-example's query, keys and values).
//
//   const edits = matrixForm(this, { fields: ['x', 'wq'], max: 5, entry: 'entry', what: 'results',
//                                    onStale: () => results.classList.add('is-stale') });
//   const x = edits.grid({ rows, cols: 3, legend: 'X', field: 'x' });
//   body.append(edits.form('inputs', x.element));
//   // stateChanged(source) { if (source !== 'user') edits.reset(); }   render: if (edits.anyInvalid()) ...
import { h } from './dom.js';
import { gridEdits, numberGrid } from './inputs.js';

/**
 * The gridEdits (inputs.js) of the state's `fields` (`anyInvalid()`, `reset()`), `onStale()` marking the
 * results as those of the last complete inputs, with two more members. `grid(o)`: a numberGrid (rows, cols, legend, group) of entries from −max to max
 * in that set of edits: a typed number changes `s[field][r][c]` of the state (or, given `set(s, r, c, value)`
 * instead of `field`, whatever it changes); an entry that is not one notes "<row>, <entry> <i>: enter a number
 * from −max to max. The <what> below are for the last complete inputs." `form(className, ...children)`: the
 * `<form novalidate>` around the grids, which never submits (Enter in an entry would reload the page).
 *
 * @param {import('./base.js').AgWidget} widget
 * @param {{ fields: string[], max: number, entry: string, what: string, onStale: () => void }} o
 */
export function matrixForm(widget, { fields, max, entry, what, onStale }) {
  const edits = gridEdits(widget, fields, onStale);
  const onInvalid = edits.invalid(
    (name, i) =>
      `${name}, ${entry} ${i + 1}: enter a number from \u2212${max} to ${max}. The ${what} below are for the last complete inputs.`,
  );
  const grid = ({ field, set = (s, r, c, value) => (s[field][r][c] = value), ...o }) =>
    edits.add(
      numberGrid({
        ...o,
        spec: { min: -max, max },
        onChange: (r, c, value) => edits.edit((s) => set(s, r, c, value)),
        onInvalid,
      }),
    );
  const form = (className, ...children) => {
    const el = h('form', { class: className, novalidate: true }, ...children);
    el.addEventListener('submit', (e) => e.preventDefault());
    return el;
  };
  return Object.assign(edits, { grid, form });
}
