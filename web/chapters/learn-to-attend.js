// <ag-learn-to-attend>: part 4, "Training tunes the projections". A 1-layer, 1-head model
// (createTransformer, d_model = d_k = 16, no MLP) learns copyPrevious in the experiment worker
// (widget/training.js), a chunk of steps at a time: the loss curve, the attention weights of one
// held-out sequence (forward with returnWeights) and, for the chosen query position t, the angles
// from q_t to every key it sees (q and k from forward's returnQK; ag.angle and ag.cosine here) tell
// one story: q_t turns towards k_{t-1}, and the grid becomes the diagonal below the main one.
// It opens at step 0 (the untrained model, made and shown) and trains when asked: Train, or the answer to the
// prediction (trained to the steps). A link holds the settings, never a trained model: it opens at step 0
// whatever it says (version 1 of the state held the step shown, and its links trained to it; they open, at
// step 0). Once the learner has answered or trained, new settings train to their steps; a Cancel while the
// answer waits puts the untrained model back (widget/training-answer.js).
// Sources: Vaswani et al. 2017 (eq. 1); Radford et al. 2019 (the pre-norm decoder); Kingma & Ba 2015 (Adam).
//
//   <ag-learn-to-attend seed="2" lr="0.03" steps="100" pos="3"></ag-learn-to-attend>
import { AgWidget, defineWidget } from '../widget/base.js';
import { columns, lbl, line, num, nums } from '../widget/controls.js';
import { h, setFlag, setText } from '../widget/dom.js';
import { seedControls, settingSelect, labelled } from '../widget/experiment.js';
import { angleFan } from '../widget/angle-fan.js';
import { deg, fmt, formatNumber, sub } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, dropFields, number } from '../widget/state.js';
import { lossChart } from '../widget/training.js';
import { answerRun } from '../widget/training-answer.js';
import { weightsGrid } from '../widget/weights-grid.js';
import { argmax, rowsOf } from '../models/tensor.js';
import { LENGTHS, RATES, T, TOKENS, jobOf, rowOf } from '../models/learn-to-attend.js';
import { hint } from '../widget/chapter-notes.js';

const STATE = defineState({
  version: 2,
  fields: {
    seed: number({ min: 0, max: 9999, integer: true, default: 1 }),
    lr: choice({ values: RATES, default: '0.01' }),
    steps: choice({ values: LENGTHS, default: '100' }),
    pos: number({ min: 2, max: T, integer: true, default: 5 }),
  },
  // Version 1 held the step shown (a link trained to it): the step is the run's, never the link's.
  migrations: { 1: dropFields('step') },
});

export class AgLearnToAttend extends AgWidget {
  static title = 'Training tunes the projections';
  static styles = ['styles/experiment.css', 'styles/heatmap.css', 'styles/training.css', 'styles/learn-to-attend.css'];
  static stateDecl = STATE;

  #ui = null;
  #run = null;
  #u = null; // the last update of the run drawn
  #next = null; // the last update of the run (drawn at the next paced draw)
  #want = null; // the run (the model and its steps) the state last asked for

  build(body) {
    const predict = this.predict({
      id: 'trained-row',
      question: `After training, where will query 5 (the ${TOKENS[4]} at position 5 of the sequence below) put most of its weight?`,
      choices: choices({
        own: 'On its own key, k\u2085',
        previous: 'On the previous key, k\u2084',
        first: 'On the first key, k\u2081',
        spread: 'Spread evenly over k\u2081 to k\u2085',
      }),
      misconceptions: {
        own: 'That expects a query to find itself, as if a token matched its own key best. Queries and keys come from two different projections, W_Q and W_K, and training shapes them for the task: the answer of copyPrevious is the token at t \u2212 1, so the weight goes where that token is.',
        first:
          'That expects the weight to settle on a fixed place, the start of the sequence. The answer of copyPrevious is always one position back, a place that moves with the query: each row learns to look just left of the diagonal, not at k\u2081.',
        spread:
          'That expects training to leave the weights as spread as they start. A spread row mixes the values of every token it sees, while the loss asks for one of them, the token at t \u2212 1: training lowers the loss by moving the weight onto that key.',
      },
      reveal: async () => {
        this.#run.asked = true;
        this.setState({ pos: 5 });
        const u = await this.#trained();
        const row = rowOf(u.weights[0].data, 4, T).subarray(0, 5);
        const j = argmax(row);
        const answer = row[j] < 0.5 ? 'spread' : ({ 4: 'own', 3: 'previous', 0: 'first' }[j] ?? 'spread');
        return {
          answer,
          explanation: `After ${u.step} steps query 5 puts ${fmt(row[3])} of its weight on k\u2084 and ${fmt(row[4])} on its own key: the model learned to look one position back, whatever the token there, because that is where the answer of copyPrevious is.`,
        };
      },
    });
    const seed = seedControls(this, {
      label: 'Seed of the model',
      bad: 'The seed is a whole number from 0 to 9999.',
      max: 9999,
    });
    const lr = settingSelect('lr', 'Learning rate', RATES, (v) => this.setState({ lr: v }));
    const steps = settingSelect('steps', 'Steps of the run', LENGTHS, (v) => this.setState({ steps: v }));
    this.#run = answerRun(this, {
      label: 'the model',
      onUpdate: (u) => this.#update(u),
      draw: () => this.#draw(),
      onError: (err) => this.noteFailure('The training could not run', err),
      back: () => this.#run.start(jobOf(this.state), { until: 0 }),
    });
    const chartBox = h('div', { class: 'chart-box' });
    const chart = lossChart(chartBox, {
      label: 'Training loss against the step, and the held-out accuracy',
    });
    const gridBox = h('div', { class: 'grid-box' });
    const grid = weightsGrid(this, gridBox, {
      T,
      words: TOKENS.map(String),
      label: 'Weights of the held-out sequence; press Enter on a row to draw its query',
      format: (v) => formatNumber(v, 2),
      describe: (i, j, text) => `a${sub(i + 1)}${sub(j + 1)} = ${text}`,
      onActivate: (i) => this.#pick(i + 1),
    });
    const fanBox = h('div', { class: 'fan-box' });
    const fan = angleFan(fanBox, 'The query of the chosen position and the keys it sees, at their angles from it');
    const ui = {
      seed,
      lr,
      steps,
      chart,
      grid,
      fan,
      stepText: h('span', { class: 'step-text' }),
      loss: num('loss'),
      heldLoss: num('held-out-loss'),
      accuracy: num('accuracy'),
      fanTitle: h('h3', {}),
      cosPrev: num('cos-prev'),
      anglePrev: num('angle-prev'),
      scorePrev: num('score-prev'),
      scoreOther: num('score-other'),
      weightPrev: num('weight-prev'),
      otherKey: h('span', { class: 'other-key' }),
      prevName: h('span', { class: 'prev-name' }),
      cosRow: nums('cos', T - 1, 2),
    };
    // Hidden until a model exists (its step leads the line).
    ui.runNumbers = h(
      'p',
      { class: 'numbers run-numbers', hidden: true },
      ui.stepText,
      lbl(': training loss '),
      ui.loss,
      lbl(', held-out loss '),
      ui.heldLoss,
      lbl(', held-out accuracy '),
      ui.accuracy,
    );
    body.append(
      predict,
      h('div', { class: 'controls' }, seed.label, seed.next, labelled('Learning rate', lr), labelled('Steps', steps)),
      this.#run.controls(),
      ui.runNumbers,
      columns(
        [h('h3', {}, 'The loss falls'), chartBox],
        [h('h3', {}, 'The weights a = softmax(q\u00b7k/\u221ad\u2096)'), gridBox],
        {
          stackEarly: true,
        },
      ),
      h(
        'section',
        { class: 'qk' },
        ui.fanTitle,
        columns(
          fanBox,
          h(
            'div',
            { class: 'numbers' },
            hint(
              'Each key at its angle from q, drawn to scale: the score q\u00b7k is |q| times how far along q its tip lies.',
            ),
            line(ui.prevName, ui.scorePrev, lbl(' (angle '), ui.anglePrev, lbl(', cos '), ui.cosPrev, lbl(')')),
            line(lbl('the highest other score: '), ui.otherKey, ui.scoreOther),
            line(lbl('the weight on the previous key: '), ui.weightPrev),
            h(
              'p',
              { class: 'cos-row' },
              'cos(q\u209c, k\u209c\u208b\u2081) at t = 2 to 8: ',
              ui.cosRow.map((el, i) => [i ? ', ' : '', el]),
            ),
          ),
        ),
      ),
      formulas(
        'q_t = x_t W_Q,\\quad k_j = x_j W_K',
        'a_{tj} = \\operatorname{softmax}_{j \\le t}\\Big(\\frac{q_t\\cdot k_j}{\\sqrt{d_k}}\\Big)',
        '\\mathcal L = -\\operatorname{mean}_{t \\ge 2}\\, \\log p(x_{t-1}\\mid x_{\\le t})',
      ),
      h(
        'p',
        { class: 'source' },
        'Sources: Vaswani et al. 2017 (eq. 1, the causal decoder); Radford et al. 2019 (the pre-norm layer); Kingma & Ba 2015 (Adam).',
      ),
    );
    this.#ui = ui;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#run?.dispose();
    this.#want = null;
  }

  /** The update of the last chunk: its losses join the chart's; it is drawn next. */
  #update(u) {
    if (u.step > 0) this.answerShown('run'); // the trained grid shows where query 5 looks
    if (u.step === 0 || u.step < (this.#next?.step ?? 0)) this.#ui.chart.reset();
    this.#ui.chart.add(u);
    this.#next = u;
  }

  /** The last update drawn (paced: widget/paced-draw.js): the chart grows, the numbers follow. */
  #draw() {
    this.#u = this.#next;
    this.#ui.chart.draw();
    if (this.engine) this.render(this.engine, this.state);
  }

  /**
   * The model trained to the state's steps: the run goes on to them (from where it is, or from step 0 when it was
   * cancelled or the settings changed). Resolves with the update of that step once it is drawn; rejects when the
   * run stops short (Cancel, a failure) with training.js's error. A Pause keeps it waiting (Resume goes on).
   */
  #trained() {
    const steps = Number(this.state.steps);
    const run = this.#run;
    const there = run.state !== 'running' && this.#u?.step === steps && run.step === steps;
    if (!there && !(run.state === 'running' && run.until === steps)) run.start(jobOf(this.state), { until: steps });
    // A waiting reveal answers for the settings of the state when the run gets there.
    return run.reach((u) => u.step === Number(this.state.steps), there && this.#u);
  }

  #pick(pos) {
    this.setState({ pos: Math.max(2, pos) });
    this.announce(
      `query ${this.state.pos}: score with the previous key ${this.#ui.scorePrev.textContent}, weight ${this.#ui.weightPrev.textContent}`,
    );
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.seed.sync(state.seed);
    if (ui.lr.value !== state.lr) ui.lr.value = state.lr;
    if (ui.steps.value !== state.steps) ui.steps.value = state.steps;
    setText(ui.fanTitle, `Query ${state.pos} and the keys it sees`);
    setText(ui.prevName, `q${sub(state.pos)}\u00b7k${sub(state.pos - 1)} = `);
  }

  /**
   * The run of the state's settings, made and shown at step 0, or trained to its steps once the learner has
   * answered or trained (Train, Resume, Restart); nothing when the settings are those of the run.
   */
  #follow(ag, state) {
    const want = JSON.stringify([ag.backend, ag.variant, state.seed, state.lr, state.steps]);
    if (want === this.#want) return;
    this.#want = want;
    this.#run.open(jobOf(state));
  }

  render(ag, state) {
    this.#follow(ag, state);
    const u = this.#u;
    if (!u) return;
    const ui = this.#ui;
    setFlag(ui.runNumbers, 'hidden', false);
    setText(ui.stepText, `Step ${u.step} of ${u.steps}`);
    this.show(ui.loss, u.loss);
    if (u.accuracy !== undefined) {
      this.show(ui.heldLoss, u.heldOutLoss);
      this.show(ui.accuracy, u.accuracy);
    }
    const A = u.weights[0];
    const t = state.pos - 1;
    ui.grid.update(rowsOf(A, T, T), { selected: [t, t - 1] });
    const q = u.q[0].data;
    const k = u.k[0].data;
    // Every position's query against the key before it; the chosen one against every key it sees.
    ui.cosRow.forEach((el, i) => this.show(el, ag.cosine(rowOf(q, i + 1), rowOf(k, i))));
    const qt = rowOf(q, t);
    const keys = Array.from({ length: t + 1 }, (_, j) => rowOf(k, j));
    const angles = keys.map((kj) => ag.angle(qt, kj));
    const scores = keys.map((kj) => ag.dot(qt, kj));
    const lengths = [ag.norm(qt), ...keys.map((kj) => ag.norm(kj))];
    this.show(ui.anglePrev, angles[t - 1], { format: deg });
    this.show(ui.cosPrev, ag.cosine(qt, keys[t - 1]));
    this.show(ui.scorePrev, scores[t - 1]);
    this.show(ui.weightPrev, A.data[t * T + t - 1]);
    // The highest score after the previous key's (k_t's own at least: t >= 1).
    let other = t;
    for (let j = 0; j < t - 1; j += 1) if (scores[j] > scores[other]) other = j;
    setText(ui.otherKey, `q${sub(t + 1)}\u00b7k${sub(other + 1)} = `);
    this.show(ui.scoreOther, scores[other]);
    // q_t and each key at its angle from q_t: the score q_t·k_j is |q_t| times how far right the tip of k_j lies.
    ui.fan.draw({ angles, lengths, marked: t - 1, names: [`q${sub(t + 1)}`, `k${sub(t)}`] });
  }

  /** The loss chart, the weights and the fan, side by side in one file. */
  figure() {
    const ui = this.#ui;
    return ui ? [ui.chart.svg, ui.grid.node, ui.fan.svg.node()] : null;
  }

  exportData() {
    const u = this.#u;
    const tensor = (x) => (x ? Array.from(x.data) : null);
    return {
      ...super.exportData(),
      training: this.#ui?.chart.points() ?? null,
      tokens: TOKENS,
      weights: tensor(u?.weights[0]),
      q: tensor(u?.q[0]),
      k: tensor(u?.k[0]),
    };
  }

  exportTable() {
    const base = super.exportTable();
    const { losses = [], accuracy = [] } = this.#ui?.chart.points() ?? {};
    const u = this.#u;
    const rows = [
      ...base.rows,
      ...losses.map(([s, v]) => [`loss.${s}`, v]),
      ...accuracy.map(([s, v]) => [`accuracy.${s}`, v]),
    ];
    for (const name of ['q', 'k'])
      if (u)
        rowsOf(u[name][0], 16, T).forEach((row, i) =>
          row.forEach((v, c) => rows.push([`${name}.${i + 1}-${c + 1}`, v])),
        );
    return { columns: base.columns, rows };
  }
}

defineWidget('ag-learn-to-attend', AgLearnToAttend);
