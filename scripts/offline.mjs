// The offline single-file page build/site/attention-geometry-offline.html:
// the whole page (index.html, both parts, every chapter) in ONE file that
// works when opened from disk, with no server. Everything it needs is inside:
//   - the page's JS, bundled by esbuild without code splitting, as one inline
//     module script (allowed by the sha256 hash of its text in the CSP);
//   - the files that assetUrl() (web/widget/assets.js) locates, as data: URLs
//     in a table that replaces web/offline/inlined-assets.js in this bundle:
//     both wasm builds, the shadow roots' stylesheets, KaTeX's stylesheet
//     with its woff2 fonts, and the experiment worker (bundled on its own);
//   - the page's stylesheet and icon as data: URLs in the HTML;
//   - the third-party notices as text at the end of the footer.
// Runs after buildSite() (scripts/build.mjs): it reads build/site/.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'build/site');
export const OFFLINE_FILE = 'attention-geometry-offline.html';

const dataUrl = (type, bytes) => `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

/** esbuild options shared by the two bundles (and the H5P library's, scripts/h5p.mjs): one ES module each, no chunks, minified. */
export const bundleOptions = {
  absWorkingDir: root,
  bundle: true,
  splitting: false,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  legalComments: 'none', // the notices are in the page's footer
  charset: 'ascii', // \u escapes: the script's hash does not depend on how the file is decoded
  external: ['node:*'], // the API reads files with node:fs only under Node
  write: false,
  logLevel: 'warning',
};

/**
 * KaTeX's stylesheet with each @font-face reduced to its woff2 file as a
 * data: URL (every browser that runs this page reads woff2; the woff and ttf
 * fallbacks would only add weight). KaTeX's minified CSS lists each font as
 * url(fonts/NAME.woff2) format("woff2"),url(fonts/NAME.woff) ...,url(fonts/NAME.ttf) ...
 */
function katexCss() {
  const dir = join(root, 'node_modules/katex/dist');
  let count = 0;
  const css = readFileSync(join(dir, 'katex.min.css'), 'utf8').replace(
    /url\(fonts\/([\w-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts\/\1\.(?:woff|ttf)\) format\("(?:woff|truetype)"\))*/g,
    (_, name) => {
      count++;
      return `url(${dataUrl('font/woff2', readFileSync(join(dir, 'fonts', `${name}.woff2`)))}) format("woff2")`;
    },
  );
  if (count === 0 || css.includes('url(fonts/')) {
    throw new Error(
      'offline build: KaTeX\'s stylesheet no longer lists its fonts as url(fonts/NAME.woff2) format("woff2"),...: update katexCss() in scripts/offline.mjs',
    );
  }
  return css;
}

/**
 * The table of inlined files, keyed by their path in the site build (what assetUrl() is asked for).
 * `from`: the built site to read them from.
 */
export async function assetTable(build, from = site) {
  const table = {};
  for (const name of ['ag-simd.wasm', 'ag-scalar.wasm'])
    table[`wasm/${name}`] = dataUrl('application/wasm', readFileSync(join(from, 'wasm', name)));
  for (const name of readdirSync(join(from, 'styles')).sort()) {
    if (name.endsWith('.css')) table[`styles/${name}`] = dataUrl('text/css', readFileSync(join(from, 'styles', name)));
  }
  table['vendor/katex/katex.min.css'] = dataUrl('text/css', katexCss());
  // The worker gets the wasm URLs from the page with each job, so its bundle holds no wasm.
  // A data: worker's own URL (its import.meta.url) cannot be the base of a
  // relative URL, yet the Emscripten glue builds one on start-up
  // (new URL('ag-simd.wasm', import.meta.url)) although the wasm comes from the
  // page's data: URL. Any hierarchical URL serves; nothing is fetched from it.
  const worker = await build({
    ...bundleOptions,
    entryPoints: ['web/experiment-worker.js'],
    outfile: 'experiment-worker.js',
    define: { 'import.meta.url': JSON.stringify('file:///experiment-worker.js') },
  });
  table['experiment-worker.js'] = dataUrl('text/javascript', worker.outputFiles[0].contents);
  return table;
}

/** The esbuild plugin that puts `table` in place of web/offline/inlined-assets.js. */
export function inlinedAssetsPlugin(table) {
  const inlined = join(root, 'web/offline/inlined-assets.js');
  return {
    name: 'inlined-assets',
    setup(b) {
      b.onLoad({ filter: /inlined-assets\.js$/ }, (args) =>
        args.path === inlined
          ? { contents: `export const INLINED_ASSETS = ${JSON.stringify(table)};`, loader: 'js' }
          : undefined,
      );
    },
  };
}

/** The page's JS as one module, with the table in place of web/offline/inlined-assets.js. */
async function pageScript(build, table) {
  const result = await build({
    ...bundleOptions,
    entryPoints: ['web/app.js'],
    outfile: 'app.js',
    // No folder to serve: a widget's advice about a file that did not load says so (web/widget/load-failure.js).
    define: { 'globalThis.AG_BUNDLE': JSON.stringify('offline') },
    plugins: [inlinedAssetsPlugin(table)],
  });
  const js = result.outputFiles[0].text;
  // The script is inline: its text must not end the <script> element early.
  if (/<\/script/i.test(js) || /<!--/.test(js))
    throw new Error(
      'offline build: the bundled script contains "</script" or "<!--", which would break the inline <script>',
    );
  return js;
}

/** The third-party notices: the site build's full list when present, else KaTeX's and d3's licences. */
function noticesText() {
  const full = join(site, 'vendor/THIRD_PARTY_NOTICES.txt');
  if (existsSync(full)) return readFileSync(full, 'utf8');
  return ['katex', 'd3']
    .map(
      (pkg) =>
        `${pkg}\n${'='.repeat(pkg.length)}\n\n${readFileSync(join(root, 'node_modules', pkg, 'LICENSE'), 'utf8').trim()}\n`,
    )
    .join('\n');
}

const escapeHtml = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Replaces `from` (which must occur exactly once) by `to` in the page. */
function replaceOnce(html, from, to) {
  const parts = html.split(from);
  if (parts.length !== 2)
    throw new Error(`offline build: expected "${from}" once in index.html, found it ${parts.length - 1} times`);
  return parts.join(to);
}

/**
 * The offline page's Content-Security-Policy: nothing may load from anywhere
 * (default-src 'none'); the one inline module script runs because its sha256
 * hash is listed (no 'unsafe-inline' and no data: scripts, so an injected
 * script still cannot run, and no 'unsafe-eval'; 'wasm-unsafe-eval' compiles
 * the wasm only). 'self' cannot serve: a page opened from disk has an opaque
 * origin, so every file it uses is a data: URL inside it, which style-src,
 * font-src, connect-src (fetch of the wasm) and worker-src allow. The worker
 * is a data: URL because Chromium refuses blob: workers in file:// pages.
 */
function csp(scriptHash) {
  return [
    "default-src 'none'",
    `script-src 'sha256-${scriptHash}' 'wasm-unsafe-eval'`,
    'style-src data:',
    'font-src data:',
    'img-src data: blob:',
    'connect-src data:',
    'worker-src data:',
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export async function buildOffline() {
  const { build } = await import('esbuild');
  const table = await assetTable(build);
  const js = await pageScript(build, table);
  const hash = createHash('sha256').update(js, 'utf8').digest('base64');

  let html = readFileSync(join(site, 'index.html'), 'utf8');
  html = html.replace(
    /<meta http-equiv="Content-Security-Policy" content="[^"]*">/,
    () => `<meta http-equiv="Content-Security-Policy" content="${csp(hash)}">`,
  );
  if (!html.includes(`'sha256-${hash}'`))
    throw new Error('offline build: index.html has no Content-Security-Policy meta element to adapt');
  html = replaceOnce(
    html,
    '<!doctype html>\n',
    '<!doctype html>\n<!-- Attention Geometry, offline single-file copy: everything the page needs is inside this file. Third-party notices: the "Third-party licences" section at the end of the page (id="third-party-notices"). -->\n',
  );
  html = replaceOnce(
    html,
    'href="favicon.svg"',
    `href="${dataUrl('image/svg+xml', readFileSync(join(site, 'favicon.svg')))}"`,
  );
  // The widgets' stylesheets are in the table (data: URLs): nothing to fetch ahead.
  html = html.replace(/ {2}<link rel="preload" as="style" href="[^"]*">\n/g, '');
  // KaTeX's stylesheet (with the fonts) is added to <head> by the first widget (ensureKatexFonts), from the table.
  html = replaceOnce(html, '  <link rel="stylesheet" href="vendor/katex/katex.min.css">\n', '');
  // The site's stylesheets (the shared base, then the page's), then the notices' rule: their long
  // lines wrap on narrow screens.
  const noticesCss = '#third-party-notices pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}';
  const sheet = (css) => `<link rel="stylesheet" href="${dataUrl('text/css', css)}">`;
  const siteSheet = (path) => sheet(readFileSync(join(site, path)));
  html = replaceOnce(html, '<link rel="stylesheet" href="styles/base.css">', siteSheet('styles/base.css'));
  html = replaceOnce(
    html,
    '<link rel="stylesheet" href="style.css">',
    `${siteSheet('style.css')}\n  ${sheet(noticesCss)}`,
  );
  html = replaceOnce(html, '<script type="module" src="app.js"></script>', `<script type="module">${js}</script>`);
  // The footer's download link (web/index.html) becomes a sentence: this file is that download.
  const link = html.match(/<p class="offline-copy">[\s\S]*?<\/p>/g);
  if (link?.length !== 1)
    throw new Error(
      'offline build: expected one <p class="offline-copy"> (the download link) in the footer of index.html',
    );
  html = replaceOnce(
    html,
    link[0],
    '<p class="offline-copy">This is the offline copy of the page: one file that works from disk, without a server or a network.</p>',
  );
  html = replaceOnce(html, '<a href="vendor/">', '<a href="#third-party-notices">');
  // A section the footer's link can land on (a link to a closed <details> does not open it).
  html = replaceOnce(
    html,
    '  </footer>',
    '    <section id="third-party-notices" aria-labelledby="third-party-notices-title">\n' +
      '      <h2 id="third-party-notices-title">Third-party licences</h2>\n' +
      '      <details>\n        <summary>The licence texts of the software inside this file</summary>\n' +
      `        <pre>${escapeHtml(noticesText())}</pre>\n      </details>\n    </section>\n  </footer>`,
  );

  const out = join(site, OFFLINE_FILE);
  writeFileSync(out, html);
  const size = Buffer.byteLength(html);
  console.log(`offline page: build/site/${OFFLINE_FILE}, ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes)`);
}
