// Training steps per second (issue 21): one step of the same tiny transformer
// (createTransformer's GPT-2 style pre-norm decoder: embeddings, layer norm,
// causal multi-head attention, the MLP, untied unembedding, mean
// cross-entropy, Adam) on our SIMD build (simd128 kernels), its scalar
// kernels, the baseline build, and tfjs-backend-wasm (SIMD, one thread)
// training the same model with tfjs-core's autograd and tf.train.adam, all in
// one interleaved measurement (bench/timing.mjs). The tfjs model starts from
// our model's parameters, and its loss on the first batch must agree with
// ours (the same model, not a look-alike). One step = the forward pass, the
// gradients and the Adam update of one batch of copyPrevious.
//   node scripts/bench/training.mjs [--smoke]   this measurement alone (bench.mjs runs it too)
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { buildSync } from 'esbuild';
import { tfjsImplementation } from './peers-tfjs.mjs';

/** The model and batch of a full run and of a --smoke run. */
export const TRAINING_SIZES = {
  full: { config: { vocab: 64, T: 64, dModel: 64, heads: 4, layers: 2, mlp: true, seed: 1 }, batch: 8 },
  smoke: { config: { vocab: 8, T: 8, dModel: 16, heads: 2, layers: 1, mlp: true, seed: 1 }, batch: 2 },
};
const LR = 1e-3;
/** The loss of tfjs's model on the first batch must be within this of ours, relatively. */
const LOSS_AGREEMENT = 1e-4;

let gradientsRegistered = false;
/**
 * tfjs-core registers no gradient by itself: the tfjs union package imports
 * its dist/register_all_gradients.js, an ES module whose imports Node cannot
 * resolve (no file extensions). esbuild bundles it; the gradients register in
 * tfjs's global registry, which the engine of '@tensorflow/tfjs-core' reads.
 */
async function registerGradients() {
  if (gradientsRegistered) return;
  const entry = createRequire(import.meta.url).resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const code = buildSync({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', write: false });
  await import(`data:text/javascript;base64,${Buffer.from(code.outputFiles[0].text).toString('base64')}`);
  gradientsRegistered = true;
}

/**
 * The same model in tfjs-core: variables made from `params` (our parameter
 * names), a step = tf.train.adam(lr).minimize of the mean cross-entropy over
 * the scored positions. Returns { loss(batch), step(batch), dispose() }.
 */
function tfjsModel(config, params) {
  const { vocab, T, dModel: d, heads: h, layers } = config;
  const dk = d / h;
  const shapeOf = (name) => {
    if (name === 'embed.token') return [vocab, d];
    if (name === 'embed.position') return [T, d];
    if (name === 'unembed') return [d, vocab];
    if (name.endsWith('w1')) return [d, 4 * d];
    if (name.endsWith('w2')) return [4 * d, d];
    if (/\.w[qkvo]$/.test(name)) return [d, d];
    return [params[name].length];
  };
  const v = {};
  for (const [name, data] of Object.entries(params)) v[name] = tf.variable(tf.tensor(data, shapeOf(name)), true, name);
  // Additive causal mask [T, T]: 0 on and below the diagonal, -1e9 above (-Infinity gives NaN gradients in tfjs).
  const maskData = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) maskData[i * T + j] = -1e9;
  const mask = tf.tensor2d(maskData, [T, T]);
  const scale = 1 / Math.sqrt(dk);
  const layerNorm = (x, prefix) => {
    const { mean, variance } = tf.moments(x, -1, true);
    const xhat = tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5)));
    return tf.add(tf.mul(xhat, v[`${prefix}.gamma`]), v[`${prefix}.beta`]);
  };
  const heads = (x, B) => tf.transpose(tf.reshape(x, [B, T, h, dk]), [0, 2, 1, 3]);
  function logits(tokens, B) {
    const R = B * T;
    // The embedding as one-hot rows times E: the gradient of tf.gather needs UnsortedSegmentSum, which the
    // wasm backend does not have (the product costs R vocab dModel more multiply-adds, noted in the report).
    const onehot = tf.cast(tf.oneHot(tf.tensor1d(tokens, 'int32'), vocab), 'float32');
    let x = tf.add(tf.matMul(onehot, v['embed.token']), tf.tile(v['embed.position'], [B, 1]));
    for (let l = 0; l < layers; l++) {
      const p = `layers.${l}`;
      const a = layerNorm(x, `${p}.ln1`);
      const q = heads(tf.matMul(a, v[`${p}.attn.wq`]), B);
      const k = heads(tf.matMul(a, v[`${p}.attn.wk`]), B);
      const val = heads(tf.matMul(a, v[`${p}.attn.wv`]), B);
      const w = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), scale), mask));
      const o = tf.reshape(tf.transpose(tf.matMul(w, val), [0, 2, 1, 3]), [R, d]);
      x = tf.add(x, tf.matMul(o, v[`${p}.attn.wo`]));
      if (config.mlp) {
        const c = layerNorm(x, `${p}.ln2`);
        const hid = tf.relu(tf.add(tf.matMul(c, v[`${p}.mlp.w1`]), v[`${p}.mlp.b1`]));
        x = tf.add(x, tf.add(tf.matMul(hid, v[`${p}.mlp.w2`]), v[`${p}.mlp.b2`]));
      }
    }
    return tf.matMul(layerNorm(x, 'lnf'), v.unembed);
  }
  // Mean over scored rows of logsumexp(z) - z[target]: a one-hot of -1 is a zero row, which scores nothing.
  function loss({ tokens, targets }) {
    const B = tokens.length / T;
    const scored = targets.filter((t) => t >= 0).length;
    const onehot = tf.oneHot(tf.tensor1d(targets, 'int32'), vocab);
    const logp = tf.logSoftmax(logits(tokens, B));
    return tf.div(tf.neg(tf.sum(tf.mul(onehot, logp))), scored);
  }
  const optimizer = tf.train.adam(LR, 0.9, 0.999, 1e-8);
  const vars = Object.values(v);
  return {
    loss: (batch) => {
      const l = tf.tidy(() => loss(batch));
      const value = l.dataSync()[0];
      l.dispose();
      return value;
    },
    step: (batch) => {
      const l = optimizer.minimize(() => loss(batch), true, vars);
      const value = l.dataSync()[0];
      l.dispose();
      return value;
    },
    dispose: () => {
      optimizer.dispose();
      mask.dispose();
      for (const x of vars) x.dispose();
    },
  };
}

/**
 * Times one training step on each of `ours` ([{ id, ag }]) and on tfjs, in
 * one interleaved measurement. Returns { config, batch, results: [{ impl,
 * medianMs, stepsPerSecond, ... }], ratios: { vsTfjs, vsScalar, vsBaseline },
 * initialLoss } (ratios: steps per second of our simd128 over the other's);
 * a tfjs that does not load or disagrees is reported as failed.
 */
export async function measureTraining(ours, { smoke, measure, timing, log = () => {} }) {
  const { config, batch } = smoke ? TRAINING_SIZES.smoke : TRAINING_SIZES.full;
  const first = ours[0].ag;
  const data = first.tasks.copyPrevious({ T: config.T, vocab: config.vocab, batch, seed: 2 });
  const batches = Array.from({ length: 8 }, (_, i) => data.at(i));
  let next = 0;
  const nextBatch = () => batches[next++ % batches.length];
  const calls = [];
  const models = [];
  for (const impl of ours) {
    const model = impl.ag.createTransformer(config);
    models.push(model);
    calls.push({ key: impl.id, run: () => model.step(nextBatch(), { lr: LR }).loss, isAsync: false });
  }
  const oursLoss = models[0].evaluate(batches[0]).loss;
  let tfjsFailed = null;
  let tfjs = null;
  try {
    if (tf.getBackend() !== 'wasm') await tfjsImplementation();
    await registerGradients();
    tfjs = tfjsModel(config, models[0].parameters());
    const tfjsLoss = tfjs.loss(batches[0]);
    if (!(Math.abs(tfjsLoss - oursLoss) <= LOSS_AGREEMENT * oursLoss))
      throw new Error(`tfjs's loss ${tfjsLoss} on the first batch is not ours, ${oursLoss}: not the same model`);
    calls.push({ key: 'tfjs-wasm', run: () => tfjs.step(nextBatch()), isAsync: false });
  } catch (e) {
    tfjsFailed = String(e.message ?? e).split('\n')[0];
    log(`training: tfjs not measured: ${tfjsFailed}`);
  }
  const timed = await measure(calls, timing);
  for (const m of models) m.dispose();
  if (tfjs) tfjs.dispose();
  const results = calls.map((c) => {
    const t = timed.get(c.key);
    return t.failed ? { impl: c.key, failed: t.failed } : { impl: c.key, ...t, stepsPerSecond: 1000 / t.medianMs };
  });
  if (tfjsFailed) results.push({ impl: 'tfjs-wasm', failed: tfjsFailed });
  const ms = (id) => results.find((r) => r.impl === id && Number.isFinite(r.medianMs))?.medianMs;
  const ratio = (id) => (ms('ag-simd128') && ms(id) ? ms(id) / ms('ag-simd128') : null);
  const run = {
    config,
    batch,
    lr: LR,
    initialLoss: oursLoss,
    results,
    ratios: { vsTfjs: ratio('tfjs-wasm'), vsScalar: ratio('ag-scalar'), vsBaseline: ratio('ag-baseline') },
    goal: { vsTfjs: 3 },
  };
  log(`training: ${results.map((r) => `${r.impl} ${r.stepsPerSecond?.toFixed(1) ?? 'failed'} steps/s`).join(', ')}`);
  return run;
}

/** The Markdown section of the training measurement (after the other reports of bench.mjs). */
export function trainingReport(run) {
  const t = run.training;
  if (!t) return '';
  const c = t.config;
  const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
  const lines = [
    '',
    '## Training a tiny transformer (issue 21)',
    '',
    `One training step (forward, gradients, Adam at lr ${t.lr}) of createTransformer's model: vocab ${c.vocab}, T ${c.T}, dModel ${c.dModel}, ${c.heads} heads, ${c.layers} layers, MLP, layer norm; batch ${t.batch} rows of copyPrevious. tfjs-backend-wasm trains the same model with tfjs-core's autograd and tf.train.adam (its token embedding as a one-hot product, since the wasm backend cannot take tf.gather's gradient), started from our parameters (its loss on the first batch must agree with ours, ${fmt(t.initialLoss, 4)}, or it is not timed). Goal: ≥ ${t.goal.vsTfjs}× tfjs's steps per second.`,
    '',
    '| implementation | median ms / step | steps / s | ours simd128 × faster |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const r of t.results) {
    const speedup =
      r.impl === 'ag-simd128' ? '1.00' : fmt(t.results[0].medianMs ? r.medianMs / t.results[0].medianMs : NaN);
    lines.push(
      r.failed
        ? `| ${r.impl} | failed: ${r.failed} | | |`
        : `| ${r.impl} | ${fmt(r.medianMs, 3)} | ${fmt(r.stepsPerSecond, 1)} | ${speedup}× |`,
    );
  }
  const met = Number.isFinite(t.ratios.vsTfjs) ? (t.ratios.vsTfjs >= t.goal.vsTfjs ? 'met' : 'not met') : 'not judged';
  lines.push('', `Against tfjs: ${fmt(t.ratios.vsTfjs)}× (goal ${t.goal.vsTfjs}×: ${met}).`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { oursImplementations } = await import('./ours.mjs');
  const { measure } = await import('./timing.mjs');
  const smoke = process.argv.includes('--smoke');
  const timing = smoke
    ? { clock: 'cpu', rounds: 3, roundMs: 2, warmMs: 0 }
    : { clock: 'cpu', rounds: 9, minRounds: 5, budgetMs: 8000, roundMs: 60, warmMs: 150 };
  const ours = await oursImplementations();
  const training = await measureTraining(ours, { smoke, measure, timing, log: console.error });
  console.log(trainingReport({ training }));
}
