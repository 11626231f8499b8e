// <ag-online-softmax>: part 3, "Online softmax, tile by tile". One query q
// against twelve keys, read by attention's streaming kernel in tiles of 2, 3, 4
// or 6 keys: per tile the learner steps through the tile's scores, its max, the
// running max m before and after, the correction c = exp(m_old − m_new) that
// shrinks l and O when m grows, then l and O; the bars are exp(s_j − m) of the
// keys seen so far. At the end y = O / l is set beside the two-pass softmax(s)·V.
// Numbers: ag.attentionTrace (every step, and y, from the kernel itself),
// ag.attention with streaming: false (the scores and the two-pass output),
// ag.matmul and ag.exp (the bars: s_j − m, then its exp), ag.dot (the
// difference of the two outputs). Sources: Milakov & Gimelshein 2018, "Online
// normalizer calculation for softmax"; Dao et al. 2022, FlashAttention,
// Algorithm 1.
//
//   <ag-online-softmax q="0.5,2" tile="3" step="2"></ag-online-softmax>
import { AgWidget, defineWidget } from '../widget/base.js';
import { axes, bandScale, chartFigure, yScale } from '../widget/charts.js';
import { bars } from '../widget/bars.js';
import { fieldChoice, fieldSlider } from '../widget/field-controls.js';
import { columns, lbl, line, num, nums, presetBar, section } from '../widget/controls.js';
import { sources } from '../widget/chapter-notes.js';
import { h, setFlag, setText } from '../widget/dom.js';
import { fmt, formatNumber, sub } from '../widget/format.js';
import { formulas } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, number } from '../widget/state.js';
import { vectorFields } from '../widget/vector-figure.js';
import { K, Q_LIMIT, TILES, TK, V, stepOf, tileCount, tileKeys } from '../models/online-softmax.js';

const BOX = { width: 360, height: 170, m: { l: 34, r: 8, t: 12, b: 26 } };
const KEYS = Array.from({ length: TK }, (_, j) => `k${sub(j + 1)}`);
const MAX_TILE = Math.max(...TILES);
/** A difference of two outputs, in units of u = 2⁻²⁴ (a unit change: formatting only). */
const inU = (x) => `${formatNumber(x * 2 ** 24, 3)} u`;
const PRESETS = [
  { id: 'tile-3', label: 'A new max in tile 3', q: [2, 1], tile: '4' },
  { id: 'twice', label: 'The max grows twice', q: [0.5, 2], tile: '4' },
  { id: 'flat', label: 'q = 0: all scores 0', q: [0, 0], tile: '3' },
];

/** q, the keys per tile, and the tile stepped to. */
const STATE = defineState({
  version: 1,
  fields: {
    ...vectorFields({ q: [2, 1] }, Q_LIMIT),
    tile: choice({ values: TILES.map(String), default: '4' }),
    step: number({ min: 1, max: TK / Math.min(...TILES), integer: true, default: 1 }),
  },
  // A link's step past the last tile of its tile width is reported (and reset), not shown as the last tile.
  check: (state) => {
    const n = tileCount(Number(state.tile));
    return state.step > n
      ? [
          {
            name: 'step',
            value: String(state.step),
            expected: `a tile from 1 to ${n} (${TK} keys, ${state.tile} a tile)`,
          },
        ]
      : [];
  },
});

export class AgOnlineSoftmax extends AgWidget {
  static title = 'Online softmax, tile by tile';
  static styles = ['styles/online-softmax.css'];
  static figureSelector = 'svg.plot';
  static stateDecl = STATE;

  #ui = null;
  #run = lastResult();

  build(body) {
    const predict = this.predict({
      id: 'new-max',
      question:
        'With tiles of 4 keys, tile 3 holds a score larger than every score before it. When the kernel reaches tile 3, what happens to l and O?',
      choices: choices({
        shrink: 'Both are multiplied by a factor c < 1, then the tile is added',
        add: 'The tile is added to them as they are',
        restart: 'They are thrown away and start again from tile 3',
      }),
      misconceptions: {
        add: 'That forgets that l and O were summed relative to the old maximum: every term exp(s \u2212 m) must be rescaled when m rises, or old and new terms would be on different scales.',
        restart:
          'That takes a new maximum to spoil what came before: the old terms are still right up to one common factor, exp(m_old \u2212 m_new), so one multiplication repairs them.',
      },
      reveal: (_choice, ag) => {
        this.setState({ q: [2, 1], tile: '4', step: 3 });
        const { steps } = ag.attentionTrace([[2, 1]], K, V, { tileKeys: 4 });
        const [before, at] = [steps[1], steps[2]];
        const shrink = at.m > at.mPrev && at.correction < 1;
        return {
          answer: shrink ? 'shrink' : at.correction === 1 ? 'add' : 'restart',
          explanation: `Tile 3 raised m from ${fmt(at.mPrev)} to ${fmt(at.m)}. Every term already in l and O was exp(s \u2212 ${fmt(at.mPrev)}); to become exp(s \u2212 ${fmt(at.m)}) it must be multiplied by c = exp(${fmt(at.mPrev)} \u2212 ${fmt(at.m)}) = ${fmt(at.correction)}. The kernel did that to l (${fmt(before.l)} before) and to O, then added the tile's own terms: l = ${fmt(at.l)}. Nothing is thrown away.`,
        };
      },
    });
    const tile = fieldChoice(this, 'tile', TILES.map(String), {
      name: 'os-tile',
      lead: 'Keys per tile:',
      label: 'Keys per tile',
      onChange: (t) => this.setState({ tile: t, step: Math.min(this.state.step, tileCount(Number(t))) }),
    });
    const step = fieldSlider(this, {
      field: 'step',
      id: 'os-step',
      min: 1,
      max: TK / Number(STATE.fields.tile.default),
      label: 'Tile',
      say: (s) =>
        `tile ${s}: m = ${this.#ui.m.textContent}, c = ${this.#ui.c.textContent}, l = ${this.#ui.l.textContent}`,
    });
    const presets = presetBar(PRESETS, (p) => this.setState({ q: p.q, tile: p.tile, step: 1 }));

    const chart = chartFigure('bars', {
      box: BOX,
      label: 'exp(s\u2c7c \u2212 m) for the keys seen so far',
      caption:
        'Filled: exp(s\u2c7c \u2212 m) of the keys seen so far, with m after this tile (the current tile darker). Outline: the same keys with m before the tile, when it grew.',
    });
    const x = bandScale(KEYS, [BOX.m.l, BOX.width - BOX.m.r], 0.2);
    const y = yScale(BOX, [0, 1.1]);
    axes(chart.s, BOX, x, y, { xTicks: KEYS, yTicks: [0, 0.5, 1], tickSize: 4 });
    const bars = chart.s.append('g');

    const ui = {
      tile,
      step,
      x,
      y,
      bars,
      where: h('span', {}),
      scores: nums('tile-score', MAX_TILE),
      tileMax: num('tile-max'),
      mPrev: num('m-before'),
      m: num('m'),
      c: num('correction'),
      l: num('l'),
      O: nums('O', 2),
      out: nums('y', 2),
      twoPass: nums('two-pass', 2),
      diff: nums('difference', 2),
      cNote: h('span', { class: 'c-note' }),
    };
    // One "k_j: s_j" per key of the tile (the widest tile has MAX_TILE); the others hidden.
    ui.scoreText = ui.scores.map((el) => h('span', { class: 'score' }, h('span', { class: 'lbl' }), el));
    const stepPart = section('this-tile', 'This tile', 'This tile', [
      h('p', { class: 'line where' }, ui.where),
      h('p', { class: 'line scores' }, lbl('scores s\u2c7c = '), ui.scoreText),
      line(lbl('tile max = '), ui.tileMax),
      line(lbl('m: '), ui.mPrev, lbl(' \u2192 '), ui.m),
      line(lbl('c = exp(m_old \u2212 m_new) = '), ui.c, ui.cNote),
      line(lbl('l = c\u00b7l + \u03a3 exp(s\u2c7c \u2212 m) = '), ui.l),
      line(lbl('O = c\u00b7O + \u03a3 exp(s\u2c7c \u2212 m) v\u2c7c = ('), ui.O[0], lbl(', '), ui.O[1], lbl(')')),
    ]);
    const final = section('final', 'After the last tile', 'After the last tile', [
      line(lbl('streaming: y = O / l = ('), ui.out[0], lbl(', '), ui.out[1], lbl(')')),
      line(lbl('two-pass: softmax(s)\u00b7V = ('), ui.twoPass[0], lbl(', '), ui.twoPass[1], lbl(')')),
      line(lbl('difference: ('), ui.diff[0], lbl(', '), ui.diff[1], lbl('), u = 2\u207b\u00b2\u2074')),
      h(
        'p',
        { class: 'bound' },
        'Not always equal in every bit: the two paths take exp of differently shifted scores and add in another order. The error analysis of the kernels bounds the two together by a few hundred u times \u03a3\u2c7c a\u2c7c|v\u2c7c|, below 10\u207b\u2074 for every q here, and the difference shown is far smaller. The memory never holds more than one tile of scores per row: O(T\u00b7d) in all, not the T\u00d7T grid.',
      ),
    ]);
    body.append(
      predict,
      h('div', { class: 'controls' }, tile.element, step.row),
      presets,
      formulas(
        "m'=\\max\\big(m,\\ \\max_{j\\in\\text{tile}} s_j\\big)",
        "c=e^{\\,m-m'}",
        "l'=c\\,l+\\sum_{j\\in\\text{tile}} e^{\\,s_j-m'}",
        "O'=c\\,O+\\sum_{j\\in\\text{tile}} e^{\\,s_j-m'}\\,v_j",
        'y=O/l=\\operatorname{softmax}(s)\\,V',
      ),
      columns(chart.fig, stepPart),
      final,
      sources(
        'Sources: Milakov & Gimelshein 2018, online normalizer calculation for softmax; Dao et al. 2022, FlashAttention (Algorithm 1).',
      ),
    );
    this.#ui = ui;
  }

  syncControls(state) {
    const ui = this.#ui;
    const n = tileCount(Number(state.tile));
    const s = stepOf(state);
    ui.tile.set(state.tile);
    ui.step.input.max = String(n);
    ui.step.set(s, `${s} of ${n}`, `tile ${s} of ${n}`);
    const [a, b] = tileKeys(Number(state.tile), s);
    setText(ui.where, `Tile ${s} of ${n}: keys ${KEYS[a]} to ${KEYS[b - 1]}, q = (${state.q.join(', ')})`);
    ui.scoreText.forEach((el, k) => {
      setFlag(el, 'hidden', a + k >= b);
      setText(el.firstChild, a + k >= b ? '' : k ? `, ${KEYS[a + k]}: ` : `${KEYS[a]}: `);
    });
  }

  render(ag, state) {
    const ui = this.#ui;
    const tile = Number(state.tile);
    const t = stepOf(state);
    const [a, b] = tileKeys(tile, t);
    const { trace, grid, diff } = this.#run(ag, `${state.q}|${tile}`, () => {
      const traced = ag.attentionTrace([state.q], K, V, { tileKeys: tile });
      const twoPass = ag.attention([state.q], K, V, { streaming: false, returnScores: true });
      const y = traced.output.data;
      const z = twoPass.output.data;
      return { trace: traced, grid: twoPass, diff: [0, 1].map((c) => ag.dot([y[c], z[c]], [1, -1])) };
    });
    const st = trace.steps[t - 1];
    const s = grid.scores.data;
    ui.scores.forEach((el, k) => (a + k < b ? this.show(el, s[a + k]) : this.notShown([el], '')));
    this.showAll(ui, { tileMax: st.tileMax, mPrev: st.mPrev, m: st.m, c: st.correction, l: st.l });
    st.O.forEach((o, c) => this.show(ui.O[c], o));
    setText(
      ui.cNote,
      st.correction < 1
        ? ' (m grew: l and O shrink)'
        : st.mPrev === -Infinity
          ? ' (the first tile: none)'
          : ' (m kept)',
    );
    trace.output.data.forEach((v, c) => this.show(ui.out[c], v, { digits: 7 }));
    grid.output.data.forEach((v, c) => this.show(ui.twoPass[c], v, { digits: 7 }));
    diff.forEach((v, c) => this.show(ui.diff[c], v, { format: inU }));
    this.#bars(ag, s, b, st, a);
  }

  /** The bars exp(s_j − m) of keys 0..seen − 1 after this step (m), and before it (mPrev) where m grew. */
  #bars(ag, s, seen, st, first) {
    const ui = this.#ui;
    const grew = st.correction < 1;
    const rows = [];
    for (let j = 0; j < seen; j += 1) rows.push([s[j], st.m]);
    if (grew) for (let j = 0; j < first; j += 1) rows.push([s[j], st.mPrev]);
    const p = ag.exp(ag.matmul(rows, [[1], [-1]])).data;
    const on = { x: ui.x, y: ui.y, value: (d) => d.v };
    const now = Array.from({ length: seen }, (_, j) => ({ v: p[j], cls: j >= first ? 'bar now' : 'bar' }));
    const old = grew ? Array.from({ length: first }, (_, j) => ({ v: p[seen + j] })) : [];
    bars(ui.bars, 'bar', now, { ...on, key: (_, j) => KEYS[j], class: (d) => d.cls });
    bars(ui.bars, 'before', old, { ...on, key: (_, j) => KEYS[j] });
  }
}

defineWidget('ag-online-softmax', AgOnlineSoftmax);
