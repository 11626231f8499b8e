// The worked single-head example (#ch-worked-example, <ag-worked-example>): scores, exp, sum, weights and
// output against a float64 reference, through the controls, links, every implementation and the prediction.
import { describe, expect, test } from '@jest/globals';
import { expectClean, expectParams, openChapter, predictChoice, rowsOf, seedCase } from './helpers.mjs';
import { settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, expectNumbers, one, readNumbers, U } from './shown-numbers.mjs';
import { dot, softmax, sumAbsProd } from '../reference/float64.mjs';

const TAG = 'ag-worked-example';
const CH = 'worked-example';
const ARTICLE = {
  q: [1, 2, 0, 1],
  k: rowsOf('1,2,1,0;-1,-2,0,1;0,0,1,0'),
  values: rowsOf('1,0;0,1;0,0'),
  scaled: false,
};

/** In the page: dispatches keydown `keys` at the field `input` in one task (no frame between them); its text then. */
function pressInTask(input, keys) {
  for (const key of keys)
    input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, composed: true, cancelable: true }));
  return input.value;
}

/** What `read` gives once it gives `want`, or after about two seconds, whatever it gives then. */
async function settled(read, want) {
  for (let i = 0; i < 100; i++) {
    const got = await read();
    if (got === want) return got;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
}

const firstScore = async (page) => byRole(await readNumbers(page, TAG), 'score')[0].value;

/** float64 reference: scores, scaled scores, exp, sum, weights, output. */
export function reference({ q, k, values: v, scaled }) {
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

function expectMatches(numbers, state) {
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
}

const inputs = (page) => page.$$eval(`${TAG} input.vec-input`, (els) => els.map((el) => Number(el.value)));
const flat = (s) => [...s.q, ...s.k.flat(), ...s.values.flat()];
const search = (s) =>
  `?ch=${CH}&v=1&q=${s.q.join(',')}&k=${s.k.map((r) => r.join(',')).join(';')}&values=${s.values.map((r) => r.join(',')).join(';')}&scaled=${s.scaled ? 1 : 0}`;

const env = useEnv();

describe('worked-example: the worked single-head example', () => {
  test('opens on the article example: scores 5, -4, 0; exp 148.4, 0.01832, 1; sum 149.4; weights 0.9932, 0.0001226, 0.006692', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'score').map((s) => s.text)).toEqual(['5', '\u22124', '0']);
      expect(byRole(numbers, 'exp').map((s) => s.text)).toEqual(['148.4', '0.01832', '1']);
      expect(one(numbers, 'sum').text).toBe('149.4');
      expect(byRole(numbers, 'weight').map((w) => w.text)).toEqual(['0.9932', '0.0001226', '0.006692']);
      expectMatches(numbers, ARTICLE);
      // The seed file's claims (the article's numbers).
      for (const [id, role] of [
        ['worked-scores', 'score'],
        ['worked-softmax-unscaled', 'weight'],
      ]) {
        const { expected, tolerance } = seedCase(id);
        expected.forEach((x, j) => expectClose(byRole(numbers, role)[j].value, x, tolerance, `seed ${role} ${j + 1}`));
      }
      expect(await inputs(page)).toEqual(flat(ARTICLE));
      await expectAllLogged(page, TAG);
    });
  });

  test('scaled by 1/sqrt(d_k): 2.5, -2, 0 and weights 0.9148, 0.01016, 0.07509', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.getByLabel(/^scaled:/).check();
      await page.waitForSelector(`${TAG}[data-scale="sqrt-dk"]`);
      const numbers = await readNumbers(page, TAG);
      expect(byRole(numbers, 'scaled-score').map((s) => s.text)).toEqual(['2.5', '\u22122', '0']);
      expect(byRole(numbers, 'weight').map((w) => w.text)).toEqual(['0.9148', '0.01016', '0.07509']);
      expectMatches(numbers, { ...ARTICLE, scaled: true });
      expect((await urlParams(page)).get('scaled')).toBe('1');
      await expectAllLogged(page, TAG);
    });
  });

  test('edits through the controls give the reference values; the URL reopens them; a non-number is a note', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.getByLabel('q, component 3').fill('1.5');
      await page.getByLabel('k2, component 4').fill('-2.25');
      await page.getByLabel('k3, component 1').fill('3');
      await page.getByLabel('v3, component 2').fill('4');
      await page.getByLabel('k1, component 2').focus();
      await page.keyboard.press('ArrowUp'); // a number input steps by one
      // Stepping keeps the decimals of the text: 2.3 - 1 is 1.3 in the field, as the browser's own stepping gives.
      await page.getByLabel('q, component 3').fill('2.3');
      await page.getByLabel('q, component 3').press('ArrowDown');
      expect(await settled(() => page.getByLabel('q, component 3').inputValue(), '1.3')).toBe('1.3'); // shown by the next frame
      await page.getByLabel('q, component 3').fill('1.5');
      const k = '1,3,1,0;-1,-2,0,-2.25;3,0,1,0';
      const state = { q: [1, 2, 1.5, 1], k: rowsOf(k), values: rowsOf('1,0;0,1;0,4'), scaled: false };
      expect(await inputs(page)).toEqual(flat(state));
      expectMatches(await readNumbers(page, TAG), state);
      await page.getByLabel(/^scaled:/).check();
      const scaled = { ...state, scaled: true };
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, scaled);
      await expectAllLogged(page, TAG);

      await expectParams(page, CH, { q: '1,2,1.5,1', k, scaled: '1' });

      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search }, async (copy) => {
        expect(await inputs(copy.page)).toEqual(flat(scaled));
        expect((await readNumbers(copy.page, TAG)).map((n) => n.text)).toEqual(numbers.map((n) => n.text));
      });

      const before = (await settledUrl(page)).href;
      await page.getByLabel('q, component 1').fill('');
      await expect(page.locator(`${TAG} .note`).textContent()).resolves.toMatch(/q, component 1/);
      expect((await settledUrl(page)).href).toBe(before);
      // With the entry still empty, the scale toggle recomputes the last complete
      // inputs, and the link says the same as the table.
      await page.getByLabel(/^unscaled:/).check();
      expectMatches(await readNumbers(page, TAG), state);
      expect((await urlParams(page)).get('scaled')).toBe('0');
      expect((await urlParams(page)).get('q')).toBe('1,2,1.5,1');
      await page.getByLabel(/^scaled:/).check();
      await page.getByLabel('q, component 1').fill('1');
      await expect(page.locator(`${TAG} .note`).isHidden()).resolves.toBe(true);
      expectMatches(await readNumbers(page, TAG), scaled);
    });
  });

  test('arrow steps faster than frames are all kept; a key or an edit before the next frame acts on the stepped text', async () => {
    const { page, problems } = await openChapter(env, CH, TAG);
    const field = page.getByLabel('q, component 1'); // 1 in the article's q
    // Synthetic key events in one task: no frame runs between them, so the
    // field still shows the old text while the figure already follows.
    expect(await field.evaluate(pressInTask, ['ArrowUp', 'ArrowUp', 'ArrowUp'])).toBe('1');
    expect(await settled(() => field.inputValue(), '4')).toBe('4');
    expect(await settled(() => firstScore(page), 8)).toBe(8); // q·k1 = 4 + 4 + 0 + 0
    // Another key (here Home) first writes the stepped text, so that the browser edits what is on the screen.
    expect(await field.evaluate(pressInTask, ['ArrowDown', 'Home'])).toBe('3');
    // A typed value wins over a step not yet shown.
    const typed = await field.evaluate(async (input) => {
      input.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'ArrowUp', bubbles: true, composed: true, cancelable: true }),
      );
      input.value = '-2';
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      return input.value;
    });
    expect(typed).toBe('-2');
    expect(await settled(() => firstScore(page), 2)).toBe(2); // -2 + 4 + 0 + 0
    await expectClean({ page, problems });
  });

  test('a score past 88.7: exp and its sum show infinity with a note, the weights stay right', async () => {
    const state = { ...ARTICLE, q: [85, 2, 0, 1] };
    await withChapter(env, CH, TAG, { search: '?ch=worked-example&v=1&q=85,2,0,1' }, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      // Score 1: 85 + 4 = 89 > ln(FLT_MAX) = 88.72, so exp overflows float32.
      expect(byRole(numbers, 'exp')[0].text).toBe('\u221e');
      expect(one(numbers, 'sum').text).toBe('\u221e');
      await expect(page.locator(`${TAG} .overflow-note`).textContent()).resolves.toMatch(/exp\(89\).*largest float32/);
      // The weights come from the stable softmax: float64 reference, max subtracted.
      const { weights } = reference({ ...state, scaled: false });
      byRole(numbers, 'weight').forEach((w, j) => expectClose(w.value, weights[j], 4 * U + 1e-30, `weight ${j + 1}`));
      await expect(page.locator(`${TAG} .note`).isHidden()).resolves.toBe(true);
      await expectAllLogged(page, TAG);
    });
  });

  test('stepping shows scores, then exp, then the sum, then the weights, then the output', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&step=scores` }, async ({ page }) => {
      const visible = (role) => page.locator(`${TAG} [data-role="${role}"]`).first().isVisible();
      for (const [step, shown, hidden] of [
        [null, 'score', ['exp', 'weight']],
        ['2. exp', 'exp', ['sum']],
        ['3. Sum', 'sum', ['weight']],
        ['4. Weights', 'weight', ['output']],
        ['5. Output', 'output', []],
      ]) {
        if (step) await page.getByLabel(step).check();
        expect(await visible(shown)).toBe(true);
        for (const role of hidden) expect(await visible(role)).toBe(false);
      }
      expect((await urlParams(page)).get('step')).toBe('output');
    });
  });

  test('predict, then reveal: a copy of q as k3 takes the largest weight', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await predictChoice(page, TAG, 'k3', 'right');
      const state = { ...ARTICLE, k: [ARTICLE.k[0], ARTICLE.k[1], ARTICLE.q] };
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, state);
      const ref = reference(state);
      expect(ref.weights[2]).toBeGreaterThan(ref.weights[0]);
      await expectAllLogged(page, TAG);
    });
  });

  test('every implementation in the menu gives the same shown digits', async () => {
    const state = {
      q: [0.375, -1.25, 2.5, 0.125],
      k: rowsOf('1.5,-0.25,0.75,3;-2,0.625,1,-1.125;0.5,0.5,-0.5,2.25'),
      values: rowsOf('1,2;-1,0.5;0.25,-3'),
      scaled: true,
    };
    await withChapter(env, CH, TAG, { search: search(state) }, async ({ page }) => {
      const ids = await page.$$eval('#implementation option', (els) => els.map((el) => el.value));
      expect(ids).toEqual(['simd128', 'scalar', 'baseline']);
      const texts = {};
      for (const id of [...ids].reverse()) {
        await page.selectOption('#implementation', id);
        await page.waitForSelector(`${TAG}[data-computed-by="${id}"]`);
        const numbers = await readNumbers(page, TAG);
        expectMatches(numbers, state);
        texts[id] = numbers.map((n) => n.text);
        expect((await urlParams(page)).get('impl')).toBe(id === 'simd128' ? null : id);
        // The log says which implementation computed what.
        expect(await page.evaluate((impl) => window.__agCallLog.some((c) => c.impl === impl), id)).toBe(true);
      }
      for (const id of ids) expect(texts[id]).toEqual(texts.simd128);
      await expectAllLogged(page, TAG);
    });
  });
});
