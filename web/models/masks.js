// The masks of the chapter "masks" as data, no DOM and no number shown: which
// key j each query i may see under a causal, padding or sliding-window mask,
// the additive mask M (0 where visible, the fill where hidden) that the
// chapter passes to attention, with the cells the learner flipped, and the
// attention option that gives the same mask. Sources: Vaswani et al. 2017
// (the causal mask of the decoder); Beltagy et al. 2020, Longformer, and
// Jiang et al. 2023, Mistral 7B (the sliding window); Press et al. 2022,
// ALiBi (a bias, not a hidden key: every key stays visible here).

/** Tokens of the example: T queries and T keys. */
export const T = 6;
/** ALiBi heads: the slopes are alibiSlopes(HEADS). */
export const HEADS = 8;
/** The kinds of mask, in the order of the controls. */
export const KINDS = ['none', 'causal', 'padding', 'window', 'alibi'];
/** What a hidden key adds to its score: −∞, or −1e9 (a finite stand-in often seen in code). */
export const FILLS = { inf: -Infinity, '1e9': -1e9 };

/** Q, K [T, d_k = 2] and V [T, 2] of the example (fixed inputs). */
export const Q = [
  [1, 0.5],
  [0.2, 1],
  [1, 1],
  [-1, 0.5],
  [0.5, -1],
  [1.5, 0.3],
];
export const K = [
  [1, 1],
  [0.3, -1],
  [1, 0.2],
  [-0.8, 1],
  [0.5, 0.6],
  [0.1, 1.5],
];
export const V = [
  [1, 0],
  [0, 1],
  [1, 1],
  [-1, 0],
  [0, -1],
  [0.5, 0.5],
];
/** Zero queries and keys: every score q·k is 0, so the scores attention returns are the mask itself. */
export const ZERO = Array.from({ length: T }, () => [0, 0]);

/** Whether query i may see key j (0-based) under the mask `kind` (len: valid keys, w: window). */
export function visible(kind, { len, w }, i, j) {
  if (kind === 'causal') return j <= i;
  if (kind === 'padding') return j < len;
  if (kind === 'window') return j <= i && j > i - w;
  return true; // none, alibi
}

/** Whether query i sees key j once the learner's flips (flip[i][j] = 1) are applied. */
export const seen = (state, i, j) => visible(state.kind, state, i, j) !== (state.flip[i][j] === 1);

/** The additive mask [T, T]: 0 where a key is seen, the state's fill where it is hidden. */
export function additiveMask(state) {
  const data = new Float32Array(T * T);
  for (let i = 0; i < T; i += 1)
    for (let j = 0; j < T; j += 1) data[i * T + j] = seen(state, i, j) ? 0 : FILLS[state.fill];
  return { data, shape: [T, T] };
}

/** The rows (0-based) in which no key is seen. */
export const blindRows = (state) =>
  Array.from({ length: T }, (_, i) => i).filter((i) =>
    Array.from({ length: T }, (_, j) => seen(state, i, j)).every((s) => !s),
  );

/**
 * The attention option that gives the kind's own mask (with −∞), and how it is written:
 * { options, text }. `slope` is the ALiBi slope of the chosen head.
 */
export function apiOption({ kind, len, w }, slope) {
  if (kind === 'causal') return { options: { causal: true }, text: '{ causal: true }' };
  if (kind === 'padding') return { options: { kvSeqLen: [len] }, text: `{ kvSeqLen: [${len}] }` };
  if (kind === 'window') return { options: { window: w }, text: `{ window: ${w} }` };
  if (kind === 'alibi') return { options: { alibi: [slope] }, text: '{ alibi: [m] }' };
  return { options: {}, text: '{}' };
}

/** Flips that hide every key of row `row` (1-based) under `kind`, and nothing else. */
export function hideRow(state, row) {
  return Array.from({ length: T }, (_, i) =>
    Array.from({ length: T }, (_, j) => (i === row - 1 && visible(state.kind, state, i, j) ? 1 : 0)),
  );
}

/** No flips. */
export const NO_FLIPS = Array.from({ length: T }, () => Array(T).fill(0));
