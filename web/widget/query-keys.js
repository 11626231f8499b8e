// The parts of a chapter on a query q and keys k1, k2, ... in the plane
// (cosine-vs-dot, orthogonality): an arrow and a handle for each vector, a
// table row per key with its coordinates, and those coordinates kept in step
// with the state. Drawing and text only: the numbers come from the chapter.
import { h, setText, symbol } from './dom.js';
import { pair, sub } from './format.js';
import { bodyRow } from './matrix-table.js';

/**
 * On the vector figure `fig`: an arrow for each of `names` labelled q, k₁, ... (`arrow`: more options
 * of fig.arrow), then a handle for each (titled k₁; `say()` is read after a move).
 * @returns {{ arrows: Object<string, object>, handles: object[] }}
 */
export function queryKeyVectors(fig, names, { arrow = {}, say }) {
  names.forEach(fig.marker);
  const arrows = Object.fromEntries(names.map((n) => [n, fig.arrow(n, { text: sub(n), ...arrow })]));
  return { arrows, handles: names.map((name) => fig.handle(name, { title: sub(name), say })) };
}

/**
 * The table row of key `name`, the j-th: its header k_j, its coordinates (span.given, see syncGiven)
 * and `more`, then `cells` (as bodyRow takes them); data-key is the name.
 */
export function keyRow(name, j, cells, more) {
  const given = h('span', { class: 'given' });
  return { row: bodyRow([symbol('k', j), given, more], cells, { dataset: { key: name } }), given };
}

/** Writes q's coordinates into `qGiven` and each key's (" = (x, y)") into the `given` of its row. */
export function syncGiven(state, qGiven, keys, rows) {
  setText(qGiven, pair(state.q));
  keys.forEach((name, i) => setText(rows[i].given, ` = ${pair(state[name])}`));
}
