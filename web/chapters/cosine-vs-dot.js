// <ag-cosine-vs-dot>: chapter 7, "Cosine versus the raw dot product". A query
// q and keys k1, k2 (draggable): each key's length, raw score and cosine, and
// the winner by each measure; "normalise" uses the unit vectors, whose raw dot
// product is the cosine. Numbers: ag.norm, ag.normalize, ag.dot, ag.cosine.
//
//   <ag-cosine-vs-dot q="1,1" k1="1,1" k2="5,5" normalise="1"></ag-cosine-vs-dot>
import { shownText } from '../widget/after-answer.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { checkbox, lbl, num, presetBar } from '../widget/controls.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { fmt, sub } from '../widget/format.js';
import { draw } from '../widget/charts.js';
import { formulas } from '../widget/math.js';
import { table as dataTable } from '../widget/matrix-table.js';
import { keyRow, queryKeyVectors, syncGiven } from '../widget/query-keys.js';
import { bool, defineState } from '../widget/state.js';
import { setLine, showIf, vectorFields, vectorFigure } from '../widget/vector-figure.js';
import { choices } from '../widget/predict.js';

const EXTENT = 6;
const KEYS = ['k1', 'k2'];
const NAMES = ['q', ...KEYS];

const PRESETS = [
  { id: 'article', label: 'q = (1, 1), k\u2081 = (1, 1), k\u2082 = (5, 5)', q: [1, 1], k1: [1, 1], k2: [5, 5] },
  { id: 'long-off', label: 'Long but off-target', q: [1, 1], k1: [1, 1.25], k2: [5.5, -1] },
  { id: 'short-exact', label: 'Short and exact', q: [2, 1], k1: [1, 0.5], k2: [3, 4] },
];

/** Two wasm results differing by float32 rounding only count as equal. */
const tie = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

export class AgCosineVsDot extends AgWidget {
  static title = 'Cosine versus the raw dot product';
  static styles = ['styles/cosine-vs-dot.css'];
  static stateDecl = defineState({
    version: 1,
    fields: { ...vectorFields({ q: [1, 1], k1: [1, 1], k2: [5, 5] }, EXTENT), normalise: bool({ default: false }) },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'cosine-tie',
      question:
        'q = (1, 1) meets k\u2081 = (1, 1) and k\u2082 = (5, 5). Measured by the cosine, which key is closer to q?',
      choices: choices({ k1: 'k\u2081', k2: 'k\u2082', tie: 'Neither: a tie' }),
      misconceptions: {
        k1: 'That expects the cosine to prefer the shorter key, as if length meant distance: the cosine divides both lengths out and keeps only the angle, the same for k\u2081 and k\u2082.',
        k2: 'That reads the cosine as the raw score: the dot product favours the longer key, but the cosine divides the lengths out and keeps only the direction.',
      },
      reveal: (_choice, ag) => {
        this.setState({ q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false });
        const c1 = ag.cosine([1, 1], [1, 1]);
        const c2 = ag.cosine([1, 1], [5, 5]);
        const answer = tie(c1, c2) ? 'tie' : c1 > c2 ? 'k1' : 'k2';
        return {
          answer,
          explanation: `The module computed cos = ${fmt(c1)} for k\u2081 and ${fmt(c2)} for k\u2082: the same direction, so the same cosine, although the raw scores are ${fmt(ag.dot([1, 1], [1, 1]))} and ${fmt(ag.dot([1, 1], [5, 5]))}.`,
        };
      },
    });

    // A preset shows raw scores against cosines: it turns Normalise off, which would erase that contrast.
    const presets = presetBar(PRESETS, (p) => this.setState({ q: p.q, k1: p.k1, k2: p.k2, normalise: false }));
    const toggle = checkbox({
      id: 'cd-normalise',
      label: 'Normalise: divide q, k\u2081 and k\u2082 by their lengths',
      onChange: (normalise) => this.setState({ normalise }),
    });

    // The plane: the vectors as given (faint when normalised) and the vectors used.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The query q and the keys k1 and k2; drag their tips or use the arrow keys',
      markers: 'cd-arrow',
    });
    const p = fig.plane;
    draw(fig.layer('circle'), 'circle', { class: 'unit-circle', cx: p.x(0), cy: p.y(0), r: p.x(1) - p.x(0) });
    const given = Object.fromEntries(NAMES.map((n) => [n, fig.layer('given').append('line')]));
    NAMES.forEach((n) => given[n].attr('class', `vec-given given-${n}`));
    const say = () => this.#summary();
    const { arrows, handles } = queryKeyVectors(fig, NAMES, { arrow: { layer: 'used' }, say });

    const rows = KEYS.map((name, i) => {
      const [norm, dot, cos] = ['norm', 'dot', 'cosine'].map((role) => num(role, i + 1));
      const unit = [num('unit', `${i + 1}.1`), num('unit', `${i + 1}.2`)];
      const unitLine = h('span', { class: 'unit-line' }, 'used: (', unit[0], ', ', unit[1], ')');
      const cells = [norm, { text: dot, class: 'c-dot' }, { text: cos, class: 'c-cos' }];
      return { ...keyRow(name, i + 1, cells, unitLine), norm, dot, cos, unit, unitLine };
    });
    const qUnit = [num('unit', 'q.1'), num('unit', 'q.2')];
    const qNorm = num('norm', 'q');
    const table = dataTable({
      className: 'compare',
      caption: 'Each key against the query',
      headers: [
        'Key',
        ['|', h('var', {}, 'k'), '|'],
        { text: ['raw ', h('var', {}, 'q'), '\u00b7', h('var', {}, 'k')], class: 'c-dot' },
        { text: 'cos \u03b8', class: 'c-cos' },
      ],
      rows: rows.map((r) => r.row),
    });
    // The question's vectors open the chapter: the cosines (a tie) answer it, so they wait for the answer.
    this.afterAnswer(table, '.c-cos');
    const qGiven = h('span', { class: 'q-given' });
    const qLine = h(
      'p',
      { class: 'line q-line' },
      lbl('q = '),
      qGiven,
      lbl(', |q| = '),
      qNorm,
      h('span', { class: 'q-unit' }, lbl('; used: ('), qUnit[0], ', ', qUnit[1], lbl(')')),
    );
    const verdictRaw = h('p', { class: 'verdict', dataset: { measure: 'raw' } });
    const verdictCos = this.afterAnswer(h('p', { class: 'verdict', dataset: { measure: 'cosine' } })); // the tie itself
    const numbers = h(
      'div',
      { class: 'numbers' },
      formulas('\\text{raw} = q\\cdot k', '\\cos\\theta=\\frac{q\\cdot k}{|q|\\,|k|}'),
      toggle.row,
      qLine,
      table,
      h('div', { class: 'verdicts', role: 'status' }, verdictRaw, verdictCos),
    );
    body.append(predict, presets, h('div', { class: 'layout' }, fig.element, numbers));
    this.#ui = { p, given, arrows, handles, rows, toggle, table, qLine, qNorm, qUnit, verdictRaw, verdictCos, qGiven };
  }

  #summary() {
    const { rows, verdictRaw, verdictCos } = this.#ui;
    // Before the answer the cosines are held on screen, so the spoken summary leaves them out too.
    const each = rows.map((r, i) => `k${i + 1}: raw ${r.dot.textContent}${shownText(r.cos, ', cosine ')}`);
    return `${each.join('; ')}. ${verdictRaw.textContent}${shownText(verdictCos, ' ')}`;
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.toggle.set(state.normalise);
    syncGiven(state, ui.qGiven, KEYS, ui.rows);
  }

  render(ag, state) {
    const ui = this.#ui;
    const norms = Object.fromEntries(NAMES.map((n) => [n, ag.norm(state[n])]));
    const zero = NAMES.filter((n) => norms[n] === 0);
    // Normalising needs a direction: with a zero vector the toggle cannot apply.
    const normalise = state.normalise && zero.length === 0;
    const used = Object.fromEntries(
      NAMES.map((n) => [n, normalise ? Array.from(ag.normalize(state[n]).data) : state[n]]),
    );
    this.show(ui.qNorm, normalise ? ag.norm(used.q) : norms.q);
    ui.qLine.classList.toggle('is-normalised', normalise);
    if (normalise) used.q.forEach((c, j) => this.show(ui.qUnit[j], c));
    const raw = [];
    const cos = [];
    KEYS.forEach((name, i) => {
      const r = ui.rows[i];
      this.show(r.norm, normalise ? ag.norm(used[name]) : norms[name]);
      raw[i] = ag.dot(used.q, used[name]);
      this.show(r.dot, raw[i]);
      cos[i] = norms.q === 0 || norms[name] === 0 ? null : ag.cosine(used.q, used[name]);
      if (cos[i] === null) this.notShown([r.cos]);
      else this.show(r.cos, cos[i]);
      r.row.classList.toggle('is-normalised', normalise);
      if (normalise) used[name].forEach((c, j) => this.show(r.unit[j], c));
      else for (const el of r.unit) delete el.dataset.value;
    });
    if (!normalise) for (const el of ui.qUnit) delete el.dataset.value;
    if (state.normalise && !normalise)
      this.note(
        `${zero.map(sub).join(' and ')} ${zero.length > 1 ? 'have' : 'has'} length zero and no direction: nothing to normalise, so the vectors are used as given.`,
      );
    setAttr(this, 'data-normalised', String(normalise));

    setText(ui.verdictRaw, `Raw score: ${winner(raw)}`);
    setText(
      ui.verdictCos,
      cos.some((c) => c === null) ? 'Cosine: undefined for a zero vector.' : `Cosine: ${winner(cos)}`,
    );
    setAttr(ui.verdictRaw, 'data-winner', winnerId(raw));
    setAttr(ui.verdictCos, 'data-winner', cos.some((c) => c === null) ? 'none' : winnerId(cos));
    this.#draw(state, used, normalise);
  }

  #draw(state, used, normalise) {
    const { p, given, arrows, handles } = this.#ui;
    for (const n of NAMES) {
      const u = used[n];
      setLine(p, given[n], [0, 0], state[n]);
      showIf(normalise, given[n]);
      arrows[n].draw(u);
    }
    handles.forEach((hd) => hd.update());
  }
}

function winnerId(values) {
  if (tie(values[0], values[1])) return 'tie';
  return values[0] > values[1] ? 'k1' : 'k2';
}

function winner(values) {
  const id = winnerId(values);
  if (id === 'tie') return 'a tie: k\u2081 and k\u2082 score the same.';
  return `${sub(id)} wins.`;
}

defineWidget('ag-cosine-vs-dot', AgCosineVsDot);
