// Locating and instantiating one of the two wasm builds, chosen before
// instantiation: ag-simd (scalar and simd128 kernel variants) or ag-scalar (the
// baseline build for engines without 128-bit SIMD). The .wasm is found next to
// this file (dist/wasm/) unless options say otherwise. We instantiate through
// the glue's `instantiateWasm` hook, so we hold the memory object and can
// report a missing file with the URL that was tried. The one exception is the
// glue with the .wasm inside it (the package's "inline" entry): it
// instantiates its own embedded bytes.

import { describeValue, messageOf } from './errors.js';

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

const isNode =
  typeof process === 'object' &&
  process !== null &&
  typeof process.versions?.node === 'string' &&
  typeof window === 'undefined';

// Whether `b` has the internal slots of `Type` (ArrayBuffer or
// SharedArrayBuffer): its byteLength getter throws on anything else. Unlike
// instanceof, this holds for a buffer made in another realm (an iframe,
// node:vm), and unlike Symbol.toStringTag it cannot be imitated.
const byteLengthOf = (Type) =>
  typeof Type === 'function' ? Object.getOwnPropertyDescriptor(Type.prototype, 'byteLength')?.get : undefined;
const ARRAY_BUFFER_LENGTH = byteLengthOf(ArrayBuffer);
const SHARED_BUFFER_LENGTH = byteLengthOf(globalThis.SharedArrayBuffer);
function hasBrand(getter, b) {
  if (!getter || b === null || typeof b !== 'object') return false;
  try {
    getter.call(b);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `b` is bytes: an ArrayBuffer, a SharedArrayBuffer (where the page
 * has one) or a view of either, from this realm or another.
 */
export function isBytes(b) {
  return ArrayBuffer.isView(b) || hasBrand(ARRAY_BUFFER_LENGTH, b) || hasBrand(SHARED_BUFFER_LENGTH, b);
}

// The href getter of URL: it throws on anything that is not a URL, of this
// realm or another (an iframe's URL fails instanceof).
const URL_HREF = typeof URL === 'function' ? Object.getOwnPropertyDescriptor(URL.prototype, 'href')?.get : undefined;

/** Whether `u` is a URL object, from this realm or another (not an imitation: no instanceof). */
export function isUrl(u) {
  return hasBrand(URL_HREF, u);
}

// The entry of a per-build option ({simd, scalar}) for `build`; undefined
// when the object has none (then the next way of locating the file is used).
function perBuild(value, build) {
  const isObject = value !== null && typeof value === 'object' && !isUrl(value) && !isBytes(value);
  return isObject ? value[build] : value;
}

const fileNameOf = (build) => (build === 'simd' ? 'ag-simd.wasm' : 'ag-scalar.wasm');

/**
 * Which option gives the .wasm of `build`, in the order loadBuild follows:
 * options.wasmBinary (bytes, or the entry for this build of {simd, scalar}),
 * else options.wasmUrl (the same), else options.locateFile, else the default
 * location. { option: 'wasmBinary' | 'wasmUrl' | 'locateFile' | null,
 * given: its name for messages, forBoth: one value given for both builds }.
 */
export function wasmSourceOf(build, options) {
  for (const option of ['wasmBinary', 'wasmUrl']) {
    const value = options[option];
    const entry = perBuild(value, build);
    if (entry === undefined) continue;
    return entry === value
      ? { option, given: `options.${option}`, forBoth: true }
      : { option, given: `options.${option}.${build}`, forBoth: false };
  }
  if (typeof options.locateFile === 'function')
    return { option: 'locateFile', given: `options.locateFile('${fileNameOf(build)}')`, forBoth: false };
  return { option: null, given: `its default location (wasm/${fileNameOf(build)} beside the package)`, forBoth: false };
}

// The URL of the .wasm of `build` when `from` (wasmSourceOf) is not bytes:
// options.wasmUrl, what options.locateFile returns, or the default location.
// A relative URL resolves against the page in browsers and against the
// current working directory in Node (as a path given to node:fs would); with
// neither (a runtime without a page address), against the package's own
// wasm file. No bare import.meta.url here: bundlers such as webpack replace
// it with the bundling machine's absolute file:// path.
async function resolveUrl(build, options, source, from) {
  if (from.option === null) return { url: source.defaultUrl(build), how: 'the default location next to the package' };
  let url;
  if (from.option === 'wasmUrl') url = perBuild(options.wasmUrl, build);
  else {
    try {
      url = options.locateFile(fileNameOf(build));
    } catch (e) {
      throw new Error(`init: options.locateFile('${fileNameOf(build)}') threw: ${messageOf(e)}`, { cause: e });
    }
    if (!((typeof url === 'string' && url !== '') || isUrl(url))) {
      throw new TypeError(
        `init: options.locateFile('${fileNameOf(build)}') must return a non-empty string or a URL; got ${describeValue(url)}`,
      );
    }
  }
  const how = `options.${from.option}`;
  const cwd = isNode ? (await readerOfFiles())?.cwdUrl?.() : null;
  const base =
    cwd ??
    (typeof document === 'object' && document?.baseURI
      ? document.baseURI
      : (globalThis.location?.href ?? source.defaultUrl(build) ?? undefined));
  try {
    return { url: new URL(String(url), base), how };
  } catch {
    throw new TypeError(
      `init: ${how} gave '${String(url)}', which is not a URL, and there is no page address to resolve it against; pass an absolute URL`,
    );
  }
}

// '#read-file' is the package's subpath import (package.json "imports"): with
// the "node" condition it reads file: URLs from disk; with any other it is
// empty, so browser bundlers never see node:fs. Imported only under Node (a
// browser loading this file unbundled never asks for it).
let fileReader = null;
function readerOfFiles() {
  if (!isNode) return Promise.resolve(null);
  fileReader ??= import('#read-file');
  return fileReader;
}

/**
 * Why a .wasm could not be fetched (init's Error has it as its cause): an Error whose message is the
 * HTTP status line ("HTTP 404 Not Found") or, when no response came (a network error), the message of
 * the fetch's own error, kept as its cause; with `url` (the URL fetched, a string) and `status` (the
 * HTTP status, or null when no response came), so that a caller tells a missing file from other
 * failures without fetching it again (web/widget/load-failure.js).
 */
function fetchFailure(url, status, message, cause) {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { url: url.href, status });
}

async function readBytes(url, readFileUrl) {
  if (readFileUrl) return readFileUrl(url);
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw fetchFailure(url, null, messageOf(e), e);
  }
  if (!response.ok) throw fetchFailure(url, response.status, `HTTP ${response.status} ${response.statusText}`);
  return response.arrayBuffer();
}

async function instantiate(url, imports, bytes) {
  // Any ArrayBufferView is accepted as bytes; WebAssembly.instantiate takes
  // an ArrayBuffer or a typed array, not a DataView nor a bare
  // SharedArrayBuffer: always the same bytes as a Uint8Array (no instanceof,
  // which a view or buffer from another realm fails).
  if (bytes) {
    const source = ArrayBuffer.isView(bytes)
      ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      : new Uint8Array(bytes);
    return WebAssembly.instantiate(source, imports);
  }
  const readFileUrl = url.protocol === 'file:' ? (await readerOfFiles())?.readFileUrl : null;
  if (!readFileUrl && typeof WebAssembly.instantiateStreaming === 'function') {
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
  return WebAssembly.instantiate(await readBytes(url, readFileUrl), imports);
}

/** The memory among a module's exports (release builds minify export names: found by its kind). */
function memoryOf(exports) {
  return Object.values(exports ?? {}).find((e) => e instanceof WebAssembly.Memory) ?? null;
}

/**
 * Loads one build. Resolves to { module, memory(), build, from } (from: where
 * its .wasm came from, wasmSourceOf's answer) or rejects with an Error naming
 * the URL tried and the options that fix it.
 * @param {'simd'|'scalar'} build
 * @param {object} options init's options
 * @param {{ inline: boolean, importGlue(build): Promise<object>, defaultUrl(build): URL }} source
 *   the glue modules (wasm-files.js, or the inline entry's) and the default URL of each .wasm
 */
export async function loadBuild(build, options, source) {
  const glue = await source.importGlue(build);
  const factory = glue.default;
  // Bytes or a URL for this build; an object ({simd, scalar}) without an entry
  // for it falls back to the next way (init-core.js checked the kinds).
  const from = wasmSourceOf(build, options);
  if (source.inline && from.option === null) return { ...(await loadInline(build, factory)), from };
  const bytes = from.option === 'wasmBinary' ? perBuild(options.wasmBinary, build) : null;
  const { url, how } = bytes
    ? { url: null, how: 'options.wasmBinary' }
    : await resolveUrl(build, options, source, from);
  let memory = null;
  let failure = null;
  let rejectLoad;
  const failed = new Promise((_, reject) => {
    rejectLoad = reject;
  });
  const where = () => (bytes ? `from options.wasmBinary` : `from ${url.href} (located by ${how})`);
  // The Error's cause is what the fetch or the compiler threw, when something did.
  const helpful = (reason, cause) =>
    new Error(
      `attention-geometry: could not load the WebAssembly module ag-${build}.wasm ${where()}: ${reason}. ` +
        (bytes
          ? `Pass the bytes of the package's wasm/ag-${build}.wasm as options.wasmBinary.`
          : 'Serve the wasm/ folder next to index.js, or tell init() where the file is with ' +
            'options.locateFile(name), options.wasmUrl or options.wasmBinary (the bytes).'),
      cause === undefined ? undefined : { cause },
    );
  const modulePromise = factory({
    instantiateWasm(imports, receive) {
      instantiate(url, imports, bytes).then(
        ({ instance, module }) => {
          memory = memoryOf(instance.exports);
          // A module that compiles but is not one of this package's (no
          // memory, other exports) would throw inside the glue, where no
          // promise catches it: refused here instead.
          if (!memory) {
            rejectLoad(helpful("it is not one of this package's modules (it exports no memory)"));
            return;
          }
          try {
            receive(instance, module);
          } catch (e) {
            rejectLoad(helpful(`it is not one of this package's modules (${e && e.message ? e.message : String(e)})`));
          }
        },
        (e) => {
          failure = helpful(e && e.message ? e.message : String(e), e);
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
  return { module, memory: () => memory, build, from };
}

/** A glue with its .wasm inside (-sSINGLE_FILE) instantiates the embedded bytes itself. */
async function loadInline(build, factory) {
  let module;
  try {
    module = await factory({ print: () => {}, printErr: () => {} });
  } catch (e) {
    throw new Error(
      `attention-geometry: could not instantiate the WebAssembly module ag-${build} embedded in the inline entry: ${e && e.message ? e.message : String(e)}`,
      { cause: e },
    );
  }
  const memory = memoryOf(module.asm);
  if (!memory) throw new Error(`attention-geometry: the inline module ag-${build} did not export its memory`);
  return { module, memory: () => memory, build };
}

export { isNode };
