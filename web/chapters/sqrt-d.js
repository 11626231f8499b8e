// <ag-sqrt-d>: chapter 10, "Why scores grow like √d". A seeded Monte Carlo
// experiment run in a Web Worker (widget/worker-client.js): pairs of
// standard-normal vectors q, k of dimension d_k, the histogram of q·k
// (ag.randomDotExperiment, measure 'dot') against its exact density
// (ag.dotProductDensity, the variance-gamma law: Laplace at d_k = 2, nearly
// N(0, d_k) for large d_k), and the measured standard deviation against √d_k
// on log-log axes (one experiment call per d_k). Every number shown is the
// return value of one wasm call: the statistics of one experiment call, the
// density, and √d_k as the norm of d_k ones.
import { AgWidget, defineWidget } from '../widget/base.js';
import { chartFigure, curve, densityHistogram, dots, logLogFrame } from '../widget/charts.js';
import { num, slider } from '../widget/controls.js';
import { h, setText, setValue } from '../widget/dom.js';
import { ExperimentRun, labelled, seedControls, settingSelect } from '../widget/experiment.js';
import { fmt } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { afterPause } from '../widget/pause.js';
import { defineState, number } from '../widget/state.js';

/** One call may do at most 2^26 = d_k * pairs (the API's bound, about a second or two). */
const MAX_WORK = 2 ** 26;
/** Each point of the √d_k sweep: at most 2^20 multiply-adds. */
const SWEEP_WORK = 2 ** 20;
const SWEEP_DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const BINS = 48;
const PAIR_CHOICES = [1000, 5000, 20000, 100000];
const BOX = { width: 360, height: 220, m: { l: 44, r: 10, t: 10, b: 28 } };
const SWEEP_BOX = { width: 360, height: 220, m: { l: 44, r: 12, t: 10, b: 28 } };

/**
 * A change of setting starts its experiment once the learner pauses this
 * long (ms): while the slider moves, the input only updates the controls,
 * and the worker restarts (terminate, start, load the module) once, off the
 * path of the input.
 */
export const START_DELAY_MS = 150;
const dOf = (slider) => Math.round(2 ** Number(slider));

export class AgSqrtD extends AgWidget {
  static title = 'Why scores grow like \u221ad';
  static styles = ['styles/sqrt-d.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      d: number({ min: 2, max: 4096, integer: true, default: 64 }),
      pairs: number({ min: 100, max: 100000, integer: true, default: 5000 }),
      seed: number({ min: 0, max: 4294967295, integer: true, default: 1 }),
    },
  });

  #ui = null;
  /** The worker experiment with its progress, Cancel and "Run again" (widget/experiment.js). */
  #exp = new ExperimentRun(this, {
    progressLabel: 'Experiment progress',
    cancelled: 'Cancelled. Change a setting or press \u201cRun again\u201d to run it anew.',
    onRun: () => {
      this.#key = null;
      this.#sweepKey = null;
      this.#start(this.engine, this.state, { now: true });
    },
    onCancel: () => {
      this.#launch.cancel();
      this.#key = null;
      this.#sweepKey = null;
    },
  });
  #key = null; // the (d, pairs, seed) of the running or shown experiment
  #sweepKey = null;
  #result = null;
  #sweep = null;
  /** Once the learner pauses, the experiment of the wanted state starts (unless its result is on show). */
  #launch = afterPause(() => {
    const state = this.state;
    if (this.#key === this.#keyOf(state) && this.#result?.key !== this.#key) this.#run(state);
  }, START_DELAY_MS);
  #running = null; // the key of the job the worker runs
  #drawn = null; // the result the figures and numbers show, and the engine that drew it
  #drawnBy = null;
  /**
   * A job for a state the learner has left stops right after the input's
   * task (terminating the worker takes a moment, and a worker left running
   * would take the processor from the page while the learner moves on).
   */
  #stopStale = afterPause(() => {
    if (this.#exp.busy && this.#running !== this.#key) this.#exp.stop();
  }, 0);

  /** Pairs actually used for d_k: the requested number, capped so d_k * pairs <= 2^26. */
  static pairsFor(d, pairs) {
    return Math.max(1, Math.min(pairs, Math.floor(MAX_WORK / d)));
  }

  build(body) {
    const predict = this.predict({
      id: 'typical-score',
      question:
        'q and k are random with independent N(0, 1) entries. At d\u2096 = 4096, how big is a typical score q\u00b7k (its standard deviation)?',
      choices: [
        { value: '1', label: 'About 1' },
        { value: '64', label: 'About 64' },
        { value: '4096', label: 'About 4096' },
      ],
      reveal: (_choice, ag) => {
        this.setState({ d: 4096 });
        const r = ag.randomDotExperiment({ d: 4096, trials: 400, seed: this.state.seed, returnSamples: false });
        const answer = ['1', '64', '4096'].reduce(
          (best, c) => (Math.abs(Math.log(r.std / Number(c))) < Math.abs(Math.log(r.std / Number(best))) ? c : best),
          '1',
        );
        return {
          answer,
          explanation: `400 random pairs at d\u2096 = 4096 gave a standard deviation of ${fmt(r.std)}: close to \u221a4096 = 64, not to 4096. The terms q\u1d62k\u1d62 have random signs, so their sum grows like the square root of their number.`,
        };
      },
    });

    // Controls: a log-scale slider for d_k, the number of pairs, the seed, run/cancel, progress.
    const d = slider({
      min: 1,
      max: 12,
      step: 0.25,
      class: 'd-slider',
      dataset: { control: 'd' },
      attrs: { 'aria-label': 'Dimension d_k (log scale)' },
      outClass: 'd-value',
      rowClass: null,
      onInput: (v) => this.setState({ d: dOf(v) }),
    });
    d.out.dataset.role = 'd-input';
    const pairChoices = PAIR_CHOICES.map((p) => [p, p.toLocaleString('en-US')]);
    const pairsSelect = settingSelect('pairs', 'Number of random pairs', pairChoices, (v) =>
      this.setState({ pairs: Number(v) }),
    );
    const seed = seedControls(this);
    const controls = h(
      'div',
      { class: 'controls' },
      h('label', { class: 'ctl ctl-d' }, h('span', {}, texElement('d_k')), d.input, d.out),
      labelled('Pairs', pairsSelect),
      seed.label,
      this.#exp.buttons(seed.next),
      this.#exp.runBox(),
    );

    const stats = { mean: num('mean'), std: num('std'), rms: num('rms'), sqrt: num('sqrt-d'), used: num('pairs-used') };
    const statsBlock = h(
      'div',
      { class: 'stats', 'aria-label': 'Measured statistics' },
      h('p', {}, 'Pairs used: ', stats.used),
      h('p', {}, 'Mean of q\u00b7k: ', stats.mean),
      h(
        'p',
        {},
        'Standard deviation: ',
        stats.std,
        h('span', { class: 'vs' }, ' against \u221ad\u2096 = '),
        stats.sqrt,
      ),
      h('p', {}, 'Root mean square: ', stats.rms),
    );

    const hist = chartFigure('hist', {
      box: BOX,
      label: 'Histogram of q\u00b7k with the exact density',
      caption: 'Bars: the measured q\u00b7k. Curve: its exact density, computed in WebAssembly.',
    });
    const sweep = chartFigure('sweep', {
      box: SWEEP_BOX,
      label: 'Standard deviation of q\u00b7k against d_k, log-log',
      caption: 'Dots: measured standard deviation for each d\u2096. Line: \u221ad\u2096. Log-log axes: slope \u00bd.',
    });
    const sweepList = h('ol', { class: 'sweep-list', 'aria-label': 'Measured standard deviation for each d_k' });

    body.append(
      predict,
      h(
        'div',
        { class: 'formulas' },
        texElement('q\\cdot k=\\sum_{i=1}^{d_k} q_i k_i,\\quad \\operatorname{Var}(q\\cdot k)=d_k', { display: true }),
        texElement('f_{d_k}(x)=\\frac{1}{\\pi}\\int_0^\\infty \\frac{\\cos(tx)\\,dt}{(1+t^2)^{d_k/2}}', {
          display: true,
        }),
      ),
      controls,
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'col' }, hist.fig, statsBlock),
        h(
          'div',
          { class: 'col' },
          sweep.fig,
          h('details', { class: 'sweep-details' }, h('summary', {}, 'The measured values'), sweepList),
        ),
      ),
    );
    this.#ui = { d, pairsSelect, seed, stats, hs: hist.s, ss: sweep.s, sweepList };
  }

  syncControls({ d, pairs, seed }) {
    const ui = this.#ui;
    if (!ui) return;
    // Keep the slider where the learner put it while it still means this d_k.
    ui.d.set(dOf(ui.d.input.value) === d ? Number(ui.d.input.value) : Math.log2(d), `= ${d}`, `d_k = ${d}`);
    if (!PAIR_CHOICES.includes(pairs) && ![...ui.pairsSelect.options].some((o) => Number(o.value) === pairs))
      ui.pairsSelect.append(h('option', { value: pairs }, pairs.toLocaleString('en-US')));
    setValue(ui.pairsSelect, String(pairs));
    ui.seed.sync(seed);
  }

  render(ag, state) {
    this.#start(ag, state);
    if (this.#result && this.#result.key === this.#keyOf(state)) this.#drawResult(ag, this.#result);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#launch.cancel();
    this.#stopStale.cancel();
    this.#exp.stop();
    this.#key = null;
    this.#sweepKey = null;
  }

  #keyOf({ d, pairs, seed }) {
    return `${d}/${pairs}/${seed}`;
  }

  /**
   * Starts the worker job for this state unless it is running or shown
   * already: at once the first time and from "Run again", else after the
   * learner's pause (START_DELAY_MS). A job whose state is no longer the
   * wanted one (#key) runs on until the next starts, but shows nothing.
   */
  #start(ag, state, { now = false } = {}) {
    if (!ag) return;
    const key = this.#keyOf(state);
    if (key === this.#key) return;
    const first = this.#key === null && this.#result === null;
    this.#key = key;
    if (this.#exp.busy && this.#running !== key) this.#stopStale.poke();
    if (!now && this.#result?.key === key) {
      this.#launch.cancel();
      // Back to the experiment on show (render draws it): nothing to run.
      this.#exp.mark('done', this.#doneText(this.#result));
      return;
    }
    this.#exp.mark('running', this.#runningText(state));
    if (now || first) {
      this.#launch.cancel();
      this.#run(state);
    } else this.#launch.poke();
  }

  #run(state) {
    const key = this.#keyOf(state);
    const sweepKey = `${state.pairs}/${state.seed}`;
    const { d, pairs, seed } = state;
    const used = AgSqrtD.pairsFor(d, pairs);
    const range = [-5 * Math.sqrt(d), 5 * Math.sqrt(d)];
    const calls = [
      {
        method: 'randomDotExperiment',
        args: [{ d, trials: used, seed, measure: 'dot', bins: BINS, range, returnSamples: false }],
        work: d * used,
      },
    ];
    const needSweep = sweepKey !== this.#sweepKey;
    if (needSweep) {
      for (const sd of SWEEP_DIMS) {
        const t = Math.max(1, Math.min(pairs, Math.floor(SWEEP_WORK / sd)));
        calls.push({
          method: 'randomDotExperiment',
          args: [{ d: sd, trials: t, seed, measure: 'dot', bins: 1, returnSamples: false }],
          work: sd * t,
        });
      }
    }
    const current = () => this.#key === key;
    this.#running = key;
    this.#exp.run(
      { kind: 'calls', calls },
      {
        text: this.#runningText(state),
        live: current,
        onResult: (results) => {
          this.#result = { key, d, used, seed, res: results[0] };
          if (needSweep) {
            this.#sweepKey = sweepKey;
            this.#sweep = results.slice(1).map((r, i) => ({ d: SWEEP_DIMS[i], std: r.std }));
          }
          const ag = this.engine;
          if (ag && this.#keyOf(this.state) === key) this.#drawResult(ag, this.#result);
          return this.#doneText(this.#result);
        },
        onError: () => (this.#key = null),
      },
    );
  }

  #runningText({ d, pairs }) {
    const used = AgSqrtD.pairsFor(d, pairs).toLocaleString('en-US');
    return `Running ${used} pairs at d\u2096 = ${d} in a background worker\u2026`;
  }

  #doneText({ d, used, seed }) {
    return `Done: ${used.toLocaleString('en-US')} pairs at d\u2096 = ${d}, seed ${seed}.`;
  }

  #drawResult(ag, result) {
    // Back at the state whose result the figures show already (nothing else is
    // drawn meanwhile): they stay as they are.
    if (this.#drawn === result && this.#drawnBy === ag) return;
    this.#drawn = result;
    this.#drawnBy = ag;
    const { d, used, res } = result;
    const ui = this.#ui;
    setText(ui.stats.used, used.toLocaleString('en-US'));
    this.show(ui.stats.mean, res.mean);
    this.show(ui.stats.std, res.std);
    this.show(ui.stats.rms, res.rms);
    this.show(ui.stats.sqrt, ag.norm(new Float32Array(d).fill(1)));
    // The exact density on a fine grid over the histogram's range.
    const { lo, hi, counts } = res.histogram;
    const xs = Float32Array.from({ length: 161 }, (_, i) => lo + ((hi - lo) * i) / 160);
    const ys = ag.dotProductDensity(xs, d).data;
    const xLabel = `q\u00b7k, d\u2096 = ${d}`;
    densityHistogram(this.#ui.hs, BOX, { lo, hi, counts, total: used, xs, ys, xLabel });
    this.#drawSweep();
  }

  #drawSweep() {
    const s = this.#ui.ss;
    s.selectAll('*').remove();
    if (!this.#sweep) return;
    const f = logLogFrame(s, SWEEP_BOX, {
      x: [1.5, 6000],
      y: [0.8, 100],
      xTicks: [2, 16, 128, 1024, 4096],
      yTicks: [1, 2, 4, 8, 16, 32, 64],
      xLabel: 'd\u2096',
    });
    const line = [1.5, 6000].map((d) => [d, Math.sqrt(d)]); // the √d line: a drawing guide
    const measured = this.#sweep.map((p) => [p.d, p.std]);
    curve(f, 'sqrt-line', line);
    dots(f, 'dots', measured);
    const cur = this.#result;
    if (cur)
      s.append('circle').attr('class', 'current').attr('cx', f.x(cur.d)).attr('cy', f.y(cur.res.std)).attr('r', 6);
    this.#ui.sweepList.replaceChildren(
      ...this.#sweep.map((p) => {
        const v = h('span', { class: 'num', dataset: { role: 'sweep-std', key: String(p.d).padStart(4, '0') } });
        this.show(v, p.std);
        return h('li', {}, `d\u2096 = ${p.d}: `, v);
      }),
    );
  }

  figure() {
    return this.#ui ? this.#ui.hs.node() : null;
  }
}

defineWidget('ag-sqrt-d', AgSqrtD);
