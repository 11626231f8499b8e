// The kernel lab's timing, run inside the experiment worker: one workload of
// web/models/kernel-lab-presets.js, called through the public API on each
// build given (the SIMD build's simd128 and scalar variants, or only the
// baseline build's scalar kernels where the browser has no SIMD). Every call
// copies its inputs in and its result out, as a user's call would.
//
// The procedure: inputs drawn once from the module's own generator (the same
// numbers for every build); one call per build to warm up, then batches of
// calls to find how many fill a round of about ROUND_MS, or of four ticks of
// a clock coarser than that (calls-per-sample.js: a single call's time
// misleads on a coarse clock); then ROUNDS rounds,
// alternating which build goes first, each round giving one time per call.
// The median of the rounds is reported. Times are measurements, never
// results of the kernels.
import { LAB_DK, LAB_KERNELS, labFlops } from '../models/kernel-lab-presets.js';
import { callsPerSample } from './calls-per-sample.js';

export const ROUNDS = 7;
export const ROUND_MS = 30;
const MAX_REPS = 20000;

/** The median of a list of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Inputs of one workload, from ag's normal generator. */
function makeInputs(ag, kernel, size) {
  let counter = 0;
  const normal = (shape) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = ag.random.normal({ seed: 7, counter, n }).data;
    counter += n;
    return { data, shape };
  };
  switch (kernel) {
    case 'dot':
      return { a: normal([size]).data, b: normal([size]).data };
    case 'matmul':
      return { A: normal([size, size]), B: normal([size, size]) };
    case 'qkt':
      return { Q: normal([size, LAB_DK]), K: normal([size, LAB_DK]) };
    case 'softmax':
      return { x: normal([size, size]) };
    case 'attention':
      return { Q: normal([size, LAB_DK]), K: normal([size, LAB_DK]), V: normal([size, LAB_DK]) };
    default:
      throw new RangeError(`kernel lab: unknown kernel "${kernel}"`);
  }
}

/** The call of one workload on one API instance. */
function callOf(ag, kernel, x) {
  switch (kernel) {
    case 'dot':
      return () => ag.dot(x.a, x.b);
    case 'matmul':
      return () => ag.matmul(x.A, x.B);
    case 'qkt':
      return () => ag.matmul(x.Q, x.K, { transposeB: true });
    case 'softmax':
      return () => ag.softmax(x.x);
    default:
      return () => ag.attention(x.Q, x.K, x.V);
  }
}

/**
 * Times `kernel` at `size` on each of `builds` ([{ variant, build, ag }]).
 * @param {{ onProgress: (done: number, total: number) => void, tick: () => Promise<void> }} io
 * @returns {Promise<{ kernel, size, flops, rows: { variant, build, medianMs, minMs, maxMs, reps, rounds }[] }>}
 */
export async function timeKernel({ kernel, size }, builds, { onProgress, tick }) {
  const spec = LAB_KERNELS[kernel];
  if (!spec) throw new RangeError(`kernel lab: unknown kernel "${kernel}"`);
  if (!spec.sizes.includes(size))
    throw new RangeError(`kernel lab: size ${size} is not offered for ${kernel} (${spec.sizes.join(', ')})`);
  const inputs = makeInputs(builds[0].ag, kernel, size);
  const runs = builds.map((b) => ({ ...b, call: callOf(b.ag, kernel, inputs), reps: 1, samples: [] }));
  const total = runs.length * (ROUNDS + 1);
  let done = 0;
  for (const r of runs) {
    r.call(); // warm-up: first-call costs (heap growth, compilation tiers)
    r.reps = await callsPerSample(r.call, { targetMs: ROUND_MS, maxCalls: MAX_REPS, tick });
    onProgress(++done, total);
    await tick();
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...runs].reverse() : runs;
    for (const r of order) {
      const t0 = performance.now();
      for (let i = 0; i < r.reps; i++) r.call();
      r.samples.push((performance.now() - t0) / r.reps);
      onProgress(++done, total);
      await tick();
    }
  }
  return {
    kernel,
    size,
    flops: labFlops(kernel, size),
    rows: runs.map((r) => ({
      variant: r.variant,
      build: r.build,
      medianMs: median(r.samples),
      minMs: Math.min(...r.samples),
      maxMs: Math.max(...r.samples),
      reps: r.reps,
      rounds: r.samples.length,
    })),
  };
}
