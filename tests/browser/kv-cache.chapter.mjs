// "The KV cache" (#ch-kv-cache, <ag-kv-cache>): the decode step by step. At each step t the cache holds the keys
// and values of tokens 1..t (the inputs, copied exactly), the weights of q_t over them and y_t against the float64
// reference (tests/reference/float64.mjs attentionSlice, causal, row t); row t of the causal pass over tokens 1..t
// is the same floats as the cached step, in every implementation of the menu; the scores each step needs, t and
// t(t + 1)/2, and their sums over steps 1..t; the step controls (Next token, Start over, the slider's keys).
import { expect } from '@jest/globals';
import { attentionSlice } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, one } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';
import { K, Q, T, V } from '../../web/models/kv-cache.js';

const D = 2;
const SCALE = Math.fround(Math.SQRT1_2); // the API's default scale 1/sqrt(d_k), rounded to float32

/** The float64 reference of step t: causal attention over tokens 1..t, its row t (weights, y and their bounds). */
function reference(t) {
  const r = attentionSlice(Q.slice(0, t).flat(), K.slice(0, t).flat(), V.slice(0, t).flat(), t, t, D, D, {
    scale: SCALE,
    causal: true,
  });
  const i = t - 1;
  return {
    A: r.A.slice(i * t, (i + 1) * t),
    eRow: r.eRow[i],
    Y: r.Y.slice(i * D, (i + 1) * D),
    bound: r.bound.slice(i * D, (i + 1) * D),
  };
}

function match(numbers, { t }) {
  const ref = reference(t);
  // The cache is the inputs themselves: presentKey and presentValue copy every k and v exactly.
  const rows = (role) =>
    Array.from({ length: t }, (_, j) => [1, 2].map((c) => one(numbers, role, `${j + 1}-${c}`).value));
  expect(rows('k')).toEqual(K.slice(0, t));
  expect(rows('v')).toEqual(V.slice(0, t));
  expect(numbers.filter((n) => n.role === 'k' || n.role === 'v')).toHaveLength(2 * D * t); // no row of a later token
  const weights = byRole(numbers, 'weight');
  expect(weights).toHaveLength(t);
  // Each weight within its row's relative bound eRow (attentionSlice: the scores' error twice, the exp, the sum).
  weights.forEach((n, j) => expectClose(n.value, ref.A[j], ref.A[j] * ref.eRow + 2 ** -149, `a${t}${j + 1}`));
  // y_t within the materialized path's bound (attentionSlice: the weights' error and the pairwise mix of t values).
  const [y, yFull] = ['y', 'y-full'].map((role) => byRole(numbers, role).map((n) => n.value));
  y.forEach((v, c) => expectClose(v, ref.Y[c], ref.bound[c], `y${t}[${c + 1}]`));
  expect(yFull).toEqual(y); // row t of the causal pass: the same floats
  // The scores each step needs: one query against t keys, or every query i against its i keys.
  const count = Object.fromEntries(
    ['scores-cached', 'scores-full', 'sum-cached', 'sum-full'].map((role) => [role, one(numbers, role).value]),
  );
  expect(count).toEqual({
    'scores-cached': t,
    'scores-full': (t * (t + 1)) / 2,
    'sum-cached': (t * (t + 1)) / 2,
    'sum-full': (t * (t + 1) * (t + 2)) / 6,
  });
  return ref;
}

const it = chapterTests({ ch: 'kv-cache', tag: 'ag-kv-cache', match });

it('opens at step 4: the cache of four rows, its weights and y₄ against float64, the same as row 4 recomputed; predict, then reveal step 5', async (w) => {
  await w.matches({ t: 4 });
  await w.see({ '[data-role="verdict"]': /^The same floats, bit for bit\./, 'tbody tr.is-current th': '4 on' });
  expect(await w.katex()).toBeGreaterThanOrEqual(4);
  await w.reveal({ wrong: 'differ', says: /the same floats, bit for bit/, state: { t: 5 }, right: 'bits' });
});

it('Next token grows the cache to step 8 (36 scores against 120), hands the focus to Start over; the slider keys step; the link reopens', async (w) => {
  for (let t = 5; t <= T; t += 1) {
    await w.at('[data-action="next"]').click();
    expect(await w.state()).toEqual({ t });
  }
  await w.matches({ t: T });
  await w.see({ '[data-action="next"]': { disabled: true } });
  expect(await w.at('[data-action="restart"]').evaluate((el) => el.getRootNode().activeElement === el)).toBe(true);
  await w.at('[data-action="restart"]').click();
  expect(await w.state()).toEqual({ t: 1 });
  await w.matches({ t: 1 });
  await w.keys('#kv-t', ['ArrowRight', { t: 2 }], ['ArrowRight', { t: 3 }]);
  const { numbers } = await w.matches({ t: 3 });
  await w.announced(`step 3, \u201csat\u201d: y\u2083 = (${one(numbers, 'y', 1).text}, ${one(numbers, 'y', 2).text})`);
  await w.reopens(numbers, { params: { t: '3' } });
});

/** In the page: the widget `el` at each step 1..n (its state set as a link sets it), its verdict and numbers. */
function everyStep(el, n) {
  return Array.from({ length: n }, (_, i) => {
    el.stateText = `v=1&t=${i + 1}`;
    const shown = [...el.shadowRoot.querySelectorAll('[data-value]')];
    return {
      verdict: el.shadowRoot.querySelector('[data-role="verdict"]').textContent,
      numbers: shown.map((x) => ({ role: x.dataset.role, key: x.dataset.key ?? null, value: Number(x.dataset.value) })),
    };
  });
}

it('every step in every implementation of the menu against float64, row t recomputed the same floats; the counts exported', async (w) => {
  for (const id of ['scalar', 'baseline', 'simd128']) {
    await w.implementation(id);
    const steps = await w.eval(everyStep, T);
    steps.forEach(({ verdict, numbers }, i) => {
      match(numbers, { t: i + 1 });
      expect(verdict).toMatch(/^The same floats, bit for bit\. Without weights .* equal bit for bit too\./);
    });
  }
  const json = await exportJson(w.page, w.tag);
  const steps = Array.from({ length: T }, (_, i) => i + 1);
  expect(json.scoresPerStep).toEqual({ cached: steps, recomputed: steps.map((t) => (t * (t + 1)) / 2) });
  expect(Object.keys(json.numbers).filter((name) => /^k\./.test(name))).toHaveLength(D * T);
  await w.logged();
});
