// Where init() looks for the .wasm in Node: a relative wasmUrl or locateFile
// result resolves against the current working directory (as a path given to
// node:fs would); a {simd, scalar} object without the build that is loaded
// falls back to the default location. And require() or import of the widgets
// entry, custom elements for browsers, throws an Error that says how to load it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { init } from './helpers.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const entry = pathToFileURL(join(ROOT, 'dist/index.js')).href;
let work;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ag-wasm-location-'));
  mkdirSync(join(work, 'static'));
  copyFileSync(join(ROOT, 'dist/wasm/ag-scalar.wasm'), join(work, 'static/ag-scalar.wasm'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs an ES module script in a fresh Node process in `cwd`; returns its parsed JSON line. */
function runIn(cwd, source) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout.trim());
}

test('a relative wasmUrl and a relative locateFile result resolve against the working directory', () => {
  const source = `import { init } from '${entry}';
const out = {};
out.wasmUrl = (await init({ simd: false, wasmUrl: 'static/ag-scalar.wasm' })).dot([3, 4], [4, 3]);
out.locateFile = (await init({ simd: false, locateFile: (name) => './static/' + name })).dot([3, 4], [4, 3]);
try { await init({ simd: false, wasmUrl: 'wasm/ag-scalar.wasm' }); } catch (e) { out.missing = e.message; }
console.log(JSON.stringify(out));`;
  const r = runIn(work, source);
  expect(r.wasmUrl).toBe(24);
  expect(r.locateFile).toBe(24);
  // The package's own dist/wasm/ is not the base: the file is looked for in the working directory.
  expect(r.missing).toContain(new URL('wasm/ag-scalar.wasm', pathToFileURL(join(work, '/'))).href);
  expect(r.missing).toContain('located by options.wasmUrl');
});

test('a {simd, scalar} wasmUrl without the build that is loaded falls back to the default location', async () => {
  const nowhere = new URL('./no-such-dir/ag-simd.wasm', import.meta.url).href;
  const ag = await init({ simd: false, wasmUrl: { simd: nowhere } });
  expect(ag.backend).toBe('wasm-scalar');
  expect(ag.dot([3, 4], [4, 3])).toBe(24);
  // ... and the entry that is given is used (here it does not exist, so init rejects naming it).
  await expect(init({ simd: true, wasmUrl: { simd: nowhere } })).rejects.toThrow(nowhere);
});

test("require('attention-geometry/widgets') throws an Error saying the widgets are an ES module for browsers", () => {
  const r = spawnSync(process.execPath, ['-e', "require('attention-geometry/widgets')"], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(
    'Error: attention-geometry/widgets is an ES module for browsers and cannot be loaded with require()',
  );
  expect(r.stderr).toContain('<script type="module"');
  expect(r.stderr).toContain('so a bundler must not take it into a bundle (docs/package.md, "In a bundled app")');
});

test("import('attention-geometry/widgets') in Node throws an Error saying the widgets need a browser", () => {
  const r = runIn(
    ROOT,
    "import('attention-geometry/widgets').then(() => console.log('{}'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));",
  );
  expect(r.name).toBe('Error');
  expect(r.message).toContain('attention-geometry/widgets needs a browser');
  expect(r.message).toContain('HTMLElement, and Node has no DOM');
  expect(r.message).toContain('<script type="module"');
  expect(r.message).toContain('so a bundler must not take it into a bundle (docs/package.md, "In a bundled app")');
  expect(r.message).not.toContain('bundled for browsers');
  expect(r.message).toContain('import { init } from "attention-geometry"');
  // A named static import links (the names exist) and reaches the same Error.
  const named = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "import { AgWorkedExample } from 'attention-geometry/widgets'; AgWorkedExample;"],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  expect(named.status).not.toBe(0);
  expect(named.stderr).toContain(`Error: ${r.message}`);
});
