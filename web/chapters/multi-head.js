// <ag-multi-head>: part 2, chapter 8, "Multi-head attention" (Vaswani et al.
// 2017, §3.2.2). An editable sentence; each token's embedding is
// [positional code (2) | the word's unit vector (up to 4) | more of the
// word's numbers], drawn by ag.random.normal (normalised by ag.normalize).
// The learner picks d_model and h (d_k = d_model / h); the pipeline
// X -> Q, K, V (ag.matmul) -> heads [B, h, T, d_k] (a reshape) -> scores and
// weights per head (ag.attention, one heat map per head) -> per-head outputs
// -> concatenation -> W_O (ag.matmul), beside the one-call
// ag.multiHeadAttention (its output and per-head weights are what the heat
// maps and the output table show). The "named heads" preset builds W_Q, W_K
// (and b_Q) so that heads look at the previous token, at the same word, or
// at the first token.
//
//   <ag-multi-head dmodel="12" heads="3" preset="named"></ag-multi-head>
import { AgWidget, defineWidget } from '../widget/base.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { heatmap } from '../widget/heatmap.js';
import { texElement } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { choice, defineState, number, vector } from '../widget/state.js';
import {
  MAX_CODE,
  MAX_WORDS,
  MIN_WORDS,
  POSITIONS,
  matrixTable,
  packSentence,
  parseSentence,
  rowsOf,
  shapeText,
  unpackSentence,
  wordVector,
  queryProblems,
  unreadableWords,
} from './sentence.js';

const D_MODELS = ['4', '6', '8', '12'];
const DEFAULT_WORDS = ['the', 'cat', 'saw', 'the', 'dog'];
/** Head patterns of the named preset, in turn. */
export const PATTERNS = ['previous', 'same', 'first'];
const PATTERN_LABEL = {
  previous: 'previous token',
  same: 'same word',
  first: 'first token',
  uniform: 'no pattern (uniform)',
  random: 'random',
};
/** Strengths of the named preset. */
const A_POS = 5;
const A_SAME = 4;
const COS30 = 0.866;
const SIN30 = 0.5;

/** Default number of heads (the declaration's). */
const DEFAULT_HEADS = 3;

/**
 * h must divide d_model (d_k = d_model / h). Each field fits its own
 * declaration (h from 1 to 12, d_model one of 4, 6, 8, 12), but not every
 * pair does, e.g. h = 5 with d_model = 12, or h = 3 with d_model = 4. The
 * heads go back to their default, and d_model too when the default h does
 * not divide it either.
 */
export function headsProblems(D, hN) {
  if (D % hN === 0) return [];
  const problems = [
    {
      name: 'heads',
      value: String(hN),
      expected: `a number of heads that divides d_model = ${D}: ${divisors(D).join(', ')}`,
    },
  ];
  if (D % DEFAULT_HEADS !== 0) {
    problems.push({
      name: 'dmodel',
      value: String(D),
      expected: `a d_model that h = ${hN} divides (with h back to its default ${DEFAULT_HEADS}, d_model goes back to its default too)`,
    });
  }
  return problems;
}

/**
 * The head shown (1-based) must be one of the h heads: head = 5 with h = 2
 * names no head. h is read as the widget computes it (the default when the
 * heads problem above resets it).
 */
export function headProblems(D, hN, head) {
  const heads = D % hN === 0 ? hN : DEFAULT_HEADS;
  return head <= heads ? [] : [{ name: 'head', value: String(head), expected: `a head from 1 to h = ${heads}` }];
}

export class AgMultiHead extends AgWidget {
  static title = 'Multi-head attention';
  static styles = ['styles/heatmap.css', 'styles/content-to-weights.css', 'styles/multi-head.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      words: vector({
        minLength: MIN_WORDS,
        maxLength: MAX_WORDS,
        min: 1,
        max: MAX_CODE,
        integer: true,
        default: packSentence(DEFAULT_WORDS),
      }),
      dmodel: choice({ values: D_MODELS, default: '12' }),
      heads: number({ min: 1, max: 12, integer: true, default: 3 }),
      preset: choice({ values: ['named', 'random'], default: 'named' }),
      head: number({ min: 1, max: 12, integer: true, default: 1 }),
      query: number({ min: 1, max: MAX_WORDS, integer: true, default: 4 }),
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
      choices: [
        { value: 'itself', label: 'Only on itself (token 4)' },
        { value: 'both', label: 'Split between the two \u201cthe\u201d (tokens 1 and 4)' },
        { value: 'cat', label: 'On \u201ccat\u201d, the word after the first \u201cthe\u201d' },
      ],
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

    const input = h('input', {
      type: 'text',
      class: 'sentence-input',
      'aria-label': 'Sentence (2 to 6 words of letters a to z)',
      spellcheck: 'false',
      autocomplete: 'off',
    });
    const apply = () => {
      const read = parseSentence(input.value);
      if (read.error) {
        this.note(read.error);
        setAttr(input, 'aria-invalid', 'true');
        return;
      }
      input.removeAttribute('aria-invalid');
      this.setState({ words: packSentence(read.words), query: Math.min(this.state.query, read.words.length) });
    };
    input.addEventListener('change', apply);
    input.addEventListener('keydown', (e) => e.key === 'Enter' && apply());
    const sentence = h(
      'div',
      { class: 'sentence' },
      h('label', { class: 'sentence-label' }, 'Sentence ', input),
      h('span', { class: 'hint' }, 'each word gets its own fixed vector; each position its own code'),
    );

    const radioGroup = (name, label, values, text) =>
      h(
        'div',
        { class: 'choice-group', role: 'radiogroup', 'aria-label': label },
        h('span', { class: 'lbl' }, `${label}:`),
        values.map((v) => {
          const r = h('input', { type: 'radio', name, value: String(v) });
          r.addEventListener('change', () => {
            if (!r.checked) return;
            if (name === 'dmodel') {
              const d = Number(v);
              const hs = divisors(d)
                .filter((x) => x <= this.state.heads)
                .pop();
              this.setState({ dmodel: String(v), heads: hs, head: Math.min(this.state.head, hs) });
            } else if (name === 'heads') this.setState({ heads: v, head: Math.min(this.state.head, v) });
            else this.setState({ [name]: v });
          });
          return h('label', { class: 'radio', dataset: { option: String(v) } }, r, ` ${text(v)}`);
        }),
      );
    const dGroup = radioGroup('dmodel', 'd_model', D_MODELS, (v) => v);
    const hGroup = radioGroup('heads', 'heads h', [1, 2, 3, 4, 6, 12], (v) => String(v));
    const pGroup = radioGroup('preset', 'weights', ['named', 'random'], (v) =>
      v === 'named' ? 'named heads' : 'random',
    );
    const dims = h('p', { class: 'dims', dataset: { role: 'dims' } });
    const controls = h(
      'div',
      { class: 'controls' },
      dGroup,
      hGroup,
      pGroup,
      dims,
      h(
        'p',
        { class: 'hint' },
        'The base model of Vaswani et al. has d_model = 512 and h = 8, so each head works in d_k = 512/8 = 64 dimensions.',
      ),
    );

    const num = (role, key) =>
      h('span', { class: 'num', dataset: key === undefined ? { role } : { role, key } }, '\u2026');
    const shapes = {};
    const stage = (id, title, tex) => {
      shapes[id] = h('p', { class: 'shape-line', dataset: { shape: id } });
      return h(
        'section',
        { class: 'panel', dataset: { stage: id } },
        h('h3', {}, title),
        texElement(tex, { display: true }),
        shapes[id],
      );
    };
    const stages = {
      x: stage('x', '1. Embeddings', 'X\\in\\mathbb{R}^{B\\times T\\times d_{\\text{model}}},\\quad B=1'),
      qkv: stage('qkv', '2. Projections', 'Q=XW_Q+b_Q,\\quad K=XW_K,\\quad V=XW_V'),
      split: stage(
        'split',
        '3. Split into heads',
        'Q\\;[B,T,d_{\\text{model}}]\\;\\to\\;[B,h,T,d_k],\\qquad d_k=d_{\\text{model}}/h',
      ),
      heads: stage(
        'heads',
        '4. Scores and weights, per head',
        'A^{(i)}=\\operatorname{softmax}\\!\\Big(\\frac{Q^{(i)}K^{(i)\\top}}{\\sqrt{d_k}}\\Big)\\in\\mathbb{R}^{B\\times h\\times T\\times T}',
      ),
      out: stage('out', '5. Per-head outputs', '\\text{head}_i=A^{(i)}V^{(i)}\\in\\mathbb{R}^{T\\times d_k}'),
      concat: stage(
        'concat',
        '6. Concatenate and project',
        '\\operatorname{MultiHead}(X)=\\operatorname{Concat}(\\text{head}_1,\\ldots,\\text{head}_h)\\,W_O',
      ),
    };
    const boxes = {
      x: h('div', { class: 'tables' }),
      qkv: h('div', { class: 'tables' }),
      heads: h('div', { class: 'head-maps' }),
      out: h('div', { class: 'tables' }),
      concat: h('div', { class: 'tables' }),
    };
    const headTabs = h('div', { class: 'head-tabs', role: 'radiogroup', 'aria-label': 'Head shown in the tables' });
    stages.x.append(boxes.x);
    stages.qkv.append(boxes.qkv);
    stages.split.append(headTabs);
    stages.heads.append(boxes.heads);
    stages.out.append(boxes.out);
    const check = num('check');
    stages.concat.append(
      boxes.concat,
      h(
        'p',
        { class: 'line' },
        h(
          'span',
          { class: 'lbl' },
          'One call (ag.multiHeadAttention) against the steps above: squared distance between the two outputs = ',
        ),
        check,
      ),
    );
    body.append(predict, sentence, controls, h('div', { class: 'steps' }, Object.values(stages)));
    this.#ui = { input, dGroup, hGroup, pGroup, dims, stages, shapes, boxes, headTabs, check };
  }

  syncControls(state) {
    const ui = this.#ui;
    if (this.shadowRoot.activeElement !== ui.input) {
      const text = unpackSentence(state.words).join(' ');
      if (ui.input.value !== text) ui.input.value = text;
    }
    const d = Number(state.dmodel);
    // Written only where they change (this runs before every render).
    const check = (r, on) => r.checked !== on && (r.checked = on);
    for (const r of ui.dGroup.querySelectorAll('input')) check(r, r.value === state.dmodel);
    for (const r of ui.hGroup.querySelectorAll('input')) {
      check(r, Number(r.value) === state.heads);
      const off = d % Number(r.value) !== 0;
      if (r.disabled !== off) r.disabled = off;
      if (r.parentElement.hidden !== off) r.parentElement.hidden = off;
    }
    for (const r of ui.pGroup.querySelectorAll('input')) check(r, r.value === state.preset);
  }

  #rebuild(words, D, hN, patterns) {
    const ui = this.#ui;
    const T = words.length;
    const dk = D / hN;
    const rows = words.map((w, i) => `${i + 1} ${w}`);
    for (const b of Object.values(ui.boxes)) b.replaceChildren();
    ui.headTabs.replaceChildren(
      h('span', { class: 'lbl' }, 'Head in the tables:'),
      ...patterns.map((p, k) => {
        const b = h(
          'button',
          { type: 'button', class: 'head-tab', role: 'radio', dataset: { head: k + 1 } },
          `head ${k + 1}: ${PATTERN_LABEL[p]}`,
        );
        b.addEventListener('click', () => this.setState({ head: k + 1 }));
        return b;
      }),
    );
    const tX = matrixTable({ caption: 'X', rows, cols: D, role: 'x' });
    const tQ = matrixTable({ caption: 'Q (this head)', rows, cols: dk, role: 'qh' });
    const tK = matrixTable({ caption: 'K (this head)', rows, cols: dk, role: 'kh' });
    const tV = matrixTable({ caption: 'V (this head)', rows, cols: dk, role: 'vh' });
    const tHead = matrixTable({ caption: 'head output', rows, cols: dk, role: 'head-out' });
    const tOut = matrixTable({ caption: 'MultiHead(X)', rows, cols: D, role: 'out' });
    ui.boxes.x.append(tX.element);
    ui.boxes.qkv.append(tQ.element, tK.element, tV.element);
    ui.boxes.out.append(tHead.element);
    ui.boxes.concat.append(tOut.element);
    const maps = patterns.map((p, k) => {
      const box = h(
        'figure',
        { class: 'head-map', dataset: { head: k + 1 } },
        h('figcaption', {}, `Head ${k + 1}: ${PATTERN_LABEL[p]}`),
      );
      ui.boxes.heads.append(box);
      return heatmap(box, {
        rows: words.map((w, i) => ({ label: 'q', sub: String(i + 1), note: w })),
        cols: words.map((w, j) => ({ label: 'k', sub: String(j + 1), note: w })),
        label: `Weights of head ${k + 1} (${PATTERN_LABEL[p]})`,
        role: `weight-h${k + 1}`,
        legendTitle: 'weight',
        scale: 'sequential',
        domain: [0, 1],
        cell: 46,
        format: (v) => v.toFixed(2),
        describe: (i, j, text) => `head ${k + 1}: \u201c${words[i]}\u201d looking at \u201c${words[j]}\u201d: ${text}`,
        show: (el, value, o) => this.show(el, value, o),
        onActivate: (i) => this.setState({ query: i + 1, head: k + 1 }),
      });
    });
    this.#built = { key: `${words.join(' ')}|${D}|${hN}|${patterns.join()}`, T, tX, tQ, tK, tV, tHead, tOut, maps };
  }

  render(ag, state) {
    const ui = this.#ui;
    const words = unpackSentence(state.words);
    if (words.some((w) => w === '')) throw new Error('The sentence in the link is not readable.');
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
    const show = this.show.bind(this);
    // The six tables depend on the inputs and the head, not on the query: choosing
    // another query only moves the highlight, so they are written again only
    // when their numbers can differ (another head, other inputs or another engine).
    const fillKey = `${key}|${state.preset}|${hi}`;
    if (b.filledKey !== fillKey || b.filledBy !== ag) {
      // X: the positional code (columns 1-2) is typed-in input, written as plain text; the word columns are wasm results.
      b.tX.fill(run.X, show, { digits: 3, plain: 2 });
      const headRows = (t) => rowsOf(t, dk, T, hi * T * dk);
      b.tQ.fill(headRows(run.Qh), show, { digits: 3 });
      b.tK.fill(headRows(run.Kh), show, { digits: 3 });
      b.tV.fill(headRows(run.Vh), show, { digits: 3 });
      b.tHead.fill(rowsOf(run.att.output, dk, T, hi * T * dk), show, { digits: 3 });
      b.tOut.fill(rowsOf(run.mha.output, D, T), show, { digits: 3 });
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
    for (const t of [b.tX, b.tQ, b.tK, b.tV, b.tHead, b.tOut]) {
      t.cells.forEach((row, i) => {
        const tr = row[0].parentElement;
        if (tr.classList.contains('is-selected') !== (i === qi)) tr.classList.toggle('is-selected', i === qi);
      });
    }

    const B = 1;
    setText(ui.dims, `d_model = ${D}, h = ${hN}, d_k = d_v = d_model / h = ${dk}`);
    setText(ui.shapes.x, `X ${shapeText([B, T, D])} (B = 1 sentence, T = ${T} tokens); the page drops B where it is 1`);
    setText(
      ui.shapes.qkv,
      `X ${shapeText([T, D])} \u00b7 W ${shapeText([D, D])} \u2192 Q, K, V ${shapeText([T, D])} each`,
    );
    setText(
      ui.shapes.split,
      `${shapeText([B, T, D])} \u2192 ${shapeText([B, T, hN, dk])} \u2192 ${shapeText([B, hN, T, dk])}: head i takes columns ${hi * dk + 1}\u2013${(hi + 1) * dk} (tables: head ${hi + 1})`,
    );
    setText(
      ui.shapes.heads,
      `Q\u207d\u2071\u207e ${shapeText([T, dk])} \u00b7 K\u207d\u2071\u207e\u1d40 ${shapeText([dk, T])} \u2192 ${shapeText([T, T])} per head; all heads: ${shapeText([B, hN, T, T])}`,
    );
    setText(
      ui.shapes.out,
      `A\u207d\u2071\u207e ${shapeText([T, T])} \u00b7 V\u207d\u2071\u207e ${shapeText([T, dk])} \u2192 ${shapeText([T, dk])} per head; all heads: ${shapeText([B, hN, T, dk])}`,
    );
    setText(
      ui.shapes.concat,
      `${shapeText([B, hN, T, dk])} \u2192 concat ${shapeText([B, T, hN * dk])} = ${shapeText([B, T, D])}; \u00b7 W_O ${shapeText([D, D])} \u2192 ${shapeText([B, T, D])}`,
    );
    this.inputs = { words, X: run.X, weights: run.weights, numHeads: hN, patterns: run.patterns };
  }

  exportTable() {
    if (!this.inputs) return super.exportTable();
    const rows = [];
    const { words } = this.inputs;
    const weights = [...this.shadowRoot.querySelectorAll('[data-role^="weight-h"][data-key][data-value]')];
    for (const el of weights) {
      const [i, j] = el.dataset.key.split('-').map(Number);
      rows.push([Number(el.dataset.role.slice(8)), i, words[i - 1], j, words[j - 1], Number(el.dataset.value)]);
    }
    return { columns: ['head', 'query', 'query_word', 'key', 'key_word', 'weight'], rows };
  }

  figure() {
    return this.#built ? this.#built.maps[0].node : null;
  }
}

function divisors(d) {
  return [1, 2, 3, 4, 6, 12].filter((x) => d % x === 0);
}

function argmax(row) {
  let best = 0;
  for (let j = 1; j < row.length; j += 1) if (row[j] > row[best]) best = j;
  return best;
}

/**
 * X [T, D]: [positional code (2) | the word's unit vector (d_u = min(4, D - 2)) |
 * more of the word's numbers (D - 2 - d_u)], every word number from ag.random.normal.
 */
export function embedWords(ag, words, D) {
  const du = Math.min(4, D - 2);
  const rest = D - 2 - du;
  return words.map((w, t) => {
    const unit = Array.from(ag.normalize(wordVector(ag, w, du)).data);
    const more = rest > 0 ? wordVector(ag, w, rest, 1) : [];
    return [...POSITIONS[t], ...unit, ...more];
  });
}

/** The pattern each head of the named preset can have for (D, h). */
export function namedPatterns(D, hN) {
  const dk = D / hN;
  const du = Math.min(4, D - 2);
  return Array.from({ length: hN }, (_, k) => {
    const p = PATTERNS[k % 3];
    if (p === 'previous' && dk < 2) return 'uniform';
    if (p === 'same' && dk < du) return 'uniform';
    return p;
  });
}

const zeros = (r, c) => Array.from({ length: r }, () => new Array(c).fill(0));
const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));

/** The projection weights ([in, out]) of a preset, and the pattern of each head. */
export function presetWeights(ag, D, hN, preset) {
  const dk = D / hN;
  if (preset === 'random') {
    const s = 1 / Math.sqrt(D);
    const draw = (seed) => {
      const r = ag.random.normal({ seed, n: D * D }).data;
      return Array.from({ length: D }, (_, i) => Array.from({ length: D }, (_, j) => r[i * D + j] * s));
    };
    return {
      weights: { wQ: draw(101), wK: draw(102), wV: draw(103), wO: draw(104), bQ: new Array(D).fill(0) },
      patterns: new Array(hN).fill('random'),
    };
  }
  const du = Math.min(4, D - 2);
  const wQ = zeros(D, D);
  const wK = zeros(D, D);
  const bQ = new Array(D).fill(0);
  const patterns = namedPatterns(D, hN);
  patterns.forEach((p, k) => {
    const c = k * dk;
    if (p === 'previous') {
      // q_i = A R(-30°) p_i (the code of position i - 1), k_j = A p_j.
      wQ[0][c] = A_POS * COS30;
      wQ[0][c + 1] = -A_POS * SIN30;
      wQ[1][c] = A_POS * SIN30;
      wQ[1][c + 1] = A_POS * COS30;
      wK[0][c] = A_POS;
      wK[1][c + 1] = A_POS;
    } else if (p === 'first') {
      // q_i = A (1, 0) from the bias, k_j = A p_j: the score is A^2 cos(30° j).
      bQ[c] = A_POS;
      wK[0][c] = A_POS;
    } else if (p === 'same') {
      // q_i = k_i = B u_i: the score B^2 u_i·u_j is largest when u_j = u_i.
      for (let m = 0; m < du; m += 1) {
        wQ[2 + m][c + m] = A_SAME;
        wK[2 + m][c + m] = A_SAME;
      }
    }
  });
  return { weights: { wQ, wK, wV: identity(D), wO: identity(D), bQ }, patterns };
}

/** The whole computation: step by step (matmul, attention) and in one call (multiHeadAttention). */
export function compute(ag, words, D, hN, preset) {
  const T = words.length;
  const dk = D / hN;
  const X = embedWords(ag, words, D);
  const { weights, patterns } = presetWeights(ag, D, hN, preset);
  // Q = X W_Q + b_Q as one product: [X | 1] [W_Q ; b_Q].
  const Q = ag.matmul(
    X.map((r) => [...r, 1]),
    [...weights.wQ, weights.bQ],
  );
  const K = ag.matmul(X, weights.wK);
  const V = ag.matmul(X, weights.wV);
  // Split: [T, D] -> [h, T, d_k] (a rearrangement of the entries).
  const split = (M) => {
    const out = new Float32Array(hN * T * dk);
    for (let k = 0; k < hN; k += 1)
      for (let t = 0; t < T; t += 1)
        for (let c = 0; c < dk; c += 1) out[(k * T + t) * dk + c] = M.data[t * D + k * dk + c];
    return { data: out, shape: [hN, T, dk] };
  };
  const Qh = split(Q);
  const Kh = split(K);
  const Vh = split(V);
  const att = ag.attention(Qh, Kh, Vh, { returnWeights: true, returnScores: true });
  // Concatenate: [h, T, d_k] -> [T, D].
  const cat = new Float32Array(T * D);
  for (let k = 0; k < hN; k += 1)
    for (let t = 0; t < T; t += 1)
      for (let c = 0; c < dk; c += 1) cat[t * D + k * dk + c] = att.output.data[(k * T + t) * dk + c];
  const stepOutput = ag.matmul({ data: cat, shape: [T, D] }, weights.wO);
  const mha = ag.multiHeadAttention({ query: X }, weights, { numHeads: hN, returnWeights: true });
  return { X, weights, patterns, Q, K, V, Qh, Kh, Vh, att, stepOutput, mha };
}

defineWidget('ag-multi-head', AgMultiHead);
