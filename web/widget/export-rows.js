// Rows of a chapter's CSV export (exportTable) that the default one, a row per
// number shown, does not have: one row per cell of a grid (query i, key j),
// a series (a curve, a count per step) after the numbers shown, and the
// columns held until the answer left out before it. The values are the
// widget's wasm results; nothing is computed here.

/** One row per cell of an n × m grid, in row order: `row(i, j)` (0-based) gives its columns. */
export function gridRows(n, m, row) {
  return Array.from({ length: n * m }, (_, at) => row(Math.floor(at / m), at % m));
}

/**
 * The table `table` ({ columns, rows }) with one more row per value of `values`: [`${name}.${first + i}`,
 * value] (an empty list of values leaves it as it is).
 */
export function withSeries(table, name, values = [], first = 0) {
  return { ...table, rows: [...table.rows, ...Array.from(values, (v, i) => [`${name}.${first + i}`, v])] };
}

/**
 * The table ({ columns, rows }) without the columns whose name `held(name)` accepts, unless `shown` (the widget's
 * `answerIsShown`): a column of numbers held on screen until the answer is left out of the CSV before it.
 */
export function withoutHeld(table, held, shown) {
  if (shown) return table;
  const kept = table.columns.flatMap((name, i) => (held(name) ? [] : [i]));
  return { columns: kept.map((i) => table.columns[i]), rows: table.rows.map((r) => kept.map((i) => r[i])) };
}
