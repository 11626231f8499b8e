// <ag-kv-cache>: part 3, "The KV cache". A decoder makes one token at a time,
// and token t attends to keys 1..t. The keys and values of past tokens never
// change, so they are kept: step t passes the new token's q, k, v with the
// cache of steps 1..t − 1 (pastKey, pastValue) and gets y_t and the cache
// grown by one row (presentKey, presentValue), fed to the next step. Row t of
// causal attention over all t tokens is the same y_t, bit for bit: a row is
// computed on its own, the same t dot products, max, exps, sum and mix of
// values in the same order (on each path; the streaming and the materialized
// path differ from each other in the last bits). Cost per step: t scores with
// the cache, t(t + 1)/2 recomputing. Numbers: ag.attention (the decode steps
// and the causal recomputations, with weights and scores), ag.dot (the counts
// of visible scores and their sums).
// Sources: Vaswani et al. 2017 (the decoder, with the causal mask); Shazeer
// 2019, "Fast Transformer Decoding: One Write-Head is All You Need" (incremental
// decoding with cached keys and values, and their memory).
//
//   <ag-kv-cache t="5"></ag-kv-cache>
import { AgWidget, defineWidget } from '../widget/base.js';
import { axes, bandScale, chartFigure, draw, legend, yScale } from '../widget/charts.js';
import { button, lbl, line, num, nums } from '../widget/controls.js';
import { bars } from '../widget/bars.js';
import { fieldSlider } from '../widget/field-controls.js';
import { sources } from '../widget/chapter-notes.js';
import { h, handOffFocus, markCurrent, setFlag, setText } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { bodyRow, table } from '../widget/matrix-table.js';
import { choices } from '../widget/predict.js';
import { defineState, number } from '../widget/state.js';
import { D, K, Q, STEPS, T, V, WORDS, decode, sameBits, slice } from '../models/kv-cache.js';

const BOX = { width: 360, height: 190, m: { l: 34, r: 8, t: 40, b: 32 } };
const three = (v) => formatNumber(v, 3);

/** The step t: tokens 1..t are decoded, token t is the new one. */
const STATE = defineState({
  version: 1,
  fields: { t: number({ min: 1, max: T, integer: true, default: 4 }) },
});

export class AgKvCache extends AgWidget {
  static title = 'The KV cache';
  static styles = ['styles/kv-cache.css'];
  static figureSelector = 'svg.plot';
  static stateDecl = STATE;

  #ui = null;
  #decode = lastResult();
  #drawn = null;
  #last = null;

  build(body) {
    const predict = this.predict({
      id: 'same-output',
      question:
        'Step 5: q\u2085 attends over the cache of keys 1..5. Instead, recompute causal attention over all five tokens at once and take its row 5. Is it the same y\u2085?',
      choices: choices({
        bits: 'The same, bit for bit',
        close: 'The same up to rounding in the last bits',
        differ: 'Different: the cache misses what the other rows add',
      }),
      misconceptions: {
        close:
          'That expects the cache to change the order of the floating-point work: row 5 is computed on its own either way, the same operations in the same order, so the floats agree exactly.',
        differ:
          'That thinks the other rows feed into row 5: under the causal mask a row sees only its own query and the keys up to it, which is what the cache holds.',
      },
      reveal: (_choice, ag) => {
        this.setState({ t: 5 });
        const [q, k, v] = [Q, K, V].map((rows) => slice(rows, 4, 5));
        const [pk, pv] = [K, V].map((rows) => slice(rows, 0, 4));
        const y = ag.attention(q, k, v, { pastKey: pk, pastValue: pv, returnWeights: true }).output.data;
        const all = ag.attention(slice(Q, 0, 5), slice(K, 0, 5), slice(V, 0, 5), { causal: true, returnWeights: true });
        const row = all.output.data.subarray(4 * D, 5 * D);
        const gap = Math.max(...Array.from(y, (x, c) => Math.abs(x - row[c])));
        const answer = sameBits(y, row) ? 'bits' : gap < 1e-6 ? 'close' : 'differ';
        return {
          answer,
          explanation: `With the cache y\u2085 = (${fmt(y[0])}, ${fmt(y[1])}); row 5 of the causal pass is (${fmt(row[0])}, ${fmt(row[1])}), ${answer === 'bits' ? 'the same floats, bit for bit' : 'not the same floats'}. Row 5 sees keys 1..5 and nothing else, and the kernel computes each row on its own: the same five dot products, max, exps, sum and mix of values, in the same order. The other four rows are work thrown away.`,
        };
      },
    });

    const toStep = (t) => {
      this.setState({ t });
      this.announce(this.#say());
    };
    const stepSlider = fieldSlider(this, {
      field: 't',
      id: 'kv-t',
      min: 1,
      max: T,
      label: 'Step t',
      say: () => this.#say(),
    });
    const restart = button({ dataset: { action: 'restart' } }, 'Start over', () => toStep(1));
    const next = button({ dataset: { action: 'next' } }, 'Next token \u25b6');
    next.addEventListener(
      'click',
      handOffFocus(
        next,
        () => restart,
        () => toStep(Math.min(T, this.state.t + 1)),
      ),
    );
    const tokens = WORDS.map((w) => h('span', { class: 'token' }, w));
    const newLine = h('p', { class: 'new-token' });

    // The cache: one row per decoded token, its key and value (from presentKey, presentValue) and its weight.
    const cells = K.map((_, j) => ({
      k: Array.from({ length: D }, (_, c) => num('k', `${j + 1}-${c + 1}`)),
      v: Array.from({ length: D }, (_, c) => num('v', `${j + 1}-${c + 1}`)),
      weight: num('weight', j + 1),
      fill: h('span', { class: 'bar-fill' }),
    }));
    const rows = cells.map((c, j) =>
      bodyRow(`${j + 1} ${WORDS[j]}`, [
        ...c.k,
        ...c.v,
        { text: [c.weight, h('span', { class: 'bar', 'aria-hidden': 'true' }, c.fill)], class: 'c-weight' },
      ]),
    );
    const weightHead = h('span', {});
    const cache = table({
      className: 'steps cache',
      caption: 'The cache: the keys and values of tokens 1..t, and the weights of the new query over them',
      headers: ['token', 'K\u2c7c\u2081', 'K\u2c7c\u2082', 'V\u2c7c\u2081', 'V\u2c7c\u2082', weightHead],
      rows,
    });

    const ui = {
      stepSlider,
      next,
      tokens,
      newLine,
      cells,
      rows,
      weightHead,
      y: nums('y', D),
      yFull: nums('y-full', D),
    };
    Object.assign(ui, { yLabel: lbl(''), rowLabel: lbl(''), costLine: lbl(''), sumLine: lbl('') });
    ui.verdict = h('p', { class: 'verdict', dataset: { role: 'verdict' } });
    ui.cost = { cached: num('scores-cached'), full: num('scores-full') };
    ui.sum = { cached: num('sum-cached'), full: num('sum-full') };
    const { y, yFull, yLabel, rowLabel, verdict, cost, sum, costLine, sumLine } = ui;
    const chart = chartFigure('work', {
      box: BOX,
      label: `Scores needed at each step t = 1 to ${T}: with the cache and recomputing every query`,
      caption:
        'Bars: the scores q\u00b7k each step needs, counted from the calls\u2019 scores; the current step is marked.',
    });
    body.append(
      predict,
      h('p', { class: 'tokens', 'aria-label': 'The sentence, one token per step' }, tokens),
      h('div', { class: 'stepper' }, stepSlider.row, h('div', { class: 'step-buttons' }, next, restart)),
      newLine,
      h('div', { class: 'cache-wrap' }, cache),
      h(
        'section',
        { class: 'same', 'aria-label': 'The same output as recomputing' },
        line(yLabel, '(', y[0], ', ', y[1], ')'),
        // Held: the recomputed row and the verdict answer the prediction (cache against recomputing).
        this.afterAnswer(
          h('div', { class: 'recomputed' }, line(rowLabel, '(', yFull[0], ', ', yFull[1], ')'), verdict),
        ),
      ),
      h(
        'section',
        { class: 'cost', 'aria-label': 'Cost per step' },
        line(costLine, cost.cached, lbl(' scores with the cache, '), cost.full, lbl(' recomputing.')),
        line(sumLine, sum.cached, lbl(' against '), sum.full, lbl('.')),
        chart.fig,
      ),
      formulas(
        'y_t=\\operatorname{softmax}\\Big(\\frac{q_t K_{1:t}^{\\mathsf T}}{\\sqrt{d_k}}\\Big)V_{1:t}',
        'K_{1:t}=\\begin{pmatrix}K_{1:t-1}\\\\ k_t\\end{pmatrix}',
        'V_{1:t}=\\begin{pmatrix}V_{1:t-1}\\\\ v_t\\end{pmatrix}',
        '\\sum_{t=1}^{T} t=\\frac{T(T+1)}{2}',
        '\\sum_{t=1}^{T}\\tfrac{t(t+1)}{2}=\\tfrac{T(T+1)(T+2)}{6}',
      ),
      h(
        'p',
        { class: 'memory' },
        'A real model keeps a key and a value per token for every layer and every key/value head: 2\u00b7layers\u00b7h_kv\u00b7d_k numbers per token (Llama 2 7B: 2\u00b732\u00b732\u00b7128 = 262,144, half a MiB in 16-bit floats). Sharing keys between heads (chapter 28, Sharing keys) makes h_kv smaller.',
      ),
      sources(
        'Sources: Vaswani et al. 2017 (the decoder and its causal mask); Shazeer 2019, Fast Transformer Decoding (incremental decoding with cached keys and values).',
      ),
    );
    this.#ui = { ...ui, chart: chart.s };
  }

  /** What a step move says: the step, its token, y_t and its cost. */
  #say() {
    const { t } = this.state;
    const ui = this.#ui;
    return `step ${t}, \u201c${WORDS[t - 1]}\u201d: y${sub(t)} = (${ui.y[0].textContent}, ${ui.y[1].textContent}); ${ui.cost.cached.textContent} scores with the cache, ${ui.cost.full.textContent} recomputing`;
  }

  syncControls({ t }) {
    const ui = this.#ui;
    ui.stepSlider.set(t, String(t), `step ${t}, \u201c${WORDS[t - 1]}\u201d`);
    setFlag(ui.next, 'disabled', t === T);
    ui.tokens.forEach((el, i) => {
      markCurrent(el, 'is-current', i === t - 1);
      el.classList.toggle('is-future', i >= t);
    });
    setText(
      ui.newLine,
      `New token ${t}, \u201c${WORDS[t - 1]}\u201d: its q${sub(t)} = (${Q[t - 1].map(fmt).join(', ')}) asks; its k${sub(t)} and v${sub(t)} join the cache (the marked row).`,
    );
    setText(ui.weightHead, `a${sub(t)}\u2c7c`);
    setText(ui.yLabel, `With the cache, y${sub(t)} = `);
    setText(ui.rowLabel, `Row ${t} of causal attention over tokens 1..${t} = `);
    setText(ui.costLine, `Step ${t} needs `);
    setText(ui.sumLine, `Steps 1 to ${t} in all: `);
  }

  render(ag, { t }) {
    const ui = this.#ui;
    const run = this.#decode(ag, '', () => decode(ag));
    const s = run.steps[t - 1];
    const { presentKey, presentValue, weights, output } = s.step;
    ui.cells.forEach((c, j) => {
      const here = j < t;
      setFlag(ui.rows[j], 'hidden', !here);
      markCurrent(ui.rows[j], 'is-current', j === t - 1);
      // A row beyond step t shows nothing, and its numbers leave the exports.
      if (!here)
        return this.notShown(
          [...c.k, ...c.v, c.weight].filter((e) => e.dataset.value !== undefined),
          '',
        );
      c.k.forEach((el, i) => this.show(el, presentKey.data[j * D + i], { format: three }));
      c.v.forEach((el, i) => this.show(el, presentValue.data[j * D + i], { format: three }));
      this.show(c.weight, weights.data[j], { format: three });
      c.fill.style.transform = `scaleX(${weights.data[j]})`;
    });
    ui.y.forEach((el, i) => this.show(el, output.data[i]));
    ui.yFull.forEach((el, i) => this.show(el, s.row[i]));
    setText(
      ui.verdict,
      s.same && s.streamedSame
        ? `The same floats, bit for bit. Without weights (the streaming path a decoder takes) the two are equal bit for bit too. Row ${t} sees keys 1..${t} only, and the kernel computes a row on its own: the same ${t} dot products, max, exps, sum and mix of values, in the same order. (The two paths order their sums differently, so between paths the last bits may differ.)`
        : `Not the same floats: ${s.same ? 'the streaming path' : 'the path with weights'} gives another last bit.`,
    );
    this.show(ui.cost.cached, s.cost[0]);
    this.show(ui.cost.full, s.cost[1]);
    this.show(ui.sum.cached, run.sums[t - 1][0]);
    this.show(ui.sum.full, run.sums[t - 1][1]);
    this.#chart(run, t);
    this.#last = run;
  }

  /** The bars of every step (drawn once per decode), and the mark on step t. */
  #chart(run, t) {
    const s = this.#ui.chart;
    if (this.#drawn?.run !== run) {
      s.selectAll('*').remove();
      const x = bandScale(STEPS, [BOX.m.l, BOX.width - BOX.m.r], 0.2);
      const y = yScale(BOX, [0, Math.max(...run.per[1])]).nice();
      const mark = draw(s, 'rect', { class: 'step-mark', y: BOX.m.t - 4, height: BOX.height - BOX.m.b - BOX.m.t + 4 });
      axes(s, BOX, null, y, { yTicks: 4, yLabel: 'scores' });
      axes(s, BOX, x, null, { xLabel: 'step t', xLabelY: BOX.height - 2 });
      const w = x.bandwidth() / 2;
      ['cached', 'full'].forEach((side, i) =>
        bars(draw(s, 'g', { class: `bars ${side}` }), null, run.per[i], {
          x,
          y,
          key: (_, k) => STEPS[k],
          shift: i * w,
          width: w,
        }),
      );
      legend(
        s,
        [BOX.m.l + 10, 10],
        [
          ['cached', 'with the cache: t'],
          ['full', 'recomputing: t(t + 1)/2'],
        ],
      );
      this.#drawn = { run, x, mark };
    }
    const { x, mark } = this.#drawn;
    mark.attr('x', x(t) - (x.step() - x.bandwidth()) / 2).attr('width', x.step());
  }

  /** JSON: the numbers shown now (rows of the cache beyond step t are empty), and the count of every step. */
  exportData() {
    const data = super.exportData();
    if (this.#last) data.scoresPerStep = { cached: this.#last.per[0], recomputed: this.#last.per[1] };
    return data;
  }

  /** CSV: the numbers shown now, then the scores of every step as cached.<t> and recomputed.<t>. */
  exportTable() {
    const { columns, rows } = super.exportTable();
    const per = this.#last?.per ?? [[], []];
    STEPS.forEach((t, i) => per[0].length && rows.push([`cached.${t}`, per[0][i]], [`recomputed.${t}`, per[1][i]]));
    return { columns, rows };
  }
}

defineWidget('ag-kv-cache', AgKvCache);
