// Small tables of numbers: the parts of any small table (column headers, rows
// with a row header, a caption) and a matrix with one row per token whose
// cells are filled by the widget's show(). Text only: no number is computed
// here.
import { num } from './controls.js';
import { h, setText } from './dom.js';

/** A plain object { text, class } (a header or cell with a class), not a node, text or list. */
const isSpec = (c) => c !== null && typeof c === 'object' && Object.getPrototypeOf(c) === Object.prototype;

/** <thead> with one row of column headers: each text, nodes, or { text, class }. */
export function headerRow(headers) {
  return h(
    'thead',
    {},
    h(
      'tr',
      {},
      headers.map((c) =>
        isSpec(c) ? h('th', { scope: 'col', class: c.class }, c.text) : h('th', { scope: 'col' }, c),
      ),
    ),
  );
}

/** A <tr>: the row header `header`, then the cells (a <td> as is, { text, class }, or content put in a <td>). */
export function bodyRow(header, cells, props = {}) {
  return h(
    'tr',
    props,
    h('th', { scope: 'row' }, header),
    cells.map((c) =>
      c?.tagName === 'TD' ? c : isSpec(c) ? h('td', { class: c.class, colspan: c.colspan }, c.text) : h('td', {}, c),
    ),
  );
}

/**
 * A <td> of a measured number (a time, a byte count: no kernel result), its `text` shown: data-role `role`, and
 * data-measured the value unless it is null or undefined (not measured); `props` for more (a class).
 */
export const measuredCell = (role, value, text, props = {}) =>
  h('td', { ...props, dataset: value == null ? { role } : { role, measured: value } }, text);

/** A table: its class, caption, column headers, body rows and foot rows (each but the rows optional). */
export function table({ className, caption, headers, rows, foot, dataset }) {
  return h(
    'table',
    { class: className, dataset },
    caption !== undefined && h('caption', {}, caption),
    headers && headerRow(headers),
    h('tbody', {}, rows),
    foot && h('tfoot', {}, foot),
  );
}

/**
 * A table of number slots, one row per row header of `rows` and one column per entry of `cols`: a role, or
 * `{ role, class }` (the cell's class). Row i holds the slots num(role, i + 1), for show(); `rowData(i)` is
 * the dataset of row i (0-based), if any; the other options are table's. Returns the table, its body rows
 * and the slots of each role, `cells[role][i]`.
 */
export function slotTable({ rows, cols, rowData, ...o }) {
  const specs = cols.map((c) => (typeof c === 'string' ? { role: c } : c));
  const cells = Object.fromEntries(specs.map(({ role }) => [role, rows.map((_, i) => num(role, i + 1))]));
  const trs = rows.map((header, i) =>
    bodyRow(
      header,
      specs.map(({ role, class: cls }) => (cls ? { text: cells[role][i], class: cls } : cells[role][i])),
      rowData ? { dataset: rowData(i) } : {},
    ),
  );
  return { element: table({ ...o, rows: trs }), trs, cells };
}

/** A matrix [rows, cols] of number slots <span class="num" data-role data-key="i-j"> (1-based), for show(). */
export function numberCells(role, rows, cols) {
  return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => num(role, `${i + 1}-${j + 1}`)));
}

/**
 * The small tables of matrices, one row per token (`rows`: the row headers), each put in its box:
 * `specs` maps a table's role to [box, caption, cols]. `fill(role, values, options, by)` writes rows
 * of wasm results with `show` (`plain: n` writes the first n columns as plain input text, no
 * data-value: typed-in constants), unless the table shows `by` already; `select(i)` marks row i
 * (0-based) of every table with the class is-selected, and no other.
 */
export function matrixTables(rows, specs, show) {
  const tables = Object.entries(specs).map(([role, [box, caption, cols]]) => {
    const cells = rows.map((_, i) =>
      Array.from({ length: cols }, (_, j) =>
        h('td', { class: 'num', dataset: { role, key: `${i + 1}-${j + 1}` } }, '\u2026'),
      ),
    );
    const trs = rows.map((label, i) => bodyRow(label, cells[i]));
    const headers = [
      h('span', { class: 'visually-hidden' }, 'token'),
      ...Array.from({ length: cols }, (_, j) => String(j + 1)),
    ];
    const element = table({ className: 'mat', dataset: { role: `${role}-table` }, caption, headers, rows: trs });
    box.append(h('div', { class: 'mat-wrap' }, element));
    return [role, { cells, trs, shows: undefined }];
  });
  const byRole = Object.fromEntries(tables);
  return {
    fill(role, values, { plain = 0, ...options } = {}, by = undefined) {
      const t = byRole[role];
      if (by !== undefined && t.shows === by) return;
      t.shows = by;
      t.cells.forEach((row, i) =>
        row.forEach((el, j) => {
          if (j < plain) {
            setText(el, String(values[i][j]).replace('-', '\u2212'));
            delete el.dataset.value;
            el.classList.add('is-input');
          } else show(el, values[i][j], options);
        }),
      );
    },
    select(selected) {
      for (const [, { trs }] of tables)
        trs.forEach((tr, i) => {
          if (tr.classList.contains('is-selected') !== (i === selected))
            tr.classList.toggle('is-selected', i === selected);
        });
    },
  };
}
