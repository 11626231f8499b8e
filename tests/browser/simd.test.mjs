// "Why this is cheap on a CPU" (#ch-simd, <ag-simd>): the steps of one dot product as the simd128 and the
// scalar kernels compute it (ag.dotTrace) against a float64 reference of the products, the lane-wise
// accumulators and the dot product; and the kernel lab in the worker (no timing is asserted, only that it is
// there). The contract checks that the default state's numbers are logged.
import { describe, expect, test } from '@jest/globals';
import { expectClean, expectParams, exportJson, launchChromium, openChapter } from './helpers.mjs';
import { dragSlider } from './pointer.mjs';
import { byRole, expectClose, one, U } from './shown-numbers.mjs';
import { chapterWidget, linkCases, measuredRows, predictCases } from './chapter-widget.mjs';

const TAG = 'ag-simd';
const c = chapterWidget('simd', TAG);
const A0 = [1, 2, -1, 0.5, 3, -2, 1.5, 4, -0.5, 2, 1, -3];
const B0 = [2, 0.5, 3, -4, 1, 1, -2, 0.25, 4, -1, 2, 0.5];
const FIVE = 'a=1,2,3,4,5&b=-1,0.5,2,-3,4&variant=simd128';

const dot64 = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const sumAbs = (a, b) => a.reduce((s, x, i) => s + Math.abs(x * b[i]), 0);
const waitTrace = (page, variant) => page.waitForSelector(`${TAG}[data-trace="${variant}"]`, { timeout: 20000 });
const waitLab = (page) => page.waitForSelector(`${TAG}[data-lab="done"]`, { timeout: 30000 });
/** The kernel lab's table: per row the variant and the measured numbers. */
const labRows = async (page) =>
  (await measuredRows(page, TAG, '.lab-table')).map(({ data, ...r }) => ({ variant: data.variant, ...r }));

/** The current step's numbers against the reference for a, b (simd128 multiply-add steps). */
function expectMultiplyAdd(numbers, a, b, start) {
  // Products: lane l of the step holds a_i b_i (i = start + l), exactly rounded.
  const products = byRole(numbers, 'product');
  expect(products.length).toBeGreaterThan(0);
  for (const { key, value } of products) expectClose(value, a[key] * b[key], U * Math.abs(a[key] * b[key]), key);
  // Accumulators: lane l of acc0 sums the products of elements i = l (mod 8), i < start + 8.
  for (const half of [0, 1]) {
    const acc = byRole(numbers, `acc${half}`).sort((x, y) => Number(x.key) - Number(y.key));
    expect(acc.length).toBe(4);
    acc.forEach((x, l) => {
      const lanes = a.map((_, i) => i).filter((i) => i % 8 === 4 * half + l && i < start + 8);
      const s = lanes.reduce((t, i) => t + a[i] * b[i], 0);
      expectClose(x.value, s, 3 * U * lanes.reduce((t, i) => t + Math.abs(a[i] * b[i]), 0), `acc${half}.${l}`);
    });
  }
}

describe('simd: why this is cheap on a CPU', () => {
  test('the simd128 trace: products four lanes at a time, accumulators, horizontal sum, equal to ag.dot', () =>
    c.open(async ({ page }) => {
      await waitTrace(page, 'simd128');
      // d = 12: two multiply-add steps, fold, swap-add, lane sum, total.
      expect(await c.data(page, 'steps')).toBe('6');
      expectMultiplyAdd(await c.numbers(page), A0, B0, 0);
      // Step with the Next button to the second multiply-add (elements 8-11, zero padding after).
      await c.el(page, 'button.next').click();
      expectMultiplyAdd(await c.numbers(page), A0, B0, 8);
      // The last step: the dot product, equal to ag.dot bit for bit and to the reference within dot's bound.
      await c.keys(page, '.step-slider', ['End', { step: 5 }]);
      const numbers = await c.numbers(page);
      const total = one(numbers, 'total');
      expectClose(total.value, dot64(A0, B0), 7 * U * sumAbs(A0, B0), 'total');
      expect(one(numbers, 'trace-result').value).toBe(total.value);
      expect(one(numbers, 'dot').value).toBe(total.value);
      await c.logged(page);
      expect(await c.el(page, '.katex').count()).toBeGreaterThan(0);
    }));

  test('editing the pair, the keys on the step slider, the scalar variant, and a URL that reopens it', () =>
    c.open(async ({ page }) => {
      await waitTrace(page, 'simd128');
      const a = [...A0];
      a[3] = 2.75;
      const input = c.el(page, 'input[data-row="a"][data-index="3"]');
      await input.fill('2.75');
      await input.press('Enter');
      await input.blur();
      await c.waitState(page, { a });
      expectMultiplyAdd(await c.numbers(page), a, B0, 0);
      // The slider is dragged with the keyboard's arrows here (Right twice: the fold, then the swap-add).
      await c.keys(page, '.step-slider', [['ArrowRight', 'ArrowRight', 'ArrowRight'], { step: 3 }]);
      // The swap-add: z = v + swapped(v), each lane the sum of two float32 numbers.
      let numbers = await c.numbers(page);
      const x = byRole(numbers, 'x').map((n) => n.value);
      expect(byRole(numbers, 'z').map((n) => n.value)).toEqual([0, 1, 2, 3].map((l) => Math.fround(x[l] + x[l ^ 2])));
      // Drag the slider thumb with the mouse to the far left.
      await dragSlider(page, TAG, '.step-slider', 0.5, 0);
      expect((await c.state(page)).step).toBe(0);

      // Scalar: blocks of four; the result equals ag.dot with scalar kernels.
      await c.el(page, 'input[name=variant][value=scalar]').check();
      await waitTrace(page, 'scalar');
      numbers = await c.numbers(page);
      for (const { key, value } of byRole(numbers, 'product')) expect(value).toBe(Math.fround(a[key] * B0[key]));
      expect(byRole(numbers, 'pair').map((n) => n.value)).toEqual(
        [0, 2].map((i) => Math.fround(a[i] * B0[i] + a[i + 1] * B0[i + 1])),
      );
      expectClose(one(numbers, 'dot').value, dot64(a, B0), 7 * U * sumAbs(a, B0), 'dot');
      expect(one(numbers, 'trace-result').value).toBe(one(numbers, 'dot').value);
      await c.logged(page);
      await expectParams(page, c.ch, { variant: 'scalar', a: a.join(',') });
      await c.again(page, numbers, { before: (p) => waitTrace(p, 'scalar') });
    }));

  test('a URL with five elements pads the second register half with zeros', () =>
    c.open(`${FIVE}&step=0`, async ({ page }) => {
      await waitTrace(page, 'simd128');
      const numbers = await c.numbers(page);
      expect(byRole(numbers, 'product').length).toBe(5);
      expect(await c.el(page, '.lane.pad').count()).toBeGreaterThan(0);
      expect(one(numbers, 'dot').value).toBe(-1 + 1 + 6 - 12 + 20);
      await c.logged(page);
    }));

  test('a merge with a negative right-hand sum is written left \u2212 |right|, never "+ \u2212"', () => {
    const a = Array.from({ length: 16 }, (_, i) => i + 1);
    return c.open(`a=${a}&b=${a.map((_, i) => (i < 8 ? 1 : -1))}&variant=scalar&step=0`, async ({ page }) => {
      await waitTrace(page, 'scalar');
      // Step by step (in the page: one step costs a render), the merges whose right-hand sum is negative.
      const lines = await c.el(page).evaluate((el) => {
        const found = [];
        for (let step = 0; step < 99 && found.length < 2; step += 1) {
          el.setState({ step });
          const merge = el.shadowRoot.querySelectorAll('.kind-merge .scalar-line');
          if (merge.length === 0) continue;
          if (merge.length > 1) throw new Error(`${merge.length} merge lines at step ${step}`);
          const right = Number(merge[0].querySelector('[data-role="right"]').getAttribute('data-sign') ?? 1);
          if (right < 0) found.push(merge[0].innerText);
        }
        return found;
      });
      // Blocks of four: -(9+10+11+12) = -42 and -(13+14+15+16) = -58 merge to -100; then the
      // halves, 1 + ... + 8 = 36 and -100, merge to -64.
      expect([...new Set(lines)]).toEqual(['\u221242 \u2212 58 = \u2212100', '36 \u2212 100 = \u221264']);
      await c.logged(page);
    });
  });

  test('a step past the end of the trace (from a link) shows the last step, and Previous goes to the one before it', () =>
    c.open(`${FIVE}&step=99`, async ({ page }) => {
      await waitTrace(page, 'simd128');
      const steps = Number(await c.data(page, 'steps'));
      expect(await c.text(page, '.step-text')).toBe(`Step ${steps} of ${steps}`);
      expect(await c.el(page, 'button.next').isDisabled()).toBe(true);
      await c.el(page, 'button.prev').click();
      expect(await c.text(page, '.step-text')).toBe(`Step ${steps - 1} of ${steps}`);
      expect((await c.state(page)).step).toBe(steps - 2);
    }));

  predictCases(c, [
    {
      name: 'predict, then reveal: 16 elements take 4 f32x4.mul',
      wrong: '16',
      right: '4',
      after: async (page) => expect((await c.state(page)).a.length).toBe(16),
    },
  ]);

  test('the kernel lab runs in the worker: the page stays responsive while it times, Cancel stops it, a new run works; on a tiny size both variants get a row with finite numbers, a bar each, in the JSON export', () =>
    c.open(async ({ page }) => {
      expect(await c.data(page, 'lab')).toBe('idle');
      // A large workload through the controls: attention at T = 1024 takes seconds on the scalar kernels.
      await c.el(page, 'select.lab-kernel').selectOption('attention');
      await c.el(page, 'select.lab-size').selectOption('1024');
      expect(await c.state(page)).toMatchObject({ kernel: 'attention', size: 1024 });
      await c.el(page, '[data-action="run"]').click();
      expect(await c.data(page, 'lab')).toBe('running');
      expect(await c.el(page, '[data-action="run"]').isDisabled()).toBe(true);
      // The main thread is free: the step slider still moves the trace while the timing runs.
      await c.keys(page, '.step-slider', ['ArrowRight', { step: 1 }]);
      expect(await c.data(page, 'lab')).toBe('running');
      await c.cancel(page, { attr: 'lab', status: '.lab-status' });
      expect(await c.el(page, '[data-action="cancel"]').isDisabled()).toBe(true);
      expect(await labRows(page)).toEqual([]);
      // A small one afterwards runs to the end in a fresh worker.
      await c.el(page, 'select.lab-kernel').selectOption('dot');
      expect((await c.state(page)).size).toBe(256); // 1024 is not a dot size: the first one offered
      await c.el(page, '[data-action="run"]').click();
      await waitLab(page);
      expect((await labRows(page)).length).toBe(2);

      // The link's kernel and size: matmul at 64, timed on both variants.
      await c.to(page, 'kernel=matmul&size=64');
      // The flop count of the chosen kernel is typeset on the page.
      expect(await c.el(page, '.lab-workload .katex').count()).toBeGreaterThan(0);
      expect(await c.text(page, '.lab-shapes')).toContain(`${2 * 64 ** 3}`.replace(/\B(?=(\d{3})+$)/g, '\u2009'));
      await c.el(page, '[data-action="run"]').click();
      await waitLab(page);
      const rows = await labRows(page);
      expect(rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
      for (const r of rows)
        for (const key of ['median-ms', 'gflops', 'speedup']) expect(Number.isFinite(r[key]) && r[key] > 0).toBe(true);
      // The scalar row is the reference of the speed-up: exactly 1.
      expect(rows[1].speedup).toBe(1);
      expect(await c.el(page, 'svg.lab-chart rect.bar').count()).toBe(2);
      const json = await exportJson(page, TAG);
      expect(json.lab).toMatchObject({ kernel: 'matmul', size: 64, flops: 2 * 64 ** 3 });
      expect(json.lab.rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
      expect(await c.el(page).evaluate((el) => el.stateText)).toContain('kernel=matmul&size=64');
    }));

  test('without WebAssembly SIMD (V8 without SSE4.1) the lab says so and times the scalar kernels of the baseline build alone', async () => {
    const bare = await launchChromium({ args: ['--js-flags=--no-enable-sse4-1'] });
    try {
      const opened = await openChapter({ ...c.env, browser: bare }, c.ch, TAG, {
        search: c.link('kernel=dot&size=256'),
      });
      const { page } = opened;
      expect(await c.el(page).getAttribute('data-computed-by')).toBe('baseline');
      await c.el(page, '[data-action="run"]').click();
      await waitLab(page);
      expect(await c.el(page, '.lab-nosimd').isVisible()).toBe(true);
      const rows = await labRows(page);
      expect(rows.map((r) => r.variant)).toEqual(['scalar']);
      expect(await c.el(page, '.lab-table tbody tr').getAttribute('data-build')).toBe('baseline');
      expect(rows[0]['median-ms']).toBeGreaterThan(0);
      expect(rows[0].gflops).toBeGreaterThan(0);
      expect(await c.text(page, '[data-role="speedup"]')).toBe('\u2014'); // nothing to compare with
      await expectClean(opened);
      await opened.context.close();
    } finally {
      await bare.close();
    }
  });

  linkCases(c, [
    {
      name: 'a link with an unknown kernel and a size no kernel offers gets a note for each, and the defaults',
      params: 'kernel=conv2d&size=100',
      part: { kernel: 'matmul', size: 256 },
      note: ['kernel=conv2d', 'size=100', 'one of the sizes offered for matmul: 64, 128, 256, 512'],
      then: async ({ page }) => {
        expect(await c.el(page, 'select.lab-kernel').inputValue()).toBe('matmul');
        expect(await c.el(page, 'select.lab-size').inputValue()).toBe('256');
        // The rest of the chapter is untouched: the trace of the default pair.
        await waitTrace(page, 'simd128');
      },
    },
  ]);
});
