// "Why this is cheap on a CPU" (#ch-simd, <ag-simd>): the steps of one dot product as the simd128 and the
// scalar kernels compute it (ag.dotTrace) against a float64 reference of the products, the lane-wise
// accumulators and the dot product; and the kernel lab (no timing is asserted, only that it is there).
import { describe, expect, test } from '@jest/globals';
import {
  expectClean,
  expectParams,
  exportJson,
  launchChromium,
  openChapter,
  predictChoice,
  pressKeys,
  settledUrl,
  stateOf,
  useEnv,
  withChapter,
} from './helpers.mjs';
import { byRole, expectAllLogged, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-simd';
const CH = 'simd';
const A0 = [1, 2, -1, 0.5, 3, -2, 1.5, 4, -0.5, 2, 1, -3];
const B0 = [2, 0.5, 3, -4, 1, 1, -2, 0.25, 4, -1, 2, 0.5];
const FIVE = '?ch=simd&v=1&a=1,2,3,4,5&b=-1,0.5,2,-3,4&variant=simd128';

const dot64 = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const sumAbs = (a, b) => a.reduce((s, x, i) => s + Math.abs(x * b[i]), 0);

async function waitTrace(page, variant) {
  await page.waitForSelector(`${TAG}[data-trace="${variant}"]`, { timeout: 20000 });
}
const state = (page) => stateOf(page, TAG);
const lab = (page) => page.locator(TAG).getAttribute('data-lab');

/** The kernel lab's table: per row the variant and the measured numbers (data-measured). */
const labRows = (page) =>
  page.locator(TAG).evaluate((el) =>
    [...el.shadowRoot.querySelectorAll('.lab-table tbody tr')].map((tr) => {
      const row = { variant: tr.dataset.variant };
      for (const td of tr.querySelectorAll('td[data-role]')) row[td.dataset.role] = Number(td.dataset.measured);
      return row;
    }),
  );

/** The current step's numbers against the reference for a, b (simd128 multiply-add steps). */
function expectMultiplyAdd(numbers, a, b, start) {
  // Products: lane l of the step holds a_i b_i (i = start + l), exactly rounded.
  const products = byRole(numbers, 'product').sort((x, y) => Number(x.key) - Number(y.key));
  expect(products.length).toBeGreaterThan(0);
  for (const p of products) {
    const i = Number(p.key);
    expect(Math.abs(p.value - a[i] * b[i])).toBeLessThanOrEqual(U * Math.abs(a[i] * b[i]));
  }
  // Accumulators: lane l of acc0 sums the products of elements i = l (mod 8), i < start + 8.
  for (const half of [0, 1]) {
    const acc = byRole(numbers, `acc${half}`).sort((x, y) => Number(x.key) - Number(y.key));
    expect(acc.length).toBe(4);
    acc.forEach((x, l) => {
      let s = 0;
      let m = 0;
      for (let i = 4 * half + l; i < Math.min(start + 8, a.length); i += 8) {
        s += a[i] * b[i];
        m += Math.abs(a[i] * b[i]);
      }
      expect(Math.abs(x.value - s)).toBeLessThanOrEqual(3 * U * m);
    });
  }
}

const env = useEnv();

describe('simd: why this is cheap on a CPU', () => {
  test('the simd128 trace: products four lanes at a time, accumulators, horizontal sum, equal to ag.dot', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await waitTrace(page, 'simd128');
      // d = 12: two multiply-add steps, fold, swap-add, lane sum, total.
      expect(await page.locator(TAG).getAttribute('data-steps')).toBe('6');
      expectMultiplyAdd(await readNumbers(page, TAG), A0, B0, 0);
      await expectAllLogged(page, TAG);
      // Step with the Next button to the second multiply-add (elements 8-11, zero padding after).
      await page.locator(`${TAG} button.next`).click();
      expectMultiplyAdd(await readNumbers(page, TAG), A0, B0, 8);
      // The last step: the dot product, equal to ag.dot bit for bit and to the reference within dot's bound.
      await page.locator(`${TAG} .step-slider`).focus();
      await page.keyboard.press('End');
      const numbers = await readNumbers(page, TAG);
      const total = one(numbers, 'total');
      const tol = 7 * U * sumAbs(A0, B0);
      expect(Math.abs(total.value - dot64(A0, B0))).toBeLessThanOrEqual(tol);
      expect(one(numbers, 'trace-result').value).toBe(total.value);
      expect(one(numbers, 'dot').value).toBe(total.value);
      expect((await state(page)).step).toBe(5);
      await expectAllLogged(page, TAG);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    });
  });

  test('editing the pair, the keys on the step slider, the scalar variant, and a URL that reopens it', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await waitTrace(page, 'simd128');
      const a = [...A0];
      a[3] = 2.75;
      const input = page.locator(`${TAG} input[data-row="a"][data-index="3"]`);
      await input.fill('2.75');
      await input.press('Enter');
      await input.blur();
      await page.waitForFunction(() => document.querySelector('ag-simd').state.a[3] === 2.75);
      expect((await state(page)).a[3]).toBe(2.75);
      expectMultiplyAdd(await readNumbers(page, TAG), a, B0, 0);
      // The slider is dragged with the keyboard's arrows here (Right twice: the fold, then the swap-add).
      await page.locator(`${TAG} .step-slider`).focus();
      await pressKeys(page, 'ArrowRight', 'ArrowRight', 'ArrowRight');
      expect((await state(page)).step).toBe(3);
      // The swap-add: z = v + swapped(v), each lane the sum of two float32 numbers.
      let numbers = await readNumbers(page, TAG);
      const x = byRole(numbers, 'x').map((n) => n.value);
      const z = byRole(numbers, 'z').map((n) => n.value);
      expect(z).toEqual([
        Math.fround(x[0] + x[2]),
        Math.fround(x[1] + x[3]),
        Math.fround(x[2] + x[0]),
        Math.fround(x[3] + x[1]),
      ]);

      // Drag the slider thumb with the mouse to the far left.
      const slider = page.locator(`${TAG} .step-slider`);
      const box = await slider.boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 1, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      expect((await state(page)).step).toBe(0);

      // Scalar: blocks of four; the result equals ag.dot with scalar kernels.
      await page.locator(`${TAG} input[name=variant][value=scalar]`).check();
      await waitTrace(page, 'scalar');
      numbers = await readNumbers(page, TAG);
      for (const p of byRole(numbers, 'product')) {
        const i = Number(p.key);
        expect(p.value).toBe(Math.fround(a[i] * B0[i]));
      }
      const pairs = byRole(numbers, 'pair').map((n) => n.value);
      expect(pairs).toEqual([Math.fround(a[0] * B0[0] + a[1] * B0[1]), Math.fround(a[2] * B0[2] + a[3] * B0[3])]);
      expect(Math.abs(one(numbers, 'dot').value - dot64(a, B0))).toBeLessThanOrEqual(7 * U * sumAbs(a, B0));
      expect(one(numbers, 'trace-result').value).toBe(one(numbers, 'dot').value);
      await expectAllLogged(page, TAG);

      await expectParams(page, CH, { variant: 'scalar', a: a.join(',') });
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        await waitTrace(copy.page, 'scalar');
        expect((await readNumbers(copy.page, TAG)).map((n) => n.text)).toEqual(numbers.map((n) => n.text));
      });
    });
  });

  test('a URL with five elements pads the second register half with zeros', async () => {
    await withChapter(env, CH, TAG, { search: `${FIVE}&step=0` }, async ({ page }) => {
      await waitTrace(page, 'simd128');
      const numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'product').length).toBe(5);
      expect(await page.locator(`${TAG} .lane.pad`).count()).toBeGreaterThan(0);
      expect(one(numbers, 'dot').value).toBe(-1 + 1 + 6 - 12 + 20);
      await expectAllLogged(page, TAG);
    });
  });

  test('a merge with a negative right-hand sum is written left \u2212 |right|, never "+ \u2212"', async () => {
    const a = Array.from({ length: 16 }, (_, i) => i + 1);
    const b = a.map((_, i) => (i < 8 ? 1 : -1));
    const search = `?ch=simd&v=1&a=${a}&b=${b}&variant=scalar&step=0`;
    await withChapter(env, CH, TAG, { search }, async ({ page }) => {
      await waitTrace(page, 'scalar');
      const lines = [];
      for (let step = 0; step < 99 && lines.length < 2; step += 1) {
        await page.locator(TAG).evaluate((el, k) => el.setState({ step: k }), step);
        const merge = page.locator(`${TAG} .kind-merge .scalar-line`);
        if ((await merge.count()) === 0) continue;
        const right = Number((await merge.locator('[data-role="right"]').getAttribute('data-sign')) ?? 1);
        if (right < 0) lines.push(await merge.innerText());
      }
      // Blocks of four: -(9+10+11+12) = -42 and -(13+14+15+16) = -58 merge to -100; then the
      // halves, 1 + ... + 8 = 36 and -100, merge to -64.
      expect([...new Set(lines)]).toEqual(['\u221242 \u2212 58 = \u2212100', '36 \u2212 100 = \u221264']);
      await expectAllLogged(page, TAG);
    });
  });

  test('a step past the end of the trace (from a link) shows the last step, and Previous goes to the one before it', async () => {
    await withChapter(env, CH, TAG, { search: `${FIVE}&step=99` }, async ({ page }) => {
      await waitTrace(page, 'simd128');
      const steps = Number(await page.locator(TAG).getAttribute('data-steps'));
      expect(await page.locator(`${TAG} .step-text`).textContent()).toBe(`Step ${steps} of ${steps}`);
      expect(await page.locator(`${TAG} button.next`).isDisabled()).toBe(true);
      await page.locator(`${TAG} button.prev`).click();
      expect(await page.locator(`${TAG} .step-text`).textContent()).toBe(`Step ${steps - 1} of ${steps}`);
      expect((await state(page)).step).toBe(steps - 2);
    });
  });

  test('predict, then reveal: 16 elements take 4 f32x4.mul', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, '16', 'wrong');
      await predictChoice(page, TAG, '4', 'right');
      expect((await state(page)).a.length).toBe(16);
    });
  });

  test('the kernel lab times both variants on a tiny size: a row each with finite numbers, a bar each, in the JSON export', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=simd&v=1&kernel=matmul&size=64' }, async ({ page }) => {
      expect(await lab(page)).toBe('idle');
      // The flop count of the chosen kernel is typeset on the page.
      expect(await page.locator(`${TAG} .lab-workload .katex`).count()).toBeGreaterThan(0);
      expect(await page.locator(`${TAG} .lab-shapes`).textContent()).toContain(
        `${2 * 64 ** 3}`.replace(/\B(?=(\d{3})+$)/g, '\u2009'),
      );
      await page.locator(`${TAG} [data-action="run"]`).click();
      await page.waitForSelector(`${TAG}[data-lab="done"]`, { timeout: 30000 });
      const rows = await labRows(page);
      expect(rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
      for (const r of rows)
        for (const key of ['median-ms', 'gflops', 'speedup']) expect(Number.isFinite(r[key]) && r[key] > 0).toBe(true);
      // The scalar row is the reference of the speed-up: exactly 1.
      expect(rows[1].speedup).toBe(1);
      expect(await page.locator(`${TAG} svg.lab-chart rect.bar`).count()).toBe(2);
      const json = await exportJson(page, TAG);
      expect(json.lab).toMatchObject({ kernel: 'matmul', size: 64, flops: 2 * 64 ** 3 });
      expect(json.lab.rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
      expect(await page.locator(TAG).evaluate((el) => el.stateText)).toContain('kernel=matmul&size=64');
    });
  }, 60000);

  test('the kernel lab runs in the worker: the page stays responsive while it times, Cancel stops it, a new run works', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      // A large workload through the controls: attention at T = 1024 takes seconds on the scalar kernels.
      await page.locator(`${TAG} select.lab-kernel`).selectOption('attention');
      await page.locator(`${TAG} select.lab-size`).selectOption('1024');
      expect(await state(page)).toMatchObject({ kernel: 'attention', size: 1024 });
      await page.locator(`${TAG} [data-action="run"]`).click();
      expect(await lab(page)).toBe('running');
      expect(await page.locator(`${TAG} [data-action="run"]`).isDisabled()).toBe(true);
      // The main thread is free: the step slider still moves the trace while the timing runs.
      await page.locator(`${TAG} .step-slider`).focus();
      await page.keyboard.press('ArrowRight');
      expect((await state(page)).step).toBe(1);
      expect(await lab(page)).toBe('running');
      await page.locator(`${TAG} [data-action="cancel"]`).click();
      expect(await lab(page)).toBe('cancelled');
      expect(await page.locator(`${TAG} .lab-status`).textContent()).toMatch(/Cancelled/);
      expect(await page.locator(`${TAG} [data-action="cancel"]`).isDisabled()).toBe(true);
      expect(await labRows(page)).toEqual([]);
      // A small one afterwards runs to the end in a fresh worker.
      await page.locator(`${TAG} select.lab-kernel`).selectOption('dot');
      expect((await state(page)).size).toBe(256); // 1024 is not a dot size: the first one offered
      await page.locator(`${TAG} [data-action="run"]`).click();
      await page.waitForSelector(`${TAG}[data-lab="done"]`, { timeout: 30000 });
      expect((await labRows(page)).length).toBe(2);
    });
  }, 60000);

  test('without WebAssembly SIMD (V8 without SSE4.1) the lab says so and times the scalar kernels of the baseline build alone', async () => {
    const bare = await launchChromium({ args: ['--js-flags=--no-enable-sse4-1'] });
    try {
      const opened = await openChapter({ ...env, browser: bare }, CH, TAG, {
        search: '?ch=simd&v=1&kernel=dot&size=256',
      });
      const { page } = opened;
      expect(await page.locator(TAG).getAttribute('data-computed-by')).toBe('baseline');
      await page.locator(`${TAG} [data-action="run"]`).click();
      await page.waitForSelector(`${TAG}[data-lab="done"]`, { timeout: 30000 });
      expect(await page.locator(`${TAG} .lab-nosimd`).isVisible()).toBe(true);
      const rows = await labRows(page);
      expect(rows.map((r) => r.variant)).toEqual(['scalar']);
      expect(await page.locator(`${TAG} .lab-table tbody tr`).getAttribute('data-build')).toBe('baseline');
      expect(rows[0]['median-ms']).toBeGreaterThan(0);
      expect(rows[0].gflops).toBeGreaterThan(0);
      expect(await page.locator(`${TAG} [data-role="speedup"]`).textContent()).toBe('\u2014'); // nothing to compare with
      await expectClean(opened);
      await opened.context.close();
    } finally {
      await bare.close();
    }
  });

  test('a link with an unknown kernel and a size no kernel offers gets a note for each, and the defaults', async () => {
    await withChapter(env, CH, TAG, { search: '?ch=simd&v=1&kernel=conv2d&size=100' }, async ({ page }) => {
      expect(await state(page)).toMatchObject({ kernel: 'matmul', size: 256 });
      const note = page.locator(`${TAG} .note`);
      expect(await note.isVisible()).toBe(true);
      const text = await note.textContent();
      for (const part of ['kernel=conv2d', 'size=100', 'one of the sizes offered for matmul: 64, 128, 256, 512'])
        expect(text).toContain(part);
      expect(await page.locator(`${TAG} select.lab-kernel`).inputValue()).toBe('matmul');
      expect(await page.locator(`${TAG} select.lab-size`).inputValue()).toBe('256');
      // The rest of the chapter is untouched: the trace of the default pair.
      await waitTrace(page, 'simd128');
    });
  });
});
