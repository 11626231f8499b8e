// The page on an engine without WebAssembly SIMD: Chromium with V8's SSE4.1
// support off (--js-flags=--no-enable-sse4-1) refuses every module with SIMD
// instructions, in the page and its workers, as on a CPU without SSE4.1 (V8
// has no flag that turns wasm SIMD off alone). The page's own feature test
// (WebAssembly.validate of a SIMD probe) then picks the baseline build,
// ag-scalar.wasm. Every chapter of web/chapters.js is opened in one page per
// run and its numbers are compared with the SIMD build's simd128 kernels
// (within TOL below: the same digits, or one unit apart across a rounding
// boundary), with its scalar kernels (?impl=scalar) bit for bit (the same
// kernels compiled without SIMD; wasm float arithmetic is deterministic), and
// the seeded generator (AG_KERNEL_ONE in registry.inc) gives the same bits.
// The chapters of Part 4 open with their models untrained, at step 0 (nothing trains until the learner answers
// or presses Train): their numbers are a fresh model's forward pass (and, in scale-in-training, the gradient of
// W_Q on the first batch), the kernels composed as in any other chapter, so they are compared in the same way
// (measured: 35 u apart at most, that gradient of the unscaled model at d_k = 256; the accuracies the same).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { launchChromium, useEnv, waitReady, withPage } from './helpers.mjs';
import { readNumbers, U } from './shown-numbers.mjs';

// The probe of the page's feature test (src/js/load.js, from wasm-feature-detect):
// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)).
const SIMD_PROBE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
];
const NO_SIMD_ARGS = ['--js-flags=--no-enable-sse4-1'];

// Lighter settings (attributes set before the widgets start) for the widgets whose
// default experiments take seconds, so that three runs of the tour fit the time budget.
const LIGHT = {
  'ag-sqrt-d': { pairs: '1000' },
  'ag-near-orthogonal': { pairs: '2000' },
  'ag-greedy-packing': { cand: '5000', eps: '0.1' },
  'ag-attention-cost': { tmax: '512', dk: '64' },
};

// Tolerance between the simd128 and the scalar kernels. registry.inc bounds
// each reduction relative to the sum of |terms|: the scalar dot (2 ceil(log2 n)
// + 1) u, the simd128 GEMM (min(K, 256) + ceil(K/256)) u; at the page's longest,
// K = d_k = 4096 (scale-fix), 297 u apart, and softmax, entropy, the Jacobian
// and norms add a few u each. TOL = 1024 u relative to the larger value is over
// three times that and below one unit of the fourth significant digit (the
// page's states stay within about 120 u).
const TOL = 2 ** -14;

// Numbers that are themselves a rounding error (exactly 0 in exact
// arithmetic): no relative comparison means anything; both builds must
// stay within the documented bound of 0.
const RESIDUALS = {
  competition: {
    // Row i of J 1 with J the softmax Jacobian of the shown alpha: alpha_i
    // (1 - sum alpha) exactly, and sum alpha = 1 within (2 ceil(log2 4) + 5
    // + c) u = 11 u (softmax; c = 2 roundings for simd128's 1/sum and product,
    // 1 for the scalar division); each J_ij has at most 2 roundings (2 u |J_ij|);
    // the product by ones sums 4 terms, 5 u sum_j |J_ij| in both variants.
    'row-sum': (item, numbers) => {
      const alpha = numbers.find((n) => n.role === 'alpha' && n.key === item.key).value;
      const row = numbers
        .filter((n) => n.role === 'jacobian' && n.key.startsWith(`${item.key}-`))
        .map((n) => Math.abs(n.value));
      expect(row).toHaveLength(4);
      return (11 * U * alpha + 7 * U * row.reduce((s, x) => s + x, 0)) * (1 + 1e-6);
    },
  },
  cost: {
    // |Y_plain - Y_streaming|^2 over T x d_k entries (T = 512 here, d_k =
    // 64). Each path is within its bound of the exact output (registry:
    // attention), with D, the score error, the largest term: for the draws
    // of this chapter (seed 11: sum_c |q_c k_c| <= 75, |s| <= 5, |v| <= 4.7)
    // D <= 625 u on the simd128 path, so the two paths differ by less than
    // 2720 u * 4.7 < 2^-10 per entry, on either build.
    'squared-distance': (item) => Number(item.key) * 64 * 2 ** -20,
  },
};

// The chapter whose widget shows the steps of one kernel variant: with no
// SIMD it shows the scalar steps (and says so), so only the numbers both
// runs show are compared there.
const VARIANT_VIEW = 'simd';

const chapters = CHAPTERS.filter((c) => c.tag);
const variantTag = chapters.find((c) => c.id === VARIANT_VIEW)?.tag ?? null;

const env = useEnv();
let bare; // Chromium without wasm SIMD
beforeAll(async () => (bare = await launchChromium({ args: NO_SIMD_ARGS })));
afterAll(async () => bare?.close());

/** One run of the whole tour (simd, scalar: ?impl=scalar, or bare: without SIMD), started once and shared by the tests. */
const runs = {};
const run = (name) =>
  (runs[name] ??= tour(
    name === 'bare' ? bare : env.browser,
    name === 'scalar' ? '?agtest=1&impl=scalar' : '?agtest=1',
  ));

/**
 * Opens the page, then each chapter in turn: waits until its widget has
 * computed (and its experiment, if any, is done) and reads its numbers.
 * Returns the numbers per chapter, the implementation the page shows, the
 * .wasm files fetched, the generator's outputs and the call log's summary.
 */
async function tour(browser, search) {
  const wasm = new Set();
  const setup = (page) =>
    page.on('request', (r) => r.url().endsWith('.wasm') && wasm.add(new URL(r.url()).pathname.split('/').pop()));
  return withPage({ ...env, browser }, search, { setup }, async ({ page }) => {
    const ids = chapters.map((c) => c.id);
    const missing = await page.evaluate((list) => list.filter((id) => !document.getElementById(`ch-${id}`)), ids);
    expect(missing).toEqual([]); // the site build is older than web/chapters.js: build it first
    await page.evaluate((attrs) => {
      for (const [tag, values] of Object.entries(attrs))
        for (const [name, value] of Object.entries(values)) document.querySelector(tag)?.setAttribute(name, value);
    }, LIGHT);

    const numbers = {};
    for (const { id, tag } of chapters) {
      await waitReady(page, tag);
      const runState = await page.waitForFunction(
        (t) => {
          const state = document.querySelector(t).dataset.run;
          return state === undefined || ['done', 'error', 'cancelled'].includes(state) ? (state ?? 'none') : false;
        },
        tag,
        { timeout: 30000 },
      );
      expect(`${id}: ${await runState.jsonValue()}`).toMatch(/: (none|done)$/);
      numbers[id] = await readNumbers(page, tag);
    }

    const summary = await page.evaluate(
      ({ probe, tag }) => {
        // FNV-1a over the bytes of a result, so large outputs need not leave the page.
        const hash = (value) => {
          const bytes = ArrayBuffer.isView(value)
            ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
            : new TextEncoder().encode(JSON.stringify(value));
          let h = 0x811c9dc5;
          for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
          return h.toString(16);
        };
        const log = window.__agCallLog;
        const menu = document.getElementById('implementation');
        return {
          impl: menu.value,
          label: menu.selectedOptions[0]?.textContent ?? '',
          choices: [...menu.options].map((o) => o.value),
          kinds: [...new Set(log.map((c) => `${c.impl}/${c.variant}`))].sort(),
          workerCalls: log.filter((c) => c.worker).length,
          shared: [
            ...new Set(
              log
                .filter((c) => c.variant === 'shared')
                .map((c) => `${c.kernel} ${JSON.stringify(c.result.shape)} ${hash(c.result.data ?? c.result)}`),
            ),
          ].sort(),
          traceVariant: tag ? (document.querySelector(tag)?.dataset.trace ?? null) : null,
          probe: WebAssembly.validate(new Uint8Array(probe)),
        };
      },
      { probe: SIMD_PROBE, tag: variantTag },
    );
    return { numbers, wasm: [...wasm].sort(), ...summary };
  });
}

/** The (role, key) of each number, for lining two runs up. */
const ids = (list) => list.map((n) => `${n.role}.${n.key}`);

/**
 * Calls `check(a, b, what, id)` on each pair of numbers of every chapter in the runs `x` and `y` (in the variant
 * view only those both show); at least five pairs a chapter on average.
 */
function eachPair(x, y, check) {
  let compared = 0;
  for (const { id } of chapters) {
    const [a, b] = [x.numbers[id], y.numbers[id]];
    const common = ids(b).filter((k) => ids(a).includes(k));
    if (id === VARIANT_VIEW) expect(common.length).toBeGreaterThan(0);
    else expect(ids(b)).toEqual(ids(a));
    const paired =
      id === VARIANT_VIEW
        ? common.map((k) => [a[ids(a).indexOf(k)], b[ids(b).indexOf(k)]])
        : a.map((n, i) => [n, b[i]]);
    for (const [m, n] of paired) {
      check(m, n, `${id} ${m.role}${m.key === null ? '' : `.${m.key}`}`, id);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(chapters.length * 5);
}

const same = (x, y) => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));

/** The place value of the last digit a text shows: '0.2391' -> 1e-4, '1.49e−8' -> 1e-10. */
function lastPlace(text) {
  const [mantissa, exponent = '0'] = text.replace(/\u2212/g, '-').split('e');
  const decimals = mantissa.includes('.') ? mantissa.split('.')[1].length : 0;
  return 10 ** (Number(exponent) - decimals);
}

describe('an engine without WebAssembly SIMD', () => {
  test('gets the baseline build, and the page shows it', async () => {
    const bareRun = await run('bare');
    expect(bareRun.probe).toBe(false); // the engine really refuses SIMD
    expect(bareRun.wasm).toEqual(['ag-scalar.wasm']);
    expect(bareRun.impl).toBe('baseline');
    expect(bareRun.label).toMatch(/^Baseline build \(no SIMD\)/);
    expect(bareRun.choices).toEqual(['baseline']);
    expect(bareRun.kinds).toEqual(['baseline/scalar', 'baseline/shared']);
    expect(bareRun.workerCalls).toBeGreaterThan(0); // the experiments' workers, on the baseline build too
    expect(bareRun.traceVariant).toBe('scalar');

    const simdRun = await run('simd');
    expect(simdRun.probe).toBe(true);
    expect(simdRun.wasm).toEqual(['ag-simd.wasm']);
    expect(simdRun.impl).toBe('simd128');
    expect(simdRun.kinds).toEqual(['simd128/shared', 'simd128/simd128']);
  }, 240000); // the first two runs of the whole tour

  test('every chapter shows the numbers of the simd128 kernels, within the tolerance', async () => {
    const [simdRun, bareRun] = [await run('simd'), await run('bare')];
    eachPair(simdRun, bareRun, (a, b, name, id) => {
      const what = `${name}: "${a.text}" (${a.value}) with SIMD, "${b.text}" (${b.value}) without`;
      const residual = RESIDUALS[id]?.[a.role];
      if (residual) {
        const bound = residual(a, simdRun.numbers[id]);
        expect({
          what,
          within: Math.abs(a.value) <= bound && Math.abs(b.value) <= residual(b, bareRun.numbers[id]),
        }).toEqual({ what, within: true });
      } else if (!same(a.value, b.value)) {
        const diff = Math.abs(a.value - b.value) / Math.max(Math.abs(a.value), Math.abs(b.value));
        const oneUnit =
          a.text === b.text ||
          Math.abs(a.shown - b.shown) <= Math.min(lastPlace(a.text), lastPlace(b.text)) * (1 + 1e-9);
        const inU = diff / U;
        expect({ what, inU, within: diff <= TOL && oneUnit }).toEqual({ what, inU, within: true });
      }
    });
  }, 80000);

  test('the seeded generator gives the same bits as with SIMD', async () => {
    const [simdRun, bareRun] = [await run('simd'), await run('bare')];
    expect(bareRun.shared.length).toBeGreaterThan(5);
    expect(bareRun.shared).toEqual(simdRun.shared);
  }, 80000);

  test('every chapter shows, bit for bit, the numbers of the scalar kernels of the SIMD build', async () => {
    const [scalarRun, bareRun] = [await run('scalar'), await run('bare')];
    expect(scalarRun.impl).toBe('scalar');
    expect(scalarRun.wasm).toEqual(['ag-simd.wasm']);
    eachPair(scalarRun, bareRun, (a, b, what) =>
      expect({ what, value: b.value, text: b.text }).toEqual({ what, value: a.value, text: a.text }),
    );
  }, 80000);
});
