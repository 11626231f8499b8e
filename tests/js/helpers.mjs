// Shared by the JS suites: the three configurations every suite runs on, the
// test data (read from tests/data of this repository) and closeness checks.
import { readFileSync, readdirSync } from 'node:fs';
import { expect } from '@jest/globals';
import { init } from '../../dist/index.js';
import { abs } from '../reference/float64.mjs';

export { init };

/** Every suite runs once per configuration: both variants of the SIMD build, and the baseline build. */
export const CONFIGS = [
  {
    label: 'simd build, simd128 variant',
    options: { simd: true, variant: 'simd128' },
    backend: 'wasm-simd128',
    variant: 'simd128',
  },
  {
    label: 'simd build, scalar variant',
    options: { simd: true, variant: 'scalar' },
    backend: 'wasm-simd128',
    variant: 'scalar',
  },
  { label: 'baseline build (simd: false)', options: { simd: false }, backend: 'wasm-scalar', variant: 'scalar' },
];

/**
 * An instance of the configuration `cfg` after a first call, `warmUp(ag)`, and the bytes then in use on
 * its wasm heap, for a suite that checks that its calls leak nothing: the first call of a kernel may
 * allocate what later calls reuse, so the count to compare with is taken after it.
 * @returns {Promise<{ ag: object, heapBefore: number }>}
 */
export async function warmInstance(cfg, warmUp) {
  const ag = await init(cfg.options);
  warmUp(ag);
  return { ag, heapBefore: ag.heapAllocatedBytes() };
}

/** What `call()` throws, or null when it returns. */
export function thrownBy(call) {
  try {
    call();
  } catch (e) {
    return e;
  }
  return null;
}

const dataDir = new URL('../data/', import.meta.url);

export function readJson(relative) {
  return JSON.parse(readFileSync(new URL(relative, dataDir), 'utf8'));
}

export function listJson(folder) {
  return readdirSync(new URL(`${folder}/`, dataDir))
    .filter((f) => f.endsWith('.json'))
    .sort();
}

/** A data value of the ONNX/torch JSON files as a JS number (strings for non-finite values), float32-rounded. */
export function num(v) {
  if (v === '-Infinity') return -Infinity;
  if (v === 'Infinity') return Infinity;
  if (v === 'NaN') return NaN;
  return v;
}

/**
 * Asserts |got_i - want_i| <= tol_i for all i, and reports the first failure
 * with its index, both values and the tolerance.
 */
export function expectClose(got, want, tol, label = '') {
  const g = typeof got === 'number' ? [got] : Array.from(got);
  const w = typeof want === 'number' ? [want] : Array.from(want);
  expect(g.length).toBe(w.length);
  let bad = null;
  for (let i = 0; i < w.length; i++) {
    const t = typeof tol === 'function' ? tol(i, w[i]) : Array.isArray(tol) ? tol[i] : tol;
    const ok = Object.is(g[i], w[i]) || (w[i] === Infinity && g[i] === Infinity) || abs(g[i] - w[i]) <= t;
    if (!ok) {
      bad = { label, index: i, got: g[i], want: w[i], tol: t, diff: abs(g[i] - w[i]) };
      break;
    }
  }
  expect(bad).toBeNull();
}

/** Writes a list of skipped cases with their missing feature into the test output. */
export function reportSkipped(suite, skipped) {
  if (skipped.length === 0) {
    console.log(`${suite}: every case covered, none skipped`);
    return;
  }
  const lines = skipped.map(([name, why]) => `  - ${name}: ${why}`).join('\n');
  console.log(`${suite}: ${skipped.length} case(s) skipped (missing feature):\n${lines}`);
}
