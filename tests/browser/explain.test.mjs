// "What weights do and do not explain" (#ch-explain, <ag-weights-explain>):
// a two-layer residual stack; each key's weight beside the change of the
// final output when that key is hidden, against a float64 reference written
// here; both kinds of case (large weight / small change and small weight /
// large change) exist for the default sentence.
import { describe, expect, test } from '@jest/globals';
import { predictChoice, settledUrl, urlParams, useEnv, withChapter } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, readNumbers, expectThreeDigits } from './shown-numbers.mjs';
import { matmulRows, matmulRowsT, softmaxRows } from './reference-rows.mjs';

const TAG = 'ag-weights-explain';
const CH = 'explain';

/** float64 one-head attention layer (W as [in, out], no biases), `hidden` key masked for every query. */
function mha(X, { wQ, wK, wV, wO }, hidden = -1) {
  const mm = (A, B) => matmulRows(A, B).C;
  const Q = mm(X, wQ);
  const K = mm(X, wK);
  const V = mm(X, wV);
  const d = X[0].length;
  const S = matmulRowsT(Q, K).map((row) => row.map((s) => s / Math.sqrt(d)));
  const A = softmaxRows(S, (i, j) => (j === hidden ? -Infinity : 0));
  return { out: mm(mm(A, V), wO), A };
}

function stack(X, layers, ablate = null) {
  const add = (a, b) => a.map((r, i) => r.map((x, c) => x + b[i][c]));
  const l1 = mha(X, layers[0], ablate?.layer === 1 ? ablate.key : -1);
  const x1 = add(X, l1.out);
  const l2 = mha(x1, layers[1], ablate?.layer === 2 ? ablate.key : -1);
  return { x2: add(x1, l2.out), A: [l1.A, l2.A] };
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
      const k = kinds(ref.weights, ref.effects);
      expect(k).toContain('large-little');
      expect(k).toContain('small-much');
      expect(state).toMatchObject({ layer: '2', query: 4 });
      await expect(page.locator(`${TAG} .cases li[data-kind="large-little"]`).count()).resolves.toBeGreaterThan(0);
      await expect(page.locator(`${TAG} .cases li[data-kind="small-much"]`).count()).resolves.toBeGreaterThan(0);
      await expectAllLogged(page, TAG);
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
      const k = kinds(ref.weights, ref.effects);
      expect(k).toContain('large-little');
      expect(k).toContain('small-much');
      await page.locator(`${TAG} input[name="layer"][value="1"]`).check();
      await page.locator(`${TAG} [data-cell="1-1"]`).focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      expect(await page.locator(TAG).evaluate((el) => [el.state.layer, el.state.query])).toEqual(['1', 2]);
      const { numbers } = await check(page);
      await expectAllLogged(page, TAG);
      expect([(await urlParams(page)).get('layer'), (await urlParams(page)).get('query')]).toEqual(['1', '2']);
      await withChapter(
        env,
        CH,
        TAG,
        {
          search: `${(await settledUrl(page)).search.replace(/&?seed=\d+/, '')}&seed=7`,
        },
        async (copy) => {
          expect(await copy.page.locator(TAG).evaluate((el) => el.state.seed)).toBe(7);
          await check(copy.page);
        },
      );
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
