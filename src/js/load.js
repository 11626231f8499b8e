// Locating and instantiating one of the two wasm builds, chosen before
// instantiation: ag-simd (scalar and simd128 kernel variants) or ag-scalar (the
// baseline build for engines without 128-bit SIMD). The .wasm is found next to
// this file (dist/wasm/) unless options say otherwise. We always instantiate
// through the glue's `instantiateWasm` hook, so we hold the memory object and
// can report a missing file with the URL that was tried.

// The smallest module that uses 128-bit SIMD (the probe of wasm-feature-detect):
// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)).
// WebAssembly.validate says whether the engine decodes SIMD at all.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** Whether this engine validates a module with 128-bit SIMD instructions. */
export function engineHasSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string' && typeof window === 'undefined';

function defaultUrl(build) {
  // Literal URLs so that bundlers find and emit the files.
  return build === 'simd'
    ? new URL('./wasm/ag-simd.wasm', import.meta.url)
    : new URL('./wasm/ag-scalar.wasm', import.meta.url);
}

function importGlue(build) {
  return build === 'simd' ? import('./wasm/ag-simd.mjs') : import('./wasm/ag-scalar.mjs');
}

function resolveUrl(build, options) {
  const fileName = build === 'simd' ? 'ag-simd.wasm' : 'ag-scalar.wasm';
  let url;
  let how;
  if (options.wasmUrl !== undefined) {
    url = typeof options.wasmUrl === 'object' && options.wasmUrl !== null && !(options.wasmUrl instanceof URL) ? options.wasmUrl[build] : options.wasmUrl;
    how = 'options.wasmUrl';
  } else if (typeof options.locateFile === 'function') {
    url = options.locateFile(fileName);
    how = 'options.locateFile';
  } else {
    return { url: defaultUrl(build), how: 'the default location next to the package' };
  }
  if (url === undefined || url === null) throw new TypeError(`init: ${how} gave no URL for ${fileName}`);
  const base = typeof document === 'object' && document?.baseURI ? document.baseURI : globalThis.location?.href ?? import.meta.url;
  return { url: new URL(String(url), base), how };
}

async function readBytes(url) {
  if (isNode && url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
  return response.arrayBuffer();
}

async function instantiate(url, imports, bytes) {
  if (bytes) return WebAssembly.instantiate(bytes, imports);
  if (!(isNode && url.protocol === 'file:') && typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      return await WebAssembly.instantiateStreaming(response, imports);
    } catch {
      // Streaming fails on servers that send the wrong MIME type: fall back
      // to fetch -> arrayBuffer -> instantiate below (which reports a real
      // network error again, with its reason).
    }
  }
  return WebAssembly.instantiate(await readBytes(url), imports);
}

/**
 * Loads one build. Resolves to { module, memory(), build } or rejects with an
 * Error naming the URL tried and the options that fix it.
 * @param {'simd'|'scalar'} build
 */
export async function loadBuild(build, options) {
  const glue = await importGlue(build);
  const factory = glue.default;
  let bytes = null;
  if (options.wasmBinary !== undefined) {
    const b = options.wasmBinary;
    const pick = b && typeof b === 'object' && !ArrayBuffer.isView(b) && !(b instanceof ArrayBuffer) ? b[build] : b;
    if (!(pick instanceof ArrayBuffer || ArrayBuffer.isView(pick))) {
      throw new TypeError(`init: options.wasmBinary must be the bytes of ag-${build}.wasm (ArrayBuffer or Uint8Array), or {simd, scalar} bytes`);
    }
    bytes = pick;
  }
  const { url, how } = bytes ? { url: null, how: 'options.wasmBinary' } : resolveUrl(build, options);
  let memory = null;
  let failure = null;
  let rejectLoad;
  const failed = new Promise((_, reject) => {
    rejectLoad = reject;
  });
  const where = () =>
    bytes
      ? `from options.wasmBinary`
      : `from ${url.href} (located by ${how})`;
  const helpful = (reason) =>
    new Error(
      `attention-geometry: could not load the WebAssembly module ag-${build}.wasm ${where()}: ${reason}. ` +
        'Serve the wasm/ folder next to index.js, or tell init() where the file is with ' +
        'options.locateFile(name), options.wasmUrl or options.wasmBinary (the bytes).',
    );
  const modulePromise = factory({
    instantiateWasm(imports, receive) {
      instantiate(url, imports, bytes).then(
        ({ instance, module }) => {
          // Release builds minify export names: find the memory by its kind.
          memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory) ?? null;
          receive(instance, module);
        },
        (e) => {
          failure = helpful(e && e.message ? e.message : String(e));
          rejectLoad(failure);
        },
      );
      return {};
    },
    print: () => {},
    printErr: () => {},
  });
  const module = await Promise.race([modulePromise, failed]);
  if (!memory) throw helpful('the module did not export its memory');
  return { module, memory: () => memory, build };
}

export { isNode };
