// Builds an H5P package (.h5p) of one chapter: build/attention-geometry-<chapter>.h5p.
//   node scripts/h5p.mjs [--chapter <id>] [--state <text>] [--hide <groups>] [--ask <ids>|none] [--out <file>]
// `npm run h5p -- --chapter atom` checks the options, builds the site (--build, scripts/prepare-site.mjs),
// then the package; --help prints the usage. The package:
//   h5p.json                    the content's main library and its preloaded dependency
//   content/content.json        the chapter, its start state, the controls hidden and the predictions
//                               asked (the studio's options, web/widget/studio-options.js) and the
//                               strings (web/h5p/semantics.js)
//   H5P.AttentionGeometry-M.m/  the library: library.json, semantics.json, attention-geometry.js
//                               (web/h5p/main.js and every widget as one classic script; the two
//                               .wasm builds, the widgets' stylesheets, KaTeX's stylesheet and
//                               fonts and the experiment worker inside it as data: URLs, as in the
//                               offline page), attention-geometry.css and THIRD_PARTY_NOTICES.txt.
// H5P accepts only the file types of its whitelist (no .wasm, .mjs or .map): the
// package has .json, .js, .css and .txt files. Deterministic zip (scripts/zip.mjs).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emscriptenNotices } from './build.mjs';
import { collectNotices, noticesText } from './notices.mjs';
import { assetTable, bundleOptions, inlinedAssetsPlugin } from './offline.mjs';
import { sortedZip } from './zip.mjs';
import { DEFAULT_CHAPTER, DEFAULT_L10N, semantics } from '../web/h5p/semantics.js';
import { chapterOf, embedOptions, readArgs, usageText } from './chapter-options.mjs';
import { buildFlag, prepareSite } from './prepare-site.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_SITE = join(root, 'build/site');
export const MACHINE_NAME = 'H5P.AttentionGeometry';
export const SCRIPT = 'attention-geometry.js';
export const STYLESHEET = 'attention-geometry.css';

/**
 * The H5P library's own version. A platform replaces an installed library only by one of a higher
 * patchVersion (same major and minor): raise patchVersion whenever the library's files change.
 * (Major version 0 is avoided: H5P's player drops it from the library's name in xAPI statements.)
 */
export const LIBRARY_VERSION = Object.freeze({ majorVersion: 1, minorVersion: 0, patchVersion: 2 });

/** The library's folder in the package, e.g. H5P.AttentionGeometry-1.0. */
export const libraryFolder = ({ majorVersion, minorVersion }) => `${MACHINE_NAME}-${majorVersion}.${minorVersion}`;

export { chapterOf, embedOptions };

/** The options of the command line, and what each takes. */
export const USAGE = { chapter: '<id>', state: '<text>', hide: '<groups>', ask: '<ids>|none', out: '<file>' };

/**
 * The options of the command line: --chapter <id>, --state <text>, --hide <groups>, --ask <ids>|none,
 * --out <file> (or --name=value); { help: true } for --help. The hide and ask names are checked against the
 * chapter's (embedOptions; an unknown one is a RangeError); an empty --ask asks none, as in embed.html.
 */
export function optionsFromArgs(args) {
  const given = readArgs(args, USAGE);
  if (given.help) return given;
  const chapter = chapterOf(given.chapter ?? DEFAULT_CHAPTER);
  const { hide, ask } = embedOptions({ hide: given.hide ?? '', ask: given.ask }, chapter.id);
  return { ...given, ...(hide ? { hide } : {}), ...(ask ? { ask } : {}) };
}

/** library.json of the library (https://h5p.org/library-definition). */
export function libraryJson(version) {
  return {
    title: 'Attention Geometry',
    description:
      'One chapter of Attention Geometry: an interactive figure whose numbers are computed by WebAssembly kernels, with a prediction to answer.',
    machineName: MACHINE_NAME,
    ...version,
    runnable: 1,
    author: 'Attention Geometry',
    license: 'MIT',
    embedTypes: ['iframe'],
    fullscreen: 0,
    preloadedJs: [{ path: SCRIPT }],
    preloadedCss: [{ path: STYLESHEET }],
  };
}

/** h5p.json of the content (https://h5p.org/documentation/developers/json-file-definitions). */
export function h5pJson(chapter, { majorVersion, minorVersion }) {
  return {
    title: `Attention Geometry: ${chapter.title}`,
    language: 'en',
    defaultLanguage: 'en',
    mainLibrary: MACHINE_NAME,
    embedTypes: ['iframe'],
    license: 'U',
    preloadedDependencies: [{ machineName: MACHINE_NAME, majorVersion, minorVersion }],
  };
}

/**
 * The library's script: web/h5p/main.js and everything it imports, as one
 * classic script (an IIFE: H5P loads libraries with <script src>), the files
 * assetUrl() asks for inlined from the built `site`. Its own URL is a fixed
 * hierarchical one: every file it uses is a data: URL, nothing is fetched from it.
 * @returns {{ js: string, metafile: object }}
 */
export async function libraryScript(site = DEFAULT_SITE) {
  const { build } = await import('esbuild');
  const table = await assetTable(build, site);
  const result = await build({
    ...bundleOptions,
    entryPoints: ['web/h5p/main.js'],
    outfile: SCRIPT,
    format: 'iife',
    metafile: true,
    // The widgets' advice about a file that did not load names the library's folder (web/widget/load-failure.js).
    define: { 'import.meta.url': JSON.stringify(`file:///${SCRIPT}`), 'globalThis.AG_BUNDLE': JSON.stringify('h5p') },
    plugins: [inlinedAssetsPlugin(table)],
  });
  return { js: result.outputFiles[0].text, metafile: result.metafile };
}

/** THIRD_PARTY_NOTICES.txt of the library: the npm packages in its script, KaTeX's files and Emscripten's parts. */
export function libraryNotices(metafile) {
  const entries = [...collectNotices(root, metafile), ...emscriptenNotices()].map((e) =>
    e.name === 'katex' ? { ...e, note: 'bundled into the script, with its stylesheet and fonts' } : e,
  );
  return noticesText(entries).replace(
    'The page and its modules include',
    'The H5P library H5P.AttentionGeometry (its script, with the .wasm files inside) includes',
  );
}

/**
 * Writes the package. `chapter`: the id of a chapter with a widget; `state`: the widget's start
 * state text ('' for its own); `hide`: the control groups left out, comma-separated; `ask`: the
 * predictions asked ('' for every one, 'none' for none); `site`: the built site (build/site); `out`:
 * the .h5p file.
 * @returns {Promise<{ out: string, bytes: number, files: string[] }>}
 */
export async function buildH5p({
  chapter: id = DEFAULT_CHAPTER,
  state = '',
  hide = '',
  ask = '',
  site = DEFAULT_SITE,
  out,
} = {}) {
  const chapter = chapterOf(id);
  const options = embedOptions({ hide, ask: ask || undefined }, chapter.id);
  if (!existsSync(join(site, 'wasm/ag-simd.wasm')))
    throw new Error(
      `no built site with wasm/ in ${site}: run \`node scripts/build.mjs\` first (or \`npm run h5p\`, which builds too)`,
    );
  const target = out ?? join(root, `build/attention-geometry-${chapter.id}.h5p`);
  const version = LIBRARY_VERSION;
  const lib = libraryFolder(version);
  const { js, metafile } = await libraryScript(site);
  const json = (value) => JSON.stringify(value, null, 2) + '\n';
  const text = {
    'h5p.json': json(h5pJson(chapter, version)),
    'content/content.json': json({ chapter: chapter.id, state, ...options, showIntro: true, l10n: DEFAULT_L10N }),
    [`${lib}/library.json`]: json(libraryJson(version)),
    [`${lib}/semantics.json`]: json(semantics()),
    [`${lib}/${SCRIPT}`]: js,
    [`${lib}/${STYLESHEET}`]: readFileSync(join(root, 'web/h5p/attention-geometry.css'), 'utf8'),
    [`${lib}/THIRD_PARTY_NOTICES.txt`]: libraryNotices(metafile),
  };
  const encoder = new TextEncoder();
  const zip = sortedZip(Object.fromEntries(Object.entries(text).map(([p, t]) => [p, encoder.encode(t)])));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, zip);
  return { out: target, bytes: zip.length, files: Object.keys(text).sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { build, args } = buildFlag(process.argv.slice(2));
    const options = optionsFromArgs(args);
    if (options.help) {
      console.log(usageText('npm run h5p --', USAGE));
      process.exit(0);
    }
    if (build) prepareSite();
    const { out, bytes, files } = await buildH5p(options);
    const asks = options.ask === 'none' ? '; asks none' : options.ask ? `; asks ${options.ask}` : '';
    console.log(`${resolve(out)}: ${(bytes / 1024).toFixed(1)} KiB, ${files.length} files (H5P${asks})`);
  } catch (err) {
    console.error(`h5p: ${err.message}`);
    process.exit(1);
  }
}
