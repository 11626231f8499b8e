// The packed package in apps bundled with no configuration: Vite (with a
// module Worker), webpack 5 and esbuild (the inline entry). Each app is built
// from a fresh project that installed only the tarball, served, and opened in
// Chromium, where it must show the worked example's weights computed by the
// wasm module. The Vite and webpack apps must fetch a .wasm with status 200
// (so a .wasm the bundler failed to emit fails the test); the esbuild app must
// fetch none. An app that bundles the widgets module gets a widget that names
// the .wasm it could not fetch and the fix; one that follows docs/package.md
// ("In a bundled app") shows the weights.
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import {
  browserEntry,
  cleanup,
  expectConsumerPage,
  expectExamplePage,
  expectWasmFetched,
  expectWidgetWeights,
  expectWorkedExample,
  indexHtml,
  makeConsumer,
  pack,
  ROOT,
  runTool,
  startBrowser,
  tempDir,
  watchedPage,
  workedExampleSource,
} from './helpers.mjs';

let work;
let tarball;
let env;

beforeAll(async () => {
  work = tempDir('bundlers');
  tarball = pack(work);
  env = await startBrowser();
}, 60000);

afterAll(async () => {
  await env?.close();
  cleanup(work);
});

/**
 * webpack's performance hint for an asset over 244 KiB, when the only such asset is the SIMD build's .wasm
 * (about 280 KiB with the training kernels): a size notice that every wasm library of that size gets, and that
 * docs/package.md mentions, not a defect of the package. Any other warning still fails.
 */
const WASM_SIZE_HINT =
  /WARNING in asset size limit: The following asset\(s\) exceed the recommended size limit \(244 KiB\)\.\s*This can impact web performance\.\s*Assets:\s*\n\s*\w+\.wasm \(\d+ KiB\)\n/;

/** Runs a bundler in the consumer; it must succeed with no warning (but the hint above). */
function build(dir, script, args) {
  const r = runTool(dir, script, args);
  if (r.status !== 0) throw new Error(`${script} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  const out = `${r.stdout}\n${r.stderr}`
    .replace(WASM_SIZE_HINT, '')
    .replace(/compiled with 1 warning in/, 'compiled in');
  expect(out).not.toMatch(/warn/i);
  return r;
}

/** A consumer whose page imports `specifier`, bundled by esbuild with no options but the output's: { dir, out }. */
function esbuildConsumer(name, specifier) {
  const dir = makeConsumer(work, name, tarball, { files: { 'src/main.js': browserEntry(specifier) } });
  build(dir, 'esbuild', ['src/main.js', '--bundle', '--format=esm', '--outdir=dist', '--log-level=warning']);
  return { dir, out: join(dir, 'dist') };
}

/** The bundle for browsers holds no trace of the Node-only file reader (node:fs). */
function expectNoNodeFs(out) {
  const js = readdirSync(out, { recursive: true }).filter((f) => /\.(js|mjs)$/.test(f));
  expect(js.length).toBeGreaterThan(0);
  for (const f of js) expect(readFileSync(join(out, f), 'utf8')).not.toMatch(/node:fs|readFile\(/);
}

/**
 * No path of the machine that bundled in the output: webpack replaces a bare
 * import.meta.url with the module's absolute file:// URL, so neither the
 * glue nor load.js may use one (CMakeLists.txt, USE_ES6_IMPORT_META=0).
 */
function expectNoBuildPaths(out, dir) {
  const js = readdirSync(out, { recursive: true }).filter((f) => /\.(js|mjs)$/.test(f));
  for (const f of js) {
    const text = readFileSync(join(out, f), 'utf8');
    expect(text).not.toContain('file://');
    expect(text).not.toContain(dir);
  }
}

test('Vite: `vite build` with no config emits the .wasm; the page and a module Worker compute the worked example', async () => {
  const worker = `import { init } from 'attention-geometry';
${workedExampleSource()}
workedExample(init).then((r) => postMessage({ result: r }), (e) => postMessage({ error: String(e && e.stack || e) }));
`;
  const main = `const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = (event) => { window.__workerResult = event.data; };
${browserEntry('attention-geometry')}`;
  const dir = makeConsumer(work, 'vite', tarball, {
    files: { 'index.html': indexHtml('/src/main.js'), 'src/main.js': main, 'src/worker.js': worker },
  });
  build(dir, 'vite', ['build', '--logLevel', 'warn']);
  expectNoNodeFs(join(dir, 'dist'));
  expectNoBuildPaths(join(dir, 'dist'), dir);
  const assets = readdirSync(join(dir, 'dist/assets'));
  expect(assets.some((f) => f.endsWith('.wasm'))).toBe(true);
  const server = await env.serve(join(dir, 'dist'));
  await expectConsumerPage(env, server.url, 'Vite page');
  // The worker: a second page load, waiting for its message.
  const page = await (await env.browser.newContext()).newPage();
  const workerWasm = [];
  page.on('response', (r) => r.url().endsWith('.wasm') && workerWasm.push({ url: r.url(), status: r.status() }));
  await page.goto(server.url);
  await page.waitForFunction(() => window.__workerResult !== undefined, null, { timeout: 30000 });
  const message = await page.evaluate(() => window.__workerResult);
  await page.context().close();
  if (message.error) throw new Error(`the Vite worker reported: ${message.error}`);
  expectWorkedExample(message.result, 'Vite worker');
  expectWasmFetched(workerWasm, 'Vite worker');
}, 90000);

test('webpack 5: `webpack --mode production` with no config emits the .wasm; the page computes the worked example', async () => {
  const dir = makeConsumer(work, 'webpack', tarball, { files: { 'src/index.js': browserEntry('attention-geometry') } });
  build(dir, 'webpack-cli', ['--mode', 'production']);
  const out = join(dir, 'dist');
  expectNoNodeFs(out);
  expectNoBuildPaths(out, dir);
  expect(readdirSync(out).some((f) => f.endsWith('.wasm'))).toBe(true);
  // webpack's output is a classic script that finds its chunks from document.currentScript.
  writeFileSync(join(out, 'index.html'), indexHtml('main.js', { classic: true }));
  const server = await env.serve(out);
  await expectConsumerPage(env, server.url, 'webpack page');
}, 90000);

test('esbuild: `esbuild --bundle` with no options on the inline entry; the page computes the worked example and fetches no .wasm', async () => {
  const { dir, out } = esbuildConsumer('esbuild', 'attention-geometry/inline');
  expect(existsSync(join(out, 'main.js'))).toBe(true);
  expectNoNodeFs(out);
  expectNoBuildPaths(out, dir);
  writeFileSync(join(out, 'index.html'), indexHtml('main.js'));
  const server = await env.serve(out);
  await expectConsumerPage(env, server.url, 'esbuild page', { fetchesWasm: false });
}, 90000);

test("esbuild on the main entry with docs/package.md's one-line copy of the .wasm files finds them (200)", async () => {
  const { dir, out } = esbuildConsumer('esbuild-separate', 'attention-geometry');
  // docs/package.md's line: mkdir -p dist/wasm && cp node_modules/attention-geometry/dist/wasm/*.wasm dist/wasm/
  mkdirSync(join(out, 'wasm'));
  for (const f of ['ag-simd.wasm', 'ag-scalar.wasm'])
    copyFileSync(join(dir, 'node_modules/attention-geometry/dist/wasm', f), join(out, 'wasm', f));
  writeFileSync(join(out, 'index.html'), indexHtml('main.js'));
  const server = await env.serve(out);
  await expectConsumerPage(env, server.url, 'esbuild page, separate .wasm');
}, 90000);

/** An index.html with the bundle `main.js`, `head` (more tags) and one <ag-worked-example>. */
const widgetPage = (head = '') =>
  indexHtml('main.js').replace('<body></body>', `${head}<body><ag-worked-example></ag-worked-example></body>`);

test('esbuild bundling attention-geometry/widgets: the widget names the .wasm URL it could not fetch and the fix', async () => {
  const dir = makeConsumer(work, 'esbuild-widgets', tarball, {
    files: { 'src/main.js': "import 'attention-geometry/widgets';\n" },
  });
  build(dir, 'esbuild', ['src/main.js', '--bundle', '--format=esm', '--platform=browser', '--outdir=dist']);
  const out = join(dir, 'dist');
  writeFileSync(join(out, 'index.html'), widgetPage());
  const server = await env.serve(out);
  const { context, page } = await watchedPage(env);
  try {
    await page.goto(server.url);
    await page.waitForSelector('ag-worked-example[data-status="error"]', { timeout: 30000 });
    const text = await page.locator('ag-worked-example .error[data-failure="module"]').textContent();
    // The stylesheets 404 too; one message says it all (the folder to serve), not two.
    expect(await page.locator('ag-worked-example .error[data-failure="styles"]').isHidden()).toBe(true);
    const wasm = new URL('wasm/ag-simd.wasm', server.url).href;
    expect(text).toContain(`For ${wasm} the server answered HTTP 404.`);
    expect(text).toContain(`from the folder of the module that defines them, here ${new URL('./', server.url).href}`);
    expect(text).toContain("serve the package's dist/widgets/ folder as it is and load widgets.js from it");
    expect(text).not.toMatch(/init\(|locateFile|wasmUrl|wasmBinary|from disk/);
  } finally {
    await context.close();
  }
}, 90000);

test("docs/package.md's steps for a bundled app: dist/widgets/ copied to ag/ and loaded by a script tag", async () => {
  const dir = makeConsumer(work, 'esbuild-widgets-copied', tarball, {
    files: {
      'src/main.js': "customElements.whenDefined('ag-worked-example').then(() => { window.__defined = true; });\n",
    },
  });
  build(dir, 'esbuild', ['src/main.js', '--bundle', '--format=esm', '--platform=browser', '--outdir=dist']);
  const out = join(dir, 'dist');
  // cp -r node_modules/attention-geometry/dist/widgets/ dist/ag/
  cpSync(join(dir, 'node_modules/attention-geometry/dist/widgets'), join(out, 'ag'), { recursive: true });
  writeFileSync(join(out, 'index.html'), widgetPage('<script type="module" src="/ag/widgets.js"></script>\n'));
  const server = await env.serve(out);
  const { context, page, wasm, problems } = await watchedPage(env);
  try {
    await page.goto(server.url);
    await expectWidgetWeights(page);
    expect(await page.evaluate(() => window.__defined)).toBe(true);
    expectWasmFetched(wasm, 'bundled app with dist/widgets/ copied');
    expect(problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 90000);

test('examples/vite-app/ builds with `vite build` and shows the weights', async () => {
  const files = Object.fromEntries(
    ['index.html', 'src/main.js'].map((f) => [f, readFileSync(join(ROOT, 'examples/vite-app', f), 'utf8')]),
  );
  const dir = makeConsumer(work, 'vite-example', tarball, { files });
  build(dir, 'vite', ['build', '--logLevel', 'warn']);
  const server = await env.serve(join(dir, 'dist'));
  await expectExamplePage(env, server.url, 'examples/vite-app');
}, 90000);
