// "Rotary positions as rotations" (#ch-rope, <ag-rope>): q and k turned to positions m and n (and both moved
// on by s) against a float64 rotation (tests/reference/float64.mjs rope), the score's invariance when both move,
// and the long-range decay's 257 scores against the float64 reference for each base.
import { expect } from '@jest/globals';
import { dot, rope } from '../reference/float64.mjs';
import { chapterTests, expectClose, expectNumbers, expectTexts, one, U } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';

const DEFAULT = { q: [3, 1], k: [1, 2], m: 2, n: 5, s: 0, base: '10000', r: 40 };
const [D, T] = [64, 256];

/** v (2-D) turned to position `at`: one pair, θ = base⁰ = 1 rad per position. */
const turn = (v, at) => Array.from(rope(v, [at], 1, 1, 2).y);

/** q₀·k_r for r = 0..T with q = k = (1, ..., 1) in d = 64, base `base` (float64), kept per base. */
const decays = new Map();
function decay(base) {
  if (!decays.has(base)) {
    const { y } = rope(new Array((T + 1) * D).fill(1), [...Array(T + 1).keys()], 1, T + 1, D, { base: Number(base) });
    decays.set(
      base,
      Array.from({ length: T + 1 }, (_, r) => y.slice(r * D, (r + 1) * D).reduce((a, b) => a + b)),
    );
  }
  return decays.get(base);
}
/**
 * A decay score: each key entry is within rope's 4u(|x_a| + |x_b|) = 8u of its turn (|x| = 1), d of them are
 * summed; the float32 sum of d terms of size at most 1 adds at most (d - 1)u per term: (8d + d²)u in all.
 */
const DECAY_TOL = (8 * D + D * D) * U;

/**
 * Every number shown against the float64 rotation. A turned entry is within rope's 4u(|v_a| + |v_b|); a score
 * of two turned vectors adds those errors times the other vector's entries (each at most |v|₁) and the 2-term
 * dot's 2u|q||k|: 12u|q|₁|k|₁ bounds it. The difference of two such scores is 0 exactly in real arithmetic.
 */
function match(numbers, { q, k, m, n, s, base, r }) {
  const [l1q, l1k] = [Math.abs(q[0]) + Math.abs(q[1]), Math.abs(k[0]) + Math.abs(k[1])];
  const tol = 12 * U * l1q * l1k + 1e-12;
  const [qms, kns] = [turn(q, m + s), turn(k, n + s)];
  expectNumbers(numbers, [
    ...qms.map((c, i) => ['q-turned', i + 1, c, 4 * U * l1q + 1e-12]),
    ...kns.map((c, i) => ['k-turned', i + 1, c, 4 * U * l1k + 1e-12]),
    ['plain-score', null, dot(q, k), 2 * U * l1q * l1k],
    ['score', null, dot(turn(q, m), turn(k, n)), tol],
    ['moved-score', null, dot(qms, kns), tol],
    ['relative-score', null, dot(q, turn(k, n - m)), tol],
    ['difference', null, 0, 2 * tol + 1e-12, false],
    ['decay', 0, D, 0],
    ['decay-r', null, decay(base)[r], DECAY_TOL],
  ]);
}

const it = chapterTests({ ch: 'rope', tag: 'ag-rope', match });

it('opens on q = (3, 1) at 2 and k = (1, 2) at 5: q₂·k₅ = q·R(3θ)k; predict, then reveal: moving both by 10 keeps the score', async (w) => {
  const { numbers } = await w.matches(DEFAULT);
  expectTexts(numbers, { 'plain-score': '5', 'decay.0': '64', difference: '0' });
  expect(await w.katex()).toBeGreaterThan(0);
  const state = { ...DEFAULT, s: 10 };
  await w.reveal({ wrong: 'larger', right: 'same', says: /q\u2081\u2082\u00b7k\u2081\u2085 = /, state });
});

it('moving both positions by s (the slider, then links up to position 128) keeps the score within float32 rounding', async (w) => {
  await w.press('#rope-s', 'ArrowRight', 3);
  const { numbers } = await w.matchesAt({ s: 3 }, { ...DEFAULT, s: 3 });
  await w.announced(`s = 3; score ${one(numbers, 'moved-score').text}`);
  for (const link of ['q=-4,2.5&k=3.5,-1&m=64&n=0&s=64', 'q=0.25,-4&k=-2,-2&m=7&n=40&s=50']) {
    const state = { ...DEFAULT, ...Object.fromEntries(new URLSearchParams(link)) };
    for (const name of ['q', 'k']) state[name] = state[name].split(',').map(Number);
    for (const name of ['m', 'n', 's']) state[name] = Number(state[name]);
    // Both scores are the same turn of the angle between q and k: they differ by rounding only (two scores'
    // bounds, 12u|q|_1|k|_1 each, with |q|_1, |k|_1 <= 8).
    await w.link(link, state, { state }, (_z, shown) =>
      expectClose(one(shown, 'moved-score').value, one(shown, 'score').value, 24 * U * 8 * 8, 'moved against before'),
    );
  }
  await w.params({ m: '7', n: '40', s: '50' });
});

it('the decay: all 257 scores for bases 10,000, 100 and 500,000 against float64, each a logged result; the keys read one', async (w) => {
  for (const base of ['10000', '100', '500000']) {
    if (base === '100') await w.at(`input[name="rope-base"][value="${base}"]`).check(); // a click
    if (base === '500000') await w.set(`base=${base}`); // a link
    const json = await exportJson(w.page, w.tag);
    expect([json.state.base, json.decay.d, json.decay.base]).toEqual([base, D, Number(base)]);
    expect(json.decay.scores).toHaveLength(T + 1);
    const ref = decay(base);
    json.decay.scores.forEach((v, r) => expectClose(v, ref[r], DECAY_TOL, `q0.k${r} (base ${base})`));
    await w.inLog(json.decay.scores, 'data');
  }
  await w.keys('svg.plot', ['End', { r: T }], ['ArrowLeft', { r: T - 1 }], ['PageDown', { r: T - 4 }]);
  await w.matches({ ...DEFAULT, base: '500000', r: T - 4 });
  await w.announced(`offset ${T - 4}: score`);
  await w.logged();
});
