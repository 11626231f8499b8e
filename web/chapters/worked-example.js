// <ag-worked-example>: chapter 9, the worked single-head example. An editable
// query and three keys (d_k = 4, the article's by default), stepped through
// scores, exp, sum, weights and output, unscaled or scaled by 1/sqrt(d_k).
// Numbers: ag.matmul (scores), ag.attention (scaled scores, weights, output),
// ag.exp, ag.dot with ones (the sum).
//
//   <ag-worked-example q="1,2,0,1" k="1,2,1,0;-1,-2,0,1;0,0,1,0" scaled="0"></ag-worked-example>
import { AgWidget, defineWidget } from '../widget/base.js';
import { nums, num, radioGroup } from '../widget/controls.js';
import { h, setAttr, setFlag, symbol } from '../widget/dom.js';
import { formatNumber as fmt } from '../widget/format.js';
import { matrixForm } from '../widget/matrix-form.js';
import { texElement } from '../widget/math.js';
import { bodyRow, table } from '../widget/matrix-table.js';
import { choices } from '../widget/predict.js';
import { bool, choice, defineState, fixedMatrix, vector } from '../widget/state.js';
import { tensorOf } from '../models/tensor.js';

const D_K = 4;
const KEYS = 3;
const D_V = 2;
const MAX_ABS = 1000;
const STEPS = [
  { id: 'scores', label: 'Scores' },
  { id: 'exp', label: 'exp' },
  { id: 'sum', label: 'Sum' },
  { id: 'weights', label: 'Weights' },
  { id: 'output', label: 'Output' },
];

export class AgWorkedExample extends AgWidget {
  static title = 'One query, three keys';
  static styles = ['styles/worked-example.css'];
  static figureSelector = null; // a table, no plot: export the numbers as JSON or CSV
  static stateDecl = defineState({
    version: 1,
    fields: {
      q: vector({ length: D_K, min: -MAX_ABS, max: MAX_ABS, default: [1, 2, 0, 1] }),
      k: fixedMatrix('1,2,1,0;-1,-2,0,1;0,0,1,0', MAX_ABS),
      // The article gives no values; these make the output read as "how much of k1, how much of k2".
      values: fixedMatrix('1,0;0,1;0,0', MAX_ABS),
      scaled: bool({ default: false }),
      step: choice({ values: STEPS.map((s) => s.id), default: 'output' }),
    },
    migrations: {
      // Version 0 (the first page's links): scale=none|sqrt-dk became scaled=0|1, every step shown at once.
      // Other scale text is passed on as "scale=<text>", which no version reads (not even "scale=1" as
      // scaled=1), so that the note names it.
      0: (params) => {
        const scale = params.get('scale');
        params.delete('scale');
        const scaled = { none: '0', 'sqrt-dk': '1' }[scale] ?? `scale=${scale}`;
        if (scale !== null) params.set('scaled', scaled);
        params.set('step', 'output');
        return params;
      },
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'copy-of-q',
      question:
        'Start from the article\u2019s numbers and make k3 an exact copy of q. Which key then takes the largest weight?',
      choices: choices({ k1: 'k1', k2: 'k2', k3: 'k3' }),
      misconceptions: {
        k1: 'That keeps k\u2081 first because it was \u201cthe related token\u201d: a score is only q\u00b7k, and by Cauchy\u2013Schwarz no key of q\u2019s length scores higher than q itself, q\u00b7q = |q|\u00b2.',
        k2: 'That reads a large score as a large difference: k\u2082 points against q, so its score is negative and the softmax gives it almost nothing.',
      },
      reveal: (_choice, ag) => {
        const state = this.constructor.stateDecl.fields;
        const q = state.q.default;
        const k = [state.k.default[0], state.k.default[1], [...q]];
        this.setState({ q, k, scaled: false, step: 'weights' });
        const result = ag.attention([q], k, this.state.values, { scale: 1, returnWeights: true, returnScores: true });
        const w = Array.from(result.weights.data);
        const s = Array.from(result.scores.data);
        const best = w.indexOf(Math.max(...w)) + 1;
        return {
          answer: `k${best}`,
          explanation: `The module computed the scores ${s.map((x) => fmt(x)).join(', ')}: q\u00b7q = 6 beats q\u00b7k1 = 5, so k${best} takes weight ${fmt(w[best - 1])} and k1 falls to ${fmt(w[0])}.`,
        };
      },
    });

    const edits = matrixForm(this, {
      fields: ['q', 'k', 'values'],
      max: MAX_ABS,
      entry: 'component',
      what: 'values',
      onStale: () => this.#ui.table.classList.add('is-stale'),
    });
    const qk = edits.grid({
      rows: [{ name: 'q', label: symbol('q') }, ...[1, 2, 3].map((j) => ({ name: `k${j}`, label: symbol('k', j) }))],
      cols: D_K,
      legend: ['Query and keys (', symbol('d', 'k'), ` = ${D_K})`],
      set: (s, r, i, value) => {
        if (r === 0) s.q[i] = value;
        else s.k[r - 1][i] = value;
      },
    });
    const vGrid = edits.grid({
      rows: [1, 2, 3].map((j) => ({ name: `v${j}`, label: symbol('v', j) })),
      cols: D_V,
      legend: 'Values (for the output)',
      field: 'values',
    });

    const scale = radioGroup({
      name: 'scaled',
      legend: 'Scale',
      class: 'scale',
      itemClass: 'choice',
      span: true,
      options: [
        { value: '0', label: 'unscaled: weights = softmax(scores)' },
        { value: '1', label: ['scaled: weights = softmax(scores / \u221a', symbol('d', 'k'), ')'] },
      ],
      onChange: (value) => this.setState({ scaled: value === '1' }),
    });
    const stepRadios = STEPS.map((s, i) => {
      const input = h('input', { type: 'radio', name: 'step', value: s.id });
      input.addEventListener('change', () => input.checked && this.setState({ step: s.id }));
      return h('label', { class: 'step' }, input, h('span', {}, `${i + 1}. ${s.label}`));
    });
    const form = edits.form(
      'we-form',
      h('div', { class: 'grids' }, qk.element, vGrid.element),
      scale.element,
      h(
        'fieldset',
        { class: 'steps' },
        h('legend', {}, 'Show the steps up to'),
        h('div', { class: 'step-row' }, stepRadios),
      ),
    );

    const cells = [1, 2, 3].map((key) => {
      const [score, scaled, exp, weight] = ['score', 'scaled-score', 'exp', 'weight'].map((role) => num(role, key));
      const bar = h('span', { class: 'bar-fill' });
      const row = bodyRow(symbol('k', key), [
        { class: 'c-score', text: score },
        { class: 'c-scaled', text: scaled },
        { class: 'c-exp', text: exp },
        { class: 'c-weight', text: [weight, h('span', { class: 'bar', 'aria-hidden': 'true' }, bar)] },
      ]);
      return { row, score, scaled, exp, weight, bar };
    });
    const sum = num('sum');
    const results = table({
      className: 'results',
      caption: 'Scores and softmax weights',
      headers: [
        'Key',
        { class: 'c-score', text: ['Score ', symbol('q'), '\u00b7', symbol('k', 'j')] },
        { class: 'c-scaled', text: ['Scaled ', '/ \u221a', symbol('d', 'k')] },
        { class: 'c-exp', text: 'exp' },
        { class: 'c-weight', text: 'Weight' },
      ],
      rows: cells.map((c) => c.row),
      foot: h(
        'tr',
        { class: 'c-sum' },
        // One cell per column, so that the sum stays under exp whether the scaled column shows or not.
        h('th', { scope: 'row', colspan: 2, class: 'sum-label' }, 'Sum of the exp column'),
        h('td', { class: 'c-scaled' }),
        h('td', { class: 'c-exp' }, sum),
        h('td', { class: 'c-weight' }),
      ),
    });
    const output = nums('output', 2);
    const outputLine = h(
      'div',
      { class: 'output' },
      texElement('y=\\sum_j w_j\\, v_j', { className: 'output-formula' }),
      h('span', {}, ' = ('),
      output[0],
      h('span', {}, ', '),
      output[1],
      h('span', {}, ')'),
    );
    // Shown when a score is so large that exp overflows float32 (about 88.7).
    const overflowNote = h('p', { class: 'overflow-note', hidden: true });
    body.append(predict, form, results, overflowNote, outputLine);
    const stepInputs = form.querySelectorAll('input[name=step]');
    this.#ui = { edits, overflowNote, qk, vGrid, scale, stepInputs, table: results, cells, sum, output, outputLine };
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.qk.set([state.q, ...state.k]);
    ui.vGrid.set(state.values);
    ui.scale.set(state.scaled ? '1' : '0');
    for (const r of ui.stepInputs) setFlag(r, 'checked', r.value === state.step);
    setAttr(ui.table, 'data-step', String(STEPS.findIndex((s) => s.id === state.step) + 1));
    setFlag(ui.outputLine, 'hidden', state.step !== 'output');
    ui.table.classList.toggle('is-scaled', state.scaled);
  }

  stateChanged(source) {
    // A state from outside replaces whatever was being typed.
    if (source !== 'user' && this.#ui) this.#ui.edits.reset();
  }

  render(ag, state) {
    // The numbers of the state, which the page URL holds too: while an entry is not a number the state keeps
    // the last complete inputs (the note says so), so the link and the table never disagree.
    const ui = this.#ui;
    ui.table.classList.toggle('is-stale', ui.edits.anyInvalid());
    const [q, k, v] = [[state.q], state.k, state.values].map(tensorOf);
    const scores = ag.matmul(q, k, { transposeB: true }).data;
    // Unscaled means scale 1; otherwise the API's default, 1/sqrt(d_k).
    const options = { returnWeights: true, returnScores: true };
    if (!state.scaled) options.scale = 1;
    const att = ag.attention(q, k, v, options);
    const exp = ag.exp(att.scores).data;
    // A score past about 88.7 makes exp overflow float32: the sum is then that Infinity (ag.dot takes finite
    // inputs only). The weights are unaffected: the kernel subtracts the largest score first.
    const overflowAt = exp.findIndex((e) => e === Infinity);
    const sum = overflowAt < 0 ? ag.dot(exp, new Float32Array(KEYS).fill(1)) : exp[overflowAt];
    setFlag(ui.overflowNote, 'hidden', overflowAt < 0);
    if (overflowAt >= 0) {
      ui.overflowNote.textContent =
        `exp(${fmt(att.scores.data[overflowAt])}) is beyond the largest float32 number (about 3.4\u00b710\u00b3\u2078), ` +
        'so the exp column and its sum show \u221e. The weights are still right: they are computed with the largest ' +
        'score subtracted first, which changes nothing mathematically and keeps every exp at most 1.';
    }
    ui.cells.forEach((c, j) => {
      this.showAll(c, { score: scores[j], scaled: att.scores.data[j], exp: exp[j], weight: att.weights.data[j] });
      // The bar length is the weight itself (a number in [0, 1]) used as a scale.
      c.bar.style.transform = `scaleX(${att.weights.data[j]})`;
    });
    this.show(ui.sum, sum);
    ui.output.forEach((el, i) => this.show(el, att.output.data[i]));
    setAttr(this, 'data-scale', state.scaled ? 'sqrt-dk' : 'none');
    this.announce(`Weights: ${ui.cells.map((c, j) => `k${j + 1} ${c.weight.textContent}`).join(', ')}.`);
  }
}

defineWidget('ag-worked-example', AgWorkedExample);
