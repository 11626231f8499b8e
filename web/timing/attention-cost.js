// The cost of attention as T grows, run inside the experiment worker
// (chapter "The cost of attention", web/chapters/cost.js). For each T, one
// head of self-attention with Q, K, V of shape [T, d_k] from the module's
// generator, computed two ways through the public API:
//   plain      ag.attention(Q, K, V, { streaming: false }): the [T, T] score
//              grid is held in the wasm heap;
//   streaming  ag.attention(Q, K, V, { streaming: true }): an online softmax
//              over tiles of keys, no [T, T] buffer.
// For each: the peak of the bytes allocated on the wasm heap during the call
// (ag.resetPeakMemory() before, ag.memoryStats().peakAllocatedBytes after,
// less what was allocated before) and the median time of a few calls. The
// squared distance between the two outputs (a kernel call) shows that both
// paths compute the same attention.
//
// Builds without the `streaming` option: the plain path is forced by asking
// for the weights (which needs the [T, T] grid), the streaming one is the
// default call. Builds without memoryStats: times only (memory is null).
import { callsPerSample, TICKS } from './calls-per-sample.js';
import { clockTick } from './clock-tick.js';
import { median } from './kernel-timing.js';

/** Whether ag.attention knows the `streaming` option (unknown option keys are a TypeError). */
export function hasStreaming(ag) {
  const one = [[1, 0]];
  try {
    ag.attention(one, one, one, { streaming: true });
    return true;
  } catch (err) {
    if (err instanceof TypeError && /streaming/.test(err.message)) return false;
    throw err;
  }
}

/** Whether ag reports the bytes allocated on its wasm heap. */
export function hasMemoryStats(ag) {
  return typeof ag.memoryStats === 'function' && typeof ag.resetPeakMemory === 'function';
}

// Each time sample runs enough calls to last about SAMPLE_MS (the browser's
// clock may be as coarse as 0.1 ms or coarser; calls-per-sample.js finds the
// count); a slow call (over SLOW_MS, and over TICKS ticks of the clock: on a
// 100 ms clock one fast call may read 100 ms) is a sample by itself, and gets
// two samples instead of three.
const SAMPLE_MS = 8;
const SLOW_MS = 100;
const MAX_REPS = 256;

/**
 * @param {{ sizes: number[], dk: number, seed?: number }} job
 * @param {object} ag the API instance that is measured (no call log: its times stay clean)
 * @param {object} checker an API instance for the agreement check (logged in test mode)
 * @param {{ onProgress: (done: number, total: number, row: object) => void, tick: () => Promise<void> }} io
 */
export async function attentionCost({ sizes, dk, seed = 11 }, ag, checker, { onProgress, tick }) {
  if (!Array.isArray(sizes) || !sizes.length || !sizes.every((t) => Number.isInteger(t) && t >= 1 && t <= 8192)) {
    throw new RangeError('attention cost: sizes must be whole numbers from 1 to 8192');
  }
  if (!Number.isInteger(dk) || dk < 1 || dk > 512)
    throw new RangeError('attention cost: d_k must be a whole number from 1 to 512');
  const streaming = hasStreaming(ag);
  const memory = hasMemoryStats(ag);
  const paths = {
    plain: streaming ? { streaming: false } : { returnWeights: true },
    streaming: streaming ? { streaming: true } : {},
  };
  // Warm-up: the first calls of a fresh engine run before V8 has optimised
  // the JS around the kernels and before the heap has grown; timing them
  // would make the smallest T look slower than the next one.
  {
    const T = Math.min(...sizes);
    const X = { data: ag.random.normal({ seed, counter: 0, n: T * dk }).data, shape: [T, dk] };
    for (let i = 0; i < 3; i++) for (const options of Object.values(paths)) ag.attention(X, X, X, options);
  }
  const total = sizes.reduce((s, t) => s + t * t, 0);
  let done = 0;
  const rows = [];
  for (const T of sizes) {
    const draw = (counter) => ({ data: ag.random.normal({ seed, counter, n: T * dk }).data, shape: [T, dk] });
    const Q = draw(0);
    const K = draw(T * dk);
    const V = draw(2 * T * dk);
    const row = { T };
    const outputs = {};
    for (const [name, options] of Object.entries(paths)) {
      const call = () => ag.attention(Q, K, V, options);
      let peakBytes = null;
      let t0 = performance.now();
      if (memory) {
        ag.resetPeakMemory();
        const before = ag.memoryStats().allocatedBytes;
        t0 = performance.now();
        outputs[name] = call().output;
        peakBytes = ag.memoryStats().peakAllocatedBytes - before;
      } else {
        outputs[name] = call().output;
      }
      const slow = performance.now() - t0 > Math.max(SLOW_MS, TICKS * clockTick());
      const reps = slow ? 1 : await callsPerSample(call, { targetMs: SAMPLE_MS, maxCalls: MAX_REPS, tick });
      const samples = [];
      for (let i = 0; i < (slow ? 2 : 3); i++) {
        const s0 = performance.now();
        for (let r = 0; r < reps; r++) call();
        samples.push((performance.now() - s0) / reps);
      }
      row[name] = { peakBytes, medianMs: median(samples), calls: reps * samples.length };
      await tick();
    }
    row.squaredDistance = checker.squaredDistance(outputs.plain.data, outputs.streaming.data);
    rows.push(row);
    done += T * T;
    onProgress(done, total, row);
    await tick();
  }
  return { dk, streaming, memory, rows };
}
