// How long the full page takes to open, and how much layout, style and script
// work that costs the main thread, for builds of the site side by side.
//
//   node scripts/page-load.mjs [--runs N] [--site DIR] [--base [NAME=]DIR,...] [--hash h,h]
//
// Serves DIR (default build/site) and, with --base, other builds of the site
// (e.g. a copy of main's build/site) on other ports; opens the page in test mode
// (?agtest=1) at 1024×1000, for each hash of --hash (default: ch-sign,
// ch-your-task and none, written "-"), N times per site (default 10), the
// sites taking turns, each open in a fresh context of one Chromium. Per open:
// the time from navigation to body[data-state="ready"], then, 1.5 s later,
// Chromium's own counters (CDP Performance.getMetrics: LayoutCount,
// RecalcStyleCount, and LayoutDuration, RecalcStyleDuration, ScriptDuration,
// TaskDuration in ms of the renderer's main-thread CPU time, which a loaded
// machine inflates less than wall time). Prints the median and the range of
// each, per hash and site.
// Numbers differ from run to run on a loaded machine: compare two builds
// within one run of this script, not across runs.
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.mjs';
import { SITE_ROOT, startServer } from './serve.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const RUNS = Number(option('--runs', '10'));
const hashes = option('--hash', 'ch-sign,ch-your-task,-')
  .split(',')
  .map((h) => (h === '-' ? '' : `#${h}`));
const sites = [
  ...option('--base', '')
    .split(',')
    .filter(Boolean)
    .map((spec, i, all) => {
      const [name, dir] = spec.includes('=') ? spec.split('=') : [all.length > 1 ? `base${i + 1}` : 'base', spec];
      return { name, root: resolve(dir) };
    }),
  { name: 'new', root: resolve(option('--site', SITE_ROOT)) },
];
if (!Number.isInteger(RUNS) || RUNS < 1) throw new RangeError(`--runs must be a positive integer, got ${RUNS}`);

const METRICS = [
  'LayoutCount',
  'RecalcStyleCount',
  'LayoutDuration',
  'RecalcStyleDuration',
  'ScriptDuration',
  'TaskDuration',
];
/** After ready, how long the page is left to settle before the counters are read (ms). */
const SETTLE_MS = 1500;

/** The moment body[data-state] becomes "ready", recorded by the page itself (no polling delay). */
function readyProbe() {
  new MutationObserver((_, observer) => {
    if (document.body?.dataset.state === 'ready') {
      window.agReadyAt = performance.now(); // from the navigation's start
      observer.disconnect();
    }
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-state'] });
}

/** Opens `url` in a fresh context of `browser`; returns the time to ready (ms) and the counters. */
async function open(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 1000 } });
  try {
    await context.addInitScript(readyProbe);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' }); // durations: the thread's CPU time
    await page.goto(url);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 60000 });
    const ready = await page.evaluate(() => window.agReadyAt);
    await page.waitForTimeout(SETTLE_MS);
    const { metrics } = await cdp.send('Performance.getMetrics');
    const got = Object.fromEntries(metrics.map((m) => [m.name, m.value]));
    const out = { ready };
    for (const name of METRICS) out[name] = name.endsWith('Duration') ? got[name] * 1000 : got[name];
    return out;
  } finally {
    await context.close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1));

const servers = await Promise.all(sites.map((s) => startServer({ port: 0, root: s.root })));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
try {
  const results = new Map(); // `${hash} ${site}` -> rows
  for (const hash of hashes) {
    for (let run = 0; run < RUNS; run += 1) {
      const order = run % 2 ? [...sites.keys()].reverse() : [...sites.keys()];
      for (const i of order) {
        const key = `${hash || '(none)'} ${sites[i].name}`;
        const row = await open(browser, `${servers[i].url}?agtest=1${hash}`);
        if (!results.has(key)) results.set(key, []);
        results.get(key).push(row);
        process.stderr.write('.');
      }
    }
  }
  process.stderr.write('\n');
  const columns = ['ready', ...METRICS];
  console.log(['page site', ...columns].join('\t'));
  for (const [key, rows] of results) {
    const cells = columns.map((c) => {
      const xs = rows.map((r) => r[c]);
      return `${fmt(median(xs))} [${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}]`;
    });
    console.log([key, ...cells].join('\t'));
  }
} finally {
  await browser.close();
  await Promise.all(servers.map((s) => s.close()));
}
