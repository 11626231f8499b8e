// attention-geometry: one JS API over two WebAssembly builds of the kernels.
//   const ag = await init();          // SIMD build when the engine has SIMD
//   ag.dot([3, 4], [4, 3]);           // 24
// See index.d.ts for every method, its shapes, defaults and errors. The .wasm
// files are loaded from wasm/ beside this file (bundlers copy them) unless
// init's options say otherwise.
import { checkArgumentCount } from './checks.js';
import { initFrom } from './init-core.js';
import { SEPARATE_WASM } from './wasm-files.js';

/**
 * Loads a module and returns an instance of the API. See index.d.ts.
 * @param {import('./index.js').InitOptions} [options]
 */
export async function init(options = {}) {
  checkArgumentCount('init', 1, arguments);
  return initFrom(options, SEPARATE_WASM);
}

export default init;
