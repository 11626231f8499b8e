// The worked single-head example (#ch-worked-example, <ag-worked-example>): scores, exp, sum, weights and
// output against a float64 reference, through the controls, links, every implementation and the prediction.
import { expect } from '@jest/globals';
import { setStateText, settledUrl, until } from './helpers.mjs';
import { dot, softmax, sumAbsProd } from '../reference/float64.mjs';
import { byRole, chapterTests, expectClose, expectNumbers, expectSeed, expectTexts, one } from './chapter-tests.mjs';
import { rowsOf, U } from './chapter-tests.mjs';

const K = '1,2,1,0;-1,-2,0,1;0,0,1,0'; // the article's keys
const ARTICLE = { q: [1, 2, 0, 1], k: rowsOf(K), values: rowsOf('1,0;0,1;0,0'), scaled: false };

/**
 * In the page: dispatches keydown `keys` at the field `input` in one task (no frame between them), then, given
 * `typed`, types it and waits two frames; its text then.
 */
async function pressInTask(input, [keys, typed]) {
  for (const key of keys)
    input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, composed: true, cancelable: true }));
  if (typed === undefined) return input.value;
  input.value = typed;
  input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return input.value;
}

/** What `read` gives once it gives `want` (truthy), or after about two seconds, whatever it gives then. */
const settled = (read, want) => until(async () => (await read()) === want && want, `${want}`, 20).catch(read);

/** float64 reference: scores, scaled scores, exp, sum, weights, output. */
function reference({ q, k, values: v, scaled }) {
  const scores = k.map((row) => dot(row, q));
  const factor = scaled ? 1 / Math.sqrt(q.length) : 1;
  const z = scores.map((s) => s * factor);
  const exp = z.map(Math.exp);
  const sum = exp.reduce((a, b) => a + b, 0);
  const weights = softmax(z, 1, z.length);
  const output = v[0].map((_, c) => weights.reduce((s, w, j) => s + w * v[j][c], 0));
  const magnitude = k.map((row) => sumAbsProd(row, q));
  return { scores, z, exp, sum, weights, output, magnitude, maxZ: Math.max(...z.map(Math.abs)) };
}

function match(numbers, state) {
  const ref = reference(state);
  const rel = (8 + 4 * ref.maxZ) * U;
  const vmax = Math.max(1, ...state.values.flat().map(Math.abs));
  expectNumbers(numbers, [
    ...[0, 1, 2].flatMap((j) => [
      ['score', j + 1, ref.scores[j], 10 * U * ref.magnitude[j] + 1e-30],
      ['scaled-score', j + 1, ref.z[j], 20 * U * ref.magnitude[j] + 1e-30, false],
      ['exp', j + 1, ref.exp[j], rel * ref.exp[j]],
      ['weight', j + 1, ref.weights[j], rel * Math.max(ref.weights[j], 1e-3) + 1e-9],
    ]),
    ['sum', null, ref.sum, rel * ref.sum * 2],
    ...ref.output.map((o, c) => ['output', c + 1, o, 4 * rel * vmax + 1e-9, false]),
  ]);
  return ref;
}

const inputs = (w) => w.page.$$eval(`${w.tag} input.vec-input`, (els) => els.map((el) => Number(el.value)));
const flat = (s) => [...s.q, ...s.k.flat(), ...s.values.flat()];
const link = (s) => `q=${s.q}&k=${s.k.join(';')}&values=${s.values.join(';')}&scaled=${s.scaled ? 1 : 0}`;
const firstScore = async (w) => byRole(await w.read(), 'score')[0].value;

const it = chapterTests({ ch: 'worked-example', tag: 'ag-worked-example', match });

it('opens on the article example: scores 5, -4, 0; exp 148.4, 0.01832, 1; sum 149.4; weights 0.9932, 0.0001226, 0.006692', async (w) => {
  const { numbers } = await w.matches(ARTICLE);
  const weights = ['0.9932', '0.0001226', '0.006692'];
  expectTexts(numbers, { score: ['5', '\u22124', '0'], exp: ['148.4', '0.01832', '1'], sum: '149.4', weight: weights });
  // The seed file's claims (the article's numbers).
  const values = (role) => byRole(numbers, role).map((n) => n.value);
  expectSeed('worked-scores', values('score'));
  expectSeed('worked-softmax-unscaled', values('weight'));
  expect(await inputs(w)).toEqual(flat(ARTICLE));
});

it('scaled by 1/sqrt(d_k): 2.5, -2, 0 and weights 0.9148, 0.01016, 0.07509', async (w) => {
  await w.page.getByLabel(/^scaled:/).check();
  await w.page.waitForSelector(`${w.tag}[data-scale="sqrt-dk"]`);
  const { numbers } = await w.matches({ ...ARTICLE, scaled: true });
  expectTexts(numbers, { 'scaled-score': ['2.5', '\u22122', '0'], weight: ['0.9148', '0.01016', '0.07509'] });
  expect((await w.url()).get('scaled')).toBe('1');
  await w.logged();
});

it('edits through the controls give the reference values; the URL reopens them; a non-number is a note', async (w) => {
  const field = (label) => w.page.getByLabel(label);
  const edits = { 'q, component 3': '1.5', 'k2, component 4': '-2.25', 'k3, component 1': '3', 'v3, component 2': '4' };
  for (const [label, text] of Object.entries(edits)) await field(label).fill(text);
  await field('k1, component 2').press('ArrowUp'); // a number input steps by one
  // Stepping keeps the decimals of the text: 2.3 - 1 is 1.3 in the field, as the browser's own stepping gives.
  await field('q, component 3').fill('2.3');
  await field('q, component 3').press('ArrowDown');
  expect(await settled(() => field('q, component 3').inputValue(), '1.3')).toBe('1.3'); // shown by the next frame
  await field('q, component 3').fill('1.5');
  const k = '1,3,1,0;-1,-2,0,-2.25;3,0,1,0';
  const state = { q: [1, 2, 1.5, 1], k: rowsOf(k), values: rowsOf('1,0;0,1;0,4'), scaled: false };
  expect(await inputs(w)).toEqual(flat(state));
  await w.matches(state);
  await field(/^scaled:/).check();
  const scaled = { ...state, scaled: true };
  const { numbers } = await w.matches(scaled);
  const check = async () => expect(await inputs(w)).toEqual(flat(scaled));
  await w.reopens(numbers, { params: { q: '1,2,1.5,1', k, scaled: '1' }, check });
  const before = (await settledUrl(w.page)).href;
  await field('q, component 1').fill('');
  await expect(w.text('.note')).resolves.toMatch(/q, component 1/);
  expect((await settledUrl(w.page)).href).toBe(before);
  // With the entry still empty, the scale toggle recomputes the last complete inputs; the link says the same.
  await field(/^unscaled:/).check();
  await w.matches(state);
  await w.params({ scaled: '0', q: '1,2,1.5,1' });
  await field(/^scaled:/).check();
  await field('q, component 1').fill('1');
  await expect(w.at('.note').isHidden()).resolves.toBe(true);
  await w.matches(scaled);
});

it('arrow steps faster than frames are all kept; a key or an edit before the next frame acts on the stepped text', async (w) => {
  const field = w.page.getByLabel('q, component 1'); // 1 in the article's q
  // Key events in one task: no frame runs between them, so the field shows the old text while the figure follows.
  expect(await field.evaluate(pressInTask, [['ArrowUp', 'ArrowUp', 'ArrowUp']])).toBe('1');
  expect(await settled(() => field.inputValue(), '4')).toBe('4');
  expect(await settled(() => firstScore(w), 8)).toBe(8); // q·k1 = 4 + 4 + 0 + 0
  // Another key (here Home) first writes the stepped text, so that the browser edits what is on the screen.
  expect(await field.evaluate(pressInTask, [['ArrowDown', 'Home']])).toBe('3');
  // A typed value wins over a step not yet shown.
  expect(await field.evaluate(pressInTask, [['ArrowUp'], '-2'])).toBe('-2');
  expect(await settled(() => firstScore(w), 2)).toBe(2); // -2 + 4 + 0 + 0
});

it('a score past 88.7: exp and its sum show infinity with a note, the weights stay right', async (w) => {
  const numbers = await w.read();
  // Score 1: 85 + 4 = 89 > ln(FLT_MAX) = 88.72, so exp overflows float32.
  expect([byRole(numbers, 'exp')[0].text, one(numbers, 'sum').text]).toEqual(['\u221e', '\u221e']);
  await expect(w.text('.overflow-note')).resolves.toMatch(/exp\(89\).*largest float32/);
  // The weights come from the stable softmax: float64 reference, max subtracted.
  const { weights } = reference({ ...ARTICLE, q: [85, 2, 0, 1] });
  byRole(numbers, 'weight').forEach((x, j) => expectClose(x.value, weights[j], 4 * U + 1e-30, `weight ${j + 1}`));
  await expect(w.at('.note').isHidden()).resolves.toBe(true);
  await w.logged();
}).at('q=85,2,0,1');

it('stepping shows scores, then exp, then the sum, then the weights, then the output', async (w) => {
  const visible = (role) => w.at(`[data-role="${role}"]`).first().isVisible();
  const steps = { '': ['score', 'exp', 'weight'], '2. exp': ['exp', 'sum'], '3. Sum': ['sum', 'weight'] };
  Object.assign(steps, { '4. Weights': ['weight', 'output'], '5. Output': ['output'] });
  for (const [step, [shown, ...hidden]] of Object.entries(steps)) {
    if (step) await w.page.getByLabel(step).check();
    expect(await visible(shown)).toBe(true);
    for (const role of hidden) expect(await visible(role)).toBe(false);
  }
  expect((await w.url()).get('step')).toBe('output');
  // The sum stands under the exp column it adds up, with the scaled column hidden or shown.
  for (const scale of [/^unscaled:/, /^scaled:/]) {
    await w.page.getByLabel(scale).check();
    const [sum, exp] = await Promise.all(['[data-role="sum"]', 'th.c-exp'].map((s) => w.at(s).first().boundingBox()));
    expect(sum.x + sum.width / 2).toBeGreaterThan(exp.x);
    expect(sum.x + sum.width / 2).toBeLessThan(exp.x + exp.width);
  }
}).at('step=scores');

it("a first page's link with a scale other than none or sqrt-dk (here 1) is named in the note; no scaling", async (w) => {
  await setStateText(w.page, w.tag, `q=1,2,0,1&k=${K}&scale=1`);
  expect(await w.state()).toMatchObject({ q: ARTICLE.q, scaled: false });
  await expect(w.text('.note')).resolves.toContain('scale=1');
});

it('predict, then reveal: a copy of q as k3 takes the largest weight', async (w) => {
  await w.predict('k3', 'right');
  const state = { ...ARTICLE, k: [ARTICLE.k[0], ARTICLE.k[1], ARTICLE.q] };
  const { ref } = await w.matches(state);
  expect(ref.weights[2]).toBeGreaterThan(ref.weights[0]);
  await w.logged();
});

const MIXED = {
  q: [0.375, -1.25, 2.5, 0.125],
  k: rowsOf('1.5,-0.25,0.75,3;-2,0.625,1,-1.125;0.5,0.5,-0.5,2.25'),
  values: rowsOf('1,2;-1,0.5;0.25,-3'),
  scaled: true,
};
it('every implementation in the menu gives the same shown digits', async (w) => {
  const ids = await w.page.$$eval('#implementation option', (els) => els.map((el) => el.value));
  expect(ids).toEqual(['simd128', 'scalar', 'baseline']);
  const texts = {};
  for (const id of [...ids].reverse()) {
    await w.implementation(id);
    texts[id] = (await w.matches(MIXED)).numbers.map((n) => n.text);
    expect((await w.url()).get('impl')).toBe(id === 'simd128' ? null : id);
    // The log says which implementation computed what.
    expect(await w.page.evaluate((impl) => window.__agCallLog.some((c) => c.impl === impl), id)).toBe(true);
  }
  for (const id of ids) expect(texts[id]).toEqual(texts.simd128);
  await w.logged();
}).at(link(MIXED));
