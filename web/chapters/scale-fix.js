// <ag-scale-fix>: chapter 11, "The 1/√d_k fix". For each d_k from 2 to 4096,
// ROWS rows of T random scores q·k_j go through softmax as they are and
// divided by √d_k; three panels follow the mean over the rows (with a band
// from the 10th to the 90th percentile): the largest weight, the entropy in
// bits, the Frobenius norm of the softmax Jacobian. The curves come from the
// experiment worker (models/scale-fix-curves.js); row 0 at the chosen d_k is
// shown as a sample. Numbers: ag.random.normal and ag.matmul (the scores),
// ag.norm (|q|), ag.softmax (temperature √d_k for the scaled row),
// ag.entropy, ag.norm of ag.softmaxJacobian, ag.dot with weights 1/ROWS (the
// means); the largest weight and the percentiles are selected, not computed.
//
//   <ag-scale-fix seed="7" tokens="16" dk="64"></ag-scale-fix>
import { area, line, select } from 'd3';
import { shownText } from '../widget/after-answer.js';
import { defineWidget } from '../widget/base.js';
import { axes, draw, label, legend, pickAlong, xScale, yScale } from '../widget/charts.js';
import { num, slider } from '../widget/controls.js';
import { h, setAttr, setText, symbol, words } from '../widget/dom.js';
import { ExperimentWidget, seedControls } from '../widget/experiment.js';
import { ownLayout } from '../widget/figure-layout.js';
import { fmt } from '../widget/format.js';
import { formulas as displays } from '../widget/math.js';
import { withoutHeld } from '../widget/export-rows.js';
import { bodyRow, table as tableOf } from '../widget/matrix-table.js';
import { choice, defineState, number } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { ROWS, rowMeasures, rowScores } from '../models/scale-fix-curves.js';

/** d_k = 2, 4, ..., 4096 (powers of two, a log axis). */
export const DKS = Array.from({ length: 12 }, (_, i) => 2 ** (i + 1));
const SERIES = [
  { id: 'unscaled', label: 'unscaled: softmax(s)' },
  { id: 'scaled', label: 'scaled: softmax(s / \u221ad\u2096)' },
];
const PANELS = [
  { id: 'max', title: 'Largest weight', domain: () => [0, 1] },
  { id: 'entropy', title: 'Entropy (bits)', domain: (tokens) => [0, Math.log2(tokens)] },
  // Drawing only: the largest plotted value sets the top of the axis.
  { id: 'jacobian', title: 'Jacobian norm (Frobenius)', domain: (_tokens, top) => [0, top] },
];
// Panels in one SVG (one figure to export): the box of one panel.
const PANEL = { width: 360, height: 150, m: { l: 40, r: 12, t: 22, b: 24 } };
const { width: W, height: PH, m: M } = PANEL;
/** The numbers of each row of the table of all d_k, in column order. */
const COLUMNS = ['max', 'entropy', 'jacobian'].flatMap((k) => SERIES.map((s) => [k, s.id]));

export class AgScaleFix extends ExperimentWidget {
  static title = 'The 1/\u221ad\u2096 fix';
  static styles = ['styles/scale-fix.css'];
  static figureSelector = 'svg.scale-plot';
  static stateDecl = defineState({
    version: 1,
    fields: {
      seed: number({ min: 0, max: 999999, integer: true, default: 7 }),
      tokens: number({ min: 2, max: 64, integer: true, default: 16 }),
      dk: choice({ values: DKS.map(String), default: '64' }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'unscaled-max-weight',
      question:
        'Scores are left unscaled while d\u2096 grows to 4096 (16 random keys). Will the largest softmax weight approach 1?',
      choices: choices({ one: 'Yes, close to 1', half: 'It settles near 0.5', uniform: 'No, it falls towards 1/16' }),
      misconceptions: {
        half: 'That expects the largest weight to settle midway: unscaled scores spread like \u221ad_k, the gap between the top score and the rest keeps growing, and exp turns a growing gap into a weight near 1.',
        uniform:
          'That reads bigger, noisier scores as flatter weights: the softmax follows the gaps between scores, and unscaled gaps grow like \u221ad_k, which makes the weights sharper, not flatter.',
      },
      reveal: (_choice, ag) => {
        this.setState({ dk: '4096', tokens: 16 });
        const row = this.#sample(ag, this.state.seed, 16, 4096);
        const m = row.unscaled.max;
        const s = row.scaled.max;
        return {
          answer: m > 0.9 ? 'one' : m < 0.2 ? 'uniform' : 'half',
          explanation: `At d\u2096 = 4096 the sample row has a largest weight of ${fmt(m)} unscaled: |q| = ${fmt(row.spread)} sets the spread of the scores, and after exp the top one dwarfs the rest. Divided by \u221ad\u2096 = 64 the same row gives ${fmt(s)}. The curves show the mean over ${ROWS} rows.`,
        };
      },
    });

    const seed = seedControls(this, {
      max: 999999,
      label: 'Seed of the random scores',
      control: false,
      bad: 'The seed is a whole number from 0 to 999999.',
      next: 'New seed',
      nextClass: 'reseed',
    });
    const tokens = slider({
      min: 2,
      max: 64,
      step: 1,
      class: 'tokens',
      attrs: { 'aria-label': 'Number of keys T' },
      outClass: 'tokens-text',
      rowClass: null,
      onInput: (v) => this.setState({ tokens: v }),
    });
    const keys = h(
      'label',
      { class: 'ctl', dataset: { controlGroup: 'tokens' } },
      h('span', {}, 'Keys ', symbol('T'), ' = '),
      tokens.out,
      tokens.input,
    );
    const controls = this.#exp.controls([keys], seed);

    // The figure: three panels sharing a log-2 axis of d_k, and a cursor.
    const figure = h('div', { class: 'figure' });
    const svg = draw(select(figure), 'svg', {
      class: 'scale-plot',
      viewBox: `0 0 ${W} ${PANELS.length * PH + 42}`,
      role: 'slider',
      tabindex: 0,
      'aria-label': 'd\u2096: drag across the panels, or use the arrow keys',
      'aria-valuemin': 1,
      'aria-valuemax': DKS.length,
    });
    ownLayout(svg); // laid out on its own (widget/figure-layout.js)
    const x = xScale(PANEL, [DKS[0], DKS.at(-1)], 'log2');
    const key = legend(
      svg,
      [M.l, 12],
      SERIES.map((s) => [`series-${s.id}`, s.label]),
      { across: 150 },
    );
    // The legend's unscaled entry names a curve held until the answer: it waits with it.
    this.afterAnswer(key.node().children[SERIES.findIndex((s) => s.id === 'unscaled')]);
    const panels = PANELS.map((p, i) => {
      const g = draw(svg, 'g', { class: `panel panel-${p.id}`, transform: `translate(0,${28 + i * PH})` });
      const y = yScale(PANEL, [0, 1]);
      const yAxis = draw(g, 'g');
      axes(g, PANEL, x, null, { xTicks: DKS, xFormat: (d) => (Math.log2(d) % 2 === 1 ? String(d) : ''), tickSize: 3 });
      label(g, 'panel-title', p.title, M.l + 4, M.t - 6);
      const bands = Object.fromEntries(SERIES.map((s) => [s.id, g.append('path').attr('class', `band band-${s.id}`)]));
      const paths = Object.fromEntries(
        SERIES.map((s) => [s.id, g.append('path').attr('class', `curve series-${s.id}`)]),
      );
      const dots = Object.fromEntries(
        SERIES.map((s) => [s.id, g.append('circle').attr('class', `dot series-${s.id}`).attr('r', 4)]),
      );
      // The unscaled series rises to 1 at dₖ = 4096, the answer itself: it waits for the answer.
      for (const el of [bands, paths, dots]) this.afterAnswer(el.unscaled.node());
      return { ...p, g, y, yAxis, bands, paths, dots };
    });
    figure.append(
      h(
        'p',
        { class: 'caption' },
        `Lines: the mean over ${ROWS} rows of scores at each d\u2096. Shaded: from the 10th to the 90th percentile of those rows.`,
      ),
    );
    label(svg, 'x-label', 'd\u2096 (log scale)', W - M.r, PANELS.length * PH + 38).attr('text-anchor', 'end');
    const cursor = draw(svg, 'line', { class: 'cursor', y1: 28 + M.t, y2: 28 + PANELS.length * PH - M.b });

    // Drag (mouse, pen, touch) across the panels, or the keys, to choose d_k.
    pickAlong(svg, {
      values: DKS,
      x,
      from: M.l,
      to: W - M.r,
      index: () => DKS.indexOf(Number(this.state.dk)),
      pick: (i) => this.setState({ dk: String(DKS[i]) }),
      say: () => {
        const d = this.#ui.detail;
        // The unscaled weight is held on screen before the answer: the spoken line leaves it out too.
        const unscaled = shownText(d.unscaled.max, '', ' unscaled, ');
        this.announce(`d\u2096 = ${this.state.dk}: largest weight ${unscaled}${d.scaled.max.textContent} scaled.`);
      },
    });

    // The numbers at the chosen d_k.
    const detail = Object.fromEntries(
      SERIES.map((s) => [
        s.id,
        {
          max: num('max', s.id),
          entropy: num('entropy', s.id),
          jacobian: num('jacobian', s.id),
          bars: h('div', { class: `bars bars-${s.id}`, 'aria-hidden': 'true' }),
        },
      ]),
    );
    const dkText = h('strong', { class: 'dk-text' });
    const spread = num('spread');
    const maxEntropy = num('max-entropy');
    const meanMax = Object.fromEntries(SERIES.map((s) => [s.id, num('mean-max', s.id)]));
    const cells = (key) => SERIES.map((s) => detail[s.id][key]);
    const table = tableOf({
      className: 'detail results',
      caption: ['One sample row at ', symbol('d', 'k'), ' = ', dkText],
      headers: ['', { text: 'Unscaled', class: 'col-unscaled' }, { text: 'Scaled', class: 'col-scaled' }],
      rows: [
        bodyRow('Largest weight', cells('max')),
        bodyRow('Entropy (bits)', cells('entropy')),
        bodyRow(['\u2016J\u2016', h('sub', {}, 'F'), ' (gradient)'], cells('jacobian')),
      ],
    });
    // The sample row's unscaled column reads about 1 at dₖ = 4096: it waits for the answer.
    const unscaledCells = PANELS.map((p) => detail.unscaled[p.id].parentElement);
    for (const el of [table.querySelector('th.col-unscaled'), ...unscaledCells]) this.afterAnswer(el);
    const facts = h(
      'div',
      { class: 'facts' },
      h(
        'p',
        {},
        words`Length of the query: |${symbol('q')}| = ${spread}, about \u221a${symbol('d', 'k')}. Each score ${symbol('q')}\u00b7${symbol('k', 'j')} is a normal number with this standard deviation.`,
      ),
      h(
        'p',
        {},
        // The unscaled mean reads how close to 1 the largest weight comes: it waits for the answer.
        words`Mean largest weight over ${ROWS} rows at this ${symbol('d', 'k')}: ${this.afterAnswer(h('span', { class: 'mean-unscaled' }, meanMax.unscaled, ' unscaled, '))}${meanMax.scaled} scaled.`,
      ),
      h('p', {}, words`Most entropy, in bits, a row of ${symbol('T')} weights can have (all equal): ${maxEntropy}.`),
    );
    const barsBlock = h(
      'div',
      { class: 'bar-rows' },
      SERIES.map((s) =>
        h(
          'div',
          { class: 'bar-row', dataset: { series: s.id } },
          h('span', { class: `bar-label col-${s.id}` }, s.id === 'unscaled' ? 'Unscaled weights' : 'Scaled weights'),
          detail[s.id].bars,
        ),
      ),
    );
    // The sample row's unscaled weights drawn as bars: held as its numbers are.
    this.afterAnswer(barsBlock, '[data-series="unscaled"]');
    const formulas = displays(
      '\\alpha=\\operatorname{softmax}\\!\\Big(\\tfrac{s}{\\sqrt{d_k}}\\Big)',
      'H=-\\sum_j \\alpha_j\\log_2\\alpha_j',
      'J_{ij}=\\frac{\\partial\\alpha_i}{\\partial s_j}=\\alpha_i(\\delta_{ij}-\\alpha_j)',
    );
    // Every plotted value, one row per d_k.
    const heads = COLUMNS.map(([k, id]) => `${{ max: 'max', entropy: 'H', jacobian: '\u2016J\u2016' }[k]} (${id})`);
    const valueCells = DKS.map((dk) => COLUMNS.map(([k, id]) => num(`curve-${k}`, `${id}-${dk}`)));
    const valuesTable = tableOf({
      headers: [symbol('d', 'k'), ...heads],
      rows: DKS.map((dk, i) => bodyRow(String(dk), valueCells[i])),
    });
    // The unscaled series as numbers, held as the panels' unscaled curves are.
    const heldColumns = COLUMNS.flatMap(([, id], j) => (id === 'unscaled' ? [j + 2] : []));
    for (const j of heldColumns) this.afterAnswer(valuesTable, `tr > :nth-child(${j})`);
    const values = h(
      'details',
      { class: 'values' },
      h('summary', {}, 'The plotted values'),
      h('div', { class: 'values-scroll' }, valuesTable),
    );

    body.append(
      predict,
      controls,
      h('div', { class: 'layout' }, figure, h('div', { class: 'numbers' }, table, barsBlock, facts, formulas)),
      values,
    );
    this.#ui = { svg, x, panels, cursor, detail, dkText, spread, maxEntropy, meanMax, tokens, seed, valueCells };
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.tokens.set(state.tokens);
    setText(ui.tokens.out, String(state.tokens));
    ui.seed.sync(state.seed);
    setText(ui.dkText, state.dk);
    const i = DKS.indexOf(Number(state.dk));
    ui.svg.attr('aria-valuenow', i + 1).attr('aria-valuetext', `d\u2096 = ${state.dk}`);
    ui.cursor.attr('x1', ui.x(Number(state.dk))).attr('x2', ui.x(Number(state.dk)));
  }

  /**
   * The sample row at d_k (row 0 of the curves' rows): |q|, the scores, and
   * softmax unscaled and scaled with their measures.
   */
  #sample(ag, seed, tokens, dk) {
    const { q, s } = rowScores(ag, seed, tokens, dk, 0);
    const one = (options) => {
      const w = ag.softmax(s, options).data;
      return { weights: w, ...rowMeasures(ag, w) };
    };
    // softmax(s / sqrt(d_k)): the temperature sqrt(d_k) is an input of the kernel.
    return { scores: s, spread: ag.norm(q.data), unscaled: one(), scaled: one({ temperature: Math.sqrt(dk) }) };
  }

  #exp = this.experiment({
    progressLabel: 'Progress of the curves',
    cancelled: 'Cancelled. Change a setting or press \u201cRun again\u201d to compute the curves.',
    keyOf: ({ seed, tokens }) => (this.engine ? `${seed}/${tokens}` : null),
    job: (state, key) => this.#job(state, key),
  });
  #curves = null; // { key, rows: Map d_k -> curvesAt result }
  #drawn = null; // the curves the table and the figure show
  #sampleKey = null;
  #sampleRow = null;

  /** The worker job of the curves for (seed, tokens). */
  #job({ seed, tokens }, key) {
    return {
      job: { kind: 'scale-fix', dks: DKS, seed, tokens, rows: ROWS },
      text: `Computing ${ROWS} rows at each d\u2096 in a background worker\u2026`,
      onResult: (results) => {
        this.#curves = { key, rows: new Map(results.map((r) => [r.dk, r])) };
        if (this.engine) this.render(this.engine, this.state);
        return `Done: ${ROWS} rows of ${tokens} scores at each d\u2096, seed ${seed}.`;
      },
    };
  }

  render(ag, state) {
    const ui = this.#ui;
    const dk = Number(state.dk);
    const sampleKey = `${state.seed}/${state.tokens}/${dk}`;
    if (this.#sampleKey !== sampleKey || this.#sampleRow?.ag !== ag) {
      this.#sampleRow = { ag, ...this.#sample(ag, state.seed, state.tokens, dk) };
      this.#sampleKey = sampleKey;
    }
    const here = this.#sampleRow;
    for (const s of SERIES) {
      const d = ui.detail[s.id];
      const r = here[s.id];
      this.showAll(d, { max: r.max, entropy: r.entropy, jacobian: r.jacobian });
      // Bars: the weights themselves as lengths (drawing only).
      const bars = Array.from(r.weights, (w) => {
        const bar = h('span', { class: 'bar' });
        bar.style.transform = `scaleY(${w})`;
        return h('span', { class: 'bar-track' }, bar);
      });
      d.bars.replaceChildren(...bars);
    }
    this.show(ui.spread, here.spread);
    setAttr(this, 'data-dk', state.dk);
    this.#exp.want(state);
    const curves = this.#curves;
    if (!curves || curves.key !== this.#exp.key) return;
    // The table of every d_k and the curves depend on the rows, not on the
    // chosen d_k: moving the cursor only moves the dots.
    const fresh = this.#drawn !== curves;
    if (fresh) {
      const uniform = new Float32Array(state.tokens).fill(1 / state.tokens);
      this.show(ui.maxEntropy, ag.entropy(uniform));
      DKS.forEach((k, i) => {
        const r = curves.rows.get(k);
        COLUMNS.forEach(([k, id], j) => this.show(ui.valueCells[i][j], r[id][k].mean));
      });
      this.#drawn = curves;
    }
    for (const s of SERIES) this.show(ui.meanMax[s.id], curves.rows.get(dk)[s.id].max.mean);
    this.#draw(curves.rows, state, fresh);
  }

  #draw(rows, state, fresh) {
    const { x, panels } = this.#ui;
    const dk = Number(state.dk);
    const at = (k, id, p) => rows.get(k)[id][p];
    for (const p of panels) {
      if (fresh) {
        let top = 0;
        for (const k of DKS) for (const s of SERIES) top = Math.max(top, at(k, s.id, p.id).p90);
        p.y.domain(p.domain(state.tokens, top || 1)).nice();
        p.yAxis.selectAll('*').remove();
        axes(p.yAxis, PANEL, null, p.y, { yFormat: ',f', tickSize: 3 });
      }
      for (const s of SERIES) {
        if (fresh) {
          const band = area()
            .x((k) => x(k))
            .y0((k) => p.y(at(k, s.id, p.id).p10))
            .y1((k) => p.y(at(k, s.id, p.id).p90));
          p.bands[s.id].attr('d', band(DKS));
          p.paths[s.id].attr('d', line()(DKS.map((k) => [x(k), p.y(at(k, s.id, p.id).mean)])));
        }
        p.dots[s.id].attr('cx', x(dk)).attr('cy', p.y(at(dk, s.id, p.id).mean));
      }
    }
  }

  /** CSV: one row per d_k, both series: the mean and the 10th and 90th percentiles of each measure. */
  exportTable() {
    const stats = ['mean', 'p10', 'p90'];
    const columns = [
      'dk',
      ...COLUMNS.flatMap(([k, id]) => stats.map((q) => `${k}_${id}${q === 'mean' ? '' : `_${q}`}`)),
    ];
    const c = this.#curves;
    const rows = c
      ? DKS.map((dk) => [dk, ...COLUMNS.flatMap(([k, id]) => stats.map((q) => c.rows.get(dk)[id][k][q]))])
      : [];
    // Before the answer the unscaled series is held on screen, so it is left out here too.
    return withoutHeld({ columns, rows }, (name) => name.includes('_unscaled'), this.answerIsShown);
  }

  exportData() {
    const data = super.exportData();
    const r = this.#sampleRow;
    if (r)
      data.row = {
        dk: Number(this.state.dk),
        scores: Array.from(r.scores),
        ...(this.answerIsShown ? { unscaled: Array.from(r.unscaled.weights) } : {}), // held until the answer
        scaled: Array.from(r.scaled.weights),
      };
    return data;
  }
}

defineWidget('ag-scale-fix', AgScaleFix);
