// <ag-orthogonality>: chapter 12, "Orthogonality: a zero score means
// unrelated". A query q and three draggable keys: each key's score, cosine,
// angle, reading and softmax weight (a perpendicular key lands between); a
// button snaps k2 perpendicular; the standard basis of 3-D space, E Eᵀ = I.
// Numbers: ag.dot, ag.cosine, ag.angle, ag.softmax, ag.matmul.
//
//   <ag-orthogonality q="2,1" k1="1,1" k2="-1,2" k3="-1,-0.5"></ag-orthogonality>
import { shownText } from '../widget/after-answer.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, lbl, line, num, presetBar, section } from '../widget/controls.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { fmt, pair } from '../widget/format.js';
import { display, texElement } from '../widget/math.js';
import { bodyRow, table as dataTable } from '../widget/matrix-table.js';
import { showAngle } from '../widget/pair-numbers.js';
import { keyRow, queryKeyVectors, syncGiven } from '../widget/query-keys.js';
import { defineState, rowsFrom } from '../widget/state.js';
import { rightAngle, setLine, showIf, vectorFields, vectorFigure } from '../widget/vector-figure.js';
import { choices } from '../widget/predict.js';

const EXTENT = 4;
const KEYS = ['k1', 'k2', 'k3'];
const NAMES = ['q', ...KEYS];
/** Where the vectors start (and the button "Back to the start" takes them). */
const START = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
/** The standard basis of 3-D space, one vector per row. */
const BASIS = rowsFrom('1,0,0;0,1,0;0,0,1');

const READING = {
  supports: 'supports q',
  perpendicular: 'at right angles: neutral',
  opposes: 'opposes q',
};

export class AgOrthogonality extends AgWidget {
  static title = 'Orthogonality: a zero score means unrelated';
  static styles = ['styles/orthogonality.css'];
  static stateDecl = defineState({
    version: 1,
    fields: vectorFields(START, EXTENT),
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'perpendicular-weight',
      question:
        'q = (2, 1); k\u2081 = (1, 1) points roughly along q, k\u2082 = (\u22121, 2) is perpendicular to it, k\u2083 = (\u22121, \u22120.5) points against it. After the softmax, where does k\u2082\u2019s weight land?',
      choices: choices({ top: 'Largest of the three', middle: 'Between the other two', zero: 'Exactly zero' }),
      misconceptions: {
        top: 'That reads \u201cunrelated\u201d as a match: the key along q has a positive score and comes first, and a zero score sits between a positive and a negative one.',
        zero: 'That reads a zero score as a zero weight: the softmax takes exp(0), which is positive, so a perpendicular key keeps a share; only a score of \u2212\u221e gets none.',
      },
      reveal: (_choice, ag) => {
        const s = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
        this.setState(s);
        const scores = KEYS.map((k) => ag.dot(s.q, s[k]));
        const w = ag.softmax(scores).data;
        const answer =
          w[1] === 0 ? 'zero' : w[1] > w[0] && w[1] > w[2] ? 'top' : w[1] < w[0] && w[1] > w[2] ? 'middle' : 'other';
        return {
          answer,
          explanation: `The module computed the scores ${scores.map(fmt).join(', ')} and the weights ${Array.from(w, fmt).join(', ')}. A score of 0 becomes exp(0) = 1 before the division: not a veto, just no push either way.`,
        };
      },
    });

    const snap = button({ class: 'snap', dataset: { action: 'snap' } }, 'Snap k\u2082 perpendicular to q', () =>
      this.#snap(),
    );
    const presets = presetBar([{ id: 'default', label: 'Back to the start' }], () => this.setState(START), {
      label: 'Actions',
      lead: null,
      before: [snap],
    });

    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The query q and three keys; drag their tips or use the arrow keys',
      markers: 'or-arrow',
    });
    const guide = fig.layer('guide').attr('clip-path', fig.clipSquare('or-clip')).append('line');
    guide.attr('class', 'perp-guide');
    const corners = fig.layer('corners');
    const cornerOf = Object.fromEntries(KEYS.map((n) => [n, corners.append('path')]));
    KEYS.forEach((n) => cornerOf[n].attr('class', `right-angle corner-${n}`));
    const say = () => this.#summary();
    const { arrows, handles } = queryKeyVectors(fig, NAMES, { arrow: { away: 0.4, dx: -6 }, say });

    const rows = KEYS.map((name, i) => {
      const [score, cos, angle, weight] = ['score', 'cosine', 'angle', 'weight'].map((role) => num(role, i + 1));
      const fill = h('span', { class: 'bar-fill' });
      const reading = h('span', { class: 'reading' });
      const cells = [
        { text: score, class: 'c-score' },
        { text: [cos, h('span', { class: 'angle' }, angle)], class: 'c-cos' },
        { text: [weight, h('span', { class: 'bar', 'aria-hidden': 'true' }, fill)], class: 'c-weight' },
      ];
      return { ...keyRow(name, i + 1, cells, reading), score, cos, angle, weight, fill, reading };
    });
    const table = dataTable({
      className: 'keys',
      caption: 'Scores, angles and softmax weights',
      headers: [
        'Key',
        { text: [h('var', {}, 'q'), '\u00b7', h('var', {}, 'k')], class: 'c-score' },
        { text: 'cos \u03b8, \u03b8', class: 'c-cos' },
        { text: 'weight', class: 'c-weight' },
      ],
      rows: rows.map((r) => r.row),
    });
    // The chapter opens on the question's vectors: k₂'s weight answers it, so the weights wait for the answer.
    this.afterAnswer(table, '.c-weight');
    const qGiven = h('span', { class: 'q-given' });

    // The standard basis and its table of pairwise dot products, E Eᵀ.
    const gram = BASIS.map((_, i) => BASIS.map((__, j) => num('gram', `${i + 1}${j + 1}`)));
    const e = (i) => h('span', { class: 'sym' }, h('var', {}, 'e'), h('sub', {}, String(i + 1)));
    const basisTable = dataTable({
      className: 'gram',
      caption: ['Dot products of the standard basis, ', texElement('E\\,E^{\\mathsf T}')],
      headers: ['\u00b7', ...BASIS.map((_, j) => e(j))],
      rows: BASIS.map((row, i) => bodyRow([e(i), h('span', { class: 'given' }, ` = (${row.join(', ')})`)], gram[i])),
    });
    const basis = section('basis', 'The standard basis', 'Three axes that never interfere', [
      h(
        'p',
        {},
        'The standard basis of 3-D space: every pair meets at a right angle, so every score between two different axes is 0, and each axis scores 1 with itself. ',
        'In d dimensions there is room for exactly d such mutually perpendicular directions, no more.',
      ),
      basisTable,
    ]);

    const numbers = h(
      'div',
      { class: 'numbers' },
      display('q\\cdot k=0\\iff\\cos\\theta=0'),
      line(lbl('q = '), qGiven),
      table,
      display('w_j=\\frac{e^{q\\cdot k_j}}{\\sum_i e^{q\\cdot k_i}}'),
    );
    body.append(predict, presets, h('div', { class: 'layout' }, fig.element, numbers), basis);
    this.#ui = { p: fig.plane, arrows, cornerOf, guide, handles, rows, gram, qGiven };
  }

  /** k2 becomes ±(−q_y, q_x): the quarter turn of q, on k2's side of q. */
  #snap() {
    const { q, k2 } = this.state;
    const ag = this.engine;
    if (!ag) return;
    if (q[0] === 0 && q[1] === 0) {
      this.note('q has length zero: every key is perpendicular to it, there is no direction to turn.');
      return;
    }
    const turn = [-q[1], q[0]];
    // Keep k2 on the side it was on (the sign of a score is a comparison, not a number shown).
    const side = ag.dot(k2, turn) < 0 ? -1 : 1;
    this.setState({ k2: turn.map((c) => side * c || 0) });
    this.announce(`k\u2082 = ${pair(this.state.k2)}; ${this.#summary()}`);
  }

  #summary() {
    // The weights are held on screen before the answer: the spoken summary leaves them out too.
    return this.#ui.rows
      .map((r, i) => `k${i + 1}: score ${r.score.textContent}${shownText(r.weight, ', weight ')}`)
      .join('; ');
  }

  syncControls(state) {
    const ui = this.#ui;
    syncGiven(state, ui.qGiven, KEYS, ui.rows);
  }

  render(ag, state) {
    const ui = this.#ui;
    const scores = KEYS.map((name) => ag.dot(state.q, state[name]));
    const weights = ag.softmax(scores).data;
    const qZero = ag.norm(state.q) === 0;
    KEYS.forEach((name, i) => {
      const r = ui.rows[i];
      this.showAll(r, { score: scores[i], weight: weights[i] });
      r.fill.style.transform = `scaleX(${weights[i]})`;
      const kZero = ag.norm(state[name]) === 0;
      // No angle without a direction: the cell says "not defined" once.
      if (showAngle(this, ag, r, state.q, state[name], !qZero && !kZero) === null) setText(r.angle, '');
      const reading = scores[i] > 0 ? 'supports' : scores[i] < 0 ? 'opposes' : 'perpendicular';
      setText(r.reading, qZero || kZero ? 'zero vector: no direction' : READING[reading]);
      setAttr(r.row, 'data-reading', reading);
    });
    const gram = ag.matmul(BASIS, BASIS, { transposeB: true }).data;
    ui.gram.forEach((row, i) => row.forEach((cell, j) => this.show(cell, gram[i * 3 + j])));
    this.#draw(state, scores);
  }

  #draw(state, scores) {
    const { p, arrows, cornerOf, guide, handles } = this.#ui;
    const q = state.q;
    const qLen = Math.hypot(...q);
    // The line perpendicular to q through the origin: where zero scores live (drawing only).
    showIf(qLen > 0, guide);
    const s = (2 * EXTENT) / qLen;
    if (qLen > 0) setLine(p, guide, [q[1] * s, -q[0] * s], [-q[1] * s, q[0] * s]);
    NAMES.forEach((n, idx) => {
      const v = state[n];
      // A zero vector has no direction: no arrow (its handle stays at the origin).
      showIf(v[0] !== 0 || v[1] !== 0, arrows[n].line);
      arrows[n].draw(v);
      if (n === 'q') return;
      // A right-angle mark where a key's score is exactly zero.
      const len = Math.hypot(...v);
      const show = scores[idx - 1] === 0 && qLen > 0 && len > 0;
      showIf(show, cornerOf[n]);
      // Its path only when shown: with q of length zero there is no direction to mark (and no path to write).
      if (show) rightAngle(p, cornerOf[n], [0, 0], [q[0] / qLen, q[1] / qLen], [v[0] / len, v[1] / len], 0.35);
    });
    handles.forEach((hd) => hd.update());
  }
}

defineWidget('ag-orthogonality', AgOrthogonality);
