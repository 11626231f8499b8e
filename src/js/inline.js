// attention-geometry/inline: the same API as the main entry, with each .wasm
// inside its glue module (built with -sSINGLE_FILE, base64). Nothing is
// fetched, so it works in bundlers that do not copy assets (esbuild) and from
// any file or URL. It weighs more than the separate .wasm (docs/sizes.md gives
// measured sizes).
import { checkArgumentCount } from './checks.js';
import { initFrom } from './init-core.js';

const INLINE_WASM = Object.freeze({
  inline: true,
  importGlue: (build) =>
    build === 'simd' ? import('./wasm/ag-simd-inline.mjs') : import('./wasm/ag-scalar-inline.mjs'),
  // There is no file beside the package to fall back on: init({ wasmUrl }),
  // init({ locateFile }) and init({ wasmBinary }) still load a separate .wasm.
  defaultUrl: () => null,
});

/**
 * Loads a module and returns an instance of the API. See index.d.ts.
 * @param {import('./index.js').InitOptions} [options]
 */
export async function init(options = {}) {
  checkArgumentCount('init', 1, arguments);
  return initFrom(options, INLINE_WASM);
}

export default init;
