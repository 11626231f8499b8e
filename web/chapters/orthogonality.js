// <ag-orthogonality>: chapter 12, "Orthogonality: a zero score means
// unrelated". A query q and three keys (all draggable): for each key its
// score, cosine and angle, what the score says (supports, perpendicular,
// opposes), and the softmax weight over the three scores, where a
// perpendicular key lands between the supporting and the opposing ones. A
// button turns k2 exactly perpendicular to q. Below, the standard basis of
// 3-D space and its table of pairwise dot products, E Eᵀ = I.
// Every number shown is a wasm result: ag.dot, ag.cosine, ag.angle (shown in
// degrees: formatting), ag.softmax and ag.matmul.
//
//   <ag-orthogonality q="2,1" k1="1,1" k2="-1,2" k3="-1,-0.5"></ag-orthogonality>
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, lbl, line, num, presetBar } from '../widget/controls.js';
import { h, setAttr, setText, symbol } from '../widget/dom.js';
import { deg, fmt, pair, sub } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { bodyRow, table as dataTable } from '../widget/matrix-table.js';
import { defineState } from '../widget/state.js';
import { vectorFields, vectorFigure } from '../widget/vector-figure.js';

const EXTENT = 4;
const KEYS = ['k1', 'k2', 'k3'];
/** Where the vectors start (and the button "Back to the start" takes them). */
const START = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
/** The standard basis of 3-D space, one vector per row. */
const BASIS = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

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
      choices: [
        { value: 'top', label: 'Largest of the three' },
        { value: 'middle', label: 'Between the other two' },
        { value: 'zero', label: 'Exactly zero' },
      ],
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

    const names = ['q', ...KEYS];
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'The query q and three keys; drag their tips or use the arrow keys',
      markers: 'or-arrow',
    });
    names.forEach(fig.marker);
    const guide = fig.layer('guide').attr('clip-path', fig.clipSquare('or-clip')).append('line');
    guide.attr('class', 'perp-guide');
    const corners = fig.layer('corners');
    const lines = {};
    for (const n of names) {
      lines[n] = {
        ...fig.arrow(n, { text: sub(n), away: 0.4, dx: -6 }),
        corner: n === 'q' ? null : corners.append('path').attr('class', `right-angle corner-${n}`),
      };
    }
    const handleList = names.map((name) => fig.handle(name, { title: sub(name), say: () => this.#summary() }));

    const rows = KEYS.map((name, i) => {
      const key = i + 1;
      const score = num('score', key);
      const cos = num('cosine', key);
      const angle = num('angle', key);
      const weight = num('weight', key);
      const fill = h('span', { class: 'bar-fill' });
      const reading = h('span', { class: 'reading' });
      const row = bodyRow(
        [symbol('k', key), h('span', { class: 'given' }), reading],
        [
          { text: score, class: 'c-score' },
          { text: [cos, h('span', { class: 'angle' }, angle)], class: 'c-cos' },
          { text: [weight, h('span', { class: 'bar', 'aria-hidden': 'true' }, fill)], class: 'c-weight' },
        ],
        { dataset: { key: name } },
      );
      return { row, score, cos, angle, weight, fill, reading, given: row.querySelector('.given') };
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
    const qLine = line(lbl('q = '), h('span', { class: 'q-given' }));

    // The standard basis and its table of pairwise dot products, E Eᵀ.
    const gram = BASIS.map((_, i) => BASIS.map((__, j) => num('gram', `${i + 1}${j + 1}`)));
    const e = (i) => h('span', { class: 'sym' }, h('var', {}, 'e'), h('sub', {}, String(i + 1)));
    const basisTable = dataTable({
      className: 'gram',
      caption: ['Dot products of the standard basis, ', texElement('E\\,E^{\\mathsf T}')],
      headers: ['\u00b7', ...BASIS.map((_, j) => e(j))],
      rows: BASIS.map((row, i) => bodyRow([e(i), h('span', { class: 'given' }, ` = (${row.join(', ')})`)], gram[i])),
    });
    const basis = h(
      'section',
      { class: 'basis', 'aria-label': 'The standard basis' },
      h('h3', {}, 'Three axes that never interfere'),
      h(
        'p',
        {},
        'The standard basis of 3-D space: every pair meets at a right angle, so every score between two different axes is 0, and each axis scores 1 with itself. ',
        'In d dimensions there is room for exactly d such mutually perpendicular directions, no more.',
      ),
      basisTable,
    );

    const numbers = h(
      'div',
      { class: 'numbers' },
      texElement('q\\cdot k=0\\iff\\cos\\theta=0', { display: true }),
      qLine,
      table,
      texElement('w_j=\\frac{e^{q\\cdot k_j}}{\\sum_i e^{q\\cdot k_i}}', { display: true }),
    );
    body.append(predict, presets, h('div', { class: 'layout' }, fig.element, numbers), basis);
    this.#ui = { p: fig.plane, lines, guide, handleList, rows, gram, qGiven: qLine.querySelector('.q-given') };
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
    return this.#ui.rows
      .map((r, i) => `k${i + 1}: score ${r.score.textContent}, weight ${r.weight.textContent}`)
      .join('; ');
  }

  syncControls(state) {
    const ui = this.#ui;
    if (!ui) return;
    setText(ui.qGiven, pair(state.q));
    KEYS.forEach((name, i) => {
      setText(ui.rows[i].given, ` = ${pair(state[name])}`);
    });
  }

  render(ag, state) {
    const ui = this.#ui;
    const scores = KEYS.map((name) => ag.dot(state.q, state[name]));
    const weights = ag.softmax(scores).data;
    const qZero = ag.norm(state.q) === 0;
    KEYS.forEach((name, i) => {
      const r = ui.rows[i];
      this.show(r.score, scores[i]);
      this.show(r.weight, weights[i]);
      r.fill.style.transform = `scaleX(${weights[i]})`;
      const kZero = ag.norm(state[name]) === 0;
      if (qZero || kZero) {
        setText(r.cos, 'not defined');
        setText(r.angle, '');
        delete r.cos.dataset.value;
        delete r.angle.dataset.value;
      } else {
        this.show(r.cos, ag.cosine(state.q, state[name]));
        this.show(r.angle, ag.angle(state.q, state[name]), { format: deg });
      }
      const reading = scores[i] > 0 ? 'supports' : scores[i] < 0 ? 'opposes' : 'perpendicular';
      setText(r.reading, qZero || kZero ? 'zero vector: no direction' : READING[reading]);
      setAttr(r.row, 'data-reading', reading);
    });
    const gram = ag.matmul(BASIS, BASIS, { transposeB: true }).data;
    ui.gram.forEach((row, i) => row.forEach((cell, j) => this.show(cell, gram[i * 3 + j])));
    this.#draw(state, scores);
  }

  #draw(state, scores) {
    const { p, lines, guide, handleList } = this.#ui;
    const q = state.q;
    const qLen = Math.hypot(...q);
    // The line perpendicular to q through the origin: where zero scores live (drawing only).
    if (qLen > 0) {
      const s = (2 * EXTENT) / qLen;
      guide
        .attr('visibility', 'visible')
        .attr('x1', p.x(q[1] * s))
        .attr('y1', p.y(-q[0] * s))
        .attr('x2', p.x(-q[1] * s))
        .attr('y2', p.y(q[0] * s));
    } else guide.attr('visibility', 'hidden');
    ['q', ...KEYS].forEach((n, idx) => {
      const v = state[n];
      const l = lines[n];
      // A zero vector has no direction: no arrow (its handle stays at the origin).
      l.line.attr('visibility', v[0] === 0 && v[1] === 0 ? 'hidden' : 'visible');
      l.draw(v);
      const len = Math.hypot(...v) || 1;
      if (l.corner) {
        // A right-angle mark where a key's score is exactly zero.
        const show = scores[idx - 1] === 0 && qLen > 0 && Math.hypot(...v) > 0;
        const r = 0.35;
        l.corner.attr('visibility', show ? 'visible' : 'hidden');
        // Its path only when shown: with q of length zero there is no direction to mark (and no path to write).
        if (show) {
          const a = [(q[0] / qLen) * r, (q[1] / qLen) * r];
          const b = [(v[0] / len) * r, (v[1] / len) * r];
          l.corner.attr(
            'd',
            `M${p.x(a[0])},${p.y(a[1])} L${p.x(a[0] + b[0])},${p.y(a[1] + b[1])} L${p.x(b[0])},${p.y(b[1])}`,
          );
        }
      }
    });
    handleList.forEach((hd) => hd.update());
  }
}

defineWidget('ag-orthogonality', AgOrthogonality);
