// The Markdown report of a benchmark run (the JSON of bench.mjs): machine and
// peak, goals, one row per workload and implementation, the ratios, long
// attention and page updates.

const NAMES = {
  'ag-simd128': 'ours simd128',
  'ag-scalar': 'ours scalar kernels',
  'ag-baseline': 'ours baseline build',
  'tfjs-wasm': 'tfjs-backend-wasm',
  'ort-wasm': 'onnxruntime-web',
  js: 'plain JS',
};
const name = (id) => NAMES[id] ?? id;

/** 3 significant digits, in µs below 1 ms and in s from 1000 ms. */
function time(ms) {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return `${(ms * 1000).toPrecision(3)} µs`;
  if (ms >= 1000) return `${(ms / 1000).toPrecision(3)} s`;
  return `${ms.toPrecision(3)} ms`;
}
const ratio = (r) => (r == null ? '—' : `${r.toFixed(2)}×`);
const sci = (v) => (v == null ? '—' : v === 0 ? '0' : v.toExponential(1));
const mib = (b) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const cell = (s) => String(s).replaceAll('|', '\\|');

function table(head, rows, align) {
  const lines = [`| ${head.join(' | ')} |`, `| ${align.map((a) => (a === 'r' ? '---:' : '---')).join(' | ')} |`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

/** Half the interquartile range of the rounds in % of their median, and the number of rounds. */
function spread(samples) {
  if (!samples || samples.length < 3) return `— (${samples?.length ?? 0})`;
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.round((s.length - 1) * p)];
  return `±${((50 * (q(0.75) - q(0.25))) / q(0.5)).toFixed(1)} % (${s.length})`;
}

/** The clock the rates and ratios come from (run.timing.clock), and the other one, shown beside it. */
const CLOCK = {
  cpu: {
    what: 'Every time, rate and ratio is from the CPU time of this process per call (user + system, all its threads; every implementation runs on one thread);',
    why: 'unlike wall-clock time (shown beside it), it does not grow while the process waits for a core that other processes hold.',
    other: 'wall-clock',
    otherKey: 'wallMedianMs',
  },
  wall: {
    what: 'Every time, rate and ratio is from wall-clock time per call (--clock=wall);',
    why: 'the CPU time of this process is shown beside it.',
    other: 'CPU time',
    otherKey: 'cpuMedianMs',
  },
};

function header(run) {
  const m = run.machine;
  const p = run.probe;
  const lines = [
    `# Benchmark${run.smoke ? " (smoke run: tiny sizes, not the issue's)" : ''}`,
    '',
    `${run.date.slice(0, 10)} · ${m.cpu} (${m.cores} cores) · ${m.platform} · Node ${m.node} (V8 ${m.v8}) · every implementation on one thread, in one process, interleaved round by round; median of ${run.timing.minRounds && run.timing.minRounds !== run.timing.rounds ? `${run.timing.minRounds} to ${run.timing.rounds} rounds (fewer when single calls are slow)` : `${run.timing.rounds} rounds`} of ≥ ${run.timing.roundMs} ms or one call each, after warm-up.`,
    '',
  ];
  const share = m.cpuShareWhileMeasuring;
  // CPU time counts every thread of the process: besides the one that runs
  // the calls, V8's background compilers and garbage collector, and any
  // helper threads of the peers.
  const verdict =
    share < 0.9
      ? ': the machine was busy, so wall-clock times are longer than CPU times.'
      : share > 1.1
        ? ": other threads of this process ran beside the measured one (V8's background compilers and garbage collector, the peers' helper threads), so CPU times are longer than wall-clock times; on a quiet machine, wall-clock time (--clock=wall) is the better measure."
        : ': a quiet machine, where both clocks agree.';
  lines.push(
    `**Times.** ${CLOCK[run.timing.clock].what} ${CLOCK[run.timing.clock].why} ` +
      `This process had ${(100 * share).toFixed(0)} % of one core's time while measuring (load average ${m.loadAverage1m.start.toFixed(2)} at the start, ${m.loadAverage1m.end.toFixed(2)} at the end, on ${m.cores} cores)` +
      verdict,
    '',
  );
  if (p) {
    lines.push(
      `**Peak.** Clock ${p.clockGHz.toFixed(2)} GHz (a chain of dependent integer adds and xors, one cycle each; the faster of ${p.atStart.clockGHz.toFixed(2)} GHz at the start and ${p.atEnd.clockGHz.toFixed(2)} GHz at the end of the run, each the fastest of its rounds). ` +
        `A plain f32x4 loop of independent multiply and add chains reaches ${p.f32x4GFlops.toFixed(1)} GFLOP/s. ` +
        `**Peak = 16 flop/cycle × clock = ${p.peakGFlops.toFixed(1)} GFLOP/s** (two 128-bit multiplies and two 128-bit adds per cycle, no FMA in base wasm SIMD): the "% of peak" below is of this theoretical figure.`,
      '',
    );
  } else lines.push('**Peak.** Not measured: this SIMD build has no probes.', '');
  lines.push('**Versions.** ' + run.implementations.map((i) => `${name(i.id)}: ${i.version}`).join(' · '), '');
  if (run.unavailable.length)
    lines.push(`**Not available.** ${run.unavailable.map((u) => `${u.id}: ${u.reason}`).join('; ')}`, '');
  return lines.join('\n');
}

function goals(run) {
  const mark = (met) =>
    run.smoke ? 'not judged' : met === true ? 'met' : met === false ? '**not met**' : 'not measured';
  return [
    '## Goals (issue 7)',
    '',
    table(
      ['goal', 'status', 'numbers'],
      run.goals.map((g) => [g.goal, mark(g.met), g.detail]),
      ['l', 'l', 'l'],
    ),
  ].join('\n');
}

/** One row per workload: the median time of every implementation, ours' rate and the ratio to the faster peer. */
function summary(run) {
  const ids = run.implementations.map((i) => i.id);
  const rows = run.workloads.map((w) => {
    const ours = w.results.find((r) => r.impl === 'ag-simd128');
    const rate =
      ours && Number.isFinite(ours.rate)
        ? `${ours.rate.toFixed(2)} ${w.unit}${ours.percentOfPeak == null ? '' : ` (${ours.percentOfPeak.toFixed(0)} %)`}`
        : '—';
    return [
      w.label,
      ...ids.map((id) => time(w.results.find((r) => r.impl === id)?.medianMs)),
      rate,
      ratio(w.ratios.vsBestPeer),
    ];
  });
  return [
    '## Summary (median time per call; ours simd128: rate and % of peak; vs best peer = time of the faster peer / ours)',
    '',
    table(['workload', ...ids.map(name), 'ours simd128 rate', 'vs best peer'], rows, [
      'l',
      ...ids.map(() => 'r'),
      'r',
      'r',
    ]),
  ].join('\n');
}

function results(run) {
  const rows = [];
  for (const w of run.workloads) {
    for (const r of w.results) {
      if (!Number.isFinite(r.medianMs)) {
        rows.push([w.label, name(r.impl), '—', '—', 'failed', '', '', '', '', r.failed ?? '']);
        continue;
      }
      rows.push([
        w.label,
        name(r.impl),
        time(r.medianMs),
        time(r[CLOCK[run.timing.clock].otherKey]),
        `${r.rate.toFixed(2)} ${w.unit}`,
        r.percentOfPeak == null ? '—' : `${r.percentOfPeak.toFixed(1)} %`,
        sci(r.error.maxAbs),
        sci(r.error.relative),
        spread(r.samples),
        r.variant,
      ]);
    }
  }
  const counts = Object.entries(run.families).map(([f, v]) => `- ${f}: ${v.what}; ${v.count}`);
  return [
    '## Results',
    '',
    table(
      [
        'workload',
        'implementation',
        'median',
        CLOCK[run.timing.clock].other,
        'rate',
        '% of peak',
        'max abs error',
        'relative',
        'spread',
        'what ran',
      ],
      rows,
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
    'Times include copying inputs in and results out through each public API (ours: a call of the JS API; tfjs: tensors made from the Float32Arrays, dataSync(), dispose; onnxruntime: ort.Tensor, await run, .data); weights of multi-head attention are resident in the peers (tfjs tensors, ONNX initializers) and copied in on every call of ours. ' +
      `Median: ${run.timing.clock === 'cpu' ? 'CPU' : 'wall-clock'} time per call, from which rate, % of peak and the ratios are computed; ${CLOCK[run.timing.clock].other}: the median by the other clock. ` +
      'Error: max |result − float64 reference| over all entries, and that divided by the largest |reference|. Spread: half the interquartile range of the rounds, in % of the median (the number of rounds in brackets). "What ran": the op chain; for a peer with several candidate graphs, the fastest correct one.',
    '',
    'Work counted:',
    ...counts,
  ].join('\n');
}

function ratios(run) {
  const rows = run.workloads.map((w) => {
    const ours = w.results.find((r) => r.impl === 'ag-simd128');
    const peer = w.ratios.bestPeer ? w.results.find((r) => r.impl === w.ratios.bestPeer) : null;
    return [
      w.label,
      time(ours?.medianMs),
      ratio(w.ratios.vsBaseline),
      ratio(w.ratios.vsScalar),
      peer ? `${name(peer.impl)} ${time(peer.medianMs)}` : '—',
      ratio(w.ratios.vsBestPeer),
      ratio(w.ratios.vsJs),
    ];
  });
  return [
    '## Ratios (time of the other / time of ours simd128; > 1: ours is faster)',
    '',
    table(
      [
        'workload',
        'ours simd128',
        'vs baseline build',
        'vs scalar kernels',
        'best peer',
        'vs best peer',
        'vs plain JS',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'l', 'r', 'r'],
    ),
  ].join('\n');
}

/** Per workload, the candidate graphs of the peers that have several: trial time, or why not. */
function candidates(run) {
  const lines = [];
  for (const w of run.workloads) {
    for (const r of w.results) {
      if (!r.candidates || r.candidates.length < 2) continue;
      const each = r.candidates.map((c) => {
        if (c.failed) return `${c.name}: ${c.failed}`;
        const mark = c.name === r.variant ? ' (kept)' : '';
        const wrong = c.error && c.error.relative > 1e-3 ? `, relative error ${sci(c.error.relative)}` : '';
        return `${c.name} ${time(c.trialCpuMs)}${wrong}${mark}`;
      });
      lines.push(`- ${w.label}, ${name(r.impl)}: ${each.join('; ')}`);
    }
  }
  if (lines.length === 0) return '';
  return [
    '## Candidates of the peers (CPU time per call in a short trial; the fastest correct one is measured above)',
    '',
    ...lines,
  ].join('\n');
}

function longAttention(run) {
  const l = run.longAttention;
  if (!l) return '';
  const rows = l.paths.map((p) => {
    if (!p.ok) return [p.name, 'did not run', '', '', '', p.reason];
    const mem = p.peak
      ? `${mib(p.peak.extraBytes)} (${p.growth.map((g) => `T=${g.T}: ${mib(g.extraBytes)}`).join(', ')})`
      : 'no memoryStats() in this build';
    return [p.name, time(p.medianMs), `${p.gflops.toFixed(2)} GFLOP/s`, mem, sci(p.error.maxAbs), ''];
  });
  return [
    `## Attention at T = ${l.T}, d_k = d_v = ${l.d} (ours simd128)`,
    '',
    table(['path', 'median', 'rate', 'extra peak wasm heap', 'max abs error', 'note'], rows, [
      'l',
      'r',
      'r',
      'l',
      'r',
      'l',
    ]),
    '',
    `Extra peak: ag.memoryStats().peakAllocatedBytes after ag.resetPeakMemory(), minus the heap in use before the call (inputs, output and workspace of the call). One [T, T] float32 buffer is ${mib(l.squareBufferBytes)}. Error against float64 on 64 query rows spread over the sequence.`,
  ].join('\n');
}

function pageUpdates(run) {
  const p = run.pageUpdates;
  if (!p.measured) return `## Page updates\n\n${p.reason.replace(/\.*$/, '')}.`;
  const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(2)} ms` : '—');
  const rows = p.rows.map((r) => [
    r.chapter,
    r.update,
    ms(r.medianMs),
    ms(r.p95Ms),
    ms(r.taskP95Ms),
    ms(r.inputDelayMedianMs),
    `${r.samples}${r.missed ? ` (${r.missed} without a render)` : ''}`,
  ]);
  return [
    "## Page updates (Chromium: from the input event to the end of the widget's render)",
    '',
    'Each input comes once the previous update is on the screen (two animation frames later), about as often as a held key repeats; PACE=0 sends them back to back.',
    '',
    'The whole task runs from the input until the last handler of its events has returned (the URL write and the announcements included); the input delay is the wait before the first handler starts, which is time the page spent on something else.',
    '',
    table(['chapter', 'update', 'median', 'p95', 'whole task p95', 'input delay', 'samples'], rows, [
      'l',
      'l',
      'r',
      'r',
      'r',
      'r',
      'r',
    ]),
  ].join('\n');
}

/** The whole report as Markdown. */
export function markdownReport(run) {
  return [
    header(run),
    goals(run),
    summary(run),
    results(run),
    ratios(run),
    candidates(run),
    longAttention(run),
    pageUpdates(run),
    `Run time ${run.durationS.toFixed(0)} s (kernels ${run.phasesS.kernels.toFixed(0)} s, page updates ${run.phasesS.pageUpdates.toFixed(0)} s).`,
    '',
  ]
    .filter((s) => s !== '')
    .join('\n\n');
}
