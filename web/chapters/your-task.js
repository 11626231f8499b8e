// <ag-your-task>: part 4, "Your own task". The learner picks one of the five
// tasks of ag.tasks and the sizes of a tiny transformer (createTransformer),
// trains it in the experiment worker (widget/training.js) and judges it: the
// loss of each step and the held-out accuracy (evaluate on a batch of another
// seed), and the attention weights of one held-out example for each layer and
// head (forward with returnWeights). The link holds the whole config and the
// seed: the same link trains the same losses, bit for bit, on the same build.
// Numbers: the worker's transformer.step, evaluate and forward (logged in test
// mode); the prediction trains the five tasks on the page (models/your-task.js).
// Sources: Vaswani et al. 2017 (the model), Kingma & Ba 2015 (Adam), Olsson et
// al. 2022 (induction heads need two layers).
// Opening: the model of the state is made and shown at step 0 (its loss, held-out accuracy and weights
// untrained), and nothing trains until the learner presses Train or answers the prediction (which moves to
// its 1-layer model and trains it). Before then a change of the settings, a link or an attribute (the config,
// never a trained model) makes the model of the new config at step 0; once the learner has trained, a change
// trains the new config (after a pause when made in the widget).
//
//   <ag-your-task task="sort" t="10" layers="2" mlp="1"></ag-your-task>
import { AgWidget, defineWidget } from '../widget/base.js';
import { checkbox, lbl, line, notDefined, num } from '../widget/controls.js';
import { h, setAttr, setFlag, setText, setValue } from '../widget/dom.js';
import { labelled, seedControls, settingSelect, settingSlider } from '../widget/experiment.js';
import { percent } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { afterPause } from '../widget/pause.js';
import { choices } from '../widget/predict.js';
import { ExperimentClient, WorkerStartError } from '../widget/worker-client.js';
import { bool, choice, defineState, number } from '../widget/state.js';
import { lossChart } from '../widget/training.js';
import { answerRun } from '../widget/training-answer.js';
import { weightsGrid } from '../widget/weights-grid.js';
import { rowsOf } from '../models/tensor.js';
import {
  BATCH,
  CAPS,
  PROBE,
  RATES,
  TASKS,
  exampleOf,
  jobOf,
  probeAccuracies,
  probeJob,
  taskOf,
} from '../models/your-task.js';

const SIZES = [
  ['t', 'Positions T', 'T', 1],
  ['vocab', 'Symbols (vocab)', 'vocab', 1],
  ['d', 'Channels d_model', 'd_model', 2],
  ['heads', 'Heads h', 'heads', 1],
  ['layers', 'Layers', 'layers', 1],
  ['steps', 'Training steps', 'steps', 50],
];
const int = (name, dflt) => number({ min: CAPS[name][0], max: CAPS[name][1], integer: true, default: dflt });
const weight = (x) => x.toFixed(2); // every weight with two decimals

export class AgYourTask extends AgWidget {
  static title = 'Your own task';
  static styles = ['styles/heatmap.css', 'styles/training.css', 'styles/your-task.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      task: choice({ values: TASKS.map((t) => t.id), default: 'copyPrevious' }),
      t: int('t', 8),
      vocab: int('vocab', 8),
      d: int('d', 16),
      heads: int('heads', 2),
      layers: int('layers', 1),
      mlp: bool({ default: false }),
      norm: choice({ values: ['layer', 'none'], default: 'layer' }),
      scale: bool({ default: true }),
      lr: choice({ values: RATES, default: '0.01' }),
      steps: number({ min: 50, max: 1000, integer: true, default: 200 }),
      seed: number({ min: 0, max: 999999, integer: true, default: 1 }),
      layer: int('layers', 1),
      head: int('heads', 1),
    },
  });

  #ui = null;
  #run = null;
  #chart = null;
  #map = null; // { key, hm } the heat map of the shown T
  #key = null; // the config of the run going on or shown
  #example = null; // { key, tokens, targets } or { key, error }
  #curves = []; // each update: { step, loss, gradNorm, accuracy }
  #sizesNote = false; // the note shows sizes that cannot be trained (#failed), this widget's own
  #weights = null; // the last update's weights, per layer [1, heads, T, T]
  #probe = new WeakMap(); // engine -> the prediction's accuracies
  #prober = null; // { ag, client, acc } the prediction's runs in a worker of their own
  #start = afterPause(() => this.#train(), 400);

  build(body) {
    const predict = this.predict({
      id: 'one-layer-limit',
      question:
        'A 1-layer model with one head and no MLP (d_model 16, T 12, vocab 8) trains 100 steps on each task. On which task does it end lowest in held-out accuracy?',
      choices: choices(Object.fromEntries(TASKS.map((t) => [t.id, t.label]))),
      misconceptions: {
        copyPrevious:
          'That counts copying as the hardest because it needs attention at all. Its answer is always one position back: a fixed offset that one head learns from the positions alone, so one layer masters it within these steps.',
        reverse:
          'That takes reversing for a long-range task too hard for one layer. Each answer sits at a place fixed by the query\u2019s own position, mirrored across the separator, so one head learns where to look from the positions alone.',
        sort: 'That ranks the tasks by how much work they are for a person. For one attention layer what counts is whether one head can find each answer in one look: the next symbol in sorted order can be picked out by what the symbols are; the token induction copy asks for can only be found by matching each token\u2019s predecessor, which takes a head in an earlier layer.',
        bracketMatch:
          'That expects bracket matching to need a counter that one layer lacks. The brackets so far balance when \u2018(\u2019 and \u2018)\u2019 have come equally often, a share that one head can average over the row in one look; and most positions are not balanced, so answering \u201cnot balanced\u201d is right most of the time.',
      },
      reveal: (_choice, ag) => this.#reveal(ag),
    });
    const ui = { sizes: {} };
    ui.task = settingSelect(
      'task',
      'Task',
      TASKS.map((t) => [t.id, t.label]),
      (task) => this.setState({ task }),
    );
    ui.layout = h('p', { class: 'task-layout' });
    for (const [name, label, text, step] of SIZES) {
      const [min, max] = CAPS[name];
      // The number follows the slider as it moves; the state (a new run) waits until it is let go.
      const s = settingSlider(name, label, text, {
        min,
        max,
        step,
        onInput: (_, input) => setText(s.out, input.value),
        onChange: (v) => this.setState({ [name]: v }),
      });
      ui.sizes[name] = s;
    }
    ui.norm = settingSelect('norm', 'Norm', ['layer', 'none'], (norm) => this.setState({ norm }));
    ui.lr = settingSelect('lr', 'Learning rate', RATES, (lr) => this.setState({ lr }));
    ui.mlp = checkbox({ id: 'yt-mlp', label: 'MLP block', onChange: (mlp) => this.setState({ mlp }) });
    ui.scale = checkbox({
      id: 'yt-scale',
      label: 'Scale scores by 1/\u221ad\u2096',
      onChange: (scale) => this.setState({ scale }),
    });
    ui.seed = seedControls(this, {
      max: 999999,
      label: 'Seed of the weights and the data',
      control: false,
      group: 'seed',
    });
    this.#run = answerRun(this, {
      label: 'the model',
      onUpdate: (u) => this.#update(u),
      draw: () => this.#draw(),
      onDone: () => this.#done(),
      onError: (err) => this.#failed(err),
    });
    const settings = h(
      'div',
      { class: 'settings' },
      labelled('Task', ui.task),
      ui.layout,
      h(
        'div',
        { class: 'sizes' },
        Object.values(ui.sizes).map((s) => s.label),
      ),
      h(
        'div',
        { class: 'flags' },
        labelled('Norm', ui.norm),
        labelled('Learning rate', ui.lr),
        ui.mlp.row,
        ui.scale.row,
      ),
      ui.seed.label,
    );
    const chartBox = h('div', { class: 'loss-box' });
    this.#chart = lossChart(chartBox, { label: 'Training loss and held-out accuracy against the step' });
    ui.step = h('span', { class: 'step-text' });
    ui.loss = num('loss');
    ui.gradNorm = num('grad-norm');
    ui.accuracy = num('accuracy');
    ui.example = h('p', { class: 'example' });
    ui.layer = settingSelect('layer', 'Layer', ['1'], (v) => this.setState({ layer: Number(v) }));
    ui.head = settingSelect('head', 'Head', ['1'], (v) => this.setState({ head: Number(v) }));
    ui.mapBox = h('div', { class: 'map-box' });
    const numbers = h(
      'div',
      { class: 'numbers' },
      line(lbl('After step '), ui.step, lbl(': training loss '), ui.loss, lbl(' nats, gradient norm '), ui.gradNorm),
      line(lbl('Held-out accuracy: '), ui.accuracy),
      formulas('L=-\\frac{1}{N}\\sum_{t\\ \\mathrm{scored}}\\log p_\\theta(y_t\\mid x_{\\le t})'),
    );
    const attention = h(
      'section',
      { class: 'attention', 'aria-label': 'Attention of a held-out example' },
      h('h3', {}, 'Attention of a held-out example'),
      ui.example,
      h('div', { class: 'pick' }, labelled('Layer', ui.layer), labelled('Head', ui.head)),
      ui.mapBox,
    );
    body.append(predict, settings, this.#run.controls(), h('div', { class: 'layout' }, chartBox, numbers), attention);
    this.#ui = ui;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#start.cancel();
    this.#run?.dispose();
    this.#prober?.client.dispose();
    this.#key = null; // back on the page, the state trains again
  }

  syncControls(s) {
    const ui = this.#ui;
    setValue(ui.task, s.task);
    setText(ui.layout, TASKS.find((t) => t.id === s.task).layout);
    for (const [name] of SIZES) ui.sizes[name].set(s[name], String(s[name]));
    setValue(ui.norm, s.norm);
    setValue(ui.lr, s.lr);
    ui.mlp.set(s.mlp);
    ui.scale.set(s.scale);
    ui.seed.sync(s.seed);
    options(ui.layer, s.layers, Math.min(s.layer, s.layers));
    options(ui.head, s.heads, Math.min(s.head, s.heads));
  }

  /** The text of the run's config: every field but the attention view. */
  #keyOf = (s) => JSON.stringify({ ...s, layer: 0, head: 0 });

  /** A change made in the widget starts its run after a pause; a link or an attribute at once. */
  stateChanged(source) {
    this.#source = source;
  }

  render(ag, s) {
    const key = this.#keyOf(s);
    if (this.#example?.key !== key || this.#example.ag !== ag) {
      try {
        this.#example = { key, ag, ...exampleOf(ag, s) };
      } catch (err) {
        this.#example = { key, ag, error: err };
      }
    }
    if (this.#key !== key) this.#restart(key);
    const ex = this.#example;
    if (ex.error) {
      this.#start.cancel();
      this.#failed(ex.error);
      return;
    }
    setText(this.#ui.example, exampleText(ex));
    this.#drawMap(s);
  }

  /** A new config: the run going on stops, the curves and numbers go, and its own run starts (after a pause). */
  #restart(key) {
    const ui = this.#ui;
    this.#key = key;
    this.#curves = [];
    this.#weights = null;
    this.#next = null;
    this.#measured = null;
    this.#chart.reset();
    if (this.#run.state === 'running' || this.#run.state === 'paused') this.#run.cancel();
    setText(ui.step, '\u2026');
    notDefined([ui.loss, ui.gradNorm, ui.accuracy], '\u2026');
    setAttr(this, 'data-run', 'running');
    // Only this widget's own note of sizes that cannot be trained goes: the problems of the link that set this state
    // stay in view, as in every chapter.
    if (this.#sizesNote) this.clearNote();
    this.#sizesNote = false;
    if (this.#source === 'user') this.#start.poke();
    else {
      this.#start.cancel();
      this.#train();
    }
  }

  #source = null;

  #train() {
    const s = this.state;
    if (this.#example?.error || this.#keyOf(s) !== this.#key) return;
    this.#runKey = this.#key;
    // Trained to the steps once the learner has asked for training; else made and shown at step 0.
    this.#run.open(jobOf(s, this.#example.tokens));
  }

  #runKey = null; // the config of the run whose updates count

  /** A chunk's update: its numbers kept (the exports), drawn at the next paced draw (widget/paced-draw.js). */
  #update(u) {
    if (this.#runKey !== this.#key) return;
    const { step, loss, gradNorm, heldOutLoss, accuracy, losses } = u;
    this.#curves.push({ step, loss, gradNorm, heldOutLoss, accuracy, losses });
    this.#chart.add(u);
    if (accuracy !== undefined) this.#measured = u;
    this.#next = u;
  }

  #next = null; // the last update of the run whose updates count, drawn next
  #measured = null; // its last update with a held-out accuracy

  #draw() {
    const u = this.#next;
    if (!u || this.#runKey !== this.#key) return;
    const ui = this.#ui;
    setText(ui.step, `${u.step} of ${u.steps}`);
    this.show(ui.loss, u.loss);
    if (u.gradNorm === undefined) notDefined([ui.gradNorm], 'none yet');
    else this.show(ui.gradNorm, u.gradNorm);
    if (this.#measured) this.show(ui.accuracy, this.#measured.accuracy, { format: percent });
    this.#chart.draw();
    if (u.weights) this.#weights = u.weights;
    this.#drawMap(this.state);
  }

  #done() {
    if (this.#runKey !== this.#key) return;
    this.#probeInWorker();
    const last = this.#curves.at(-1);
    if (last)
      this.announce(
        `Trained ${last.step} steps: loss ${this.#ui.loss.textContent}, held-out accuracy ${this.#ui.accuracy.textContent}.`,
      );
  }

  #failed(err) {
    setAttr(this, 'data-run', 'error');
    // A worker that did not start says why, and is no fault of the sizes.
    const lead = err instanceof WorkerStartError ? 'The training could not run' : 'These sizes cannot be trained';
    this.noteFailure(lead, err);
    this.#sizesNote = true;
  }

  /** The heat map of the chosen layer and head (made again when T changes). */
  #drawMap(s) {
    const T = s.t;
    if (this.#map?.T !== T) {
      this.#ui.mapBox.replaceChildren();
      const hm = weightsGrid(this, this.#ui.mapBox, {
        T,
        label: 'Attention weights of the held-out example: queries in rows, keys in columns',
        cell: 40,
        format: weight,
        describe: (i, j, text) => `query ${i + 1}, key ${j + 1}: weight ${text}`,
        show: (el, value, o) => this.show(el, value, { ...o, format: weight }),
      });
      this.#map = { T, hm };
    }
    const w = this.#weights;
    const layer = Math.min(s.layer, s.layers) - 1;
    const head = Math.min(s.head, s.heads) - 1;
    setFlag(this.#ui.mapBox, 'hidden', !w?.[layer]); // no weights of this config yet: no old ones shown
    if (!w?.[layer]) return;
    this.#map.hm.update(rowsOf(w[layer], T, T, head * T * T));
  }

  /**
   * The prediction's runs in a worker of their own, once a first run is done: the reveal then finds them
   * measured (without them it trains on the page, the same calls, and the page waits for it).
   */
  async #probeInWorker() {
    const ag = this.engine;
    if (!ag || this.#prober?.ag === ag || this.#probe.has(ag)) return;
    const client = new ExperimentClient();
    const prober = { ag, client, acc: null };
    this.#prober = prober;
    const acc = {};
    try {
      for (const { id } of TASKS) acc[id] = (await client.run(probeJob(id))).accuracy;
      prober.acc = acc;
    } catch {
      if (this.#prober === prober) this.#prober = null; // cancelled or failed: the reveal trains on the page
    } finally {
      client.dispose();
    }
  }

  /** The prediction: each task trained on the PROBE model, on the page (kept per engine). */
  #reveal(ag) {
    const measured = this.#prober?.ag === ag ? this.#prober.acc : null;
    const acc = this.#probe.get(ag) ?? measured ?? probeAccuracies(ag);
    this.#probe.set(ag, acc);
    this.#run.asked = true;
    const key = this.#key;
    this.setState(PROBE);
    if (this.#key === key && this.#run.state === 'paused') this.#run.resume(); // the probe's config, waiting
    const worst = TASKS.reduce((a, b) => (acc[b.id] < acc[a.id] ? b : a));
    const list = TASKS.map((t) => `${t.label} ${percent(acc[t.id])}`).join(', ');
    return {
      answer: worst.id,
      explanation: `Held-out accuracy after ${PROBE.steps} steps of ${BATCH} rows: ${list}. Induction copy asks, at each position of the repeat, for the token that followed the current token\u2019s earlier copy. The repeat offset changes from row to row, so no fixed distance back finds it. One layer with one head is still far from it after these steps; two layers can learn it, given more steps (chapter 34 opens such a model and switches its heads off to see which ones the answer needs). The widget now trains the induction-copy run of this list, with the same settings; left to finish, it shows the same accuracy at step ${PROBE.steps}. Then add a layer, set 200 steps and train again.`,
    };
  }

  figure() {
    return [...this.shadowRoot.querySelectorAll('.loss-box svg, .map-box svg.heatmap')];
  }

  /** CSV: a row per update of the run: the step, its loss and gradient norm, the held-out loss and accuracy (or ''). */
  exportTable() {
    const columns = ['step', 'loss', 'grad_norm', 'heldout_loss', 'heldout_accuracy'];
    return { columns, rows: this.#curves.map((c) => [c.step, c.loss, c.gradNorm, c.heldOutLoss, c.accuracy]) };
  }

  /**
   * JSON: the run (config for ag.createTransformer, the task for ag.tasks[name], the training options), the
   * loss of every step and the updates, the example and its weights (per layer [1, heads, T, T]). The trained
   * parameters stay in the worker: the link and the config make them again.
   */
  exportData() {
    const s = this.state;
    const data = super.exportData();
    const { name, ...options } = taskOf(s);
    const { config, task: _task, snapshot: _snapshot, ...training } = jobOf(s, []);
    data.run = { config, task: { name, options }, training };
    data.losses = this.#curves.flatMap((c) => c.losses ?? []);
    data.updates = this.#curves.map(({ losses: _losses, ...c }) => c);
    if (this.#example?.tokens) data.example = { tokens: this.#example.tokens, targets: this.#example.targets };
    if (this.#weights) data.weights = this.#weights.map((w) => ({ shape: w.shape, data: Array.from(w.data) }));
    return data;
  }
}

/** The options 1..n of a select, `value` chosen (rebuilt only when n changes). */
function options(select, n, value) {
  if (select.options.length !== n)
    select.replaceChildren(
      ...Array.from({ length: n }, (_, i) => h('option', { value: String(i + 1) }, String(i + 1))),
    );
  setValue(select, String(value));
}

/** The example's tokens and targets as text (the data, not results): "tokens 3 1 4 …; targets – 3 1 …". */
function exampleText({ tokens, targets }) {
  const t = (v) => (v < 0 ? '\u2013' : String(v));
  return `Tokens ${tokens.map(t).join(' ')}; targets ${targets.map(t).join(' ')} (\u2013: not scored).`;
}

defineWidget('ag-your-task', AgYourTask);
