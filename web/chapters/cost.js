// <ag-attention-cost>: "The cost of attention". One head over T = 64 ... tmax tokens, computed in the
// experiment worker (web/timing/attention-cost.js) by ag.attention plain (the [T, T] grid in the heap) and
// streaming (an online softmax over tiles of keys). Peak heap bytes and times are measurements
// (data-measured); the squared distance between the two outputs is a kernel result (show()).
import { defineWidget } from '../widget/base.js';
import { chartFigure, curve, draw, legend, logLogFrame, series } from '../widget/charts.js';
import { h, markCurrent, setAttr, setFlag, setText, setValue } from '../widget/dom.js';
import { describe } from '../widget/engine.js';
import { ExperimentWidget, labelled, settingSelect, settingSlider } from '../widget/experiment.js';
import { formatBytes, formatTime } from '../widget/format.js';
import { display, texElement } from '../widget/math.js';
import { withoutHeld } from '../widget/export-rows.js';
import { headerRow, measuredCell } from '../widget/matrix-table.js';
import { defineState, number } from '../widget/state.js';

export const COST_TMAX = [512, 1024, 2048, 4096];
export const COST_DK = [32, 64, 128];
const T_MIN = 64;
const BYTES = 4; // one float32
const SIDES = ['plain', 'streaming'];
const BOX = { width: 360, height: 240, m: { l: 58, r: 12, t: 10, b: 30 } };

/** The sizes of one sweep: T = 64, 128, ..., tmax. */
export const costSizes = (tmax) =>
  Array.from({ length: Math.log2(tmax) - Math.log2(T_MIN) + 1 }, (_, i) => T_MIN * 2 ** i);

/** The formulas of the page, in bytes: the grid alone, and the inputs and output (Q, K, V, Y). */
export const gridBytes = (T) => BYTES * T * T;
export const tensorBytes = (T, dk) => BYTES * 4 * T * dk;

export class AgAttentionCost extends ExperimentWidget {
  static title = 'The cost of attention';
  static styles = ['styles/experiment.css', 'styles/cost.css'];
  static figureSelector = 'figure.memory svg';
  static stateDecl = defineState({
    version: 1,
    fields: {
      tmax: number({ values: COST_TMAX, integer: true, default: 2048 }),
      dk: number({ values: COST_DK, integer: true, default: 64 }),
      // Read on a slider of powers of two: a link may ask for any of them.
      at: number({ values: costSizes(COST_TMAX.at(-1)), integer: true, default: 1024 }),
    },
  });

  #ui = null;
  // A cancelled sweep keeps its key: reading its rows does not restart it; a setting or "Run again" does.
  #exp = this.experiment({
    progressLabel: 'Sweep progress',
    cancelled: 'Cancelled. Change a setting or press \u201cRun again\u201d to measure anew.',
    failed: 'The measurement could not run',
    keepKey: true,
    keyOf: (state) => this.#keyOf(state), // the implementation, tmax and dk of the sweep
    job: (state, key) => this.#job(state, key),
  });
  #impl = null; // the implementation id of the API instance of the last render
  #sweep = null; // { key, tmax, dk, streaming, memory, rows }
  #drawnKey = null; // which rows the plots show ("key/rows")
  #x = null; // the T axis of both plots (for the reading cursor)

  build(body) {
    const predict = this.predict({
      id: 'grid-doubling',
      question:
        'The sequence doubles from T = 2048 to T = 4096 tokens. The memory the [T, T] grid of scores needs is multiplied by\u2026',
      choices: ['2', '4', '8'].map((v) => ({ value: v, label: v })),
      misconceptions: {
        2: 'That reads the grid as growing with T, as streaming attention\u2019s memory does: the grid holds one score per query\u2013key pair, T \u00d7 T of them, so it grows with T\u00b2.',
        8: 'That counts a third factor of T, as for the work of multiplying two T \u00d7 T matrices: the grid\u2019s memory is one entry per query\u2013key pair, T\u00b2, whatever d_k is.',
      },
      reveal: () => {
        this.setState({ tmax: 4096, at: 4096 });
        // A count, not a computed result: T² entries of four bytes each.
        return {
          answer: '4',
          explanation: `The grid holds one score per query\u2013key pair: 2048\u00b2 entries (${formatBytes(gridBytes(2048))} in float32) become 4096\u00b2 (${formatBytes(gridBytes(4096))}), four times as many. Streaming attention never holds that grid: its memory only doubles, with Q, K, V and the output. The sweep now runs up to 4096 below.`,
        };
      },
    });

    // The reading stays where it is shown (a larger `at` from a link reads at the largest T).
    const tmaxSelect = settingSelect('tmax', 'Largest T', COST_TMAX, (v) =>
      this.setState({ tmax: Number(v), at: Math.min(this.state.at, this.state.tmax, Number(v)) }),
    );
    const dkLabel = 'd_k, the width of a query and a key';
    const dkSelect = settingSelect('dk', dkLabel, COST_DK, (v) => this.setState({ dk: Number(v) }));
    const at = settingSlider('at', 'Read the numbers at T', ['Read at ', h('var', {}, 'T')], {
      min: 6,
      max: 11,
      step: 1,
      onInput: (v) => this.setState({ at: 2 ** v }),
    });
    const missing = h('p', { class: 'missing', hidden: true });

    const mem = chartFigure('memory', {
      box: BOX,
      label: 'Peak heap memory against T, log-log: plain and streaming attention with their formulas',
      caption: [
        'Memory: dots measured, dashed lines the formulas.',
        // The grid's slope is the answer (T²: four times the memory per doubling): it waits for the answer.
        this.afterAnswer(
          h('span', {}, ' The plain line bends up to slope 2 (T\u00b2); the streaming one keeps slope 1 (T).'),
        ),
      ],
    });
    const time = chartFigure('time', {
      box: BOX,
      label: 'Time per call against T, log-log: plain and streaming attention',
      caption:
        'Time per call: both climb with slope 2, since both compute every score. Streaming saves memory, not arithmetic.',
    });
    const reading = h('p', { class: 'reading', 'aria-live': 'off' });
    const agreement = h('p', { class: 'agreement' });
    const tbody = h('tbody');
    const group = (text) => h('th', { scope: 'colgroup', colspan: 2 }, text);
    const table = h(
      'table',
      { class: 'cost-table measured' },
      h(
        'caption',
        {},
        'Per call: the formula of the grid, the peak heap bytes and the median time of each path (measured here)',
      ),
      h(
        'thead',
        {},
        h('tr', {}, h('td'), h('td', { class: 'c-grid' }), group('Peak heap'), group('Time per call')),
        // The grid's column (its formula and its bytes, four times as many per doubling) answers the question.
        headerRow(['T', { text: 'Grid, 4T\u00b2 B', class: 'c-grid' }, ...SIDES, ...SIDES]).firstChild,
      ),
      tbody,
    );
    this.afterAnswer(table, '.c-grid');

    body.append(
      predict,
      h(
        'div',
        { class: 'formulas' },
        // The grid's 4T² bytes are the answer: the formula and the note's clause on it wait for the answer.
        this.afterAnswer(
          display('S=\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\in\\mathbb{R}^{T\\times T}:\\ 4T^2\\ \\text{bytes}'),
        ),
        // M_plain's T² term is the answer too.
        this.afterAnswer(display('M_{\\text{plain}}\\approx 4\\,(T^2+4Td_k)\\ \\text{bytes}')),
        display('M_{\\text{stream}}\\approx 4\\cdot 4Td_k+c\\ \\text{bytes}'),
        display('\\text{work of both}:\\ 4T^2d_k\\ \\text{flop}'),
        h(
          'p',
          { class: 'formula-note' },
          this.afterAnswer(h('span', {}, 'T\u00b2 floats of four bytes hold the grid; ')),
          '4T\u00b7d\u2096 floats are Q, K, V and the output; c is the streaming path\u2019s work area, one tile of scores, the same size at every T. Both paths compute QK\u1d40 and the mixture of V, 2T\u00b2d\u2096 flop for each of the two.',
        ),
      ),
      this.#exp.controls([
        labelled(['Largest ', h('var', {}, 'T')], tmaxSelect),
        labelled(texElement('d_k'), dkSelect),
      ]),
      missing,
      h('div', { class: 'layout' }, mem.fig, time.fig),
      at.label,
      reading,
      h('div', { class: 'table-wrap' }, table),
      agreement,
    );
    this.#ui = { tmaxSelect, dkSelect, at, missing, mem: mem.s, time: time.s, reading, agreement, tbody };
  }

  syncControls({ tmax, dk, at }) {
    const ui = this.#ui;
    setValue(ui.tmaxSelect, String(tmax));
    setValue(ui.dkSelect, String(dk));
    setAttr(ui.at.input, 'max', Math.log2(tmax));
    const shown = Math.min(at, tmax);
    ui.at.set(Math.log2(shown), `= ${shown}`, `T = ${shown}`);
  }

  render(ag, state) {
    // The sweep runs on the page's implementation, the one `ag` is: another one (the menu, impl=) measures anew.
    this.#impl = describe(ag).id;
    this.#exp.want(state);
    this.#draw(state);
  }

  #keyOf({ tmax, dk }) {
    return `${this.#impl}/${tmax}/${dk}`;
  }

  /** The sweep of a state: its rows are drawn as they come. */
  #job({ tmax, dk }, key) {
    const sweep = { key, impl: this.#impl, tmax, dk, streaming: null, memory: null, rows: [] };
    this.#sweep = sweep;
    this.#drawnKey = null;
    return {
      job: { kind: 'attention-cost', sizes: costSizes(tmax), dk },
      time: true,
      text: `Measuring T = ${T_MIN} to ${tmax} with d\u2096 = ${dk} in a background worker\u2026`,
      live: () => this.#sweep === sweep,
      onProgress: (p) => {
        if (p.partial) sweep.rows.push(p.partial);
        this.#draw(this.state);
      },
      onResult: ({ impl, streaming, memory, rows }) => {
        Object.assign(sweep, { impl, streaming, memory, rows });
        this.#drawnKey = null;
        this.#draw(this.state);
        return `Done: T = ${T_MIN} to ${tmax}, d\u2096 = ${dk}. Times vary from run to run; the bytes do not.`;
      },
    };
  }

  /** Plots and table for the rows measured so far; the reading at T = at. */
  #draw(state) {
    const sweep = this.#sweep;
    if (!sweep || this.#keyOf(state) !== sweep.key) return;
    const ui = this.#ui;
    const drawnKey = `${sweep.key}/${sweep.rows.length}/${sweep.memory}/${sweep.streaming}`;
    if (drawnKey !== this.#drawnKey) {
      this.#drawnKey = drawnKey;
      this.#drawMissing(sweep);
      this.#drawMemory(sweep);
      this.#drawTime(sweep);
      this.#drawTable(sweep);
    }
    const at = Math.min(state.at, sweep.tmax);
    for (const tr of ui.tbody.children) markCurrent(tr, 'is-current', Number(tr.dataset.t) === at);
    for (const s of [ui.mem, ui.time])
      s.selectAll('line.cursor').attr('data-t', at).attr('x1', this.#x(at)).attr('x2', this.#x(at));
    const row = sweep.rows.find((r) => r.T === at);
    if (!row) {
      setText(ui.reading, `T = ${at}: not measured yet.`);
      return;
    }
    const mem =
      row.plain.peakBytes !== null
        ? `plain ${formatBytes(row.plain.peakBytes)} against streaming ${formatBytes(row.streaming.peakBytes)} at their peak, `
        : '';
    setText(
      ui.reading,
      `T = ${at}: the grid alone is ${at}\u00b2 floats, ${formatBytes(gridBytes(at))}; ${mem}and ${formatTime(row.plain.medianMs)} against ${formatTime(row.streaming.medianMs)} per call.`,
    );
  }

  #drawMissing({ memory, streaming }) {
    const text = [
      memory === false &&
        'This build cannot report its heap (ag.memoryStats is missing), so only the formulas are drawn for memory.',
      streaming === false &&
        'This build has no streaming option: the plain path is forced by asking for the weights, and the streaming column is the default call.',
    ].filter(Boolean);
    setFlag(this.#ui.missing, 'hidden', !text.length);
    setText(this.#ui.missing, text.join(' '));
  }

  /** The frame of either log-log plot, with the reading cursor. @returns {{ s, x, y }} */
  #frame(s, sweep, lo, hi, yLabel, yTicks, yFormat) {
    const sizes = costSizes(sweep.tmax);
    const yd = [lo / 1.5, hi * 1.5];
    const f = logLogFrame(s, BOX, {
      x: [T_MIN / 1.3, sweep.tmax * 1.3],
      y: yd,
      xTicks: sizes.filter((_, i) => i % 2 === 0 || sizes.length < 6),
      yTicks: yTicks.filter((v) => v >= yd[0] && v <= yd[1]),
      yFormat,
      xLabel: 'T (log scale)',
      yLabel,
    });
    const { m, height: H } = BOX;
    draw(s, 'line', { class: 'cursor', y1: m.t, y2: H - m.b, 'aria-hidden': 'true' });
    this.#x = f.x;
    return f;
  }

  #drawMemory(sweep) {
    const sizes = costSizes(sweep.tmax);
    const formulas = {
      plain: sizes.map((T) => [T, gridBytes(T) + tensorBytes(T, sweep.dk)]),
      streaming: sizes.map((T) => [T, tensorBytes(T, sweep.dk)]),
    };
    // Rows measured so far with their bytes (none where the build cannot count them).
    const rows = sweep.rows.filter((r) => r.plain.peakBytes !== null);
    const ticks = Array.from({ length: 12 }, (_, i) => 1024 * 4 ** i);
    this.#plot(this.#ui.mem, sweep, rows, 'peakBytes', formulas, ['peak heap bytes', ticks, formatBytes]);
  }

  #drawTime(sweep) {
    const ticks = Array.from({ length: 10 }, (_, i) => 10 ** (i - 4));
    this.#plot(this.#ui.time, sweep, sweep.rows, 'medianMs', null, ['time per call', ticks, formatTime]);
  }

  /** One log-log plot: the formulas (dashed), the measured `field` of both paths, the legend. */
  #plot(s, sweep, rows, field, formulas, [yLabel, yTicks, yFormat]) {
    const all = rows.flatMap((r) => [r.plain[field], r.streaming[field]]).filter((v) => v > 0);
    if (formulas) all.push(...formulas.plain.map((p) => p[1]), ...formulas.streaming.map((p) => p[1]));
    const lo = all.length ? Math.min(...all) : 0.01;
    const hi = all.length ? Math.max(...all) : 100;
    const f = this.#frame(s, sweep, lo, hi, yLabel, yTicks, yFormat);
    if (formulas) for (const side of SIDES) curve(f, `formula ${side}`, formulas[side]);
    for (const side of SIDES) {
      const pts = rows.map((r) => [r.T, r[side][field]]).filter((p) => p[1] > 0 && Number.isFinite(p[1]));
      series(f, pts, { line: `series ${side}`, dots: `dots ${side}` });
    }
    legend(
      s,
      [66, 34],
      [
        ['plain', 'plain (materialized)'],
        ['streaming', 'streaming'],
      ],
    );
  }

  #drawTable(sweep) {
    const ui = this.#ui;
    ui.tbody.replaceChildren(
      ...sweep.rows.map((r) =>
        h(
          'tr',
          { dataset: { t: r.T } },
          h('th', { scope: 'row' }, String(r.T)),
          this.afterAnswer(
            h(
              'td',
              { class: 'c-grid', dataset: { role: 'grid-bytes', formula: gridBytes(r.T) } },
              formatBytes(gridBytes(r.T)),
            ),
          ),
          measuredCell('plain-bytes', r.plain.peakBytes, formatBytes(r.plain.peakBytes)),
          measuredCell('streaming-bytes', r.streaming.peakBytes, formatBytes(r.streaming.peakBytes)),
          measuredCell('plain-ms', r.plain.medianMs, formatTime(r.plain.medianMs)),
          measuredCell('streaming-ms', r.streaming.medianMs, formatTime(r.streaming.medianMs)),
        ),
      ),
    );
    const last = sweep.rows.at(-1);
    if (!last) {
      ui.agreement.replaceChildren();
      return;
    }
    const d = h('span', { class: 'num', dataset: { role: 'squared-distance', key: String(last.T) } });
    this.show(d, last.squaredDistance, { digits: 3 });
    ui.agreement.replaceChildren(
      `Same attention both ways: at T = ${last.T} the squared distance between the two outputs is `,
      d,
      last.squaredDistance === 0
        ? ' (the very same bits).'
        : ' (float32 rounding: the two paths add their terms in different orders).',
    );
  }

  exportData() {
    const data = super.exportData();
    if (this.#sweep) {
      const { impl, tmax, dk, streaming, memory, rows } = this.#sweep;
      data.sweep = { impl: impl ?? null, tmax, dk, streaming, memory, rows };
    }
    return data;
  }

  exportTable() {
    const columns = {
      T: (r) => r.T,
      grid_bytes_formula: (r) => gridBytes(r.T),
      plain_peak_bytes: (r) => r.plain.peakBytes,
      streaming_peak_bytes: (r) => r.streaming.peakBytes,
      plain_ms: (r) => r.plain.medianMs,
      streaming_ms: (r) => r.streaming.medianMs,
      squared_distance: (r) => r.squaredDistance,
    };
    const rows = (this.#sweep?.rows ?? []).map((r) => Object.values(columns).map((cell) => cell(r)));
    // The grid's bytes are held on screen until the answer.
    return withoutHeld({ columns: Object.keys(columns), rows }, (name) => name.startsWith('grid'), this.answerIsShown);
  }
}

defineWidget('ag-attention-cost', AgAttentionCost);
