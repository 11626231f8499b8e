// Builds what is stale: the two wasm modules (CMake presets wasm-simd and
// wasm-scalar; CMake itself skips up-to-date targets), the package folder
// dist/ (the JS API from src/js next to dist/wasm), and the static site
// build/site/ (web/ bundled with the package by esbuild), which `npm start` serves.
//   node scripts/build.mjs            all of the above
//   node scripts/build.mjs --native   also the native ASan/UBSan test build
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
const jobs = ['-j', '2'];

function run(cmd, args) {
  execFileSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

export function buildPreset(preset) {
  if (!existsSync(join(root, 'build', preset, 'CMakeCache.txt'))) {
    run('cmake', ['--preset', preset, '--log-level=WARNING']);
  }
  run('cmake', ['--build', '--preset', preset, ...jobs, '--', '--no-print-directory', '-s']);
}

export function buildPackage() {
  buildPreset('wasm-simd');
  buildPreset('wasm-scalar');
  cpSync(join(root, 'src/js'), join(root, 'dist'), { recursive: true });
}

/**
 * The static site build/site/: web/widgets.js (every widget, the JS API
 * bundled in) and web/app.js (the page shell) bundled by esbuild as ES
 * modules with shared chunks, all at the root of build/site/ so that the
 * API's `new URL('./wasm/...', import.meta.url)` finds wasm/ there; the
 * page, its styles, KaTeX's CSS and fonts and the third-party licences next
 * to them. Every URL in it is relative: it works from any sub-path.
 */
export async function buildSite() {
  const { build } = await import('esbuild');
  const site = join(root, 'build/site');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  await build({
    absWorkingDir: root,
    // experiment-worker: the Monte Carlo module worker (web/widget/worker-client.js starts it).
    entryPoints: { widgets: 'web/widgets.js', app: 'web/app.js', 'experiment-worker': 'web/experiment-worker.js' },
    outdir: site,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: ['es2022'],
    chunkNames: 'chunk-[hash]',
    minify: true,
    sourcemap: false,
    legalComments: 'none', // the licences are copied as files into vendor/
    // The API reads .wasm files with node:fs only under Node; never reached in a browser.
    external: ['node:*'],
    logLevel: 'warning',
  });
  cpSync(join(root, 'dist/wasm'), join(site, 'wasm'), { recursive: true, filter: (f) => !f.endsWith('.mjs') });
  for (const file of ['index.html', 'style.css', 'favicon.svg']) cpSync(join(root, 'web', file), join(site, file));
  cpSync(join(root, 'web/styles'), join(site, 'styles'), { recursive: true });
  const katex = join(root, 'node_modules/katex/dist');
  mkdirSync(join(site, 'vendor/katex/fonts'), { recursive: true });
  cpSync(join(katex, 'katex.min.css'), join(site, 'vendor/katex/katex.min.css'));
  for (const font of readdirSync(join(katex, 'fonts'))) {
    if (font.endsWith('.woff2')) cpSync(join(katex, 'fonts', font), join(site, 'vendor/katex/fonts', font));
  }
  cpSync(join(root, 'node_modules/katex/LICENSE'), join(site, 'vendor/LICENSE-katex.txt'));
  cpSync(join(root, 'node_modules/d3/LICENSE'), join(site, 'vendor/LICENSE-d3.txt'));
  writeFileSync(
    join(site, 'vendor/index.html'),
    '<!doctype html>\n<meta charset="utf-8">\n<title>Third-party licences</title>\n<h1>Third-party licences</h1>\n<ul>\n' +
      '<li><a href="LICENSE-katex.txt">KaTeX</a> (MIT), with its fonts in katex/fonts/</li>\n' +
      '<li><a href="LICENSE-d3.txt">d3</a> (ISC)</li>\n</ul>\n',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildPackage();
  await buildSite();
  if (process.argv.includes('--native')) buildPreset('native-asan');
}
