// One chunk of a training run (Part 4; the experiment worker runs it, widget/training.js asks for it):
// the model of the run is kept between chunks; a chunk trains it on to step `to` (from a new model when
// the run's key is new, `fresh` is asked, or the model went past `to`) and returns what the page asked
// to see. Every number in an update is the return value of one API call (step, evaluate, forward).
// Batch i is the task's batch i (TaskGenerator.at), whatever the chunks: the same seeds give the same
// numbers, bit for bit, within a build.

/** The key of a run: what its numbers depend on (a new key makes a new model). */
export const runKey = (job) => JSON.stringify([job.config, job.task, job.lr, job.clip ?? null, job.heldOut ?? null]);

/** A new model and its data for `job`, the previous one freed. */
function fresh(ag, held, job) {
  held?.model.dispose();
  const { name, T, vocab, batch, seed } = job.task;
  const model = ag.createTransformer(job.config);
  const data = ag.tasks[name]({ T, vocab, batch, seed });
  const heldOut = job.heldOut
    ? ag.tasks[name]({ T, vocab, batch: job.heldOut.batch, seed: job.heldOut.seed }).at(0)
    : null;
  return { key: runKey(job), model, data, heldOut };
}

/**
 * Trains the held model (or a new one) on to step `job.to`. Returns the model kept for the next chunk and
 * the update: `{ step, steps, loss, gradNorm, losses, gradNorms?, accuracy?, heldOutLoss?, weights?, q?, k? }`;
 * `losses` holds [step, loss] for every step of the chunk (the loss of batch i at the parameters after i
 * steps), `loss` and `gradNorm` are the last step's (before the first step: the loss of batch 0 by evaluate, or,
 * when the snapshot asks for gradNorms, the loss and the gradient norms of batch 0 by gradients: those the first
 * step takes).
 */
export function trainChunk(ag, held, job) {
  let run = held;
  if (!run || job.fresh || run.key !== runKey(job) || run.model.steps > job.to) run = fresh(ag, held, job);
  const { model, data } = run;
  const options = { lr: job.lr, ...(job.clip ? { clip: job.clip } : {}) };
  const losses = [];
  let last = null;
  while (model.steps < job.to) {
    const i = model.steps;
    last = model.step(data.at(i), options);
    losses.push([i, last.loss]);
  }
  const step = model.steps;
  const u = { step, steps: job.steps, losses };
  const snap = job.snapshot ?? {};
  if (last) Object.assign(u, { loss: last.loss, gradNorm: last.gradNorm });
  else if (snap.gradNorms) {
    const g = model.gradients(data.at(step));
    Object.assign(u, { loss: g.loss, gradNorm: g.gradNorm, gradNorms: g.gradNorms });
  } else u.loss = model.evaluate(data.at(step)).loss;
  if (last && snap.gradNorms) u.gradNorms = last.gradNorms;
  const masked = job.headMask ? { headMask: job.headMask } : undefined;
  const every = job.evalEvery ?? 1;
  if (run.heldOut && (step % every === 0 || step === job.steps)) {
    const e = masked ? model.evaluate(run.heldOut, masked) : model.evaluate(run.heldOut);
    Object.assign(u, { accuracy: e.accuracy, heldOutLoss: e.loss });
  }
  if (snap.tokens && (snap.weights || snap.qk)) {
    const r = model.forward(snap.tokens, { returnWeights: !!snap.weights, returnQK: !!snap.qk, ...masked });
    if (snap.weights) u.weights = r.weights;
    if (snap.qk) Object.assign(u, { q: r.q, k: r.k });
  }
  return { held: run, update: u };
}
