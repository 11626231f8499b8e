// The run of chapter 34 (<ag-heads-learn>): the sizes and rate of the 2-layer, 2-head model that learns
// inductionCopy in tests/js/transformer-learning.test.mjs, the held-out sequences, the head mask of
// the state, and which head attends L - 1 positions back (no number is computed here: a pick among
// results of the worker's forward call).

export const T = 16;
export const VOCAB = 16;
/** inductionCopy repeats L = T / 2 distinct tokens: position t of the second half copies t - L + 1. */
export const L = T / 2;
export const LAYERS = 2;
export const HEADS = 2;
export const LR = 0.01;
export const CLIP = 1;
export const BATCH = 16;
export const CHUNK = 20;
/** The held-out batch (its seed is above every training seed of the state) and the sequence drawn. */
export const HELD_OUT = { seed: 999, batch: 64 };
export const STEP_CHOICES = [30, 100, 200, 300];
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
 * The head [l, j] whose grid puts the most weight, summed over the rows t = L .. T - 2 of the second
 * half, on key t - L + 1 (the token after the earlier copy): `weights` per layer, [1, heads, T, T].
 */
export function copyingHead(weights) {
  let best = [0, 0];
  let most = -1;
  weights.forEach((w, l) => {
    for (let j = 0; j < HEADS; j++) {
      let s = 0;
      for (let t = L; t < T - 1; t++) s += w.data[(j * T + t) * T + t - L + 1];
      if (s > most) [best, most] = [[l, j], s];
    }
  });
  return best;
}
