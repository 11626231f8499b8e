// Where the time of a chapter's update goes, from a Chromium trace recorded
// while scripts/bench/page-updates.mjs repeats it (PROFILE=1). The trace
// holds the renderer's tasks with what ran inside them (script, style
// recalculation, layout, garbage collection, ...) and V8's CPU samples.
// Only the tasks that handled a timed input are summarised: a task counts
// when a key press was dispatched in it and a widget's render ('ag-render')
// ended in it.
//
// For a readable list of functions, profile an unminified build: esbuild
// marks where each bundled module starts (a `// path/of/module.js` line),
// which names the module of every sampled function, so that time spent in
// KaTeX, d3 or a chapter's own code adds up (readableSite() makes one).

import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SITE_ENTRY_POINTS } from '../build.mjs';

/** The trace categories: tasks and their parts, user timing, V8's sampler at 100 µs. */
export const TRACE_CATEGORIES = [
  '-*',
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'disabled-by-default-v8.cpu_profiler.hires',
];

/** Starts tracing through a DevTools protocol connection (playwright-core newCDPSession). */
export async function startTrace(cdp) {
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { recordMode: 'recordContinuously', includedCategories: TRACE_CATEGORIES },
  });
}

/** Stops tracing and resolves with the trace events. */
export async function stopTrace(cdp) {
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  const { stream } = await complete;
  const chunks = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 20 });
    chunks.push(base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data);
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(chunks.join(''));
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

/** What kind of work a trace event is, by its name. */
function kindOf(name) {
  if (/GC|Scavenge|Sweep|Mark-?Compact|ThreadState|BlinkGC|CppGC/i.test(name)) return 'gc';
  if (/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|ParseAuthorStyleSheet|StyleRecalc)/.test(name))
    return 'style';
  if (/^(Layout|UpdateLayer|UpdateLayerTree|IntersectionObserverController|ComputeIntersections|Layerize)/.test(name))
    return 'layout';
  if (/^(Paint|PrePaint|PaintImage|CompositeLayers|Commit|RasterTask)/.test(name)) return 'paint';
  if (/^(EventDispatch)/.test(name)) return 'event dispatch';
  if (/^(FunctionCall|EvaluateScript|v8\.|V8\.|RunMicrotasks|TimerFire|FireAnimationFrame|ParseHTML|v8)/.test(name))
    return 'script';
  if (/RunTask/.test(name)) return 'task (other)';
  return `other: ${name}`;
}

/** Complete events of one thread as { name, ts, end, args }, from X events and B/E pairs, sorted for nesting. */
function spansOf(events) {
  const spans = [];
  const open = [];
  for (const e of events) {
    if (e.ph === 'X' && Number.isFinite(e.dur)) spans.push({ name: e.name, ts: e.ts, end: e.ts + e.dur, args: e.args });
    else if (e.ph === 'B') open.push(e);
    else if (e.ph === 'E') {
      const b = open.pop();
      if (b) spans.push({ name: b.name, ts: b.ts, end: e.ts, args: b.args });
    }
  }
  return spans.sort((a, b) => a.ts - b.ts || b.end - a.end);
}

/** Milliseconds of self time per key inside `task` (microseconds in the trace). */
function selfTimes(task, inside) {
  const self = new Map();
  const add = (k, us) => self.set(k, (self.get(k) ?? 0) + us / 1000);
  const stack = [{ span: task, child: 0 }];
  const close = (top) => add(kindOf(top.span.name), top.span.end - top.span.ts - top.child);
  for (const s of inside) {
    while (stack.length > 1 && s.ts >= stack.at(-1).span.end) close(stack.pop());
    stack.at(-1).child += Math.min(s.end, stack.at(-1).span.end) - s.ts;
    stack.push({ span: s, child: 0 });
  }
  while (stack.length) close(stack.pop());
  return self;
}

const QUANT = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

/** Which bundled module each line of a script belongs to (unminified esbuild output), or null. */
function moduleLines(text) {
  const lines = text.split('\n');
  const marks = [];
  lines.forEach((line, i) => {
    const m = /^\/\/ ((?:node_modules|web|src|dist)\/\S+\.m?[jt]s)$/.exec(line);
    if (m) marks.push({ line: i, module: m[1] });
  });
  return marks.length ? marks : null;
}

function moduleName(path) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return m ? m[1] : path;
}

/**
 * Summarises the input tasks of a trace.
 * @param {object[]} events the trace events
 * @param {{ site?: string, origin?: string, top?: number }} o site: the folder served at origin (to name modules)
 * @returns {{ tasks: number, taskMedianMs, taskP95Ms, kinds: [string, number][], between: [string, number][], modules: [string, number][], functions: [string, number][] }}
 *   kinds, modules and functions in milliseconds per input task (mean); between: the
 *   main thread's other tasks, per input task
 */
export function summariseTrace(events, { site = null, origin = null, top = 12 } = {}) {
  const mainThreads = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const byThread = new Map();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (!mainThreads.has(key)) continue;
    if (!byThread.has(key)) byThread.set(key, []);
    byThread.get(key).push(e);
  }
  // Ends of the 'ag-render' measures (async user timing events, any thread of the process).
  const renderEnds = events.filter((e) => e.name === 'ag-render' && (e.ph === 'e' || e.ph === 'E')).map((e) => e.ts);
  let best = { thread: null, tasks: [], others: [] };
  for (const [thread, list] of byThread) {
    const spans = spansOf(list);
    const tasks = [];
    let current = null;
    for (const s of spans) {
      if (current && s.ts < current.span.end) {
        current.inside.push(s);
        continue;
      }
      current = /RunTask/.test(s.name) ? { span: s, inside: [] } : null;
      if (current) tasks.push(current);
    }
    const input = tasks.filter(
      (t) =>
        t.inside.some((s) => s.name === 'EventDispatch' && /^key/.test(s.args?.data?.type ?? '')) &&
        renderEnds.some((ts) => ts >= t.span.ts && ts <= t.span.end),
    );
    if (input.length > best.tasks.length)
      best = { thread, tasks: input, others: tasks.filter((t) => !input.includes(t)) };
  }
  const tasks = best.tasks;
  if (!tasks.length)
    return { tasks: 0, taskMedianMs: null, taskP95Ms: null, kinds: [], between: [], modules: [], functions: [] };

  const kinds = new Map();
  for (const t of tasks) for (const [k, ms] of selfTimes(t.span, t.inside)) kinds.set(k, (kinds.get(k) ?? 0) + ms);
  // The main thread's other work while the updates ran (animation frames,
  // timers, worker messages): it delays the next input and the paint.
  const between = new Map();
  for (const t of best.others)
    for (const [k, ms] of selfTimes(t.span, t.inside)) between.set(k, (between.get(k) ?? 0) + ms);
  const durations = tasks.map((t) => (t.span.end - t.span.ts) / 1000).sort((a, b) => a - b);

  // CPU samples of the main thread inside the input tasks.
  const [pid, tid] = best.thread.split(':').map(Number);
  const profileIds = new Set(
    events.filter((e) => e.name === 'Profile' && e.pid === pid && e.tid === tid).map((e) => e.id),
  );
  const nodes = new Map();
  const samples = [];
  for (const e of events) {
    if (e.name === 'Profile' && profileIds.has(e.id)) samples.time = e.args.data.startTime;
    if (e.name !== 'ProfileChunk' || !profileIds.has(e.id)) continue;
    const { cpuProfile = {}, timeDeltas = [] } = e.args.data;
    for (const n of cpuProfile.nodes ?? []) nodes.set(n.id, n);
    (cpuProfile.samples ?? []).forEach((id, i) => {
      samples.time = (samples.time ?? 0) + timeDeltas[i];
      samples.push({ id, ts: samples.time });
    });
  }
  const windowsOf = (list) => list.map((t) => [t.span.ts, t.span.end]).sort((a, b) => a[0] - b[0]);
  const inputWindows = windowsOf(tasks);
  const otherWindows = windowsOf(best.others);
  const inside = (windows, ts) => {
    let lo = 0;
    let hi = windows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ts < windows[mid][0]) hi = mid - 1;
      else if (ts > windows[mid][1]) lo = mid + 1;
      else return true;
    }
    return false;
  };
  const scripts = new Map();
  const moduleOf = (url, line) => {
    if (!url) return null;
    if (url.startsWith('wasm://')) return 'wasm';
    if (!site || !origin || !url.startsWith(origin)) return null;
    if (!scripts.has(url)) {
      let marks;
      try {
        marks = moduleLines(readFileSync(join(site, new URL(url).pathname), 'utf8'));
      } catch {
        marks = null;
      }
      scripts.set(url, marks);
    }
    const marks = scripts.get(url);
    if (!marks) return null;
    let found = null;
    for (const m of marks) if (m.line <= line) found = m.module;
    return found && moduleName(found);
  };
  const label = (frame) => {
    const name = frame.functionName || '(anonymous)';
    if (!frame.url) return name;
    const mod = moduleOf(frame.url, frame.lineNumber);
    return `${name} (${mod ?? `${frame.url.split('/').pop()}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`})`;
  };
  const selfMs = new Map();
  const moduleMs = new Map();
  const otherMs = new Map();
  const sorted = samples.sort((a, b) => a.ts - b.ts);
  for (let i = 0; i < sorted.length; i += 1) {
    const s = sorted[i];
    const next = sorted[i + 1];
    const ms = next ? Math.min(next.ts - s.ts, 1000) / 1000 : 0.1;
    const leaf = nodes.get(s.id);
    if (!leaf) continue;
    const key = label(leaf.callFrame);
    if (!inside(inputWindows, s.ts)) {
      // The caller with a module (what made a browser call), for the other tasks.
      let n = leaf;
      while (n && !moduleOf(n.callFrame.url, n.callFrame.lineNumber)) n = nodes.get(n.parent);
      const owner = n && n !== leaf ? `${key} from ${label(n.callFrame)}` : key;
      if (inside(otherWindows, s.ts) && !/^\((idle|program|root)\)$/.test(leaf.callFrame.functionName))
        otherMs.set(owner, (otherMs.get(owner) ?? 0) + ms);
      continue;
    }
    selfMs.set(key, (selfMs.get(key) ?? 0) + ms);
    // The module of the innermost frame that has one: a call into the
    // browser (setAttribute, replaceState) counts for the code that made it.
    let mod = null;
    for (let n = leaf; n && !mod; n = nodes.get(n.parent)) mod = moduleOf(n.callFrame.url, n.callFrame.lineNumber);
    if (!mod && leaf.callFrame.functionName.startsWith('(')) mod = leaf.callFrame.functionName;
    if (mod) moduleMs.set(mod, (moduleMs.get(mod) ?? 0) + ms);
  }
  const perTask = (map) =>
    [...map]
      .map(([k, ms]) => [k, ms / tasks.length])
      .sort((a, b) => b[1] - a[1])
      .slice(0, top);
  return {
    tasks: tasks.length,
    taskMedianMs: QUANT(durations, 0.5),
    taskP95Ms: QUANT(durations, 0.95),
    kinds: perTask(kinds),
    between: perTask(between),
    modules: perTask(moduleMs),
    functions: perTask(selfMs),
    otherFunctions: perTask(otherMs),
  };
}

/** The summary as text lines. */
export function profileText(chapter, p) {
  const list = (pairs) => pairs.map(([k, ms]) => `${k} ${ms.toFixed(2)}`).join(' · ');
  if (!p.tasks) return `${chapter}: no input task found in the trace`;
  return [
    `${chapter}: ${p.tasks} input tasks, task median ${p.taskMedianMs.toFixed(2)} ms, p95 ${p.taskP95Ms.toFixed(2)} ms (ms per task below)`,
    `  by kind (self): ${list(p.kinds)}`,
    `  other main-thread work per input (frames, timers, messages): ${list(p.between)}`,
    p.modules.length ? `  by module (self; calls into the browser count for their caller): ${list(p.modules)}` : null,
    `  functions (self): ${list(p.functions)}`,
    p.otherFunctions?.length ? `  functions in the other tasks (self): ${list(p.otherFunctions)}` : null,
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * A copy of the built site (build/site) with its scripts bundled again
 * without minifying, so that a profile names functions and modules.
 * @returns {Promise<string>} the folder
 */
export async function readableSite(siteRoot) {
  const { build } = await import('esbuild');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'attention-geometry-readable-'));
  // Everything but the bundles at the top (wasm/, styles/, vendor/ and the pages are kept).
  cpSync(siteRoot, dir, { recursive: true, filter: (f) => !(dirname(f) === siteRoot && f.endsWith('.js')) });
  await build({
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['es2022'],
    chunkNames: 'chunk-[hash]',
    minify: false,
    external: ['node:*'],
    entryPoints: SITE_ENTRY_POINTS,
    outdir: dir,
    logLevel: 'warning',
  });
  return dir;
}
