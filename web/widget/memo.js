// The last result of a computation, kept while its inputs stay the same. A
// widget's render runs after every change of its state, but many changes
// (choosing another query, another head, another step) leave the inputs of
// its wasm calls as they were: their results are reused instead of computed
// again. The engine counts as an input: switching the implementation
// computes anew, so every number shown comes from the engine in use.

/**
 * @returns {(ag: object, key: string, compute: () => T) => T} a function that
 *   returns compute()'s value, calling it only when `ag` or `key` (a text
 *   naming every input of the computation) differ from the last call's
 * @template T
 */
export function lastResult() {
  let engine = null;
  let key = null;
  let value;
  return (ag, k, compute) => {
    if (ag !== engine || k !== key) {
      value = compute();
      engine = ag;
      key = k;
    }
    return value;
  };
}

/**
 * Like lastResult, but keeps the results of up to `limit` inputs (the
 * oldest goes first): for a widget whose learner steps back and forth
 * between a few settings (the five dimensions, the tabs).
 * @returns {(ag: object, key: string, compute: () => T) => T}
 * @template T
 */
export function keptResults(limit = 32) {
  let engine = null;
  const kept = new Map();
  return (ag, key, compute) => {
    if (ag !== engine) {
      kept.clear();
      engine = ag;
    }
    if (kept.has(key)) return kept.get(key);
    const value = compute();
    if (kept.size >= limit) kept.delete(kept.keys().next().value);
    kept.set(key, value);
    return value;
  };
}
