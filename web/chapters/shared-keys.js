// <ag-shared-keys>: part 3, "Sharing keys: MHA → GQA → MQA". Four query heads
// of d_k = 2 take one decoding step over T = 5 tokens. With h_kv = 4 every
// query head has its own keys and values (multi-head attention); with h_kv = 2
// the heads of each group are averaged into one that two query heads share
// (grouped-query attention), with h_kv = 1 into one for all (multi-query
// attention). Query head i reads key/value head ⌈i·h_kv/h_q⌉, in place: the
// same weights and outputs, bit for bit, as a second call given a copy per
// query head; the cache the step returns (presentKey, presentValue) is h_q/h_kv
// times smaller. Numbers: ag.matmul (the averaged heads), ag.attention (the
// step with pastKey and pastValue: weights, outputs, the cache; and the step
// with copies). Sources: Shazeer 2019, "Fast Transformer Decoding: One Write-
// Head is All You Need" (MQA); Ainslie et al. 2023, "GQA" (§2.1: averaging the
// heads of a group; §2.2: grouped-query attention); Touvron et al. 2023,
// Llama 2 (§2.2 and Table 1: 70B uses GQA; 8 key/value heads in its released
// configuration).
//
//   <ag-shared-keys kv="2" head="3"></ag-shared-keys>
import { AgWidget, defineWidget } from '../widget/base.js';
import { columns, lbl, line, nums } from '../widget/controls.js';
import { gridRows } from '../widget/export-rows.js';
import { fieldChoice } from '../widget/field-controls.js';
import { sources } from '../widget/chapter-notes.js';
import { h, setText } from '../widget/dom.js';
import { formatNumber, shapeText, sub } from '../widget/format.js';
import { WEIGHTS, queryKeyMap } from '../widget/heatmap.js';
import { formulas } from '../widget/math.js';
import { keptResults } from '../widget/memo.js';
import { choices } from '../widget/predict.js';
import { choice, defineState, matrix, number } from '../widget/state.js';
import { showIf, vectorFigure } from '../widget/vector-figure.js';
import { D, H_Q, K, KV_HEADS, Q, T, V, decodeStep, groupOf, headRows, headsOf } from '../models/shared-keys.js';
import { poolMatrix, queries } from '../models/shared-keys.js';

/** The queries stay within ±LIMIT, the plane's extent. */
const LIMIT = 3;
const NAMES = { 4: 'Multi-head', 2: 'Grouped-query', 1: 'Multi-query' };
const SHORT = { 4: 'MHA', 2: 'GQA', 1: 'MQA' };
/** How many times the cache with a copy per query head holds the shared one's numbers, h_q/h_kv, in words. */
const TIMES = { 2: 'twice', 1: 'four times' };
const list = (xs) => xs.join(', ');
/** The answers of the prediction: do two query heads that share a key/value head weigh its keys alike? */
const ANSWERS = choices({ same: 'Yes: the same keys give the same weights', differ: 'No: they still differ' });

/** h_kv, the query head whose group the plane shows, the four queries. */
const STATE = defineState({
  version: 1,
  fields: {
    kv: choice({ values: KV_HEADS, default: '4' }),
    head: number({ min: 1, max: H_Q, integer: true, default: 1 }),
    q: matrix({ rows: H_Q, cols: D, min: -LIMIT, max: LIMIT, default: Q }),
  },
});

export class AgSharedKeys extends AgWidget {
  static title = 'Sharing keys: MHA, GQA, MQA';
  static styles = ['styles/heatmap.css', 'styles/shared-keys.css'];
  static stateDecl = STATE;

  #ui = null;
  #last = null;
  #pooled = keptResults(3);

  build(body) {
    const predict = this.predict({
      id: 'shared-pair',
      question:
        'Switch to h_kv = 2: query heads 1 and 2 then read one and the same key/value head. Are the weights of head 1 and head 2 the same?',
      choices: ANSWERS,
      misconceptions: {
        same: 'That reads shared keys as shared weights: a weight comes from q\u00b7k, and each query head has its own query, so the same keys give the two heads different scores.',
      },
      reveal: (_choice, ag) => {
        this.setState({ kv: '2', head: 1 });
        const { weights } = this.#step(ag, this.state).r;
        const [a, b] = [weights.data.subarray(0, T), weights.data.subarray(T, 2 * T)];
        const row = (w) => Array.from(w, (x) => formatNumber(x, 2)).join(', ');
        return {
          answer: a.every((x, j) => Object.is(x, b[j])) ? 'same' : 'differ',
          explanation: `The module computed head 1\u2019s weights (${row(a)}) and head 2\u2019s (${row(b)}) over the same five keys. The keys are shared, the queries are not: q\u2081 and q\u2082 point different ways, so their scores q\u00b7k, and the softmax of them, differ.`,
        };
      },
    });
    const kv = fieldChoice(this, 'kv', KV_HEADS, {
      label: 'Key/value heads',
      lead: 'Key/value heads h_kv:',
      optionData: true,
      text: (v) => `${v} (${SHORT[v]})`,
    });
    const groups = h('p', { class: 'groups', dataset: { role: 'groups' } });

    const fig = vectorFigure(this, {
      extent: LIMIT,
      label:
        'The keys of one key/value head and the queries of the heads that read it; drag a query tip or use the arrow keys',
      markers: 'sk-arrow',
    });
    const ui = { kv, groups, fig, keys: [], q: [], qHandles: [] };
    for (let j = 0; j < T; j += 1)
      ui.keys.push(
        fig.arrow(`k${j + 1}`, {
          text: `k${sub(j + 1)}`,
          marker: 'k',
          className: 'vec vec-k',
          labelClass: 'vec-label label-k',
        }),
      );
    const say = () => `y = (${ui.y[0].textContent}, ${ui.y[1].textContent})`;
    for (let i = 0; i < H_Q; i += 1) {
      const name = `q${i + 1}`;
      const title = `q${sub(i + 1)}`;
      ui.q.push(fig.arrow(name, { text: title, marker: 'q', className: 'vec vec-q', labelClass: 'vec-label label-q' }));
      ui.qHandles.push(
        fig.handle(name, {
          title,
          className: 'handle-q',
          get: () => this.state.q[i],
          set: (v) => this.#setQuery(i, v),
          say,
        }),
      );
    }
    ui.figTitle = h('h3', {});

    const box = h('div', { class: 'grid-box' });
    ui.map = queryKeyMap(this, box, {
      queries: H_Q,
      keys: T,
      label: 'Weights of each query head over the keys it reads; press Enter on a cell to show its head',
      role: 'weight',
      ...WEIGHTS,
      format: (v) => formatNumber(v, 2),
      describe: (i, j, text) => `head ${i + 1}, key ${j + 1}: ${text}`,
      onActivate: (i) => this.setState({ head: i + 1 }),
    });
    ui.y = nums('y', D);
    ui.yLabel = lbl('');
    ui.same = h('p', { class: 'same', dataset: { role: 'same' } });
    ui.cache = h('p', { class: 'cache', dataset: { role: 'cache' } });
    ui.copies = h('p', { class: 'cache', dataset: { role: 'copies' } });

    body.append(
      predict,
      h('div', { class: 'controls' }, kv.element),
      groups,
      h(
        'p',
        {},
        'Query head i reads key/value head g(i), heads numbered from 1 (the API numbers them from 0: head i reads \u230ai\u00b7h_kv/h_q\u230b); a kept head is the average of its group\u2019s heads (V likewise):',
      ),
      formulas('g(i)=\\left\\lceil i\\,h_{kv}/h_q\\right\\rceil', 'K_g=\\frac{h_{kv}}{h_q}\\sum_{g(i)=g}K_i'),
      columns(
        [ui.figTitle, fig.element],
        [h('h3', {}, 'Weights of every query head'), box, line(ui.yLabel, '(', ui.y[0], ', ', ui.y[1], ')'), ui.same],
        { stackEarly: true },
      ),
      h(
        'section',
        { class: 'memory', 'aria-label': 'What the decoder keeps' },
        h('h3', {}, 'What the decoder keeps'),
        ui.cache,
        ui.copies,
        h('p', {}, 'Per token and layer, K and V of h_kv heads instead of h_q:'),
        formulas('2\\,h_{kv}\\,d_k\\ \\text{numbers, not}\\ 2\\,h_q\\,d_k'),
        h(
          'p',
          { class: 'llama' },
          'Llama 2 70B has 64 query heads of d_k = 128 in each of its 80 layers, and 8 key/value heads: its cache is 64/8 = 8 times smaller than with a key/value head per query head (Touvron et al. 2023, \u00a72.2 and Table 1; the counts of heads and layers from the released configuration).',
        ),
      ),
      sources(
        'Sources: Shazeer 2019, \u201cFast Transformer Decoding: One Write-Head is All You Need\u201d (multi-query attention); Ainslie et al. 2023, \u201cGQA\u201d (\u00a72.1: a group\u2019s heads averaged into one; \u00a72.2: grouped-query attention).',
      ),
    );
    this.#ui = ui;
  }

  #setQuery(i, v) {
    const q = this.state.q;
    q[i] = v;
    this.setState({ q, head: i + 1 });
  }

  syncControls({ kv, head }) {
    const ui = this.#ui;
    const hkv = Number(kv);
    ui.kv.set(kv);
    const mapping = Array.from({ length: hkv }, (_, g) => `${list(headsOf(g + 1, hkv))} \u2192 K/V head ${g + 1}`);
    setText(ui.groups, `${NAMES[kv]} attention (${SHORT[kv]}): query heads ${mapping.join('; ')}.`);
    const g = groupOf(head, hkv);
    const mine = headsOf(g, hkv);
    setText(ui.figTitle, `K/V head ${g} and the query heads that read it: ${list(mine.map((i) => `q${sub(i)}`))}`);
    setText(ui.yLabel, `Output of head ${head}: y${sub(head)} = `);
  }

  /** The key/value heads kept ([h_kv, T·D] each: the average of each group's heads) and the step's two calls. */
  #step(ag, { kv, q }) {
    const hkv = Number(kv);
    const { keys, values } = this.#pooled(ag, kv, () => ({
      keys: ag.matmul(poolMatrix(hkv), headRows(K)).data,
      values: ag.matmul(poolMatrix(hkv), headRows(V)).data,
    }));
    const run = (copies) => {
      const [k, v] = [decodeStep(keys, hkv, copies), decodeStep(values, hkv, copies)];
      return ag.attention(queries(q), k.now, v.now, { pastKey: k.past, pastValue: v.past, returnWeights: true });
    };
    return { hkv, keys, r: run(false), copies: run(true) };
  }

  render(ag, state) {
    const ui = this.#ui;
    const { hkv, keys, r, copies } = this.#step(ag, state);
    const i = state.head - 1;
    ui.map.update(
      Array.from({ length: H_Q }, (_, k) => r.weights.data.subarray(k * T, (k + 1) * T)),
      { selected: [i, 0] },
    );
    ui.y.forEach((el, c) => this.show(el, r.output.data[i * D + c]));
    const same = ['weights', 'output'].every((name) =>
      r[name].data.every((x, at) => Object.is(x, copies[name].data[at])),
    );
    setText(
      ui.same,
      same
        ? `attention given a copy of K and V for every query head (${shapeText(copies.presentKey.shape)}) gives the same weights and outputs, bit for bit.`
        : 'attention given a copy of K and V for every query head gives other weights or outputs.',
    );
    this.#cache(r, copies, hkv);
    this.#draw(state, keys, hkv);
    this.#last = { r, hkv };
  }

  /** The sizes of the cache this step returns, and of the one it would return with a copy per query head. */
  #cache(r, copies, hkv) {
    const ui = this.#ui;
    const count = (x) => x.presentKey.data.length + x.presentValue.data.length;
    const [kept, full] = [count(r), count(copies)];
    ui.cache.dataset.count = String(kept);
    ui.copies.dataset.count = String(full);
    setText(
      ui.cache,
      `After this step the cache holds presentKey and presentValue, ${shapeText(r.presentKey.shape)} each: ${kept} numbers for ${T} tokens, the keys and values of ${hkv} key/value head${hkv > 1 ? 's' : ''} of d_k = ${D} per token.`,
    );
    setText(
      ui.copies,
      hkv === H_Q
        ? `Every query head has its own key/value head: nothing is shared yet.`
        : `With a key/value head per query head it would hold ${shapeText(copies.presentKey.shape)} each: ${full} numbers, ${TIMES[hkv]} as many (h_q/h_kv = ${H_Q}/${hkv}).`,
    );
  }

  /** The keys of the shown head's group and the queries of the heads that read them. */
  #draw({ kv, head, q }, keys, hkv) {
    const ui = this.#ui;
    const g = groupOf(head, hkv) - 1;
    ui.keys.forEach((a, j) => a.draw(keys.subarray(g * T * D + j * D, g * T * D + (j + 1) * D)));
    ui.q.forEach((a, k) => {
      const on = groupOf(k + 1, hkv) - 1 === g;
      showIf(on, a.line, a.label);
      a.line.classed('is-current', k === head - 1);
      if (on) a.draw(q[k]);
      ui.qHandles[k].node.style.display = on ? '' : 'none';
      ui.qHandles[k].update();
    });
    ui.fig.svg.attr('data-kv', kv);
  }

  exportTable() {
    const { r, hkv } = this.#last ?? {};
    if (!r) return super.exportTable();
    const rows = gridRows(H_Q, T, (i, j) => [i + 1, groupOf(i + 1, hkv), j + 1, r.weights.data[i * T + j]]);
    return { columns: ['query_head', 'kv_head', 'key', 'weight'], rows };
  }
}

defineWidget('ag-shared-keys', AgSharedKeys);
