// Where the main entry's two builds come from: the glue modules in wasm/ and
// the .wasm files beside them. Literal URLs and import paths, so that bundlers
// (Vite, webpack) find the files and emit them with the app.
export const SEPARATE_WASM = Object.freeze({
  inline: false,
  importGlue: (build) => (build === 'simd' ? import('./wasm/ag-simd.mjs') : import('./wasm/ag-scalar.mjs')),
  defaultUrl: (build) =>
    build === 'simd'
      ? new URL('./wasm/ag-simd.wasm', import.meta.url)
      : new URL('./wasm/ag-scalar.wasm', import.meta.url),
});
