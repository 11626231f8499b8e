// "Online softmax, tile by tile" (#ch-online-softmax, <ag-online-softmax>): every number of a step (the tile's
// scores, its max, m before and after, the correction c, l and O) and the outputs (streaming O / l, the two-pass
// softmax(s)·V and their difference) against the float64 online softmax (tests/reference/float64.mjs
// onlineSoftmax, which states the bounds) after the step slider's keys, the tile choice and links; the bars
// are the keys seen so far, outlined where m grew.
import { expect } from '@jest/globals';
import { attentionSlice, onlineSoftmax } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, one } from './chapter-tests.mjs';
import { exportJson } from './helpers.mjs';
import { K, V } from '../../web/models/online-softmax.js';

const SCALE = Math.fround(1 / Math.sqrt(2)); // the API's default 1/sqrt(d_k), rounded to float32
const DEFAULT = { q: [2, 1], tile: '4', step: 1 };
const [Kf, Vf] = [K.flat(), V.flat()];

/** The reference of both variants' bounds (the page may run either): the larger bound of each number. */
function reference({ q, tile }) {
  const [a, b] = ['scalar', 'simd128'].map((variant) =>
    onlineSoftmax(q, Kf, Vf, 1, 12, 2, 2, { scale: SCALE, tileKeys: Number(tile), variant }),
  );
  const grid = ['scalar', 'simd128'].map((variant) =>
    attentionSlice(q, Kf, Vf, 1, 12, 2, 2, { scale: SCALE, variant }),
  );
  const steps = a.steps.map((s, x) => {
    const o = b.steps[x];
    const oBound = s.oBound.map((v, c) => Math.max(v, o.oBound[c]));
    return {
      ...s,
      mBound: Math.max(s.mBound, o.mBound),
      cBound: Math.max(s.cBound, o.cBound),
      lBound: Math.max(s.lBound, o.lBound),
      oBound,
    };
  });
  const yBound = Array.from(a.yBound, (v, c) => Math.max(v, b.yBound[c]));
  const gBound = grid[0].bound.map((v, c) => Math.max(v, grid[1].bound[c]));
  return { steps, Y: a.Y, yBound, Z: grid[0].Y, gBound, S: grid[0].S };
}

/** A number of the step within `tol` of `want` (−∞ exactly). */
const near = (n, want, tol, what) =>
  want === -Infinity ? expect(n.value).toBe(-Infinity) : expectClose(n.value, want, tol, what);

function match(numbers, state) {
  const ref = reference(state);
  const st = ref.steps[Math.min(state.step, ref.steps.length) - 1];
  byRole(numbers, 'tile-score')
    .slice(0, st.count)
    .forEach((n, k) => near(n, ref.S[st.start + k], st.mBound, `s${st.start + k + 1}`));
  near(one(numbers, 'tile-max'), st.tileMax, st.mBound, 'tile max');
  near(one(numbers, 'm-before'), st.mPrev, st.mBound, 'm before');
  near(one(numbers, 'm'), st.m, st.mBound, 'm');
  if (st.correction === 1)
    expect(one(numbers, 'correction').value).toBe(1); // no correction: exactly 1
  else expectClose(one(numbers, 'correction').value, st.correction, st.cBound * st.correction, 'c');
  expectClose(one(numbers, 'l').value, st.l, st.lBound * st.l, 'l');
  byRole(numbers, 'O').forEach((n, c) => expectClose(n.value, st.O[c], st.oBound[c], `O${c + 1}`));
  const [y, z, d] = ['y', 'two-pass', 'difference'].map((role) => byRole(numbers, role).map((n) => n.value));
  y.forEach((v, c) => expectClose(v, ref.Y[c], ref.yBound[c], `y${c + 1}`));
  z.forEach((v, c) => expectClose(v, ref.Z[c], ref.gBound[c], `two-pass ${c + 1}`));
  // ag.dot([y, z], [1, -1]) is y - z, exact for floats this close (Sterbenz); each path within its bound.
  d.forEach((v, c) => expect(v).toBe(y[c] - z[c]));
  d.forEach((v, c) => expectClose(v, 0, ref.yBound[c] + ref.gBound[c], `difference ${c + 1}`));
  return st;
}

const it = chapterTests({ ch: 'online-softmax', tag: 'ag-online-softmax', match });

it('opens on tiles of 4 at tile 1 (no correction, l >= 1); predict, then reveal: tile 3 shrinks l and O by c < 1', async (w) => {
  const { ref } = await w.matches(DEFAULT);
  expect([ref.mPrev, ref.correction]).toEqual([-Infinity, 1]);
  expect(await w.katex()).toBeGreaterThanOrEqual(5);
  const state = { ...DEFAULT, step: 3 };
  const revealed = await w.reveal({ wrong: 'add', says: /multiplied by c = exp/, state, right: 'shrink' });
  expect(revealed.ref.correction).toBeLessThan(1);
  await w.see({ 'rect.bar': 12, 'rect.before': 8, '.c-note': /m grew/ });
});

it('the step slider by keys: tile 2 keeps m (c = 1), tile 3 raises it; the announcement reads m, c and l', async (w) => {
  await w.keys('#os-step', ['ArrowRight', { step: 2 }]);
  const { numbers, ref } = await w.matches({ ...DEFAULT, step: 2 });
  expect(ref.correction).toBe(1);
  await w.announced(`tile 2: m = ${one(numbers, 'm').text}, c = 1, l = ${one(numbers, 'l').text}`);
  await w.see({ 'rect.bar': 8, 'rect.before': 0, '.c-note': /m kept/ });
  await w.keys('#os-step', ['End', { step: 3 }]);
  await w.matches({ ...DEFAULT, step: 3 });
});

it('tiles of 2, 3 and 6 by the radio and links, then 4 with only its scores exported; q = 0 makes every score 0 and l the count of keys seen', async (w) => {
  await w.at('input[name="os-tile"][value="2"]').check();
  await w.keys('#os-step', ['End', { step: 6 }]);
  await w.matches({ ...DEFAULT, tile: '2', step: 6 });
  for (const [link, state] of [
    ['q=0.5,2&tile=3&step=3', { q: [0.5, 2], tile: '3', step: 3 }],
    ['q=-3,0.25&tile=6&step=2', { q: [-3, 0.25], tile: '6', step: 2 }],
  ])
    await w.link(link, state, { state });
  // Tiles of 4 from tile 2 of 6-key tiles: tile 2 of 3 (keys 5 to 8); the exports hold its four scores only.
  await w.at('input[name="os-tile"][value="4"]').check();
  await w.matchesAt({ tile: '4', step: 2 }, { q: [-3, 0.25], tile: '4', step: 2 });
  const { numbers } = await exportJson(w.page, w.tag);
  expect(Object.keys(numbers).filter((name) => name.startsWith('tile-score.'))).toEqual(
    [1, 2, 3, 4].map((k) => `tile-score.${k}`),
  );
  await w.link('q=0,0&tile=3&step=4', { q: [0, 0], tile: '3', step: 4 }, {}, (_z, shown) => {
    // Every exp(0 - 0) is exactly 1: l counts the keys, O sums the values, exactly (small integers).
    expect([one(shown, 'l').value, one(shown, 'correction').value]).toEqual([12, 1]);
    expect(byRole(shown, 'O').map((n) => n.value + 0)).toEqual([0, 0]);
  });
  await w.reopens(await w.read(), { params: { q: '0,0', tile: '3', step: '4' } });
});
