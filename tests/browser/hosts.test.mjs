// The widgets on pages built the way course platforms build theirs
// (templates in hosts/): a plain page under a strict Content-Security-Policy
// header, Canvas (scripts stripped; its own lti.frameResize listener),
// Moodle (RequireJS globals and its own CSS), and the raw HTML outputs of
// Jupyter Book and Quarto. The snippets come from the widget's own Embed
// control; the host pages are served from another origin than the widgets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  cspViolations,
  expectHostClean,
  withChapter,
  openUrl,
  ROOT,
  startEnv,
  startHostServer,
  waitReady,
} from './helpers.mjs';
import { byRole, expectAllLogged, one, readNumbers } from './shown-numbers.mjs';
import { dot, softmax } from '../reference/float64.mjs';

const TAG = 'ag-worked-example';
const HOSTS = join(ROOT, 'tests/browser/hosts');
const template = (name) => readFileSync(join(HOSTS, name), 'utf8');
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'";

// The state pasted everywhere: q = (2, 0, 0, 0) with the articles' keys, scaled by 1/sqrt(4).
const Q = [2, 0, 0, 0];
const K = [
  [1, 2, 1, 0],
  [-1, -2, 0, 1],
  [0, 0, 1, 0],
];

/** float64 reference: scores, scaled scores, softmax weights. */
function reference() {
  const scores = K.map((row) => dot(row, Q));
  const z = scores.map((s) => s / Math.sqrt(Q.length));
  return { scores, z, weights: softmax(z, 1, z.length) };
}

function expectPastedNumbers(numbers) {
  const ref = reference();
  expect(byRole(numbers, 'score').map((s) => s.value)).toEqual(ref.scores);
  expect(byRole(numbers, 'scaled-score').map((s) => s.value)).toEqual(ref.z);
  const weights = byRole(numbers, 'weight');
  expect(weights).toHaveLength(3);
  weights.forEach((w, j) => expect(Math.abs(w.value - ref.weights[j])).toBeLessThan(1e-6));
}

/** Polls `check` until it gives a truthy value. */
async function until(check, what, tries = 150) {
  for (let i = 0; i < tries; i += 1) {
    const value = await check();
    if (value) return value;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let env;
let host;
const pages = {};
let snippets;
beforeAll(async () => {
  env = await startEnv();
  host = await startHostServer({ pages, root: env.site });
  // The two snippets, as the Embed control gives them for the state above.
  await withChapter(env, 'worked-example', TAG, { clean: false }, async ({ page }) => {
    const widget = page.locator(TAG);
    await widget.evaluate((el, q) => {
      el.setAttribute('q', q);
      el.setAttribute('scaled', '1');
    }, Q.join(','));
    await widget.locator('details.embed summary').click();
    snippets = {
      iframe: await widget.locator('textarea[data-snippet="iframe"]').inputValue(),
      element: await widget.locator('textarea[data-snippet="element"]').inputValue(),
    };
  });
});
afterAll(async () => {
  await host?.close();
  await env?.close();
});

/** The embed frame of `page` (the one whose address is embed.html). */
const embedFrame = (page) => until(() => page.frames().find((f) => f.url().includes('/embed.html')), 'the embed frame');

/** The frame's element height (host side) and the document height inside it agree within 2 px, with no inner scrollbar. */
async function expectSizedFrame(page, frame) {
  return until(async () => {
    const inner = await frame.evaluate(() => ({
      height: Math.ceil(document.documentElement.getBoundingClientRect().height),
      scroll: document.documentElement.scrollHeight,
      client: document.documentElement.clientHeight,
    }));
    const outer = await page.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height);
    return Math.abs(outer - inner.height) <= 2 && inner.scroll <= inner.client ? { inner, outer } : null;
  }, 'the frame to be sized to its content');
}

describe('course platforms', () => {
  test('a plain page under a strict CSP header: three widgets compute, one runs a worker experiment, no violation', async () => {
    pages['/plain.html'] = { body: template('csp-plain.html'), headers: { 'Content-Security-Policy': CSP } };
    const opened = await openUrl(env, `${host.url}plain.html?agtest=1`, { height: 3000 });
    const { page } = opened;
    for (const tag of ['ag-worked-example', 'ag-two-definitions', 'ag-sqrt-d']) await waitReady(page, tag);
    const worked = await readNumbers(page, 'ag-worked-example');
    expect(byRole(worked, 'score').map((s) => s.value)).toEqual([5, -4, 0]);
    await expectAllLogged(page, 'ag-worked-example');
    const dot = await page
      .locator('ag-two-definitions')
      .evaluate((el) => Number(el.shadowRoot.querySelector('[data-role="dot"]').dataset.value));
    expect(dot).toBe(0); // (1, 2) and (-2, 1) are perpendicular
    // The experiment ran in the module worker (worker-src 'self'): its kernel calls are in the log.
    await page.waitForFunction(() => document.querySelector('ag-sqrt-d')?.dataset.run === 'done', null, {
      timeout: 30000,
    });
    expect(await page.evaluate(() => window.__agCallLog.some((c) => c.worker))).toBe(true);
    // Scores of standard normal vectors in d = 16 spread like sqrt(16) = 4; 4000 pairs: within 4 standard errors.
    const std = one(await readNumbers(page, 'ag-sqrt-d'), 'std').value;
    expect(Math.abs(std - 4)).toBeLessThanOrEqual(4 * (4 / Math.sqrt(2 * 4000)));
    await expectHostClean(opened);
    await opened.context.close();
  });

  // widgets.js from another origin: the experiment worker starts as a blob: worker that imports
  // experiment-worker.js from the widgets' origin, which a host policy must allow in worker-src.
  const crossOriginPage = () => {
    const site = new URL(env.server.url);
    return [
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widgets from another origin</title>',
      `<script type="module" src="${site.href}widgets.js"></script></head><body>`,
      '<ag-worked-example></ag-worked-example>',
      '<ag-sqrt-d d="16" pairs="4000" seed="3"></ag-sqrt-d>',
      '</body></html>',
    ].join('\n');
  };
  const crossOriginPolicy = (workerSrc) => {
    const site = new URL(env.server.url).origin;
    return `default-src 'self'; script-src ${site} 'wasm-unsafe-eval'; worker-src ${workerSrc}; style-src ${site}; font-src ${site}; img-src 'self' data: blob:; connect-src ${site}; object-src 'none'; base-uri 'none'`;
  };

  test('widgets from another origin under the policy EMBEDDING.md gives (worker-src blob: <origin>): the experiment runs in the worker', async () => {
    const site = new URL(env.server.url).origin;
    pages['/cross-origin.html'] = {
      body: crossOriginPage(),
      headers: { 'Content-Security-Policy': crossOriginPolicy(`blob: ${site}`) },
    };
    const opened = await openUrl(env, `${host.url}cross-origin.html`, { height: 2400 });
    const { page } = opened;
    for (const tag of ['ag-worked-example', 'ag-sqrt-d']) await waitReady(page, tag);
    expect(byRole(await readNumbers(page, TAG), 'score').map((s) => s.value)).toEqual([5, -4, 0]);
    await page.waitForFunction(() => document.querySelector('ag-sqrt-d')?.dataset.run === 'done', null, {
      timeout: 30000,
    });
    const std = one(await readNumbers(page, 'ag-sqrt-d'), 'std').value;
    expect(Math.abs(std - 4)).toBeLessThanOrEqual(4 * (4 / Math.sqrt(2 * 4000)));
    await expectHostClean(opened);
    await opened.context.close();
  });

  test("widgets from another origin under worker-src 'self': the experiment says why it cannot run, the rest computes", async () => {
    pages['/cross-origin-no-worker.html'] = {
      body: crossOriginPage(),
      headers: { 'Content-Security-Policy': crossOriginPolicy("'self'") },
    };
    const opened = await openUrl(env, `${host.url}cross-origin-no-worker.html`, { height: 2400 });
    const { page } = opened;
    await waitReady(page, TAG);
    expect(byRole(await readNumbers(page, TAG), 'score').map((s) => s.value)).toEqual([5, -4, 0]);
    const note = await until(
      () =>
        page.locator('ag-sqrt-d').evaluate((el) => {
          const n = el.shadowRoot.querySelector('.note');
          return n && !n.hidden ? n.textContent : null;
        }),
      'the note of the experiment',
    );
    expect(note).toMatch(/experiment could not run/i);
    // The blocked worker is the one violation; nothing else went wrong.
    const violations = await cspViolations(page);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.every((v) => v.startsWith('worker-src'))).toBe(true);
    expect(opened.problems.dialogs).toEqual([]);
    expect(opened.problems.foreign).toEqual([]);
    // Still usable: the worked example recomputes after an input changes.
    await page.locator(TAG).evaluate((el) => el.setAttribute('q', '2,0,0,0'));
    await until(async () => byRole(await readNumbers(page, TAG), 'score')[0]?.value === 2, 'the recomputed scores');
    await opened.context.close();
  });

  test('Canvas: scripts stripped from the content, only the iframe remains; Canvas\u2019s own lti.frameResize listener sizes it', async () => {
    // Canvas keeps a whitelist of elements: the scripts and the unknown <ag-...> element go.
    // The browser's own parser (an inert document) does the stripping.
    const blank = await env.browser.newPage();
    const stripped = await blank.evaluate((html) => {
      const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
      for (const el of doc.querySelectorAll('*'))
        if (el.localName === 'script' || el.localName.includes('-')) el.remove();
      return doc.body.innerHTML;
    }, `${snippets.element}\n${snippets.iframe}`);
    await blank.close();
    expect(stripped).not.toMatch(/<script|<ag-/);
    expect(stripped).toMatch(/<iframe /);
    pages['/canvas.html'] = { body: template('canvas.html').replace('{{CONTENT}}', stripped) };

    const opened = await openUrl(env, `${host.url}canvas.html`, { width: 375 });
    const { page } = opened;
    const frame = await embedFrame(page);
    await waitReady(frame, TAG);
    expectPastedNumbers(await readNumbers(frame, TAG));
    const sized = await expectSizedFrame(page, frame);
    const resizes = await page.evaluate(() => window.__resizes);
    expect(resizes.at(-1)).toEqual({ origin: new URL(env.server.url).origin, height: sized.inner.height });
    await expectHostClean(opened);
    await opened.context.close();
  });

  test('Moodle: RequireJS globals and the site\u2019s CSS around the element snippet; the widget computes', async () => {
    pages['/moodle.html'] = { body: template('moodle.html').replace('{{CONTENT}}', snippets.element) };
    const opened = await openUrl(env, `${host.url}moodle.html`, { width: 375 });
    const { page } = opened;
    await waitReady(page, TAG);
    expectPastedNumbers(await readNumbers(page, TAG));
    // The module left the AMD loader alone, and the loader did not take the module.
    expect(await page.evaluate(() => window.__amdCalls)).toEqual([]);
    expect(await page.evaluate(() => typeof window.define.amd)).toBe('object');
    // Moodle's button and svg rules stop at the shadow boundary.
    const look = await page.locator(TAG).evaluate((el) => ({
      button: getComputedStyle(el.shadowRoot.querySelector('button')).textTransform,
    }));
    expect(look.button).toBe('none');
    await expectHostClean(opened);
    await opened.context.close();
  });

  test.each([
    ['Jupyter Book', 'jupyter-book.html'],
    ['Quarto', 'quarto.html'],
  ])('%s: raw HTML output with both snippets, require.js globals present', async (_name, file) => {
    pages[`/${file}`] = { body: template(file).replace('{{CONTENT}}', `${snippets.element}\n${snippets.iframe}`) };
    const opened = await openUrl(env, `${host.url}${file}`, { height: 2400 });
    const { page } = opened;
    await waitReady(page, TAG);
    expectPastedNumbers(await readNumbers(page, TAG));
    const frame = await embedFrame(page);
    await waitReady(frame, TAG);
    expectPastedNumbers(await readNumbers(frame, TAG));
    await expectHostClean(opened);
    await opened.context.close();
  });
});
