// "Two definitions agree" (#ch-dot-product, <ag-two-definitions>): the algebraic
// and geometric dot products of two draggable 2-D vectors, checked against a
// float64 reference after mouse drags, arrow keys, touch and a changed URL; the shell writes the address once
// the learner pauses (shell/url-writer.js), and at once when the page is left.
import { expect } from '@jest/globals';
import { angleRow, chapterTests, expectNumbers, expectTexts, one, U } from './chapter-tests.mjs';
import { touchDragPoint } from './pointer.mjs';
import { angle, cosine, dot, norm, sumAbsProd } from '../reference/float64.mjs';

/** Every number shown (stored float32 and shown text) against the float64 reference for a and b. */
function match(numbers, { a, b }) {
  const [na, nb, cos, d] = [norm(a), norm(b), cosine(a, b), dot(a, b)];
  const terms = [a[0] * b[0], a[1] * b[1]];
  const dotTol = 3 * U * sumAbsProd(a, b) + 1e-12;
  // The geometric side reaches a.b through lengths and a cosine: a few units of roundoff relative to |a||b|.
  const geoTol = 20 * U * na * nb;
  expectNumbers(numbers, [
    ...terms.map((t, i) => ['term', i + 1, t, 2 * U * Math.abs(t), 0]),
    ['dot', null, d, dotTol],
    ['norm', 'a', na, 4 * U * na, 0],
    ['norm', 'b', nb, 4 * U * nb, 0],
    ['norm-product', null, na * nb, 10 * U * na * nb, false],
    ['geometric', null, na * nb * cos, geoTol],
    ['cosine', null, cos, 20 * U],
    angleRow('angle', null, angle(a, b)),
  ]);
}
const START = { a: [3, 4], b: [4, 3] };
const it = chapterTests({ ch: 'dot-product', tag: 'ag-two-definitions', match });

it('opens on the article pair: (3, 4) and (4, 3) give 24 both ways; predict, then reveal: "zero" is right for (3, 4) and (-4, 3)', async (w) => {
  const { numbers } = await w.matches(START);
  expectTexts(numbers, { dot: '24', geometric: '24', angle: '16.26\u00b0', term: ['12', '12'], 'norm.a': '5' });
  // Math is typeset by KaTeX in the shadow root, with the fonts declared by the host page.
  expect(await w.katex()).toBeGreaterThan(0);
  await w.reveal({ wrong: 'positive', right: 'zero', says: /a\u00b7b = 0/, state: { a: [3, 4], b: [-4, 3] } });
});

// Keyboard: Tab-reachable handle, arrows step 0.25, Shift+arrow steps 1; described on the handle.
it.dragKeys({
  name: 'dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them',
  from: START,
  drag: ['a', [-2, 3.5]],
  key: ['b', ['ArrowRight', 'ArrowRight', 'Shift+ArrowUp', 'ArrowDown'], [4.5, 3.75], 'b = (4.5, 3.75)'],
  announce: (numbers) => `a\u00b7b = ${one(numbers, 'dot').text}`,
  afterKeys: async (w) => expect(await w.attr('[data-point="a"]', 'tabindex')).toBe('0'),
  params: { a: '-2,3.5', b: '4.5,3.75' }, // only the shell wrote the URL: chapter, versioned state
});

const PHONE = { width: 375, height: 800, hasTouch: true };
it('on a phone, a finger drags a point (touch events), the page does not scroll, the numbers follow', async (w) => {
  const scrollBefore = await w.at('[data-point="a"]').evaluate((el) => {
    el.scrollIntoView({ block: 'center' });
    return window.scrollY;
  });
  await touchDragPoint(w.page, w.tag, 'a', [-1, 2.5]);
  expect((await w.state()).a).toEqual([-1, 2.5]);
  expect(Math.abs((await w.page.evaluate(() => window.scrollY)) - scrollBefore)).toBeLessThan(2);
  await w.matches({ a: [-1, 2.5], b: [4, 3] });
  await w.logged();
}).at(PHONE);

it('a URL with other vectors, including a zero vector, shows their reference values', async (w) => {
  await w.link('a=-5.5,1.25&b=2,-6', { a: [-5.5, 1.25], b: [2, -6] });
  await w.link('a=0,0&b=2,-6', null, { logged: false, own: true }, async (z, numbers) => {
    expect([one(numbers, 'dot').value, one(numbers, 'geometric').value]).toEqual([0, 0]);
    expect(numbers.some((n) => n.role === 'angle')).toBe(false); // no angle for a zero vector: none shown
    await expect(z.text('[data-role="angle"]')).resolves.toBe('not defined');
  });
});

// Last: it leaves the page (pagehide).
it('the address is written once the learner pauses, with the last state; leaving the page writes it at once', async (w) => {
  expect((await w.url()).get('b')).toBe('4,3');
  // A burst of five key steps of 0.25 on b, dispatched in one task so that no pause can fall inside it however
  // slow the machine: while it lasts, the address waits.
  await w.at('[data-point="b"]').focus();
  const during = await w.eval((el) => {
    const handle = el.shadowRoot.querySelector('[data-point="b"]');
    for (let i = 0; i < 5; i++)
      handle.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
    return { url: document.body.dataset.url, b: new URLSearchParams(window.location.search).get('b') };
  });
  expect(during).toEqual({ url: 'pending', b: '4,3' });
  // After the pause: the last state, 4 + 5 * 0.25 = 5.25.
  expect((await w.url()).get('b')).toBe('5.25,3');
  // One more step, then the page is left: written in that same task, not after the pause.
  await w.page.keyboard.press('ArrowUp');
  const left = await w.page.evaluate(() => {
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
    return { url: document.body.dataset.url, b: new URLSearchParams(window.location.search).get('b') };
  });
  expect(left).toEqual({ url: 'current', b: '5.25,3.25' });
});
