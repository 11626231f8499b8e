// Chapter 35, "Your own task": the five tasks of ag.tasks with the layout of
// each, the caps on the sizes (what trains in seconds to a minute in a
// browser), the model's config and the training job of a state, and the
// prediction's short runs. No DOM; every number is a result of the API.

/** The tasks of ag.tasks, each with its layout in one line (src/js/tasks.js). */
export const TASKS = [
  {
    id: 'copyPrevious',
    label: 'copy the previous token',
    layout: 'Random tokens; the target at t is token t \u2212 1.',
  },
  {
    id: 'reverse',
    label: 'reverse',
    layout: '\u230aT/2\u230b symbols, a separator (vocab \u2212 1), then the symbols backwards.',
  },
  {
    id: 'sort',
    label: 'sort',
    layout: '\u230aT/2\u230b symbols, a separator (vocab \u2212 1), then the symbols sorted.',
  },
  {
    id: 'inductionCopy',
    label: 'induction copy',
    layout:
      'L distinct symbols repeated to the end of the row, L drawn per row from max(2, \u2308T/4\u2309) to \u230aT/2\u230b: every token after the first L is predicted.',
  },
  {
    id: 'bracketMatch',
    label: 'bracket match',
    layout: 'A walk of \u2018(\u2019 (0) and \u2018)\u2019 (1); the target is 1 where the brackets so far balance.',
  },
];

/**
 * The caps of the sizes: at the largest (T 16, d_model 64, 3 layers with the MLP, batch 16) a step takes
 * tens of milliseconds in a browser, so the most steps (1000) train in about a minute.
 */
export const CAPS = {
  t: [2, 16],
  vocab: [2, 16],
  d: [2, 64],
  heads: [1, 4],
  layers: [1, 3],
  steps: [50, 1000],
};
/** Adam's learning rates offered. */
export const RATES = ['0.001', '0.003', '0.01', '0.03'];
/** Rows per training batch and in the held-out batch. */
export const BATCH = 16;
export const HELD_OUT = 64;
/**
 * Steps per message of the worker: 10, or a twentieth of a long run, so that a run draws at most about 20
 * updates (each redraws the curves and the heat map on the page).
 */
export const chunkOf = (steps) => Math.max(10, Math.round(steps / 20));
/** The held-out batch is drawn with seed + HELD_OUT_SEED, never a seed of the training data (0..999999). */
export const HELD_OUT_SEED = 1000000;

/** The config of createTransformer for a state (ready for ag.createTransformer). */
export const configOf = (s) => ({
  vocab: s.vocab,
  T: s.t,
  dModel: s.d,
  heads: s.heads,
  layers: s.layers,
  mlp: s.mlp,
  norm: s.norm,
  scaleScores: s.scale,
  seed: s.seed,
});

/** The task options of the training data and of the held-out batch. */
export const taskOf = (s) => ({ name: s.task, T: s.t, vocab: s.vocab, batch: BATCH, seed: s.seed });
export const heldOutOf = (s) => ({ seed: s.seed + HELD_OUT_SEED, batch: HELD_OUT });

/** The held-out example whose attention is shown: row 0 of the held-out batch (ag.tasks), or the task's RangeError. */
export function exampleOf(ag, s) {
  const batch = ag.tasks[s.task]({ T: s.t, vocab: s.vocab, batch: HELD_OUT, seed: s.seed + HELD_OUT_SEED }).next();
  return { tokens: Array.from(batch.tokens.subarray(0, s.t)), targets: Array.from(batch.targets.subarray(0, s.t)) };
}

/** The training job of the worker (web/widget/training.js) for a state and its example's tokens. */
export const jobOf = (s, tokens) => ({
  config: configOf(s),
  task: taskOf(s),
  steps: s.steps,
  lr: Number(s.lr),
  clip: 1,
  chunk: chunkOf(s.steps),
  evalEvery: chunkOf(s.steps),
  heldOut: heldOutOf(s),
  snapshot: { weights: true, tokens: [tokens] },
});

/**
 * What the prediction trains: each task on a 1-layer, 1-head model without the MLP, with the widget's own training
 * (BATCH rows a step, the same held-out batch): the run the widget then trains on induction copy is one of them,
 * and shows the same held-out accuracy at the same step.
 */
export const PROBE = {
  task: 'inductionCopy',
  t: 12,
  vocab: 8,
  d: 16,
  heads: 1,
  layers: 1,
  mlp: false,
  norm: 'layer',
  scale: true,
  lr: '0.01',
  steps: 100,
  seed: 1,
};

/** The held-out accuracy of the PROBE model after PROBE.steps steps of each task: { [task]: accuracy }. */
export function probeAccuracies(ag) {
  const out = {};
  for (const { id } of TASKS) {
    const s = { ...PROBE, task: id };
    const model = ag.createTransformer(configOf(s));
    const data = ag.tasks[id]({ T: s.t, vocab: s.vocab, batch: BATCH, seed: s.seed });
    for (let i = 0; i < s.steps; i++) model.step(data.next(), { lr: Number(s.lr), clip: 1 });
    out[id] = model.evaluate(ag.tasks[id]({ T: s.t, vocab: s.vocab, ...heldOutOf(s) }).next()).accuracy;
    model.dispose();
  }
  return out;
}

/** The worker job (kind 'train', models/training-chunk.js) of `task`'s probe: the calls of probeAccuracies. */
export function probeJob(task) {
  const s = { ...PROBE, task };
  const { snapshot: _snapshot, ...job } = jobOf(s, []);
  return {
    ...job,
    kind: 'train',
    evalEvery: s.steps,
    to: s.steps,
    fresh: true,
  };
}
