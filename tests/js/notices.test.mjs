// Third-party notices of the site build: every npm package whose code is in
// the bundle has its licence text in vendor/THIRD_PARTY_NOTICES.txt. The
// bundle is read independently here (its chunks name no packages, so the
// check re-bundles with esbuild and compares package lists) and the texts are
// compared with the packages' own licence files.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { packageOf } from '../../scripts/notices.mjs';

const ROOT = join(import.meta.dirname, '../..');
const SITE = join(ROOT, 'build/site');
const notices = readFileSync(join(SITE, 'vendor/THIRD_PARTY_NOTICES.txt'), 'utf8');

describe('packageOf', () => {
  test.each([
    ['node_modules/d3-array/src/max.js', 'd3-array'],
    ['node_modules/@scope/pkg/index.js', '@scope/pkg'],
    ['node_modules/a/node_modules/b/x.js', 'b'],
    ['web/widget/base.js', null],
  ])('%s -> %s', (path, name) => {
    expect(packageOf(path)).toBe(name);
  });
});

test('every package the page bundles is in the notices with its licence text', async () => {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['web/app.js', 'web/widgets.js', 'web/embed.js', 'web/experiment-worker.js'],
    bundle: true,
    write: false,
    format: 'esm',
    outdir: 'out',
    splitting: true,
    metafile: true,
    external: ['node:*'],
    logLevel: 'silent',
  });
  const used = new Set();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      if (name && bytesInOutput > 0) used.add(name);
    }
  }
  expect(used.has('katex')).toBe(true);
  expect(used.has('d3-selection')).toBe(true);
  for (const name of used) {
    const dir = join(ROOT, 'node_modules', name);
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(notices).toContain(`${name} ${version} (`);
    const licence = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    expect(notices).toContain(readFileSync(join(dir, licence), 'utf8').trim());
  }
});

test('the licence page lists KaTeX and links the full texts', () => {
  const index = readFileSync(join(SITE, 'vendor/index.html'), 'utf8');
  expect(index).toContain('THIRD_PARTY_NOTICES.txt');
  expect(index).toMatch(/katex \d+\.\d+\.\d+ \(MIT\)/);
});
