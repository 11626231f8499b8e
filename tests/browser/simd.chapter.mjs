// "Why this is cheap on a CPU" (#ch-simd, <ag-simd>): the steps of one dot product as the simd128 and the scalar
// kernels compute it (ag.dotTrace) against a float64 reference of the products, the lane-wise accumulators and the
// dot product; and the kernel lab in the worker (no timing is asserted, only that it is there).
import { expect } from '@jest/globals';
import { exportJson, exportText, launchChromium } from './helpers.mjs';
import { dot, sumAbsProd } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, measuredRows, one, U } from './chapter-tests.mjs';

const it = chapterTests({ ch: 'simd', tag: 'ag-simd' });
const A0 = [1, 2, -1, 0.5, 3, -2, 1.5, 4, -0.5, 2, 1, -3];
const B0 = [2, 0.5, 3, -4, 1, 1, -2, 0.25, 4, -1, 2, 0.5];
const FIVE = 'a=1,2,3,4,5&b=-1,0.5,2,-3,4&variant=simd128';

const waitTrace = (w, variant) => w.page.waitForSelector(`${w.tag}[data-trace="${variant}"]`, { timeout: 20000 });
/** Clicks Run of the kernel lab and waits until its timing is done. */
const runLab = async (w) => {
  await w.at('[data-action="run"]').click();
  await w.page.waitForSelector(`${w.tag}[data-lab="done"]`, { timeout: 30000 });
};
/** The kernel lab's table: per row the variant and the measured numbers. */
const labRows = async (w) =>
  (await measuredRows(w, '.lab-table')).map(({ data, ...r }) => ({ variant: data.variant, ...r }));

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
it('the simd128 trace: products four lanes at a time, accumulators, horizontal sum, equal to ag.dot', async (w) => {
  await waitTrace(w, 'simd128');
  // d = 12: two multiply-add steps, fold, swap-add, lane sum, total.
  expect(await w.data('steps')).toBe('6');
  expectMultiplyAdd(await w.read(), A0, B0, 0);
  // Step with the Next button to the second multiply-add (elements 8-11, zero padding after).
  await w.at('button.next').click();
  expectMultiplyAdd(await w.read(), A0, B0, 8);
  // The last step: the dot product, equal to ag.dot bit for bit and to the reference within dot's bound.
  await w.keys('.step-slider', ['End', { step: 5 }]);
  const numbers = await w.read();
  const total = one(numbers, 'total');
  expectClose(total.value, dot(A0, B0), 7 * U * sumAbsProd(A0, B0), 'total');
  expect(one(numbers, 'trace-result').value).toBe(total.value);
  expect(one(numbers, 'dot').value).toBe(total.value);
  await w.logged();
  await w.see({ '.katex': { more: 0 } });
});
it('editing the pair, the keys on the step slider, the scalar variant, and a URL that reopens it', async (w) => {
  await waitTrace(w, 'simd128');
  const a = A0.with(3, 2.75);
  const input = w.at('input[data-row="a"][data-index="3"]');
  await input.fill('2.75');
  await input.press('Enter');
  await input.blur();
  await w.waitState({ a });
  expectMultiplyAdd(await w.read(), a, B0, 0);
  // Three Right arrows on the slider: the second multiply-add, the fold, the swap-add.
  await w.keys('.step-slider', [['ArrowRight', 'ArrowRight', 'ArrowRight'], { step: 3 }]);
  // The swap-add: z = v + swapped(v), each lane the sum of two float32 numbers.
  let numbers = await w.read();
  const x = byRole(numbers, 'x').map((n) => n.value);
  expect(byRole(numbers, 'z').map((n) => n.value)).toEqual([0, 1, 2, 3].map((l) => Math.fround(x[l] + x[l ^ 2])));
  await w.slide('.step-slider', 0.5, 0);
  expect((await w.state()).step).toBe(0);
  // Scalar: blocks of four; the result equals ag.dot with scalar kernels.
  await w.at('input[name=variant][value=scalar]').check();
  await waitTrace(w, 'scalar');
  numbers = await w.read();
  for (const { key, value } of byRole(numbers, 'product')) expect(value).toBe(Math.fround(a[key] * B0[key]));
  const pairs = [0, 2].map((i) => Math.fround(a[i] * B0[i] + a[i + 1] * B0[i + 1]));
  expect(byRole(numbers, 'pair').map((n) => n.value)).toEqual(pairs);
  expectClose(one(numbers, 'dot').value, dot(a, B0), 7 * U * sumAbsProd(a, B0), 'dot');
  expect(one(numbers, 'trace-result').value).toBe(one(numbers, 'dot').value);
  await w.reopens(numbers, { params: { variant: 'scalar', a: a.join(',') }, before: (p) => waitTrace(p, 'scalar') });
});
it('a URL with five elements pads the second register half with zeros', async (w) => {
  await waitTrace(w, 'simd128');
  const numbers = await w.read();
  expect(byRole(numbers, 'product').length).toBe(5);
  await w.see({ '.lane.pad': { more: 0 } });
  expect(one(numbers, 'dot').value).toBe(-1 + 1 + 6 - 12 + 20);
  await w.logged();
}).at(`${FIVE}&step=0`);
const SIXTEEN = Array.from({ length: 16 }, (_, i) => i + 1);
const MERGES = `a=${SIXTEEN}&b=${SIXTEEN.map((_, i) => (i < 8 ? 1 : -1))}&variant=scalar&step=0`;
it('a merge with a negative right-hand sum is written left \u2212 |right|, never "+ \u2212"', async (w) => {
  await waitTrace(w, 'scalar');
  // Step by step (in the page: one step costs a render), the merges whose right-hand sum is negative.
  const lines = await w.eval((el) => {
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
  // Blocks of four: -(9+10+11+12) = -42 and -(13+14+15+16) = -58 merge to -100; then 1 + ... + 8 = 36 and -100.
  expect([...new Set(lines)]).toEqual(['\u221242 \u2212 58 = \u2212100', '36 \u2212 100 = \u221264']);
  await w.logged();
}).at(MERGES);

it('a step past the end of the trace (from a link) shows the last step, and Previous goes to the one before it', async (w) => {
  await waitTrace(w, 'simd128');
  const steps = Number(await w.data('steps'));
  await w.see({ '.step-text': `Step ${steps} of ${steps}`, 'button.next': { disabled: true } });
  await w.at('button.prev').click();
  await w.see({ '.step-text': `Step ${steps - 1} of ${steps}` });
  expect((await w.state()).step).toBe(steps - 2);
}).at(`${FIVE}&step=99`);

it('predict, then reveal: 16 elements take 4 f32x4.mul', async (w) => {
  await w.reveal({ wrong: '16', right: '4' });
  expect((await w.state()).a.length).toBe(16);
});
it('the kernel lab runs in the worker: the page stays responsive while it times, Cancel stops it, a new run works; on a tiny size both variants get a row with finite numbers, a bar each, in the JSON export', async (w) => {
  expect(await w.data('lab')).toBe('idle');
  // A large workload through the controls: attention at T = 1024 takes seconds on the scalar kernels.
  await w.at('select.lab-kernel').selectOption('attention');
  await w.at('select.lab-size').selectOption('1024');
  expect(await w.state()).toMatchObject({ kernel: 'attention', size: 1024 });
  await w.at('[data-action="run"]').click();
  expect(await w.data('lab')).toBe('running');
  await w.see({ '[data-action="run"]': { disabled: true } });
  // The main thread is free: the step slider still moves the trace while the timing runs.
  await w.keys('.step-slider', ['ArrowRight', { step: 1 }]);
  expect(await w.data('lab')).toBe('running');
  await w.cancel({ attr: 'lab', status: '.lab-status' });
  await w.see({ '[data-action="cancel"]': { disabled: true } });
  expect(await labRows(w)).toEqual([]);
  // A small one afterwards runs to the end in a fresh worker.
  await w.at('select.lab-kernel').selectOption('dot');
  expect((await w.state()).size).toBe(256); // 1024 is not a dot size: the first one offered
  await runLab(w);
  expect((await labRows(w)).length).toBe(2);
  await w.set('kernel=matmul&size=64');
  const flops = `${2 * 64 ** 3}`.replace(/\B(?=(\d{3})+$)/g, '\u2009');
  await w.see({ '.lab-workload .katex': { more: 0 }, '.lab-shapes': { contains: flops } });
  await runLab(w);
  const rows = await labRows(w);
  expect(rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
  for (const r of rows)
    for (const key of ['median-ms', 'gflops', 'speedup']) expect(Number.isFinite(r[key]) && r[key] > 0).toBe(true);
  // The scalar row is the reference of the speed-up: exactly 1.
  expect(rows[1].speedup).toBe(1);
  await w.see({ 'svg.lab-chart rect.bar': 2 });
  const json = await exportJson(w.page, w.tag);
  expect(json.lab).toMatchObject({ kernel: 'matmul', size: 64, flops: 2 * 64 ** 3 });
  expect(json.lab.rows.map((r) => r.variant)).toEqual(['simd128', 'scalar']);
  expect(await w.eval((el) => el.stateText)).toContain('kernel=matmul&size=64');
});

it('without WebAssembly SIMD (V8 without SSE4.1) the lab says so and times the scalar kernels of the baseline build alone', async (w) => {
  const browser = await launchChromium({ args: ['--js-flags=--no-enable-sse4-1'] });
  try {
    await w.open({ link: 'kernel=dot&size=256', browser }, async (z) => {
      expect(await z.host('data-computed-by')).toBe('baseline');
      await runLab(z);
      await z.see({ '.lab-nosimd': { visible: true } });
      const rows = await labRows(z);
      expect(rows.map((r) => r.variant)).toEqual(['scalar']);
      expect(await z.at('.lab-table tbody tr').getAttribute('data-build')).toBe('baseline');
      expect(rows[0]['median-ms']).toBeGreaterThan(0);
      expect(rows[0].gflops).toBeGreaterThan(0);
      await z.see({ '[data-role="speedup"]': '\u2014' }); // nothing to compare with
    });
  } finally {
    await browser.close();
  }
});

it('a link with an unknown kernel and a size no kernel offers gets a note for each, and the defaults', async (w) => {
  const note = ['kernel=conv2d', 'size=100', 'one of the sizes offered for matmul: 64, 128, 256, 512'];
  await w.link('kernel=conv2d&size=100', null, { part: { kernel: 'matmul', size: 256 }, note, logged: false });
  await w.see({ 'select.lab-kernel': { value: 'matmul' }, 'select.lab-size': { value: '256' } });
  // The rest of the chapter is untouched: the trace of the default pair.
  await waitTrace(w, 'simd128');
});

it('the CSV holds the numbers on screen only, each under its name, after a shorter length and at every step', async (w) => {
  await waitTrace(w, 'simd128');
  /** The CSV export as { name: value }. */
  const csv = async () => {
    const lines = (await exportText(w.page, w.tag, 'csv')).trim().split('\r\n');
    expect(lines[0]).toBe('name,value');
    return Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.lastIndexOf(',')), Number(l.split(',').pop())]));
  };
  /** The CSV's names are those of the numbers on screen (role, then key when there is one), none "undefined". */
  const expectOnScreen = async () => {
    const table = await csv();
    const shown = (await w.read()).map((n) => [n.role, n.key].filter((x) => x !== null).join('.'));
    expect(Object.keys(table).sort()).toEqual([...new Set(shown)].sort());
    expect(Object.keys(table).filter((name) => name.includes('undefined'))).toEqual([]);
    return table;
  };
  // The last step of d = 12: the dot product, under the name "total".
  expectClose((await expectOnScreen()).total, dot(A0, B0), 7 * U * sumAbsProd(A0, B0), 'total');
  // Length 1 (a = [1], b = [2]): the old vectors' total leaves the export; then every step, one at a time.
  await w.at('select.length').selectOption('1');
  await w.waitState({ a: [1], b: [2], step: 0 });
  const steps = Number(await w.data('steps'));
  let table = await expectOnScreen();
  for (let step = 1; step < steps; step += 1) {
    await w.keys('.step-slider', ['ArrowRight', { step }]);
    table = await expectOnScreen();
  }
  expect(table.total).toBe(dot([1], [2]));
}).at('variant=simd128&step=5');
