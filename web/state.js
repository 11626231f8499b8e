// The state of the single-head worked example and its compact text form.
//
// State: { q: number[4], k: number[3][4], scale: 'none' | 'sqrt-dk' }.
// Text form, as URL parameters (and as the widget's attributes):
//   q=1,2,0,1   k=1,2,1,0;-1,-2,0,1;0,0,1,0   scale=none
// Reading never throws: a value that cannot be read is reported as a problem
// and the default is used in its place. Pure functions, no DOM.

export const D_K = 4;
export const KEY_COUNT = 3;
/** Largest magnitude accepted for an entry of q or a key. */
export const MAX_ABS = 1000;
export const SCALES = Object.freeze(['none', 'sqrt-dk']);

/** The example of the first article: scores 5, -4, 0. */
export const DEFAULT_STATE = Object.freeze({
  q: Object.freeze([1, 2, 0, 1]),
  k: Object.freeze([Object.freeze([1, 2, 1, 0]), Object.freeze([-1, -2, 0, 1]), Object.freeze([0, 0, 1, 0])]),
  scale: 'none',
});

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** One number from text, or null. Accepts a typographic minus sign. */
export function readNumber(text) {
  const t = String(text).trim().replace(/\u2212/g, '-');
  if (!NUMBER.test(t)) return null;
  const x = Number(t);
  return Number.isFinite(x) && Math.abs(x) <= MAX_ABS ? x : null;
}

function readVector(text, length) {
  const parts = text.split(',');
  if (parts.length !== length) return null;
  const v = parts.map(readNumber);
  return v.every((x) => x !== null) ? v : null;
}

export function readQ(text) {
  return readVector(text, D_K);
}

export function readK(text) {
  const rows = text.split(';');
  if (rows.length !== KEY_COUNT) return null;
  const k = rows.map((row) => readVector(row, D_K));
  return k.every((row) => row !== null) ? k : null;
}

export function readScale(text) {
  const t = text.trim();
  return SCALES.includes(t) ? t : null;
}

const EXPECTED = {
  q: `${D_K} numbers separated by commas, each between \u2212${MAX_ABS} and ${MAX_ABS}`,
  k: `${KEY_COUNT} keys separated by semicolons, each ${D_K} numbers separated by commas`,
  scale: `one of ${SCALES.join(', ')}`,
};
const READERS = { q: readQ, k: readK, scale: readScale };

/**
 * Reads the state from URL parameters (a URLSearchParams or anything with get()).
 * @returns {{ state: object, problems: { name: string, value: string, expected: string }[] }}
 */
export function readState(params) {
  const state = copyState(DEFAULT_STATE);
  const problems = [];
  for (const name of Object.keys(READERS)) {
    const value = params.get(name);
    if (value === null) continue;
    const read = READERS[name](value);
    if (read === null) problems.push({ name, value, expected: EXPECTED[name] });
    else state[name] = read;
  }
  return { state, problems };
}

function numberText(x) {
  // Plain decimal text that survives a URL: encodeURIComponent keeps "+" of
  // an exponent from turning into a space.
  return encodeURIComponent(String(x));
}

/** The state as URL parameters: [name, already-encoded value] pairs. */
export function stateEntries(state) {
  return [
    ['q', state.q.map(numberText).join(',')],
    ['k', state.k.map((row) => row.map(numberText).join(',')).join(';')],
    ['scale', state.scale],
  ];
}

export function copyState(state) {
  return { q: [...state.q], k: state.k.map((row) => [...row]), scale: state.scale };
}
