// Why a widget's files did not load, told to the reader of a widget (who
// never calls init() and so is not told about its options).
//
// The WebAssembly module:
// - no WebAssembly in this browser, or a page opened from disk: the usual
//   advice (a current browser, a web server);
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
//
// whyUnreachable and folderAdvice tell the same of the experiment worker's file
// (worker-client.js). The folder advice fits where the page is: the npm
// package's dist/widgets/ (and docs/package.md), or the site's own folder (the
// site, and the SCORM packages made from it).
import { assetUrl, wasmUrls } from './assets.js';
import { h } from './dom.js';

const USUAL_ADVICE =
  'Opening the page through a web server (not from disk), using a current browser, or reloading usually helps.';

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

/**
 * Whether this is the site's own bundle (the site, its embed page, a SCORM package made from it): the site build
 * defines globalThis.AG_SITE_BUILD as true (scripts/build.mjs, buildSite). Its pages sit in the folder of its
 * files, which holds no dist/widgets/ and no docs/.
 */
const SITE_BUILD = globalThis.AG_SITE_BUILD === true;

/** Where the widgets' files must be, and how to serve them so (after "For <url> <reason>."). */
export function folderAdvice() {
  const lead =
    'The widgets load their files (wasm/, styles/, vendor/, experiment-worker.js) from the folder of the module ' +
    `that defines them, here ${assetUrl('').href}`;
  if (SITE_BUILD)
    return `${lead}, the folder this page came from: serve that folder as it is, with its styles/, wasm/ and vendor/ beside the page.`;
  return (
    `${lead}: serve the package's dist/widgets/ folder as it is and load widgets.js ` +
    'from it, not from a bundle of your own (see "In a bundled app" in docs/package.md of attention-geometry).'
  );
}

/**
 * What a widget shows when the module did not load: a headline, the advice
 * that fits the failure, and a detail (the URL that failed, or what the
 * browser reported).
 * @param {unknown} err the rejection of getEngine()
 * @returns {{ headline: string, advice: string, detailLabel: string, detail: string }}
 */
export function describeLoadFailure(err) {
  const reported = String(err?.cause?.message ?? err?.message ?? err);
  const usual = {
    headline: 'The WebAssembly module did not load, so this figure has no numbers.',
    advice: `Every number here is computed by that module. ${USUAL_ADVICE}`,
    detailLabel: 'What the browser reported: ',
    detail: reported,
  };
  if (typeof WebAssembly !== 'object' || new URL(wasmUrls().simd).protocol === 'file:') return usual;
  const missing = unreachableWasm(err);
  if (!missing) return usual;
  return {
    headline: 'The WebAssembly module could not be fetched, so this figure has no numbers.',
    advice: `For ${missing.url} ${missing.reason}. ${folderAdvice()}`,
    detailLabel: 'URL tried: ',
    detail: missing.url,
  };
}

/**
 * What a widget shows when stylesheets of its frame did not load (`urls`, in
 * the order they failed), or a site page when its own did (`of` 'this page'):
 * a headline, the advice for the first (its HTTP status when a fetch tells
 * it, and where the widgets' files must be), and every URL that failed as the
 * detail.
 * @param {string[]} urls
 * @param {string} [of] what the stylesheets belong to, in the headline
 * @returns {Promise<{ headline: string, advice: string, detailLabel: string, detail: string }>}
 */
export async function describeStyleFailure(urls, of = 'this figure') {
  const [first] = urls;
  const reason = (await whyUnreachable(first).catch(() => null)) ?? 'the browser could not load it';
  const several = urls.length > 1;
  return {
    headline: `${several ? `${urls.length} stylesheets` : 'A stylesheet'} of ${of} could not be loaded, so it is shown without ${several ? 'their' : 'its'} styles.`,
    advice: `For ${first} ${reason}. ${folderAdvice()}`,
    detailLabel: several ? 'URLs tried: ' : 'URL tried: ',
    detail: urls.join(' '),
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
