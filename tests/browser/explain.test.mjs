// "What weights do and do not explain" (#ch-explain, <ag-weights-explain>): each key's weight beside the
// change of the stack's output when it is hidden, against a float64 reference written here; both kinds of
// case (large weight / small change and small weight / large change) exist for the default sentence.
import { describe, expect, test } from '@jest/globals';
import { expectParams, predictChoice, pressKeys, settledUrl, stateOf, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, readNumbers, expectThreeDigits } from './shown-numbers.mjs';
import { multiHeadRows } from './reference-rows.mjs';

const TAG = 'ag-weights-explain';
const CH = 'explain';

/** float64 two-layer residual stack of one-head attention layers; `ablate` hides a key in one layer. */
function stack(X, layers, ablate = null) {
  const add = (a, b) => a.map((r, i) => r.map((x, c) => x + b[i][c]));
  const mask = (layer) => (ablate?.layer === layer ? (i, j) => (j === ablate.key ? -Infinity : 0) : null);
  const l1 = multiHeadRows(X, layers[0], 1, mask(1));
  const x1 = add(X, l1.output);
  const l2 = multiHeadRows(x1, layers[1], 1, mask(2));
  return { x2: add(x1, l2.output), A: [l1.weights[0], l2.weights[0]] };
}

function reference(X, layers, layer, i) {
  const base = stack(X, layers);
  const weights = base.A[layer - 1][i];
  const effects = X.map((_, j) => {
    const y = stack(X, layers, { layer, key: j }).x2[i];
    return Math.hypot(...y.map((v, c) => v - base.x2[i][c]));
  });
  return { weights, effects, base };
}

const rank = (v) => v.map((x) => v.filter((y) => y > x).length);

function kinds(weights, effects) {
  const T = weights.length;
  const rw = rank(weights);
  const re = rank(effects);
  return weights.map((_, j) =>
    rw[j] < Math.floor(T / 2) && re[j] >= Math.ceil(T / 2)
      ? 'large-little'
      : rw[j] >= Math.ceil(T / 2) && re[j] < Math.floor(T / 2)
        ? 'small-much'
        : null,
  );
}

async function check(page) {
  const numbers = await readNumbers(page, TAG);
  const state = await page.locator(TAG).evaluate((el) => el.state);
  const inputs = await page.locator(TAG).evaluate((el) => JSON.parse(JSON.stringify(el.inputs)));
  const T = inputs.words.length;
  const i = state.query - 1;
  const ref = reference(inputs.X, inputs.layers, Number(state.layer), i);
  const w = byRole(numbers, 'key-weight');
  const e = byRole(numbers, 'effect');
  expect(w.length).toBe(T);
  const scale = Math.max(...ref.effects);
  w.forEach((n, j) => expectClose(n.value, ref.weights[j], 2e-5, `weight ${j + 1}`));
  e.forEach((n, j) => expectClose(n.value, ref.effects[j], 1e-4 * (1 + scale), `effect ${j + 1}`));
  // The heat map row of the query holds the same weights.
  const hm = numbers.filter((n) => n.role === 'weight' && n.key.startsWith(`${i + 1}-`));
  hm.forEach((n) => expectClose(n.value, ref.weights[Number(n.key.split('-')[1]) - 1], 2e-5, `A ${n.key}`));
  expectThreeDigits(numbers, (n) => n.role.startsWith('weight'));
  // The page marks the cases the reference finds.
  const marked = await page
    .locator(`${TAG} .effects tbody tr`)
    .evaluateAll((rows) => rows.map((r) => r.dataset.kind || null));
  expect(marked).toEqual(kinds(ref.weights, ref.effects));
  // Each tag says the key's two ranks among the query's keys (1 = the largest), as the page's rule states.
  await expect(page.locator(`${TAG} [data-role="tag-rule"]`).textContent()).resolves.toMatch(
    /Tags compare ranks among this query.s keys \(1 = the largest\).*top half by weight but in the bottom half by the change/,
  );
  const [rw, re] = [rank(ref.weights), rank(ref.effects)];
  const cases = await page
    .locator(`${TAG} .cases li[data-kind]`)
    .evaluateAll((items) => items.map((li) => ({ key: Number(li.dataset.key), text: li.textContent })));
  for (const { key, text } of cases)
    expect(text).toContain(`(weight rank ${rw[key - 1] + 1} of ${T}, change rank ${re[key - 1] + 1} of ${T})`);
  return { numbers, state, inputs, ref };
}

const env = useEnv();

describe('explain: what weights do and do not explain', () => {
  test('default sentence: weights and effects match float64, and both kinds of case exist', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const { inputs, state, ref } = await check(page);
      expect(inputs.words).toEqual(['the', 'old', 'cat', 'sat', 'on', 'mats']);
      // The default view (layer 2, "sat") already shows both kinds.
      expect(kinds(ref.weights, ref.effects)).toEqual(expect.arrayContaining(['large-little', 'small-much']));
      expect(state).toMatchObject({ layer: '2', query: 4 });
      for (const kind of ['large-little', 'small-much'])
        expect(await page.locator(`${TAG} .cases li[data-kind="${kind}"]`).count()).toBeGreaterThan(0);
      const kernels = await page.evaluate(() => [...new Set(window.__agCallLog.map((c) => c.kernel))]);
      expect(kernels).toEqual(expect.arrayContaining(['multi_head_attention', 'norm']));
    });
  });

  test('find, layer, heat-map keys and the URL', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await page.locator(`${TAG} [data-action="find"]`).click();
      const s1 = await page.locator(TAG).evaluate((el) => el.state);
      expect([s1.layer, s1.query]).not.toEqual(['2', 4]);
      const { ref } = await check(page);
      expect(kinds(ref.weights, ref.effects)).toEqual(expect.arrayContaining(['large-little', 'small-much']));
      await page.locator(`${TAG} input[name="layer"][value="1"]`).check();
      await page.locator(`${TAG} [data-cell="1-1"]`).focus();
      await pressKeys(page, 'ArrowDown', 'Enter');
      expect(await page.locator(TAG).evaluate((el) => [el.state.layer, el.state.query])).toEqual(['1', 2]);
      const { numbers } = await check(page);
      await expectAllLogged(page, TAG);
      await expectParams(page, CH, { layer: '1', query: '2' });
      const search = `${(await settledUrl(page)).search.replace(/&?seed=\d+/, '')}&seed=7`;
      await withChapter(env, CH, TAG, { search }, async (copy) => {
        expect((await stateOf(copy.page, TAG)).seed).toBe(7);
        await check(copy.page);
      });
      await withChapter(env, CH, TAG, { search: (await settledUrl(page)).search, clean: false }, async (same) =>
        expect((await readNumbers(same.page, TAG)).map((n) => n.value)).toEqual(numbers.map((n) => n.value)),
      );
    });
  });

  test('predict, then reveal: the largest weight is not the largest change', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&layer=1&query=1` }, async ({ page }) => {
      await predictChoice(page, TAG, 'yes', 'wrong');
      const { ref } = await check(page);
      const am = (v) => v.indexOf(Math.max(...v));
      expect(am(ref.weights)).not.toBe(am(ref.effects));
    });
  });
});
