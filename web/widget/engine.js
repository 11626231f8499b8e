// The engine: one shared loader of the JS API for every widget on a page.
// Each implementation (the SIMD build with simd128 kernels, the SIMD build
// with scalar kernels, the baseline build) is initialised once, on first use,
// and shared. The page shell may switch the current implementation; widgets
// listen and recompute.
//
// Test mode (the page URL has agtest=1, or window.AG_TEST_MODE = true before
// the module loads): every kernel call of every instance is appended to
// window.__agCallLog ({ kernel, variant, args, result, calls, impl }), so a
// test can check that each number a widget shows came from the wasm module.
import { init } from '../../dist/index.js';
import { wasmUrls } from './assets.js';

export const IMPLEMENTATIONS = Object.freeze({
  simd128: { label: 'SIMD build, simd128 kernels', options: { simd: true, variant: 'simd128' } },
  scalar: { label: 'SIMD build, scalar kernels', options: { simd: true, variant: 'scalar' } },
  baseline: { label: 'Baseline build (no SIMD), scalar kernels', options: { simd: false } },
});

function readTestMode() {
  if (typeof window === 'undefined') return false;
  if (window.AG_TEST_MODE === true) return true;
  try {
    return new URLSearchParams(window.location.search).get('agtest') === '1';
  } catch {
    return false;
  }
}

export const testMode = readTestMode();
if (testMode && !Array.isArray(window.__agCallLog)) window.__agCallLog = [];

const instances = new Map(); // implementation id -> Promise<AttentionGeometry>
const listeners = new Set();
let first = null; // Promise of the first instance, chosen by 'auto'
let currentId = null;

// In a browser the wasm files are located by assetUrl() like every other file
// of the site (next to the bundle, or inlined in the offline single-file page).
const locate = typeof window === 'undefined' ? {} : { wasmUrl: wasmUrls() };

function load(id, options) {
  const label = { id }; // the auto-chosen instance learns its id after loading
  const logOptions = testMode
    ? { logCalls: true, onKernelCall: (call) => window.__agCallLog.push({ ...call, impl: label.id }) }
    : {};
  return init({ ...options, ...locate, ...logOptions }).then((ag) => {
    if (id === 'auto') label.id = idOf(ag);
    return ag;
  });
}

/** The id the auto-chosen first instance stands for. */
function idOf(ag) {
  return ag.backend === 'wasm-simd128' ? ag.variant : 'baseline';
}

/** Loads the default implementation (SIMD when the browser has it) once. Rejects when no module loads. */
function loadFirst() {
  if (!first) {
    first = (async () => {
      const ag = await load('auto', { simd: 'auto' });
      const id = idOf(ag);
      // Re-label the log entries of this instance with its real id.
      if (testMode) for (const entry of window.__agCallLog) if (entry.impl === 'auto') entry.impl = id;
      instances.set(id, Promise.resolve(ag));
      ag.__agImpl = id;
      if (currentId === null) currentId = id;
      return ag;
    })();
    first.catch(() => {
      first = null; // a later call may try again (e.g. after the network comes back)
    });
  }
  return first;
}

/**
 * The API instance of the current implementation (loads it the first time).
 * @returns {Promise<import('../../dist/index.js').AttentionGeometry>}
 */
export async function getEngine() {
  await loadFirst();
  return getImplementation(currentId);
}

/** The API instance of one implementation id. */
export async function getImplementation(id) {
  if (!IMPLEMENTATIONS[id]) throw new RangeError(`unknown implementation "${id}"`);
  await loadFirst();
  if (!instances.has(id)) {
    const p = load(id, IMPLEMENTATIONS[id].options).then((ag) => {
      ag.__agImpl = id;
      return ag;
    });
    instances.set(id, p);
    p.catch(() => instances.delete(id));
  }
  return instances.get(id);
}

/** Id and label of an instance, for "computed by" lines. */
export function describe(ag) {
  const id = ag.__agImpl ?? idOf(ag);
  return { id, label: `${IMPLEMENTATIONS[id]?.label ?? id} (${ag.backend})` };
}

/**
 * The implementations this browser can run, from the loaded module's kernel
 * registry (ag.kernels): the SIMD build's variants that every kernel offers,
 * then the baseline build, which runs anywhere.
 * @returns {Promise<{ defaultId: string, choices: { id: string, label: string }[] }>}
 */
export async function listImplementations() {
  const ag = await loadFirst();
  const defaultId = idOf(ag);
  const ids = [];
  if (ag.backend === 'wasm-simd128') {
    const perKernel = ag.kernels.filter((k) => !k.variants.includes('shared')).map((k) => k.variants);
    for (const v of ['simd128', 'scalar']) if (perKernel.every((variants) => variants.includes(v))) ids.push(v);
    if (!ids.includes(defaultId)) ids.unshift(defaultId);
  }
  ids.push('baseline');
  return { defaultId, choices: ids.map((id) => ({ id, label: IMPLEMENTATIONS[id].label })) };
}

export function currentImplementation() {
  return currentId;
}

/** Switches every widget on the page to implementation `id` (the shell's menu calls this). */
export async function setImplementation(id) {
  const ag = await getImplementation(id); // rejects, leaving the current one, if it cannot load
  currentId = id;
  for (const fn of listeners) fn(ag);
  return ag;
}

/** Calls fn(ag) whenever the current implementation changes. Returns an unsubscribe function. */
export function onEngineChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
