// Chapter 33, "Why 1/√d_k keeps learning alive": the two training runs of one
// model, with and without the scale of the scores, and the settings the learner
// picks. Pure data and shapes; every number is computed by the API (in the
// experiment worker for the runs, in the page for the entropies).
// Sizes and rates from tests/js/transformer-learning.test.mjs's d_k = 256 case.

/** The head width d_k (dModel = d_k: one head), the learning rates and the step budgets. */
export const DKS = [16, 64, 256];
export const LRS = [0.001, 0.003, 0.01];
export const STEPS = [20, 40, 80, 160];
/** Positions per row and symbols; rows per batch; steps per message of the worker. */
export const T = 16;
export const VOCAB = 16;
export const BATCH = 4;
export const CHUNK = 4;
/** The seed of the held-out row whose attention rows give the entropy. */
export const PROBE_SEED = 999;
/** The query projection's name in the model's parameters (index.d.ts, gradNorms). */
export const WQ = 'layers.0.attn.wq';

/** The two runs: the same model and data, the scores scaled by 1/√d_k or not. */
export const RUNS = [
  { id: 'scaled', scaleScores: true, label: 'With 1/\u221ad\u2096', model: 'the scaled model' },
  { id: 'unscaled', scaleScores: false, label: 'Without the scale', model: 'the unscaled model' },
];

/** The model of a run: 1 layer, 1 head of width d_k, no MLP, layer norm. */
export const configOf = ({ dk, seed }, scaleScores) => ({
  vocab: VOCAB,
  T,
  dModel: dk,
  heads: 1,
  layers: 1,
  mlp: false,
  norm: 'layer',
  scaleScores,
  seed,
});

/** The training job of one run (web/widget/training.js): copyPrevious, Adam, the probe row's weights after each chunk. */
export const jobOf = (state, scaleScores, probe) => ({
  config: configOf(state, scaleScores),
  task: { name: 'copyPrevious', T, vocab: VOCAB, batch: BATCH, seed: state.seed },
  steps: state.steps,
  lr: state.lr,
  chunk: CHUNK,
  snapshot: { weights: true, gradNorms: true, tokens: probe },
});

/** The key of the runs a state asks for. */
export const keyOf = ({ dk, seed, lr, steps }) => `${dk}/${seed}/${lr}/${steps}`;

/**
 * The attention rows of the probe that see two keys or more (positions 2..T; causal, so position 1 sees one),
 * from the weights [1, 1, T, T] of layer 0 (a tensor, or a list of them per layer).
 */
export function rowsSeeing(weights) {
  const w = Array.isArray(weights) ? weights[0] : weights;
  const data = Float32Array.from(w.data ?? w);
  return Array.from({ length: T - 1 }, (_, i) => data.subarray((i + 1) * T, (i + 2) * T));
}

/** Weights 1/(T − 1) for the mean of the T − 1 rows' entropies (an ag.dot). */
export const MEAN = new Float32Array(T - 1).fill(1 / (T - 1));
