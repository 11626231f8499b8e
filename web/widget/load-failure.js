// Why the WebAssembly module did not load, told to the reader of a widget
// (who never calls init() and so is not told about its options):
// - no WebAssembly in this browser, or a page opened from disk: the usual
//   advice (a current browser, a web server);
// - a .wasm file that cannot be fetched (HTTP 404, a network error): its URL,
//   and that the widgets find their files (wasm/, styles/, vendor/) beside the
//   module that defines them, so that folder must be served as it is. This is
//   what a widgets module bundled into an app meets: it looks for its files
//   beside the app's bundle, where they are not (docs/package.md, "In a
//   bundled app");
// - anything else: the usual advice and what the browser reported.
import { assetUrl, wasmUrls } from './assets.js';

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
  const folder = assetUrl('').href;
  return {
    headline: 'The WebAssembly module could not be fetched, so this figure has no numbers.',
    advice:
      `For ${missing.url} ${missing.reason}. The widgets load their files (wasm/, styles/, vendor/) from ` +
      `the folder of the module that defines them, here ${folder}: serve the package's dist/widgets/ ` +
      'folder as it is and load widgets.js from it, not from a bundle of your own ' +
      '(see "In a bundled app" in docs/package.md of attention-geometry).',
    detailLabel: 'URL tried: ',
    detail: missing.url,
  };
}
