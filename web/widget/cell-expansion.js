// The chosen cell S_ij of a score grid S = QKᵀ with d_k = 2, term by term (attention-atom, qkt-grid):
// `<section class="pair">` with a heading, a line of the two vectors, the formula of S_ij, the line of
// products, the line of the two terms and the sum. The chapter writes the heading, the vectors and the
// products; `show` shows the terms (one-element dot products) and the sum q_i·k_j, wasm results.
import { line, num, nums, signedTerm } from './controls.js';
import { h, setAttr } from './dom.js';
import { tex } from './math.js';

/**
 * @param {{ label: string, heading?: string, factors?: Node[] }} o  label: the section's name;
 *   heading: the tag of its heading ('p' or 'h3'); factors: the content of the line of products
 *   (slots the chapter shows), or none when the chapter writes that line as text
 * @returns {{ element: HTMLElement, heading: HTMLElement, vectors: HTMLElement, products: HTMLElement,
 *   dot: HTMLElement, show: (widget, ag, i: number, j: number, qi: number[], kj: number[]) => void }}
 */
export function cellExpansion({ label, heading: tag = 'p', factors = [] }) {
  const heading = h(tag, { class: 'pair-heading' });
  const vectors = h('p', { class: 'pair-vectors' });
  const formula = h('div', { class: 'pair-formula' });
  const products = h('span', { class: 'expr' }, factors);
  const terms = nums('term', 2);
  const dot = num('dot');
  const element = h(
    'section',
    { class: 'pair', 'aria-label': label },
    heading,
    vectors,
    formula,
    line('= ', products),
    line('= ', terms[0], signedTerm('+', terms[1])),
    h('p', { class: 'line result' }, '= ', dot),
  );
  return {
    element,
    heading,
    vectors,
    products,
    dot,
    /** Row i of Q and row j of K (0-based): the terms q_i,c k_j,c and the sum, then S_ij's formula. */
    show(widget, ag, i, j, qi, kj) {
      terms.forEach((el, c) => widget.show(el, ag.dot([qi[c]], [kj[c]])));
      widget.show(dot, ag.dot(qi, kj));
      // Typeset only when the selected cell changes: KaTeX takes milliseconds, a drag needs none.
      const [r, k] = [i + 1, j + 1];
      const source = `\\begin{aligned}S_{${r}${k}} &= q_{${r}}\\cdot k_{${k}}\\\\ &= q_{${r},1}\\,k_{${k},1} + q_{${r},2}\\,k_{${k},2}\\end{aligned}`;
      if (formula.dataset.tex !== source) {
        tex(formula, source, { display: true });
        setAttr(formula, 'data-tex', source);
      }
    },
  };
}
