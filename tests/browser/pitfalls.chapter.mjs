// "Pitfalls" (#ch-pitfalls, <ag-pitfalls>): four misreadings with numbers from the module (against float64
// references) and a button that puts a chapter widget above into the right state and scrolls to it.
import { expect } from '@jest/globals';
import { pressKeys } from './helpers.mjs';
import { CHAPTERS } from '../../web/chapters.js';
import { softmax } from '../reference/float64.mjs';
import { chapterTests, U } from './chapter-tests.mjs';

const PITFALL_TARGETS = {
  'raw-dot': 'cosine',
  scale: 'scale-fix',
  zero: 'orthogonality',
  dimension: 'near-orthogonal',
};
const ofRole = (numbers, role) => numbers.filter((n) => n.role === role).map((n) => n.value);

const it = chapterTests({ ch: 'pitfalls', tag: 'ag-pitfalls', match: () => null });

it('the first pitfall shows raw scores 2 and 10 and equal cosines, from logged wasm calls', async (w) => {
  const numbers = await w.read();
  expect(ofRole(numbers, 'raw')).toEqual([2, 10]);
  for (const c of ofRole(numbers, 'cosine')) expect(Math.abs(c - 1)).toBeLessThanOrEqual(8 * U);
  expect(await w.katex()).toBeGreaterThan(0);
});

it('arrow keys move between the pitfalls; the zero-score numbers match softmax(3, 0, -2.5); the URL keeps the tab', async (w) => {
  await w.at('[role=tab][data-pitfall="raw-dot"]').focus();
  await pressKeys(w.page, 'ArrowRight', 'ArrowRight');
  expect((await w.state()).open).toBe('zero');
  expect(await w.eval((el) => el.shadowRoot.activeElement?.dataset.pitfall)).toBe('zero');
  const weights = ofRole(await w.read(), 'weight');
  const ref = softmax([3, 0, -2.5], 1, 3);
  weights.forEach((x, i) => expect(Math.abs(x - ref[i])).toBeLessThanOrEqual(40 * U * ref[i]));
  expect(weights[1]).toBeGreaterThan(weights[2]);
  await w.logged();
  expect((await w.url()).get('open')).toBe('zero');
  await w.reopens(await w.read());
  expect((await w.state()).open).toBe('zero');
  // A mouse click on another tab.
  await w.at('[role=tab][data-pitfall="scale"]').click();
  const scale = await w.read();
  expect(scale.find((n) => n.role === 'max-unscaled').value).toBeGreaterThan(0.99);
  expect(scale.find((n) => n.role === 'max-scaled').value).toBeLessThan(0.9);
  await w.logged();
});

it('each demonstration whose chapter has a widget opens it in the right state and the shell writes its URL', async (w) => {
  const withWidget = Object.entries(PITFALL_TARGETS).filter(([, id]) => CHAPTERS.find((c) => c.id === id)?.tag);
  expect(withWidget.length).toBeGreaterThanOrEqual(3);
  const expected = {
    cosine: { q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false },
    'scale-fix': { seed: 7, tokens: 16, dk: '4096' },
    orthogonality: { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] },
  };
  const { page, at } = w;
  for (const [pitfall, id] of withWidget) {
    await w.set(`open=${pitfall}`);
    const { tag } = CHAPTERS.find((c) => c.id === id);
    await at(`button.go[data-go="${pitfall}"]`).click();
    // Wait for the target without scrolling to it (that is the button's job).
    await page.waitForSelector(`${tag}[data-status="ready"]`, { timeout: 20000 });
    if (expected[id]) expect(await page.locator(tag).evaluate((el) => el.state)).toEqual(expected[id]);
    // The target section is in view and holds the focus; the shell wrote its state into the URL.
    const shown = (want) => new URLSearchParams(window.location.search).get('ch') === want;
    await page.waitForFunction(shown, id, { timeout: 5000 });
    expect((await w.url()).get('ch')).toBe(id);
    const top = await page.locator(`#ch-${id}`).evaluate((el) => el.getBoundingClientRect().top);
    expect(Math.abs(top)).toBeLessThan(64);
    expect(await page.evaluate(() => document.activeElement?.closest('section')?.id)).toBe(`ch-${id}`);
  }
});

it('predict, then reveal: a zero score takes more weight than a negative one', async (w) => {
  await w.reveal({ wrong: 'same', part: { open: 'zero' }, right: 'zero' });
});
