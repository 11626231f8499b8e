// <ag-near-orthogonal>: chapter 13, "Near-orthogonality in high dimension", its
// first experiment (greedy packing, <ag-greedy-packing>, comes under it). The
// cosine of random pairs for d = 2 ... 1000 (ag.randomDotExperiment in the
// worker): small multiples on one axis, the selected d close up, its rms and
// mean |cos|. Numbers: the experiment's statistics, sqrt(d) = ag.norm(ones),
// products through ag.dot, the angle of 1/sqrt(d) = ag.angle(e1, ones) and of
// one random pair (ag.random.normal, ag.angle).
//
//   <ag-near-orthogonal d="100" pairs="2000"></ag-near-orthogonal>
import { create, select } from 'd3';
import { defineWidget } from '../widget/base.js';
import { bars, bins } from '../widget/bars.js';
import { axes, chartFigure, draw, label, xScale, yScale } from '../widget/charts.js';
import { h, markCurrent, setText, setValue, svg } from '../widget/dom.js';
import { ExperimentWidget, seedControls, settingSelect } from '../widget/experiment.js';
import { ownLayout } from '../widget/figure-layout.js';
import { deg, fmt } from '../widget/format.js';
import { choiceGroup, num, slots } from '../widget/controls.js';
import { formulas } from '../widget/math.js';
import { bodyRow, table } from '../widget/matrix-table.js';
import { choices, nearestChoice } from '../widget/predict.js';
import { keptResults } from '../widget/memo.js';
import { choice, defineState, dropFields, number } from '../widget/state.js';
import { hint } from '../widget/chapter-notes.js';
import { ones, unitVector } from '../models/tensor.js';

export const DIMS = [2, 3, 10, 100, 1000];
/** The dimension the prediction asks about. */
const QUESTION_D = 1000;
const PAIRS = ['2000', '10000', '50000'];
/** Histogram bins over [-1, 1): width 0.01, fine enough for d = 1000 (spread 0.03). */
const BINS = 200;
const SMALL_BINS = 40;
const MINI = { width: 120, height: 70, m: { l: 4, r: 4, t: 4, b: 14 } };
/** The close-up; its top margin holds the two line labels, clear of the lines and of each other. */
const DETAIL = { width: 360, height: 210, m: { l: 40, r: 10, t: 24, b: 40 } };

/** The roles of the table's columns after d (table-<role>, keyed by d). */
const TABLE_ROLES = ['rms', 'angle', 'rms-sqrt-d', 'mean-abs', 'mean-abs-sqrt-d'];

export class AgNearOrthogonal extends ExperimentWidget {
  static title = 'Near-orthogonality in high dimension';
  static styles = ['styles/experiment.css', 'styles/near-orthogonal.css'];
  static figureSelector = 'figure.detail svg';
  static stateDecl = defineState({
    version: 2,
    fields: {
      d: choice({ values: DIMS.map(String), default: '1000' }),
      pairs: choice({ values: PAIRS, default: '10000' }),
      seed: number({ min: 0, max: 4294967295, integer: true, default: 1 }),
    },
    // Version 1 held the packing experiment's fields too (now <ag-greedy-packing>).
    migrations: { 1: dropFields('eps', 'cand') },
  });

  #ui = null;
  #exp = this.experiment({
    attrs: ['hist-run', 'run'],
    progressLabel: 'Progress of the cosine experiment',
    run: { action: 'run-hist' },
    cancel: { action: 'cancel-hist' },
    keyOf: ({ pairs, seed }) => `${pairs}/${seed}`,
    job: ({ pairs, seed }, key) => this.#job(Number(pairs), seed, key),
  });
  #hist = null; // { key, pairs, results: [per d] }
  #minisOf = null; // the #hist the small multiples show (they do not change with d)
  #tableOf = null; // the #hist the table of all five shows, and the engine that wrote it
  #tableBy = null;
  #perDim = keptResults(64); // the module's numbers for one d (and result), kept while stepping through d
  #details = new Map(); // d -> the drawing of its close-up histogram
  #detailOf = null;

  build(body) {
    const predict = this.predict({
      id: 'random-angle-1000',
      question:
        'Pick two random directions in 1000 dimensions. Will the angle between them be closer to 0\u00b0, to 45\u00b0 or to 90\u00b0?',
      choices: choices({ 0: 'Closer to 0\u00b0', 45: 'About 45\u00b0', 90: 'Closer to 90\u00b0' }),
      misconceptions: {
        0: 'That expects random directions to agree: the products of their coordinates have random signs and mostly cancel, so the cosine shrinks like 1/\u221ad as d grows.',
        45: 'That carries the picture of two or three dimensions into many: there random angles spread widely, but in high dimensions the cosine of a random pair concentrates near zero, like 1/\u221ad.',
      },
      reveal: (_choice, ag) => {
        this.setState({ d: '1000' });
        const { a, b } = this.#pair(ag, 1000);
        const angle = (ag.angle(a, b) * 180) / Math.PI;
        const typical = ag.angle(unitVector(1000), ones(1000));
        return {
          answer: nearestChoice(['0', '45', '90'], angle),
          explanation: `One random pair drawn now is ${deg(ag.angle(a, b))} apart. Over many pairs the root mean square of cos \u03b8 is 1/\u221a1000, whose angle is ${deg(typical)}: at this dimension almost every pair is within a few degrees of a right angle.`,
        };
      },
    });

    const pairChoices = PAIRS.map((p) => [p, Number(p).toLocaleString('en-US')]);
    const pairsSelect = settingSelect('pairs', 'Random pairs per dimension', pairChoices, (pairs) =>
      this.setState({ pairs }),
    );
    const seed = seedControls(this);

    // The small multiples: one button per d (a radio group: arrow keys move, Tab enters once).
    const figs = DIMS.map((d) => {
      const fig = svg('svg', { class: 'mini', viewBox: '0 0 120 70', 'aria-hidden': 'true' });
      ownLayout(fig);
      // The question's dimension: its histogram, all near cos θ = 0, answers it, so it waits for the answer.
      return d === QUESTION_D ? this.afterAnswer(fig) : fig;
    });
    const group = choiceGroup({
      role: 'radiogroup',
      label: 'Dimension d (arrow keys)',
      class: 'multiples',
      items: DIMS,
      item: (d, i) => [
        { class: 'multiple', 'aria-checked': 'false', 'aria-label': `d = ${d}`, dataset: { dim: String(d) } },
        [h('span', { class: 'mini-label' }, `d = ${d}`), figs[i]],
      ],
      index: () => DIMS.indexOf(Number(this.state.d)),
      pick: (k) => this.setState({ d: String(DIMS[k]) }),
      say: (k) => {
        const r = this.#hist?.results[k];
        const stats = r ? `: root mean square of cos ${fmt(r.rms)}, mean absolute cos ${fmt(r.meanAbs)}` : '';
        this.announce(`d = ${DIMS[k]}${stats}`);
      },
      chosenClass: 'is-selected',
    });
    const multiples = figs.map((fig) => select(fig));

    const detail = chartFigure('detail', {
      box: DETAIL,
      label: 'Histogram of cos between random pairs for the selected d',
      caption: '',
    });
    const t = slots('rms rms-sqrt-d inv-sqrt-d rms-angle mean-abs mean-abs-sqrt-d mean pair-angle');
    const vs = (text) => h('span', { class: 'vs' }, text);
    const stats = h(
      'dl',
      { class: 'stats', 'aria-label': 'Statistics for the selected d' },
      h('dt', {}, h('span', { class: 'swatch swatch-rms' }), 'Root mean square of cos \u03b8'),
      h(
        'dd',
        {},
        [t.rms, vs(' (exactly 1/\u221ad = '), t.invSqrtD, vs(' in theory; measured \u00d7 \u221ad = ')],
        [t.rmsSqrtD, vs(')')],
      ),
      // The close-up opens at d = 1000, the question's dimension: its angles answer it, so they wait for the answer.
      ...this.afterAnswer([h('dt', {}, 'Angle whose cosine is 1/\u221ad'), h('dd', {}, t.rmsAngle)]),
      h('dt', {}, h('span', { class: 'swatch swatch-abs' }), 'Mean |cos \u03b8|'),
      h(
        'dd',
        {},
        [t.meanAbs, vs(' (measured \u00d7 \u221ad = '), t.meanAbsSqrtD],
        vs('; \u221a(2/\u03c0) \u2248 0.80 for large d)'),
      ),
      h('dt', {}, 'Mean of cos \u03b8'),
      h('dd', {}, t.mean),
      ...this.afterAnswer([h('dt', {}, 'One random pair drawn from the seed'), h('dd', {}, t.pairAngle, vs(' apart'))]),
    );
    const headers = [
      'd',
      'rms cos',
      'angle of 1/\u221ad',
      'rms \u00d7 \u221ad',
      'mean |cos|',
      'mean |cos| \u00d7 \u221ad',
    ];
    const dims = table({ className: 'dims', caption: 'All five dimensions', headers, rows: [] });

    body.append(
      predict,
      h('h3', {}, 'Cosines of random pairs'),
      formulas(
        '\\sqrt{\\mathbb E[\\cos^2\\theta]}=\\frac{1}{\\sqrt d}',
        '\\mathbb E\\,|\\cos\\theta|\\approx\\frac{\\sqrt{2/\\pi}}{\\sqrt d}\\approx\\frac{0.80}{\\sqrt d}',
      ),
      this.#exp.controls([['Pairs', pairsSelect]], seed),
      group.element,
      hint(
        'All five on the same axis, cos \u03b8 from \u22121 to 1. Pick one (click, or arrow keys) to see it close up.',
      ),
      h('div', { class: 'layout' }, h('div', { class: 'col' }, detail.fig), h('div', { class: 'col' }, stats)),
      h('div', { class: 'table-wrap' }, dims),
    );
    const tableBody = dims.tBodies[0];
    this.#ui = { pairsSelect, seed, group, multiples, ds: detail.s, detailCaption: detail.caption, t, tableBody };
  }

  syncControls({ d, pairs, seed }) {
    const ui = this.#ui;
    setValue(ui.pairsSelect, pairs);
    ui.seed.sync(seed);
    ui.group.set(DIMS.indexOf(Number(d)));
  }

  render(ag, state) {
    this.#exp.want(state);
    if (this.#hist && this.#hist.key === this.#exp.key) this.#draw(ag, state);
    else this.#drawPairAngle(ag, state);
  }

  /** Two random directions of dimension d from the seed (counters far from the experiment's). */
  #pair(ag, d) {
    const seed = this.state.seed;
    const n = Math.ceil(d / 4) * 4;
    const a = ag.random.normal({ seed, counter: 2 ** 30, n }).data.subarray(0, d);
    const b = ag.random.normal({ seed, counter: 2 ** 30 + n, n }).data.subarray(0, d);
    return { a, b };
  }

  /** The run of the five histograms: `pairs` random pairs of each dimension. */
  #job(pairs, seed, key) {
    const calls = DIMS.map((d) => ({
      method: 'randomDotExperiment',
      args: [{ d, trials: pairs, seed, measure: 'cosine', bins: BINS, range: [-1, 1], returnSamples: false }],
      work: pairs * (d + 8),
    }));
    const many = pairs.toLocaleString('en-US');
    return {
      job: { kind: 'calls', calls },
      text: `Drawing ${many} random pairs for each d in a background worker\u2026`,
      onResult: (results) => {
        this.#hist = { key, pairs, results };
        if (this.engine) this.#draw(this.engine, this.state);
        return `Done: ${many} pairs for each d, seed ${seed}.`;
      },
    };
  }

  #drawPairAngle(ag, state) {
    const d = Number(state.d);
    const angle = this.#perDim(ag, `pair|${d}|${state.seed}`, () => {
      const { a, b } = this.#pair(ag, d);
      return ag.angle(a, b);
    });
    this.show(this.#ui.t.pairAngle, angle, { format: deg });
  }

  #draw(ag, state) {
    const ui = this.#ui;
    const { results, pairs } = this.#hist;
    const d = Number(state.d);
    const r = results[DIMS.indexOf(d)];
    if (this.#minisOf !== this.#hist) {
      results.forEach((res, j) => this.#drawMini(ui.multiples[j], res.histogram.counts, pairs));
      this.#minisOf = this.#hist;
    }
    const n = this.#dimNumbers(ag, d, r);
    const t = ui.t;
    this.showAll(t, { rms: r.rms, invSqrtD: n.invSqrtD, rmsSqrtD: n.rmsSqrtD });
    this.show(t.rmsAngle, n.rmsAngle, { format: deg });
    this.showAll(t, { meanAbs: r.meanAbs, meanAbsSqrtD: n.meanAbsSqrtD, mean: r.mean });
    this.#drawPairAngle(ag, state);
    this.#drawDetail(r, d, pairs);
    setText(
      ui.detailCaption,
      d === QUESTION_D && !this.answerIsShown
        ? `d = ${d}: its close-up is drawn once you answer the prediction. Pick another d to see its histogram.`
        : `d = ${d}, ${pairs.toLocaleString('en-US')} pairs. Solid lines: \u00b1 root mean square of cos. Dashed: \u00b1 mean |cos|.`,
    );
    // The table of all five: written once per result (and engine); stepping through d moves the highlight.
    if (this.#tableOf !== this.#hist || this.#tableBy !== ag) {
      ui.tableBody.replaceChildren(
        ...DIMS.map((dd, j) => {
          const m = this.#dimNumbers(ag, dd, results[j]);
          const values = [results[j].rms, m.rmsAngle, m.rmsSqrtD, results[j].meanAbs, m.meanAbsSqrtD];
          const cells = TABLE_ROLES.map((role, i) => {
            const cell = num(`table-${role}`, String(dd));
            this.show(cell, values[i], { format: i === 1 ? deg : undefined });
            return cell;
          });
          const row = bodyRow(String(dd), cells, { dataset: { d: String(dd) } });
          // The row of d = 1000 is the question's dimension: its angle answers it, so it waits for the answer.
          return dd === QUESTION_D ? this.afterAnswer(row) : row;
        }),
      );
      this.#tableOf = this.#hist;
      this.#tableBy = ag;
    }
    for (const tr of ui.tableBody.children) markCurrent(tr, 'is-selected', Number(tr.dataset.d) === d);
  }

  /** The module's numbers for dimension d and its result r, kept per result and d (stepping through d reuses them). */
  #dimNumbers(ag, d, r) {
    return this.#perDim(ag, `hist|${this.#hist.key}|${d}`, () => {
      const sqrtD = ag.norm(ones(d));
      return {
        invSqrtD: ag.cosine(unitVector(d), ones(d)),
        rmsSqrtD: ag.dot([r.rms], [sqrtD]),
        rmsAngle: ag.angle(unitVector(d), ones(d)),
        meanAbsSqrtD: ag.dot([r.meanAbs], [sqrtD]),
      };
    });
  }

  /** A small multiple: the 200 counts summed in groups of 5 (drawing only). */
  #drawMini(s, counts, pairs) {
    const group = BINS / SMALL_BINS;
    const heights = Array.from({ length: SMALL_BINS }, (_, k) => {
      let c = 0;
      for (let q = 0; q < group; q++) c += counts[k * group + q];
      return c / pairs;
    });
    const { width: W, height: H, m } = MINI;
    const x = xScale(MINI, [-1, 1]);
    const y = yScale(MINI, [0, Math.max(...heights, 1e-9)]);
    s.selectAll('*').remove();
    const bin = bins(x, { lo: -1, width: 2 / SMALL_BINS, gap: 0.5 });
    bars(draw(s, 'g', { class: 'bars' }), null, heights, { x, y, ...bin });
    draw(s, 'line', { class: 'base', x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b });
    for (const v of [-1, 0, 1])
      label(s, 'tick', v === -1 ? '\u22121' : String(v), x(v), H - 3).attr(
        'text-anchor',
        v < 0 ? 'start' : v > 0 ? 'end' : 'middle',
      );
  }

  /**
   * The close-up histogram of dimension d. Each d's drawing is made once per
   * result (the bins, marks and axes of the five differ) and kept; stepping
   * through d puts the kept drawing in the figure.
   */
  #drawDetail(r, d, pairs) {
    if (this.#detailOf !== this.#hist) {
      this.#details.clear();
      this.#detailOf = this.#hist;
    }
    let g = this.#details.get(d);
    if (!g) {
      g = this.#detailDrawing(r, d, pairs);
      this.#details.set(d, g);
    }
    if (g.dataset.afterAnswer === 'held' && this.answerIsShown) this.afterAnswer(g); // kept from before the answer
    const s = this.#ui.ds.node();
    if (s.firstChild !== g || s.childNodes.length !== 1) s.replaceChildren(g);
  }

  /** A new (detached) drawing of the close-up histogram of dimension d. */
  #detailDrawing(r, d, pairs) {
    const { height: H, m } = DETAIL;
    // Close up: the bins within ±5/sqrt(d) (all of [-1, 1) for small d); drawing only.
    const half = Math.min(1, 5 / Math.sqrt(d));
    const width = 2 / BINS;
    const from = Math.max(0, Math.floor((1 - half) / width));
    const to = Math.min(BINS, BINS - from);
    const lo = -1 + from * width;
    const heights = Array.from(r.histogram.counts.slice(from, to), (c) => c / (pairs * width));
    const x = xScale(DETAIL, [lo, -1 + to * width]);
    const y = yScale(DETAIL, [0, Math.max(...heights, 1e-9) * 1.1]);
    const s = create('svg:g').attr('class', 'detail').attr('data-dim', d);
    if (d === QUESTION_D) this.afterAnswer(s.node()); // the question's dimension: its close-up answers it
    bars(draw(s, 'g', { class: 'bars' }), null, heights, { x, y, ...bins(x, { lo, width, gap: 0.5 }) });
    const marks = draw(s, 'g', { class: 'marks' });
    for (const [v, cls] of [r.rms, -r.rms, r.meanAbs, -r.meanAbs].map((v, i) => [v, i < 2 ? 'mark-rms' : 'mark-abs']))
      draw(marks, 'line', { class: cls, x1: x(v), x2: x(v), y1: m.t, y2: H - m.b });
    // The labels sit in the top margin, above the lines they name: "rms" starts at the line at +rms, "mean |cos|"
    // ends at the line at -mean |cos|, on the other side of 0, so they cross no line and never meet.
    label(s, 'mark-label label-rms', 'rms', x(r.rms), m.t - 6).attr('text-anchor', 'start');
    label(s, 'mark-label label-abs', 'mean |cos|', x(-r.meanAbs), m.t - 6).attr('text-anchor', 'end');
    axes(s, DETAIL, x, y, { xLabel: `cos \u03b8, d = ${d}`, xLabelY: H - 4 });
    return s.node();
  }
}

defineWidget('ag-near-orthogonal', AgNearOrthogonal);
