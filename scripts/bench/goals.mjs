// Issue 7's goals, each judged from the numbers of one run: met (true), not
// met (false) or not measured (null), with the numbers that decide it.

const x = (r) => `${r.toFixed(2)}×`;
const mib = (b) => `${(b / 2 ** 20).toFixed(2)} MiB`;

/** The result of implementation `id` in workload `w`, if it ran. */
const resultOf = (w, id) => w.results.find((r) => r.impl === id && Number.isFinite(r.medianMs));

/**
 * Judged on the paired rounds (bench/paired-rounds.mjs) of ours against each
 * peer: met when every workload is ahead of both (each interval above 1), not
 * met when one is behind either (an interval below 1), and not resolved
 * (status) otherwise.
 */
function fasterThanPeers(workloads) {
  const goal =
    'At least as fast as the faster of tfjs-backend-wasm and onnxruntime-web on every workload (SIMD build; paired ratio = peer time / ours, with its 90 % interval)';
  if (workloads.length === 0) return { goal, met: null, detail: 'no workload measured' };
  const parts = [];
  let met = true;
  let unresolved = 0;
  for (const w of workloads) {
    if (!resultOf(w, 'ag-simd128')) {
      parts.push(`${w.label}: ours failed`);
      met = false;
      continue;
    }
    if (!w.verdict || w.verdict === 'not measured') {
      parts.push(`${w.label}: a peer was not measured`);
      if (met === true) met = null;
      continue;
    }
    if (w.verdict === 'behind') met = false;
    else if (w.verdict !== 'ahead') unresolved++;
    const each = w.paired.map((p) => `${p.peer} ${x(p.ratio)} (${p.lo.toFixed(2)}–${p.hi.toFixed(2)})`);
    parts.push(`${w.label}: ${w.verdict}, ${each.join(', ')}`);
  }
  if (met === true && unresolved > 0)
    return { goal, met: null, status: 'not resolved', detail: `${unresolved} not resolved; ${parts.join('; ')}` };
  return { goal, met, detail: parts.join('; ') };
}

function matmulPeak(workloads, peakGFlops) {
  const goal = 'matmul 512×512×512 at ≥ 60 % of the single-core peak (16 flop/cycle × measured clock)';
  const w = workloads.find((v) => v.family === 'matmul');
  const ours = w && resultOf(w, 'ag-simd128');
  if (!ours || !peakGFlops) return { goal, met: null, detail: 'not measured' };
  return {
    goal,
    met: ours.percentOfPeak >= 60,
    detail: `${w.label}: ${ours.rate.toFixed(2)} GFLOP/s = ${ours.percentOfPeak.toFixed(1)} % of ${peakGFlops.toFixed(1)} GFLOP/s`,
  };
}

function matmulVsScalar(workloads) {
  const goal =
    "matmul 512×512×512 at ≥ 3× this project's scalar build (baseline build ag-scalar.wasm; the scalar kernels of the SIMD build beside it)";
  const w = workloads.find((v) => v.family === 'matmul');
  if (!w || w.ratios.vsBaseline == null) return { goal, met: null, detail: 'not measured' };
  const scalar = w.ratios.vsScalar == null ? '' : `; ${x(w.ratios.vsScalar)} the scalar kernels of the SIMD build`;
  return {
    goal,
    met: w.ratios.vsBaseline >= 3,
    detail: `${w.label}: ${x(w.ratios.vsBaseline)} the baseline build${scalar}`,
  };
}

/**
 * The streaming path is O(T·d) when its extra peak stays below one [T, T]
 * float32 buffer and grows at most 2.5× from T/2 to T (linear: 2×, a [T, T]
 * buffer: 4×).
 */
function longAttentionMemory(long) {
  const goal = 'Attention at T = 4096 without weights runs without a [T, T] buffer (peak wasm memory O(T·d), measured)';
  if (!long) return { goal, met: null, detail: 'not measured' };
  if (!long.memoryStats)
    return { goal, met: null, detail: 'not measured: this build has no memoryStats()/resetPeakMemory()' };
  const p = long.paths.find((q) => q.ok && q.name.startsWith('streaming'));
  if (!long.streamingOption) return { goal, met: false, detail: 'this build has no streaming option' };
  if (!p) return { goal, met: false, detail: `the streaming path failed: ${long.paths[0]?.reason ?? 'unknown'}` };
  const [, half, full] = p.growth;
  const growth = full.extraBytes / half.extraBytes;
  const below = full.extraBytes < long.squareBufferBytes;
  const growthText = p.growth.map((g) => `T=${g.T}: ${mib(g.extraBytes)}`).join(', ');
  return {
    goal,
    met: below && growth <= 2.5,
    detail: `extra peak ${growthText}; ×${growth.toFixed(2)} from T=${half.T} to T=${full.T} (linear 2, quadratic 4); one [T, T] float32 buffer is ${mib(long.squareBufferBytes)}; ${(full.extraBytes / (4 * long.T * long.d)).toFixed(1)} × T·d floats`,
  };
}

function pageUpdates(page) {
  const goal =
    'Every interactive update of the page at its default sizes within 4 ms at the 95th percentile (Chromium)';
  if (!page?.measured) return { goal, met: null, detail: page?.reason ?? 'not measured' };
  const measured = page.rows.filter((r) => Number.isFinite(r.p95Ms));
  const missing = page.rows.filter((r) => !Number.isFinite(r.p95Ms)).map((r) => r.chapter);
  if (measured.length === 0) return { goal, met: null, detail: 'no update measured' };
  const slow = measured.filter((r) => r.p95Ms > 4);
  const worst = measured.reduce((a, b) => (b.p95Ms > a.p95Ms ? b : a));
  const detail =
    `${measured.length} chapters; slowest ${worst.chapter} (${worst.update}): p95 ${worst.p95Ms.toFixed(2)} ms` +
    (slow.length ? `; over 4 ms: ${slow.map((r) => `${r.chapter} ${r.p95Ms.toFixed(2)} ms`).join(', ')}` : '') +
    (missing.length ? `; not measured: ${missing.join(', ')}` : '');
  return { goal, met: slow.length ? false : missing.length ? null : true, detail };
}

/**
 * The goals of issue 7 for `run` (the JSON of bench.mjs without its goals).
 * `workloadCount` is the number of workloads of a full run: the first goal
 * is judged met only when all of them were measured. A smoke run's sizes are
 * not the issue's: its goals are shown with their numbers but not judged.
 */
export function evaluateGoals(run, { workloadCount }) {
  const goals = [
    fasterThanPeers(run.workloads),
    matmulPeak(run.workloads, run.probe?.peakGFlops),
    matmulVsScalar(run.workloads),
    longAttentionMemory(run.longAttention),
    pageUpdates(run.pageUpdates),
  ];
  if (goals[0].met !== false && run.workloads.length < workloadCount) {
    goals[0] = {
      ...goals[0],
      met: null,
      status: undefined,
      detail: `only ${run.workloads.length} of ${workloadCount} workloads measured: ${goals[0].detail}`,
    };
  }
  if (run.smoke) return goals.map((g) => ({ ...g, met: null, detail: `smoke sizes, not judged: ${g.detail}` }));
  return goals;
}
