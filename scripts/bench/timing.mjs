// Timing for the benchmark: warm-up, rounds of repeated calls long enough to
// time well (adaptive: the number of calls per round is chosen from the
// warm-up), and the median over rounds. Several calls are measured together,
// interleaved round by round in a rotating order, so that a change of the
// machine's speed during the run (another process, the clock) hits all alike.
// Each round is timed by two clocks: wall-clock time, and the CPU time of
// this process (user + system, all its threads). Every implementation runs on
// the calling thread, so on a quiet machine the two agree; on a shared one,
// wall-clock time also counts the time the process waited for a core while
// other processes ran, and CPU time does not.

/** The median of `xs` (not modified). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The q-quantile of `xs`, linear between order statistics. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
}

// eslint-disable-next-line no-unused-vars -- written so that the calls timed are not optimised away
let sink = null;

/** Milliseconds per call over `reps` calls of `c.run` (awaited when `c.isAsync`): { wall, cpu }. */
async function round(c, reps) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (c.isAsync) for (let i = 0; i < reps; i++) sink = await c.run();
  else for (let i = 0; i < reps; i++) sink = c.run();
  const wall = (performance.now() - t0) / reps;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 / reps };
}

/**
 * Calls `c.run` at least `minCalls` times and for at least `minMs`, so that
 * the engine has compiled its hot code, and returns the time per call that
 * the number of calls per round is chosen from: the median CPU time of the
 * calls after the first, or for calls too short for the CPU clock (under
 * 20 µs) their shortest wall-clock time. Not the wall-clock time of the last
 * call: on a busy machine, one call that waited for a core made the rounds
 * of small calls a hundred times too short.
 */
async function warmUp(c, { minCalls, minMs }) {
  const start = performance.now();
  const cpu = [];
  const wall = [];
  for (let i = 0; i < minCalls || performance.now() - start < minMs; i++) {
    const t = await round(c, 1);
    if (i === 0 && cpu.length === 0 && (minCalls > 1 || performance.now() - start < minMs)) continue;
    cpu.push(t.cpu);
    wall.push(t.wall);
  }
  if (cpu.length === 0) return 0;
  const perCall = median(cpu);
  return perCall >= 0.02 ? perCall : Math.min(...wall);
}

/**
 * Times every entry of `calls` ([{ key, run, isAsync }]): warm-up, then
 * `rounds` rounds of each in turn (the first entry of round r is entry r mod n),
 * each round `reps` calls lasting about `roundMs`. When the rounds would take
 * longer than `budgetMs` in all (slow implementations whose one call lasts
 * far longer than `roundMs`), there are fewer, but never fewer than
 * `minRounds`. Returns, per key, { medianMs, samples } by `clock` ('cpu' or
 * 'wall': ms per call, the median and each round's), the same by both clocks
 * ({ wallMedianMs, cpuMedianMs, wallSamples, cpuSamples }) and reps; or
 * { failed } with the message of the error a call threw (that entry is not
 * called again).
 */
export async function measure(
  calls,
  { clock = 'cpu', rounds, minRounds = rounds, budgetMs = Infinity, roundMs, warmMs, minCalls = 1 },
) {
  const out = new Map();
  const fail = (c, e) =>
    out.set(c.key, {
      failed: `${e?.name ?? 'Error'}: ${String(e?.message ?? e)
        .split('\n')[0]
        .slice(0, 200)}`,
    });
  const reps = new Map();
  let roundOfAll = 0;
  for (const c of calls) {
    try {
      const perCall = await warmUp(c, { minCalls, minMs: warmMs });
      reps.set(c.key, Math.max(1, Math.ceil(roundMs / Math.max(perCall, 1e-4))));
      roundOfAll += reps.get(c.key) * perCall;
    } catch (e) {
      fail(c, e);
    }
  }
  const n = Math.max(minRounds, Math.min(rounds, Math.floor(budgetMs / roundOfAll)));
  const samples = new Map(calls.map((c) => [c.key, { wall: [], cpu: [] }]));
  for (let r = 0; r < n; r++) {
    for (let i = 0; i < calls.length; i++) {
      const c = calls[(r + i) % calls.length];
      if (out.has(c.key)) continue;
      try {
        const t = await round(c, reps.get(c.key));
        samples.get(c.key).wall.push(t.wall);
        samples.get(c.key).cpu.push(t.cpu);
      } catch (e) {
        fail(c, e);
      }
    }
  }
  sink = null;
  for (const c of calls) {
    if (out.has(c.key)) continue;
    const { wall, cpu } = samples.get(c.key);
    const both = {
      wallMedianMs: median(wall),
      cpuMedianMs: median(cpu),
      wallSamples: wall,
      cpuSamples: cpu,
      reps: reps.get(c.key),
    };
    out.set(c.key, {
      medianMs: clock === 'cpu' ? both.cpuMedianMs : both.wallMedianMs,
      samples: clock === 'cpu' ? cpu : wall,
      ...both,
    });
  }
  return out;
}
