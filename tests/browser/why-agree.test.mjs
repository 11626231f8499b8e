// "Why they agree" (#ch-why-agree, <ag-why-agree>): the triangle a, b, a − b and
// the law-of-cosines proof with the current numbers, checked against a
// float64 reference after mouse drags, arrow keys and a changed URL.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { expectParams, expectReopens, predictChoice, ROOT, useEnv, withChapter } from './helpers.mjs';
import { dragTo, keyPoint } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers, U } from './shown-numbers.mjs';

const TAG = 'ag-why-agree';
const CH = 'why-agree';

/** float64 reference for a and b. */
function reference(a, b) {
  const diff = [a[0] - b[0], a[1] - b[1]];
  const side = diff[0] ** 2 + diff[1] ** 2;
  const sa = a[0] ** 2 + a[1] ** 2;
  const sb = b[0] ** 2 + b[1] ** 2;
  const na = Math.sqrt(sa);
  const nb = Math.sqrt(sb);
  const dot = a[0] * b[0] + a[1] * b[1];
  const cos = na && nb ? dot / (na * nb) : NaN;
  const geometric = na && nb ? na * nb * cos : 0;
  return {
    diff,
    side,
    sa,
    sb,
    na,
    nb,
    dot,
    cos,
    angle: Math.acos(Math.max(-1, Math.min(1, cos))),
    sum: sa + sb,
    twiceGeo: 2 * geometric,
    law: sa + sb - 2 * geometric,
    twiceDot: 2 * dot,
    expand: sa - 2 * dot + sb,
    geometric,
    scale: sa + sb,
  };
}

function expectMatches(numbers, a, b) {
  const r = reference(a, b);
  const tol = 20 * U * r.scale + 1e-12; // float32 roundoff relative to the largest terms
  byRole(numbers, 'difference').forEach((d, i) => {
    expectClose(d.value, r.diff[i], 4 * U * (Math.abs(a[i]) + Math.abs(b[i])), `a-b[${i}]`);
    expectShown(d, r.diff[i]);
  });
  for (const [role, key, ref] of [
    ['side', null, r.side],
    ['sq-norm', 'a', r.sa],
    ['sq-norm', 'b', r.sb],
    ['sq-norm', 'a-expand', r.sa],
    ['sq-norm', 'b-expand', r.sb],
    ['norm', 'a', r.na],
    ['norm', 'b', r.nb],
    ['sum-sq', 'law', r.sum],
    ['sum-sq', 'expand', r.sum],
    ['twice-geometric', null, r.twiceGeo],
    ['law', null, r.law],
    ['dot', null, r.dot],
    ['dot', 'final', r.dot],
    ['twice-dot', null, r.twiceDot],
    ['expand', null, r.expand],
    ['minus-twice', 'dot', -2 * r.dot],
    ['minus-twice', 'geometric', -2 * r.geometric],
    ['geometric', null, r.geometric],
  ]) {
    const n = numbers.find((x) => x.role === role && x.key === key);
    if (!n) throw new Error(`missing ${role}.${key}`);
    expectClose(n.value, ref, tol, `${role}.${key}`);
    expectShown(n, ref, { extra: tol });
  }
  // The law of cosines and the expansion both equal the measured side.
  expectClose(one(numbers, 'law').value, one(numbers, 'side').value, tol, 'law = side');
  expectClose(one(numbers, 'expand').value, one(numbers, 'side').value, tol, 'expand = side');
  if (r.na && r.nb) {
    for (const key of ['angle-line', 'substituted']) {
      const c = one(numbers, 'cosine', key);
      expectClose(c.value, r.cos, 20 * U, `cos ${key}`);
      expectShown(c, r.cos, { extra: 20 * U });
    }
    const angle = one(numbers, 'angle');
    expectClose(angle.value, r.angle, 1e-5, 'angle');
    expectShown(angle, (r.angle * 180) / Math.PI, { extra: 1e-3 });
  }
  return r;
}

const env = useEnv();

describe('why-agree: why they agree', () => {
  test('opens on the article pair: |a - b|^2 = 2 three ways (measured, law of cosines, expansion), a.b = 24 forced; predict, then reveal: at a right angle |a - b|^2 is exactly |a|^2 + |b|^2 = 50', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expect(one(numbers, 'side').text).toBe('2');
      expect(one(numbers, 'law').text).toBe('2');
      expect(one(numbers, 'expand').text).toBe('2');
      expect(byRole(numbers, 'difference').map((d) => d.text)).toEqual(['\u22121', '1']);
      expect(one(numbers, 'sum-sq', 'law').text).toBe('50');
      expect(one(numbers, 'twice-geometric').text).toBe('48');
      expect(one(numbers, 'twice-dot').text).toBe('48');
      expect(one(numbers, 'dot', 'final').text).toBe('24');
      expect(one(numbers, 'geometric').text).toBe('24');
      expect(one(numbers, 'cosine', 'substituted').text).toBe('0.96');
      expectMatches(numbers, [3, 4], [4, 3]);
      // The article's claim (seed file): |a - b|^2 = 2 for (3, 4) and (4, 3).
      const cases = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;
      const seed = cases.find((c) => c.id === 'law-of-cosines');
      expect(seed.inputs).toEqual({ a: [3, 4], b: [4, 3] });
      for (const role of ['side', 'law', 'expand'])
        expectClose(one(numbers, role).value, seed.expected, seed.tolerance, `seed ${role}`);
      expect(await page.locator(`${TAG} .katex`).count()).toBeGreaterThan(3);
      // The triangle: the third side is drawn from b's tip to a's tip.
      const side = await page.locator(TAG).evaluate((el) => {
        const l = el.shadowRoot.querySelector('line.vec-d');
        const a = el.shadowRoot.querySelector('line.vec-a');
        const b = el.shadowRoot.querySelector('line.vec-b');
        const at = (n, k) => Number(n.getAttribute(k));
        return {
          from: [at(l, 'x1'), at(l, 'y1')],
          to: [at(l, 'x2'), at(l, 'y2')],
          a: [at(a, 'x2'), at(a, 'y2')],
          b: [at(b, 'x2'), at(b, 'y2')],
        };
      });
      expect(side.from).toEqual(side.b);
      expect(side.to).toEqual(side.a);
      // The prediction's answer loads its example.
      await predictChoice(page, TAG, 'less', 'wrong');
      await expect(page.locator(`${TAG} .predict-result`).textContent()).resolves.toMatch(/\|a \u2212 b\|\u00b2 = 50/);
      expect(await page.locator(TAG).evaluate((el) => el.state)).toEqual({ a: [3, 4], b: [-4, 3] });
      const revealed = await readNumbers(page, TAG);
      expectMatches(revealed, [3, 4], [-4, 3]);
      expect(one(revealed, 'twice-geometric').value).toBe(0);
      await predictChoice(page, TAG, 'equal', 'right');
      await expectAllLogged(page, TAG);
    });
  });

  test('dragging a with the mouse and b with the keyboard gives the float64-reference values, and the URL reopens them', async () => {
    await withChapter(env, CH, TAG, async ({ page }) => {
      await dragTo(page, TAG, 'a', [-2, 3.5]);
      expectMatches(await readNumbers(page, TAG), [-2, 3.5], [4, 3]);

      await keyPoint(page, TAG, 'b', ['ArrowLeft', 'Shift+ArrowDown', 'Shift+ArrowDown', 'ArrowUp']);
      const b = [3.75, 1.25];
      expect(await page.locator(TAG).evaluate((el) => el.state.b)).toEqual(b);
      const numbers = await readNumbers(page, TAG);
      const ref = expectMatches(numbers, [-2, 3.5], b);
      expect(ref.dot).toBeLessThan(0); // obtuse: -2 a.b is positive, the side is longer than Pythagoras
      expect(one(numbers, 'side').value).toBeGreaterThan(one(numbers, 'sum-sq', 'law').value);
      await expectAllLogged(page, TAG);
      await expect(page.locator(`${TAG} [aria-live]`).textContent()).resolves.toContain(
        `|a \u2212 b|\u00b2 = ${one(numbers, 'side').text}`,
      );
      await expect(page.locator(`${TAG} [data-point="b"]`).getAttribute('aria-valuetext')).resolves.toBe(
        'b = (3.75, 1.25)',
      );

      await expectParams(page, CH, { a: '-2,3.5', b: '3.75,1.25' });
      await expectReopens(env, page, CH, TAG, numbers);
    });
  });

  test('a URL with other vectors, and one with a zero vector, shows their reference values', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=-5.5,1.25&b=2,-6` }, async ({ page }) => {
      expectMatches(await readNumbers(page, TAG), [-5.5, 1.25], [2, -6]);
      await expectAllLogged(page, TAG);
    });

    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=0,0&b=2,-6` }, async (zero) => {
      const numbers = await readNumbers(zero.page, TAG);
      expectMatches(numbers, [0, 0], [2, -6]);
      expect(one(numbers, 'side').value).toBe(40);
      expect(numbers.some((n) => n.role === 'cosine' || n.role === 'angle')).toBe(false);
      await expectAllLogged(zero.page, TAG);
    });
  });

  test('a negative term flips its sign: 50 + 48, not 50 \u2212 \u221248, while data-value keeps the negative result', async () => {
    await withChapter(env, CH, TAG, { search: `?ch=${CH}&v=1&a=3,4&b=-4,-3` }, async ({ page }) => {
      const numbers = await readNumbers(page, TAG);
      expectMatches(numbers, [3, 4], [-4, -3]); // shown (with the flipped separators) against the reference
      const lines = (step) =>
        page
          .locator(`${TAG} .step.${step} p.line`)
          .evaluateAll((ps) => ps.map((p) => p.textContent.replace(/\s+/g, ' ').trim()));
      const law = await lines('law');
      expect(law).toContain('= 25 + 25 + 2 \u00d7 5 \u00d7 5 \u00d7 0.96');
      expect(law).toContain('= 50 + 48');
      const expand = await lines('expand');
      expect(expand).toContain('= 25 + 2 \u00d7 24 + 25');
      expect(expand).toContain('= 50 + 48');
      for (const [role, value] of [
        ['twice-geometric', -48],
        ['twice-dot', -48],
      ]) {
        const n = one(numbers, role);
        expect(n.text).toBe('48');
        expect(n.sign).toBe('-1');
        expect(n.sep).toEqual({ op: '\u2212', text: '+' });
        expectClose(n.value, value, 40 * U * 50, role);
        expect(n.shown).toBe(-48);
      }
      const dot = numbers.find((n) => n.role === 'dot' && n.key === null); // in "2 \u00d7 a\u00b7b"
      expect([dot.text, dot.value, dot.sep.text]).toEqual(['24', -24, '+']);
      const all = await page.locator(TAG).evaluate((el) => el.shadowRoot.textContent.replace(/\s+/g, ' '));
      expect(all).not.toMatch(/[+\u2212] [\u2212-]\d/);
      // Back to an acute pair: the separators are written as before.
      await page.evaluate((tag) => document.querySelector(tag).setState({ b: [4, 3] }), TAG);
      await page.waitForFunction((tag) => document.querySelector(tag).state.b[1] === 3, TAG);
      expect(await lines('law')).toContain('= 50 \u2212 48');
      expect(await lines('expand')).toContain('= 25 \u2212 2 \u00d7 24 + 25');
      expectMatches(await readNumbers(page, TAG), [3, 4], [4, 3]);
      await expectAllLogged(page, TAG);
    });
  });
});
