// The run of chapter 34 (<ag-heads-learn>): the sizes and rate of the 2-layer, 2-head model that learns
// inductionCopy in tests/js/transformer-learning.test.mjs, the held-out sequences, the head mask of
// the state, and which head of layer 0 attends to the previous token and which of layer 1 to the token
// after the current token's earlier occurrence (no number is computed here: picks among results of the
// worker's forward call).

export const T = 16;
export const VOCAB = 16;
export const LAYERS = 2;
export const HEADS = 2;
export const LR = 0.01;
export const CLIP = 1;
export const BATCH = 16;
export const CHUNK = 20;
/** The held-out batch (its seed is above every training seed of the state) and the sequence drawn. */
export const HELD_OUT = { seed: 999, batch: 64 };
export const STEP_CHOICES = [30, 100, 200, 300];
/** The steps of a fresh state: the model reaches 99 % or more by then with seeds 1, 2 and 3. */
export const DEFAULT_STEPS = 200;
export const ALL_ON = [
  [1, 1],
  [1, 1],
];

/** The training job of a state (widget/training.js). */
export function jobOf({ seed, steps, mask }, tokens) {
  const on = mask.every((row) => row.every((v) => v === 1));
  return {
    config: { vocab: VOCAB, T, dModel: 32, heads: HEADS, layers: LAYERS, mlp: false, seed },
    task: { name: 'inductionCopy', T, vocab: VOCAB, batch: BATCH, seed },
    steps,
    lr: LR,
    clip: CLIP,
    chunk: CHUNK,
    evalEvery: CHUNK,
    heldOut: HELD_OUT,
    snapshot: { weights: true, tokens },
    ...(on ? {} : { headMask: mask }),
  };
}

/** "layer 1, head 0" */
export const headName = (l, j) => `layer ${l}, head ${j}`;

/** The heads switched off, in words ("none"). */
export function offText(mask) {
  const off = [];
  mask.forEach((row, l) => row.forEach((v, j) => v === 0 && off.push(headName(l, j))));
  return off.length ? off.join('; ') : 'none';
}

/**
 * The head j of `layer` whose grid (`weights` per layer, [1, heads, T, T]) puts the most weight, summed over
 * the rows `rows`, on the keys `keys(t)` of each row t.
 */
function mostOn(weights, layer, rows, keys) {
  const w = weights[layer].data;
  let best = 0;
  let most = -1;
  for (let j = 0; j < HEADS; j++) {
    let s = 0;
    for (const t of rows) for (const k of keys(t)) s += w[(j * T + t) * T + k];
    if (s > most) [best, most] = [j, s];
  }
  return best;
}

/** The layer-0 head that puts the most weight on the token just before each query (a previous-token head). */
export const previousTokenHead = (weights) =>
  mostOn(
    weights,
    0,
    Array.from({ length: T - 1 }, (_, i) => i + 1),
    (t) => [t - 1],
  );

/**
 * The layer-1 head that puts the most weight, over the queries whose token came before in `tokens`, on the
 * keys just after those earlier occurrences (an induction head: Olsson et al. 2022).
 */
export function inductionHead(weights, tokens) {
  const after = (t) => tokens.slice(0, t).flatMap((v, i) => (v === tokens[t] ? [i + 1] : []));
  const rows = Array.from({ length: T }, (_, t) => t).filter((t) => after(t).length > 0);
  return mostOn(weights, 1, rows, after);
}
