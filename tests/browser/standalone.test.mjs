// Widgets used alone: a plain page (not the shell) loads the one module
// widgets.js with a single script tag and uses two different widgets, set by
// attributes, under the strict CSP. No violation is reported, the widgets
// compute, and the page URL is never written.
import { describe, expect, test } from '@jest/globals';
import { useEnv, waitReady, withPage } from './helpers.mjs';
import { byRole, expectAllLogged, readNumbers } from './shown-numbers.mjs';

const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:";
const PLAIN = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>Two widgets on a plain page</title>
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<script type="module" src="widgets.js"></script>
</head>
<body>
<h1>A course page</h1>
<ag-two-definitions a="1,2" b="-2,1"></ag-two-definitions>
<ag-worked-example state="v=1&amp;q=2,0,0,0&amp;scaled=1&amp;step=weights"></ag-worked-example>
<ag-two-definitions a="6,6" b="junk"></ag-two-definitions>
</body>
</html>
`;

const env = useEnv({ extraFiles: { 'plain.html': PLAIN } });
/** The texts of the dot products a two-definitions widget shows. */
const dotsOf = (widget) =>
  widget.evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-role="dot"]')].map((n) => n.textContent));

describe('widgets alone on a plain page', () => {
  test('two different widgets from one script tag, under a strict CSP, with no violation', async () => {
    await withPage(env, 'plain.html?agtest=1', { waitFor: null, width: 375, height: 3000 }, async ({ page }) => {
      const events = [];
      await page.exposeFunction('__recordEvent', (e) => events.push(e));
      await page.evaluate(() =>
        document.addEventListener('ag-statechange', (e) =>
          window.__recordEvent({ tag: e.target.localName, text: e.detail.text }),
        ),
      );
      await waitReady(page, 'ag-two-definitions');
      await waitReady(page, 'ag-worked-example');
      const first = page.locator('ag-two-definitions').first();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('ag-two-definitions')].every((el) => el.dataset.status === 'ready'),
      );
      expect(await dotsOf(first)).toEqual(['0']); // (1, 2) and (-2, 1) are perpendicular
      const worked = await readNumbers(page, 'ag-worked-example');
      // q = (2, 0, 0, 0), article keys, scaled by 1/2: scores 1, -1, 0.
      expect(byRole(worked, 'scaled-score').map((s) => s.text)).toEqual(['1', '\u22121', '0']);
      const e = [Math.exp(1), Math.exp(-1), 1];
      const total = e[0] + e[1] + e[2];
      byRole(worked, 'weight').forEach((w, j) => expect(Math.abs(w.value - e[j] / total)).toBeLessThan(1e-6));
      await expectAllLogged(page, 'ag-worked-example');

      // The third instance: b="junk" ignored with a note, its default kept, a="6,6" used.
      const third = page.locator('ag-two-definitions').nth(1);
      await expect(third.locator('.note').textContent()).resolves.toContain('b=junk');
      expect(await third.evaluate((el) => el.state)).toEqual({ a: [6, 6], b: [4, 3] });
      expect(await dotsOf(third)).toEqual(['42']);

      // A state change fires ag-statechange with the text form; the page URL is untouched.
      const url = page.url();
      await first.evaluate((el) => el.setAttribute('a', '2,2'));
      expect(events.at(-1)).toEqual({ tag: 'ag-two-definitions', text: 'v=1&a=2,2&b=-2,1' });
      expect(page.url()).toBe(url);
      // KaTeX fonts were declared in the host document by the module.
      expect(await page.locator('head link[data-ag-katex]').count()).toBe(1);
    });
  });
});
