// The packed package with no bundler: a plain HTML page and a module Worker
// import the installed package's ES modules straight from node_modules (as a
// static server or a CDN serves them), and a page uses the prebuilt widgets
// module with one <ag-worked-example> element. Each must show the worked
// example's weights computed by the wasm module, with every .wasm answered 200.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  browserEntry,
  cleanup,
  expectConsumerPage,
  expectExamplePage,
  expectWasmFetched,
  expectWidgetWeights,
  indexHtml,
  makeConsumer,
  pack,
  ROOT,
  startBrowser,
  tempDir,
  watchedPage,
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

test('a plain page imports dist/index.js from node_modules and computes the worked example', async () => {
  await expectConsumerPage(env, server.url, 'plain page');
}, 60000);

test('a module Worker imports the package and computes the worked example', async () => {
  await expectConsumerPage(env, new URL('api-worker.html', server.url).href, 'worker');
}, 60000);

test('the prebuilt widgets module: <ag-worked-example> shows the weights, with its stylesheets, fonts and .wasm found beside it', async () => {
  const { context, page, wasm, problems } = await watchedPage(env);
  try {
    await page.goto(new URL('widgets.html', server.url).href);
    await expectWidgetWeights(page);
    expectWasmFetched(wasm, 'widgets page');
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60000);

test.each(['plain-html', 'worker'])(
  'examples/%s/ runs as it is in a project that installed the package',
  async (name) => {
    const backend = await expectExamplePage(env, new URL(`${name}/`, server.url).href, `examples/${name}`);
    expect(backend).toBe('wasm-simd128');
  },
  60000,
);
