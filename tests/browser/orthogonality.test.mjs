// Chapter 12, "Orthogonality: a zero score means unrelated"
// (<ag-orthogonality>): a query and three keys, their scores, cosines,
// angles and softmax weights, the snap-to-perpendicular button, and the
// standard basis with E Eᵀ = I; checked against a float64 reference after
// drags, keys, the button and a changed URL.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  byRole,
  dragPoint,
  expectAllLogged,
  expectClean,
  expectClose,
  expectShown,
  exportFile,
  keyPoint,
  one,
  openChapter,
  overflow,
  readNumbers,
  ROOT,
  screenshot,
  settledUrl,
  startEnv,
  U,
  urlParams,
} from './helpers.mjs';

const TAG = 'ag-orthogonality';
const CH = 'orthogonality';
const START = { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] };
const KEYS = ['k1', 'k2', 'k3'];
const seeds = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;

/** float64 reference: scores, cosines, angles and the softmax of the scores. */
function reference(state) {
  const { q } = state;
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1];
  const scores = KEYS.map((k) => dot(q, state[k]));
  const max = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const total = e.reduce((a, b) => a + b, 0);
  const cos = KEYS.map((k, i) => scores[i] / (Math.hypot(...q) * Math.hypot(...state[k])));
  return {
    scores,
    weights: e.map((x) => x / total),
    cos,
    angle: cos.map((c) => Math.acos(Math.max(-1, Math.min(1, c)))),
    magnitude: KEYS.map((k) => Math.abs(q[0] * state[k][0]) + Math.abs(q[1] * state[k][1])),
  };
}

function expectMatches(numbers, state) {
  const ref = reference(state);
  const spread = Math.max(...ref.scores.map(Math.abs));
  KEYS.forEach((_, i) => {
    const key = i + 1;
    const s = one(numbers, 'score', key);
    const tol = 4 * U * ref.magnitude[i];
    expectClose(s.value, ref.scores[i], tol, `q.k${key}`);
    expectShown(s, ref.scores[i], { extra: tol });
    const w = one(numbers, 'weight', key);
    const wtol = (10 + 4 * spread) * U * Math.max(ref.weights[i], 1e-3);
    expectClose(w.value, ref.weights[i], wtol, `weight ${key}`);
    expectShown(w, ref.weights[i], { extra: wtol });
    const c = one(numbers, 'cosine', key);
    expectClose(c.value, ref.cos[i], 20 * U, `cos ${key}`);
    expectShown(c, ref.cos[i], { extra: 20 * U });
    const a = one(numbers, 'angle', key);
    expectClose(a.value, ref.angle[i], 1e-5, `angle ${key}`);
    expectShown(a, (ref.angle[i] * 180) / Math.PI, { extra: 1e-3 });
  });
  // The basis: E E^T is the identity, exactly.
  const gram = byRole(numbers, 'gram');
  expect(gram.map((g) => g.key)).toEqual(['11', '12', '13', '21', '22', '23', '31', '32', '33']);
  gram.forEach((g) => expect(g.value).toBe(g.key[0] === g.key[1] ? 1 : 0));
  return ref;
}

const stateOf = (page) => page.locator(TAG).evaluate((el) => el.state);
const readings = (page) =>
  page
    .locator(TAG)
    .evaluate((el) => [...el.shadowRoot.querySelectorAll('tr[data-reading]')].map((r) => r.dataset.reading));

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('chapter 12: orthogonality', () => {
  test('opens with a supporting, a perpendicular and an opposing key: scores 3, 0, -2.5; the perpendicular weight sits between', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const numbers = await readNumbers(page, TAG);
    expect(byRole(numbers, 'score').map((s) => s.text)).toEqual(['3', '0', '\u22122.5']);
    expect(one(numbers, 'cosine', 2).text).toBe('0');
    expect(one(numbers, 'angle', 2).text).toBe('90\u00b0');
    const ref = expectMatches(numbers, START);
    const w = byRole(numbers, 'weight').map((x) => x.value);
    expect(w[0] > w[1] && w[1] > w[2]).toBe(true);
    expect(ref.weights[0] > ref.weights[1] && ref.weights[1] > ref.weights[2]).toBe(true);
    expect(await readings(page)).toEqual(['supports', 'perpendicular', 'opposes']);
    // The seed file: the standard basis is orthogonal, e1.e2 = 0.
    const basis = seeds.find((c) => c.id === 'orthogonal-basis');
    expect(basis.inputs.a).toEqual([1, 0, 0]);
    expect(basis.inputs.b).toEqual([0, 1, 0]);
    expectClose(one(numbers, 'gram', '12').value, basis.expected, basis.tolerance, 'seed e1.e2');
    expect(byRole(numbers, 'gram').map((g) => g.text)).toEqual(['1', '0', '0', '0', '1', '0', '0', '0', '1']);
    // A right-angle mark on k2 only; the basis table came from one matmul with transposeB.
    const corners = await page
      .locator(TAG)
      .evaluate((el) => [...el.shadowRoot.querySelectorAll('.right-angle')].map((c) => c.getAttribute('visibility')));
    expect(corners).toEqual(['hidden', 'visible', 'hidden']);
    const kernels = await page.evaluate(() => window.__agCallLog.map((c) => c.kernel));
    expect(kernels.some((k) => /matmul/.test(k))).toBe(true);
    expect(kernels.some((k) => /softmax/.test(k))).toBe(true);
    await expectAllLogged(page, TAG);
    expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(0);
    await expectClean(opened);
    await opened.context.close();
  });

  test('dragging q with the mouse and k2 with the keys, then "snap": k2 is perpendicular again, score 0, 90 degrees', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const scrollBefore = await page.evaluate(() => window.scrollY);
    await dragPoint(page, TAG, 'q', [1.5, 2.5]);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrollBefore);
    await keyPoint(page, TAG, 'k2', ['ArrowRight', 'ArrowDown', 'Shift+ArrowLeft']);
    const moved = { ...START, q: [1.5, 2.5], k2: [-1.75, 1.75] };
    expect(await stateOf(page)).toEqual(moved);
    let numbers = await readNumbers(page, TAG);
    expectMatches(numbers, moved);
    expect(one(numbers, 'score', 2).value).not.toBe(0);
    await expect(page.locator(`${TAG} [data-point="k2"]`).getAttribute('aria-valuetext')).resolves.toBe(
      'k\u2082 = (\u22121.75, 1.75)',
    );
    await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
      `k2: score ${one(numbers, 'score', 2).text}`,
    );

    await page.locator(`${TAG} button[data-action="snap"]`).click();
    const snapped = { ...moved, k2: [-2.5, 1.5] }; // the quarter turn of q, on k2's side
    expect(await stateOf(page)).toEqual(snapped);
    numbers = await readNumbers(page, TAG);
    expectMatches(numbers, snapped);
    expect(one(numbers, 'score', 2).value).toBe(0);
    expect(one(numbers, 'cosine', 2).value).toBe(0);
    expect(one(numbers, 'angle', 2).text).toBe('90\u00b0');
    expect((await readings(page))[1]).toBe('perpendicular');
    const params = await urlParams(page);
    expect(params.get('ch')).toBe(CH);
    expect(params.get('q')).toBe('1.5,2.5');
    expect(params.get('k2')).toBe('-2.5,1.5');
    await expectAllLogged(page, TAG);

    const copy = await openChapter(env, CH, TAG, { search: (await settledUrl(page)).search });
    const reopened = await readNumbers(copy.page, TAG);
    expect(reopened.map((n) => n.text)).toEqual(numbers.map((n) => n.text));
    await expectClean(copy);
    await copy.context.close();
    await expectClean(opened);
    await opened.context.close();
  });

  test('a URL with every key perpendicular gives equal weights of one third; snapping from the other side keeps k2 there', async () => {
    const all = { q: [1, -2], k1: [2, 1], k2: [-3, -1.5], k3: [0.5, 0.25] };
    const opened = await openChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&q=1,-2&k1=2,1&k2=-3,-1.5&k3=0.5,0.25` });
    const { page } = opened;
    const numbers = await readNumbers(page, TAG);
    expectMatches(numbers, all);
    byRole(numbers, 'weight').forEach((w) => expectClose(w.value, 1 / 3, 2 * U, 'weight 1/3'));
    expect(await readings(page)).toEqual(['perpendicular', 'perpendicular', 'perpendicular']);
    await page.locator(`${TAG} button[data-action="snap"]`).click();
    expect((await stateOf(page)).k2).toEqual([-2, -1]); // -(2, 1): the side k2 was on
    expectMatches(await readNumbers(page, TAG), { ...all, k2: [-2, -1] });
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('predict, then reveal: the perpendicular key\u2019s weight lands between the other two', async () => {
    const opened = await openChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&k2=3,3` });
    const { page } = opened;
    await page.locator(`${TAG} .predict-choice[data-choice="zero"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('wrong');
    await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/scores 3, 0, \u22122\.5/);
    expect(await stateOf(page)).toEqual(START);
    expectMatches(await readNumbers(page, TAG), START);
    await page.locator(`${TAG} .predict-again`).click();
    await page.locator(`${TAG} .predict-choice[data-choice="middle"]`).click();
    await expect(page.locator(`${TAG} .predict`).getAttribute('data-result')).resolves.toBe('right');
    await expect(page.locator(`#toc li[data-chapter="${CH}"] [data-role=progress]`).textContent()).resolves.toMatch(
      /predicted/,
    );
    await expectAllLogged(page, TAG);
    await expectClean(opened);
    await opened.context.close();
  });

  test('exports the figure as SVG and PNG and the numbers as JSON and CSV', async () => {
    const opened = await openChapter(env, CH, TAG);
    const { page } = opened;
    const json = JSON.parse((await exportFile(page, TAG, 'json')).bytes.toString('utf8'));
    expect(json.state).toEqual(START);
    expect(json.stateText).toBe('v=1&q=2,1&k1=1,1&k2=-1,2&k3=-1,-0.5');
    expect(json.numbers['score.2']).toBe(0);
    expect(json.numbers['gram.22']).toBe(1);
    const csv = (await exportFile(page, TAG, 'csv')).bytes.toString('utf8');
    expect(csv.split('\r\n')).toContain('score.1,3');
    const svg = await exportFile(page, TAG, 'svg');
    expect(svg.bytes.toString('utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const png = await exportFile(page, TAG, 'png');
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    await expectClean(opened);
    await opened.context.close();
  });

  test.each([
    [1024, 'desktop'],
    [375, 'phone-375'],
    [320, 'phone-320'],
  ])('fits %i px with no horizontal scrolling, light and dark', async (width, name) => {
    const opened = await openChapter(env, CH, TAG, { width, height: 1000 });
    const { page } = opened;
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page.locator(`#ch-${CH}`), `chapter-12-${name}-${scheme}`);
    }
    expect(
      await page.locator(TAG).evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('svg.plane')).touchAction),
    ).toBe('none');
    await expectClean(opened);
    await opened.context.close();
  });
});
