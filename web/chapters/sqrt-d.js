// <ag-sqrt-d>: chapter 10, "Why scores grow like √d". A seeded Monte Carlo
// experiment in the experiment worker: pairs of standard-normal q, k of
// dimension d_k, the histogram of q·k against its exact density (Laplace at
// d_k = 2, nearly N(0, d_k) for large d_k), and the measured standard
// deviation against √d_k on log-log axes; a run larger than one call may do
// is streamed in chunks (models/chunked-experiment.js). Numbers:
// ag.randomDotExperiment (combined by ag.dot and ag.norm), ag.dotProductDensity,
// √d_k as ag.norm of d_k ones.
import { defineWidget } from '../widget/base.js';
import { chartFigure, curve, densityHistogram, dots, logLogFrame } from '../widget/charts.js';
import { num } from '../widget/controls.js';
import { h, setText, setValue, words } from '../widget/dom.js';
import { ExperimentWidget, measuredItems, seedControls, settingSelect, settingSlider } from '../widget/experiment.js';
import { fmt } from '../widget/format.js';
import { formulas as displays, texElement } from '../widget/math.js';
import { afterPause } from '../widget/pause.js';
import { defineState, number } from '../widget/state.js';
import { chunkCalls, chunkSizes, combineChunks } from '../models/chunked-experiment.js';
import { ones } from '../models/tensor.js';

const SWEEP_DIMS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const BINS = 48;
const PAIR_CHOICES = [1000, 5000, 20000, 100000];
const BOX = { width: 360, height: 220, m: { l: 44, r: 10, t: 10, b: 28 } };
const SWEEP_BOX = { width: 360, height: 220, m: { l: 44, r: 12, t: 10, b: 28 } };

/** A change of setting starts its experiment once the learner pauses this long (ms), off the input's path. */
export const START_DELAY_MS = 150;
const dOf = (slider) => Math.round(2 ** Number(slider));

export class AgSqrtD extends ExperimentWidget {
  static title = 'Why scores grow like \u221ad';
  static styles = ['styles/experiment.css', 'styles/sqrt-d.css'];
  static figureSelector = 'figure.hist svg';
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
  #exp = this.experiment({
    progressLabel: 'Experiment progress',
    cancelled: (reached) => this.#cancelledText(reached),
    keyOf: (state) => (this.engine ? this.#keyOf(state) : null),
    job: (state, key, o) => this.#start(state, key, o),
    onRun: () => {
      this.#sweepKey = null;
      this.#exp.again();
    },
    onCancel: () => {
      this.#launch.cancel();
      this.#sweepKey = null;
    },
  });
  #sweepKey = null;
  #result = null;
  #sweep = null;
  /** Once the learner pauses, the experiment of the wanted state starts (unless its result is on show). */
  #launch = afterPause(() => {
    const state = this.state;
    if (this.#exp.key === this.#keyOf(state) && this.#result?.key !== this.#exp.key) this.#run(state);
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
    if (this.#exp.busy && this.#running !== this.#exp.key) this.#exp.stop();
  }, 0);

  build(body) {
    const predict = this.predict({
      id: 'typical-score',
      question:
        'q and k are random with independent N(0, 1) entries. At d\u2096 = 4096, how big is a typical score q\u00b7k? Type its standard deviation.',
      number: {
        label: 'Standard deviation of q\u00b7k',
        min: 0,
        max: 100000,
        tolerance: { percent: 15 },
      },
      // Wrong answers: 0 (a full cancellation), near the size of one product, d_k itself (the variance), or near it.
      misconceptions: [
        {
          from: 0,
          to: Number.MIN_VALUE,
          text: 'That expects the products q\u1d62k\u1d62 to cancel completely: their signs are random, so they cancel only in part, and the sum still spreads, like \u221ad_k.',
        },
        {
          from: 4096,
          to: 4096 + 4096 * Number.EPSILON,
          text: 'That is d_k itself, the variance of q\u00b7k, read as its standard deviation: each product q\u1d62k\u1d62 has variance 1, the d_k variances add up to d_k = 4096, and the standard deviation is its square root, \u221a4096 = 64.',
        },
        {
          from: 0,
          to: 8,
          text: 'That expects a score to stay the size of one product q\u1d62k\u1d62: the d_k products have random signs and cancel only in part, their variances add up, and the spread grows like \u221ad_k.',
        },
        {
          from: 1024,
          to: Infinity,
          text: 'That adds the terms as if they all had the same sign: random signs cancel in part, so the spread grows like \u221ad_k, not like d_k.',
        },
      ],
      reveal: (_typed, ag) => {
        this.setState({ d: 4096 });
        const r = ag.randomDotExperiment({ d: 4096, trials: 400, seed: this.state.seed, returnSamples: false });
        return {
          value: r.std,
          explanation: `400 random pairs at d\u2096 = 4096 gave a standard deviation of ${fmt(r.std)}: close to \u221a4096 = 64, not to 4096. The terms q\u1d62k\u1d62 have random signs, so their sum grows like the square root of their number.`,
        };
      },
    });

    // Controls: a log-scale slider for d_k, the number of pairs, the seed, run/cancel, progress.
    const d = settingSlider('d', 'Dimension d_k (log scale)', texElement('d_k'), {
      min: 1,
      max: 12,
      step: 0.25,
      role: 'd-input',
      onInput: (v) => this.setState({ d: dOf(v) }),
    });
    const pairChoices = PAIR_CHOICES.map((p) => [p, p.toLocaleString('en-US')]);
    const pairsSelect = settingSelect('pairs', 'Number of random pairs', pairChoices, (v) =>
      this.setState({ pairs: Number(v) }),
    );
    const seed = seedControls(this);
    const controls = this.#exp.controls([d.label, ['Pairs', pairsSelect]], seed);

    const stats = { mean: num('mean'), std: num('std'), rms: num('rms'), sqrt: num('sqrt-d'), used: num('pairs-used') };
    const statsBlock = h(
      'div',
      { class: 'stats', 'aria-label': 'Measured statistics' },
      h('p', {}, 'Pairs used: ', stats.used),
      h('p', {}, 'Mean of q\u00b7k: ', stats.mean),
      // The measured spread at the opening d_k = 64 is about 8 = √64, which gives the answer's law away; and √d_k
      // beside it names the law. Both wait for the answer.
      this.afterAnswer([
        h(
          'p',
          {},
          words`Standard deviation: ${stats.std}${h('span', { class: 'vs' }, ' against \u221ad\u2096 = ', stats.sqrt)}`,
        ),
        h('p', {}, 'Root mean square: ', stats.rms),
      ]),
    );

    const hist = chartFigure('hist', {
      box: BOX,
      label: 'Histogram of q\u00b7k with the exact density',
      caption: 'Bars: the measured q\u00b7k. Curve: its exact density, computed in WebAssembly.',
    });
    const sweep = chartFigure('sweep', {
      box: SWEEP_BOX,
      label: 'Standard deviation of q\u00b7k against d_k, log-log',
      caption:
        'Dots: measured standard deviation for each d\u2096, each from the number of pairs chosen. Line: \u221ad\u2096. Log-log axes: slope \u00bd.',
    });
    const sweepList = h('ol', { class: 'sweep-list', 'aria-label': 'Measured standard deviation for each d_k' });

    const formulas = displays(
      'q\\cdot k=\\sum_{i=1}^{d_k} q_i k_i',
      '\\operatorname{Var}(q\\cdot k)=d_k',
      'f_{d_k}(x)=\\frac{1}{\\pi}\\int_0^\\infty \\frac{\\cos(tx)\\,dt}{(1+t^2)^{d_k/2}}',
    );
    this.afterAnswer(formulas.children[1]); // Var(q·k) = d_k is the answer's law
    body.append(
      predict,
      formulas,
      controls,
      h(
        'div',
        { class: 'layout' },
        h('div', { class: 'col' }, hist.fig, statsBlock),
        // The sweep reaches d_k = 4096 on the √d_k line, the answer itself: the whole column waits for the answer.
        this.afterAnswer(
          h(
            'div',
            { class: 'col' },
            sweep.fig,
            h('details', { class: 'sweep-details' }, h('summary', {}, 'The measured values'), sweepList),
          ),
        ),
      ),
    );
    this.#ui = { d, pairsSelect, seed, stats, hs: hist.s, ss: sweep.s, sweepList };
  }

  syncControls({ d, pairs, seed }) {
    const ui = this.#ui;
    // Keep the slider where the learner put it while it still means this d_k.
    ui.d.set(dOf(ui.d.input.value) === d ? Number(ui.d.input.value) : Math.log2(d), `= ${d}`, `d_k = ${d}`);
    if (!PAIR_CHOICES.includes(pairs) && ![...ui.pairsSelect.options].some((o) => Number(o.value) === pairs))
      ui.pairsSelect.append(h('option', { value: pairs }, pairs.toLocaleString('en-US')));
    setValue(ui.pairsSelect, String(pairs));
    ui.seed.sync(seed);
  }

  render(ag, state) {
    this.#exp.want(state);
    if (this.#result && this.#result.key === this.#keyOf(state)) this.#drawResult(ag, this.#result);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#launch.cancel();
    this.#stopStale.cancel();
    this.#sweepKey = null;
  }

  #keyOf({ d, pairs, seed }) {
    return `${d}/${pairs}/${seed}`;
  }

  /**
   * Starts the worker job of a state newly wanted (`key`): at once the first
   * time and from "Run again", else after the learner's pause
   * (START_DELAY_MS). A job whose state is no longer the wanted one runs on
   * until the next starts, but shows nothing.
   */
  #start(state, key, { before, again: now }) {
    const first = before === null && this.#result === null;
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
    const range = [-5 * Math.sqrt(d), 5 * Math.sqrt(d)];
    // Every experiment is its chunks' calls, in order: the histogram run, then
    // each d_k of the sweep (the sweep's point at the histogram's d_k is the
    // same experiment, same seed and pairs: it is not run twice).
    const parts = [{ d, sizes: chunkSizes(d, pairs), calls: chunkCalls(d, pairs, seed, { bins: BINS, range }) }];
    const needSweep = sweepKey !== this.#sweepKey;
    if (needSweep)
      for (const sd of SWEEP_DIMS)
        parts.push(
          sd === d
            ? parts[0]
            : { d: sd, sizes: chunkSizes(sd, pairs), calls: chunkCalls(sd, pairs, seed, { bins: 1 }) },
        );
    this.#running = key;
    const distinct = [...new Set(parts)];
    this.#exp.runKeyed(key, {
      job: { kind: 'calls', calls: distinct.flatMap((p) => p.calls) },
      text: this.#runningText(state),
      onResult: (results) => {
        const ag = this.engine;
        let at = 0;
        const done = new Map(
          distinct.map((p) => [
            p,
            { d: p.d, ...combineChunks(ag, results.slice(at, (at += p.calls.length)), p.sizes) },
          ]),
        );
        const [main, ...sweep] = parts.map((p) => done.get(p));
        this.#result = { key, d, used: main.pairs, seed, res: main };
        if (needSweep) {
          this.#sweepKey = sweepKey;
          this.#sweep = sweep;
        }
        if (this.#keyOf(this.state) === key) this.#drawResult(ag, this.#result);
        return this.#doneText(this.#result);
      },
    });
  }

  #runningText({ d, pairs }) {
    return `Running ${pairs.toLocaleString('en-US')} pairs at d\u2096 = ${d} (and at each d\u2096 of the sweep) in a background worker\u2026`;
  }

  /** After a cancel: how far the run went, and what the figures and numbers still show. */
  #cancelledText(reached) {
    const at = `Cancelled at ${Math.floor(reached * 100)} %.`;
    const again = 'Change a setting or press \u201cRun again\u201d to run it anew.';
    const shown = this.#drawn;
    if (!shown) return `${at} No run has finished yet, so there is nothing to show. ${again}`;
    const n = shown.used.toLocaleString('en-US');
    const which = shown.key === this.#keyOf(this.state) ? 'these settings' : 'other settings, not of these';
    return `${at} The figures and numbers below are those of the last finished run, of ${which} (${n} pairs at d\u2096 = ${shown.d}, seed ${shown.seed}). ${again}`;
  }

  #doneText({ d, used, seed }) {
    const n = used.toLocaleString('en-US');
    return `Done: ${n} pairs at d\u2096 = ${d}, seed ${seed}; ${n} pairs at each d\u2096 of the sweep.`;
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
    this.showAll(ui.stats, { mean: res.mean, std: res.std, rms: res.rms, sqrt: ag.norm(ones(d)) });
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
    const show = (el, std) => this.show(el, std);
    const items = measuredItems(this.#sweep, { name: 'd\u2096', role: 'sweep-std', pad: 4, show, value: (p) => p.std });
    this.#ui.sweepList.replaceChildren(...items);
  }
}

defineWidget('ag-sqrt-d', AgSqrtD);
