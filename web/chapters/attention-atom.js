// <ag-attention-atom>: chapter 1, "The atom of attention". Four tokens' 2-D queries and keys as draggable
// points and the heat map S = QKᵀ (ag.matmul with transposeB); the chosen cell's dot product term by term
// (ag.dot of one-element vectors) and whole (ag.dot).
import { select } from 'd3';
import { shownText } from '../widget/after-answer.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { cellExpansion } from '../widget/cell-expansion.js';
import { h, setText } from '../widget/dom.js';
import { fmt, pair, paren, sub } from '../widget/format.js';
import { heatmap } from '../widget/heatmap.js';
import { shapes } from '../widget/math.js';
import { defineState, fixedMatrix, vector } from '../widget/state.js';
import { vectorFigure } from '../widget/vector-figure.js';
import { choices } from '../widget/predict.js';
import { rowsOf, tensorOf as tensor } from '../models/tensor.js';

const TOKENS = ['the', 'cat', 'ate', 'fish'];
const N = TOKENS.length;
const EXTENT = 3;
/** The size of a cell of the grid, in SVG units (heatmap's default). */
const CELL = 52;
/** The cells the prediction asks about, S₂₃ and S₃₂ (data-cell keys, 1-based). */
const ASKED = new Set(['2-3', '3-2']);

export class AgAttentionAtom extends AgWidget {
  static title = 'The atom of attention';
  static styles = ['styles/heatmap.css', 'styles/attention-atom.css'];
  static figureSelector = 'svg.heatmap';
  static stateDecl = defineState({
    version: 1,
    fields: {
      q: fixedMatrix('0.5,0.5;1,2;2,0.5;-1,1.5', EXTENT),
      k: fixedMatrix('0.5,-0.5;2,1.5;-1,1;2.5,-0.5', EXTENT),
      // The highlighted cell (row i = query, column j = key), 1-based.
      cell: vector({ length: 2, min: 1, max: N, integer: true, default: [3, 2] }),
    },
  });

  #ui = null;

  build(body) {
    const predict = this.predict({
      id: 'not-symmetric',
      question: `Does \u201c${TOKENS[1]}\u201d look at \u201c${TOKENS[2]}\u201d exactly as strongly as \u201c${TOKENS[2]}\u201d looks at \u201c${TOKENS[1]}\u201d? In symbols: is S\u2082\u2083 = q\u2082\u00b7k\u2083 equal to S\u2083\u2082 = q\u2083\u00b7k\u2082?`,
      choices: choices({ equal: 'Yes, the same score', different: 'No, they differ' }),
      misconceptions: {
        equal:
          'That reads the grid as symmetric, as if a token used one vector both to ask and to answer: S\u2082\u2083 pairs q\u2082 with k\u2083, S\u2083\u2082 pairs q\u2083 with k\u2082, and a query and a key of one token are different vectors.',
      },
      reveal: (_choice, ag) => {
        const { q, k } = this.constructor.stateDecl.fields;
        this.setState({ q: q.default, k: k.default, cell: [2, 3] });
        const S = ag.matmul(tensor(q.default), tensor(k.default), { transposeB: true }).data;
        const s23 = S[1 * N + 2];
        const s32 = S[2 * N + 1];
        return {
          answer: s23 === s32 ? 'equal' : 'different',
          explanation: `The module computed S\u2082\u2083 = q\u2082\u00b7k\u2083 = ${fmt(s23)} but S\u2083\u2082 = q\u2083\u00b7k\u2082 = ${fmt(s32)}. A token asks with its query and answers with its key, two different vectors, so the grid is not symmetric: who looks at whom has a direction.`,
        };
      },
    });

    // The plane: every query and key as a draggable point; the chosen pair as arrows.
    const fig = vectorFigure(this, {
      extent: EXTENT,
      label: 'Queries q1 to q4 and keys k1 to k4 as points; drag them or use the arrow keys',
      markers: 'atom-arrow',
    });
    const arrowQ = fig.arrow('q', { text: null });
    const arrowK = fig.arrow('k', { text: null });
    const labels = fig.layer('labels');
    const points = [];
    for (const kind of ['q', 'k']) {
      for (let r = 0; r < N; r += 1) {
        const name = `${kind}${r + 1}`;
        const label = labels.append('text').attr('class', `pt-label label-${kind}`).attr('aria-hidden', 'true');
        label.append('tspan').text(kind);
        label
          .append('tspan')
          .attr('class', 'pt-sub')
          .attr('dy', '0.3em')
          .text(String(r + 1));
        const handle = fig.handle(name, {
          className: `handle-${kind}`,
          get: () => this.state[kind][r],
          set: (value) => {
            const rows = this.state[kind].map((row, n) => (n === r ? value : [...row]));
            const cell = [...this.state.cell];
            if (kind === 'q') cell[0] = r + 1;
            else cell[1] = r + 1;
            this.setState({ [kind]: rows, cell });
          },
          describe: (v) => `${name}, ${kind === 'q' ? 'query' : 'key'} of \u201c${TOKENS[r]}\u201d = ${pair(v)}`,
          announce: (v) =>
            `${name} (${TOKENS[r]}) = ${pair(v)}${shownText(this.#ui.expansion.dot, `; S${this.state.cell[0]}${this.state.cell[1]} = `)}`,
        });
        points.push({ kind, r, label, handle, node: select(handle.node) });
      }
    }

    // The grid S = QKᵀ.
    const grid = h('div', { class: 'grid-box' });
    const hm = heatmap(grid, {
      rows: TOKENS.map((t, i) => ({ label: 'q', sub: String(i + 1), note: t })),
      cols: TOKENS.map((t, j) => ({ label: 'k', sub: String(j + 1), note: t })),
      label: 'Scores S = Q K transposed: rows are queries, columns are keys',
      legendTitle: 'score',
      role: 'score',
      cell: CELL,
      readout: false, // hovering or focusing a cell selects it, and the panel beside the grid explains it
      // A cell of the question names its number once the answer is on show (render writes the labels again then).
      describe: (i, j, text) =>
        `S${i + 1}${j + 1}: query of \u201c${TOKENS[i]}\u201d with key of \u201c${TOKENS[j]}\u201d${ASKED.has(`${i + 1}-${j + 1}`) && !this.answerIsShown ? ', its number shown once you answer the prediction' : ` = ${text}`}`,
      show: (el, value, o) => this.show(el, value, o),
      onSelect: (i, j) => this.#select(i, j),
      onActivate: (i, j) => this.#select(i, j),
    });
    // Held: the numbers and the colours of S₂₃ and S₃₂ answer the prediction (they differ). Until then each of
    // the two cells shows a blank square with "?" (still a cell to point at), which its colour covers once shown.
    for (const key of ASKED) {
      const cell = select(grid.querySelector(`[data-cell="${key}"]`));
      this.afterAnswer(cell.selectAll('.hm-rect, .hm-value').nodes());
      cell.insert('rect', ':first-child').attr('class', 'hm-wait').attr('width', CELL).attr('height', CELL);
      cell
        .insert('text', '.hm-rect')
        .attr('class', 'hm-wait-mark')
        .attr('x', CELL / 2)
        .attr('y', CELL / 2 + 6)
        .attr('text-anchor', 'middle')
        .attr('aria-hidden', 'true')
        .text('?');
    }
    const shapeLine = shapes('Q:[N,d_k]=[4,2]', 'K:[N,d_k]=[4,2]', 'S=QK^{\\top}:[N,N]=[4,4]');

    // The chosen pair, term by term.
    const expansion = cellExpansion({ label: 'The chosen cell, term by term' });

    body.append(
      predict,
      h('div', { class: 'layout' }, fig.element, h('div', { class: 'right' }, shapeLine, grid)),
      expansion.element,
    );
    // The expansion's terms and sum, held while it shows S₂₃ or S₃₂ (render): the lines after its products.
    const sums = [...expansion.element.querySelectorAll('.line')].slice(1);
    this.#ui = { p: fig.plane, arrowQ, arrowK, points, hm, expansion, sums };
  }

  #select(i, j) {
    const [ci, cj] = this.state.cell;
    if (ci === i + 1 && cj === j + 1) return;
    this.setState({ cell: [i + 1, j + 1] });
  }

  render(ag, { q, k, cell }) {
    const ui = this.#ui;
    const i = cell[0] - 1;
    const j = cell[1] - 1;
    ui.hm.update(rowsOf(ag.matmul(tensor(q), tensor(k), { transposeB: true }), N, N), { selected: [i, j] });
    if (ui.labelled !== this.answerIsShown) {
      ui.hm.relabel(); // the cells of the question name their numbers once the answer is on show
      ui.labelled = this.answerIsShown;
    }

    const qi = q[i];
    const kj = k[j];
    // Each term q_i,c k_j,c is a one-element dot product; a negative second term turns the + into a minus.
    ui.expansion.show(this, ag, i, j, qi, kj);
    const asked = (i === 1 && j === 2) || (i === 2 && j === 1);
    for (const el of ui.sums) {
      // Written only when it changes (held or shown stays as the answer left it).
      if (asked && !el.dataset.afterAnswer) this.afterAnswer(el);
      else if (!asked && el.dataset.afterAnswer) delete el.dataset.afterAnswer;
    }
    setText(
      ui.expansion.heading,
      `Row ${i + 1} asks with the query of \u201c${TOKENS[i]}\u201d; column ${j + 1} answers with the key of \u201c${TOKENS[j]}\u201d.`,
    );
    setText(ui.expansion.vectors, `q${sub(i + 1)} = ${pair(qi)},  k${sub(j + 1)} = ${pair(kj)}`);
    setText(ui.expansion.products, `${fmt(qi[0])}\u00d7${paren(kj[0])} + ${paren(qi[1])}\u00d7${paren(kj[1])}`);
    this.#draw(q, k, i, j);
  }

  #draw(q, k, i, j) {
    const { p, arrowQ, arrowK, points } = this.#ui;
    arrowQ.draw(q[i]);
    arrowK.draw(k[j]);
    for (const pt of points) {
      const v = (pt.kind === 'q' ? q : k)[pt.r];
      const chosen = pt.kind === 'q' ? pt.r === i : pt.r === j;
      pt.handle.update();
      pt.node.classed('is-faded', !chosen);
      pt.label
        .classed('is-faded', !chosen)
        .attr('x', p.x(v[0]) + 8)
        .attr('y', p.y(v[1]) - 9);
    }
  }
}

defineWidget('ag-attention-atom', AgAttentionAtom);
