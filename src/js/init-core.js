// init() itself, for both entries of the package: checks the options, picks
// the build (SIMD when the engine has it), loads it from the given source (the
// separate .wasm files, or the glue with the .wasm inside) and returns the API.
import { AttentionGeometry } from './api.js';
import { describeValue, messageOf } from './errors.js';
import { withBuffers } from './heap.js';
import { engineHasSimd, isBytes, isUrl, loadBuild } from './load.js';

// Known-answer check of the simd128 path after instantiation: the dot product
// of (0, 1, ..., 16) with itself is 1496, exact in float32 for any summation
// order; 17 elements exercise the vector loop and the remainder.
function simdWorks(rt) {
  try {
    const x = new Float32Array(17).map((_, i) => i);
    const r = withBuffers(rt, 'init', { a: { data: x } }, ({ a }) => rt.module.dot__simd128(a, a, 17));
    return rt.module.simd() === true && r === 1496;
  } catch {
    return false;
  }
}

/** The keys init() reads; any other is a TypeError (a misspelt option would do nothing). */
const INIT_OPTIONS = ['simd', 'variant', 'locateFile', 'wasmUrl', 'wasmBinary', 'logCalls', 'onKernelCall'];

// The value of read(), or a TypeError naming `what` when reading it throws
// (a getter or a Proxy trap of the caller's), with the error as its cause.
function readOption(what, read) {
  try {
    return read();
  } catch (e) {
    throw new TypeError(`init: reading ${what} threw: ${messageOf(e)}`, { cause: e });
  }
}

/**
 * options.wasmUrl and options.wasmBinary: one value (for the build chosen), or
 * {simd, scalar} with either entry optional (a build without one is located
 * the default way). Throws a TypeError naming the entry and what it must be.
 * Returns the value, or a copy of {simd, scalar} whose entries were each read
 * once (a getter is not asked again later, when the file is loaded).
 */
function checkPerBuild(name, value, ok, wanted) {
  if (value === undefined || readOption(`options.${name}`, () => ok(value))) return value;
  // {simd, scalar} is a plain object: anything else that is not `wanted` (a
  // Proxy of a buffer, an object made from ArrayBuffer.prototype, an array)
  // would otherwise be read as an object without entries, and the file
  // loaded from its default location instead of what was given. A plain
  // object's prototype is an Object.prototype (of any realm) or null.
  const proto =
    value !== null && typeof value === 'object'
      ? readOption(`options.${name}`, () => Object.getPrototypeOf(value))
      : undefined;
  if (
    proto === undefined ||
    (proto !== null && readOption(`options.${name}`, () => Object.getPrototypeOf(proto)) !== null)
  ) {
    const made = readOption(`options.${name}`, () => {
      const maker = proto?.constructor;
      if (typeof maker === 'function' && maker.prototype === proto && maker.name)
        return ` (made from ${maker.name}.prototype)`;
      return proto ? ' (its prototype is not Object.prototype)' : '';
    });
    throw new TypeError(
      `init: options.${name} must be ${wanted}, or {simd, scalar} of those; got ${readOption(`options.${name}`, () => describeValue(value))}${made}`,
    );
  }
  for (const key of readOption(`options.${name}`, () => Object.keys(value))) {
    if (key !== 'simd' && key !== 'scalar') {
      throw new TypeError(
        `init: options.${name} has an unknown key '${key.slice(0, 40)}'; it must be ${wanted}, or an object with the keys simd and scalar`,
      );
    }
  }
  // simd and scalar read by name, each once, as the loader read them before
  // (an entry that is not enumerable, or inherited, still counts).
  const copy = {};
  for (const key of ['simd', 'scalar']) {
    const entry = readOption(`options.${name}.${key}`, () => value[key]);
    if (entry === undefined || entry === null) continue;
    if (!readOption(`options.${name}.${key}`, () => ok(entry))) {
      throw new TypeError(
        `init: options.${name}.${key} must be ${wanted}; got ${readOption(`options.${name}.${key}`, () => describeValue(entry))}`,
      );
    }
    copy[key] = entry;
  }
  return copy;
}

/**
 * Loads a module from `source` and returns an instance of the API. See index.d.ts.
 * @param {import('./index.js').InitOptions} options
 * @param {import('./wasm-files.js').SEPARATE_WASM} source where the glue and the .wasm come from
 */
export async function initFrom(options, source) {
  // null is absent, as undefined (index.d.ts, "Options"): for the options and for each of them.
  if (options === null) options = {};
  if (typeof options !== 'object') {
    throw new TypeError(`init: options must be an object; got ${typeof options}`);
  }
  for (const key of readOption('options', () => Object.keys(options))) {
    if (!INIT_OPTIONS.includes(key)) {
      throw new TypeError(
        `init: unknown option '${key.slice(0, 40)}'; the known options are ${INIT_OPTIONS.join(', ')}`,
      );
    }
  }
  // Each option read once, here: what is checked below is what is used (a
  // getter asked twice could answer differently the second time).
  const given = options;
  options = Object.fromEntries(
    INIT_OPTIONS.map((key) => [key, readOption(`options.${key}`, () => given[key]) ?? undefined]),
  );
  if (options.locateFile !== undefined && typeof options.locateFile !== 'function') {
    throw new TypeError(
      `init: options.locateFile must be a function (file name) => URL; got ${describeValue(options.locateFile)}`,
    );
  }
  // Called as a method of the options given, as before the copy (it may use `this`).
  if (options.locateFile) {
    const locate = options.locateFile;
    options.locateFile = (name) => locate.call(given, name);
  }
  if (options.logCalls !== undefined && typeof options.logCalls !== 'boolean') {
    throw new TypeError(`init: options.logCalls must be true or false; got ${describeValue(options.logCalls)}`);
  }
  // An empty string would resolve to the page or the working directory itself.
  options.wasmUrl = checkPerBuild(
    'wasmUrl',
    options.wasmUrl,
    (u) => (typeof u === 'string' && u !== '') || isUrl(u),
    'a non-empty string or a URL',
  );
  options.wasmBinary = checkPerBuild(
    'wasmBinary',
    options.wasmBinary,
    isBytes,
    'an ArrayBuffer, a SharedArrayBuffer or a typed array (the bytes of the .wasm)',
  );
  const simd = options.simd ?? 'auto';
  if (simd !== 'auto' && simd !== true && simd !== false)
    throw new TypeError(`init: options.simd must be 'auto', true or false; got ${describeValue(simd)}`);
  const variant = options.variant;
  if (variant !== undefined && variant !== 'simd128' && variant !== 'scalar') {
    throw new TypeError(`init: options.variant must be 'simd128' or 'scalar'; got ${describeValue(variant)}`);
  }
  if (options.onKernelCall !== undefined && typeof options.onKernelCall !== 'function') {
    throw new TypeError('init: options.onKernelCall must be a function');
  }
  if (simd === true && !engineHasSimd()) {
    throw new Error(
      'init: options.simd is true but this engine does not support 128-bit WebAssembly SIMD; use simd: false or "auto"',
    );
  }
  if (simd === false && variant === 'simd128') {
    throw new RangeError(
      "init: options.variant 'simd128' needs the SIMD build; the baseline build (simd: false) has only 'scalar'",
    );
  }
  let build = simd === false || (simd === 'auto' && !engineHasSimd()) ? 'scalar' : 'simd';
  let rt = await loadBuild(build, options, source);
  if (build === 'simd' && simd === 'auto' && !simdWorks(rt)) {
    // The module loaded for the SIMD build is the baseline one. One .wasm
    // given for both builds (bytes or a URL, not {simd, scalar}) may be
    // either, and is then simply the baseline build; given for the SIMD
    // build itself, it is the wrong file, and falling back to the baseline
    // build from elsewhere would hide that.
    const { from } = rt;
    if (typeof rt.module.simd === 'function' && rt.module.simd() === false && !from.forBoth) {
      throw new Error(
        `init: options.simd = 'auto' chose the SIMD build, ag-simd.wasm (this engine supports SIMD), but the module given by ${from.given} ` +
          `for it is ag-scalar.wasm; give ag-simd.wasm there instead, or pass simd: false for the baseline build`,
      );
    }
    build = 'scalar';
    rt = await loadBuild(build, options, source);
  }
  // Bytes or a URL of the other build's .wasm load (the two glues accept
  // either) but leave the glue without its kernels: refused here, not at
  // the first call.
  const loadedSimd = typeof rt.module.simd === 'function' ? rt.module.simd() === true : build === 'simd';
  if (loadedSimd !== (build === 'simd')) {
    const [want, got] = build === 'simd' ? ['ag-simd.wasm', 'ag-scalar.wasm'] : ['ag-scalar.wasm', 'ag-simd.wasm'];
    const given = rt.from.given;
    const asked =
      simd === 'auto'
        ? `options.simd = 'auto' fell back to the baseline build, ${want},`
        : `options.simd = ${String(simd)} asks for ${want} (the ${build === 'simd' ? 'SIMD' : 'baseline'} build),`;
    throw new Error(
      `init: ${asked} but the module given by ${given} for it is ${got}; give ${want} there instead` +
        (simd === 'auto'
          ? `, and ag-simd.wasm for the SIMD build (as { simd, scalar })`
          : `, or one of each as { simd, scalar }, or leave simd on 'auto'`),
    );
  }
  if (build === 'scalar' && variant === 'simd128') {
    throw new RangeError(
      "init: options.variant 'simd128' was asked for, but this engine got the baseline build, which has only 'scalar'",
    );
  }
  const kernels = JSON.parse(rt.module.registry());
  return new AttentionGeometry(rt, {
    build,
    variant: variant ?? (build === 'simd' ? 'simd128' : 'scalar'),
    kernels,
    callLog: options.logCalls === true,
    onKernelCall: options.onKernelCall,
  });
}
