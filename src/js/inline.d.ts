/**
 * attention-geometry/inline: the same API as `attention-geometry`, with each
 * `.wasm` inside its JavaScript module, so nothing is fetched. For bundlers
 * that do not copy assets (esbuild). See {@link init}.
 * @module attention-geometry/inline
 */
export * from './index.js';
export { default } from './index.js';
