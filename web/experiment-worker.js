// The experiment worker: a module worker that loads the JS API (from the wasm
// URLs the page sends, or else next to this file) and runs Monte Carlo jobs as a
// sequence of kernel calls, posting progress after each call so the page
// stays responsive and can cancel (by terminating the worker).
//
// Messages in:  { type: 'run', id, impl, testMode, wasmUrl?: { simd, scalar }, job: { kind, ... } }
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
import { init } from '../dist/index.js';

const IMPL_OPTIONS = {
  simd128: { simd: true, variant: 'simd128' },
  scalar: { simd: true, variant: 'scalar' },
  baseline: { simd: false },
  auto: { simd: 'auto' },
};

let engine = null;
let engineKey = null;
let pendingLog = [];

async function getAg(impl, testMode, wasmUrl) {
  const key = `${impl}:${testMode}`;
  if (!engine || engineKey !== key) {
    const logOptions = testMode ? { logCalls: false, onKernelCall: (entry) => pendingLog.push(slim(entry)) } : {};
    // The page's URLs of the wasm files: absolute URLs next to the bundle, or
    // data: URLs in the single-file offline page (whose worker has no files beside it).
    const locate = wasmUrl ? { wasmUrl } : {};
    engine = await init({ ...(IMPL_OPTIONS[impl] ?? IMPL_OPTIONS.auto), ...locate, ...logOptions });
    engineKey = key;
  }
  return engine;
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

self.onmessage = async (event) => {
  const msg = event.data;
  if (!msg || msg.type !== 'run') return;
  const { id, job } = msg;
  try {
    const ag = await getAg(msg.impl ?? 'auto', !!msg.testMode, msg.wasmUrl);
    const result = job.kind === 'packing' ? await runPacking(ag, id, job) : await runCalls(ag, id, job);
    flushLog();
    self.postMessage({ type: 'result', id, result, impl: ag.backend === 'wasm-simd128' ? ag.variant : 'baseline' });
  } catch (err) {
    flushLog();
    self.postMessage({ type: 'error', id, message: err && err.message ? err.message : String(err) });
  }
};
