// The widgets on pages built the way course platforms build theirs (templates in hosts/), served from another
// origin than the widgets, with the snippets of the widget's own Embed control: a plain page under a strict
// Content-Security-Policy header, Canvas (scripts stripped; its own lti.frameResize listener), Moodle (RequireJS
// globals and its own CSS), and the raw HTML outputs of Jupyter Book and Quarto. And widgets used alone: a plain
// page of the site (not the shell) with the strict policy in a meta tag, one script tag, two different widgets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as h from './helpers.mjs';
import { byRole, expectAllLogged, one, readNumbers } from './shown-numbers.mjs';
import { dot, softmax } from '../reference/float64.mjs';

const TAG = 'ag-worked-example';
const template = (name, content) =>
  readFileSync(join(h.ROOT, 'tests/browser/hosts', name), 'utf8').replace('{{CONTENT}}', content);
/** The host page made from the template `name` with `content` pasted in, served by the host server. */
const pasted = (name, content) => host.add(name, template(name, content));
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'";

// The state pasted everywhere: q = (2, 0, 0, 0) with the articles' keys, scaled by 1/sqrt(4).
const Q = [2, 0, 0, 0];
const K = h.seedCase('worked-scores').inputs.K;

/** The pasted state's numbers in `where` (page or frame) against the float64 reference: scores, scaled, weights. */
async function expectPasted(where) {
  await h.waitReady(where, TAG);
  const numbers = await readNumbers(where, TAG);
  const scores = K.map((row) => dot(row, Q));
  const z = scores.map((s) => s / Math.sqrt(Q.length));
  const ref = softmax(z, 1, z.length);
  expect(byRole(numbers, 'score').map((s) => s.value)).toEqual(scores);
  expect(byRole(numbers, 'scaled-score').map((s) => s.value)).toEqual(z);
  const weights = byRole(numbers, 'weight');
  expect(weights).toHaveLength(3);
  weights.forEach((w, j) => expect(Math.abs(w.value - ref[j])).toBeLessThan(1e-6));
}

/** The texts of the dot products a two-definitions widget shows. */
const dotsOf = (widget) =>
  widget.evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-role="dot"]')].map((n) => n.textContent));
const scoresOf = async (page) => byRole(await readNumbers(page, TAG), 'score').map((s) => s.value);

/** The std of sqrt-d's experiment (d = 16, 4000 pairs) spreads like sqrt(16) = 4: within 4 standard errors. */
async function expectSpread(page) {
  await h.waitRun(page, 'ag-sqrt-d', 30000);
  const std = one(await readNumbers(page, 'ag-sqrt-d'), 'std').value;
  expect(Math.abs(std - 4)).toBeLessThanOrEqual(4 * (4 / Math.sqrt(2 * 4000)));
}

// The page of widgets used alone, with its policy in a meta tag (served by the site's server).
const META_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:";
const ALONE = h.hostPage(
  `<h1>A course page</h1>
<ag-two-definitions a="1,2" b="-2,1"></ag-two-definitions>
<ag-worked-example state="v=1&amp;q=2,0,0,0&amp;scaled=1&amp;step=weights"></ag-worked-example>
<ag-two-definitions a="6,6" b="junk"></ag-two-definitions>`,
  `<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${META_CSP}">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<script type="module" src="widgets.js"></script>`,
);

const env = h.useEnv({ extraFiles: { 'alone.html': ALONE } });
const host = h.useHost(env, { site: true });
let snippets;
beforeAll(async () => {
  // The two snippets, as the Embed control gives them for the state above; and both as Canvas keeps them, which
  // keeps a whitelist of elements: the scripts and the unknown <ag-...> element go. The browser's own parser (an
  // inert document) does the stripping.
  await h.withChapter(env, 'worked-example', TAG, { clean: false }, async ({ page }) => {
    const widget = page.locator(TAG);
    await widget.evaluate((el, q) => {
      el.setAttribute('q', q);
      el.setAttribute('scaled', '1');
    }, Q.join(','));
    await widget.locator('details.embed summary').click();
    const snippet = (kind) => widget.locator(`textarea[data-snippet="${kind}"]`).inputValue();
    snippets = { iframe: await snippet('iframe'), element: await snippet('element') };
    snippets.canvas = await page.evaluate((html) => {
      const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
      for (const el of doc.querySelectorAll('*'))
        if (el.localName === 'script' || el.localName.includes('-')) el.remove();
      return doc.body.innerHTML;
    }, `${snippets.element}\n${snippets.iframe}`);
  });
});

describe('course platforms', () => {
  test('a plain page under a strict CSP header: three widgets compute, one runs a worker experiment, no violation', async () => {
    const url = host.add('plain.html', template('csp-plain.html'), { 'Content-Security-Policy': CSP });
    await h.withPage(env, `${url}?agtest=1`, { height: 3000 }, async ({ page }) => {
      for (const tag of [TAG, 'ag-two-definitions', 'ag-sqrt-d']) await h.waitReady(page, tag);
      expect(await scoresOf(page)).toEqual([5, -4, 0]);
      await expectAllLogged(page, TAG);
      expect(await dotsOf(page.locator('ag-two-definitions'))).toEqual(['0']); // (1, 2) and (-2, 1) are perpendicular
      // The experiment ran in the module worker (worker-src 'self'): its kernel calls are in the log.
      await expectSpread(page);
      expect(await page.evaluate(() => window.__agCallLog.some((c) => c.worker))).toBe(true);
    });
  });

  // widgets.js from another origin: the experiment worker starts as a blob: worker that imports
  // experiment-worker.js from the widgets' origin, which a host policy must allow in worker-src.
  const origin = () => new URL(env.server.url).origin;
  const crossOrigin = (name, workerSrc) => {
    const site = origin();
    const body = `<${TAG}></${TAG}>\n<ag-sqrt-d d="16" pairs="4000" seed="3"></ag-sqrt-d>`;
    const policy = `default-src 'self'; script-src ${site} 'wasm-unsafe-eval'; worker-src ${workerSrc}; style-src ${site}; font-src ${site}; img-src 'self' data: blob:; connect-src ${site}; object-src 'none'; base-uri 'none'`;
    return host.add(name, h.hostPage(body, h.widgetsScript(env)), { 'Content-Security-Policy': policy });
  };

  test('widgets from another origin under the policy EMBEDDING.md gives (worker-src blob: <origin>): the experiment runs in the worker', async () => {
    const url = crossOrigin('cross-origin.html', `blob: ${origin()}`);
    await h.withPage(env, url, { height: 2400 }, async ({ page }) => {
      for (const tag of [TAG, 'ag-sqrt-d']) await h.waitReady(page, tag);
      expect(await scoresOf(page)).toEqual([5, -4, 0]);
      await expectSpread(page);
    });
  });

  test("widgets from another origin under worker-src 'self': the experiment says why it cannot run, the rest computes", async () => {
    const url = crossOrigin('cross-origin-no-worker.html', "'self'");
    await h.withPage(env, url, { height: 2400, clean: false }, async ({ page, problems }) => {
      await h.waitReady(page, TAG);
      expect(await scoresOf(page)).toEqual([5, -4, 0]);
      const note = await h.until(() => h.noteOf(page.locator('ag-sqrt-d')), 'the note of the experiment');
      expect(note).toMatch(/experiment could not run/i);
      // The blocked worker is the one violation; nothing else went wrong.
      const violations = await h.cspViolations(page);
      expect(violations.length).toBeGreaterThan(0);
      expect(violations.every((v) => v.startsWith('worker-src'))).toBe(true);
      expect(problems.dialogs).toEqual([]);
      expect(problems.foreign).toEqual([]);
      // Still usable: the worked example recomputes after an input changes.
      await page.locator(TAG).evaluate((el) => el.setAttribute('q', '2,0,0,0'));
      await h.until(async () => (await scoresOf(page))[0] === 2, 'the recomputed scores');
    });
  });

  test('Canvas: scripts stripped from the content, only the iframe remains; Canvas\u2019s own lti.frameResize listener sizes it', async () => {
    expect(snippets.canvas).not.toMatch(/<script|<ag-/);
    expect(snippets.canvas).toMatch(/<iframe /);
    await h.withPage(env, pasted('canvas.html', snippets.canvas), { width: 375 }, async ({ page }) => {
      const frame = await h.frameOf(page);
      await expectPasted(frame);
      // The frame's element (host side) and the document in it agree within 2 px, with no inner scrollbar.
      const height = await h.until(async () => {
        const { height, scrolls, outer } = await h.frameHeights(page, frame);
        return Math.abs(outer - height) <= 2 && !scrolls ? height : null;
      }, 'the frame to be sized to its content');
      const resizes = await page.evaluate(() => window.__resizes);
      expect(resizes.at(-1)).toEqual({ origin: origin(), height });
    });
  });

  test('Moodle: RequireJS globals and the site\u2019s CSS around the element snippet; the widget computes', async () => {
    await h.withPage(env, pasted('moodle.html', snippets.element), { width: 375 }, async ({ page }) => {
      await expectPasted(page);
      // The module left the AMD loader alone, and the loader did not take the module.
      expect(await page.evaluate(() => window.__amdCalls)).toEqual([]);
      expect(await page.evaluate(() => typeof window.define.amd)).toBe('object');
      // Moodle's button and svg rules stop at the shadow boundary.
      const button = (el) => getComputedStyle(el.shadowRoot.querySelector('button')).textTransform;
      expect(await page.locator(TAG).evaluate(button)).toBe('none');
    });
  });

  test.each([
    ['Jupyter Book', 'jupyter-book.html'],
    ['Quarto', 'quarto.html'],
  ])('%s: raw HTML output with both snippets, require.js globals present', async (_name, file) => {
    const url = pasted(file, `${snippets.element}\n${snippets.iframe}`);
    await h.withPage(env, url, { height: 2400 }, async ({ page }) => {
      await expectPasted(page);
      await expectPasted(await h.frameOf(page));
    });
  });
});

describe('widgets alone on a plain page', () => {
  test('two different widgets from one script tag, under a strict CSP, with no violation', async () => {
    await h.withPage(env, 'alone.html?agtest=1', { waitFor: null, width: 375, height: 3000 }, async ({ page }) => {
      const events = [];
      await page.exposeFunction('__recordEvent', (e) => events.push(e));
      await page.evaluate(() =>
        document.addEventListener('ag-statechange', (e) =>
          window.__recordEvent({ tag: e.target.localName, text: e.detail.text }),
        ),
      );
      for (const tag of ['ag-two-definitions', TAG]) await h.waitReady(page, tag);
      const [first, third] = [0, 1].map((i) => page.locator('ag-two-definitions').nth(i));
      await page.waitForFunction(() =>
        [...document.querySelectorAll('ag-two-definitions')].every((el) => el.dataset.status === 'ready'),
      );
      expect(await dotsOf(first)).toEqual(['0']); // (1, 2) and (-2, 1) are perpendicular
      const worked = await readNumbers(page, TAG);
      // q = (2, 0, 0, 0), article keys, scaled by 1/2: scores 1, -1, 0.
      expect(byRole(worked, 'scaled-score').map((s) => s.text)).toEqual(['1', '\u22121', '0']);
      const ref = softmax([1, -1, 0], 1, 3);
      byRole(worked, 'weight').forEach((w, j) => expect(Math.abs(w.value - ref[j])).toBeLessThan(1e-6));
      await expectAllLogged(page, TAG);
      // The third instance: b="junk" ignored with a note, its default kept, a="6,6" used.
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
