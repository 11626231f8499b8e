// <ag-near-orthogonal>: chapter 13, "Near-orthogonality in high dimension".
// Two seeded experiments, each run in a Web Worker (widget/worker-client.js)
// with a progress bar and a cancel button:
//  1. the cosine between random pairs (ag.randomDotExperiment, measure
//     'cosine') for d = 2, 3, 10, 100, 1000: one histogram per d on a common
//     axis (small multiples; one is selected and drawn larger), with the root
//     mean square of cos (1/sqrt(d)) and the mean |cos| (about
//     sqrt(2/pi)/sqrt(d)) both shown under their own names;
//  2. greedy packing (ag.greedyPacking, continued call after call): how many
//     random directions stay pairwise within ±epsilon of perpendicular, for d
//     from 2 to 256, against the line "count = d".
// Every number shown is the return value of one wasm call: the statistics of
// an experiment call, sqrt(d) as the norm of d ones, products of two results
// through ag.dot([x], [y]), the angle whose cosine is exactly 1/sqrt(d) as
// ag.angle(e1, ones(d)) (shown in degrees: formatting), the angle of one
// random pair from ag.random.normal and ag.angle, and the kept count of the
// last greedyPacking call for each d.
//
//   <ag-near-orthogonal d="100" eps="0.2"></ag-near-orthogonal>
import { axisBottom, axisLeft, create, line, scaleLinear, scaleLog, select } from 'd3';
import { AgWidget, defineWidget } from '../widget/base.js';
import { focusInPlace, h, handOffFocus, markCurrent, setAttr, setFlag, setText, setValue, svg } from '../widget/dom.js';
import { ownLayout } from '../widget/figure-layout.js';
import { formatNumber } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { keptResults } from '../widget/memo.js';
import { choice, defineState, number } from '../widget/state.js';
import { CancelledError, ExperimentClient } from '../widget/worker-client.js';

export const DIMS = [2, 3, 10, 100, 1000];
/** Histogram bins over [-1, 1): width 0.01, fine enough for d = 1000 (spread 0.03). */
const BINS = 200;
const SMALL_BINS = 40;
const EPS = ['0.1', '0.15', '0.2', '0.25', '0.3'];
/** The packing sweep; a wider band keeps many more directions, so it stops earlier (the work grows with the count). */
const PACK_DIMS = [2, 3, 4, 8, 16, 32, 64, 96, 128, 192, 256];
const PACK_MAX_D = { 0.1: 256, 0.15: 256, 0.2: 256, 0.25: 128, 0.3: 96 };

const fmt = (x) => formatNumber(x, 4);
const deg = (radians) => `${formatNumber((radians * 180) / Math.PI, 4)}\u00b0`;
const ones = (d) => new Float32Array(d).fill(1);
const e1 = (d) => {
  const v = new Float32Array(d);
  v[0] = 1;
  return v;
};

export function packDims(eps) {
  const max = PACK_MAX_D[eps] ?? 256;
  return PACK_DIMS.filter((d) => d <= max);
}

export class AgNearOrthogonal extends AgWidget {
  static title = 'Near-orthogonality in high dimension';
  static styles = ['styles/near-orthogonal.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      d: choice({ values: DIMS.map(String), default: '1000' }),
      pairs: choice({ values: ['2000', '10000', '50000'], default: '10000' }),
      seed: number({ min: 0, max: 4294967295, integer: true, default: 1 }),
      eps: choice({ values: EPS, default: '0.2' }),
      cand: choice({ values: ['5000', '20000'], default: '20000' }),
    },
  });

  #ui = null;
  #histClient = new ExperimentClient();
  #packClient = new ExperimentClient();
  #histKey = null; // the (pairs, seed) of the running or shown histograms
  #packKey = null; // the (eps, cand, seed) of the running or shown packing run
  #hist = null; // { key, pairs, results: [per d] }
  #pack = null; // { key, eps, rows: [{ d, kept }] }
  #minisOf = null; // the #hist the small multiples show (they do not change with d)
  #packShown = null; // the #pack the packing plot and list show
  #tableOf = null; // the #hist the table of all five shows, and the engine that wrote it
  #tableBy = null;
  #packLive = []; // partial counts while running (drawing only)
  #perDim = keptResults(64); // the module's numbers for one d (and result), kept while stepping through d
  #details = new Map(); // d -> the drawing of its close-up histogram, for #detailOf
  #detailOf = null;

  build(body) {
    const predict = this.predict({
      id: 'random-angle-1000',
      question:
        'Pick two random directions in 1000 dimensions. Will the angle between them be closer to 0\u00b0, to 45\u00b0 or to 90\u00b0?',
      choices: [
        { value: '0', label: 'Closer to 0\u00b0' },
        { value: '45', label: 'About 45\u00b0' },
        { value: '90', label: 'Closer to 90\u00b0' },
      ],
      reveal: (_choice, ag) => {
        this.setState({ d: '1000' });
        const { a, b } = this.#pair(ag, 1000);
        const angle = ag.angle(a, b);
        const answer = ['0', '45', '90'].reduce(
          (best, c) =>
            Math.abs((angle * 180) / Math.PI - Number(c)) < Math.abs((angle * 180) / Math.PI - Number(best)) ? c : best,
          '0',
        );
        const typical = ag.angle(e1(1000), ones(1000));
        return {
          answer,
          explanation: `One random pair drawn now is ${deg(angle)} apart. Over many pairs the root mean square of cos \u03b8 is 1/\u221a1000, whose angle is ${deg(typical)}: at this dimension almost every pair is within a few degrees of a right angle.`,
        };
      },
    });

    // ---- Part 1: cosines of random pairs.
    const pairsSelect = h(
      'select',
      { 'aria-label': 'Random pairs per dimension', dataset: { control: 'pairs' } },
      ['2000', '10000', '50000'].map((p) => h('option', { value: p }, Number(p).toLocaleString('en-US'))),
    );
    pairsSelect.addEventListener('change', () => this.setState({ pairs: pairsSelect.value }));
    const seedInput = h('input', {
      type: 'number',
      min: 0,
      max: 4294967295,
      step: 1,
      inputmode: 'numeric',
      class: 'seed',
      'aria-label': 'Seed',
      dataset: { control: 'seed' },
    });
    seedInput.addEventListener('change', () => {
      const v = Number(seedInput.value);
      if (Number.isInteger(v) && v >= 0 && v <= 4294967295) this.setState({ seed: v });
    });
    const newSeed = h('button', { type: 'button', dataset: { action: 'new-seed' } }, 'New seed');
    newSeed.addEventListener('click', () => this.setState({ seed: (this.state.seed + 1) % 4294967296 }));
    const histCancel = h('button', { type: 'button', dataset: { action: 'cancel-hist' }, disabled: true }, 'Cancel');
    histCancel.addEventListener(
      'click',
      handOffFocus(
        histCancel,
        () => histRerun,
        () => this.#cancelHist(),
      ),
    );
    const histRerun = h('button', { type: 'button', dataset: { action: 'run-hist' } }, 'Run again');
    histRerun.addEventListener('click', () => {
      this.#histKey = null;
      this.#startHist(this.state);
    });
    const histProgress = h('progress', { max: 1, value: 0, 'aria-label': 'Progress of the cosine experiment' });
    const histStatus = h('p', { class: 'status', role: 'status' }, '');

    // The small multiples: one button per d (a radio group: arrow keys move, Tab enters once).
    const multiples = DIMS.map((d) => {
      const fig = svg('svg', { class: 'mini', viewBox: '0 0 120 70', 'aria-hidden': 'true' });
      ownLayout(fig); // laid out on its own (widget/figure-layout.js)
      const button = h(
        'button',
        {
          type: 'button',
          role: 'radio',
          class: 'multiple',
          'aria-checked': 'false',
          'aria-label': `d = ${d}`,
          dataset: { dim: String(d) },
        },
        h('span', { class: 'mini-label' }, `d = ${d}`),
        fig,
      );
      button.addEventListener('click', () => this.setState({ d: String(d) }));
      return { d, button, s: select(fig) };
    });
    const group = h(
      'div',
      { class: 'multiples', role: 'radiogroup', 'aria-label': 'Dimension d (arrow keys)' },
      multiples.map((m) => m.button),
    );
    group.addEventListener('keydown', (event) => {
      const i = DIMS.indexOf(Number(this.state.d));
      let j = null;
      if (event.key === 'ArrowRight' || event.key === 'ArrowDown') j = Math.min(DIMS.length - 1, i + 1);
      else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') j = Math.max(0, i - 1);
      else if (event.key === 'Home') j = 0;
      else if (event.key === 'End') j = DIMS.length - 1;
      if (j === null) return;
      event.preventDefault();
      focusInPlace(multiples[j].button);
      this.setState({ d: String(DIMS[j]) });
      const r = this.#hist?.results[j];
      this.announce(
        r
          ? `d = ${DIMS[j]}: root mean square of cos ${fmt(r.rms)}, mean absolute cos ${fmt(r.meanAbs)}`
          : `d = ${DIMS[j]}`,
      );
    });

    const num = (role, key) =>
      h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
    const detailFig = h('figure', { class: 'fig detail' });
    const ds = select(detailFig).append(() =>
      svg('svg', {
        class: 'plot',
        viewBox: '0 0 360 210',
        role: 'img',
        'aria-label': 'Histogram of cos between random pairs for the selected d',
      }),
    );
    ownLayout(ds); // laid out on its own (widget/figure-layout.js)
    const detailCaption = h('figcaption', {}, '');
    detailFig.append(detailCaption);
    const detail = {
      rms: num('rms'),
      rmsScaled: num('rms-sqrt-d'),
      theory: num('inv-sqrt-d'),
      angle: num('rms-angle'),
      meanAbs: num('mean-abs'),
      meanAbsScaled: num('mean-abs-sqrt-d'),
      mean: num('mean'),
      pairAngle: num('pair-angle'),
    };
    const stats = h(
      'dl',
      { class: 'stats', 'aria-label': 'Statistics for the selected d' },
      h('dt', {}, h('span', { class: 'swatch swatch-rms' }), 'Root mean square of cos \u03b8'),
      h(
        'dd',
        {},
        detail.rms,
        h('span', { class: 'vs' }, ' (exactly 1/\u221ad = '),
        detail.theory,
        h('span', { class: 'vs' }, ' in theory; measured \u00d7 \u221ad = '),
        detail.rmsScaled,
        h('span', { class: 'vs' }, ')'),
      ),
      h('dt', {}, 'Angle whose cosine is 1/\u221ad'),
      h('dd', {}, detail.angle),
      h('dt', {}, h('span', { class: 'swatch swatch-abs' }), 'Mean |cos \u03b8|'),
      h(
        'dd',
        {},
        detail.meanAbs,
        h('span', { class: 'vs' }, ' (measured \u00d7 \u221ad = '),
        detail.meanAbsScaled,
        h('span', { class: 'vs' }, '; \u221a(2/\u03c0) \u2248 0.80 for large d)'),
      ),
      h('dt', {}, 'Mean of cos \u03b8'),
      h('dd', {}, detail.mean),
      h('dt', {}, 'One random pair drawn from the seed'),
      h('dd', {}, detail.pairAngle, h('span', { class: 'vs' }, ' apart')),
    );
    const tableBody = h('tbody', {});
    const table = h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'dims' },
        h('caption', {}, 'All five dimensions'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'd'),
            h('th', { scope: 'col' }, 'rms cos'),
            h('th', { scope: 'col' }, 'its angle'),
            h('th', { scope: 'col' }, 'mean |cos|'),
          ),
        ),
        tableBody,
      ),
    );

    // ---- Part 2: greedy packing.
    const epsSlider = h('input', {
      type: 'range',
      min: 0,
      max: EPS.length - 1,
      step: 1,
      class: 'eps-slider',
      'aria-label': 'Band half-width epsilon',
      dataset: { control: 'eps' },
    });
    const epsText = h('output', { class: 'eps-value', dataset: { role: 'eps-input' } });
    // Move the label while dragging; start the run when the slider is let go (or on a key).
    epsSlider.addEventListener('input', () => (epsText.textContent = `= ${EPS[Number(epsSlider.value)]}`));
    epsSlider.addEventListener('change', () => this.setState({ eps: EPS[Number(epsSlider.value)] }));
    const candSelect = h(
      'select',
      { 'aria-label': 'Candidate directions per dimension', dataset: { control: 'cand' } },
      ['5000', '20000'].map((c) => h('option', { value: c }, Number(c).toLocaleString('en-US'))),
    );
    candSelect.addEventListener('change', () => this.setState({ cand: candSelect.value }));
    const packCancel = h('button', { type: 'button', dataset: { action: 'cancel-pack' }, disabled: true }, 'Cancel');
    packCancel.addEventListener(
      'click',
      handOffFocus(
        packCancel,
        () => packRerun,
        () => this.#cancelPack(),
      ),
    );
    const packRerun = h('button', { type: 'button', dataset: { action: 'run-pack' } }, 'Run again');
    packRerun.addEventListener('click', () => {
      this.#packKey = null;
      this.#startPack(this.state);
    });
    const packProgress = h('progress', { max: 1, value: 0, 'aria-label': 'Progress of the packing experiment' });
    const packStatus = h('p', { class: 'status', role: 'status' }, '');
    const packFig = h('figure', { class: 'fig pack' });
    const ps = select(packFig).append(() =>
      svg('svg', {
        class: 'plot',
        viewBox: '0 0 360 220',
        role: 'img',
        'aria-label': 'Directions kept against d, log-log, with the line count = d',
      }),
    );
    ownLayout(ps); // laid out on its own (widget/figure-layout.js)
    packFig.append(
      h(
        'figcaption',
        {},
        'Dots: directions kept, all pairwise within \u00b1\u03b5 of perpendicular. Dashed: count = d, the most that can be exactly perpendicular. Log-log axes.',
      ),
    );
    const packList = h('ol', { class: 'pack-list', 'aria-label': 'Directions kept for each d' });

    body.append(
      predict,
      h('h3', {}, 'Cosines of random pairs'),
      h(
        'div',
        { class: 'formulas' },
        texElement('\\sqrt{\\mathbb E[\\cos^2\\theta]}=\\frac{1}{\\sqrt d}', { display: true }),
        texElement(
          '\\mathbb E\\,|\\cos\\theta|\\approx\\frac{\\sqrt{2/\\pi}}{\\sqrt d}\\approx\\frac{0.80}{\\sqrt d}',
          { display: true },
        ),
      ),
      h(
        'div',
        { class: 'controls' },
        h('label', { class: 'ctl' }, h('span', {}, 'Pairs'), pairsSelect),
        h('label', { class: 'ctl' }, h('span', {}, 'Seed'), seedInput),
        h('div', { class: 'buttons' }, newSeed, histRerun, histCancel),
        h('div', { class: 'run' }, histProgress, histStatus),
      ),
      group,
      h(
        'p',
        { class: 'hint' },
        'All five on the same axis, cos \u03b8 from \u22121 to 1. Pick one (click, or arrow keys) to see it close up.',
      ),
      h('div', { class: 'layout' }, h('div', { class: 'col' }, detailFig), h('div', { class: 'col' }, stats)),
      table,
      h('h3', {}, 'How many directions fit?'),
      h(
        'div',
        { class: 'controls' },
        h('label', { class: 'ctl ctl-eps' }, h('span', {}, texElement('\\varepsilon')), epsSlider, epsText),
        h('label', { class: 'ctl' }, h('span', {}, 'Candidates'), candSelect),
        h('div', { class: 'buttons' }, packRerun, packCancel),
        h('div', { class: 'run' }, packProgress, packStatus),
      ),
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'col' }, packFig),
        h(
          'div',
          { class: 'col' },
          h(
            'p',
            { class: 'hint' },
            'Each candidate is a random unit vector; it is kept when |cos| \u2264 \u03b5 with every direction kept before it.',
          ),
          packList,
        ),
      ),
    );
    this.#ui = {
      pairsSelect,
      seedInput,
      histCancel,
      histProgress,
      histStatus,
      multiples,
      ds,
      detailCaption,
      detail,
      tableBody,
      epsSlider,
      epsText,
      candSelect,
      packCancel,
      packProgress,
      packStatus,
      ps,
      packList,
    };
  }

  syncControls({ d, pairs, seed, eps, cand }) {
    const ui = this.#ui;
    if (!ui) return;
    setValue(ui.pairsSelect, pairs);
    if (this.shadowRoot.activeElement !== ui.seedInput) setValue(ui.seedInput, String(seed));
    for (const m of ui.multiples) {
      const on = String(m.d) === d;
      setAttr(m.button, 'aria-checked', on);
      setAttr(m.button, 'tabindex', on ? 0 : -1);
      if (m.button.classList.contains('is-selected') !== on) m.button.classList.toggle('is-selected', on);
    }
    setValue(ui.epsSlider, String(EPS.indexOf(eps)));
    setAttr(ui.epsSlider, 'aria-valuetext', `epsilon = ${eps}`);
    setText(ui.epsText, `= ${eps}`);
    setValue(ui.candSelect, cand);
  }

  render(ag, state) {
    this.#startHist(state);
    this.#startPack(state);
    if (this.#hist && this.#hist.key === this.#histKeyOf(state)) this.#drawHist(ag, state);
    else this.#drawPairAngle(ag, state);
    // Stepping through d changes neither the packing nor the small multiples: draw them once per result.
    if (this.#pack && this.#pack.key === this.#packKeyOf(state) && this.#packShown !== this.#pack) this.#drawPack();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#histClient.cancel();
    this.#packClient.cancel();
    this.#histKey = null;
    this.#packKey = null;
  }

  #histKeyOf({ pairs, seed }) {
    return `${pairs}/${seed}`;
  }

  #packKeyOf({ eps, cand, seed }) {
    return `${eps}/${cand}/${seed}`;
  }

  /** Two random directions of dimension d from the seed (counters far from the experiment's). */
  #pair(ag, d) {
    const seed = this.state.seed;
    const n = Math.ceil(d / 4) * 4;
    const a = ag.random.normal({ seed, counter: 2 ** 30, n }).data.subarray(0, d);
    const b = ag.random.normal({ seed, counter: 2 ** 30 + n, n }).data.subarray(0, d);
    return { a, b };
  }

  #setRun(which) {
    const busy = this.#histClient.busy || this.#packClient.busy;
    setAttr(this, 'data-hist-run', which.hist ?? this.dataset.histRun ?? 'idle');
    setAttr(this, 'data-pack-run', which.pack ?? this.dataset.packRun ?? 'idle');
    setAttr(
      this,
      'data-run',
      busy ? 'running' : this.dataset.histRun === 'done' && this.dataset.packRun === 'done' ? 'done' : 'idle',
    );
  }

  #cancelHist() {
    this.#histClient.cancel();
    this.#histKey = null;
    setFlag(this.#ui.histCancel, 'disabled', true);
    setText(this.#ui.histStatus, 'Cancelled. Change a setting or press \u201cRun again\u201d.');
    this.#setRun({ hist: 'cancelled' });
  }

  #cancelPack() {
    this.#packClient.cancel();
    this.#packKey = null;
    setFlag(this.#ui.packCancel, 'disabled', true);
    setText(this.#ui.packStatus, 'Cancelled. Change a setting or press \u201cRun again\u201d.');
    this.#setRun({ pack: 'cancelled' });
  }

  #startHist(state) {
    const key = this.#histKeyOf(state);
    if (key === this.#histKey) return;
    this.#histKey = key;
    const pairs = Number(state.pairs);
    const seed = state.seed;
    const calls = DIMS.map((d) => ({
      method: 'randomDotExperiment',
      args: [{ d, trials: pairs, seed, measure: 'cosine', bins: BINS, range: [-1, 1], returnSamples: false }],
      work: pairs * (d + 8),
    }));
    const ui = this.#ui;
    setFlag(ui.histCancel, 'disabled', false);
    ui.histProgress.value = 0;
    setText(
      ui.histStatus,
      `Drawing ${pairs.toLocaleString('en-US')} random pairs for each d in a background worker\u2026`,
    );
    const run = this.#histClient.run(
      { kind: 'calls', calls },
      { onProgress: (p) => (ui.histProgress.value = p.done / p.total) },
    );
    this.#setRun({ hist: 'running' });
    run
      .then((results) => {
        setFlag(ui.histCancel, 'disabled', true);
        ui.histProgress.value = 1;
        this.#hist = { key, pairs, results };
        const ag = this.engine;
        if (ag && this.#histKeyOf(this.state) === key) this.#drawHist(ag, this.state);
        setText(ui.histStatus, `Done: ${pairs.toLocaleString('en-US')} pairs for each d, seed ${seed}.`);
        this.#setRun({ hist: 'done' });
      })
      .catch((err) => {
        if (err instanceof CancelledError) return;
        setFlag(ui.histCancel, 'disabled', true);
        this.#histKey = null;
        this.#setRun({ hist: 'error' });
        this.note(`The experiment could not run: ${err.message}`);
      });
  }

  #startPack(state) {
    const key = this.#packKeyOf(state);
    if (key === this.#packKey) return;
    this.#packKey = key;
    const dims = packDims(state.eps);
    const candidates = Number(state.cand);
    const epsilon = Number(state.eps);
    const ui = this.#ui;
    setFlag(ui.packCancel, 'disabled', false);
    ui.packProgress.value = 0;
    setText(
      ui.packStatus,
      `Scanning ${candidates.toLocaleString('en-US')} random directions for each d up to ${dims.at(-1)}, \u03b5 = ${state.eps}\u2026`,
    );
    this.#packLive = [];
    if (!this.#pack || this.#pack.key !== key) this.#drawPack();
    const run = this.#packClient.run(
      { kind: 'packing', dims, candidates, epsilon, seed: state.seed },
      {
        onProgress: (p) => {
          ui.packProgress.value = p.done / p.total;
          const live = this.#packLive.find((r) => r.d === p.partial.d);
          if (live) live.kept = p.partial.kept;
          else this.#packLive.push({ d: p.partial.d, kept: p.partial.kept });
          if (this.#packKeyOf(this.state) === key) {
            this.#drawPackPlot(this.#packLive, state.eps, true);
            this.#packShown = null;
          }
        },
      },
    );
    this.#setRun({ pack: 'running' });
    run
      .then((rows) => {
        setFlag(ui.packCancel, 'disabled', true);
        ui.packProgress.value = 1;
        this.#pack = { key, eps: state.eps, candidates, rows };
        if (this.#packKeyOf(this.state) === key) this.#drawPack();
        setText(
          ui.packStatus,
          `Done: ${candidates.toLocaleString('en-US')} candidates for each d, \u03b5 = ${state.eps}, seed ${state.seed}.`,
        );
        this.#setRun({ pack: 'done' });
      })
      .catch((err) => {
        if (err instanceof CancelledError) return;
        setFlag(ui.packCancel, 'disabled', true);
        this.#packKey = null;
        this.#setRun({ pack: 'error' });
        this.note(`The packing experiment could not run: ${err.message}`);
      });
  }

  #drawPairAngle(ag, state) {
    const d = Number(state.d);
    const angle = this.#perDim(ag, `pair|${d}|${state.seed}`, () => {
      const { a, b } = this.#pair(ag, d);
      return ag.angle(a, b);
    });
    this.show(this.#ui.detail.pairAngle, angle, { format: deg });
  }

  #drawHist(ag, state) {
    const ui = this.#ui;
    const { results, pairs } = this.#hist;
    const d = Number(state.d);
    const i = DIMS.indexOf(d);
    const r = results[i];
    // Small multiples: the 200 counts summed in groups of 5 (drawing only).
    if (this.#minisOf !== this.#hist) {
      results.forEach((res, j) => this.#drawMini(ui.multiples[j].s, res.histogram.counts, pairs));
      this.#minisOf = this.#hist;
    }
    // The selected d: its numbers.
    // Its numbers from the module, once per result and d (stepping back and forth reuses them).
    const n = this.#perDim(ag, `hist|${this.#hist.key}|${d}`, () => {
      const sqrtD = ag.norm(ones(d));
      return {
        theory: ag.cosine(e1(d), ones(d)),
        rmsScaled: ag.dot([r.rms], [sqrtD]),
        angle: ag.angle(e1(d), ones(d)),
        meanAbsScaled: ag.dot([r.meanAbs], [sqrtD]),
      };
    });
    const t = ui.detail;
    this.show(t.rms, r.rms);
    this.show(t.theory, n.theory);
    this.show(t.rmsScaled, n.rmsScaled);
    this.show(t.angle, n.angle, { format: deg });
    this.show(t.meanAbs, r.meanAbs);
    this.show(t.meanAbsScaled, n.meanAbsScaled);
    this.show(t.mean, r.mean);
    this.#drawPairAngle(ag, state);
    this.#drawDetail(r, d, pairs);
    setText(
      ui.detailCaption,
      `d = ${d}, ${pairs.toLocaleString('en-US')} pairs. Solid lines: \u00b1 root mean square of cos. Dashed: \u00b1 mean |cos|.`,
    );
    // The table of all five: written once per result (and engine); stepping through d moves the highlight.
    if (this.#tableOf !== this.#hist || this.#tableBy !== ag) {
      ui.tableBody.replaceChildren(
        ...DIMS.map((dd, j) => {
          const cells = [
            h('span', { class: 'num', dataset: { role: 'table-rms', key: String(dd) } }),
            h('span', { class: 'num', dataset: { role: 'table-angle', key: String(dd) } }),
            h('span', { class: 'num', dataset: { role: 'table-mean-abs', key: String(dd) } }),
          ];
          this.show(cells[0], results[j].rms);
          this.show(cells[1], ag.angle(e1(dd), ones(dd)), { format: deg });
          this.show(cells[2], results[j].meanAbs);
          return h(
            'tr',
            { dataset: { d: String(dd) } },
            h('th', { scope: 'row' }, String(dd)),
            ...cells.map((c) => h('td', {}, c)),
          );
        }),
      );
      this.#tableOf = this.#hist;
      this.#tableBy = ag;
    }
    for (const tr of ui.tableBody.children) markCurrent(tr, 'is-selected', Number(tr.dataset.d) === d);
  }

  #drawMini(s, counts, pairs) {
    const W = 120;
    const H = 70;
    const m = { l: 4, r: 4, t: 4, b: 14 };
    const group = BINS / SMALL_BINS;
    const heights = Array.from({ length: SMALL_BINS }, (_, k) => {
      let c = 0;
      for (let q = 0; q < group; q++) c += counts[k * group + q];
      return c / pairs;
    });
    const x = scaleLinear()
      .domain([-1, 1])
      .range([m.l, W - m.r]);
    const y = scaleLinear()
      .domain([0, Math.max(...heights, 1e-9)])
      .range([H - m.b, m.t]);
    const w = (W - m.l - m.r) / SMALL_BINS;
    s.selectAll('*').remove();
    s.append('g')
      .attr('class', 'bars')
      .selectAll('rect')
      .data(heights)
      .join('rect')
      .attr('x', (_, k) => m.l + k * w + 0.25)
      .attr('width', Math.max(0.4, w - 0.5))
      .attr('y', (v) => y(v))
      .attr('height', (v) => y(0) - y(v));
    s.append('line')
      .attr('class', 'base')
      .attr('x1', m.l)
      .attr('x2', W - m.r)
      .attr('y1', H - m.b)
      .attr('y2', H - m.b);
    for (const v of [-1, 0, 1])
      s.append('text')
        .attr('class', 'tick')
        .attr('x', x(v))
        .attr('y', H - 3)
        .attr('text-anchor', v < 0 ? 'start' : v > 0 ? 'end' : 'middle')
        .text(v === -1 ? '\u22121' : String(v));
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
    const s = this.#ui.ds.node();
    if (s.firstChild !== g || s.childNodes.length !== 1) s.replaceChildren(g);
  }

  /** A new (detached) drawing of the close-up histogram of dimension d. */
  #detailDrawing(r, d, pairs) {
    const W = 360;
    const H = 210;
    const m = { l: 40, r: 10, t: 10, b: 40 };
    // Close up: the bins within ±5/sqrt(d) (all of [-1, 1) for small d); drawing only.
    const half = Math.min(1, 5 / Math.sqrt(d));
    const width = 2 / BINS;
    const from = Math.max(0, Math.floor((1 - half) / width));
    const to = Math.min(BINS, BINS - from);
    const counts = Array.from(r.histogram.counts).slice(from, to);
    const lo = -1 + from * width;
    const hi = -1 + to * width;
    const heights = counts.map((c) => c / (pairs * width));
    const x = scaleLinear()
      .domain([lo, hi])
      .range([m.l, W - m.r]);
    const top = Math.max(...heights, 1e-9) * 1.1;
    const y = scaleLinear()
      .domain([0, top])
      .range([H - m.b, m.t]);
    const s = create('svg:g').attr('class', 'detail').attr('data-dim', d);
    s.append('g')
      .attr('class', 'bars')
      .selectAll('rect')
      .data(heights)
      .join('rect')
      .attr('x', (_, k) => x(lo + k * width) + 0.25)
      .attr('width', Math.max(0.5, x(lo + width) - x(lo) - 0.5))
      .attr('y', (v) => y(v))
      .attr('height', (v) => y(0) - y(v));
    const marks = s.append('g').attr('class', 'marks');
    for (const [v, cls] of [
      [r.rms, 'mark-rms'],
      [-r.rms, 'mark-rms'],
      [r.meanAbs, 'mark-abs'],
      [-r.meanAbs, 'mark-abs'],
    ]) {
      marks
        .append('line')
        .attr('class', cls)
        .attr('x1', x(v))
        .attr('x2', x(v))
        .attr('y1', m.t)
        .attr('y2', H - m.b);
    }
    s.append('text')
      .attr('class', 'mark-label label-rms')
      .attr('x', x(r.rms) + 4)
      .attr('y', m.t + 10)
      .text('rms');
    s.append('text')
      .attr('class', 'mark-label label-abs')
      .attr('x', x(-r.meanAbs) - 4)
      .attr('y', m.t + 10)
      .attr('text-anchor', 'end')
      .text('mean |cos|');
    s.append('g')
      .attr('class', 'axis')
      .attr('transform', `translate(0,${H - m.b})`)
      .call(axisBottom(x).ticks(5));
    s.append('g').attr('class', 'axis').attr('transform', `translate(${m.l},0)`).call(axisLeft(y).ticks(4, '~g'));
    s.append('text')
      .attr('class', 'axis-label')
      .attr('x', W - m.r)
      .attr('y', H - 4)
      .attr('text-anchor', 'end')
      .text(`cos \u03b8, d = ${d}`);
    return s.node();
  }

  #drawPack() {
    const ui = this.#ui;
    const pack = this.#pack && this.#pack.key === this.#packKeyOf(this.state) ? this.#pack : null;
    this.#packShown = pack;
    if (!pack) {
      ui.packList.replaceChildren();
      this.#drawPackPlot([], this.state.eps, false);
      return;
    }
    this.#drawPackPlot(pack.rows, pack.eps, false);
    ui.packList.replaceChildren(
      ...pack.rows.map((row) => {
        const v = h('span', { class: 'num', dataset: { role: 'kept', key: String(row.d).padStart(3, '0') } });
        this.show(v, row.kept, { format: (k) => String(k) });
        return h(
          'li',
          { class: row.kept > row.d ? 'more' : '' },
          `d = ${row.d}: `,
          v,
          row.kept > row.d ? ' (more than d)' : '',
        );
      }),
    );
  }

  #drawPackPlot(rows, eps, live) {
    const s = this.#ui.ps;
    s.selectAll('*').remove();
    const W = 360;
    const H = 220;
    const m = { l: 44, r: 12, t: 10, b: 28 };
    const x = scaleLog()
      .base(2)
      .domain([1.6, 320])
      .range([m.l, W - m.r]);
    const y = scaleLog()
      .domain([1, 20000])
      .range([H - m.b, m.t]);
    s.append('path')
      .attr('class', 'ref-line')
      .attr(
        'd',
        line()
          .x((p) => x(p[0]))
          .y((p) => y(p[1]))([
          [1.6, 1.6],
          [320, 320],
        ]),
      );
    s.append('text')
      .attr('class', 'ref-label')
      .attr('x', x(2.2))
      .attr('y', y(2.2) - 14)
      .text('count = d');
    const pts = rows.filter((r) => r.kept >= 1);
    s.append('path')
      .attr('class', 'kept-line')
      .attr(
        'd',
        pts.length > 1
          ? line()
              .x((p) => x(p.d))
              .y((p) => y(p.kept))(pts)
          : null,
      );
    s.append('g')
      .attr('class', live ? 'dots is-live' : 'dots')
      .selectAll('circle')
      .data(pts)
      .join('circle')
      .attr('cx', (p) => x(p.d))
      .attr('cy', (p) => y(p.kept))
      .attr('r', 3.5);
    s.append('g')
      .attr('class', 'axis')
      .attr('transform', `translate(0,${H - m.b})`)
      .call(
        axisBottom(x)
          .tickValues([2, 4, 8, 16, 32, 64, 128, 256])
          .tickFormat((v) => String(v)),
      );
    s.append('g')
      .attr('class', 'axis')
      .attr('transform', `translate(${m.l},0)`)
      .call(
        axisLeft(y)
          .tickValues([1, 10, 100, 1000, 10000])
          .tickFormat((v) => String(v)),
      );
    s.append('text')
      .attr('class', 'axis-label')
      .attr('x', W - m.r)
      .attr('y', H - m.b - 6)
      .attr('text-anchor', 'end')
      .text('d');
    s.append('text')
      .attr('class', 'axis-label')
      .attr('x', m.l + 6)
      .attr('y', m.t + 10)
      .text(`kept, \u03b5 = ${eps}`);
  }

  figure() {
    return this.#ui ? this.#ui.ds.node() : null;
  }
}

defineWidget('ag-near-orthogonal', AgNearOrthogonal);
