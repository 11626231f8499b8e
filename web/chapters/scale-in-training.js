// <ag-scale-in-training>: part 4, "Why 1/√d_k keeps learning alive". One
// model (1 layer, 1 head of width d_k, copyPrevious) trained twice from the
// same seed on the same batches, its scores scaled by 1/√d_k or not
// (config.scaleScores), in two runs of the experiment worker side by side.
// Over the steps: the loss of each run, the mean entropy (bits) of the
// attention rows of a held-out row, and the gradient norm of the query
// projection W_Q. At d_k = 256 the unscaled scores of a fresh model spread
// with standard deviation about √d_k = 16, so its softmax starts saturated.
// Numbers: the worker's step (loss, gradNorms) and forward (weights), logged;
// ag.entropy of each weights row and ag.dot for their mean, in the page.
// Sources: Vaswani et al. 2017, §3.2.1 (the scale 1/√d_k, eq. 1); the softmax's
// Jacobian diag(a) − a aᵀ (chapter "softmax").
// Opening: both models are made and shown at step 0 (their loss, entropy and the gradient of W_Q on the first
// batch, the one the first step takes), and nothing trains until the learner answers the prediction or presses a
// run's Train; a slider or a link (which holds the settings, never a trained model) makes the runs of its settings
// again, as widget/side-runs.js tells.
//
//   <ag-scale-in-training dk="256" seed="3" lr="0.003" steps="40"></ag-scale-in-training>
import { AgWidget, defineWidget } from '../widget/base.js';
import { num, slider } from '../widget/controls.js';
import { seedControls } from '../widget/experiment.js';
import { h, setText } from '../widget/dom.js';
import { fmt, formatNumber } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { bodyRow, table } from '../widget/matrix-table.js';
import { choices } from '../widget/predict.js';
import { stepPanels } from '../widget/step-panels.js';
import { sideRuns } from '../widget/side-runs.js';
import { defineState, number } from '../widget/state.js';
import {
  DKS,
  LRS,
  MEAN,
  PROBE_SEED,
  RUNS,
  STEPS,
  T,
  VOCAB,
  WQ,
  jobOf,
  keyOf,
  rowsSeeing,
} from '../models/scale-in-training.js';
import { hint, sources } from '../widget/chapter-notes.js';

/** The three panels: what each plots of an update, its scale and axis. */
const PANELS = [
  { id: 'loss', label: 'loss (nats)', kind: 'linear', top: (m) => Math.max(m, 1) },
  { id: 'entropy', label: 'entropy (bits)', kind: 'linear', top: () => Math.log2(T) },
  { id: 'grad', label: '\u2016\u2207W_Q\u2016', kind: 'log' },
];
/** The sliders: each steps through its field's values. */
const SETTINGS = [
  ['dk', DKS, 'Head width d\u2096'],
  ['lr', LRS, 'Learning rate'],
  ['steps', STEPS, 'Steps'],
];
/** The table's rows: label, cell role, the measure of a point, and whether the point is step 0 (else the last). */
const CELLS = [
  ['Loss (nats)', 'loss', 'loss', false],
  ['Entropy of a row (bits)', 'entropy', 'entropy', false],
  ['\u2016\u2207W_Q\u2016', 'grad', 'grad', false],
  ['Entropy of a row at step 0 (bits)', 'entropy-0', 'entropy', true],
  ['\u2016\u2207W_Q\u2016 at step 0', 'grad-0', 'grad', true],
];
/** Loss and gradient norm with four significant digits; bits with three decimals, in every state. */
const bits = (x) => x.toFixed(3);

/** d_k, the seed of the parameters and the batches, Adam's learning rate and the steps. */
const STATE = defineState({
  version: 1,
  fields: {
    dk: number({ values: DKS, default: 256 }),
    seed: number({ min: 0, max: 9999, integer: true, default: 3 }),
    lr: number({ values: LRS, default: 0.003 }),
    steps: number({ values: STEPS, default: 40 }),
  },
});

export class AgScaleInTraining extends AgWidget {
  static title = 'Why 1/\u221ad\u2096 keeps learning alive';
  static styles = ['styles/scale-in-training.css'];
  static stateDecl = STATE;

  #ui = null;
  #pair = null; // the two runs (widget/side-runs.js)

  figure() {
    return this.#ui ? this.#ui.panels.svgs() : null;
  }

  build(body) {
    const predict = this.predict({
      id: 'loss-unscaled',
      question:
        'At d\u2096 = 256, the same model is trained twice from the same start on the same batches, once with the scores divided by \u221ad\u2096 = 16 and once without. Without the scale, will the loss fall faster, about the same, or slower?',
      choices: choices({ faster: 'Faster', same: 'About the same', slower: 'Slower' }),
      misconceptions: {
        faster:
          'That reads the larger gradient of W_Q without the scale as faster learning. Nothing divides the unscaled scores by 16, so W_Q\u2019s gradient starts larger, not smaller; yet Adam divides each gradient by its own running size (Kingma and Ba 2015), so its steps are about the same size either way, and the saturated softmax passes almost nothing to the keys it gives about 0 weight, the previous token\u2019s among them.',
        same: 'That expects the scale to change only the size of the scores, which training could make up for at once. Unscaled at d\u2096 = 256, each row starts with one key holding nearly all the weight, and a key near 0 weight gets a gradient near 0 (a\u2c7c(\u03b4 \u2212 a)): the score of the previous token is hardly pushed up, and the loss falls more slowly.',
      },
      reveal: async (_choice, ag) => {
        this.#pair.asked = true;
        this.setState({ dk: 256 });
        await this.#pair.wait();
        const [s, u] = RUNS.map((r) => this.#last(r.id));
        const [s0, u0] = RUNS.map((r) => this.#pair.of(r.id).points[0]);
        const { steps } = this.state;
        if (s?.step !== steps || u?.step !== steps)
          throw new Error(`the runs stopped at steps ${s?.step ?? 0} and ${u?.step ?? 0} of ${steps}`);
        const gap = ag.dot([u.loss, s.loss], [1, -1]);
        const grads = ag.dot([u0.grad, s0.grad], [1, -1]);
        return {
          answer: gap > 0.1 ? 'slower' : gap < -0.1 ? 'faster' : 'same',
          explanation: `After ${s.step} steps the loss is ${fmt(s.loss)} with the scale and ${fmt(u.loss)} without: ${formatNumber(gap, 4)} nats behind. Before the first step the unscaled rows hold ${bits(u0.entropy)} bits against ${bits(s0.entropy)} scaled: one key holds nearly all the weight, and the keys left near 0 get a gradient near 0 (a\u2c7c(\u03b4 \u2212 a)), so the score of the previous token is hardly pushed up. At step 0 the gradient of W_Q is ${fmt(u0.grad)} without the scale and ${fmt(s0.grad)} with it${grads > 0 ? ': larger, not smaller, so its size is not what holds the unscaled run back' : ''}.`,
        };
      },
    });
    const ui = { cells: {} };
    for (const [name, values, label] of SETTINGS)
      ui[name] = slider({
        id: `st-${name}`,
        min: 0,
        max: values.length - 1,
        step: 1,
        label,
        onInput: (i) => this.#move({ [name]: values[i] }),
      });
    ui.seed = seedControls(this, {
      max: 9999,
      label: 'Seed of the model and the batches',
      bad: 'The seed is a whole number from 0 to 9999.',
    });

    this.#pair = sideRuns(this, RUNS, {
      keyOf,
      jobsOf: (state, ag) => {
        const probe = Array.from(ag.tasks.copyPrevious({ T, vocab: VOCAB, batch: 1, seed: PROBE_SEED }).next().tokens);
        return (r) => jobOf(state, r.scaleScores, probe);
      },
      pointOf: (run, u, ag) => this.#pointOf(run, u, ag),
      draw: () => this.engine && this.render(this.engine, this.state),
      // Both runs trained (their Train, or the prediction's answer): the curves show the answer.
      onTrained: () => this.answerShown('run'),
      pauseMs: 300,
    });

    ui.panels = stepPanels(PANELS, RUNS, (p) => `${p.label} against the training step, with and without the scale`);

    // The last step shown, then step 0 (the answer compares the two runs before their first step).
    const rows = CELLS.map(([text, role]) => {
      ui.cells[role] = Object.fromEntries(RUNS.map((r) => [r.id, num(role, r.id)]));
      return bodyRow(
        text,
        RUNS.map((r) => ui.cells[role][r.id]),
      );
    });
    ui.stepText = h('span', { class: 'step-text' });
    const numbers = table({
      className: 'results',
      caption: ['At the last step shown: ', ui.stepText],
      headers: ['', 'scaled', 'unscaled'],
      rows,
    });

    body.append(
      predict,
      h(
        'div',
        { class: 'sliders' },
        ui.dk.row,
        ui.lr.row,
        ui.steps.row,
        h('div', { class: 'seed-row' }, ui.seed.label, ui.seed.next),
      ),
      h('div', { class: 'runs' }, this.#pair.boxes),
      h('div', { class: 'panels' }, ui.panels.figs),
      numbers,
      formulas(
        'S=\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\quad\\text{or}\\quad S=QK^{\\mathsf T}',
        '\\operatorname{sd}(q\\cdot k)\\approx\\sqrt{d_k}',
        '\\frac{\\partial a}{\\partial s}=\\operatorname{diag}(a)-aa^{\\mathsf T}',
        'H=-\\sum_j a_j\\log_2 a_j',
      ),
      sources('Source: Vaswani et al. 2017, Attention Is All You Need, \u00a73.2.1 (the scale 1/\u221ad\u2096).'),
      hint(
        'Both runs start from the same parameters and see the same batches; only the scale differs. The entropy is the mean over the 15 rows of a held-out sequence that see two keys or more (at most 4 bits, over 16 keys). The chapter \u201cThe 1/\u221ad\u2096 fix\u201d (',
        h('a', { href: '?ch=scale-fix' }, 'open it'),
        ') shows why q\u00b7k grows like \u221ad\u2096; \u201cSoftmax turns logits into weights\u201d (',
        h('a', { href: '?ch=softmax' }, 'open it'),
        ') why a saturated softmax passes almost nothing back.',
      ),
    );
    this.#ui = ui;
  }

  /** A slider moved: the new state, what it changes, and the runs once the learner pauses. */
  #move(patch) {
    this.setState(patch);
    const { dk, lr, steps } = this.state;
    const what = this.#pair.trains ? 'both runs train again' : 'both models are made again at step 0';
    this.announce(`d\u2096 = ${dk}, learning rate ${lr}, ${steps} steps: ${what} when you pause.`);
  }

  syncControls(state) {
    for (const [name, values, label] of SETTINGS)
      this.#ui[name].set(values.indexOf(state[name]), `${state[name]}`, `${label}: ${state[name]}`);
    this.#ui.seed.sync(state.seed);
  }

  /** A chunk of a run ended: its loss and W_Q gradient norm (the worker's), the mean entropy of the probe's rows. */
  #pointOf(run, u, ag) {
    if (!u.weights) return null;
    run.rows = rowsSeeing(u.weights);
    const entropy = ag.dot(
      run.rows.map((row) => ag.entropy(row)),
      MEAN,
    );
    return { step: u.step, loss: u.loss, entropy, grad: u.gradNorms?.[WQ] ?? null };
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#pair?.dispose();
  }

  #last(id) {
    return this.#pair.of(id).points.at(-1);
  }

  render(ag, state) {
    this.#pair.pending(state);
    const ui = this.#ui;
    const lasts = RUNS.map((r) => this.#last(r.id));
    for (const [i, r] of RUNS.entries()) {
      const last = lasts[i];
      const first = this.#pair.of(r.id).points[0];
      for (const [, role, measure, atStart] of CELLS) {
        const cell = ui.cells[role][r.id];
        const point = atStart ? first : last;
        if (point && point[measure] !== null)
          this.show(cell, point[measure], { format: measure === 'entropy' ? bits : fmt });
        else {
          setText(cell, '\u2013');
          delete cell.dataset.value;
        }
      }
    }
    const shown = [...new Set(lasts.filter(Boolean).map((p) => p.step))];
    setText(ui.stepText, shown.length ? `step ${shown.join(' and ')} of ${state.steps}` : 'training starts');
    ui.panels.draw(state.steps, Object.fromEntries(RUNS.map((r) => [r.id, this.#pair.of(r.id).points])));
  }

  /** CSV: one row per step shown, the three measures of both runs. */
  exportTable() {
    const columns = ['step', ...RUNS.flatMap((r) => ['loss', 'entropy', 'grad_wq'].map((m) => `${m}_${r.id}`))];
    const [a, b] = RUNS.map((r) => this.#pair?.of(r.id).points ?? []);
    const rows = a.map((p, i) => [p.step, p.loss, p.entropy, p.grad, b[i]?.loss, b[i]?.entropy, b[i]?.grad]);
    return { columns, rows };
  }

  exportData() {
    const data = super.exportData();
    if (!this.#pair) return data;
    const of = (fn) => Object.fromEntries(RUNS.map((r) => [r.id, fn(this.#pair.of(r.id))]));
    data.runs = of((run) => run.points.map((p) => ({ ...p })));
    // The probe's weights rows of the last chunk shown, whose entropies give the mean shown.
    data.probe = of((run) => (run.rows ?? []).map((row) => Array.from(row)));
    return data;
  }
}

defineWidget('ag-scale-in-training', AgScaleInTraining);
