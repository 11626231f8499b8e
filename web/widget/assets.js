// Where the bundle's files are: the site build puts every chunk of the bundle
// at the root of the site folder, next to wasm/, styles/ and vendor/, so an
// asset's URL is relative to the module's own URL. Relative URLs only: the
// site works from any sub-path of any static server.
const BASE = new URL('./', import.meta.url);

/** URL of a file of the site build, e.g. assetUrl('styles/widget.css'). */
export function assetUrl(path) {
  return new URL(path, BASE);
}
