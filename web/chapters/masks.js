// <ag-masks>: part 3, "Masks are added to the scores". Six tokens; a mask M of
// one kind (none, causal, padding with L valid keys, a sliding window of w keys,
// or ALiBi's bias −m|i − j| of one head of eight), with cells the learner flips,
// is added to the scores S = QKᵀ/√d_k before the softmax. Hidden keys get −∞ or
// −1e9: the two agree until a row has no visible key. Numbers: ag.alibiSlopes
// (the slope m), ag.attention (M as the scores of zero queries and keys, the
// raw scores, S + M, the weights and the output, with an additive mask and the
// alibi option; the weights with the kind's own option), ag.matmul (row sums).
// Sources: Vaswani et al. 2017 (eq. 1 and the decoder's mask); Beltagy et al.
// 2020, Longformer, and Jiang et al. 2023, Mistral 7B (sliding window); Press et
// al. 2022, ALiBi (§3).
//
//   <ag-masks kind="window" w="2" fill="1e9"></ag-masks>
import { AgWidget, defineWidget } from '../widget/base.js';
import { columns, line, lbl, nums, presetBar } from '../widget/controls.js';
import { fieldChoice, fieldSlider } from '../widget/field-controls.js';
import { hint, sources } from '../widget/chapter-notes.js';
import { h, setFlag, setText } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { WEIGHTS, queryKeyMap } from '../widget/heatmap.js';
import { formulas } from '../widget/math.js';
import { listed } from '../widget/number-list.js';
import { keptResults, lastResult } from '../widget/memo.js';
import { slotTable } from '../widget/matrix-table.js';
import { gridRows } from '../widget/export-rows.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, matrix, number } from '../widget/state.js';
import { rowsOf } from '../models/tensor.js';
import { FILLS, HEADS, K, KINDS, NO_FLIPS, Q, T, V, ZERO } from '../models/masks.js';
import { additiveMask, apiOption, blindRows, hideRow, seen } from '../models/masks.js';

/** Superscript digits, for the exponent of a slope 2^−h. */
const SUP = '\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079';
const ONES = Array.from({ length: T }, () => [1]);
const KIND_LABELS = { none: 'None', causal: 'Causal', padding: 'Padding', window: 'Sliding window', alibi: 'ALiBi' };
const ROW_PARTS = [
  ['score', 'S'],
  ['mask', '+ M'],
  ['masked', '= S + M'],
  ['weight', 'A'],
];
const PRESETS = [
  {
    id: 'blind-row',
    label: 'Row 3 sees nothing',
    patch: (s) => ({ kind: 'causal', flip: hideRow({ ...s, kind: 'causal' }, 3), row: 3 }),
  },
  { id: 'empty', label: 'Padding, L = 0', patch: () => ({ kind: 'padding', len: 0, flip: NO_FLIPS }) },
  { id: 'clear', label: 'Undo my flips', patch: () => ({ flip: NO_FLIPS }) },
];

/** kind and fill of the mask, the sliders' L, w and ALiBi head, the flipped cells, the row shown key by key. */
const STATE = defineState({
  version: 1,
  fields: {
    kind: choice({ values: KINDS, default: 'causal' }),
    fill: choice({ values: Object.keys(FILLS), default: 'inf' }),
    len: number({ min: 0, max: T, integer: true, default: 4 }),
    w: number({ min: 1, max: T, integer: true, default: 3 }),
    head: number({ min: 1, max: HEADS, integer: true, default: 1 }),
    flip: matrix({ rows: T, cols: T, min: 0, max: 1, integer: true, default: NO_FLIPS }),
    row: number({ min: 1, max: T, integer: true, default: 3 }),
  },
});

export class AgMasks extends AgWidget {
  static title = 'Masks are added to the scores';
  static styles = ['styles/heatmap.css', 'styles/masks.css'];
  static stateDecl = STATE;

  #ui = null;
  #last = null;
  #fixed = lastResult();
  #run = lastResult();
  #apis = keptResults(16); // the weights of each kind's own option

  build(body) {
    const predict = this.predict({
      id: 'blind-row',
      question:
        'Under the causal mask, flip row 3 so that query 3 sees no key at all, and fill hidden cells with \u22121e9 instead of \u2212\u221e. What are the weights of row 3?',
      choices: choices({
        zeros: 'All 0, as with \u2212\u221e',
        uniform: 'The same weight on every key',
        nan: 'NaN (0/0)',
      }),
      misconceptions: {
        zeros:
          'That treats \u22121e9 as \u2212\u221e: in float32 the scores vanish next to it, so the row holds one and the same number in every cell and the softmax spreads the weight evenly.',
        nan: 'That expects the textbook 0/0, which comes from a row of \u2212\u221e: a large finite fill leaves equal finite logits, and their softmax is an even share.',
      },
      reveal: (_choice, ag) => {
        this.setState({ ...PRESETS[0].patch(this.state), fill: '1e9' });
        const a = ag.attention(Q, K, V, { mask: additiveMask(this.state), maskKind: 'additive', returnWeights: true });
        const row = Array.from(a.weights.data.subarray(2 * T, 3 * T));
        const answer = row.some(Number.isNaN)
          ? 'nan'
          : row.every((x) => x === row[0]) && row[0] > 0
            ? 'uniform'
            : 'zeros';
        return {
          answer,
          explanation: `In float32, \u22121e9 + s is \u22121e9 for every score here (floats near 10\u2079 are 64 apart), so row 3 holds six equal numbers, and softmax gives each key ${fmt(row[0])}: query 3 averages the values of keys it must not see. With \u2212\u221e the kernel returns a row of zeros (a textbook softmax would compute 0/0).`,
        };
      },
    });
    const group = (name, label, labels) =>
      fieldChoice(this, name, labels, { label, lead: `${label}:`, optionData: true });
    const kind = group('kind', 'Mask', KIND_LABELS);
    const fill = group('fill', 'A hidden key adds', { inf: '\u2212\u221e', '1e9': '\u22121e9' });
    // What changed for the chosen query: its weights, key by key, as the table shows them.
    const say = (symbol) => (v) =>
      `${symbol} = ${v}: query ${this.state.row} weights ${ui.rowCells.weight.map((el) => el.textContent).join(', ')}`;
    const at = (field, symbol, max, label, min = 0) =>
      fieldSlider(this, { field, id: `mk-${field}`, min, max, label, labelClass: 'lbl', say: say(symbol) });
    const ui = { kind, fill, len: at('len', 'L', T, 'Valid keys L'), w: at('w', 'w', T, 'Window w', 1) };
    ui.head = at('head', 'h', HEADS, 'ALiBi head h', 1);
    ui.slopeLine = h('p', { class: 'slope', dataset: { role: 'slope-text' } });
    const presets = presetBar(PRESETS, (p) => this.setState(p.patch(this.state)));

    const maskBox = h('div', { class: 'grid-box' });
    const weightBox = h('div', { class: 'grid-box' });
    ui.maskMap = queryKeyMap(this, maskBox, {
      queries: T,
      label: 'Mask M; press Enter on a cell to flip it between hidden and visible',
      role: 'mask',
      legendTitle: 'M',
      format: (v) => formatNumber(v, 3),
      describe: (i, j, text) => `M${sub(i + 1)}${sub(j + 1)} = ${text}`,
      onActivate: (i, j) => this.#flip(i, j),
    });
    ui.weightMap = queryKeyMap(this, weightBox, {
      queries: T,
      label: 'Weights A; press Enter on a cell to pick its row',
      role: 'weight',
      ...WEIGHTS,
      format: (v) => formatNumber(v, 2),
      describe: (i, j, text) => `A${sub(i + 1)}${sub(j + 1)} = ${text}`,
      onActivate: (i) => this.setState({ row: i + 1 }),
    });
    ui.rowSums = nums('row-sum', T);
    ui.rowTitle = h('h3', {});
    // A key a line (a row of six keys would not fit a phone): its score S, the mask's M, their sum, the weight A.
    const rowTable = slotTable({
      className: 'row-table',
      caption: 'One query, key by key: score S, mask M, S\u00a0+\u00a0M, weight A',
      headers: ['key', ...ROW_PARTS.map(([, name]) => name)],
      rows: Array.from({ length: T }, (_, j) => `k${sub(j + 1)}`),
      cols: ROW_PARTS.map(([role]) => `row-${role}`),
    });
    ui.rowCells = Object.fromEntries(ROW_PARTS.map(([role]) => [role, rowTable.cells[`row-${role}`]]));
    ui.y = nums('y', 2);
    ui.verdict = h('p', { class: 'verdict', dataset: { role: 'verdict' } });
    ui.same = h('p', { class: 'same', dataset: { role: 'same' } });
    const oneRow = h(
      'section',
      { class: 'one-row' },
      ui.rowTitle,
      h('div', { class: 'row-scroll' }, rowTable.element),
      line(lbl('y = \u03a3\u2c7c a\u2c7c v\u2c7c = ('), ui.y[0], ', ', ui.y[1], ')'),
      ui.verdict,
      ui.same,
    );
    body.append(
      predict,
      h('div', { class: 'controls' }, kind.element, fill.element),
      h('div', { class: 'sliders' }, ui.len.row, ui.w.row, ui.head.row, ui.slopeLine),
      presets,
      columns(
        [
          h('h3', {}, 'The mask M, added to S'),
          maskBox,
          hint('Click a cell (or press Enter on it) to hide or show that key.'),
        ],
        [
          h('h3', {}, 'The weights A = softmax(S + M)'),
          weightBox,
          h('p', { class: 'row-sums' }, 'Row sums: ', listed(ui.rowSums)),
        ],
        { stackEarly: true },
      ),
      oneRow,
      formulas(
        'A=\\operatorname{softmax}(S+M),\\qquad S=\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}',
        'M_{ij}=\\begin{cases}0 & \\text{query } i \\text{ may see key } j\\\\ -\\infty & \\text{otherwise}\\end{cases}',
        '\\text{ALiBi: } M_{ij}=-m\\,|i-j|',
      ),
      sources(
        'Sources: Vaswani et al. 2017 (eq. 1, the causal mask); Beltagy et al. 2020, Longformer, and Jiang et al. 2023, Mistral 7B (sliding window); Press et al. 2022, ALiBi (\u00a73).',
      ),
    );
    this.#ui = ui;
  }

  #flip(i, j) {
    const flip = this.state.flip;
    flip[i][j] = 1 - flip[i][j];
    this.setState({ flip, row: i + 1 });
    this.announce(`query ${i + 1} ${seen(this.state, i, j) ? 'sees' : 'no longer sees'} key ${j + 1}`);
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.kind.set(state.kind);
    ui.fill.set(state.fill);
    ui.len.set(state.len, `L = ${state.len}`);
    ui.w.set(state.w, `w = ${state.w}`);
    ui.head.set(state.head, `h = ${state.head}`);
    setFlag(ui.len.row, 'hidden', state.kind !== 'padding');
    setFlag(ui.w.row, 'hidden', state.kind !== 'window');
    setFlag(ui.head.row, 'hidden', state.kind !== 'alibi');
    setFlag(ui.slopeLine, 'hidden', state.kind !== 'alibi');
    // The rule of alibiSlopes(8) written out for the chosen head (its values are in M: −m at distance 1).
    setText(
      ui.slopeLine,
      `Slope of head ${state.head}: m = 2\u207b${SUP[state.head]} (the paper\u2019s 2^(\u22128h/H) for H = ${HEADS} heads)`,
    );
    setText(ui.rowTitle, `Row ${state.row}: query ${state.row} and every key`);
  }

  render(ag, state) {
    const ui = this.#ui;
    const i = state.row - 1;
    // S and the slopes are the same in every state; M, the weights and their sums follow the mask's inputs only.
    const { S, slopes } = this.#fixed(ag, '', () => ({
      S: ag.attention(Q, K, V, { returnScores: 'raw' }).scores,
      slopes: ag.alibiSlopes(HEADS),
    }));
    const m = slopes[state.head - 1];
    const key = [state.kind, state.fill, state.len, state.w, state.head, state.flip.join(';')].join('&');
    const { M, r, sums } = this.#run(ag, key, () => {
      const options = {
        mask: additiveMask(state),
        maskKind: 'additive',
        ...(state.kind === 'alibi' ? { alibi: [m] } : {}),
      };
      const res = ag.attention(Q, K, V, { ...options, returnWeights: true, returnScores: true });
      return {
        // What the kernel adds: with every q·k = 0 the scores it returns are M itself.
        M: ag.attention(ZERO, ZERO, ZERO, { ...options, returnScores: true }).scores,
        r: res,
        sums: ag.matmul(res.weights, ONES).data,
      };
    });
    ui.maskMap.update(rowsOf(M, T, T), { selected: [i, 0] });
    ui.weightMap.update(rowsOf(r.weights, T, T), { selected: [i, 0] });
    sums.forEach((x, k) => this.show(ui.rowSums[k], x));
    const parts = { score: S, mask: M, masked: r.scores, weight: r.weights };
    for (const [role] of ROW_PARTS)
      ui.rowCells[role].forEach((el, j) => this.show(el, parts[role].data[i * T + j], { digits: 3 }));
    ui.y.forEach((el, c) => this.show(el, r.output.data[i * 2 + c]));
    this.#last = { M, S, r };

    const blind = blindRows(state).includes(i);
    const hides = Array.from({ length: T }, (_, j) => !seen(state, i, j)).some(Boolean);
    setText(
      ui.verdict,
      !hides
        ? `Query ${state.row} sees every key: nothing is hidden${state.kind === 'alibi' ? ', ALiBi only lowers the scores of far keys' : ''}.`
        : !blind
          ? `Query ${state.row} sees at least one key: the hidden ones get exactly 0 weight, with \u2212\u221e or \u22121e9 alike.`
          : state.fill === 'inf'
            ? `Query ${state.row} sees no key: every score is \u2212\u221e, and the kernel returns zero weights and y = 0 (a textbook softmax would compute 0/0 = NaN).`
            : `Query ${state.row} sees no key, but \u22121e9 + s rounds to \u22121e9 in float32: the row is constant, so softmax spreads the weight evenly over keys this query must not see.`,
    );
    ui.verdict.classList.toggle('is-warning', blind && state.fill !== 'inf');
    const api = apiOption(state, m);
    const ref = this.#apis(
      ag,
      `${api.text} ${m}`,
      () => ag.attention(Q, K, V, { ...api.options, returnWeights: true }).weights.data,
    );
    const differ = Array.from({ length: T }, (_, k) => k).filter((k) =>
      ref.subarray(k * T, (k + 1) * T).some((x, j) => !Object.is(x, r.weights.data[k * T + j])),
    );
    setText(
      ui.same,
      differ.length
        ? `attention(Q, K, V, ${api.text}) gives other weights in row${differ.length > 1 ? 's' : ''} ${differ.map((k) => k + 1).join(', ')}.`
        : `attention(Q, K, V, ${api.text}) gives the same weights, bit for bit.`,
    );
  }

  exportTable() {
    const { M, S, r } = this.#last ?? {};
    if (!r) return super.exportTable();
    const rows = gridRows(T, T, (i, j) => {
      const at = i * T + j;
      return [i + 1, j + 1, M.data[at], S.data[at], r.scores.data[at], r.weights.data[at]];
    });
    return { columns: ['query', 'key', 'mask', 'score', 'masked_score', 'weight'], rows };
  }

  /** Both heat maps, M and A, side by side in one file. */
  figure() {
    return [...this.shadowRoot.querySelectorAll('svg.heatmap')];
  }
}

defineWidget('ag-masks', AgMasks);
