// npm run bench: issue 7's benchmark, in one Node process. Every workload
// (matmul 512³; Q Kᵀ, row softmax and attention for T = 64, 256, 1024 with
// d_k = 64; multi-head attention T = 256, d_model = 512, h = 8; issue 20's
// decoding step with a KV cache, GQA, with and without RoPE) is timed on
// this project's SIMD build (simd128 and scalar kernels) and baseline build,
// on tfjs-backend-wasm and onnxruntime-web (single-threaded, SIMD, from
// node_modules) and on plain JS, interleaved round by round; then ours
// (simd128) against each peer in alternated paired rounds, for the ratio
// with its bootstrap interval and the verdict (bench/paired-rounds.mjs); then attention
// at T = 4096 (ours: time and peak wasm memory), the page's update times if
// scripts/bench/page-updates.mjs is there, and the clock and peak of this
// processor. Prints a Markdown report and writes it with the JSON to
// build/bench/. Never part of npm test (a test runs --smoke).
//   node scripts/bench.mjs                      everything (a few minutes)
//   node scripts/bench.mjs --smoke              tiny sizes, few rounds (seconds)
//   node scripts/bench.mjs --only=matmul,qkt-T256,attention-long,decode,training,page-updates,kernel-dot,vector
// Then every other kernel of the registry (scripts/bench/kernels.mjs), on ours
// only: each kernel has a workload, or the run stops.
//   node scripts/bench.mjs --out=dir            write bench.json and bench.md there
//   node scripts/bench.mjs --clock=wall         rates and ratios from wall-clock time
//                                               (default: CPU time of this process; both are reported)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateGoals } from './bench/goals.mjs';
import { measureLongAttention } from './bench/long-attention.mjs';
import { callOf, oursImplementations } from './bench/ours.mjs';
import { jsImplementation } from './bench/peers-js.mjs';
import { ortImplementation } from './bench/peers-ort.mjs';
import { tfjsImplementation } from './bench/peers-tfjs.mjs';
import { measurePeak } from './bench/probe.mjs';
import { maxError } from '../tests/reference/float64.mjs';
import { markdownReport } from './bench/report.mjs';
import { measure } from './bench/timing.mjs';
import { FAMILIES, SIZES, selected, workloads } from './bench/workloads.mjs';
import { pairedRounds } from './bench/paired-rounds.mjs';
import { kernelCoverage, kernelsReport, kernelWorkloads, timeOnOurs } from './bench/kernels.mjs';
import { measureTraining, trainingReport } from './bench/training.mjs';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

/** A candidate whose error against float64 exceeds this (relative to the largest |reference|) is taken as wrong. */
const CANDIDATE_TOLERANCE = 1e-3;

function parseArgs(argv) {
  const opts = { smoke: false, only: [], out: join(root, 'build/bench'), clock: 'cpu' };
  for (const a of argv) {
    if (a === '--smoke') opts.smoke = true;
    else if (a === '--clock=cpu' || a === '--clock=wall') opts.clock = a.slice(8);
    else if (a.startsWith('--only=')) opts.only = a.slice(7).split(',').filter(Boolean);
    else if (a.startsWith('--out=')) opts.out = resolve(a.slice(6));
    else
      throw new Error(
        `bench: unknown argument ${a}; use --smoke, --only=<workload or family,...>, --out=<dir>, --clock=cpu|wall`,
      );
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
// Every implementation has been called once (its error checked) before it is timed.
// CPU time by default: this machine is often shared, and a call's CPU time
// does not grow while the process waits for a core (see bench/timing.mjs).
const timing = {
  clock: opts.clock,
  ...(opts.smoke
    ? { rounds: 3, roundMs: 2, warmMs: 0 }
    : { rounds: 9, minRounds: 5, budgetMs: 8000, roundMs: 60, warmMs: 150 }),
};
// Ours against each peer: alternated rounds of about 4 ms of CPU time (or one call), 40 to 400
// pairs within about 4 s of CPU time per peer and workload.
const pairing = opts.smoke
  ? { roundUs: 200, minPairs: 5, maxPairs: 5 }
  : { roundUs: 4000, minPairs: 40, maxPairs: 400, budgetMs: 4000 };
const PEERS = ['tfjs-wasm', 'ort-wasm'];
const trialTiming = {
  clock: 'cpu',
  ...(opts.smoke ? { rounds: 1, roundMs: 1, warmMs: 0 } : { rounds: 3, roundMs: 30, warmMs: 100 }),
};
const log = (...a) => console.error(...a);
const started = performance.now();

// Implementations: ours (three), then the peers; a peer that does not load is reported, not fatal.
const ours = await oursImplementations();
const impls = [...ours];
const unavailable = [];
// The peers' emscripten glue adds process handlers that rethrow every uncaught
// error from inside their own code, which then shows as the place of any
// error; they are removed after loading (Node's default reporting is the same).
const handlers = (event) => new Set(process.listeners(event));
const before = { uncaughtException: handlers('uncaughtException'), unhandledRejection: handlers('unhandledRejection') };
for (const [id, load] of [
  ['tfjs-wasm', tfjsImplementation],
  ['ort-wasm', ortImplementation],
  ['js', async () => jsImplementation()],
]) {
  try {
    impls.push(await load());
  } catch (e) {
    unavailable.push({ id, reason: String(e.message ?? e) });
    log(`bench: ${id} not available: ${e.message ?? e}`);
  }
}
for (const [event, kept] of Object.entries(before)) {
  for (const h of process.listeners(event)) if (!kept.has(h)) process.removeListener(event, h);
}
const simd128 = ours.find((i) => i.id === 'ag-simd128');
// The registry drives the list: a kernel without a workload stops the run.
const registry = simd128.ag.kernels.map(({ name, family }) => ({ name, family }));
const uncovered = kernelCoverage(registry.map((k) => k.name));
if (uncovered.length)
  throw new Error(`bench: no workload for the registry kernel(s) ${uncovered.join(', ')} (scripts/bench/kernels.mjs)`);
// The probes are bound on the SIMD build's module but are not part of the API.
const probeOptions = opts.smoke ? { ms: 2, rounds: 5 } : { ms: 5, rounds: 40 };
const probeStart = measurePeak(simd128.ag._rt.module, probeOptions);
if (probeStart)
  log(
    `clock ${probeStart.clockGHz.toFixed(2)} GHz, f32x4 ${probeStart.f32x4GFlops.toFixed(1)} GFLOP/s, peak ${probeStart.peakGFlops.toFixed(1)} GFLOP/s`,
  );

/**
 * The candidates of `impl` for `w` that run, each with its error against
 * `ref`; the fastest of those within tolerance is kept (a short interleaved
 * trial when there are several, compared by CPU time). Returns { chosen, candidates } (chosen null
 * when none runs).
 */
async function choose(impl, w, ref) {
  const listed = await impl.prepare(w);
  const candidates = [];
  const working = [];
  for (const c of listed) {
    if (c.failed) {
      candidates.push({ name: c.name, failed: c.failed });
      continue;
    }
    try {
      const error = maxError(await c.run(), ref);
      working.push({ ...c, key: c.name, error });
    } catch (e) {
      candidates.push({
        name: c.name,
        failed: `threw: ${String(e.message ?? e)
          .split('\n')[0]
          .slice(0, 160)}`,
      });
      await c.dispose();
    }
  }
  if (working.length === 0) return { chosen: null, candidates };
  const good = working.filter((c) => c.error.relative <= CANDIDATE_TOLERANCE);
  const pool = good.length ? good : working;
  let chosen = pool[0];
  if (working.length > 1) {
    const t = await measure(working, trialTiming);
    for (const c of working)
      candidates.push({
        name: c.name,
        trialCpuMs: t.get(c.key).cpuMedianMs,
        failed: t.get(c.key).failed,
        error: c.error,
      });
    const ran = pool.filter((c) => !t.get(c.key).failed);
    if (ran.length === 0) {
      for (const c of working) await c.dispose();
      return { chosen: null, candidates };
    }
    // By CPU time: the trial is short, and on a busy machine its wall-clock
    // times depend on which candidate happened to wait for the core.
    chosen = ran.reduce((a, b) => (t.get(b.key).cpuMedianMs < t.get(a.key).cpuMedianMs ? b : a));
  } else {
    candidates.push({ name: chosen.name, error: chosen.error });
  }
  for (const c of working) if (c !== chosen) await c.dispose();
  return { chosen, candidates };
}

/**
 * The verdict of a workload against both peers: 'ahead' when ours is ahead
 * of each (every interval above 1), 'behind' when it is behind either,
 * 'not resolved' otherwise, 'not measured' without both peers' pairs.
 */
function overallVerdict(paired) {
  if (paired.length < PEERS.length) return 'not measured';
  if (paired.some((p) => p.verdict === 'behind')) return 'behind';
  return paired.every((p) => p.verdict === 'ahead') ? 'ahead' : 'not resolved';
}

const results = [];
// CPU time of this process over wall time while measuring: near 100 % on a
// quiet machine; less when other processes shared the core (times inflated).
const loadAtStart = os.loadavg()[0];
const cpuAtStart = process.cpuUsage();
const wallAtStart = performance.now();
const allWorkloads = workloads({ smoke: opts.smoke });
for (const w of allWorkloads.filter((v) => selected(opts.only, v))) {
  const ref = w.reference();
  const picks = [];
  for (const impl of impls) picks.push({ impl, ...(await choose(impl, w, ref)) });
  const running = picks.filter((p) => p.chosen);
  const timed = await measure(
    running.map((p) => ({ key: p.impl.id, run: p.chosen.run, isAsync: p.chosen.isAsync })),
    timing,
  );
  // The verdict: ours (simd128) against each peer in paired rounds; ratio = peer / ours.
  const oursPick = running.find((p) => p.impl.id === 'ag-simd128' && !timed.get(p.impl.id).failed);
  const paired = [];
  for (const p of running.filter((q) => PEERS.includes(q.impl.id) && !timed.get(q.impl.id).failed)) {
    if (!oursPick) break;
    const side = (q) => ({ run: q.chosen.run, isAsync: q.chosen.isAsync });
    const { aUs, bUs, times, ...r } = await pairedRounds(side(oursPick), side(p), pairing);
    paired.push({ peer: p.impl.id, ...r, oursUs: aUs, peerUs: bUs, oursCpuUs: times.a, peerCpuUs: times.b });
  }
  // With the cache resident (decode.mjs): ours also against ours through pastKey and pastValue, the
  // same step, in the same paired rounds; ratio = pastKey time / cache time.
  let pairedPastKey = null;
  if (w.dims.cache && oursPick) {
    const viaPast = callOf(simd128.ag, { ...w, dims: { ...w.dims, cache: false } });
    const side = { run: oursPick.chosen.run, isAsync: false };
    const { aUs, bUs, times, ...r } = await pairedRounds(side, { run: viaPast.run, isAsync: false }, pairing);
    pairedPastKey = { other: 'ag-simd128 with pastKey, pastValue', ...r, oursUs: aUs, otherUs: bUs };
  }
  for (const p of running) await p.chosen.dispose();
  const unit = FAMILIES[w.family].unit;
  const rows = picks.map(({ impl, chosen, candidates }) => {
    if (!chosen)
      return {
        impl: impl.id,
        variant: null,
        candidates,
        failed: candidates.map((c) => `${c.name}: ${c.failed ?? 'wrong result'}`).join('; '),
      };
    const { failed, ...times } = timed.get(impl.id);
    if (failed) return { impl: impl.id, variant: chosen.name, candidates, error: chosen.error, failed };
    const rate = w.work / times.medianMs / 1e6; // G per second
    return { impl: impl.id, variant: chosen.name, candidates, ...times, rate, error: chosen.error };
  });
  const t = (id) => rows.find((r) => r.impl === id && Number.isFinite(r.medianMs))?.medianMs;
  const oursMs = t('ag-simd128');
  const peers = ['tfjs-wasm', 'ort-wasm'].filter((id) => t(id) !== undefined);
  const bestPeer = peers.length === 2 ? peers.reduce((a, b) => (t(b) < t(a) ? b : a)) : null;
  const ratio = (id) => (oursMs && t(id) ? t(id) / oursMs : null);
  const ratios = {
    vsBaseline: ratio('ag-baseline'),
    vsScalar: ratio('ag-scalar'),
    vsJs: ratio('js'),
    bestPeer,
    vsBestPeer: bestPeer ? ratio(bestPeer) : null,
  };
  const { dims, inputs, weights, reference, ...meta } = w;
  results.push({
    ...meta,
    dims,
    unit,
    results: rows,
    ratios,
    paired,
    verdict: overallVerdict(paired),
    ...(pairedPastKey ? { pairedPastKey } : {}),
  });
  log(`${w.label}: ${rows.map((r) => `${r.impl} ${r.medianMs?.toFixed(3) ?? 'failed'} ms`).join(', ')}`);
  log(
    `  paired: ${paired.map((p) => `${p.peer} ${p.ratio.toFixed(3)} (${p.lo.toFixed(3)}–${p.hi.toFixed(3)}, ${p.pairs} pairs) ${p.verdict}`).join('; ')}`,
  );
  if (pairedPastKey)
    log(
      `  paired: ${pairedPastKey.other} ${pairedPastKey.ratio.toFixed(3)} (${pairedPastKey.lo.toFixed(3)}–${pairedPastKey.hi.toFixed(3)}, ${pairedPastKey.pairs} pairs) ${pairedPastKey.verdict}`,
    );
  if (impls.some((i) => i.liveTensors?.() > 0)) throw new Error(`tfjs: tensors left alive after ${w.id}`);
}

// Every other registry kernel, on ours only (simd128, scalar, baseline).
const kernels = [];
for (const k of kernelWorkloads(registry, { smoke: opts.smoke }).filter((v) => selected(opts.only, v))) {
  const { results, ratios } = await timeOnOurs(ours, k.call, { measure, timing });
  const { call, ...meta } = k;
  kernels.push({ ...meta, results, ratios });
  log(`${k.label}: ${results.map((r) => `${r.impl} ${r.medianMs?.toFixed(4) ?? 'failed'} ms`).join(', ')}`);
}

// Training steps per second of a tiny transformer: ours (three) and tfjs-backend-wasm.
const training =
  opts.only.length === 0 || opts.only.includes('training')
    ? await measureTraining(ours, { smoke: opts.smoke, measure, timing, log })
    : null;

let longAttention = null;
if (opts.only.length === 0 || opts.only.includes('attention-long')) {
  const T = opts.smoke ? SIZES.smoke.longT : SIZES.full.longT;
  longAttention = await measureLongAttention(simd128.ag, {
    T,
    clock: opts.clock,
    rounds: opts.smoke ? 1 : 3,
    roundMs: opts.smoke ? 1 : 60,
  });
  log(
    `attention T=${T}: ${longAttention.paths.map((p) => `${p.name} ${p.ok ? `${p.medianMs.toFixed(1)} ms` : p.reason}`).join(', ')}`,
  );
}

const cpu = process.cpuUsage(cpuAtStart);
const kernelsS = (performance.now() - wallAtStart) / 1000;
const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallAtStart);
const pageStart = performance.now();

let pageUpdates = { measured: false, reason: 'not measured (not asked for)' };
if (opts.smoke) pageUpdates = { measured: false, reason: 'not measured (--smoke)' };
else if (opts.only.length === 0 || opts.only.includes('page-updates')) {
  const file = new URL('./bench/page-updates.mjs', import.meta.url);
  if (!existsSync(file))
    pageUpdates = { measured: false, reason: 'not measured (scripts/bench/page-updates.mjs is not there yet)' };
  else {
    try {
      const { measurePageUpdates } = await import(file);
      pageUpdates = { measured: true, rows: await measurePageUpdates() };
    } catch (e) {
      pageUpdates = { measured: false, reason: `not measured: ${String(e.message ?? e).split('\n')[0]}` };
    }
  }
}

// The probes again at the end: the clock is the faster of the two readings
// (load from elsewhere only slows a reading down), and the peak is 16 flop per
// cycle of it; percent of peak for every flop workload follows.
const probeEnd = measurePeak(simd128.ag._rt.module, probeOptions);
const probe = probeStart && probeEnd && probeEnd.clockGHz > probeStart.clockGHz ? probeEnd : probeStart;
for (const w of results) {
  for (const r of w.results)
    r.percentOfPeak =
      w.unit === 'GFLOP/s' && probe && Number.isFinite(r.rate) ? (100 * r.rate) / probe.peakGFlops : null;
}
const pkg = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const run = {
  date: new Date().toISOString(),
  smoke: opts.smoke,
  only: opts.only,
  machine: {
    cpu: os.cpus()[0]?.model?.trim() ?? 'unknown',
    cores: os.cpus().length,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    loadAverage1m: { start: loadAtStart, end: os.loadavg()[0] },
    cpuShareWhileMeasuring: cpuShare,
  },
  implementations: impls.map(({ id, label, kind, version }) => ({ id, label, kind, version })),
  unavailable,
  versions: {
    'attention-geometry': JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version,
    '@tensorflow/tfjs-core': pkg('@tensorflow/tfjs-core'),
    '@tensorflow/tfjs-backend-wasm': pkg('@tensorflow/tfjs-backend-wasm'),
    'onnxruntime-web': pkg('onnxruntime-web'),
    'onnx-proto': pkg('onnx-proto'),
  },
  timing,
  probe: probe && {
    ...probe,
    atStart: probeStart,
    atEnd: probeEnd,
    note: 'peak = 16 flop/cycle (two 128-bit multiplies and two 128-bit adds per cycle, no FMA in base wasm SIMD) × the faster clock reading of the start and the end of the run; percent of peak uses it',
  },
  families: FAMILIES,
  registry,
  workloads: results,
  pairing,
  kernels,
  longAttention,
  pageUpdates,
  training,
};
run.goals = evaluateGoals(run, { workloadCount: allWorkloads.length });
run.durationS = (performance.now() - started) / 1000;
run.phasesS = { kernels: kernelsS, pageUpdates: (performance.now() - pageStart) / 1000 };

mkdirSync(opts.out, { recursive: true });
writeFileSync(join(opts.out, 'bench.json'), `${JSON.stringify(run, null, 1)}\n`);
const markdown = markdownReport(run) + kernelsReport(run) + trainingReport(run);
writeFileSync(join(opts.out, 'bench.md'), markdown);
console.log(markdown);
log(`bench: wrote ${join(opts.out, 'bench.json')} and bench.md in ${run.durationS.toFixed(0)} s`);
