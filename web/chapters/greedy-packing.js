// <ag-greedy-packing>: chapter 13, its second experiment (under
// <ag-near-orthogonal>, sharing its seed): how many random directions stay
// pairwise within ±epsilon of perpendicular for d = 2 ... 256, against
// "count = d". Numbers: the kept count of the last ag.greedyPacking call per d
// (in the worker).
//
//   <ag-greedy-packing eps="0.2" cand="5000"></ag-greedy-packing>
import { defineWidget } from '../widget/base.js';
import { chartFigure, curve, dots, label, logLogFrame } from '../widget/charts.js';
import { h, setText, setValue } from '../widget/dom.js';
import { ExperimentWidget, measuredItems, seedControls, settingSelect, settingSlider } from '../widget/experiment.js';
import { texElement } from '../widget/math.js';
import { choice, defineState, dropFields, number } from '../widget/state.js';

const EPS = ['0.1', '0.15', '0.2', '0.25', '0.3'];
const CANDIDATES = ['5000', '20000'];
/** The packing sweep; a wider band keeps many more directions, so it stops earlier (the work grows with the count). */
const PACK_DIMS = [2, 3, 4, 8, 16, 32, 64, 96, 128, 192, 256];
const PACK_MAX_D = { 0.1: 256, 0.15: 256, 0.2: 256, 0.25: 128, 0.3: 96 };
const BOX = { width: 360, height: 220, m: { l: 44, r: 12, t: 10, b: 28 } };

export function packDims(eps) {
  const max = PACK_MAX_D[eps] ?? 256;
  return PACK_DIMS.filter((d) => d <= max);
}

export class AgGreedyPacking extends ExperimentWidget {
  static title = 'How many directions fit?';
  static styles = ['styles/experiment.css', 'styles/near-orthogonal.css'];
  static figureSelector = 'figure.pack svg';
  static stateDecl = defineState({
    version: 2,
    fields: {
      eps: choice({ values: EPS, default: '0.2' }),
      cand: choice({ values: CANDIDATES, default: '20000' }),
      // The seed of <ag-near-orthogonal>: in the chapter the two keep it equal (shell/chapters-view.js).
      seed: number({ min: 0, max: 4294967295, integer: true, default: 1 }),
    },
    // Version 1 (<ag-near-orthogonal> with both experiments) held the cosine experiment's fields too.
    migrations: { 1: dropFields('d', 'pairs') },
  });

  #ui = null;
  #exp = this.experiment({
    attrs: ['pack-run', 'run'],
    progressLabel: 'Progress of the packing experiment',
    run: { action: 'run-pack' },
    cancel: { action: 'cancel-pack' },
    failed: 'The packing experiment could not run',
    keyOf: ({ eps, cand, seed }) => `${eps}/${cand}/${seed}`,
    job: (state, key) => this.#job(state, key),
  });
  #pack = null; // { key, eps, rows: [{ d, kept }] }
  #shown = null; // the #pack the plot and the list show

  build(body) {
    // Move the label while dragging; start the run when the slider is let go (or on a key).
    const eps = settingSlider('eps', 'Band half-width epsilon', texElement('\\varepsilon'), {
      min: 0,
      max: EPS.length - 1,
      step: 1,
      role: 'eps-input',
      onInput: (i) => setText(eps.out, `= ${EPS[i]}`),
      onChange: (i) => this.setState({ eps: EPS[i] }),
    });
    const candChoices = CANDIDATES.map((c) => [c, Number(c).toLocaleString('en-US')]);
    const candSelect = settingSelect('cand', 'Candidate directions per dimension', candChoices, (cand) =>
      this.setState({ cand }),
    );
    const seed = seedControls(this);
    const plot = chartFigure('pack', {
      box: BOX,
      label: 'Directions kept against d, log-log, with the line count = d',
      caption:
        'Dots: directions kept, all pairwise within \u00b1\u03b5 of perpendicular. Dashed: count = d, the most that can be exactly perpendicular. Log-log axes.',
    });
    const list = h('ol', { class: 'pack-list', 'aria-label': 'Directions kept for each d' });
    const hint =
      'Each candidate is a random unit vector; it is kept when |cos| \u2264 \u03b5 with every direction kept before it.';

    body.append(
      h('h3', {}, 'How many directions fit?'),
      this.#exp.controls([eps.label, ['Candidates', candSelect]], seed),
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'col' }, plot.fig),
        h('div', { class: 'col' }, h('p', { class: 'hint' }, hint), list),
      ),
    );
    this.#ui = { eps, candSelect, seed, ps: plot.s, list };
  }

  syncControls({ eps, cand, seed }) {
    const ui = this.#ui;
    ui.eps.set(EPS.indexOf(eps), `= ${eps}`, `epsilon = ${eps}`);
    setValue(ui.candSelect, cand);
    ui.seed.sync(seed);
  }

  render(_ag, state) {
    this.#exp.want(state);
    if (this.#pack && this.#pack.key === this.#exp.key && this.#shown !== this.#pack) this.#draw();
  }

  /** The packing run of a state; its partial counts are drawn as they come. */
  #job(state, key) {
    const dims = packDims(state.eps);
    const candidates = Number(state.cand);
    const many = candidates.toLocaleString('en-US');
    const live = []; // partial counts while running (drawing only)
    if (!this.#pack || this.#pack.key !== key) this.#draw();
    return {
      job: { kind: 'packing', dims, candidates, epsilon: Number(state.eps), seed: state.seed },
      text: `Scanning ${many} random directions for each d up to ${dims.at(-1)}, \u03b5 = ${state.eps}\u2026`,
      onProgress: ({ partial }) => {
        const row = live.find((r) => r.d === partial.d);
        if (row) row.kept = partial.kept;
        else live.push({ d: partial.d, kept: partial.kept });
        this.#plot(live, state.eps, true);
        this.#shown = null;
      },
      onResult: (rows) => {
        this.#pack = { key, eps: state.eps, rows };
        this.#draw();
        return `Done: ${many} candidates for each d, \u03b5 = ${state.eps}, seed ${state.seed}.`;
      },
    };
  }

  #draw() {
    const pack = this.#pack && this.#pack.key === this.#exp.key ? this.#pack : null;
    this.#shown = pack;
    this.#plot(pack?.rows ?? [], pack?.eps ?? this.state.eps, false);
    const items = measuredItems(pack?.rows ?? [], {
      name: 'd',
      role: 'kept',
      pad: 3,
      value: (row) => row.kept,
      show: (el, kept) => this.show(el, kept, { format: (k) => String(k) }),
      cls: (row) => (row.kept > row.d ? 'more' : ''),
      after: (row) => (row.kept > row.d ? ' (more than d)' : ''),
    });
    this.#ui.list.replaceChildren(...items);
  }

  #plot(rows, eps, live) {
    const f = logLogFrame(this.#ui.ps, BOX, {
      x: [1.6, 320],
      y: [1, 20000],
      xTicks: [2, 4, 8, 16, 32, 64, 128, 256],
      yTicks: [1, 10, 100, 1000, 10000],
      xLabel: 'd',
      yLabel: `kept, \u03b5 = ${eps}`,
    });
    const pts = rows.filter((r) => r.kept >= 1).map((r) => [r.d, r.kept]);
    const diagonal = [
      [1.6, 1.6],
      [320, 320],
    ];
    curve(f, 'ref-line', diagonal);
    label(f.s, 'ref-label', 'count = d', f.x(2.2), f.y(2.2) - 14);
    curve(f, 'kept-line', pts);
    dots(f, live ? 'dots is-live' : 'dots', pts);
  }
}

defineWidget('ag-greedy-packing', AgGreedyPacking);
