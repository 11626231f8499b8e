// Why a widget's files did not load, told to the reader of a widget (who
// never calls init() and so is not told about its options).
//
// The WebAssembly module:
// - no WebAssembly in this browser, or a page opened from disk: the usual
//   advice (a current browser, a web server; in the offline file and the H5P
//   content, that everything is inside them);
// - a .wasm file that cannot be fetched (HTTP 404, a network error): its URL,
//   and that the widgets find their files (wasm/, styles/, vendor/) beside the
//   module that defines them, so that folder must be served as it is. This is
//   what a widgets module bundled into an app meets: it looks for its files
//   beside the app's bundle, where they are not (docs/package.md, "In a
//   bundled app");
// - anything else: the usual advice and what the browser reported.
//
// A stylesheet of the widget's frame (its <link> fired `error`) while the
// module may well have loaded: the figure works, unstyled. Its URL, why (the
// HTTP status, when a fetch of it tells), and the same advice about the folder.
// The same of a site page's own stylesheet (shell/page-styles.js).
// A file inlined in the bundle (a data: URL) is named by its path.
//
// whyUnreachable and folderAdvice tell the same of the experiment worker's file
// (worker-client.js). The advice fits the bundle the widgets came in
// (globalThis.AG_BUNDLE, a constant each build defines): the npm package's
// dist/widgets/ (and docs/package.md), the site's own folder (the site, and the
// SCORM packages made from it), the offline single-file page (no folder: the
// file holds everything), or the H5P library's folder in the content package.
import { assetUrl, inlinedPath, wasmUrls } from './assets.js';
import { h } from './dom.js';

/**
 * The bundle the widgets came in, defined at build time as globalThis.AG_BUNDLE: 'package' (the npm package's
 * dist/widgets/, scripts/build.mjs buildPackageWidgets; also when undefined, as when the sources are bundled),
 * 'site' (the site, its embed page, a SCORM package made from it: buildSite), 'offline' (the single-file page,
 * scripts/offline.mjs) or 'h5p' (the H5P library's script, scripts/h5p.mjs).
 * @type {'package' | 'site' | 'offline' | 'h5p'}
 */
const BUNDLE = ['site', 'offline', 'h5p'].includes(globalThis.AG_BUNDLE) ? globalThis.AG_BUNDLE : 'package';

/** A data: URL inside a text (base64 or percent-encoded), as named() takes it. */
const DATA_URL = /data:[\w.+/-]*(?:;[\w=.+-]+)*,[\w+/=%.~-]*/g;

/**
 * What a Content-Security-Policy must allow for the module inlined in the offline file and the H5P content: the
 * bundle fetches its data: URL and compiles the bytes (web/widget/engine.js, src/js/load.js).
 */
const CSP_FOR_WASM =
  "'wasm-unsafe-eval' in script-src (to compile the module) and data: in connect-src (to read it, inlined as a " +
  'data: URL)';

/** What usually helps when the module did not load for no reason a fetch tells, in each bundle. */
const SERVED_ADVICE =
  'Opening the page through a web server (not from disk), using a current browser, or reloading usually helps.';
const USUAL_ADVICE = {
  package: SERVED_ADVICE,
  site: SERVED_ADVICE,
  offline:
    'This file holds everything the figures need (no other file, no web server). A browser without WebAssembly, ' +
    'a setting or extension that blocks it or the data: URLs inside the file, or a Content-Security-Policy sent ' +
    `with the file that does not allow ${CSP_FOR_WASM}, stops them. Opening the file in a current browser with ` +
    'nothing blocked, or reloading, usually helps.',
  h5p:
    'Everything the figures need is inside this H5P content. A browser without WebAssembly, a setting or ' +
    'extension that blocks it, or a Content-Security-Policy of the platform that does not allow ' +
    `${CSP_FOR_WASM}, stops them: the platform must allow those; a current browser, or reloading, helps otherwise.`,
}[BUNDLE];

/**
 * The .wasm URL that the server did not deliver, with why, from init()'s
 * Error: its cause holds the URL fetched and the HTTP status (null when no
 * response came: a network error) when fetching was what failed (load.js,
 * fetchFailure). null for any other failure, or a URL that is not http(s).
 * @returns {{ url: string, reason: string } | null}
 */
function unreachableWasm(err) {
  const cause = err?.cause;
  if (typeof cause?.url !== 'string' || cause.status === undefined) return null;
  if (!/^https?:$/.test(new URL(cause.url).protocol)) return null;
  if (cause.status === null) return { url: cause.url, reason: `the request failed (${cause.message})` };
  return { url: cause.url, reason: `the server answered HTTP ${cause.status}` };
}

/**
 * Why the server does not deliver `url`: "the server answered HTTP 404", "the
 * request failed (...)"; null when it does, or when `url` is not http(s).
 * @returns {Promise<string | null>}
 */
export async function whyUnreachable(url) {
  if (!/^https?:$/.test(new URL(url).protocol)) return null;
  try {
    const response = await fetch(url, { cache: 'no-store' });
    await response.body?.cancel();
    return response.ok ? null : `the server answered HTTP ${response.status}`;
  } catch (err) {
    return `the request failed (${err && err.message ? err.message : String(err)})`;
  }
}

/** Where the widgets' files must be, and how to serve them so (after "For <url> <reason>."), in this bundle. */
export function folderAdvice() {
  const files = 'The widgets load their files (wasm/, styles/, vendor/, experiment-worker.js)';
  const lead = `${files} from the folder of the module that defines them, here ${assetUrl('').href}`;
  switch (BUNDLE) {
    case 'site':
      return `${lead}, the folder this page came from: serve that folder as it is, with its styles/, wasm/ and vendor/ beside the page.`;
    case 'offline':
      return (
        `${files} from inside this file, as data: URLs: there is no folder to serve. A browser without ` +
        'WebAssembly, or a setting or extension that blocks data: URLs, stops them: open the file in a current ' +
        'browser with nothing blocked, or download it again.'
      );
    case 'h5p':
      return (
        `${files} from inside the library's script, attention-geometry.js, in the H5P.AttentionGeometry library's ` +
        'folder of the content package, as data: URLs: the platform must serve that folder as the package holds ' +
        'it (upload the .h5p again, or update the library) and allow data: URLs (in a Content-Security-Policy: ' +
        'style-src, font-src, connect-src and worker-src).'
      );
    default:
      return (
        `${lead}: serve the package's dist/widgets/ folder as it is and load widgets.js ` +
        'from it, not from a bundle of your own (see "In a bundled app" in docs/package.md of attention-geometry).'
      );
  }
}

/**
 * What a widget (or the site page's error panel, `of` 'this page') shows when the module did not load: a
 * headline, the advice that fits the failure and the bundle, and a detail (the URL that failed, or what the
 * browser reported, each data: URL in it named, never printed whole).
 * @param {unknown} err the rejection of getEngine()
 * @param {string} [of] what has no numbers, in the headline
 * @returns {{ headline: string, advice: string, detailLabel: string, detail: string }}
 */
export function describeLoadFailure(err, of = 'this figure') {
  const reported = String(err?.cause?.message ?? err?.message ?? err).replace(DATA_URL, named);
  const usual = {
    headline: `The WebAssembly module did not load, so ${of} has no numbers.`,
    advice: `Every number here is computed by that module. ${USUAL_ADVICE}`,
    detailLabel: 'What the browser reported: ',
    detail: reported,
  };
  if (typeof WebAssembly !== 'object' || new URL(wasmUrls().simd).protocol === 'file:') return usual;
  const missing = unreachableWasm(err);
  if (!missing) return usual;
  return {
    headline: `The WebAssembly module could not be fetched, so ${of} has no numbers.`,
    advice: `For ${missing.url} ${missing.reason}. ${folderAdvice()}`,
    detailLabel: 'URL tried: ',
    detail: missing.url,
  };
}

/**
 * The event a widget dispatches (bubbling, composed, cancelable; detail `{ url }`) when a stylesheet of its frame
 * did not load. A site page (shell/page-styles.js) cancels it and names the URL in its own message, once for all
 * its widgets; no one cancels it on another page, and the widget names the sheet itself.
 */
export const STYLE_FAILURE_EVENT = 'ag-stylefailure';

/**
 * What a widget shows when stylesheets of its frame did not load (`urls`, in
 * the order they failed), or a site page when its own did (`of` 'this page'):
 * a headline, the advice for the first (its HTTP status when a fetch tells
 * it, and where the widgets' files must be), and every URL that failed as the
 * detail.
 * @param {string[]} urls
 * @param {string} [of] what the stylesheets belong to, in the headline
 * @param {string} [shown] 'it is' or 'they are': how what they belong to is shown without them
 * @returns {Promise<{ headline: string, advice: string, detailLabel: string, detail: string }>}
 */
export async function describeStyleFailure(urls, of = 'this figure', shown = 'it is') {
  const [first] = urls;
  const reason = (await whyUnreachable(first).catch(() => null)) ?? 'the browser could not load it';
  const several = urls.length > 1;
  return {
    headline: `${several ? `${urls.length} stylesheets` : 'A stylesheet'} of ${of} could not be loaded, so ${shown} shown without ${several ? 'their' : 'its'} styles.`,
    advice: `For ${named(first)} ${reason}. ${folderAdvice()}`,
    detailLabel: several ? 'URLs tried: ' : 'URL tried: ',
    detail: urls.map(named).join(' '),
  };
}

/** The contents of a message for a failure described above: headline, advice, detail. */
export const failureText = (failure) => [
  h('strong', {}, failure.headline),
  ` ${failure.advice}`,
  h('br'),
  failure.detailLabel,
  h('code', { dataset: { role: 'error-detail' } }, failure.detail),
];

/**
 * A URL as a message names it: a file inlined in the bundle by its path ("styles/widget.css (inlined)"), another
 * data: URL (the offline page's own stylesheet) by its type, never its whole text.
 */
function named(url) {
  const path = inlinedPath(url);
  if (path !== null) return `${path} (inlined)`;
  return url.startsWith('data:') ? `a file inlined as a data: URL (${url.slice(0, url.indexOf(','))})` : url;
}
