// "Orthogonality" (#ch-orthogonality, <ag-orthogonality>): scores, cosines, angles and weights of three
// keys, the snap button and E Eᵀ = I, against a float64 reference after drags, keys and links.
import { expect } from '@jest/globals';
import { angle, cosine, dot, softmax, sumAbsProd } from '../reference/float64.mjs';
import { angleRow, byRole, chapterTests, expectClose, expectNumbers, expectSeed } from './chapter-tests.mjs';
import { expectTexts, one, U } from './chapter-tests.mjs';

const START = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
const KEYS = ['k1', 'k2', 'k3'];

/** float64 reference: scores, cosines, angles and the softmax of the scores. */
function reference(state) {
  const { q } = state;
  const scores = KEYS.map((k) => dot(q, state[k]));
  return {
    scores,
    weights: softmax(scores, 1, scores.length),
    cos: KEYS.map((k) => cosine(q, state[k])),
    angle: KEYS.map((k) => angle(q, state[k])),
    magnitude: KEYS.map((k) => sumAbsProd(q, state[k])),
  };
}

function match(numbers, state) {
  const ref = reference(state);
  const spread = Math.max(...ref.scores.map(Math.abs));
  expectNumbers(
    numbers,
    KEYS.flatMap((_, i) => [
      ['score', i + 1, ref.scores[i], 4 * U * ref.magnitude[i]],
      ['weight', i + 1, ref.weights[i], (10 + 4 * spread) * U * Math.max(ref.weights[i], 1e-3)],
      ['cosine', i + 1, ref.cos[i], 20 * U],
      angleRow('angle', i + 1, ref.angle[i]),
    ]),
  );
  // The basis: E E^T is the identity, exactly.
  const gram = byRole(numbers, 'gram');
  expect(gram.map((g) => g.key)).toEqual(['11', '12', '13', '21', '22', '23', '31', '32', '33']);
  gram.forEach((g) => expect(g.value).toBe(g.key[0] === g.key[1] ? 1 : 0));
  return ref;
}

const readings = (w) =>
  w.eval((el) => [...el.shadowRoot.querySelectorAll('tr[data-reading]')].map((r) => r.dataset.reading));
const snap = (w) => w.at('button[data-action="snap"]').click();

const it = chapterTests({ ch: 'orthogonality', tag: 'ag-orthogonality', match });

it('opens with a supporting, a perpendicular and an opposing key: scores 3, 0, -2.5; the perpendicular weight sits between', async (w) => {
  const { numbers, ref } = await w.matches(START);
  expectTexts(numbers, { score: ['3', '0', '\u22122.5'], 'cosine.2': '0', 'angle.2': '90\u00b0' });
  const weights = byRole(numbers, 'weight').map((x) => x.value);
  for (const x of [weights, ref.weights]) expect(x[0] > x[1] && x[1] > x[2]).toBe(true);
  expect(await readings(w)).toEqual(['supports', 'perpendicular', 'opposes']);
  // The seed file: the standard basis is orthogonal, e1.e2 = 0.
  expectSeed('orthogonal-basis', one(numbers, 'gram', '12').value, { a: [1, 0, 0], b: [0, 1, 0] });
  expectTexts(numbers, { gram: ['1', '0', '0', '0', '1', '0', '0', '0', '1'] });
  // A right-angle mark on k2 only; the basis table came from one matmul with transposeB.
  const corners = await w.eval((el) =>
    [...el.shadowRoot.querySelectorAll('.right-angle')].map((c) => c.getAttribute('visibility')),
  );
  expect(corners).toEqual(['hidden', 'visible', 'hidden']);
  const kernels = await w.kernels();
  expect(kernels.some((k) => /matmul/.test(k))).toBe(true);
  expect(kernels.some((k) => /softmax/.test(k))).toBe(true);
  expect(await w.katex()).toBeGreaterThan(0);
});

it.dragKeys({
  name: 'dragging q with the mouse and k2 with the keys, then "snap": k2 is perpendicular again, score 0, 90 degrees',
  from: START,
  drag: ['q', [1.5, 2.5]],
  key: ['k2', ['ArrowRight', 'ArrowDown', 'Shift+ArrowLeft'], [-1.75, 1.75], 'k\u2082 = (\u22121.75, 1.75)'],
  announce: (numbers) => `k2: score ${one(numbers, 'score', 2).text}`,
  afterKeys: async (w, numbers, ref, moved) => {
    expect(one(numbers, 'score', 2).value).not.toBe(0);
    await snap(w);
    const state = { ...moved, k2: [-2.5, 1.5] }; // the quarter turn of q, on k2's side
    expect(await w.state()).toEqual(state);
    ({ numbers } = await w.matches(state));
    expect([one(numbers, 'score', 2).value, one(numbers, 'cosine', 2).value]).toEqual([0, 0]);
    expect(one(numbers, 'angle', 2).text).toBe('90\u00b0');
    expect((await readings(w))[1]).toBe('perpendicular');
    return { numbers, state };
  },
  params: { q: '1.5,2.5', k2: '-2.5,1.5' },
});

it('a URL with every key perpendicular gives equal weights of one third; snapping from the other side keeps k2 there', async (w) => {
  const all = { q: [1, -2], k1: [2, 1], k2: [-3, -1.5], k3: [0.5, 0.25] };
  await w.link('q=1,-2&k1=2,1&k2=-3,-1.5&k3=0.5,0.25', all, {}, async (z, numbers) => {
    byRole(numbers, 'weight').forEach((x) => expectClose(x.value, 1 / 3, 2 * U, 'weight 1/3'));
    expect(await readings(z)).toEqual(['perpendicular', 'perpendicular', 'perpendicular']);
    await snap(z);
    expect((await z.state()).k2).toEqual([-2, -1]); // -(2, 1): the side k2 was on
    await z.matches({ ...all, k2: [-2, -1] });
  });
});

it('predict, then reveal: the perpendicular key\u2019s weight lands between the other two', async (w) => {
  await w.reveal({ wrong: 'zero', right: 'middle', says: /scores 3, 0, \u22122\.5/, state: START });
}).at('k2=3,3');
