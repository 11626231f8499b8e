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
import { pairedRounds } from './paired-rounds.mjs';
import { selected, workloads } from './workloads.mjs';

const args = process.argv.slice(2);
const pairs = Number(args.find((a) => a.startsWith('--pairs='))?.slice('--pairs='.length) ?? 300);
const [dirA, dirB, ...only] = args.filter((a) => !a.startsWith('--'));
if (!dirA || !dirB || only.length === 0 || !(pairs >= 10)) {
  throw new Error('usage: node scripts/bench/paired.mjs <dist A> <dist B> <workload or family>... [--pairs=N >= 10]');
}

const load = async (dir) =>
  (await import(pathToFileURL(resolve(dir, 'index.js')).href)).init({ simd: true, variant: 'simd128' });
const [agA, agB] = [await load(dirA), await load(dirB)];

for (const w of workloads().filter((x) => selected(only, x))) {
  const a = { run: callOf(agA, w).run };
  const b = { run: callOf(agB, w).run };
  for (let i = 0; i < 10; i++) (a.run(), b.run());
  // B first in each pair's ratio: A / B, > 1 when B is the faster.
  const r = await pairedRounds(b, a, { minPairs: pairs, maxPairs: pairs });
  console.log(
    `${w.id}: A ${r.bUs.toFixed(1)} µs, B ${r.aUs.toFixed(1)} µs per call (${r.reps} a round); ` +
      `A / B ${r.ratio.toFixed(3)} (90 %: ${r.lo.toFixed(3)}–${r.hi.toFixed(3)}), ${r.pairs} pairs`,
  );
}
