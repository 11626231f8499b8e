// <ag-content-to-weights>: part 2, "From content to weights". Each word's embedding comes from
// ag.random.normal (models/sentence.js), X [T, 4]; W_Q, W_K, W_V [4, 2] give Q, K, V (ag.matmul);
// ag.attention gives the scores, the weights (row sums by ag.dot with ones) and Y = AV.
import { AgWidget, defineWidget } from '../widget/base.js';
import { drawAll } from '../widget/charts.js';
import { button, lbl, line, num, nums, section } from '../widget/controls.js';
import { hint } from '../widget/chapter-notes.js';
import { h, setFlag, setOrRemove, setText } from '../widget/dom.js';
import { formatNumber, shapeText, sub } from '../widget/format.js';
import { queryKeyMap } from '../widget/heatmap.js';
import { gridRows } from '../widget/export-rows.js';
import { fieldChoice } from '../widget/field-controls.js';
import { matrixTables } from '../widget/matrix-table.js';
import { keptResults, lastResult } from '../widget/memo.js';
import { plane } from '../widget/plot.js';
import { sentenceFields, sentenceInput, sentenceProblems, sentenceWords } from '../widget/sentence-input.js';
import { stagePanels } from '../widget/stage-panels.js';
import { choice, defineState, fixedMatrix, number } from '../widget/state.js';
import { separateLabels } from '../widget/label-separation.js';
import { vectorFigure } from '../widget/vector-figure.js';
import { choices } from '../widget/predict.js';
import { packSentence, wordVector } from '../models/sentence.js';
import { argmax, ones, rowsOf } from '../models/tensor.js';

const D_MODEL = 4;
const D_K = 2;
const W_MAX = 3;
const DEFAULT_WORDS = ['the', 'cat', 'ate', 'the', 'fish'];
const MATS = { wq: 'W_Q', wk: 'W_K', wv: 'W_V' };
/** The five steps: their button, their panel (formula and box) and their line of shapes (for T tokens). */
const STEPS = [
  {
    id: 'x',
    button: 'Embeddings X',
    title: '1. The embeddings X',
    tex: 'X=\\begin{bmatrix}x_1\\\\ \\vdots\\\\ x_T\\end{bmatrix}\\in\\mathbb{R}^{T\\times d_{\\text{model}}}',
    box: 'tables',
    shape: (T) => `X: ${shapeText([T, D_MODEL])} (T = ${T} tokens, d_model = ${D_MODEL})`,
  },
  {
    id: 'qkv',
    button: 'Projections Q, K, V',
    title: '2. Three projections',
    tex: 'Q=XW_Q,\\quad K=XW_K,\\quad V=XW_V',
    box: 'tables',
    shape: (T) =>
      `${shapeText([T, D_MODEL])} \u00b7 ${shapeText([D_MODEL, D_K])} \u2192 ${shapeText([T, D_K])} each (d_k = d_v = ${D_K})`,
  },
  {
    id: 's',
    button: 'Scores QK\u1d40/\u221ad\u2096',
    title: '3. The scores',
    tex: 'S=\\frac{QK^{\\top}}{\\sqrt{d_k}},\\qquad S_{ij}=\\frac{q_i\\cdot k_j}{\\sqrt{d_k}}',
    box: 'hm-box',
    shape: (T) =>
      `Q ${shapeText([T, D_K])} \u00b7 K\u1d40 ${shapeText([D_K, T])} \u2192 S ${shapeText([T, T])}, divided by \u221a${D_K}`,
  },
  {
    id: 'a',
    button: 'Weights softmax(\u00b7)',
    title: '4. The weights',
    tex: 'A_{ij}=\\frac{\\exp(S_{ij})}{\\sum_{k}\\exp(S_{ik})},\\qquad A_{ij}\\ge 0,\\quad \\sum_{j}A_{ij}=1',
    box: 'hm-box',
    shape: (T) => `softmax along each row: A ${shapeText([T, T])}, row-stochastic`,
  },
  {
    id: 'y',
    button: 'Output Y = AV',
    title: '5. The output',
    tex: 'Y=AV,\\qquad y_i=\\sum_{j}A_{ij}\\,v_j',
    box: 'tables',
    shape: (T) => `A ${shapeText([T, T])} \u00b7 V ${shapeText([T, D_K])} \u2192 Y ${shapeText([T, D_K])}`,
  },
].map((step, i) => ({ ...step, n: i + 1, dataset: { step: i + 1 } }));

const fmt = (x) => formatNumber(x, 3);
const SENTENCE = sentenceFields(DEFAULT_WORDS, 2);

export class AgContentToWeights extends AgWidget {
  static title = 'From content to weights';
  static styles = ['styles/heatmap.css', 'styles/content-to-weights.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      words: SENTENCE.words,
      wq: fixedMatrix('1,0.5;0,1;-1,0.5;0.5,-1', W_MAX),
      wk: fixedMatrix('1,0;0.5,1;-1,1;0,-0.5', W_MAX),
      wv: fixedMatrix('1,0;0,1;0.5,0.5;-0.5,0.5', W_MAX),
      edit: choice({ values: ['wq', 'wk', 'wv'], default: 'wq' }),
      step: number({ min: 1, max: STEPS.length, integer: true, default: 5 }),
      query: SENTENCE.query,
    },
    check: (state) => sentenceProblems(state, 2),
  });

  #ui = null;
  #built = null; // the sentence the tables and heat maps were made for
  #last = null; // the last results, for the heat-map readout and tests
  #embedding = lastResult(); // X, for the sentence
  #projections = keptResults(6); // Q, K and V, each for its matrix (and the sentence)

  build(body) {
    const predict = this.predict({
      id: 'same-word-same-row',
      question:
        '\u201cthe cat ate the fish\u201d has \u201cthe\u201d twice. With these embeddings (no position information), will the two \u201cthe\u201d rows of the weight matrix be identical?',
      choices: choices({ identical: 'Identical', different: 'Different' }),
      misconceptions: {
        different:
          'That expects attention to know where a word stands: the rows depend only on the embeddings, and without position information two copies of a word get the same query, hence the same row.',
      },
      reveal: (_choice, ag) => {
        this.setState({ words: packSentence(DEFAULT_WORDS), step: 4, query: 1 });
        const { wq, wk, wv } = this.state;
        const X = embed(ag, DEFAULT_WORDS);
        const A = ag.attention(ag.matmul(X, wq), ag.matmul(X, wk), ag.matmul(X, wv), { returnWeights: true }).weights;
        const T = DEFAULT_WORDS.length;
        const r1 = A.data.subarray(0, T);
        const r4 = A.data.subarray(3 * T, 4 * T);
        const same = r1.every((x, j) => x === r4[j]);
        return {
          answer: same ? 'identical' : 'different',
          explanation: `Same word, same embedding, same query: row 1 and row 4 are equal entry for entry (the weight of \u201ccat\u201d is ${fmt(r1[1])} in both). Nothing in X says where a word stands, so attention alone cannot tell the two apart.`,
        };
      },
    });

    // The sentence.
    const sentence = sentenceInput(this, { hint: 'each word gets its own fixed random vector' });

    // The stepper.
    const toStep = (step) => this.setState({ step: Math.max(1, Math.min(STEPS.length, step)) });
    const stepButtons = STEPS.map((s) =>
      button({ class: 'step-button', dataset: { step: s.n } }, `${s.n}. ${s.button}`, () => toStep(s.n)),
    );
    const nav = (dir, text, d) =>
      button({ class: 'step-nav', dataset: { nav: dir } }, text, () => toStep(this.state.step + d));
    const back = nav('back', '\u25c0 Back', -1);
    const next = nav('next', 'Next \u25b6', 1);
    const stepper = h(
      'nav',
      { class: 'stepper', 'aria-label': 'Steps from X to Y' },
      back,
      h('div', { class: 'step-list' }, stepButtons),
      next,
    );
    stepper.addEventListener('keydown', (e) => {
      if (e.target instanceof HTMLButtonElement && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
        e.preventDefault();
        toStep(this.state.step + (e.key === 'ArrowRight' ? 1 : -1));
      }
    });

    // The projection plane: the rows of the chosen W, draggable.
    const edit = fieldChoice(this, 'edit', MATS, { class: 'edit-choice', label: 'Matrix to edit' });
    const figW = vectorFigure(this, {
      extent: W_MAX,
      label: 'Rows of the projection matrix in its 2-D output space; drag them or use the arrow keys',
    });
    const rowNames = Array.from({ length: D_MODEL }, (_, c) => `r${c + 1}`);
    const rowArrows = rowNames.map((name) =>
      figW.arrow(name, { marker: 'w', layer: 'rows', className: 'vec vec-w', text: null }),
    );
    const rowLabels = rowNames.map((name) => figW.label(name, { className: 'vec-label', layer: 'rows' }));
    const handles = rowNames.map((name, c) =>
      figW.handle(name, {
        className: 'handle-w',
        get: () => this.state[this.state.edit][c],
        set: (value) => {
          const id = this.state.edit;
          const m = this.state[id];
          m[c] = value;
          this.setState({ [id]: m });
        },
        describe: (v) => `row ${c + 1} = (${v.map(fmt).join(', ')})`,
        announce: (v) => `${MATS[this.state.edit]} row ${c + 1} = (${v.map(fmt).join(', ')})`,
      }),
    );
    const figQK = h('div', { class: 'figure' });
    const pQK = plane(figQK, { extent: 6, label: 'The queries and keys in d_k = 2: the selected query and every key' });
    const qkLayer = pQK.layer('qk');
    const planes = h(
      'div',
      { class: 'planes' },
      section('plane-box', 'Projection rows', 'Drag the rows of a projection', [
        edit.element,
        figW.element,
        hint('Row c of W says where embedding coordinate c sends a token in the 2-D space of queries, keys or values.'),
      ]),
      section('plane-box', 'Queries and keys', 'The selected query and the keys', [
        figQK,
        hint('A key far along the query\u2019s direction gets a large score.'),
      ]),
    );

    // The steps.
    const { panels, shapes, boxes } = stagePanels(STEPS, { formulaBox: true });
    // Held: the weights A show the two "the" rows equal, which the prediction asks; so do the scores S and the
    // output Y, row for row, and the queries Q (the Q table, in #rebuild), the step that makes them equal.
    this.afterAnswer([boxes.a, boxes.s, boxes.y]);
    const readScore = num('readout-score');
    const readWeight = num('readout-weight');
    const readText = h('span', { class: 'readout-text' });
    const readNumbers = this.afterAnswer(h('span', {}, ': score ', readScore, ', weight ', readWeight));
    const readout = h('p', { class: 'readout' }, readText, readNumbers);
    const rowSumBox = h('div', { class: 'rowsums' });
    panels[3].append(rowSumBox);
    const yLabel = h('span', { class: 'expr', dataset: { role: 'y-label' } });
    const ySelected = nums('y-selected', 2);
    panels[4].append(
      this.afterAnswer(line(lbl('Selected row: '), yLabel, ' = (', ySelected[0], ', ', ySelected[1], ')')),
    );
    const steps = h('div', { class: 'steps' }, panels);

    body.append(predict, sentence.element, stepper, readout, steps, planes);
    this.#ui = { yLabel, ySelected, readScore, readWeight, readText, sentence, stepButtons, back, next, edit, figW };
    Object.assign(this.#ui, { rowArrows, rowLabels, handles, pQK, qkLayer, panels, shapes, boxes, rowSumBox });
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.sentence.sync(state.words);
    ui.stepButtons.forEach((b, i) => setOrRemove(b, 'aria-current', i + 1 === state.step ? 'step' : null));
    setFlag(ui.back, 'disabled', state.step === 1);
    setFlag(ui.next, 'disabled', state.step === STEPS.length);
    ui.edit.set(state.edit);
    for (const p of Object.values(ui.panels)) p.hidden = Number(p.dataset.step) > state.step;
  }

  /** (Re)makes the tables and heat maps for a sentence of T tokens. */
  #rebuild(words) {
    const { boxes, rowSumBox } = this.#ui;
    const rows = words.map((w, i) => `${i + 1} ${w}`);
    for (const box of [...Object.values(boxes), rowSumBox]) box.replaceChildren();
    const specs = { x: [boxes.x, 'X', D_MODEL], y: [boxes.y, 'Y', D_K] };
    for (const r of 'qkv') specs[r] = [boxes.qkv, r.toUpperCase(), D_K];
    const tables = matrixTables(rows, specs, this.show.bind(this));
    this.afterAnswer(boxes.qkv.querySelector('[data-role="q-table"]').parentElement);
    // The two heat maps, S and A: a row chooses the query; the chapter has its own readout.
    const grid = (box, letter, role, more) =>
      queryKeyMap(this, box, {
        queries: words.length,
        words,
        label: `${role === 'score' ? 'Scores' : 'Weights'} ${letter}; choose a row to select that query`,
        role,
        legendTitle: role,
        readout: false,
        describe: (i, j, text) =>
          `${letter}${i + 1}${j + 1}, \u201c${words[i]}\u201d looking at \u201c${words[j]}\u201d: ${text}`,
        onSelect: (i, j) => this.#readout(i, j),
        onActivate: (i) => this.setState({ query: i + 1 }),
        ...more,
      });
    const hmS = grid(boxes.s, 'S', 'score');
    const hmA = grid(boxes.a, 'A', 'weight', { scale: 'sequential', domain: [0, 1] });
    const sums = nums('row-sum', words.length);
    rowSumBox.append(
      h('p', { class: 'lbl' }, 'Row sums \u03a3\u2c7c A\u1d62\u2c7c:'),
      h(
        'ul',
        { class: 'sum-list' },
        sums.map((s, i) => h('li', {}, `${rows[i]}: `, s)),
      ),
    );
    this.#built = { key: words.join(' '), tables, hmS, hmA, sums };
  }

  render(ag, state) {
    const ui = this.#ui;
    const words = sentenceWords(state);
    if (!this.#built || this.#built.key !== words.join(' ')) this.#rebuild(words);
    const b = this.#built;
    const T = words.length;
    const qi = Math.min(state.query, T) - 1;

    // X depends on the words only, each projection on X and its matrix: moving a row recomputes one.
    const wordsKey = words.join(' ');
    const X = this.#embedding(ag, wordsKey, () => embed(ag, words));
    const project = (id) =>
      this.#projections(ag, `${id}|${wordsKey}|${state[id].map((r) => r.join()).join(';')}`, () =>
        ag.matmul(X, state[id]),
      );
    const [Q, K, V] = ['wq', 'wk', 'wv'].map(project);
    const att = ag.attention(Q, K, V, { returnScores: true, returnWeights: true });
    const S = rowsOf(att.scores, T, T);
    const A = rowsOf(att.weights, T, T);
    const Y = rowsOf(att.output, D_K, T);

    // A table whose results are the ones it shows already is left as it is.
    b.tables.fill('x', X, { digits: 3 }, X);
    [Q, K, V].forEach((M, i) => b.tables.fill('qkv'[i], rowsOf(M, D_K, T), { digits: 3 }, M));
    b.tables.fill('y', Y, { digits: 3 });
    b.hmS.update(S, { selected: [qi, 0] });
    b.hmA.update(A, { selected: [qi, argmax(A[qi])] });
    A.forEach((row, i) => this.show(b.sums[i], ag.dot(row, ones(T)), { digits: 6 }));
    ui.ySelected.forEach((el, c) => this.show(el, Y[qi][c], { digits: 3 }));
    setText(ui.yLabel, `y${sub(qi + 1)} (\u201c${words[qi]}\u201d)`);
    b.tables.select(qi);
    for (const step of STEPS) setText(ui.shapes[step.id], step.shape(T));

    this.#last = { words, X, Q, K, V, att, qi };
    this.#readout(qi, argmax(A[qi]));
    this.#draw(state, rowsOf(Q, D_K, T), rowsOf(K, D_K, T), words, qi);
  }

  #readout(i, j) {
    if (!this.#last) return;
    const { words, att } = this.#last;
    const T = words.length;
    const s = att.scores.data[i * T + j];
    const a = att.weights.data[i * T + j];
    setText(
      this.#ui.readText,
      `\u201c${words[i]}\u201d (query ${i + 1}) looking at \u201c${words[j]}\u201d (key ${j + 1})`,
    );
    this.showAll(this.#ui, { readScore: s, readWeight: a }, { digits: 3 });
  }

  #draw(state, Q, K, words, qi) {
    const ui = this.#ui;
    const W = state[state.edit];
    const p = ui.figW.plane;
    ui.rowArrows.forEach((arrow, c) => arrow.draw(W[c]));
    ui.rowLabels.forEach((t, c) => t.attr('x', p.x(W[c][0]) + 9).attr('y', p.y(W[c][1]) - 9));
    ui.handles.forEach((hd) => hd.update());
    // The query-key plane: a drawing of wasm results (clamped to the frame).
    const pq = ui.pQK;
    const clamp = (v) => Math.max(-pq.extent, Math.min(pq.extent, v));
    const point = (v, i, kind) => ({
      x: clamp(v[0]),
      y: clamp(v[1]),
      label: `${kind}${sub(i + 1)} ${words[i]}`,
      cls: kind === 'q' ? 'pt-query' : 'pt-key',
    });
    const q = point(Q[qi], qi, 'q');
    const pts = [...K.map((k, j) => point(k, j, 'k')), q];
    const [px, py] = [(d) => pq.x(d.x), (d) => pq.y(d.y)];
    drawAll(ui.qkLayer, 'line', 'qline', [q], { x1: pq.x(0), y1: pq.y(0), x2: px, y2: py });
    drawAll(ui.qkLayer, 'circle', 'pt', pts, {
      class: (d) => `pt ${d.cls}`,
      r: (d) => (d.cls === 'pt-query' ? 6 : 5),
      cx: px,
      cy: py,
    });
    const labels = { class: (d) => `pt-label ${d.cls}`, x: (d) => px(d) + 7, y: (d, i) => py(d) - 6 + (i % 2) * 14 };
    drawAll(ui.qkLayer, 'text', 'pt-label', pts, labels).text((d) => d.label);
    separateLabels(ui.qkLayer.node());
    ui.figW.separateLabels('rows');
  }

  exportTable() {
    // Before the answer the scores and weights are held on screen: the CSV holds the numbers shown.
    if (!this.#last || !this.answerIsShown) return super.exportTable();
    const { words, att } = this.#last;
    const T = words.length;
    const at = (m, i, j) => att[m].data[i * T + j];
    const rows = gridRows(T, T, (i, j) => [i + 1, words[i], j + 1, words[j], at('scores', i, j), at('weights', i, j)]);
    return { columns: ['query', 'query_word', 'key', 'key_word', 'score', 'weight'], rows };
  }

  figure() {
    return this.#built ? this.#built.hmA.node : null;
  }
}

/** X [T, 4]: each word's embedding, drawn by ag.random.normal from the word's seed. */
export function embed(ag, words) {
  return words.map((w) => wordVector(ag, w, D_MODEL));
}

defineWidget('ag-content-to-weights', AgContentToWeights);
