// Two builds of this package compared call for call, for changes too small
// for the benchmark's rounds on a shared machine: both dist/ directories are
// loaded in one process (their SIMD builds, simd128 kernels), and each
// workload is timed in many short alternated rounds of CPU time, A then B,
// B then A. Printed per workload: each side's median, and the median of the
// pairs' ratios A / B (> 1: B is faster) with a bootstrap 90 % interval.
// Two copies of one build give 1.00 within about 2 % for small calls, and
// 0.94-0.96 with results of 4 MiB on a busy machine (one call a round).
//
//   node scripts/bench/paired.mjs <dist A> <dist B> <workload or family>... [--pairs=300]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { callOf } from './ours.mjs';
import { median, quantile } from './timing.mjs';
import { selected, workloads } from './workloads.mjs';

const ROUND_US = 4000; // CPU time per round, in µs
const BOOTSTRAP = 200; // resamples of the pairs for the interval

const args = process.argv.slice(2);
const pairs = Number(args.find((a) => a.startsWith('--pairs='))?.slice('--pairs='.length) ?? 300);
const [dirA, dirB, ...only] = args.filter((a) => !a.startsWith('--'));
if (!dirA || !dirB || only.length === 0 || !(pairs >= 10)) {
  throw new Error('usage: node scripts/bench/paired.mjs <dist A> <dist B> <workload or family>... [--pairs=N >= 10]');
}

const load = async (dir) =>
  (await import(pathToFileURL(resolve(dir, 'index.js')).href)).init({ simd: true, variant: 'simd128' });
const [agA, agB] = [await load(dirA), await load(dirB)];

/** CPU time in µs per call over `reps` calls of `f`. */
function cpu(f, reps) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / reps;
}

/** A seeded generator (a 32-bit LCG), so that the interval is the same for the same times. */
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

for (const w of workloads().filter((x) => selected(only, x))) {
  const a = callOf(agA, w).run;
  const b = callOf(agB, w).run;
  for (let i = 0; i < 10; i++) (a(), b());
  const reps = Math.max(1, Math.round(ROUND_US / Math.max(cpu(a, 3), cpu(b, 3), 1)));
  const ta = [];
  const tb = [];
  for (let p = 0; p < pairs; p++) {
    if (p % 2) {
      tb.push(cpu(b, reps));
      ta.push(cpu(a, reps));
    } else {
      ta.push(cpu(a, reps));
      tb.push(cpu(b, reps));
    }
  }
  const ratios = ta.map((x, i) => x / tb[i]);
  const random = lcg(pairs);
  const medians = Array.from({ length: BOOTSTRAP }, () =>
    median(ratios.map(() => ratios[Math.floor(random() * ratios.length)])),
  );
  console.log(
    `${w.id}: A ${median(ta).toFixed(1)} µs, B ${median(tb).toFixed(1)} µs per call (${reps} a round); ` +
      `A / B ${median(ratios).toFixed(3)} (90 %: ${quantile(medians, 0.05).toFixed(3)}–${quantile(medians, 0.95).toFixed(3)}), ${pairs} pairs`,
  );
}
