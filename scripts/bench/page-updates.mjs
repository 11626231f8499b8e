// How long each chapter's main interactive update takes in Chromium: from
// the learner's input (a key press on a point, a slider, a grid cell, a
// number input) to the end of the widget's render. Each chapter is opened
// at its default sizes in a fresh page of the built site (build/site, served
// by scripts/serve.mjs), its update is repeated many times, and the median
// and the 95th percentile of the latencies are reported.
//
// The clock: the event.timeStamp of the input event that made the change
// (taken by a capturing listener on the window, so the browser's queueing
// counts): the key going down, or for a checkbox's Space the key coming up,
// which toggles it (the last key or pointer event before the render began),
// and the end of the
// 'ag-render' User Timing measure that every widget records when a render
// finishes (web/widget/base.js, markRender). Work a widget hands to its
// experiment worker (chapters 10, 13 and the cost chapter) finishes later,
// off the main thread, and is not part of these numbers; the timing starts
// once every worker experiment on the page has finished.
//
// The pace: each input comes once the previous update is on the screen (two
// animation frames after its render, then a task), about 20-30 ms apart,
// like a key held down (about 30 repeats a second) or a drag. Each update
// is thus timed from a page at rest. Inputs sent back to back, faster than
// the browser makes frames, would each wait behind the previous frame's
// style, layout and paint (a few ms here): that waiting is the frame's
// cost, not the update's, and PACE=0 measures it (the input delay grows).
//
//   node scripts/bench/page-updates.mjs              every chapter, a Markdown table
//   node scripts/bench/page-updates.mjs simd cost    only those chapters
//   ROUNDS=100 node scripts/bench/page-updates.mjs   more samples per chapter
//   PACE=0 node scripts/bench/page-updates.mjs       inputs back to back (see "The pace")
//
// As a module: measurePageUpdates({ rounds, chapters, site }) resolves with
// rows { chapter, update, p95Ms, medianMs, samples }: input to the end of the
// render. Also renderMedianMs (the render alone), shellMedianMs and
// shellP95Ms (input until the page shell has handled the widget's
// ag-statechange: the same task, after the render), taskMedianMs and
// taskP95Ms (input until the last handler of the input's events has run on
// the window: the whole task the input causes, the strictest of the three)
// inputDelayMedianMs (from the input's time to its first handler: the time
// the input waited for the main thread), latenciesMs (every sample, sorted)
// and missed (inputs that rendered nothing within a second). With `rest`, a
// chapter with a `start` control is timed without a run (its model at rest),
// for a comparison on the same machine at the same load
// (tests/browser/page-updates.test.mjs). REST=1 does that from the command line.
// scripts/bench.mjs imports it. Never part of npm test: a test only checks
// that it runs on one chapter.
//
// Where the time goes: PROFILE=1 records a Chromium trace (tasks, style,
// layout, GC and V8's CPU samples) while the timed updates run and prints,
// per chapter, what the input tasks spent their time on
// (page-update-profile.mjs). PROFILE=readable profiles an unminified copy of
// the site instead, so that functions and modules have their names.
//
//   PROFILE=readable ROUNDS=80 node scripts/bench/page-updates.mjs explain
import { realpathSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHAPTERS } from '../../web/chapters.js';
import { SITE_ROOT, startServer } from '../serve.mjs';
import { profileText, readableSite, startTrace, stopTrace, summariseTrace } from './page-update-profile.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../chromium.mjs';

/** The goal of issue 7: every update within this many milliseconds at the 95th percentile. */
export const BUDGET_MS = 4;

/**
 * Each chapter's main update: what the learner does (in words), the element
 * it is done on (a selector inside the widget, through its shadow root), and
 * the keys pressed in turn (there and back, so the state never drifts to a
 * bound). A key may be a list: all but the last are pressed first, untimed
 * (moving a grid's focus), and the last one is the update that is timed.
 * Every one is an input the widget already supports. `start`: a control
 * (a Train button) clicked whenever no run of the chapter is going on, so that
 * the update is timed while the chapter trains in its worker.
 */
export const UPDATES = {
  atom: {
    update: 'move key k\u2082 with the arrow keys',
    target: '[data-point="k2"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'dot-product': {
    update: 'move b with the arrow keys',
    target: '[data-point="b"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'why-agree': { update: 'move b with the arrow keys', target: '[data-point="b"]', keys: ['ArrowRight', 'ArrowLeft'] },
  projection: { update: 'move b with the arrow keys', target: '[data-point="b"]', keys: ['ArrowRight', 'ArrowLeft'] },
  sign: { update: 'move a with the arrow keys', target: '[data-point="a"]', keys: ['ArrowRight', 'ArrowLeft'] },
  length: { update: 'stretch the key with the t slider', target: 'input.slider', keys: ['ArrowRight', 'ArrowLeft'] },
  cosine: {
    update: 'move k\u2082 with the arrow keys',
    target: '[data-point="k2"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  qkt: { update: 'step an entry of X with the arrow keys', target: 'input.vec-input', keys: ['ArrowUp', 'ArrowDown'] },
  'worked-example': {
    update: 'step an entry of q with the arrow keys',
    target: 'input.vec-input',
    keys: ['ArrowUp', 'ArrowDown'],
  },
  'sqrt-d': {
    update: 'move the d\u2096 slider (the experiment then runs in the worker)',
    target: 'input.d-slider',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'scale-fix': {
    update: 'move the d\u2096 cursor across the panels',
    target: 'svg[tabindex]',
    keys: ['ArrowLeft', 'ArrowRight'],
  },
  orthogonality: {
    update: 'move q with the arrow keys',
    target: '[data-point="q"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'near-orthogonal': {
    update: 'step through the histograms of d',
    target: 'button.multiple[aria-checked="true"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  simd: {
    update: 'step through the dot product with the slider',
    target: 'input.step-slider',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  cost: { update: 'move the "Read at T" slider', target: 'input.at-slider', keys: ['ArrowRight', 'ArrowLeft'] },
  pitfalls: {
    update: 'switch pitfalls with the arrow keys on the tabs',
    target: '[role="tab"][aria-selected="true"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  values: {
    update: 'move v\u2081 with the arrow keys',
    target: '[data-point="v1"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'convex-hull': {
    update: 'move the weight point in the triangle',
    target: '[data-point="simplex"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  entropy: { update: 'move the temperature slider', target: 'input.slider', keys: ['ArrowRight', 'ArrowLeft'] },
  softmax: { update: 'move the slider of s\u2081', target: 'input.slider', keys: ['ArrowLeft', 'ArrowRight'] },
  competition: { update: 'move the slider of s\u2081', target: 'input.slider', keys: ['ArrowLeft', 'ArrowRight'] },
  'matrix-form': { update: 'move the slider of a logit', target: 'input.slider', keys: ['ArrowLeft', 'ArrowRight'] },
  'content-to-weights': {
    update: 'move a row of the weight matrix with the arrow keys',
    target: '[data-point="r2"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'multi-head': {
    update: 'choose another query in a weight map (arrow key, then Enter)',
    target: '[role="grid"] [tabindex="0"]',
    keys: [
      ['ArrowDown', 'Enter'],
      ['ArrowUp', 'Enter'],
    ],
  },
  explain: {
    update: 'choose another query in the weight map (arrow key, then Enter)',
    target: '[role="grid"] [tabindex="0"]',
    keys: [
      ['ArrowDown', 'Enter'],
      ['ArrowUp', 'Enter'],
    ],
  },
  masks: {
    update: 'hide and show a key: Enter on a cell of M',
    target: '[role="grid"] [tabindex="0"]',
    keys: ['Enter', 'Enter'],
  },
  rope: { update: 'move both positions with the s slider', target: '#rope-s', keys: ['ArrowRight', 'ArrowLeft'] },
  'shared-keys': {
    update: 'move the query of head 1 with the arrow keys',
    target: '[data-point="q1"]',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'kv-cache': { update: 'step back and on with the t slider', target: '#kv-t', keys: ['ArrowLeft', 'ArrowRight'] },
  softcap: { update: "move key 1's score with the s₁ slider", target: '#sc-s1', keys: ['ArrowRight', 'ArrowLeft'] },
  'heads-learn': {
    update: 'switch layer 1, head 0 off and on while the model trains (the worker evaluates it with the head mask)',
    target: '#hl-head-1-0',
    keys: ['Space', 'Space'],
    start: '[data-action="train"]',
  },
  'online-softmax': {
    update: 'step to the next tile with the slider',
    target: '#os-step',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'learn-to-attend': {
    update: 'choose another query in the weight grid (arrow key, then Enter) while the model trains',
    target: '[role="grid"] [tabindex="0"]',
    keys: [
      ['ArrowDown', 'Enter'],
      ['ArrowUp', 'Enter'],
    ],
    start: '[data-action="train"]',
  },
  'scale-in-training': {
    update: 'move the learning-rate slider (the runs remake their models at step 0 once it rests, untrained)',
    target: '#st-lr',
    keys: ['ArrowRight', 'ArrowLeft'],
  },
  'your-task': {
    update: 'show the other head of the held-out example (the Head menu) while the model trains',
    target: 'select[data-control="head"]',
    keys: ['ArrowDown', 'ArrowUp'],
    start: '[data-action="train"]',
  },
};

/**
 * Installed in every page before its scripts: records the first input event
 * after arm(), the first 'ag-render' measure of `tag` that ends after it,
 * when the widget's `ag-statechange` event has reached the window (a
 * listener there runs after the page shell's, on the document), and when the
 * last of the input's events (the key press and what its default action
 * fires: input, change) has reached the window, after every handler below
 * it: the end of the task. The result is handed over in a later task, so
 * that events fired after the render in the same task are counted.
 */
function probe(pace) {
  const state = {
    tag: null,
    start: null,
    handled: null,
    events: [],
    armed: false,
    render: null,
    shellEnd: null,
    last: null,
    done: null,
  };
  const finish = () => {
    if (!state.done || !state.render || state.shellEnd === null) return;
    const done = state.done;
    state.done = null;
    setTimeout(() => {
      const end = Math.max(state.render.end, state.shellEnd, state.last ?? 0);
      done({
        latency: state.render.end - state.start,
        render: state.render.duration,
        shell: state.shellEnd - state.start,
        task: end - state.start,
        delay: state.handled - state.start,
      });
    });
  };
  const onInput = (event) => {
    if (!state.armed) return;
    // The input delay: from the event's time to its first handler.
    if (event.type !== 'input') state.events.push({ time: event.timeStamp, handled: performance.now() });
    if (state.start === null) {
      state.start = event.timeStamp;
      state.handled = performance.now();
    }
  };
  // The clock starts at the input event that made the change: the last key or pointer event before the render
  // began (a checkbox toggles on the release of Space, after the key went down: what the page does between the
  // two is the test's own round trip, not an update; a key release that waits behind the page's work still counts,
  // as its time is when the browser received it).
  const cause = (renderStart) => {
    const before = state.events.filter((e) => e.time <= renderStart);
    if (!before.length) return;
    const { time, handled } = before[before.length - 1];
    state.start = time;
    state.handled = handled;
  };
  const onLast = () => {
    if (state.armed && state.start !== null) state.last = performance.now();
  };
  for (const type of ['keydown', 'keyup', 'pointerdown', 'pointerup', 'input'])
    window.addEventListener(type, onInput, { capture: true });
  for (const type of ['keydown', 'keypress', 'beforeinput', 'input', 'change', 'pointerdown', 'pointerup', 'click'])
    window.addEventListener(type, onLast);
  window.addEventListener('ag-statechange', (event) => {
    if (!state.armed || state.start === null || state.shellEnd !== null || event.target.localName !== state.tag) return;
    state.shellEnd = performance.now();
    finish();
  });
  new PerformanceObserver((list) => {
    for (const m of list.getEntries()) {
      if (m.name !== 'ag-render' || m.detail !== state.tag || !state.armed || state.start === null || state.render)
        continue;
      const end = m.startTime + m.duration;
      if (end < state.start) continue;
      cause(m.startTime);
      state.render = { end, duration: m.duration };
      finish();
    }
  }).observe({ type: 'measure' });
  window.__agUpdateProbe = {
    /** Starts timing the next update of the widget `tag`; returns its data-train (null when it has none). */
    arm(tag) {
      Object.assign(state, {
        tag,
        start: null,
        handled: null,
        events: [],
        render: null,
        shellEnd: null,
        last: null,
        armed: true,
      });
      state.result = new Promise((resolve) => (state.done = resolve));
      return document.querySelector(tag)?.getAttribute('data-train') ?? null;
    },
    wait(timeoutMs) {
      const timeout = new Promise((resolve) => setTimeout(() => resolve(null), timeoutMs));
      return Promise.race([state.result, timeout]).then((r) => {
        state.armed = false;
        if (!pace) return r;
        // The next input once this update is on the screen: after the frame
        // that paints it (the second animation frame starts once it is done).
        return new Promise((resolve) =>
          requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => resolve(r)))),
        );
      });
    },
  };
}

/** The q-quantile (0..1) of sorted values, by the nearest-rank rule. */
export function quantile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Opens one chapter and times its update `rounds` times (after `warmup` untimed ones). */
async function measureChapter(browser, baseUrl, chapter, spec, { rounds, warmup, profile, site, rest }) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(probe, process.env.PACE !== '0');
    await page.goto(new URL(`#ch-${chapter.id}`, baseUrl).href);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 60000 });
    const host = page.locator(chapter.tag).first();
    await host.scrollIntoViewIfNeeded();
    await page.waitForSelector(`${chapter.tag}[data-status="ready"]`, { timeout: 60000 });
    // At rest: experiments that widgets near this one run in their workers
    // (data-run="running") post progress that the main thread draws; let them
    // finish first, so that only the update itself is timed.
    await page
      .waitForFunction(
        () => ![...document.querySelectorAll('[data-run]')].some((el) => el.dataset.run === 'running'),
        null,
        { timeout: 60000, polling: 200 },
      )
      .catch(() => {});
    const target = page.locator(`${chapter.tag} ${spec.target}`).first();
    await target.scrollIntoViewIfNeeded();
    await target.focus();
    const latencies = [];
    const renders = [];
    const shells = [];
    const tasks = [];
    const delays = [];
    let missedInARow = 0;
    const cdp = profile ? await context.newCDPSession(page) : null;
    for (let i = 0; i < warmup + rounds; i++) {
      if (cdp && i === warmup) await startTrace(cdp);
      const keys = [spec.keys[i % spec.keys.length]].flat();
      for (const key of keys.slice(0, -1)) await page.keyboard.press(key);
      // A chapter timed during a run of its own (`start`): the run is started again whenever it has ended. The
      // probe reads the chapter's data-train when it is armed (in the page, one call), so that the harness adds
      // no selector query of its own to the page's main thread during a run.
      const train = await page.evaluate((tag) => window.__agUpdateProbe.arm(tag), chapter.tag);
      if (spec.start && !rest && train !== 'running') {
        await page.locator(`${chapter.tag} ${spec.start}`).first().click();
        await target.focus();
        await page.evaluate((tag) => window.__agUpdateProbe.arm(tag), chapter.tag);
      }
      await page.keyboard.press(keys.at(-1));
      const r = await page.evaluate(() => window.__agUpdateProbe.wait(1000));
      // An input that renders nothing three times in a row will not start to: stop there.
      missedInARow = r ? 0 : missedInARow + 1;
      if (i >= warmup && r) {
        latencies.push(r.latency);
        renders.push(r.render);
        shells.push(r.shell);
        tasks.push(r.task);
        delays.push(r.delay);
      }
      if (missedInARow === 3) break;
    }
    const trace = cdp ? await stopTrace(cdp) : null;
    const missed = rounds - latencies.length;
    if (errors.length) throw new Error(`chapter ${chapter.id}: the page reported errors: ${errors.join('; ')}`);
    latencies.sort((a, b) => a - b);
    renders.sort((a, b) => a - b);
    shells.sort((a, b) => a - b);
    tasks.sort((a, b) => a - b);
    delays.sort((a, b) => a - b);
    const round3 = (x) => (x === null ? null : Math.round(x * 1000) / 1000);
    return {
      chapter: chapter.id,
      update: spec.update,
      p95Ms: round3(quantile(latencies, 0.95)),
      medianMs: round3(quantile(latencies, 0.5)),
      samples: latencies.length,
      renderMedianMs: round3(quantile(renders, 0.5)),
      shellMedianMs: round3(quantile(shells, 0.5)),
      shellP95Ms: round3(quantile(shells, 0.95)),
      taskMedianMs: round3(quantile(tasks, 0.5)),
      taskP95Ms: round3(quantile(tasks, 0.95)),
      inputDelayMedianMs: round3(quantile(delays, 0.5)),
      latenciesMs: latencies.map(round3),
      missed,
      ...(trace ? { profile: summariseTrace(trace, { site, origin: new URL(baseUrl).origin }) } : {}),
    };
  } finally {
    await context.close();
  }
}

/**
 * Measures the main update of each chapter (all of them, or the ids in
 * `chapters`) on the built site `site` (default build/site). With `profile`,
 * each row also has `profile`: where the input tasks spent their time
 * (page-update-profile.mjs, summariseTrace).
 * @returns {Promise<{ chapter: string, update: string, p95Ms: number|null, medianMs: number|null, samples: number, renderMedianMs: number|null, shellMedianMs: number|null, shellP95Ms: number|null, taskMedianMs: number|null, taskP95Ms: number|null, inputDelayMedianMs: number|null, missed: number, profile?: object }[]>}
 */
export async function measurePageUpdates({
  rounds = 40,
  warmup = 4,
  chapters = null,
  site = SITE_ROOT,
  profile = false,
  rest = false,
} = {}) {
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new RangeError(`measurePageUpdates: rounds must be a whole number >= 1; got ${rounds}`);
  const wanted = chapters ? CHAPTERS.filter((c) => chapters.includes(c.id)) : CHAPTERS.filter((c) => c.tag);
  const unknown = (chapters ?? []).filter((id) => !CHAPTERS.some((c) => c.id === id));
  if (unknown.length) throw new RangeError(`measurePageUpdates: unknown chapter ids ${unknown.join(', ')}`);
  const server = await startServer({ port: 0, root: site });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const rows = [];
    for (const chapter of wanted) {
      const spec = UPDATES[chapter.id];
      if (!spec) {
        rows.push({
          chapter: chapter.id,
          update: 'no update listed in scripts/bench/page-updates.mjs',
          p95Ms: null,
          medianMs: null,
          samples: 0,
          renderMedianMs: null,
          shellMedianMs: null,
          shellP95Ms: null,
          taskMedianMs: null,
          taskP95Ms: null,
          inputDelayMedianMs: null,
          missed: 0,
        });
        continue;
      }
      rows.push(await measureChapter(browser, server.url, chapter, spec, { rounds, warmup, profile, site, rest }));
    }
    return rows;
  } finally {
    await browser.close();
    await server.close();
  }
}

/** The rows as a Markdown table. */
export function markdownTable(rows) {
  const ms = (x) => (x === null ? '\u2014' : x.toFixed(2));
  const lines = [
    `| chapter | update | median ms | p95 ms | render median ms | input delay median ms | with the shell median / p95 ms | whole task median / p95 ms | samples | within ${BUDGET_MS} ms (p95) |`,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rows) {
    const ok = r.p95Ms === null ? '\u2014' : r.p95Ms <= BUDGET_MS ? 'yes' : '**no**';
    const task = r.taskMedianMs === undefined ? '\u2014' : `${ms(r.taskMedianMs)} / ${ms(r.taskP95Ms)}`;
    lines.push(
      `| ${r.chapter} | ${r.update} | ${ms(r.medianMs)} | ${ms(r.p95Ms)} | ${ms(r.renderMedianMs)} | ${ms(r.inputDelayMedianMs ?? null)} | ${ms(r.shellMedianMs)} / ${ms(r.shellP95Ms)} | ${task} | ${r.samples}${r.missed ? ` (${r.missed} without a render)` : ''} | ${ok} |`,
    );
  }
  return lines.join('\n');
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const ids = process.argv.slice(2);
  const rounds = process.env.ROUNDS ? Number(process.env.ROUNDS) : undefined;
  const profile = Boolean(process.env.PROFILE);
  const site = process.env.PROFILE === 'readable' ? await readableSite(SITE_ROOT) : SITE_ROOT;
  const rest = process.env.REST === '1';
  const rows = await measurePageUpdates({ rounds, chapters: ids.length ? ids : null, profile, site, rest });
  console.log(
    `Page updates in Chromium (${new Date().toISOString().slice(0, 10)}): median and p95 from the input to the end of the widget's render; ` +
      "render: the widget's render alone; with the shell: from the input until the page shell has also handled the change; " +
      "whole task: from the input until the last handler of the input's events has run.\n",
  );
  console.log(markdownTable(rows));
  if (profile) for (const r of rows) if (r.profile) console.log(`\n${profileText(r.chapter, r.profile)}`);
  if (site !== SITE_ROOT) rmSync(site, { recursive: true, force: true });
}
