// "Softcap: tanh bends the large scores" (#ch-softcap, <ag-softcap>): the raw and capped scores of the row, the
// weights without and with the cap, the weight left for keys 2 to 6, the entropies, the leads and the cap's slope
// against the float64 reference after the sliders, the mask and links; the curve's 129 capped scores; a masked key
// keeps weight exactly 0 under the cap.
import { expect } from '@jest/globals';
import { attentionSlice, clog2, entropyBits, softcap } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, one, U } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';
import { HIDDEN, T, keysOf, spanOf } from '../../web/models/softcap.js';

const DEFAULT = { c: 10, s1: 20, masked: false };
/** The registry's bound on the cap: one tanhf (3u) with its division and product, at most 6cu on a score. */
const capTol = (c) => 6 * c * U;
/** ag.dot's pairwise bound on n terms, relative to the sum of |products|. */
const dotTol = (n) => (2 * clog2(n) + 2) * U;

/** The weights of a row of float64 scores (scale 1, q = 1), with their relative bound eRow (attentionSlice). */
function weightsOf(scores, masked) {
  const maskAt = (_i, j) => (masked && HIDDEN.includes(j) ? -Infinity : 0);
  const { A, eRow } = attentionSlice([1], scores, new Array(T).fill(1), 1, T, 1, 1, { scale: 1, maskAt });
  return { A, e: eRow[0] };
}

/** The entropy in bits of weights A (relative error e each), within the kernel's bound plus e's effect. */
function expectEntropy(shown, { A, e }, what) {
  const terms = A.filter((p) => p > 0);
  const kernel = (2 * clog2(T) + 6) * U * terms.reduce((s, p) => s + Math.abs(p * Math.log2(p)), 0);
  const carried = e * terms.reduce((s, p) => s + p * Math.abs(Math.log2(p) + 1 / Math.LN2), 0);
  expectClose(shown, entropyBits(A), kernel + carried + 1e-12, what);
}

function match(numbers, { c, s1, masked }) {
  const s = keysOf(s1).map(([v]) => v);
  const capped = s.map((v) => softcap(v, c));
  for (const role of ['score', 'capped', 'weight', 'capped-weight']) expect(byRole(numbers, role)).toHaveLength(T);
  byRole(numbers, 'score').forEach((n, j) => expect(n.value).toBe(s[j])); // q = 1, scale 1: s_j exactly
  byRole(numbers, 'capped').forEach((n, j) => expectClose(n.value, capped[j], capTol(c), `capped ${j + 1}`));
  const plain = weightsOf(s, masked);
  // The capped row: the softmax's bound on float64 capped scores, plus twice the cap's error on a score.
  const cap = weightsOf(capped, masked);
  cap.e += 2 * capTol(c);
  for (const [role, ref] of Object.entries({ weight: plain, 'capped-weight': cap }))
    byRole(numbers, role).forEach((n, j) => {
      if (masked && HIDDEN.includes(j))
        expect(n.value).toBe(0); // -inf after the cap: exp gives exactly 0
      else expectClose(n.value, ref.A[j], ref.A[j] * ref.e + 2 ** -149, `${role} ${j + 1}`);
    });
  for (const [key, ref] of Object.entries({ plain, capped: cap })) {
    const left = ref.A.slice(1).reduce((a, b) => a + b);
    expectClose(one(numbers, 'others', key).value, left, left * (ref.e + dotTol(T)) + 2 ** -149, `others ${key}`);
    expectEntropy(one(numbers, 'entropy', key).value, ref, `entropy ${key}`);
  }
  expect(one(numbers, 'lead', 'plain').value).toBe(s1 + 1); // integers: exact
  const lead = capped[0] - capped[5];
  expectClose(one(numbers, 'lead', 'capped').value, lead, 2 * capTol(c) + U * lead, 'capped lead');
  expect(lead).toBeLessThan(2 * c);
  // 1 − tanh²(x), x = s₁/c, as 4σ(2z)σ(−2z) from the softmax of (z, −z), z = fl(x): each weight within
  // 2·4u (exp) + 5u (sum and 1/s) + 4|z|u (the shift), the product one more u, and z's rounding 2|x|u more.
  const x = s1 / c;
  const slope = Math.cosh(x) ** -2;
  expectClose(one(numbers, 'slope').value, slope, (27 + 10 * x) * U * slope + 16 * 2 ** -149, 'slope');
  return { plain, cap };
}

const it = chapterTests({ ch: 'softcap', tag: 'ag-softcap', match });

/** The curve of the JSON export: 129 scores over [−L, L], each capped score within the cap's bound and logged. */
async function expectCurve(w, c, s1) {
  const { curve } = await exportJson(w.page, w.tag);
  const span = spanOf(c, s1);
  expect([curve.c, curve.span, curve.s.length, curve.s[0], curve.s[128]]).toEqual([c, span, 129, -span, span]);
  curve.capped.forEach((v, i) => expectClose(v, softcap(curve.s[i], c), capTol(c), `curve ${i}`));
  await w.inLog(curve.capped, 'scores.data');
}

it('opens on c = 10, s₁ = 20; predict, then reveal: with c = 5 key 1 still keeps above 0.9', async (w) => {
  const { numbers } = await w.matches(DEFAULT);
  expect(one(numbers, 'weight', 1).text).toBe('1.0000');
  expect(await w.katex()).toBeGreaterThanOrEqual(4);
  await expectCurve(w, 10, 20);
  const state = { c: 5, s1: 40, masked: false };
  const { numbers: revealed } = await w.reveal({ wrong: 'even', says: /keeps a\u2081 = 0\.959/, state, right: 'most' });
  expect(one(revealed, 'capped-weight', 1).value).toBeGreaterThan(0.9);
});

it('the sliders: c steps through its values, s₁ by one; the live region says what changed; the link reopens it', async (w) => {
  await w.press('#sc-s1', 'ArrowRight', 3);
  await w.press('#sc-c', 'ArrowLeft', 2);
  const state = { c: 5, s1: 23, masked: false };
  const { numbers } = await w.matchesAt(state, state);
  await w.announced(`c = 5, s\u2081 = 23: key 1 weighs ${one(numbers, 'capped-weight', 1).text} capped`);
  await expectCurve(w, 5, 23); // L = 30: s₁ past 3c widens the curve
  await w.reopens(numbers, { params: { c: '5', s1: '23' } });
});

it('the mask hides keys 5 and 6: weight exactly 0, capped or not; c = 1 and s₁ = 50 run past float32', async (w) => {
  await w.at('#sc-masked').check();
  const state = { ...DEFAULT, masked: true };
  const { numbers } = await w.matchesAt(state, state);
  await w.announced(`keys 5 and 6 masked: key 1 weighs ${one(numbers, 'capped-weight', 1).text} capped`);
  for (const role of ['weight', 'capped-weight'])
    expect(
      byRole(numbers, role)
        .slice(4)
        .map((n) => n.value),
    ).toEqual([0, 0]);
  await w.see({ '[data-role="verdict"]': /mask is added after the cap/, '.key-dot.is-hidden': 2 });
  const edge = { c: 1, s1: 50, masked: true };
  await w.link('c=1&s1=50&masked=1', edge, { state: edge }, (z, shown) => {
    expect(one(shown, 'slope').text).toMatch(/^below 10/); // σ(−100) is subnormal in float32
    return z.see({ '[data-role="verdict"]': { visible: true } });
  });
  await w.at('button[data-preset="gemma"]').click();
  await w.matchesAt({ c: 50, s1: 40 }, { c: 50, s1: 40, masked: true });
  await w.logged();
});
