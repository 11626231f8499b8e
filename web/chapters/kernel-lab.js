// The kernel lab of chapter 14 (<ag-simd>): the learner picks a kernel and a
// size, presses Run, and the experiment worker times the SIMD build's
// simd128 and scalar variants on that workload (web/timing/kernel-timing.js)
// while the page stays free. Shown: the median time per call, GFLOP/s (the
// operation count of web/chapters/kernel-lab-presets.js over the median
// time) and the speed-up, in a table and a d3 bar chart. Times are
// measurements made in this browser, written with data-measured (never
// data-value, which is kept for results of the kernels).
//
// The kernel and the size belong to the widget's state (and so to links);
// the widget calls sync(state) before each render and passes the choices
// back through setState.
import { axisBottom, scaleBand, scaleLinear, select } from 'd3';
import { h, handOffFocus, svg } from '../widget/dom.js';
import { formatNumber, formatTime } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { CancelledError, ExperimentClient } from '../widget/worker-client.js';
import { LAB_KERNEL_IDS, LAB_KERNELS } from '../models/kernel-lab-presets.js';

/** The size as text: 1048576 -> "1 048 576" (digits grouped for reading). */
const sizeText = (n) => n.toLocaleString('en-US').replace(/,/g, '\u2009');

export class KernelLab {
  #widget;
  #ui;
  #client = new ExperimentClient();
  #texKernel = null; // the kernel whose formula is typeset
  #synced = null; // the kernel and size the controls show
  #result = null;

  /**
   * @param {{ host: HTMLElement, getState: () => object, setState: (patch: object) => void }} widget
   */
  constructor(widget) {
    this.#widget = widget;
    const kernelSelect = h(
      'select',
      { class: 'lab-kernel', 'aria-label': 'Kernel to time', dataset: { control: 'kernel' } },
      LAB_KERNEL_IDS.map((k) => h('option', { value: k }, LAB_KERNELS[k].label)),
    );
    kernelSelect.addEventListener('change', () => {
      const kernel = kernelSelect.value;
      const { size } = widget.getState();
      const sizes = LAB_KERNELS[kernel].sizes;
      widget.setState({ kernel, size: sizes.includes(size) ? size : sizes[0] });
    });
    const sizeSelect = h('select', { class: 'lab-size', 'aria-label': 'Size', dataset: { control: 'size' } });
    sizeSelect.addEventListener('change', () => widget.setState({ size: Number(sizeSelect.value) }));
    const sizeName = h('span', { class: 'lab-size-name' });
    const run = h('button', { type: 'button', class: 'lab-run', dataset: { action: 'run' } }, 'Run');
    const cancel = h(
      'button',
      { type: 'button', class: 'lab-cancel', dataset: { action: 'cancel' }, disabled: true },
      'Cancel',
    );
    run.addEventListener('click', () => this.run());
    cancel.addEventListener(
      'click',
      handOffFocus(
        cancel,
        () => run,
        () => this.cancel(),
      ),
    );
    const progress = h('progress', { max: 1, value: 0, class: 'lab-progress', 'aria-label': 'Timing progress' });
    const status = h(
      'p',
      { class: 'lab-status', role: 'status' },
      'Pick a kernel and a size, then press Run. The timing runs in a background worker.',
    );
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
      { class: 'lab-table', 'aria-describedby': 'lab-caption' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Kernels'),
          h('th', { scope: 'col' }, 'Median'),
          h('th', { scope: 'col' }, 'GFLOP/s'),
          h('th', { scope: 'col' }, 'Speed-up'),
        ),
      ),
      rows,
    );
    const chartBox = h('figure', { class: 'lab-figure' });
    const chart = select(chartBox).append(() =>
      svg('svg', {
        class: 'lab-chart',
        viewBox: '0 0 360 120',
        role: 'img',
        'aria-label': 'GFLOP/s of each kernel variant (no run yet)',
      }),
    );
    chartBox.append(h('figcaption', {}, 'GFLOP/s of each variant in the last run: longer is faster.'));

    this.node = h(
      'section',
      { class: 'lab', 'aria-label': 'Kernel lab' },
      h('h3', {}, 'Kernel lab: both variants timed in this browser'),
      h(
        'p',
        { class: 'lab-intro' },
        'Pick one of the kernels attention is made of and a size. Run times the simd128 and the scalar kernels of the SIMD build on the same inputs, each call copying its inputs in and its result out, and reports the median of seven rounds. Your device, its other work and the browser all move the numbers: compare the two rows of one run rather than runs with each other.',
      ),
      h(
        'div',
        { class: 'lab-controls' },
        h('label', { class: 'ctl' }, h('span', {}, 'Kernel'), kernelSelect),
        h('label', { class: 'ctl' }, h('span', {}, 'Size ', sizeName), sizeSelect),
        h('div', { class: 'lab-buttons' }, run, cancel),
      ),
      workload,
      shapes,
      h(
        'div',
        { class: 'lab-rates' },
        texElement('\\text{GFLOP/s}=\\frac{\\text{flop of one call}}{t_{\\text{median}}\\cdot 10^{9}}', {
          display: true,
        }),
        texElement('\\text{speed-up}=\\frac{t_{\\text{scalar}}}{t_{\\text{simd128}}}', { display: true }),
      ),
      h('div', { class: 'lab-run-state' }, progress, status),
      noSimd,
      h('div', { class: 'lab-results' }, h('div', {}, caption, h('div', { class: 'lab-scroll' }, table)), chartBox),
    );
    this.#ui = {
      kernelSelect,
      sizeSelect,
      sizeName,
      run,
      cancel,
      progress,
      status,
      noSimd,
      workload,
      shapes,
      caption,
      rows,
      chart,
    };
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
      ui.workload.replaceChildren(texElement(spec.tex, { display: true }));
    }
    ui.sizeSelect.value = String(size);
    ui.shapes.textContent = `${spec.why} Inputs: ${spec.shapes(size)}, float32, drawn once from the module\u2019s normal generator. One call: ${sizeText(spec.flops(size))} flop.`;
  }

  /** Times the state's kernel and size in the worker. */
  async run() {
    const ui = this.#ui;
    const host = this.#widget.host;
    const { kernel, size } = this.#widget.getState();
    ui.run.disabled = true;
    ui.cancel.disabled = false;
    ui.progress.value = 0;
    ui.status.textContent = `Timing ${LAB_KERNELS[kernel].label} at ${LAB_KERNELS[kernel].sizeName} = ${sizeText(size)} in a background worker\u2026`;
    host.dataset.lab = 'running';
    try {
      const result = await this.#client.time(
        { kind: 'kernel-lab', kernel, size },
        { onProgress: (p) => (ui.progress.value = p.done / p.total) },
      );
      this.#result = result;
      this.#show(result);
      ui.progress.value = 1;
      ui.status.textContent = 'Done. Run again to see how much the numbers move from run to run.';
      host.dataset.lab = 'done';
    } catch (err) {
      if (err instanceof CancelledError) return;
      ui.status.textContent = `The timing could not run: ${err.message}`;
      host.dataset.lab = 'error';
    } finally {
      if (host.dataset.lab !== 'running') {
        ui.run.disabled = false;
        ui.cancel.disabled = true;
      }
    }
  }

  /** Stops a running timing now (the worker is terminated). */
  cancel() {
    const ui = this.#ui;
    if (this.#widget.host.dataset.lab !== 'running') return;
    this.#client.cancel();
    ui.run.disabled = false;
    ui.cancel.disabled = true;
    ui.progress.value = 0;
    ui.status.textContent = 'Cancelled. Press Run to time it again.';
    this.#widget.host.dataset.lab = 'cancelled';
  }

  /** Stops the worker (when the widget leaves the page). */
  dispose() {
    this.cancel();
    this.#client.dispose();
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
   * The rows with GFLOP/s and the speed-up against the scalar row (none
   * without a simd128 row). A median that is not a positive time (a clock
   * too coarse for the calls timed, on a busy machine) gives no rate and no
   * ratio (null, shown as a dash) rather than Infinity or NaN.
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
    ui.noSimd.hidden = result.simd;
    ui.caption.textContent = `Last run: ${spec.label}, ${spec.sizeName} = ${sizeText(result.size)}, ${sizeText(result.flops)} flop per call; the median time per call of seven rounds.`;
    ui.rows.replaceChildren(
      ...rows.map((r) =>
        h(
          'tr',
          { dataset: { variant: r.variant, build: r.build } },
          h('th', { scope: 'row' }, r.build === 'baseline' ? 'scalar (baseline build)' : r.variant),
          h('td', { dataset: { role: 'median-ms', measured: r.medianMs } }, formatTime(r.medianMs)),
          h(
            'td',
            { dataset: { role: 'gflops', measured: r.gflops ?? '' } },
            r.gflops === null ? '\u2014' : formatNumber(r.gflops, 3),
          ),
          h(
            'td',
            { class: 'ratio', dataset: { role: 'speedup', measured: r.speedup ?? '' } },
            r.speedup === null ? '\u2014' : `\u00d7${formatNumber(r.speedup, 3)}`,
          ),
        ),
      ),
    );
    this.#drawChart(rows, spec, result.size);
  }

  #drawChart(rows, spec, size) {
    const W = 360;
    const m = { l: 64, r: 48, t: 8, b: 30 };
    const H = m.t + m.b + 30 * rows.length;
    const s = this.#ui.chart;
    s.attr('viewBox', `0 0 ${W} ${H}`).attr(
      'aria-label',
      `GFLOP/s of each kernel variant, ${spec.label} at ${spec.sizeName} = ${size}`,
    );
    s.selectAll('*').remove();
    const top = Math.max(...rows.map((r) => r.gflops ?? 0)) || 1;
    const x = scaleLinear()
      .domain([0, top * 1.05])
      .nice()
      .range([m.l, W - m.r]);
    const y = scaleBand()
      .domain(rows.map((r) => r.variant))
      .range([m.t, H - m.b])
      .padding(0.25);
    const bars = s
      .append('g')
      .attr('class', 'bars')
      .selectAll('g')
      .data(rows)
      .join('g')
      .attr('data-variant', (r) => r.variant);
    bars
      .append('rect')
      .attr('class', (r) => `bar bar-${r.variant}`)
      .attr('x', x(0))
      .attr('y', (r) => y(r.variant))
      .attr('height', y.bandwidth())
      .attr('width', (r) => (r.gflops === null ? 0 : Math.max(1, x(r.gflops) - x(0))));
    bars
      .append('text')
      .attr('class', 'bar-label')
      .attr('x', m.l - 6)
      .attr('y', (r) => y(r.variant) + y.bandwidth() / 2)
      .attr('dy', '0.35em')
      .attr('text-anchor', 'end')
      .text((r) => r.variant);
    bars
      .append('text')
      .attr('class', 'bar-value')
      .attr('x', (r) => x(r.gflops ?? 0) + 4)
      .attr('y', (r) => y(r.variant) + y.bandwidth() / 2)
      .attr('dy', '0.35em')
      .text((r) => (r.gflops === null ? '\u2014' : formatNumber(r.gflops, 3)));
    s.append('g')
      .attr('class', 'axis')
      .attr('transform', `translate(0,${H - m.b})`)
      .call(axisBottom(x).ticks(5));
    s.append('text')
      .attr('class', 'axis-label')
      .attr('x', W - m.r)
      .attr('y', H - 2)
      .attr('text-anchor', 'end')
      .text('GFLOP/s');
  }
}
