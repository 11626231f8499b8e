// scripts/check-dist.mjs, run by `npm pack` (package.json "prepack"): it
// passes on the built repository and fails, naming what is missing, when a
// file that package.json points at or a .wasm file is not in dist/.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { missingFiles } from '../../scripts/check-dist.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/check-dist.mjs');
let work;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ag-check-dist-'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (dir) => spawnSync(process.execPath, [SCRIPT, ...(dir ? [dir] : [])], { encoding: 'utf8' });

test('the built repository passes', () => {
  expect(missingFiles(ROOT)).toEqual([]);
  const r = run();
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('');
});

test('an unbuilt checkout fails with the message that says to build first', () => {
  const dir = join(work, 'unbuilt');
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  const missing = missingFiles(dir);
  for (const file of [
    'dist/index.js',
    'dist/index.cjs',
    'dist/index.d.ts',
    'dist/widgets/widgets.js',
    'dist/read-file.node.js',
    'dist/wasm/ag-simd.wasm',
    'dist/wasm/ag-scalar.wasm',
  ]) {
    expect(missing).toContain(file);
  }
  const r = run(dir);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('dist/ is missing or incomplete: run npm run build first');
});

test('a dist/ without one .wasm file fails and names it', () => {
  const dir = join(work, 'no-scalar');
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), {
    recursive: true,
    filter: (f) => !f.endsWith(join('dist', 'wasm', 'ag-scalar.wasm')),
  });
  expect(missingFiles(dir)).toEqual(['dist/wasm/ag-scalar.wasm']);
  const r = run(dir);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('dist/wasm/ag-scalar.wasm');
});
