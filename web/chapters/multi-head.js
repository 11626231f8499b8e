// <ag-multi-head>: part 2, "Multi-head attention" (Vaswani et al. 2017, §3.2.2). A sentence embedded by
// models/multi-head.js, d_model and h chosen: X -> Q, K, V (ag.matmul) -> heads -> weights per head
// (ag.attention) -> concatenation -> W_O, beside the one call ag.multiHeadAttention (its output and
// weights are what the heat maps and the output table show). The "named heads" preset makes heads that
// look at the previous token, the same word or the first token.
import { isHeld } from '../widget/after-answer.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, lbl, line, num } from '../widget/controls.js';
import { fieldChoice } from '../widget/field-controls.js';
import { hint } from '../widget/chapter-notes.js';
import { h, setAttr, setFlag, setText } from '../widget/dom.js';
import { shapeText } from '../widget/format.js';
import { sentenceWeights } from '../widget/heatmap.js';
import { matrixTables } from '../widget/matrix-table.js';
import { lastResult } from '../widget/memo.js';
import { sentenceFields, sentenceInput, sentenceWords } from '../widget/sentence-input.js';
import { stagePanels } from '../widget/stage-panels.js';
import { choice, defineState, number } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import {
  DEFAULT_HEADS,
  D_MODELS,
  HEAD_COUNTS,
  compute,
  headProblems,
  headsFor,
  headsProblems,
} from '../models/multi-head.js';
import { packSentence, queryProblems, unreadableWords } from '../models/sentence.js';
import { argmax, rowsOf } from '../models/tensor.js';

const DEFAULT_WORDS = ['the', 'cat', 'saw', 'the', 'dog'];
const SENTENCE = sentenceFields(DEFAULT_WORDS, 4);
const PATTERN_LABEL = {
  previous: 'previous token',
  same: 'same word',
  first: 'first token',
  uniform: 'no pattern (uniform)',
  random: 'random',
};
const B = 1;
/** The six steps: id, heading, formula, the class of the box of their tables or heat maps, and their shapes. */
const STAGES = [
  {
    id: 'x',
    title: '1. Embeddings',
    tex: 'X\\in\\mathbb{R}^{B\\times T\\times d_{\\text{model}}},\\quad B=1',
    box: 'tables',
    shape: ({ T, D }) => `X ${shapeText([B, T, D])} (B = 1 sentence, T = ${T} tokens); the page drops B where it is 1`,
  },
  {
    id: 'qkv',
    title: '2. Projections',
    tex: 'Q=XW_Q+b_Q,\\quad K=XW_K,\\quad V=XW_V',
    box: 'tables',
    shape: ({ T, D }) =>
      `X ${shapeText([T, D])} \u00b7 W ${shapeText([D, D])} \u2192 Q, K, V ${shapeText([T, D])} each`,
  },
  {
    id: 'split',
    title: '3. Split into heads',
    tex: 'Q\\;[B,T,d_{\\text{model}}]\\;\\to\\;[B,h,T,d_k],\\qquad d_k=d_{\\text{model}}/h',
    shape: ({ T, D, hN, dk, hi }) =>
      `${shapeText([B, T, D])} \u2192 ${shapeText([B, T, hN, dk])} \u2192 ${shapeText([B, hN, T, dk])}: head i takes columns ${hi * dk + 1}\u2013${(hi + 1) * dk} (tables: head ${hi + 1})`,
  },
  {
    id: 'heads',
    title: '4. Scores and weights, per head',
    tex: 'A^{(i)}=\\operatorname{softmax}\\!\\Big(\\frac{Q^{(i)}K^{(i)\\top}}{\\sqrt{d_k}}\\Big)\\in\\mathbb{R}^{B\\times h\\times T\\times T}',
    box: 'head-maps',
    shape: ({ T, hN, dk }) =>
      `Q\u207d\u2071\u207e ${shapeText([T, dk])} \u00b7 K\u207d\u2071\u207e\u1d40 ${shapeText([dk, T])} \u2192 ${shapeText([T, T])} per head; all heads: ${shapeText([B, hN, T, T])}`,
  },
  {
    id: 'out',
    title: '5. Per-head outputs',
    tex: '\\text{head}_i=A^{(i)}V^{(i)}\\in\\mathbb{R}^{T\\times d_k}',
    box: 'tables',
    shape: ({ T, hN, dk }) =>
      `A\u207d\u2071\u207e ${shapeText([T, T])} \u00b7 V\u207d\u2071\u207e ${shapeText([T, dk])} \u2192 ${shapeText([T, dk])} per head; all heads: ${shapeText([B, hN, T, dk])}`,
  },
  {
    id: 'concat',
    title: '6. Concatenate and project',
    tex: '\\operatorname{MultiHead}(X)=\\operatorname{Concat}(\\text{head}_1,\\ldots,\\text{head}_h)\\,W_O',
    box: 'tables',
    shape: ({ T, D, hN, dk }) =>
      `${shapeText([B, hN, T, dk])} \u2192 concat ${shapeText([B, T, hN * dk])} = ${shapeText([B, T, D])}; \u00b7 W_O ${shapeText([D, D])} \u2192 ${shapeText([B, T, D])}`,
  },
].map((stage) => ({ ...stage, dataset: { stage: stage.id } }));

export class AgMultiHead extends AgWidget {
  static title = 'Multi-head attention';
  static styles = ['styles/heatmap.css', 'styles/content-to-weights.css', 'styles/multi-head.css'];
  static figureSelector = 'svg.heatmap'; // head 1
  static stateDecl = defineState({
    version: 1,
    fields: {
      words: SENTENCE.words,
      dmodel: choice({ values: D_MODELS, default: '12' }),
      heads: number({ min: 1, max: 12, integer: true, default: DEFAULT_HEADS }),
      preset: choice({ values: ['named', 'random'], default: 'named' }),
      head: number({ min: 1, max: 12, integer: true, default: 1 }),
      query: SENTENCE.query,
    },
    check: (state) => [
      ...unreadableWords(state.words),
      ...headsProblems(Number(state.dmodel), state.heads),
      ...headProblems(Number(state.dmodel), state.heads, state.head),
      ...queryProblems(state.words, state.query, 4),
    ],
  });

  #ui = null;
  #built = null;
  #run = lastResult(); // the whole computation, for the inputs it depends on
  /** The inputs of the last computation (for tests and exports): X, weights, h, patterns. */
  inputs = null;

  build(body) {
    const predict = this.predict({
      id: 'same-word-head',
      question:
        'In \u201cthe cat saw the dog\u201d, where will the \u201csame word\u201d head put most of the weight of the second \u201cthe\u201d (token 4)?',
      choices: choices({
        itself: 'Only on itself (token 4)',
        both: 'Split between the two \u201cthe\u201d (tokens 1 and 4)',
        cat: 'On \u201ccat\u201d, the word after the first \u201cthe\u201d',
      }),
      misconceptions: {
        itself:
          'That expects a token to prefer its own position: the head compares content, not positions, and the two \u201cthe\u201d have the same key, so it cannot prefer one of them.',
        cat: 'That reads this head as following word order: it matches the same word, and without position information it cannot tell which \u201cthe\u201d came first.',
      },
      reveal: (_choice, ag) => {
        this.setState({
          words: packSentence(DEFAULT_WORDS),
          dmodel: '12',
          heads: 3,
          preset: 'named',
          head: 2,
          query: 4,
        });
        const run = compute(ag, DEFAULT_WORDS, 12, 3, 'named');
        const T = DEFAULT_WORDS.length;
        const row = run.mha.weights.data.subarray(1 * T * T + 3 * T, 1 * T * T + 4 * T); // head 2, query 4
        const top = [...row.keys()].sort((a, b) => row[b] - row[a]);
        const answer =
          top.slice(0, 2).sort().join() === '0,3' && row[0] === row[3] ? 'both' : top[0] === 3 ? 'itself' : 'cat';
        return {
          answer,
          explanation: `The module gives the second \u201cthe\u201d the weights ${Array.from(row, (x) => x.toFixed(3)).join(', ')}: the two \u201cthe\u201d have the same embedding content, so this head cannot prefer one over the other.`,
        };
      },
    });

    const sentence = sentenceInput(this, {
      hint: 'each word gets its own fixed vector; each position its own code',
    });
    const group = (name, label, values, o) =>
      fieldChoice(this, name, values, { label, lead: `${label}:`, optionData: true, ...o });
    const dGroup = group('dmodel', 'd_model', D_MODELS, {
      onChange: (v) => {
        const hs = headsFor(Number(v), this.state.heads);
        this.setState({ dmodel: v, heads: hs, head: Math.min(this.state.head, hs) });
      },
    });
    const hGroup = group('heads', 'heads h', HEAD_COUNTS, {
      onChange: (v) => this.setState({ heads: v, head: Math.min(this.state.head, v) }),
    });
    const pGroup = group('preset', 'weights', { named: 'named heads', random: 'random' });
    const dims = h('p', { class: 'dims', dataset: { role: 'dims' } });
    const controls = h(
      'div',
      { class: 'controls' },
      dGroup.element,
      hGroup.element,
      pGroup.element,
      dims,
      hint(
        'The base model of Vaswani et al. has d_model = 512 and h = 8, so each head works in d_k = 512/8 = 64 dimensions.',
      ),
    );

    const { panels: stages, shapes, boxes } = stagePanels(STAGES);
    const headTabs = h('div', { class: 'head-tabs', role: 'radiogroup', 'aria-label': 'Head shown in the tables' });
    stages[2].append(headTabs);
    const check = num('check');
    const oneCall =
      'One call (ag.multiHeadAttention) against the steps above: squared distance between the two outputs = ';
    stages[5].append(line(lbl(oneCall), check));
    body.append(predict, sentence.element, controls, h('div', { class: 'steps' }, stages));
    this.#ui = { sentence, dGroup, hGroup, pGroup, dims, shapes, boxes, headTabs, check };
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.sentence.sync(state.words);
    const d = Number(state.dmodel);
    ui.dGroup.set(state.dmodel);
    ui.hGroup.set(state.heads);
    for (const r of ui.hGroup.inputs) {
      const off = d % Number(r.value) !== 0;
      setFlag(r, 'disabled', off);
      setFlag(r.parentElement, 'hidden', off);
    }
    ui.pGroup.set(state.preset);
  }

  #rebuild(words, D, hN, patterns) {
    const ui = this.#ui;
    const dk = D / hN;
    const rows = words.map((w, i) => `${i + 1} ${w}`);
    for (const b of Object.values(ui.boxes)) b.replaceChildren();
    ui.headTabs.replaceChildren(
      h('span', { class: 'lbl' }, 'Head in the tables:'),
      ...patterns.map((p, k) =>
        button(
          { class: 'head-tab', role: 'radio', dataset: { head: k + 1 } },
          `head ${k + 1}: ${PATTERN_LABEL[p]}`,
          () => this.setState({ head: k + 1 }),
        ),
      ),
    );
    const { boxes } = ui;
    const tables = matrixTables(
      rows,
      {
        x: [boxes.x, 'X', D],
        qh: [boxes.qkv, 'Q (this head)', dk],
        kh: [boxes.qkv, 'K (this head)', dk],
        vh: [boxes.qkv, 'V (this head)', dk],
        'head-out': [boxes.out, 'head output', dk],
        out: [boxes.concat, 'MultiHead(X)', D],
      },
      this.show.bind(this),
    );
    const maps = patterns.map((p, k) => {
      const box = h(
        'figure',
        { class: 'head-map', dataset: { head: k + 1 } },
        h('figcaption', {}, `Head ${k + 1}: ${PATTERN_LABEL[p]}`),
      );
      // Held: the "same word" head's weights answer the prediction (how it splits the two "the").
      if (p === 'same') this.afterAnswer(box);
      ui.boxes.heads.append(box);
      return sentenceWeights(box, words, {
        label: `Weights of head ${k + 1} (${PATTERN_LABEL[p]})`,
        role: `weight-h${k + 1}`,
        describe: (text) => `head ${k + 1}: ${text}`,
        show: (el, value, o) => this.show(el, value, o),
        onActivate: (i) => this.setState({ query: i + 1, head: k + 1 }),
      });
    });
    this.#built = { key: `${words.join(' ')}|${D}|${hN}|${patterns.join()}`, tables, maps };
  }

  render(ag, state) {
    const ui = this.#ui;
    const words = sentenceWords(state);
    const D = Number(state.dmodel);
    const hN = state.heads;
    if (D % hN !== 0) throw new Error(`h = ${hN} does not divide d_model = ${D}: choose another number of heads.`);
    const T = words.length;
    const dk = D / hN;
    const hi = Math.min(state.head, hN) - 1;
    const qi = Math.min(state.query, T) - 1;
    // Choosing a query or a head changes no input of the computation: its results are reused.
    const run = this.#run(ag, `${state.words.join()}|${D}|${hN}|${state.preset}`, () => {
      const r = compute(ag, words, D, hN, state.preset);
      return { ...r, check: ag.squaredDistance(r.stepOutput.data, r.mha.output.data) };
    });
    const key = `${words.join(' ')}|${D}|${hN}|${run.patterns.join()}`;
    if (!this.#built || this.#built.key !== key) this.#rebuild(words, D, hN, run.patterns);
    const b = this.#built;
    // The tables depend on the inputs, the head and the engine, not on the query (it moves the highlight).
    const fillKey = `${key}|${state.preset}|${hi}`;
    if (b.filledKey !== fillKey || b.filledBy !== ag) {
      // X: the positional code (columns 1-2) is typed-in input, written as plain text; the word columns are wasm results.
      b.tables.fill('x', run.X, { digits: 3, plain: 2 });
      const perHead = { qh: run.Qh, kh: run.Kh, vh: run.Vh, 'head-out': run.att.output };
      for (const [role, t] of Object.entries(perHead))
        b.tables.fill(role, rowsOf(t, dk, T, hi * T * dk), { digits: 3 });
      b.tables.fill('out', rowsOf(run.mha.output, D, T), { digits: 3 });
      b.filledKey = fillKey;
      b.filledBy = ag;
    }
    b.maps.forEach((m, k) => {
      const rows = rowsOf(run.mha.weights, T, T, k * T * T);
      m.update(rows, { selected: [qi, argmax(rows[qi])] });
    });
    this.show(ui.check, run.check, { digits: 3 });
    for (const btn of ui.headTabs.querySelectorAll('button'))
      setAttr(btn, 'aria-checked', Number(btn.dataset.head) === hi + 1);
    b.tables.select(qi);

    setText(ui.dims, `d_model = ${D}, h = ${hN}, d_k = d_v = d_model / h = ${dk}`);
    for (const stage of STAGES) setText(ui.shapes[stage.id], stage.shape({ T, D, hN, dk, hi }));
    this.inputs = { words, X: run.X, weights: run.weights, numHeads: hN, patterns: run.patterns };
  }

  exportTable() {
    if (!this.inputs) return super.exportTable();
    const rows = [];
    const { words } = this.inputs;
    // A head's map held until the answer is left out, as on screen.
    const weights = [...this.shadowRoot.querySelectorAll('[data-role^="weight-h"][data-key][data-value]')].filter(
      (el) => !isHeld(el),
    );
    for (const el of weights) {
      const [i, j] = el.dataset.key.split('-').map(Number);
      rows.push([Number(el.dataset.role.slice(8)), i, words[i - 1], j, words[j - 1], Number(el.dataset.value)]);
    }
    return { columns: ['head', 'query', 'query_word', 'key', 'key_word', 'weight'], rows };
  }
}

defineWidget('ag-multi-head', AgMultiHead);
