// The site's files inlined as data: URLs, keyed by their path in the site
// build (e.g. 'wasm/ag-simd.wasm'), for the single-file offline page. Empty in
// the normal build; scripts/offline.mjs replaces this module with the filled
// table when it bundles the offline page, so assetUrl() is the one place that
// decides where a file comes from.
export const INLINED_ASSETS = null;
