// <ag-cosine-vs-dot>: chapter 7, "Cosine versus the raw dot product". A
// query q and two keys k1, k2 (all draggable); for each key its length, the
// raw score q·k and the cosine, and which key wins under each measure. The
// "normalise" toggle replaces every vector by its unit vector (ag.normalize),
// after which the raw dot product is the cosine. Every number shown is a wasm
// result: ag.norm, ag.normalize, ag.dot and ag.cosine.
//
//   <ag-cosine-vs-dot q="1,1" k1="1,1" k2="5,5" normalise="1"></ag-cosine-vs-dot>
import { AgWidget, defineWidget } from '../widget/base.js';
import { checkbox, lbl, notDefined, num, presetBar } from '../widget/controls.js';
import { h, setAttr, setText, symbol } from '../widget/dom.js';
import { fmt, pair, sub } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { bodyRow, table as dataTable } from '../widget/matrix-table.js';
import { bool, defineState } from '../widget/state.js';
import { setLine, vectorFields, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 6;
const KEYS = ['k1', 'k2'];

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
      choices: [
        { value: 'k1', label: 'k\u2081' },
        { value: 'k2', label: 'k\u2082' },
        { value: 'tie', label: 'Neither: a tie' },
      ],
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
    const names = ['q', ...KEYS];
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The query q and the keys k1 and k2; drag their tips or use the arrow keys',
      markers: 'cd-arrow',
    });
    const p = fig.plane;
    names.forEach(fig.marker);
    fig
      .layer('circle')
      .append('circle')
      .attr('class', 'unit-circle')
      .attr('cx', p.x(0))
      .attr('cy', p.y(0))
      .attr('r', p.x(1) - p.x(0));
    const given = fig.layer('given');
    const lines = {};
    for (const n of names) {
      lines[n] = {
        given: given.append('line').attr('class', `vec-given given-${n}`),
        used: fig.arrow(n, { layer: 'used', text: n === 'q' ? 'q' : sub(n), away: null }),
      };
    }
    const handleList = names.map((name) => fig.handle(name, { title: sub(name), say: () => this.#summary() }));

    const rows = KEYS.map((name, i) => {
      const key = i + 1;
      const norm = num('norm', key);
      const dot = num('dot', key);
      const cos = num('cosine', key);
      const unit = [num('unit', `${key}.1`), num('unit', `${key}.2`)];
      const unitLine = h('span', { class: 'unit-line' }, 'used: (', unit[0], ', ', unit[1], ')');
      const row = bodyRow(
        [symbol('k', key), h('span', { class: 'given' }), unitLine],
        [norm, { text: dot, class: 'c-dot' }, { text: cos, class: 'c-cos' }],
        { dataset: { key: name } },
      );
      return { row, norm, dot, cos, unit, unitLine, given: row.querySelector('.given') };
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
    const qLine = h(
      'p',
      { class: 'line q-line' },
      lbl('q = '),
      h('span', { class: 'q-given' }),
      lbl(', |q| = '),
      qNorm,
      h('span', { class: 'q-unit' }, lbl('; used: ('), qUnit[0], ', ', qUnit[1], lbl(')')),
    );
    const verdictRaw = h('p', { class: 'verdict', dataset: { measure: 'raw' } });
    const verdictCos = h('p', { class: 'verdict', dataset: { measure: 'cosine' } });
    const numbers = h(
      'div',
      { class: 'numbers' },
      h(
        'div',
        { class: 'formulas' },
        texElement('\\text{raw} = q\\cdot k', { display: true }),
        texElement('\\cos\\theta=\\frac{q\\cdot k}{|q|\\,|k|}', { display: true }),
      ),
      toggle.row,
      qLine,
      table,
      h('div', { class: 'verdicts', role: 'status' }, verdictRaw, verdictCos),
    );
    body.append(predict, presets, h('div', { class: 'layout' }, fig.element, numbers));
    this.#ui = {
      p,
      lines,
      handleList,
      rows,
      toggle,
      table,
      qLine,
      qNorm,
      qUnit,
      verdictRaw,
      verdictCos,
      qGiven: qLine.querySelector('.q-given'),
    };
  }

  #summary() {
    const { rows, verdictRaw, verdictCos } = this.#ui;
    return `${rows.map((r, i) => `k${i + 1}: raw ${r.dot.textContent}, cosine ${r.cos.textContent}`).join('; ')}. ${verdictRaw.textContent} ${verdictCos.textContent}`;
  }

  syncControls(state) {
    const ui = this.#ui;
    if (!ui) return;
    ui.toggle.set(state.normalise);
    setText(ui.qGiven, pair(state.q));
    KEYS.forEach((name, i) => {
      setText(ui.rows[i].given, ` = ${pair(state[name])}`);
    });
  }

  render(ag, state) {
    const ui = this.#ui;
    const names = ['q', ...KEYS];
    const norms = Object.fromEntries(names.map((n) => [n, ag.norm(state[n])]));
    const zero = names.filter((n) => norms[n] === 0);
    // Normalising needs a direction: with a zero vector the toggle cannot apply.
    const normalise = state.normalise && zero.length === 0;
    const used = Object.fromEntries(
      names.map((n) => [n, normalise ? Array.from(ag.normalize(state[n]).data) : state[n]]),
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
      if (zero.length === 0) {
        cos[i] = ag.cosine(used.q, used[name]);
        this.show(r.cos, cos[i]);
      } else if (norms.q === 0 || norms[name] === 0) {
        cos[i] = null;
        notDefined([r.cos]);
      } else {
        cos[i] = ag.cosine(used.q, used[name]);
        this.show(r.cos, cos[i]);
      }
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
    const { p, lines, handleList } = this.#ui;
    for (const [n, l] of Object.entries(lines)) {
      const u = used[n];
      setLine(p, l.given, [0, 0], state[n]);
      l.given.attr('visibility', normalise ? 'visible' : 'hidden');
      l.used.draw(u);
      // Labels beside the tips, nudged apart when two vectors overlap (drawing only).
      const len = Math.hypot(u[0], u[1]) || 1;
      const side = n === 'q' ? 0 : n === 'k1' ? 1 : -1;
      const nx = (-u[1] / len) * 0.45 * side;
      const ny = (u[0] / len) * 0.45 * side;
      l.used.label
        .attr('x', p.x(u[0] + (0.5 * u[0]) / len + nx) - 5)
        .attr('y', p.y(u[1] + (0.5 * u[1]) / len + ny) + 5);
    }
    handleList.forEach((hd) => hd.update());
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
