// Two calls compared in alternated rounds of CPU time: A then B, B then A,
// and so on, each round a few milliseconds (or one call). Whatever slows the
// machine down for a while (another process, the clock, a collection of the
// other's garbage) then falls on both sides of a pair alike, and the ratio of
// each pair's times keeps what differs between the two calls. The median of
// those ratios comes with a bootstrap 90 % interval (percentiles of the
// medians of resampled pairs), and the verdict says whether the interval
// lies wholly above 1, wholly below it, or across it.
// Used by bench.mjs (ours against each peer, every workload) and by
// paired.mjs (two builds of ours).
import { median, quantile } from './timing.mjs';

/** Bootstrap resamples of the pairs for the interval. */
export const BOOTSTRAP_RESAMPLES = 400;
/** The interval's coverage: from the 5th to the 95th percentile of the resampled medians. */
export const INTERVAL = { lo: 0.05, hi: 0.95 };

/** A seeded generator (a 32-bit LCG), so that the interval is the same for the same times. */
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

// eslint-disable-next-line no-unused-vars -- written so that the calls timed are not optimised away
let sink = null;

/** CPU time of this process in µs per call over `reps` calls of `c.run` (awaited when `c.isAsync`). */
async function cpuRound(c, reps) {
  const c0 = process.cpuUsage();
  if (c.isAsync) for (let i = 0; i < reps; i++) sink = await c.run();
  else for (let i = 0; i < reps; i++) sink = c.run();
  const c1 = process.cpuUsage(c0);
  return (c1.user + c1.system) / reps;
}

/**
 * The median of `ratios` with its bootstrap interval:
 * { ratio, lo, hi, pairs, verdict } where verdict is 'ahead' (lo > 1),
 * 'behind' (hi < 1) or 'not resolved'.
 */
export function summarizeRatios(ratios) {
  const random = lcg(ratios.length);
  const medians = Array.from({ length: BOOTSTRAP_RESAMPLES }, () =>
    median(ratios.map(() => ratios[Math.floor(random() * ratios.length)])),
  );
  const lo = quantile(medians, INTERVAL.lo);
  const hi = quantile(medians, INTERVAL.hi);
  const verdict = lo > 1 ? 'ahead' : hi < 1 ? 'behind' : 'not resolved';
  return { ratio: median(ratios), lo, hi, pairs: ratios.length, verdict };
}

/**
 * Times `a` and `b` ({ run, isAsync }, both already warm) in alternated
 * rounds of CPU time, each round `roundUs` µs long or one call, for
 * `minPairs` to `maxPairs` pairs and no longer than about `budgetMs` of CPU
 * time once `minPairs` are done. Returns { aUs, bUs, reps, times: { a, b },
 * ...summarizeRatios(b / a) }: ratio > 1 when a is the faster.
 */
export async function pairedRounds(a, b, { roundUs = 4000, minPairs = 30, maxPairs = 300, budgetMs = 3000 } = {}) {
  const probe = Math.max(await cpuRound(a, 2), await cpuRound(b, 2), 1);
  const reps = Math.max(1, Math.round(roundUs / probe));
  const ta = [];
  const tb = [];
  const start = process.cpuUsage();
  const spentMs = () => {
    const c = process.cpuUsage(start);
    return (c.user + c.system) / 1000;
  };
  for (let p = 0; p < maxPairs && (p < minPairs || spentMs() < budgetMs); p++) {
    if (p % 2) {
      tb.push(await cpuRound(b, reps));
      ta.push(await cpuRound(a, reps));
    } else {
      ta.push(await cpuRound(a, reps));
      tb.push(await cpuRound(b, reps));
    }
  }
  sink = null;
  return {
    aUs: median(ta),
    bUs: median(tb),
    reps,
    times: { a: ta, b: tb },
    ...summarizeRatios(tb.map((x, i) => x / ta[i])),
  };
}
