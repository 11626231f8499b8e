// Reading a file: URL from disk, where there is a disk. This is the variant
// for browsers, workers and bundled apps (package.json "imports", condition
// "default"): nothing to read, so the .wasm is always fetched. load.js asks for
// it only under Node; bundlers resolve it to this file.
export const readFileUrl = null;

/** No working directory: relative URLs resolve against the page. */
export const cwdUrl = () => null;
