// Shared pieces of the part-2 chapters on sentences (content to weights,
// multi-head attention, what weights explain):
//
// - a sentence of short lowercase words, kept in the state as one whole
//   number per word (the letters packed in base 27, so any word of up to
//   8 letters a-z survives the URL exactly);
// - the map word -> deterministic embedding: the word is hashed (FNV-1a,
//   32 bits) to a seed of the module's counter-based generator, and its
//   embedding is drawn by ag.random.normal, so the same word always gets the
//   same vector, in every build, and the numbers are wasm results;
// - fixed positional codes (points on a circle, 30 degrees apart), typed in
//   as constants;
// - small tables of numbers (row labels, one cell per entry, written through
//   the widget's show()).
import { h, setText } from '../widget/dom.js';

export const MAX_WORD = 8;
export const MIN_WORDS = 2;
export const MAX_WORDS = 6;
/** Largest packed word: 27^8 - 1. */
export const MAX_CODE = 27 ** MAX_WORD - 1;

/** 'cat' -> a whole number (base 27, a = 1 .. z = 26, first letter lowest). */
export function packWord(word) {
  let code = 0;
  for (let i = word.length - 1; i >= 0; i -= 1) code = code * 27 + (word.charCodeAt(i) - 96);
  return code;
}

/** The inverse of packWord ('' for 0 or a code with a zero digit). */
export function unpackWord(code) {
  let word = '';
  let c = code;
  while (c > 0) {
    const d = c % 27;
    if (d === 0) return '';
    word += String.fromCharCode(96 + d);
    c = (c - d) / 27;
  }
  return word;
}

export const packSentence = (words) => words.map(packWord);
export const unpackSentence = (codes) => Array.from(codes, unpackWord);

/**
 * Reads a sentence typed by the learner: words of 1 to 8 letters a-z
 * (upper case is lowered), 2 to 6 of them. @returns {{ words } | { error }}
 */
export function parseSentence(text) {
  const words = String(text).trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length < MIN_WORDS || words.length > MAX_WORDS)
    return { error: `Type ${MIN_WORDS} to ${MAX_WORDS} words.` };
  const bad = words.find((w) => !/^[a-z]{1,8}$/.test(w));
  if (bad !== undefined)
    return { error: `\u201c${bad.slice(0, 20)}\u201d: use words of 1 to ${MAX_WORD} letters a\u2013z.` };
  return { words };
}

/** FNV-1a (32 bits) of a word: the seed of its embedding. */
export function wordSeed(word) {
  let x = 0x811c9dc5;
  for (let i = 0; i < word.length; i += 1) {
    x ^= word.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

/** The word's n standard-normal numbers (ag.random.normal, seeded by the word; `stream` picks an independent block). */
export function wordVector(ag, word, n, stream = 0) {
  return Array.from(ag.random.normal({ seed: wordSeed(word), counter: stream * 1024, n }).data);
}

/**
 * Positional codes: position t (0-based) is the point at angle 30 t degrees on
 * the unit circle, typed in to three decimals. Consecutive positions are
 * 30 degrees apart, and position 0 is the only one on the positive x axis.
 */
export const POSITIONS = [
  [1, 0],
  [0.866, 0.5],
  [0.5, 0.866],
  [0, 1],
  [-0.5, 0.866],
  [-0.866, 0.5],
];

/** A small table of a matrix, one row per token; cells are filled by `fill`. */
export function matrixTable({ caption, rows, cols, role, colLabel = (j) => String(j + 1) }) {
  const cells = [];
  const table = h(
    'table',
    { class: 'mat', dataset: { role: `${role}-table` } },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'token')),
        Array.from({ length: cols }, (_, j) => h('th', { scope: 'col' }, colLabel(j))),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((label, i) => {
        const row = Array.from({ length: cols }, (_, j) =>
          h('td', { class: 'num', dataset: { role, key: `${i + 1}-${j + 1}` } }, '\u2026'),
        );
        cells.push(row);
        return h('tr', {}, h('th', { scope: 'row' }, label), row);
      }),
    ),
  );
  return {
    element: h('div', { class: 'mat-wrap' }, table),
    cells,
    /**
     * values: rows of wasm results; show: the widget's show. `plain: n` writes the
     * first n columns as plain input text (no data-value: typed-in constants).
     */
    fill(values, show, { plain = 0, ...options } = {}) {
      cells.forEach((row, i) =>
        row.forEach((el, j) => {
          if (j < plain) {
            setText(el, String(values[i][j]).replace('-', '\u2212'));
            delete el.dataset.value;
            el.classList.add('is-input');
          } else show(el, values[i][j], options);
        }),
      );
    },
  };
}

/** Rows of a {data, shape} tensor whose last axis has `cols` entries, from `offset` (views, no copy). */
export function rowsOf(tensor, cols, count, offset = 0) {
  return Array.from({ length: count }, (_, i) => tensor.data.subarray(offset + i * cols, offset + (i + 1) * cols));
}

/** A shape as text: [5, 4]. */
export const shapeText = (dims) => `[${dims.join(', ')}]`;

// ------------------------------------------------ a small two-layer stack (chapter 9)

/** d_model of the two-layer stack; one head per layer. */
export const STACK_D = 4;

/** X [T, 4]: [positional code | two of the word's numbers] (the code is typed-in input). */
export function stackEmbed(ag, words) {
  return words.map((w, t) => [...POSITIONS[t], ...wordVector(ag, w, 2)]);
}

/** The weights of layer 1 and 2 ([in, out]), drawn by ag.random.normal from `seed`, scaled by `gain`. */
export function stackWeights(ag, seed, gain = 1) {
  const D = STACK_D;
  const draw = (s) => {
    const r = ag.random.normal({ seed: s, n: D * D }).data;
    return Array.from({ length: D }, (_, i) => Array.from({ length: D }, (_, j) => r[i * D + j] * gain));
  };
  return [1, 2].map((L) => ({
    wQ: draw(seed * 100 + L * 10 + 1),
    wK: draw(seed * 100 + L * 10 + 2),
    wV: draw(seed * 100 + L * 10 + 3),
    wO: draw(seed * 100 + L * 10 + 4),
  }));
}

/** a + b row by row, as one batched product [T,1,2]·[T,2,d] (the residual connection, in wasm). */
function residual(ag, a, b, T, d) {
  const pairs = new Float32Array(T * 2 * d);
  for (let t = 0; t < T; t += 1) {
    pairs.set(a.subarray(t * d, (t + 1) * d), t * 2 * d);
    pairs.set(b.subarray(t * d, (t + 1) * d), t * 2 * d + d);
  }
  const ones = new Float32Array(T * 2).fill(1);
  return ag.matmul({ data: ones, shape: [T, 1, 2] }, { data: pairs, shape: [T, 2, d] });
}

/**
 * x -> x1 = x + MHA1(x) -> x2 = x1 + MHA2(x1). `ablate` = { layer, key } hides
 * key `key` (0-based) in that layer through keyPaddingMask.
 */
export function runStack(ag, X, layers, ablate = null) {
  const T = X.length;
  const d = STACK_D;
  const x0 = { data: Float32Array.from(X.flat()), shape: [T, d] };
  const mask = (L) =>
    ablate && ablate.layer === L ? Array.from({ length: T }, (_, j) => j === ablate.key) : undefined;
  const m1 = ag.multiHeadAttention({ query: x0 }, layers[0], {
    numHeads: 1,
    returnWeights: true,
    keyPaddingMask: mask(1),
  });
  const x1 = residual(ag, x0.data, m1.output.data, T, d);
  const x1t = { data: x1.data, shape: [T, d] };
  const m2 = ag.multiHeadAttention({ query: x1t }, layers[1], {
    numHeads: 1,
    returnWeights: true,
    keyPaddingMask: mask(2),
  });
  const x2 = residual(ag, x1.data, m2.output.data, T, d);
  return { x1: x1t, x2: { data: x2.data, shape: [T, d] }, weights: [m1.weights, m2.weights] };
}

/**
 * Every key ablated in each layer: effect[L][i][j] = |x2_i - x2_i(key j hidden in layer L)|,
 * the difference by ag.matmul ([1, -1] times the two rows) and its length by ag.norm.
 */
export function ablationEffects(ag, X, layers, base) {
  const T = X.length;
  const d = STACK_D;
  const minus = new Float32Array(T * 2);
  for (let t = 0; t < T; t += 1) minus.set([1, -1], t * 2);
  return [1, 2].map((L) =>
    Array.from({ length: T }, (_, j) => {
      const run = runStack(ag, X, layers, { layer: L, key: j });
      const pairs = new Float32Array(T * 2 * d);
      for (let t = 0; t < T; t += 1) {
        pairs.set(base.x2.data.subarray(t * d, (t + 1) * d), t * 2 * d);
        pairs.set(run.x2.data.subarray(t * d, (t + 1) * d), t * 2 * d + d);
      }
      const diff = ag.matmul({ data: minus, shape: [T, 1, 2] }, { data: pairs, shape: [T, 2, d] });
      return Array.from({ length: T }, (_, i) => ag.norm(diff.data.subarray(i * d, (i + 1) * d)));
    }),
  ); // [L][j][i]
}

/** Ranks (0 = largest) of a row of numbers (comparisons only). */
export function ranks(values) {
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]);
  const r = new Array(values.length);
  order.forEach((j, k) => {
    r[j] = k;
  });
  return r;
}

/**
 * The two kinds of case for one query of one layer: a key in the top half by
 * weight but the bottom half by effect ('large-little'), or the other way round ('small-much').
 */
export function classify(weights, effects) {
  const T = weights.length;
  const rw = ranks(weights);
  const re = ranks(effects);
  const top = Math.floor(T / 2);
  const bottom = Math.ceil(T / 2);
  return Array.from(weights, (_, j) =>
    rw[j] < top && re[j] >= bottom ? 'large-little' : rw[j] >= bottom && re[j] < top ? 'small-much' : null,
  );
}

/** A sentence state whose numbers are not all words (a hand-made link): a problem for the field `words`. */
export const unreadableWords = (words) =>
  unpackSentence(words).some((w) => w === '')
    ? [
        {
          name: 'words',
          value: words.join(','),
          expected: 'one number per word, each a word of letters a\u2013z packed as the page writes it',
        },
      ]
    : [];

/**
 * The query (1-based) must be one of the sentence's words: query = 6 with 5
 * words names no token. The query goes back to its default, and the words
 * too when the default query is past their end as well.
 */
export function queryProblems(words, query, defaultQuery) {
  const T = words.length;
  if (query <= T) return [];
  const problems = [
    { name: 'query', value: String(query), expected: `a word of the sentence, from 1 to ${T} (it has ${T} words)` },
  ];
  if (defaultQuery > T) {
    problems.push({
      name: 'words',
      value: words.join(','),
      expected: `at least ${defaultQuery} words (with the query back to its default ${defaultQuery}, the words go back to their default too)`,
    });
  }
  return problems;
}
