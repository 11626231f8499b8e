// Chapter 32, "Training tunes the projections": the sizes of the model and of its task (those of
// tests/js/transformer-learning.test.mjs's copyPrevious case, which learns within 200 steps), the
// held-out sequence whose attention the chapter draws, and the training job of a state.

/** Positions and symbols: a 1-layer, 1-head model of d_model = d_k = 16 with no MLP. */
export const T = 8;
export const VOCAB = 8;
export const D_MODEL = 16;
/** The held-out sequence of the grid and of the q/k picture (not a batch the model trains on). */
export const TOKENS = [3, 1, 4, 1, 5, 2, 6, 5];
/** The learning rates offered (Adam's), as the link writes them. */
export const RATES = ['0.003', '0.01', '0.03'];
/** The lengths of a run offered. */
export const LENGTHS = ['50', '100', '200'];
/** Steps per chunk: the page draws the run every CHUNK steps. */
export const CHUNK = 5;

/** The training job of a state (widget/training.js): the model's seed, Adam's rate, the length of the run. */
export function jobOf({ seed, lr, steps }) {
  return {
    config: { vocab: VOCAB, T, dModel: D_MODEL, heads: 1, layers: 1, mlp: false, seed },
    task: { name: 'copyPrevious', T, vocab: VOCAB, batch: 16, seed: 1 },
    steps: Number(steps),
    lr: Number(lr),
    clip: 1,
    chunk: CHUNK,
    evalEvery: CHUNK,
    heldOut: { seed: 999, batch: 64 },
    snapshot: { weights: true, qk: true, tokens: [TOKENS] },
  };
}

/** The row `t` (0-based) of the [T, width] rows of `data` (a layer's q or k of the one sequence). */
export const rowOf = (data, t, width = D_MODEL) => data.subarray(t * width, (t + 1) * width);
