// Where the bundle's files are: the site build puts every chunk of the bundle
// at the root of the site folder, next to wasm/, styles/ and vendor/, so an
// asset's URL is relative to the module's own URL. Relative URLs only: the
// site works from any sub-path of any static server. The single-file offline
// page carries its files inside itself: there the path is looked up in the
// inlined table and the URL is a data: URL.
import { INLINED_ASSETS } from '../offline/inlined-assets.js';

const BASE = new URL('./', import.meta.url);

/** Whether this is the single-file offline page (its files inlined, no site folder beside it). */
export const SINGLE_FILE = INLINED_ASSETS != null;

/** URL of a file of the site build, e.g. assetUrl('styles/widget.css'). */
export function assetUrl(path) {
  const inlined = INLINED_ASSETS?.[path];
  return new URL(inlined ?? path, BASE);
}

/** The path of the inlined file whose data: URL is `url` (e.g. 'styles/widget.css'); null when it is none. */
export function inlinedPath(url) {
  if (!INLINED_ASSETS) return null;
  const found = Object.entries(INLINED_ASSETS).find(([, inlined]) => inlined === url);
  return found ? found[0] : null;
}

/** The URLs of the two wasm builds, in the form init({ wasmUrl }) takes. */
export function wasmUrls() {
  return { simd: assetUrl('wasm/ag-simd.wasm').href, scalar: assetUrl('wasm/ag-scalar.wasm').href };
}
