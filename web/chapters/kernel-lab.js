// The kernel lab of chapter 14 (<ag-simd>): the worker times the simd128 and scalar kernels of the SIMD build
// on the chosen kernel and size (web/timing/kernel-timing.js). Shown: median time per call, GFLOP/s and the
// speed-up, in a table and a bar chart; times are measurements (data-measured, never data-value).
import { bars } from '../widget/bars.js';
import { axes, bandScale, chartFigure, draw, xScale } from '../widget/charts.js';
import { h, setFlag, setText } from '../widget/dom.js';
import { ownLayout } from '../widget/figure-layout.js';
import { ExperimentRun, labelled, settingSelect } from '../widget/experiment.js';
import { formatNumber, formatTime } from '../widget/format.js';
import { display } from '../widget/math.js';
import { section } from '../widget/controls.js';
import { headerRow, measuredCell } from '../widget/matrix-table.js';
import { LAB_KERNEL_IDS, LAB_KERNELS } from '../models/kernel-lab-presets.js';

/** The size as text: 1048576 -> "1 048 576" (digits grouped for reading). */
const sizeText = (n) => n.toLocaleString('en-US').replace(/,/g, '\u2009');

/** A rate or a ratio (null: not measured, a dash). */
const rate = (v, before = '') => (v === null ? '\u2014' : `${before}${formatNumber(v, 3)}`);

export class KernelLab {
  #widget;
  #ui;
  #exp;
  #texKernel = null; // the kernel whose formula is typeset
  #synced = null; // the kernel and size the controls show
  #result = null;

  /** @param {{ host: HTMLElement, getState: () => object, setState: (patch: object) => void }} widget */
  constructor(widget) {
    this.#widget = widget;
    const kernels = LAB_KERNEL_IDS.map((k) => [k, LAB_KERNELS[k].label]);
    const kernelSelect = settingSelect(
      'kernel',
      'Kernel to time',
      kernels,
      (kernel) => {
        const { size } = widget.getState();
        const sizes = LAB_KERNELS[kernel].sizes;
        widget.setState({ kernel, size: sizes.includes(size) ? size : sizes[0] });
      },
      { class: 'lab-kernel' },
    );
    const setSize = (size) => widget.setState({ size: Number(size) });
    const sizeSelect = settingSelect('size', 'Size', [], setSize, { class: 'lab-size' });
    const sizeName = h('span', { class: 'lab-size-name' });
    this.#exp = new ExperimentRun(widget.host, {
      attrs: ['lab'],
      progressLabel: 'Timing progress',
      progressClass: 'lab-progress',
      statusClass: 'lab-status',
      run: { class: 'lab-run', label: 'Run' },
      cancel: { class: 'lab-cancel' },
      lockRun: true,
      cancelled: 'Cancelled. Press Run to time it again.',
      failed: 'The timing could not run',
      failInStatus: true,
      onRun: () => this.run(),
    });
    setText(this.#exp.status, 'Pick a kernel and a size, then press Run. The timing runs in a background worker.');
    const noSimd = h(
      'p',
      { class: 'lab-nosimd', hidden: true },
      'This browser has no 128-bit WebAssembly SIMD, so only the scalar kernels (of the baseline build) are timed.',
    );
    const workload = h('div', { class: 'lab-workload' });
    const shapes = h('p', { class: 'lab-shapes' });
    const caption = h('p', { class: 'lab-caption', id: 'lab-caption' }, 'No run yet.');
    const rows = h('tbody');
    const table = h(
      'table',
      { class: 'lab-table measured', 'aria-describedby': 'lab-caption' },
      headerRow(['Kernels', 'Median', 'GFLOP/s', 'Speed-up']),
      rows,
    );
    const chart = chartFigure('lab-figure', {
      box: { width: 360, height: 120 },
      label: 'GFLOP/s of each kernel variant (no run yet)',
      svgClass: 'lab-chart',
      caption: 'GFLOP/s of each variant in the last run: longer is faster.',
    });
    this.node = section('lab', 'Kernel lab', 'Kernel lab: both variants timed in this browser', [
      h(
        'p',
        { class: 'lab-intro' },
        'Pick one of the kernels attention is made of and a size. Run times the simd128 and the scalar kernels of the SIMD build on the same inputs, each call copying its inputs in and its result out, and reports the median of seven rounds. Your device, its other work and the browser all move the numbers: compare the two rows of one run rather than runs with each other.',
      ),
      h(
        'div',
        { class: 'lab-controls' },
        labelled('Kernel', kernelSelect),
        labelled(['Size ', sizeName], sizeSelect),
        this.#exp.buttons(),
      ),
      workload,
      shapes,
      h(
        'div',
        { class: 'lab-rates' },
        display('\\text{GFLOP/s}=\\frac{\\text{flop of one call}}{t_{\\text{median}}\\cdot 10^{9}}'),
        display('\\text{speed-up}=\\frac{t_{\\text{scalar}}}{t_{\\text{simd128}}}'),
      ),
      this.#exp.runBox(),
      noSimd,
      h('div', { class: 'lab-results' }, h('div', {}, caption, h('div', { class: 'table-wrap' }, table)), chart.fig),
    ]);
    this.#ui = { kernelSelect, sizeSelect, sizeName, noSimd, workload, shapes, caption, rows, chart: chart.s };
    widget.host.dataset.lab = 'idle';
  }

  /** Puts the state's kernel and size into the controls (cheap: the formula is typeset once per kernel). */
  sync({ kernel, size }) {
    // Runs before every render of the chapter: only a new kernel or size is written.
    if (this.#synced === `${kernel}|${size}`) return;
    this.#synced = `${kernel}|${size}`;
    const ui = this.#ui;
    const spec = LAB_KERNELS[kernel];
    ui.kernelSelect.value = kernel;
    if (this.#texKernel !== kernel) {
      this.#texKernel = kernel;
      ui.sizeSelect.replaceChildren(...spec.sizes.map((n) => h('option', { value: String(n) }, sizeText(n))));
      ui.sizeName.replaceChildren(h('var', {}, spec.sizeName));
      ui.workload.replaceChildren(display(spec.tex));
    }
    ui.sizeSelect.value = String(size);
    ui.shapes.textContent = `${spec.why} Inputs: ${spec.shapes(size)}, float32, drawn once from the module\u2019s normal generator. One call: ${sizeText(spec.flops(size))} flop.`;
  }

  /** Times the state's kernel and size in the worker. */
  run() {
    const { kernel, size } = this.#widget.getState();
    const spec = LAB_KERNELS[kernel];
    return this.#exp.run(
      { kind: 'kernel-lab', kernel, size },
      {
        time: true,
        text: `Timing ${spec.label} at ${spec.sizeName} = ${sizeText(size)} in a background worker\u2026`,
        onResult: (result) => {
          this.#result = result;
          this.#show(result);
          return 'Done. Run again to see how much the numbers move from run to run.';
        },
      },
    );
  }

  /** Stops a running timing now (the worker is terminated). */
  cancel() {
    if (this.#exp.state === 'running') this.#exp.cancel();
  }

  /** Stops the worker (when the widget leaves the page). */
  dispose() {
    this.cancel();
    this.#exp.stop();
  }

  /** The last run with its derived rates, for the JSON export (null before a run). */
  get result() {
    if (!this.#result) return null;
    return { ...this.#result, rows: this.#rows(this.#result) };
  }

  /** The bar chart's <svg> (for the figure export). */
  get figure() {
    return this.#ui.chart.node();
  }

  /**
   * The rows with GFLOP/s and the speed-up against the scalar row (none without a simd128 row); a median
   * that is not a positive time (too coarse a clock) gives null (a dash), not Infinity or NaN.
   */
  #rows({ flops, rows }) {
    const timed = (ms) => Number.isFinite(ms) && ms > 0;
    const scalar = rows.find((r) => r.variant === 'scalar');
    const compared = scalar && timed(scalar.medianMs) && rows.some((r) => r.variant === 'simd128');
    return rows.map((r) => ({
      ...r,
      gflops: timed(r.medianMs) ? flops / (r.medianMs * 1e6) : null,
      speedup: compared && timed(r.medianMs) ? scalar.medianMs / r.medianMs : null,
    }));
  }

  #show(result) {
    const ui = this.#ui;
    const spec = LAB_KERNELS[result.kernel];
    const rows = this.#rows(result);
    setFlag(ui.noSimd, 'hidden', result.simd);
    ui.caption.textContent = `Last run: ${spec.label}, ${spec.sizeName} = ${sizeText(result.size)}, ${sizeText(result.flops)} flop per call; the median time per call of seven rounds.`;
    ui.rows.replaceChildren(
      ...rows.map((r) =>
        h(
          'tr',
          { dataset: { variant: r.variant, build: r.build } },
          h('th', { scope: 'row' }, r.build === 'baseline' ? 'scalar (baseline build)' : r.variant),
          measuredCell('median-ms', r.medianMs, formatTime(r.medianMs)),
          measuredCell('gflops', r.gflops, rate(r.gflops)),
          measuredCell('speedup', r.speedup, rate(r.speedup, '\u00d7'), { class: 'ratio' }),
        ),
      ),
    );
    this.#drawChart(rows, spec, result.size);
  }

  /**
   * The GFLOP/s of each row as a bar (g.bars > g[data-variant] with rect.bar bar-{variant}, text.bar-label and
   * text.bar-value; null: no bar, a dash), the svg's height following the rows. Clears the chart first.
   */
  #drawChart(rows, spec, size) {
    const s = this.#ui.chart;
    const m = { l: 64, r: 48, t: 8, b: 30 };
    const box = { width: 360, height: m.t + m.b + 30 * rows.length, m };
    s.attr('aria-label', `GFLOP/s of each kernel variant, ${spec.label} at ${spec.sizeName} = ${size}`);
    s.attr('viewBox', `0 0 ${box.width} ${box.height}`);
    s.selectAll('*').remove();
    const x = xScale(box, [0, (Math.max(...rows.map((r) => r.gflops ?? 0)) || 1) * 1.05]).nice();
    const key = (r) => r.variant;
    const y = bandScale(rows.map(key), [m.t, box.height - m.b], 0.25);
    const g = draw(s, 'g', { class: 'bars' }).selectAll('g').data(rows).join('g').attr('data-variant', key);
    const bar = { x, y, horizontal: true, key, value: (r) => r.gflops, least: 1, class: (r) => `bar bar-${key(r)}` };
    bars(g, 'bar', (r) => [r], bar);
    const text = { y: (r) => y(key(r)) + y.bandwidth() / 2, dy: '0.35em' };
    draw(g, 'text', { class: 'bar-label', x: m.l - 6, ...text, 'text-anchor': 'end' }).text(key);
    draw(g, 'text', { class: 'bar-value', x: (r) => x(r.gflops ?? 0) + 4, ...text }).text((r) => rate(r.gflops));
    axes(s, box, x, null, { xLabel: 'GFLOP/s', xLabelY: box.height - 2 });
    ownLayout(s); // the height follows the rows
  }
}
