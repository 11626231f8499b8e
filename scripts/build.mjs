// Builds what is stale: the two wasm modules (CMake presets wasm-simd and
// wasm-scalar; CMake itself skips up-to-date targets), the package folder
// dist/ (the JS API from src/js next to dist/wasm, its CommonJS builds, the
// prebuilt widgets in dist/widgets/ and the third-party notices), and the static site
// build/site/ (web/ bundled with the package by esbuild), which `npm start` serves.
//   node scripts/build.mjs            all of the above
//   node scripts/build.mjs --native   also the native ASan/UBSan GoogleTest build (preset native-asan)
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { collectNotices, noticesText } from './notices.mjs';
import { writeGuide } from './guide.mjs';
import { buildOffline } from './offline.mjs';
import { withoutFullPage } from './embed-without-full-page.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
const jobs = ['-j', '2'];

function run(cmd, args) {
  execFileSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

/**
 * Builds a build preset of CMakePresets.json in its configure preset's folder, build/<configure preset>
 * (native-asan and native-fuzz share build/native-asan: the kernels are compiled once for GoogleTest and the
 * fuzz targets). Configures first when that folder has no cache, or one older than CMakePresets.json:
 * `cmake --build` alone would not apply a preset's changed cache variables.
 */
export function buildPreset(preset) {
  const presetsFile = join(root, 'CMakePresets.json');
  const configure = JSON.parse(readFileSync(presetsFile, 'utf8')).buildPresets.find(
    (p) => p.name === preset,
  )?.configurePreset;
  if (!configure) throw new Error(`no build preset ${preset} in CMakePresets.json`);
  const cache = join(root, 'build', configure, 'CMakeCache.txt');
  if (!existsSync(cache) || statSync(cache).mtimeMs < statSync(presetsFile).mtimeMs) {
    run('cmake', ['--preset', configure, '--log-level=WARNING']);
  }
  run('cmake', ['--build', '--preset', preset, ...jobs, '--', '--no-print-directory', '-s']);
}

/**
 * The npm package's files in dist/: the wasm modules (separate and inline),
 * the ES modules and declarations of src/js, the CommonJS builds for require,
 * the prebuilt widgets bundle and the third-party notices. See package.json
 * "exports" for which file each entry point loads.
 */
export function buildPackage() {
  // The first build configures CMake and compiles Emscripten's system libraries, for minutes with no
  // output: said once before it starts (later builds print their own progress, or nothing when current).
  if (['wasm-simd', 'wasm-scalar'].some((preset) => !existsSync(join(root, 'build', preset, 'CMakeCache.txt'))))
    console.log('build: building the wasm modules (about 5 min the first time)…');
  buildPreset('wasm-simd');
  buildPreset('wasm-scalar');
  cpSync(join(root, 'src/js'), join(root, 'dist'), { recursive: true });
  buildCommonJs();
  const widgets = buildPackageWidgets();
  writeWidgetsNodeStub(widgets);
  writePackageNotices(widgets);
}

/**
 * dist/widgets-node.js, what import('attention-geometry/widgets') loads in Node
 * (package.json "exports", condition "node"): src/js/widgets-node.js, which
 * throws an Error saying the widgets need a browser, with the widgets' export
 * names declared after it, so that `import { AgWorkedExample } from ...` links
 * (a missing name would be a SyntaxError before the module runs) and throws
 * that Error. `widgetsMetafile`: esbuild's metafile of dist/widgets/.
 */
export function writeWidgetsNodeStub(widgetsMetafile) {
  const names = widgetsMetafile.outputs['dist/widgets/widgets.js']?.exports;
  if (!names?.length) throw new Error('dist/widgets/widgets.js: esbuild reported no exports');
  if (names.includes('default')) throw new Error('dist/widgets/widgets.js: a default export needs a stub export');
  const stub = readFileSync(join(root, 'src/js/widgets-node.js'), 'utf8');
  writeFileSync(join(root, 'dist/widgets-node.js'), `${stub}export let ${[...names].sort().join(', ')};\n`);
}

/**
 * dist/index.cjs and dist/inline.cjs for require(): each entry bundled with
 * its glue modules (the .wasm files stay separate for index.cjs), with the
 * CommonJS file's own URL in place of import.meta.url, and declarations that
 * say CommonJS (.d.cts).
 */
export function buildCommonJs() {
  const dist = join(root, 'dist');
  for (const name of ['index', 'inline']) {
    buildSync({
      absWorkingDir: root,
      entryPoints: [join(dist, `${name}.js`)],
      outfile: join(dist, `${name}.cjs`),
      bundle: true,
      platform: 'node', // '#read-file' resolves to the node:fs variant
      format: 'cjs',
      target: ['node20'],
      external: ['node:*'],
      banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
      define: { 'import.meta.url': 'importMetaUrl' },
      legalComments: 'none',
      logLevel: 'warning',
    });
    // The CommonJS module's shape for types: named exports only (`const { init }
    // = require(...)`); its `default` property exists but is not declared, as
    // TypeScript would take `export default` for `module.exports`.
    const types = readFileSync(join(dist, `${name}.d.ts`), 'utf8')
      .replaceAll("from './index.js'", "from './index.cjs'")
      .replace(/^export default init;\n/m, '')
      .replace(/^export \{ default \} from '\.\/index\.cjs';\n/m, '');
    if (/^export (\{ )?default/m.test(types)) throw new Error(`${name}.d.cts: a default export is left`);
    writeFileSync(join(dist, `${name}.d.cts`), types);
  }
}

/**
 * esbuild options of the two browser bundles (the site's and the package's
 * dist/widgets/): ES modules with shared chunks at the root of the output
 * folder, so that assetUrl() finds wasm/, styles/ and vendor/ beside them.
 */
/**
 * The site's bundles. experiment-worker: the Monte Carlo module worker
 * (web/widget/worker-client.js starts it); embed: the one-widget page
 * (embed.html) for iframes; scorm: the SCORM 1.2 adapter of the SCORM package.
 */
export const SITE_ENTRY_POINTS = {
  widgets: 'web/widgets.js',
  app: 'web/app.js',
  embed: 'web/embed.js',
  scorm: 'web/scorm.js',
  'experiment-worker': 'web/experiment-worker.js',
};

const BROWSER_BUNDLE = {
  absWorkingDir: root,
  metafile: true, // the list of bundled packages, for the third-party notices
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['es2022'],
  chunkNames: 'chunk-[hash]',
  minify: true,
  sourcemap: false,
  legalComments: 'none', // the licences are in THIRD_PARTY_NOTICES.txt beside the bundle
  // The API reads .wasm files with node:fs only under Node; never reached in a browser.
  external: ['node:*'],
};

/**
 * dist/widgets/: every widget (web/widgets.js) as one ES module with shared
 * chunks, the experiment worker and the one-widget page (embed.html, which the
 * widgets' embed snippet points to), and beside them the files the widgets find
 * relative to the module (web/widget/assets.js): wasm/, styles/ and KaTeX's
 * stylesheet and fonts in vendor/katex/. Returns esbuild's metafile.
 */
export function buildPackageWidgets() {
  const out = join(root, 'dist/widgets');
  rmSync(out, { recursive: true, force: true });
  const result = buildSync({
    ...BROWSER_BUNDLE,
    entryPoints: { widgets: 'web/widgets.js', embed: 'web/embed.js', 'experiment-worker': 'web/experiment-worker.js' },
    outdir: out,
    logLevel: 'warning',
    // A widget's advice about a file that did not load names this folder (web/widget/load-failure.js).
    define: { 'globalThis.AG_BUNDLE': JSON.stringify('package') },
  });
  cpSync(join(root, 'dist/wasm'), join(out, 'wasm'), { recursive: true, filter: (f) => !f.endsWith('.mjs') });
  cpSync(join(root, 'web/styles'), join(out, 'styles'), { recursive: true });
  cpSync(join(root, 'web/favicon.svg'), join(out, 'favicon.svg'));
  // No index.html here: embed.html names no full page (its link hidden, even when no script runs).
  const page = withoutFullPage(readFileSync(join(root, 'web/embed.html'), 'utf8'), 'web/embed.html');
  writeFileSync(join(out, 'embed.html'), page);
  const katex = join(root, 'node_modules/katex/dist');
  mkdirSync(join(out, 'vendor/katex/fonts'), { recursive: true });
  cpSync(join(katex, 'katex.min.css'), join(out, 'vendor/katex/katex.min.css'));
  for (const font of readdirSync(join(katex, 'fonts'))) {
    if (font.endsWith('.woff2')) cpSync(join(katex, 'fonts', font), join(out, 'vendor/katex/fonts', font));
  }
  return result.metafile;
}

/**
 * dist/THIRD_PARTY_NOTICES.txt and the same file in dist/widgets/ (the folder
 * users copy into their site): the npm packages bundled into the widgets (from
 * the metafile), KaTeX's stylesheet and fonts, and the parts of Emscripten
 * compiled into every .wasm and glue module.
 */
export function writePackageNotices(widgetsMetafile) {
  const entries = [...collectNotices(root, widgetsMetafile), ...emscriptenNotices()];
  // The shared notices text speaks of the page; this file is the package's.
  const text = noticesText(entries).replace(
    'The page and its modules include',
    'The npm package (its .wasm files, glue modules and widgets) includes',
  );
  writeFileSync(join(root, 'dist/THIRD_PARTY_NOTICES.txt'), text);
  // The same notices travel with the widgets folder, which users copy as it is.
  writeFileSync(join(root, 'dist/widgets/THIRD_PARTY_NOTICES.txt'), text);
}

/**
 * The notices of what Emscripten puts into every .wasm and glue module (its
 * runtime, musl libc, libc++), in the form of collectNotices' entries.
 */
export function emscriptenNotices() {
  const musl = join(emscriptenRoot(), 'system/lib/libc/musl/COPYRIGHT');
  return [
    {
      name: 'Emscripten runtime (JavaScript glue in dist/wasm/)',
      version: emscriptenVersion(),
      license: 'MIT OR NCSA',
      note: 'generated into every glue module',
      text: EMSCRIPTEN_MIT,
    },
    {
      name: 'musl libc (compiled into every .wasm)',
      version: 'as shipped with Emscripten',
      license: 'MIT',
      note: 'parts of the C library in the .wasm files',
      text: readFileSync(musl, 'utf8').trim(),
    },
    {
      name: 'libc++ and libc++abi (compiled into every .wasm)',
      version: 'as shipped with Emscripten',
      license: 'Apache-2.0 WITH LLVM-exception',
      note: 'the LLVM exception waives the notice requirement for compiled forms; listed for completeness',
      text: 'See https://llvm.org/LICENSE.txt',
    },
  ];
}

function emscriptenRoot() {
  // em++ is a link to the wrapper script in Emscripten's own folder.
  return dirname(realpathSync(execFileSync('which', ['em++'], { encoding: 'utf8' }).trim()));
}

function emscriptenVersion() {
  const file = join(emscriptenRoot(), 'emscripten-version.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().replaceAll('"', '') : 'unknown';
}

const EMSCRIPTEN_MIT = `Copyright (c) 2010-2014 Emscripten authors, see AUTHORS file.

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.`;

/** Stylesheets of web/styles/ that no widget of the full page links: embed.html's own. */
const NOT_WIDGET_SHEETS = new Set(['embed.css']);

/**
 * The full page `html` (web/index.html) with a <link rel="preload"> for each stylesheet that its widgets
 * link in their shadow roots (every sheet of web/styles/ but NOT_WIDGET_SHEETS and those the page links
 * itself), before its script. Every widget links its sheets as the page opens (base.js); preloaded, they
 * are in the cache by then, and all shadow roots get their styles within a frame or two, instead of
 * one sheet after another over a second, each arrival restyling and laying out the whole page again.
 */
export function withWidgetSheetsPreloaded(html) {
  const script = '  <script type="module" src="app.js"></script>\n';
  if (html.split(script).length !== 2) throw new Error(`web/index.html: expected "${script.trim()}" once`);
  const sheets = readdirSync(join(root, 'web/styles'))
    .filter((f) => f.endsWith('.css') && !NOT_WIDGET_SHEETS.has(f) && !html.includes(`href="styles/${f}"`))
    .sort();
  const links = sheets.map((f) => `  <link rel="preload" as="style" href="styles/${f}">\n`).join('');
  return html.replace(script, links + script);
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
  const result = await build({
    ...BROWSER_BUNDLE,
    entryPoints: SITE_ENTRY_POINTS,
    outdir: site,
    logLevel: 'warning',
    // The site's pages sit beside its files: a widget's advice about a file that did not load says so
    // (web/widget/load-failure.js), not the npm package's dist/widgets/.
    define: { 'globalThis.AG_BUNDLE': JSON.stringify('site') },
  });
  cpSync(join(root, 'dist/wasm'), join(site, 'wasm'), { recursive: true, filter: (f) => !f.endsWith('.mjs') });
  for (const file of ['embed.html', 'style.css', 'guide.css', 'favicon.svg'])
    cpSync(join(root, 'web', file), join(site, file));
  cpSync(join(root, 'web/styles'), join(site, 'styles'), { recursive: true });
  writeFileSync(
    join(site, 'index.html'),
    withWidgetSheetsPreloaded(readFileSync(join(root, 'web/index.html'), 'utf8')),
  );
  writeGuide(root, site);
  const katex = join(root, 'node_modules/katex/dist');
  mkdirSync(join(site, 'vendor/katex/fonts'), { recursive: true });
  cpSync(join(katex, 'katex.min.css'), join(site, 'vendor/katex/katex.min.css'));
  for (const font of readdirSync(join(katex, 'fonts'))) {
    if (font.endsWith('.woff2')) cpSync(join(katex, 'fonts', font), join(site, 'vendor/katex/fonts', font));
  }
  const notices = collectNotices(root, result.metafile);
  writeFileSync(join(site, 'vendor/THIRD_PARTY_NOTICES.txt'), noticesText(notices));
  const item = (e) => `<li>${e.name} ${e.version} (${e.license}): ${e.note}</li>\n`;
  writeFileSync(
    join(site, 'vendor/index.html'),
    '<!doctype html>\n<meta charset="utf-8">\n<title>Third-party licences</title>\n<h1>Third-party licences</h1>\n' +
      '<p>The full texts are in <a href="THIRD_PARTY_NOTICES.txt">THIRD_PARTY_NOTICES.txt</a>.</p>\n<ul>\n' +
      notices.map(item).join('') +
      '</ul>\n',
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildPackage();
  await buildSite();
  await buildOffline();
  if (process.argv.includes('--native')) buildPreset('native-asan');
}
