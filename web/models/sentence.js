// The sentence of the part-2 chapters (content to weights, multi-head
// attention, what weights explain); pure, no DOM:
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
// - the checks of a sentence state (readable words, a query inside the sentence).

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
