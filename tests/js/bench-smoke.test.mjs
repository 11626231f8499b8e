// npm run bench on tiny sizes (--smoke): the script runs every workload on
// every implementation and writes its JSON and Markdown. No timing is
// asserted (times are the benchmark's numbers, not a test's): only that each
// time is a finite positive number and each result agrees with the float64
// reference the script computes from the same inputs. The script's own
// references are plain float64 loops (tests/reference/float64.mjs), separate
// from every implementation measured.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { kernelCoverage } from '../../scripts/bench/kernels.mjs';
import { PEER_KERNELS } from '../../scripts/bench/workloads.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));

// Issue 7's workloads: matmul; Q Kᵀ, softmax and attention at three lengths; multi-head attention;
// issue 20's decoding step with a KV cache, with and without RoPE, and with RoPE and ours' cache resident.
const FAMILIES = { matmul: 1, qkt: 3, softmax: 3, attention: 3, mha: 1, decode: 3 };
const IMPLEMENTATIONS = ['ag-simd128', 'ag-scalar', 'ag-baseline', 'tfjs-wasm', 'ort-wasm', 'js'];
// Loose: float32 results of the smoke sizes (sums of at most 32 products, exp
// of a vectorised polynomial) are within about 1e-6 of float64, relative to
// the largest |reference| entry; a wrong index or a missing scale gives O(1).
const RELATIVE_ERROR_BOUND = 1e-4;

function bench(args, out) {
  execFileSync(process.execPath, [join(root, 'scripts/bench.mjs'), '--smoke', `--out=${out}`, ...args], {
    cwd: root,
    stdio: 'pipe',
    timeout: 120000,
  });
  return JSON.parse(readFileSync(join(out, 'bench.json'), 'utf8'));
}

describe('npm run bench --smoke', () => {
  let dir;
  let run;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ag-bench-'));
    run = bench([], join(dir, 'all'));
  }, 120000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('measures every workload of issue 7 once', () => {
    const counts = {};
    for (const w of run.workloads) counts[w.family] = (counts[w.family] ?? 0) + 1;
    expect(counts).toEqual(FAMILIES);
    expect(new Set(run.workloads.map((w) => w.id)).size).toBe(run.workloads.length);
  });

  test('every registry kernel has a workload: a peer workload or a kernel workload', () => {
    const names = run.registry.map((k) => k.name);
    expect(names.length).toBeGreaterThan(20);
    expect(kernelCoverage(names)).toEqual([]);
    const timed = [...run.workloads.map((w) => PEER_KERNELS[w.family]), ...run.kernels.map((k) => k.kernel)];
    expect([...new Set(timed)].sort()).toEqual([...names].sort());
    expect(new Set(run.kernels.map((k) => k.id)).size).toBe(run.kernels.length);
  });

  test('every kernel workload has a finite time on simd128, scalar and baseline, and the report a row', () => {
    const md = readFileSync(join(dir, 'all', 'bench.md'), 'utf8');
    const problems = [];
    for (const k of run.kernels) {
      expect(k.results.map((r) => r.impl).sort()).toEqual(['ag-baseline', 'ag-scalar', 'ag-simd128']);
      for (const r of k.results)
        if (!(Number.isFinite(r.medianMs) && r.medianMs > 0)) problems.push(`${k.id} ${r.impl}: ${r.medianMs}`);
      if (!md.includes(`| ${k.kernel} | ${k.family} | ${k.label} |`)) problems.push(`${k.id}: no row in bench.md`);
    }
    expect(problems).toEqual([]);
  });

  test('every workload has every implementation, with a finite time and its error against float64', () => {
    expect(run.unavailable).toEqual([]);
    const problems = [];
    for (const w of run.workloads) {
      expect(w.results.map((r) => r.impl).sort()).toEqual([...IMPLEMENTATIONS].sort());
      for (const r of w.results) {
        const where = `${w.id} ${r.impl}`;
        if (!(Number.isFinite(r.medianMs) && r.medianMs > 0))
          problems.push(`${where}: time ${r.medianMs} (${r.failed ?? ''})`);
        if (!(r.wallMedianMs > 0 && r.cpuMedianMs >= 0))
          problems.push(`${where}: wall ${r.wallMedianMs}, CPU ${r.cpuMedianMs}`);
        if (!(r.error?.relative <= RELATIVE_ERROR_BOUND))
          problems.push(`${where}: relative error ${r.error?.relative}`);
        if (!(r.samples?.length >= 1 && r.samples.every((s) => Number.isFinite(s))))
          problems.push(`${where}: samples ${r.samples}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('the ratios are reported for every workload', () => {
    for (const w of run.workloads) {
      for (const key of ['vsBaseline', 'vsScalar', 'vsBestPeer'])
        expect(Number.isFinite(w.ratios[key]) && w.ratios[key] > 0).toBe(true);
      expect(['tfjs-wasm', 'ort-wasm']).toContain(w.ratios.bestPeer);
    }
  });

  test('every workload has a paired ratio against each peer, with its interval and verdict', () => {
    const problems = [];
    for (const w of run.workloads) {
      expect(w.paired.map((p) => p.peer).sort()).toEqual(['ort-wasm', 'tfjs-wasm']);
      for (const p of w.paired) {
        const where = `${w.id} ${p.peer}`;
        if (!(p.lo <= p.ratio && p.ratio <= p.hi && p.lo > 0)) problems.push(`${where}: ${p.lo} ${p.ratio} ${p.hi}`);
        if (p.pairs !== p.oursCpuUs.length || p.pairs !== p.peerCpuUs.length) problems.push(`${where}: pairs`);
        const expected = p.lo > 1 ? 'ahead' : p.hi < 1 ? 'behind' : 'not resolved';
        if (p.verdict !== expected) problems.push(`${where}: verdict ${p.verdict}, interval ${p.lo}–${p.hi}`);
      }
      const verdicts = w.paired.map((p) => p.verdict);
      const overall = verdicts.includes('behind')
        ? 'behind'
        : verdicts.every((v) => v === 'ahead')
          ? 'ahead'
          : 'not resolved';
      if (w.verdict !== overall) problems.push(`${w.id}: verdict ${w.verdict}, peers ${verdicts}`);
    }
    expect(problems).toEqual([]);
  });

  test('the probes give a clock and a peak, and the machine and versions are recorded', () => {
    expect(run.probe.clockGHz).toBeGreaterThan(0);
    expect(run.probe.f32x4GFlops).toBeGreaterThan(0);
    expect(run.probe.flopPerCycle).toBe(16);
    expect(Number.isFinite(Date.parse(run.date))).toBe(true);
    expect(run.machine.cpu.length).toBeGreaterThan(0);
    expect(run.machine.node).toBe(process.version);
    for (const p of ['@tensorflow/tfjs-backend-wasm', 'onnxruntime-web', 'onnx-proto'])
      expect(run.versions[p]).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('long attention runs on ours and agrees with float64', () => {
    const ok = run.longAttention.paths.filter((p) => p.ok);
    expect(ok.length).toBeGreaterThan(0);
    for (const p of ok) {
      expect(Number.isFinite(p.medianMs)).toBe(true);
      expect(p.error.relative).toBeLessThanOrEqual(RELATIVE_ERROR_BOUND);
    }
  });

  test('every goal of issue 7 is listed, and none is judged on smoke sizes', () => {
    expect(run.goals).toHaveLength(5);
    for (const g of run.goals) expect(g.met).toBeNull();
  });

  test('the Markdown report is written, with a row per workload and implementation', () => {
    const md = readFileSync(join(dir, 'all', 'bench.md'), 'utf8');
    expect(md).toMatch(/^# Benchmark/);
    expect(md).toContain('## Goals (issue 7)');
    for (const w of run.workloads) {
      const rows = md.split('\n').filter((line) => line.startsWith(`| ${w.label} |`));
      // The summary row, the verdict row, the results rows and the ratios row.
      expect(rows.length).toBe(IMPLEMENTATIONS.length + 3);
    }
  });

  test('--only keeps the named workloads and families', () => {
    const only = bench(['--only=softmax,matmul'], join(dir, 'only'));
    expect(only.workloads.map((w) => w.family).sort()).toEqual(['matmul', 'softmax', 'softmax', 'softmax']);
    expect(only.longAttention).toBeNull();
    expect(existsSync(join(dir, 'only', 'bench.md'))).toBe(true);
  }, 120000);
});
