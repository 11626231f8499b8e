// Shared by the consumer tests: the package as users get it (`npm pack`, then
// the tarball installed into a fresh project in a temp dir), the tools run from
// this repository's node_modules against that project, and the check every
// consumer makes: the worked example of the articles, computed by the wasm
// module. Only the tarball is installed into a consumer (it has no
// dependencies), so an install needs no network.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/chromium.mjs';
import { pack } from './pack.mjs';

export { pack };

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'node_modules');

/** The worked example (tests/data/seeds/worked-examples.json): q, K, the scores and the unscaled softmax weights. */
export function workedExample() {
  const { cases } = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8'));
  const scores = cases.find((c) => c.id === 'worked-scores');
  const weights = cases.find((c) => c.id === 'worked-softmax-unscaled');
  return {
    q: scores.inputs.q,
    K: scores.inputs.K,
    scores: scores.expected,
    weights: weights.expected,
    tolerance: weights.tolerance,
  };
}

/** Every consumer prints or shows `{ scores, weights, backend }`: checks them against the articles. */
export function expectWorkedExample(result, what) {
  const ex = workedExample();
  expect(result).toBeTruthy();
  expect(['wasm-simd128', 'wasm-scalar']).toContain(result.backend);
  expect(result.scores).toEqual(ex.scores);
  expect(result.weights).toHaveLength(ex.weights.length);
  result.weights.forEach((w, i) => {
    if (Math.abs(w - ex.weights[i]) > ex.tolerance)
      throw new Error(`${what}: weight ${i} is ${w}, expected ${ex.weights[i]}`);
  });
}

/**
 * The page's <ag-worked-example> becomes ready and shows the worked example's weights, with every stylesheet it
 * links loaded.
 */
export async function expectWidgetWeights(page) {
  await page.waitForSelector('ag-worked-example[data-status="ready"]', { timeout: 30000 });
  const shown = await page.locator('ag-worked-example').evaluate((el) => ({
    weights: [...el.shadowRoot.querySelectorAll('[data-role="weight"]')].map((n) => Number(n.dataset.value)),
    sheets: [...el.shadowRoot.querySelectorAll('link[rel="stylesheet"]')].map((l) => Boolean(l.sheet)),
  }));
  const ex = workedExample();
  expect(shown.weights).toHaveLength(ex.weights.length);
  shown.weights.forEach((w, i) => expect(Math.abs(w - ex.weights[i])).toBeLessThanOrEqual(ex.tolerance));
  expect(shown.sheets.length).toBeGreaterThan(0);
  expect(shown.sheets.every(Boolean)).toBe(true);
}

/**
 * The code every consumer runs, as text: `init` must be in scope; resolves to
 * { scores, weights, backend } of the worked example (scale 1).
 */
export function workedExampleSource() {
  const { q, K } = workedExample();
  return `async function workedExample(init) {
  const ag = await init();
  const r = ag.attention([${JSON.stringify(q)}], ${JSON.stringify(K)}, ${JSON.stringify(K)}, { scale: 1, returnWeights: true, returnScores: true });
  return { scores: Array.from(r.scores.data), weights: Array.from(r.weights.data), backend: ag.backend };
}
`;
}

/** A temp dir removed by cleanup(). */
export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), `attention-geometry-${prefix}-`));
}

/** Writes `files` ({ 'path/in/project': text }) under dir. */
export function writeFiles(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/**
 * A fresh consumer project: package.json, `files`, and the tarball installed
 * with npm (nothing else). `links` names packages of this repository's
 * node_modules to link in (types only, e.g. expect-type).
 */
export function makeConsumer(parent, name, tarball, { files = {}, type = 'module', links = [] } = {}) {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFiles(dir, {
    'package.json': JSON.stringify({ name: `consumer-${name}`, private: true, version: '1.0.0', type }, null, 2),
    ...files,
  });
  const npm = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error', tarball],
    { cwd: dir, encoding: 'utf8' },
  );
  if (npm.status !== 0) throw new Error(`npm install of the tarball failed in ${name}:\n${npm.stderr}`);
  for (const pkg of links) {
    mkdirSync(dirname(join(dir, 'node_modules', pkg)), { recursive: true });
    symlinkSync(join(BIN, pkg), join(dir, 'node_modules', pkg), 'dir');
  }
  return dir;
}

/**
 * Runs a tool of this repository in `cwd` (its command in node_modules/.bin,
 * e.g. 'vite', 'tsc', 'webpack-cli'); returns { status, stdout, stderr }.
 */
export function runTool(cwd, command, args = []) {
  return spawnSync(join(BIN, '.bin', command), args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' },
  });
}

/** Runs `node file` in cwd and parses the one JSON line it prints. */
export function runNode(cwd, file) {
  const r = spawnSync(process.execPath, [file], { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status !== 0) throw new Error(`node ${file} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** Chromium (Debian's) and a way to serve folders. */
export async function startBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const servers = [];
  return {
    browser,
    async serve(root) {
      const server = await startServer({ port: 0, root });
      servers.push(server);
      return server;
    },
    async close() {
      await browser.close();
      for (const s of servers) await s.close();
    },
  };
}

/**
 * Opens `url`, waits for `window.__result` (the consumer sets it, or
 * `window.__error`) and returns { result, wasm, problems }: wasm lists every
 * response for a .wasm file with its status; problems holds page errors,
 * console errors and failed requests.
 */
export async function openConsumer(env, url) {
  const { context, page, wasm, problems } = await watchedPage(env, { strict: true });
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined || window.__error !== undefined, null, {
      timeout: 30000,
    });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    if (error !== undefined) throw new Error(`the consumer page reported: ${error}\n${problems.join('\n')}`);
    return { result, wasm, problems };
  } finally {
    await context.close();
  }
}

/**
 * The consumer page at `url` computes the worked example with no problem, every .wasm it fetches answered
 * 200 (or, with `fetchesWasm: false`, fetching none: an inline build).
 */
export async function expectConsumerPage(env, url, what, { fetchesWasm = true } = {}) {
  const { result, wasm, problems } = await openConsumer(env, url);
  expectWorkedExample(result, what);
  if (fetchesWasm) expectWasmFetched(wasm, what);
  else expect(wasm).toEqual([]);
  expect(problems).toEqual([]);
}

/** Every .wasm request answered 200 and at least one was made. */
export function expectWasmFetched(wasm, what) {
  expect(wasm.length).toBeGreaterThan(0);
  for (const w of wasm) if (w.status !== 200) throw new Error(`${what}: ${w.url} answered ${w.status}`);
}

/**
 * A page in a context of its own, watched: every response for a .wasm file goes to `wasm` with its
 * status, page errors and HTTP errors to `problems`; when `strict`, console errors and failed requests
 * too. Returns { context, page, wasm, problems }.
 */
export async function watchedPage(env, { strict = false } = {}) {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  const wasm = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e}`));
  page.on('response', recordResponse(wasm, problems));
  if (strict) {
    // A failed resource is reported by its response, with its URL.
    page.on(
      'console',
      (m) =>
        m.type() === 'error' &&
        !m.text().startsWith('Failed to load resource') &&
        problems.push(`console error: ${m.text()}`),
    );
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  }
  return { context, page, wasm, problems };
}

/**
 * A response listener: .wasm responses go to `wasm`, HTTP errors to `problems`
 * (but /favicon.ico, which the browser asks for on its own; the consumers have none).
 */
function recordResponse(wasm, problems) {
  return (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.wasm')) wasm.push({ url: r.url(), status: r.status() });
    if (r.status() >= 400 && path !== '/favicon.ico') problems.push(`HTTP ${r.status()}: ${r.url()}`);
  };
}

/** An index.html that runs one script (a module unless `classic`) and nothing else. */
export function indexHtml(script, { classic = false } = {}) {
  const tag = classic ? `<script defer src="${script}"></script>` : `<script type="module" src="${script}"></script>`;
  return `<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>consumer</title>\n${tag}\n<body></body>\n</html>\n`;
}

/** A browser entry that computes the worked example with `specifier`'s init and publishes it on window. */
export function browserEntry(specifier) {
  return `import { init } from '${specifier}';
${workedExampleSource()}
workedExample(init).then((r) => { window.__result = r; }, (e) => { window.__error = String(e && e.stack || e); });
`;
}

export function cleanup(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Opens an example page (examples/) and reads the weights it writes into
 * <output id="result"> ("weights 0.99319, 0.00012257, 0.0066920 (backend)"),
 * with the page's .wasm responses and problems; closes it.
 */
export async function openExample(env, url) {
  const { context, page, wasm, problems } = await watchedPage(env);
  try {
    await page.goto(url);
    await page.waitForFunction(() => !document.getElementById('result').textContent.includes('computing'), null, {
      timeout: 30000,
    });
    const text = await page.locator('#result').textContent();
    const match = /weights ([^()]+) \((wasm-[a-z0-9]+)\)/.exec(text);
    if (!match) throw new Error(`the example shows "${text}"\n${problems.join('\n')}`);
    return { weights: match[1].split(', ').map(Number), backend: match[2], wasm, problems };
  } finally {
    await context.close();
  }
}

/**
 * The example page (examples/) at `url` shows the worked example's weights, fetches its .wasm (200) and
 * has no problem; returns the backend it names.
 */
export async function expectExamplePage(env, url, what) {
  const { weights, backend, wasm, problems } = await openExample(env, url);
  expectShownWeights(weights, what);
  expectWasmFetched(wasm, what);
  expect(problems).toEqual([]);
  return backend;
}

/** The example shows the weights with 5 significant digits: each within half a unit of the 5th digit. */
export function expectShownWeights(weights, what) {
  const ex = workedExample();
  expect(weights).toHaveLength(ex.weights.length);
  weights.forEach((w, i) => {
    const halfUnit = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(ex.weights[i]))) - 4);
    if (!(Math.abs(w - ex.weights[i]) <= halfUnit + ex.tolerance))
      throw new Error(`${what}: weight ${i} shown as ${w}, expected ${ex.weights[i]}`);
  });
}
