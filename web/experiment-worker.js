// The experiment worker: a module worker that loads the JS API (from the wasm
// URLs the page sends, or else next to this file) and runs Monte Carlo jobs as a
// sequence of kernel calls, posting progress after each call so the page
// stays responsive and can cancel (by terminating the worker).
//
// Messages in:  { type: 'run', id, impl, testMode, wasmUrl?: { simd, scalar }, job: { kind, ... } }
//               { type: 'time', id, impl, testMode, wasmUrl?, job: { kind, ... } }  (timings)
// Messages out: { type: 'progress', id, done, total, partial }
//               { type: 'result', id, result }
//               { type: 'error', id, message }
//               { type: 'log', entries }       (test mode: the kernel-call log)
//
// Jobs (every number in a result is the return value of one API call):
//   { kind: 'calls', calls: [{ method, args, work }] }
//       runs ag[method](...args) in order; `work` weighs the progress.
//   { kind: 'packing', dims: [d...], candidates, epsilon, seed }
//       greedyPacking for each d, continued call after call (each call's
//       work bounded); result per d: { d, kept } of its last call.
//   { kind: 'scale-fix', dks: [d_k...], seed, tokens, rows }
//       chapter 11's mean curves (models/scale-fix-curves.js), one d_k at a time.
//   { kind: 'train', config, task, lr, clip?, steps, to, fresh?, evalEvery?, heldOut?, snapshot?, headMask? }
//       Part 4: one chunk of a training run (models/training-chunk.js, widget/training.js); the model
//       stays in this worker between chunks; result: the chunk's update.
//
// Timings ('time'; their instances log no calls, so logging costs no time):
//   { kind: 'kernel-lab', kernel, size }
//       one workload of the kernel lab on the SIMD build's simd128 and scalar
//       variants, or on the baseline build alone where the engine has no SIMD
//       (timing/kernel-timing.js); result { simd, kernel, size, flops, rows }.
//   { kind: 'attention-cost', sizes, dk }
//       plain against streaming attention for each T: peak heap bytes and
//       time (timing/attention-cost.js) on the page's implementation.
import { init } from '../dist/index.js';
import { curvesAt } from './models/scale-fix-curves.js';
import { trainChunk } from './models/training-chunk.js';
import { attentionCost } from './timing/attention-cost.js';
import { timeKernel } from './timing/kernel-timing.js';

const IMPL_OPTIONS = {
  simd128: { simd: true, variant: 'simd128' },
  scalar: { simd: true, variant: 'scalar' },
  baseline: { simd: false },
  auto: { simd: 'auto' },
};

const engines = new Map(); // "<impl>:<logged>" -> Promise of an API instance
let pendingLog = [];

/**
 * The API instance of `impl`, loaded once per worker. `logged`: in test mode
 * its kernel calls go to the page's call log.
 */
function getAg(impl, logged, wasmUrl) {
  const key = `${impl}:${logged}`;
  if (!engines.has(key)) {
    const logOptions = logged ? { logCalls: false, onKernelCall: (entry) => pendingLog.push(slim(entry)) } : {};
    // The page's URLs of the wasm files: absolute URLs next to the bundle, or
    // data: URLs in the single-file offline page (whose worker has no files beside it).
    const locate = wasmUrl ? { wasmUrl } : {};
    const p = init({ ...(IMPL_OPTIONS[impl] ?? IMPL_OPTIONS.auto), ...locate, ...logOptions });
    p.catch(() => engines.delete(key));
    engines.set(key, p);
  }
  return engines.get(key);
}

/**
 * The builds the kernel lab compares: the SIMD build's simd128 and scalar
 * variants, or, on an engine without SIMD, the baseline build alone.
 */
async function labBuilds(wasmUrl) {
  const first = await getAg('auto', false, wasmUrl);
  if (first.backend !== 'wasm-simd128')
    return { simd: false, builds: [{ variant: 'scalar', build: 'baseline', ag: first }] };
  // 'auto' on a SIMD engine is the simd128 variant: reuse it.
  const simd128 = first.variant === 'simd128' ? first : await getAg('simd128', false, wasmUrl);
  const scalar = await getAg('scalar', false, wasmUrl);
  return {
    simd: true,
    builds: [
      { variant: 'simd128', build: 'simd', ag: simd128 },
      { variant: 'scalar', build: 'simd', ag: scalar },
    ],
  };
}

// Large arrays (kept directions, samples) are not needed by the log's readers,
// which look for the shown numbers; keep every scalar and small array.
function slim(value) {
  if (ArrayBuffer.isView(value)) return value.length > 4096 ? value.slice(0, 0) : value;
  if (Array.isArray(value)) return value.map(slim);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = slim(v);
    return out;
  }
  return value;
}

function flushLog() {
  if (pendingLog.length) {
    self.postMessage({ type: 'log', entries: pendingLog });
    pendingLog = [];
  }
}

// Lets the message queue breathe between calls (a cancel terminates the
// worker anyway; this only keeps progress messages flowing).
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

async function runCalls(ag, id, job) {
  const total = job.calls.reduce((s, c) => s + (c.work ?? 1), 0);
  let done = 0;
  const results = [];
  for (const call of job.calls) {
    const r = ag[call.method](...call.args);
    results.push(r);
    done += call.work ?? 1;
    flushLog();
    self.postMessage({ type: 'progress', id, done, total, partial: { index: results.length - 1, result: r } });
    await tick();
  }
  return results;
}

async function runPacking(ag, id, job) {
  const { dims, candidates, epsilon, seed } = job;
  const LIMIT = 2 ** 28;
  // Progress in candidate-dimension units.
  const total = dims.reduce((s, d) => s + candidates * d, 0);
  let done = 0;
  const results = [];
  for (const d of dims) {
    let first = 0;
    let directions = null;
    let last = null;
    while (first < candidates) {
      const kept = directions ? directions.shape[0] : 0;
      let count = Math.min(candidates - first, 4096);
      while (count > 1 && count * (kept + count) * d > LIMIT) count = Math.floor(count / 2);
      last = ag.greedyPacking({ d, candidates: count, epsilon, seed, first, directions });
      directions = last.directions;
      first = last.next;
      done += count * d;
      flushLog();
      self.postMessage({ type: 'progress', id, done, total, partial: { d, kept: last.kept, scanned: first } });
      await tick();
    }
    results.push({ d, kept: last.kept, candidates });
  }
  return results;
}

// Chapter 11: the mean curves of many rows of scores, one d_k at a time.
async function runScaleFix(ag, id, job) {
  const total = job.dks.reduce((s, dk) => s + dk, 0);
  let done = 0;
  const results = [];
  for (const dk of job.dks) {
    results.push(curvesAt(ag, job, dk));
    done += dk;
    flushLog();
    self.postMessage({ type: 'progress', id, done, total });
    await tick();
  }
  return results;
}

// Part 4: the model of the training run, kept from one chunk to the next.
let training = null;

async function runTrain(ag, id, job) {
  try {
    const { held, update } = trainChunk(ag, training, job);
    training = held;
    return update;
  } catch (err) {
    training = null; // a failed chunk (a bad config, an overflow): the next one starts a new model
    throw err;
  }
}

async function runTiming(msg) {
  const { id, job } = msg;
  const onProgress = (done, total, partial) => {
    flushLog();
    self.postMessage({ type: 'progress', id, done, total, partial });
  };
  if (job.kind === 'kernel-lab') {
    const { simd, builds } = await labBuilds(msg.wasmUrl);
    return { simd, ...(await timeKernel(job, builds, { onProgress, tick })) };
  }
  if (job.kind === 'attention-cost') {
    const impl = msg.impl ?? 'auto';
    const [ag, checker] = await Promise.all([
      getAg(impl, false, msg.wasmUrl),
      getAg(impl, !!msg.testMode, msg.wasmUrl),
    ]);
    return {
      impl: ag.backend === 'wasm-simd128' ? ag.variant : 'baseline',
      ...(await attentionCost(job, ag, checker, { onProgress, tick })),
    };
  }
  throw new RangeError(`unknown timing job "${job.kind}"`);
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (!msg || (msg.type !== 'run' && msg.type !== 'time')) return;
  const { id, job } = msg;
  try {
    if (msg.type === 'time') {
      const result = await runTiming(msg);
      flushLog();
      self.postMessage({ type: 'result', id, result });
      return;
    }
    const ag = await getAg(msg.impl ?? 'auto', !!msg.testMode, msg.wasmUrl);
    const run = { packing: runPacking, 'scale-fix': runScaleFix, train: runTrain }[job.kind] ?? runCalls;
    const result = await run(ag, id, job);
    flushLog();
    self.postMessage({ type: 'result', id, result, impl: ag.backend === 'wasm-simd128' ? ag.variant : 'baseline' });
  } catch (err) {
    flushLog();
    self.postMessage({ type: 'error', id, message: err && err.message ? err.message : String(err) });
  }
};
