// <ag-heads-learn>: Part 4, "What heads learn". A 2-layer model with 2 heads per layer trains on
// inductionCopy (L distinct tokens repeated with period L, L from 4 to 8 drawn per row: each token after
// the first L is predictable from its earlier occurrence, not from its position) in the experiment
// worker (widget/training.js); the four heads' attention grids on one held-out sequence follow the
// training, and the learner switches heads off (transformer evaluate and forward with a headMask: the
// head's output zeroed before W_O) to see which head the accuracy needs. Numbers: the
// worker's transformer step (loss), evaluate (held-out accuracy, with the mask) and forward
// (returnWeights, with the mask); the held-out sequence is ag.tasks.inductionCopy's.
// Sources: Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"; Olsson et al. 2022,
// "In-context Learning and Induction Heads".
// Opening: the model is made and shown at step 0 (its loss, held-out accuracy and grids untrained), and nothing
// trains until the learner answers the prediction (the run trains to the steps) or presses Train. Before then
// the settings, the head boxes and a link (which holds the settings, never a trained model) show the step-0
// model of their settings; once it has trained, a new seed or number of steps trains again. A Cancel while the
// answer waits puts the untrained model back (widget/training-answer.js).
//
//   <ag-heads-learn seed="3" steps="200" mask="1,1;0,1"></ag-heads-learn>
import { AgWidget, defineWidget } from '../widget/base.js';
import { checkbox, groupData, lbl, line, num, radioGroup } from '../widget/controls.js';
import { h, setText } from '../widget/dom.js';
import { formatNumber, percent } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { SLOW_DRAW_GAP_MS, pacedDraw } from '../widget/paced-draw.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, matrix, number } from '../widget/state.js';
import { lossChart } from '../widget/training.js';
import { weightThumbs } from '../widget/weight-thumbs.js';
import { weightsGrid } from '../widget/weights-grid.js';
import { rowsOf } from '../models/tensor.js';
import { answerRun } from '../widget/training-answer.js';
import { ALL_ON, DEFAULT_STEPS, HEADS, HELD_OUT, LAYERS, STEP_CHOICES, T, VOCAB } from '../models/heads-learn.js';
import { headName, inductionHead, jobOf, offText, previousTokenHead } from '../models/heads-learn.js';

const STATE = defineState({
  version: 1,
  fields: {
    seed: number({ min: 1, max: 99, integer: true, default: 1 }),
    steps: number({ values: STEP_CHOICES, default: DEFAULT_STEPS }),
    mask: matrix({ rows: LAYERS, cols: HEADS, min: 0, max: 1, integer: true, default: ALL_ON }),
    head: choice({ values: ['0-0', '0-1', '1-0', '1-1'], default: '1-0' }),
  },
});
const HEAD_LIST = Array.from({ length: LAYERS * HEADS }, (_, i) => [Math.floor(i / HEADS), i % HEADS]);
/** Head `[l, j]`'s weights from an update: T rows of T (views of the worker's result). */
const headRows = (u, [l, j]) => rowsOf(u.weights[l], T, T, j * T * T);

export class AgHeadsLearn extends AgWidget {
  static title = 'What heads learn';
  static styles = ['styles/heatmap.css', 'styles/training.css', 'styles/heads-learn.css'];
  static stateDecl = STATE;

  #ui = null;
  #run = null;
  #tokens = null;
  #runKey = null;
  #jobKey = null;

  build(body) {
    const predict = this.predict({
      id: 'layer-0-off',
      question:
        'After training, switch off both heads of layer 0, the layer below the heads that find the copy. What happens to the held-out accuracy?',
      choices: choices({
        far: 'It falls to less than half of the trained accuracy',
        some: 'It falls, but keeps more than half',
        same: 'It hardly moves (less than a tenth lost): layer 1 finds the copy alone',
      }),
      misconceptions: {
        some: 'That pictures the two layers sharing the work, each finding part of the copies. They work in series: the head of layer 1 finds the copy only through the token before each position, which a head of layer 0 writes there; with layer 0 off, the way to the answer is gone, not a share of it.',
        same: 'That gives layer 1 the whole task. The token to copy sits a different distance back in every row, so no head finds it by position; the head of layer 1 finds it by matching the current token against the token before each position, which only layer 0 writes there.',
      },
      reveal: (_choice, ag) => this.#reveal(ag),
    });
    const run = answerRun(this, {
      label: 'the 2-layer model',
      onUpdate: (u) => this.#update(u),
      draw: () => this.#draw(),
      back: () => {
        const job = jobOf(this.state, this.#tokens);
        this.#jobKey = JSON.stringify(job);
        this.#run.start(job, { until: 0 });
      },
    });
    this.#run = run;
    const chartBox = h('div', { class: 'chart-box' });
    const chart = lossChart(chartBox, {
      label: 'Training loss and held-out accuracy against the step',
      caption: 'Training loss (line) and held-out accuracy (dots) with the heads switched off below',
    });
    const gridTitle = h('h3', {}, '');
    const gridBox = h('div', { class: 'grid-box' }, gridTitle);
    const grid = weightsGrid(this, gridBox, {
      T,
      label: 'Attention weights of the chosen head on the held-out sequence',
      cell: 30,
      format: (v) => formatNumber(v, 1),
      describe: (a, b, text) => `query ${a + 1} to key ${b + 1}, weight ${text}`,
    });
    const thumbs = weightThumbs(h('div', { class: 'thumbs-box' }), {
      names: HEAD_LIST.map(([l, j]) => `L${l} H${j}`),
      T,
      label:
        'The attention weights of the four heads on the held-out sequence, side by side (cividis: dark 0, yellow 1)',
    });
    const headPick = radioGroup({
      name: 'hl-head',
      label: 'The head whose grid is shown in full',
      lead: 'Grid in full:',
      options: HEAD_LIST.map(([l, j]) => ({ value: `${l}-${j}`, label: headName(l, j) })),
      onChange: (head) => this.setState({ head }),
    });
    const toggles = HEAD_LIST.map(([l, j]) =>
      checkbox({
        id: `hl-head-${l}-${j}`,
        label: `${headName(l, j)} on`,
        onChange: (on) => {
          const mask = this.state.mask;
          mask[l][j] = on ? 1 : 0;
          this.setState({ mask });
          this.announce(
            `${headName(l, j)} ${on ? 'on' : 'off'}; the held-out accuracy follows when the worker answers`,
          );
        },
      }),
    );
    const seedInput = h('input', { type: 'number', id: 'hl-seed', min: 1, max: 99, step: 1 });
    seedInput.addEventListener('change', () => {
      const seed = Number(seedInput.value);
      if (Number.isInteger(seed) && seed >= 1 && seed <= 99) this.setState({ seed });
    });
    const stepsSelect = h(
      'select',
      { id: 'hl-steps' },
      STEP_CHOICES.map((s) => h('option', { value: String(s) }, String(s))),
    );
    stepsSelect.addEventListener('change', () => this.setState({ steps: Number(stepsSelect.value) }));
    const ui = {
      chart,
      grid,
      gridTitle,
      thumbs,
      headPick,
      toggles,
      seedInput,
      stepsSelect,
      loss: num('loss'),
      accuracy: num('accuracy'),
      step: h('span', { class: 'step', dataset: { role: 'step-text' } }, '0'),
      off: h('span', { class: 'off', dataset: { role: 'off-text' } }, 'none'),
      sequence: h('p', { class: 'sequence', dataset: { role: 'sequence' } }),
    };
    this.#ui = ui;
    body.append(
      predict,
      h(
        'div',
        { class: 'settings' },
        h('label', { for: 'hl-seed', dataset: groupData('seed') }, 'Seed (model and batches) ', seedInput),
        h('label', { for: 'hl-steps', dataset: groupData('steps') }, 'Steps ', stepsSelect),
      ),
      run.controls(),
      chartBox,
      h(
        'div',
        { class: 'numbers' },
        line(lbl('At step '), ui.step, lbl(': training loss '), ui.loss, lbl(' nats; held-out accuracy '), ui.accuracy),
        line(lbl('Heads off: '), ui.off),
      ),
      h(
        'fieldset',
        { class: 'heads' },
        h('legend', {}, 'Switch heads on and off (evaluate and forward with a head mask)'),
        toggles.map((t) => t.row),
      ),
      ui.sequence,
      thumbs.svg.node().parentNode,
      headPick.element,
      gridBox,
      formulas(
        'S_j = Q_j K_j^{\\mathsf T} / \\sqrt{d_k} + M',
        'O_j = \\operatorname{softmax}(S_j)\\, V_j',
        'x \\mathrel{+}= [\\,m_{l0} O_0,\\ m_{l1} O_1\\,]\\, W_O',
      ),
      h(
        'p',
        { class: 'mask-note' },
        'M is the causal mask; m\u2097\u2c7c = 1 keeps head j of layer l, m\u2097\u2c7c = 0 switches it off.',
      ),
      h(
        'p',
        { class: 'source' },
        'Sources: Elhage et al. 2021, \u201cA Mathematical Framework for Transformer Circuits\u201d; Olsson et al. 2022, \u201cIn-context Learning and Induction Heads\u201d.',
      ),
    );
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.seedInput.value = String(state.seed);
    ui.stepsSelect.value = String(state.steps);
    HEAD_LIST.forEach(([l, j], i) => ui.toggles[i].set(state.mask[l][j] === 1));
    ui.headPick.set(state.head);
    const [l, j] = state.head.split('-').map(Number);
    setText(
      ui.gridTitle,
      `${headName(l, j)}${state.mask[l][j] ? '' : ' (switched off: its weights are still computed)'}`,
    );
    ui.thumbs.choose(HEAD_LIST.findIndex((head) => head.join('-') === state.head));
    setText(ui.off, offText(state.mask));
  }

  render(ag, state) {
    if (!this.#tokens) {
      const seq = ag.tasks.inductionCopy({ T, vocab: VOCAB, batch: 1, seed: HELD_OUT.seed }).at(0);
      this.#tokens = Array.from(seq.tokens);
      setText(this.#ui.sequence, `The held-out sequence (tokens 1 to ${T}): ${this.#tokens.join(' ')}`);
    }
    const job = jobOf(state, this.#tokens);
    const jobKey = JSON.stringify(job);
    if (jobKey === this.#jobKey) {
      if (this.#last?.weights) this.#drawGrid(this.#last, state.head);
      return;
    }
    this.#jobKey = jobKey;
    const runKey = JSON.stringify([state.seed, state.steps]);
    if (runKey !== this.#runKey) {
      this.#runKey = runKey;
      this.#ui.chart.reset();
    }
    this.#run.open(job);
  }

  /** A chunk's update: kept, and drawn at the next paced draw (widget/paced-draw.js). */
  #update(u) {
    // A chunk that trained (or the first, at step 0) moves the chart and the loss; a new head mask on the same
    // model trains nothing: its update brings the held-out accuracy and the grids with that mask.
    if (u.step === 0) this.#ui.chart.reset(); // a new model (or a new head mask before the first step)
    if (u.losses?.length || u.step === 0) {
      this.#ui.chart.add(u);
      this.#trained = u;
    }
    if (u.accuracy !== undefined) this.#measured = u;
    this.#next = u;
  }

  #trained = null; // the last update that trained (or the first of a run): its step and loss are shown
  #measured = null; // the last update with a held-out accuracy
  #next = null; // the last update, drawn next

  #draw() {
    const ui = this.#ui;
    const u = this.#next;
    const trained = this.#trained;
    if (trained) {
      ui.chart.draw();
      setText(ui.step, String(trained.step));
      this.show(ui.loss, trained.loss, { digits: 3 });
    }
    if (this.#measured) this.show(ui.accuracy, this.#measured.accuracy, { format: percent });
    if (u.weights) {
      HEAD_LIST.forEach((head, k) => ui.thumbs.draw(k, headRows(u, head)));
      // While the run goes on, the full grid (T² numbers: the costliest part of a draw to lay out and paint)
      // follows at its own slower pace; the last update of a run is drawn at once.
      const run = this.#run;
      if (run.state === 'running' && run.step < run.until) this.#gridDraw.request();
      else {
        this.#gridDraw.cancel();
        this.#drawGrid(u, this.state.head);
      }
    }
    this.#last = u;
  }

  #last = null;

  #drawGrid(u, head) {
    this.#ui.grid.update(headRows(u, head.split('-').map(Number)));
  }

  /** The full grid of the last update drawn, while a run goes on: at most every SLOW_DRAW_GAP_MS. */
  #gridDraw = pacedDraw(
    () => {
      if (this.#last?.weights) this.#drawGrid(this.#last, this.state.head);
    },
    { gapMs: SLOW_DRAW_GAP_MS },
  );

  /** The next update that `ready(u)` accepts (the current one if it does). */
  #updateWhere(ready) {
    return this.#run.reach(ready, this.#run.state !== 'running' && this.#last);
  }

  async #reveal() {
    const steps = this.state.steps;
    this.#run.asked = true;
    // A run not on its way to the steps (waiting at step 0, paused, cancelled) trains on when rendered.
    const run = this.#run;
    if (run.until !== steps || (run.state !== 'running' && run.step !== steps)) this.#jobKey = null;
    this.setState({ mask: ALL_ON });
    const full = await this.#updateWhere((u) => u.step === steps && u.accuracy !== undefined && !this.#masked());
    const prev = previousTokenHead(full.weights);
    const ind = inductionHead(full.weights, this.#tokens);
    const mask = ALL_ON.map((row, l) => row.map(() => (l === 0 ? 0 : 1)));
    this.setState({ mask, head: `1-${ind}` });
    const off = await this.#updateWhere((u) => u.step === steps && u.accuracy !== undefined && this.#masked());
    const a = off.accuracy;
    const answer = a < full.accuracy / 2 ? 'far' : a < 0.9 * full.accuracy ? 'some' : 'same';
    const untrained =
      full.accuracy < 0.9
        ? ` After ${steps} steps this model has not learned the task yet: choose more steps and ask again.`
        : '';
    return {
      answer,
      explanation: `With all heads on, ${headName(0, prev)} is the head of layer 0 with more weight on the token just before each query (a previous-token head), and ${headName(1, ind)} the head of layer 1 with more weight on the token after the current token\u2019s earlier occurrence (an induction head). The held-out accuracy after ${steps} steps is ${percent(full.accuracy)}; with both heads of layer 0 off it is ${percent(a)} (chance is 1 in ${VOCAB}).${untrained} The grid now shows ${headName(1, ind)} with layer 0 off. Switch layer 0 on again, then switch off one head of layer 1, then both.`,
    };
  }

  #masked() {
    return this.state.mask.some((row) => row.some((v) => v === 0));
  }

  figure() {
    return [this.#ui.chart.svg, this.#ui.thumbs.svg.node(), this.#ui.grid.node];
  }

  /** The JSON export: every number shown, and the four heads' grids of the last update (the worker's forward). */
  exportData() {
    const u = this.#last;
    const grids = u?.weights
      ? Object.fromEntries(HEAD_LIST.map((head) => [headName(...head), headRows(u, head).map((r) => Array.from(r))]))
      : null;
    return { ...super.exportData(), grids };
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#run?.dispose();
    this.#gridDraw.cancel();
  }
}

defineWidget('ag-heads-learn', AgHeadsLearn);
