// "Competition through the shared denominator" (#ch-competition, <ag-competition>):
// the weights before and after raising one logit, the softmax Jacobian heat
// map and its row sums, against a float64 reference after slider drags, arrow
// keys, heat-map keys and a changed URL.
import { expect } from '@jest/globals';
import { softmax, softmaxJacobian } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, expectRole, one } from './chapter-tests.mjs';

/** float64 reference: weights, after raising s_j by delta, their change, J and J_ij delta. */
function reference(s, j, delta) {
  const x = s.map(Math.fround);
  const alpha = softmax(x, 1, 4);
  const raised = x.map((v, k) => (k === j - 1 ? v + Math.fround(delta) : v));
  const after = softmax(raised, 1, 4);
  const flat = softmaxJacobian(alpha);
  const J = alpha.map((_, i) => flat.slice(i * 4, (i + 1) * 4));
  return { alpha, after, change: after.map((b, i) => b - alpha[i]), J, linear: J.map((row) => row[j - 1] * delta) };
}

function match(numbers, s, j, delta) {
  const ref = reference(s, j, delta);
  expectRole(numbers, 'alpha', ref.alpha, 1e-6, { extra: 1e-6 });
  expectRole(numbers, 'alpha-after', ref.after, 1e-6);
  expectRole(numbers, 'change', ref.change, 2e-6);
  // Competition: the raised weight goes up, every other one down (for delta > 0).
  if (delta > 0) byRole(numbers, 'change').forEach((c, i) => expect(Math.sign(c.value)).toBe(i + 1 === j ? 1 : -1));
  expectRole(numbers, 'linear', ref.linear, 2e-6);
  const J = byRole(numbers, 'jacobian');
  expect(J).toHaveLength(16);
  expectRole(numbers, 'jacobian', ref.J.flat(), 1e-6, { digits: 2, extra: 1e-6 });
  J.forEach(({ key, value }) => expect(key[0] === key[2] ? value >= 0 : value <= 0).toBe(true));
  expect(byRole(numbers, 'row-sum')).toHaveLength(4);
  expectRole(numbers, 'row-sum', [0, 0, 0, 0], 1e-6);
  return ref;
}

const it = chapterTests({ ch: 'competition', tag: 'ag-competition', match });

it('opens with the Jacobian of (1, 0.5, 0, -0.5): float64 reference, zero row sums; predict, then reveal: alpha_3 falls when s_1 rises', async (w) => {
  await w.matches([1, 0.5, 0, -0.5], 1, 1);
  expect(await w.katex()).toBeGreaterThanOrEqual(2);
  const { ref } = await w.reveal({ wrong: 'same', args: [[1, 0.5, 0, -0.5], 1, 1], right: 'down' });
  expect(ref.change[2]).toBeLessThan(0);
});

it('drag and keys on the sliders, keys and hover on the heat map; the URL reopens the state', async (w) => {
  await w.slide('input[data-logit="3"]', 0.5, 0.85);
  const { s } = await w.state();
  expect(s[2]).toBeGreaterThan(2);
  await w.matches(s, 1, 1);
  await w.press('input[data-logit="4"]', 'ArrowLeft', 5);
  expectClose((await w.state()).s[3], -1, 1e-9, 's4');

  // The heat map: focus cell (1,1), arrows to (2,3), Enter raises s3.
  await w.press('[data-cell="1-1"]', ['ArrowDown', 'ArrowRight', 'ArrowRight', 'Enter']);
  const state = await w.state();
  expect(state.j).toBe(3);
  const { numbers, ref } = await w.matches(state.s, 3, 1);
  expectClose(one(numbers, 'read-j').value, ref.J[1][2], 1e-6, 'readout J23');
  await expect(w.text('.readout')).resolves.toMatch(/\u2202\u03b1\u2082\/\u2202s\u2083/);
  // Hover another cell: the readout follows.
  await w.at('[data-cell="4-4"]').hover();
  expectClose(one(await w.read(), 'read-j').value, ref.J[3][3], 1e-6, 'readout J44');
  await w.logged();

  const params = await w.params({ j: '3' });
  expect(params.get('s').split(',').map(Number)).toEqual(state.s);
  await w.reopens(numbers, { keep: (n) => !n.role.startsWith('read-') }); // the readout follows the pointer
  await w.matches(state.s, 3, 1);
  expect((await w.state()).j).toBe(3);
});

it('a URL with a dominant logit and a negative delta: the reference values; the row sums stay 0', (w) =>
  w.link('s=5.5,-2,0.3,-6&j=2&delta=-2.5', [[5.5, -2, 0.3, -6], 2, -2.5]));
