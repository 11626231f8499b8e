// The packed package with no bundler: a plain HTML page and a module Worker
// import the installed package's ES modules straight from node_modules (as a
// static server or a CDN serves them), and a page uses the prebuilt widgets
// module with one <ag-worked-example> element. Each must show the worked
// example's weights computed by the wasm module, with every .wasm answered 200.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  ROOT,
  browserEntry,
  cleanup,
  expectShownWeights,
  expectWorkedExample,
  indexHtml,
  makeConsumer,
  openConsumer,
  openExample,
  pack,
  startBrowser,
  tempDir,
  workedExample,
  workedExampleSource,
} from './helpers.mjs';

let work;
let env;
let server;

const API = './node_modules/attention-geometry/dist/index.js';

beforeAll(async () => {
  work = tempDir('plain');
  const tarball = pack(work);
  const worker = `import { init } from '${API}';
${workedExampleSource()}
workedExample(init).then((r) => postMessage({ result: r }), (e) => postMessage({ error: String(e && e.stack || e) }));
`;
  const workerPage = `const worker = new Worker(new URL('./api-worker.js', import.meta.url), { type: 'module' });
worker.onmessage = ({ data }) => {
  if (data.error) window.__error = data.error;
  else window.__result = data.result;
};
`;
  const widgetsPage =
    '<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n<title>widgets</title>\n' +
    '<script type="module" src="./node_modules/attention-geometry/dist/widgets/widgets.js"></script>\n' +
    '<body>\n<ag-worked-example></ag-worked-example>\n</body>\n</html>\n';
  const examples = join(ROOT, 'examples');
  const exampleFiles = Object.fromEntries(
    ['plain-html/index.html', 'worker/index.html', 'worker/main.js', 'worker/worker.js'].map((f) => [
      f,
      readFileSync(join(examples, f), 'utf8'),
    ]),
  );
  const dir = makeConsumer(work, 'plain', tarball, {
    files: {
      'index.html': indexHtml('./main.js'),
      'main.js': browserEntry(API),
      'api-worker.html': indexHtml('./api-worker-page.js'),
      'api-worker-page.js': workerPage,
      'api-worker.js': worker,
      'widgets.html': widgetsPage,
      ...exampleFiles,
    },
  });
  env = await startBrowser();
  server = await env.serve(dir);
}, 60000);

afterAll(async () => {
  await env?.close();
  cleanup(work);
});

function expectWasmFetched(wasm, what) {
  expect(wasm.length).toBeGreaterThan(0);
  for (const w of wasm) if (w.status !== 200) throw new Error(`${what}: ${w.url} answered ${w.status}`);
}

test('a plain page imports dist/index.js from node_modules and computes the worked example', async () => {
  const { result, wasm, problems } = await openConsumer(env, server.url);
  expectWorkedExample(result, 'plain page');
  expectWasmFetched(wasm, 'plain page');
  expect(problems).toEqual([]);
}, 60000);

test('a module Worker imports the package and computes the worked example', async () => {
  const { result, wasm, problems } = await openConsumer(env, new URL('api-worker.html', server.url).href);
  expectWorkedExample(result, 'worker');
  expectWasmFetched(wasm, 'worker');
  expect(problems).toEqual([]);
}, 60000);

test('the prebuilt widgets module: <ag-worked-example> shows the weights, with its stylesheets, fonts and .wasm found beside it', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const failed = [];
  const wasm = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.endsWith('.wasm')) wasm.push({ url: r.url(), status: r.status() });
    if (r.status() >= 400 && path !== '/favicon.ico') failed.push(`${r.status()} ${r.url()}`);
  });
  try {
    await page.goto(new URL('widgets.html', server.url).href);
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
    expectWasmFetched(wasm, 'widgets page');
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}, 60000);

test.each(['plain-html', 'worker'])(
  'examples/%s/ runs as it is in a project that installed the package',
  async (name) => {
    const { weights, backend, wasm, problems, context } = await openExample(env, new URL(`${name}/`, server.url).href);
    try {
      expectShownWeights(weights, `examples/${name}`);
      expect(backend).toBe('wasm-simd128');
      expectWasmFetched(wasm, `examples/${name}`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  },
  60000,
);
