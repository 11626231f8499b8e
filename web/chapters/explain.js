// <ag-weights-explain>: part 2, "What weights do and do not explain". A two-layer residual stack
// (models/two-layer-stack.js, ag.multiHeadAttention); for one query and layer, each key's weight beside the
// change of the final output when that key is hidden (ag.matmul and ag.norm); keys whose two ranks
// disagree are marked, and "Find" jumps to the next query with both kinds.
import { AgWidget, defineWidget } from '../widget/base.js';
import { bars } from '../widget/bars.js';
import { bandScale, drawAll, xScale } from '../widget/charts.js';
import { button } from '../widget/controls.js';
import { fieldChoice } from '../widget/field-controls.js';
import { hint } from '../widget/chapter-notes.js';
import { h, setText } from '../widget/dom.js';
import { ownFigure } from '../widget/figure-layout.js';
import { formatNumber } from '../widget/format.js';
import { sentenceWeights } from '../widget/heatmap.js';
import { display } from '../widget/math.js';
import { bodyRow, table } from '../widget/matrix-table.js';
import { lastResult } from '../widget/memo.js';
import { sentenceFields, sentenceInput, sentenceProblems, sentenceWords } from '../widget/sentence-input.js';
import { choice, defineState, number } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { packSentence } from '../models/sentence.js';
import { argmax, rowsOf } from '../models/tensor.js';
import {
  ablationEffects,
  classify,
  ranks,
  nextWithBothKinds,
  runStack,
  stackEmbed,
  stackWeights,
} from '../models/two-layer-stack.js';

const DEFAULT_WORDS = ['the', 'old', 'cat', 'sat', 'on', 'mats'];
/** Scale of the random layer weights (drawn standard normal). */
export const GAIN = 0.7;
const SENTENCE = sentenceFields(DEFAULT_WORDS, 4);
const VERDICT = {
  'large-little': 'top half by weight, bottom half by change',
  'small-much': 'bottom half by weight, top half by change',
};
/** The rule of the tags, as the page states it. */
const RULE =
  'Tags compare ranks among this query\u2019s keys (1 = the largest): a key is tagged when it ranks in the top half by weight but in the bottom half by the change its removal makes, or the other way round. A key high (or low) on both is not tagged: there weight and change agree.';
/** A case's tag with the key's two ranks among the query's T keys. */
const verdict = (kind, rw, re, T) => `${VERDICT[kind]} (weight rank ${rw + 1} of ${T}, change rank ${re + 1} of ${T})`;

export class AgWeightsExplain extends AgWidget {
  static title = 'What weights do and do not explain';
  static styles = ['styles/heatmap.css', 'styles/content-to-weights.css', 'styles/explain.css'];
  static figureSelector = 'svg.bars';
  static stateDecl = defineState({
    version: 1,
    fields: {
      words: SENTENCE.words,
      seed: number({ min: 1, max: 99, integer: true, default: 3 }),
      layer: choice({ values: ['1', '2'], default: '2' }),
      query: SENTENCE.query,
    },
    check: (state) => sentenceProblems(state, 4),
  });

  #ui = null;
  #built = null;
  #last = null;
  /** The stack run and every ablation, for a sentence and seed: another layer or query reuses them. */
  #stack = lastResult();
  /** The inputs of the last computation (for tests): words, X, the two layers' weights. */
  inputs = null;

  build(body) {
    const predict = this.predict({
      id: 'largest-weight-largest-change',
      question:
        'For \u201csat\u201d (token 4) in layer 2, is the key with the largest attention weight also the key whose removal changes the final output the most?',
      choices: choices({ yes: 'Yes, the same key', no: 'No, another key' }),
      misconceptions: {
        yes: 'That reads an attention weight as the influence of a key on the output: the weight says how much of a value is mixed in at this layer, but what the output loses without a key also depends on the values and on the other layers.',
      },
      reveal: (_choice, ag) => {
        this.setState({ words: packSentence(DEFAULT_WORDS), seed: 3, layer: '2', query: 4 });
        const { weights, effects } = this.#analyse(ag, DEFAULT_WORDS, 3, 2, 3);
        const jw = argmax(weights);
        const je = argmax(effects);
        return {
          answer: jw === je ? 'yes' : 'no',
          explanation: `The largest weight goes to \u201c${DEFAULT_WORDS[jw]}\u201d (${formatNumber(weights[jw], 3)}), but hiding \u201c${DEFAULT_WORDS[je]}\u201d moves the output most (by ${formatNumber(effects[je], 3)}, against ${formatNumber(effects[jw], 3)}).`,
        };
      },
    });

    const sentence = sentenceInput(this);
    const seed = h('input', {
      type: 'number',
      min: 1,
      max: 99,
      step: 1,
      class: 'seed-input',
      'aria-label': 'Seed of the random layer weights',
    });
    seed.addEventListener('change', () => {
      const n = Number(seed.value);
      if (Number.isInteger(n) && n >= 1 && n <= 99) this.setState({ seed: n });
      else this.note('The seed is a whole number from 1 to 99.');
    });
    const layerGroup = fieldChoice(this, 'layer', ['1', '2'], {
      label: 'Layer whose weights are shown and whose keys are hidden',
      lead: 'layer:',
    });
    const find = button({ class: 'find', dataset: { action: 'find' } }, 'Find the next query with both kinds', () =>
      this.#findNext(),
    );
    const controls = h(
      'div',
      { class: 'controls' },
      sentence.element,
      h('div', { class: 'choice-group' }, h('label', { class: 'lbl' }, 'weights seed ', seed), layerGroup.element),
      find,
    );

    const formula = h(
      'div',
      { class: 'formula' },
      display('x^{(1)}=x+\\operatorname{MHA}_1(x),\\qquad x^{(2)}=x^{(1)}+\\operatorname{MHA}_2\\big(x^{(1)}\\big)'),
      display('\\Delta_j=\\big\\|\\,x^{(2)}_i-x^{(2)}_i\\big|_{\\text{key }j\\text{ hidden}}\\big\\|'),
    );
    const mapBox = h('div', { class: 'hm-box' });
    const barsBox = h('div', { class: 'bars-box' });
    const tableBox = h('div', { class: 'tables' });
    const cases = h('ul', { class: 'cases', 'aria-live': 'polite' });
    const mapTitle = h('h3', { dataset: { role: 'map-title' } }, 'Weights');
    const queryTitle = h('h3', { dataset: { role: 'query-title' } }, 'Weight and effect');
    body.append(
      predict,
      controls,
      formula,
      h(
        'div',
        { class: 'layout stack-early' },
        h(
          'section',
          { class: 'panel' },
          mapTitle,
          hint('Choose a row (click, or arrow keys and Enter) to pick the query.'),
          mapBox,
        ),
        h(
          'section',
          { class: 'panel' },
          queryTitle,
          // Held: the changes beside the weights (bars, table, cases) answer the prediction; the map shows weights.
          this.afterAnswer(
            h(
              'div',
              { class: 'weight-and-change' },
              barsBox,
              tableBox,
              h('h4', {}, 'Cases for this query'),
              h('p', { class: 'rule', dataset: { role: 'tag-rule' } }, RULE),
              cases,
            ),
          ),
        ),
      ),
    );
    this.#ui = { sentence, seed, layerGroup, mapBox, barsBox, tableBox, cases, mapTitle, queryTitle };
  }

  syncControls(state) {
    const ui = this.#ui;
    ui.sentence.sync(state.words);
    if (this.shadowRoot.activeElement !== ui.seed) ui.seed.value = String(state.seed);
    ui.layerGroup.set(state.layer);
  }

  /** Weights and effects of every query in both layers (wasm results). */
  #analyse(ag, words, seed, layer, qi) {
    const { X, layers, base, all } = this.#stack(ag, `${words.join(' ')}|${seed}`, () => {
      const X = stackEmbed(ag, words);
      const layers = stackWeights(ag, seed, GAIN);
      const base = runStack(ag, X, layers);
      return { X, layers, base, all: ablationEffects(ag, X, layers, base) }; // all: [L][j][i]
    });
    const T = words.length;
    const weightsOf = (L, i) => Array.from(base.weights[L - 1].data.subarray(i * T, (i + 1) * T));
    const effectsOf = (L, i) => all[L - 1].map((col) => col[i]);
    return { X, layers, base, all, weightsOf, effectsOf, weights: weightsOf(layer, qi), effects: effectsOf(layer, qi) };
  }

  #findNext() {
    if (!this.#last) return;
    const { words, all, weightsOf } = this.#last;
    const T = words.length;
    const { layer, query } = this.state;
    const found = nextWithBothKinds(T, Number(layer), query - 1, weightsOf, (L, i) => all[L - 1].map((col) => col[i]));
    if (found) {
      const [L, i] = found;
      this.setState({ layer: String(L), query: i + 1 });
      this.announce(`Layer ${L}, query ${i + 1} (${words[i]}) has both kinds of case.`);
      return;
    }
    this.note('No query of this sentence and seed has both kinds of case; try another seed.');
  }

  #rebuild(words) {
    const ui = this.#ui;
    ui.mapBox.replaceChildren();
    const hm = sentenceWeights(ui.mapBox, words, {
      label: 'Attention weights of the chosen layer; choose a row to pick the query',
      role: 'weight',
      describe: (text) => text,
      show: (el, value, o) => this.show(el, value, o),
      onActivate: (i) => this.setState({ query: i + 1 }),
    });
    const cells = words.map((w, j) => ({
      weight: h('td', { class: 'num', dataset: { role: 'key-weight', key: j + 1 } }, '\u2026'),
      effect: h('td', { class: 'num', dataset: { role: 'effect', key: j + 1 } }, '\u2026'),
      verdict: h('td', { class: 'verdict', dataset: { key: j + 1 } }),
      row: null,
    }));
    const effects = table({
      className: 'mat effects',
      caption: 'Each key of the chosen query',
      headers: ['key', 'weight', 'change \u0394', 'case'],
      rows: cells.map((c, j) => {
        c.row = bodyRow(`${j + 1} ${words[j]}`, [c.weight, c.effect, c.verdict], { dataset: { key: j + 1 } });
        return c.row;
      }),
    });
    ui.tableBox.replaceChildren(h('div', { class: 'mat-wrap' }, effects));
    // Paired bars: weight (top) and change (bottom) per key; a drawing of the numbers in the table.
    ui.barsBox.replaceChildren();
    const W = 320;
    const rowH = 30;
    const label = 'Weight and change per key';
    const svg = ownFigure(ui.barsBox, { className: 'bars', width: W, height: words.length * rowH + 24, label });
    this.#built = { key: words.join(' '), hm, cells, svg, W, rowH };
  }

  render(ag, state) {
    const words = sentenceWords(state);
    if (!this.#built || this.#built.key !== words.join(' ')) this.#rebuild(words);
    const b = this.#built;
    const T = words.length;
    const L = Number(state.layer);
    const qi = Math.min(state.query, T) - 1;
    const a = this.#analyse(ag, words, state.seed, L, qi);
    const A = rowsOf(a.base.weights[L - 1], T, T);
    b.hm.update(A, { selected: [qi, argmax(A[qi])] });
    const weights = a.weights;
    const effects = a.effects;
    const kinds = classify(weights, effects);
    const [rw, re] = [ranks(weights), ranks(effects)];
    b.cells.forEach((c, j) => {
      this.showAll(c, { weight: weights[j], effect: effects[j] }, { digits: 3 });
      // In the table, the two ranks only (the list of cases below says it in words).
      setText(c.verdict, kinds[j] ? `weight #${rw[j] + 1}, change #${re[j] + 1}` : '');
      if (c.row.dataset.kind !== (kinds[j] ?? '')) c.row.dataset.kind = kinds[j] ?? '';
    });
    setText(this.#ui.mapTitle, `Weights of layer ${L}`);
    setText(this.#ui.queryTitle, `Query ${qi + 1}, \u201c${words[qi]}\u201d, layer ${L}: weight beside change`);
    // The list of cases is made again only when it changes (it is a live region: a new list is read out).
    const casesKey = `${words.join(' ')}|${kinds.join()}`;
    if (b.casesKey !== casesKey) {
      const items = kinds.flatMap((k, j) =>
        k
          ? [
              h(
                'li',
                { dataset: { kind: k, key: j + 1 } },
                `\u201c${words[j]}\u201d (key ${j + 1}): ${verdict(k, rw[j], re[j], T)}.`,
              ),
            ]
          : [],
      );
      this.#ui.cases.replaceChildren(
        ...(items.length ? items : [h('li', {}, 'None here: weight and change rank alike. Use \u201cFind\u201d.')]),
      );
      b.casesKey = casesKey;
    }
    this.#drawBars(words, weights, effects, kinds);
    this.inputs = { words, X: a.X, layers: a.layers };
    this.#last = { words, all: a.all, weightsOf: a.weightsOf, effectsOf: a.effectsOf, weights, effects, layer: L, qi };
  }

  #drawBars(words, weights, effects, kinds) {
    const { svg, W, rowH } = this.#built;
    const left = 64;
    const box = { width: W, m: { l: left, r: 8 } };
    const [xw, xe] = [xScale(box, [0, 1]), xScale(box, [0, Math.max(...effects, 1e-12)])];
    const data = words.map((w, j) => ({ w, j, a: weights[j], e: effects[j], k: kinds[j] }));
    const keyClass = (d) => `key ${d.k ?? ''}`;
    const keys = { class: keyClass, x: left - 6, y: (d) => 14 + d.j * rowH + 10, 'text-anchor': 'end' };
    drawAll(svg, 'text', 'key', data, keys).text((d) => d.w);
    const y = bandScale([...words.keys()], [8, 8 + words.length * rowH], 0);
    bars(svg, 'bw', data, { x: xw, y, horizontal: true, value: (d) => d.a, width: 9 });
    bars(svg, 'be', data, { x: xe, y, horizontal: true, value: (d) => d.e, width: 9, shift: 11 });
    drawAll(svg, 'text', 'legend', ['weight (0 to 1)', 'change (0 to the largest)'], {
      class: (d, i) => `legend legend-${i}`,
      x: (d, i) => left + i * 110,
      y: words.length * rowH + 18,
    }).text((d) => d);
  }

  exportTable() {
    if (!this.#last) return super.exportTable();
    const { words, weights, effects, layer, qi } = this.#last;
    // The changes are held on screen until the answer: before it the CSV leaves them out too.
    const change = this.answerIsShown ? ['change'] : [];
    return {
      columns: ['layer', 'query', 'key', 'key_word', 'weight', ...change],
      rows: words.map((w, j) => [layer, qi + 1, j + 1, w, weights[j], ...(change.length ? [effects[j]] : [])]),
    };
  }
}

defineWidget('ag-weights-explain', AgWeightsExplain);
