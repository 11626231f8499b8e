// The teaching page in Debian's Chromium (playwright-core, no downloaded
// browser), served from build/site by scripts/serve.mjs on a free port.
// Every value the page shows is checked against a float64 reference computed
// here, both as displayed (4 significant digits) and as the full float32 the
// page keeps in data-value.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { chromium } from 'playwright-core';
import { SITE_ROOT, startServer } from '../../scripts/serve.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const U = 2 ** -24; // float32 unit roundoff

const ARTICLE = {
  q: [1, 2, 0, 1],
  k: [
    [1, 2, 1, 0],
    [-1, -2, 0, 1],
    [0, 0, 1, 0],
  ],
  scale: 'none',
};

// ---------------------------------------------------------------- reference

/** Scores, scaled scores and softmax weights in float64. */
function reference({ q, k, scale }) {
  const scores = k.map((row) => row.reduce((sum, x, i) => sum + x * q[i], 0));
  const factor = scale === 'sqrt-dk' ? 1 / Math.sqrt(q.length) : 1;
  const scaled = scores.map((s) => s * factor);
  const max = Math.max(...scaled);
  const e = scaled.map((s) => Math.exp(s - max));
  const total = e.reduce((a, b) => a + b, 0);
  // Σ|q_i k_ji|: the scale of the rounding error of score j.
  const magnitude = k.map((row) => row.reduce((sum, x, i) => sum + Math.abs(x * q[i]), 0));
  return { scores, scaled, weights: e.map((x) => x / total), magnitude };
}

/** The seed file's numbers for the worked example (the articles' claims). */
function seedCases() {
  return JSON.parse(readFileSync(join(root, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;
}

function query({ q, k, scale }) {
  return `?q=${q.join(',')}&k=${k.map((row) => row.join(',')).join(';')}&scale=${scale}`;
}

// Tolerances. Stored values: float32 kernels against float64, inputs exactly
// representable (multiples of 1/8), so a score is off by at most the dot
// product's bound (2*ceil(log2 4) + 1) u Σ|q_i k_ji| (doubled for the scaled
// score), and a weight by a few u times the largest |score| it exponentiates.
// Displayed values: 4 significant digits, so within 5e-4 relative, plus that.
function scoreTolerance(magnitude) {
  return 10 * U * magnitude + 1e-30;
}
function weightTolerance(ref, maxScore) {
  return (8 + 4 * maxScore) * U * Math.max(ref, 1e-3) + 1e-9;
}
const shownTolerance = (ref, stored) => 5.01e-4 * Math.abs(ref) + stored;

function expectClose(actual, expected, tolerance, what) {
  const ok = Math.abs(actual - expected) <= tolerance;
  if (!ok) throw new Error(`${what}: got ${actual}, expected ${expected} within ${tolerance}`);
  expect(ok).toBe(true);
}

/** Checks every shown number against the float64 reference for `state`. */
function expectMatchesReference(shown, state) {
  const ref = reference(state);
  const maxScore = Math.max(...ref.scaled.map(Math.abs));
  expect(shown.scores).toHaveLength(ref.scores.length);
  ref.scores.forEach((s, j) => {
    const tol = scoreTolerance(ref.magnitude[j]);
    expectClose(shown.scores[j].value, s, tol, `score ${j + 1} (stored)`);
    expectClose(shown.scores[j].shown, s, shownTolerance(s, tol), `score ${j + 1} (shown "${shown.scores[j].text}")`);
    const scaledTol = 2 * tol;
    expectClose(shown.scaled[j].value, ref.scaled[j], scaledTol, `scaled score ${j + 1} (stored)`);
    const w = ref.weights[j];
    const wTol = weightTolerance(w, maxScore);
    expectClose(shown.weights[j].value, w, wTol, `weight ${j + 1} (stored)`);
    expectClose(shown.weights[j].shown, w, shownTolerance(w, wTol), `weight ${j + 1} (shown "${shown.weights[j].text}")`);
  });
}

// ---------------------------------------------------------------- page access

let server;
let browser;
let site;

beforeAll(async () => {
  // Served from a copy, so a rebuild of build/site during the run cannot
  // pull files from under the page.
  site = mkdtempSync(join(tmpdir(), 'attention-geometry-site-'));
  cpSync(SITE_ROOT, site, { recursive: true });
  server = await startServer({ port: 0, root: site });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (site) rmSync(site, { recursive: true, force: true });
});

/**
 * Opens the page with `search` and records console errors, page errors,
 * dialogs and any request that leaves the server's origin.
 */
async function open(search = '', { width = 1024, height = 900, waitFor = 'ready', setup } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems = { errors: [], foreign: [], dialogs: [] };
  const origin = new URL(server.url).origin;
  page.on('console', (m) => m.type() === 'error' && problems.errors.push(m.text()));
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    d.dismiss();
  });
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) problems.foreign.push(r.url());
  });
  if (setup) await setup(page);
  await page.goto(new URL(search, server.url).href);
  try {
    await page.waitForSelector(`body[data-state="${waitFor}"]`, { timeout: 20000 });
  } catch (err) {
    throw new Error(`the page did not reach state "${waitFor}": ${err.message}\nconsole: ${JSON.stringify(problems)}`);
  }
  return { page, context, problems };
}

function expectClean(problems) {
  expect(problems.errors).toEqual([]);
  expect(problems.foreign).toEqual([]);
  expect(problems.dialogs).toEqual([]);
}

/** The numbers on the page: text as shown, that text parsed, and data-value. */
async function readShown(page) {
  const read = (role) =>
    page.$$eval(`ag-worked-example [data-role="${role}"]`, (els) =>
      els.map((el) => ({ key: Number(el.dataset.key), text: el.textContent, value: Number(el.dataset.value) })),
    );
  const parse = (items) =>
    items
      .sort((a, b) => a.key - b.key)
      .map((item) => ({ ...item, shown: Number(item.text.replace(/\u2212/g, '-')) }));
  return { scores: parse(await read('score')), scaled: parse(await read('scaled-score')), weights: parse(await read('weight')) };
}

async function readInputs(page) {
  return page.$$eval('ag-worked-example input.vec-input', (els) => els.map((el) => Number(el.value)));
}

const flat = (state) => [...state.q, ...state.k.flat()];

// ---------------------------------------------------------------- tests

describe('the worked single-head example', () => {
  test('opens on the article example: scores 5, -4, 0 and weights 0.9932, 0.0001226, 0.006692', async () => {
    const { page, context, problems } = await open('');
    const shown = await readShown(page);
    expect(shown.scores.map((s) => s.text)).toEqual(['5', '\u22124', '0']);
    expect(shown.weights.map((w) => w.text)).toEqual(['0.9932', '0.0001226', '0.006692']);
    expectMatchesReference(shown, ARTICLE);

    const cases = seedCases();
    const scores = cases.find((c) => c.id === 'worked-scores');
    const weights = cases.find((c) => c.id === 'worked-softmax-unscaled');
    scores.expected.forEach((s, j) => expectClose(shown.scores[j].value, s, scores.tolerance, `seed score ${j + 1}`));
    weights.expected.forEach((w, j) => expectClose(shown.weights[j].value, w, weights.tolerance, `seed weight ${j + 1}`));

    expect(await readInputs(page)).toEqual(flat(ARTICLE));
    await expect(page.locator('#url-note').isHidden()).resolves.toBe(true);
    await expect(page.locator('ag-worked-example .computed-by').textContent()).resolves.toMatch(/WebAssembly/);
    expectClean(problems);
    await context.close();
  });

  test('scaled by 1/sqrt(d_k), it shows the seed file values', async () => {
    const { page, context, problems } = await open('');
    await page.getByLabel(/^scaled:/).check();
    await page.waitForSelector('ag-worked-example[data-scale="sqrt-dk"]');
    const shown = await readShown(page);
    expectMatchesReference(shown, { ...ARTICLE, scale: 'sqrt-dk' });
    expect(shown.scaled.map((s) => s.text)).toEqual(['2.5', '\u22122', '0']);
    expect(shown.weights.map((w) => w.text)).toEqual(['0.9148', '0.01016', '0.07509']);
    expect(page.url()).toContain('scale=sqrt-dk');
    expectClean(problems);
    await context.close();
  });

  test('after inputs change through the controls, shows the new float64-reference values, and the URL reopens them', async () => {
    const { page, context, problems } = await open('');
    await page.getByLabel('q, component 3').fill('1.5');
    await page.getByLabel('k2, component 4').fill('-2.25');
    await page.getByLabel('k3, component 1').fill('3');
    // Keyboard: arrow up on a number input adds one.
    await page.getByLabel('k1, component 2').focus();
    await page.keyboard.press('ArrowUp');
    const state = {
      q: [1, 2, 1.5, 1],
      k: [
        [1, 3, 1, 0],
        [-1, -2, 0, -2.25],
        [3, 0, 1, 0],
      ],
      scale: 'none',
    };
    expect(await readInputs(page)).toEqual(flat(state));
    expectMatchesReference(await readShown(page), state);

    await page.getByLabel(/^scaled:/).check();
    const scaledState = { ...state, scale: 'sqrt-dk' };
    expectMatchesReference(await readShown(page), scaledState);

    const url = new URL(page.url());
    expect(url.searchParams.get('q')).toBe('1,2,1.5,1');
    expect(url.searchParams.get('k')).toBe('1,3,1,0;-1,-2,0,-2.25;3,0,1,0');
    expect(url.searchParams.get('scale')).toBe('sqrt-dk');

    // A copied link shows the same numbers.
    const copy = await open(url.search);
    expect(await readInputs(copy.page)).toEqual(flat(scaledState));
    expect(await readShown(copy.page)).toEqual(await readShown(page));
    expectClean(copy.problems);
    await copy.context.close();

    // An entry that is not a number: a note, stale results, no URL change.
    await page.getByLabel('q, component 1').fill('');
    await expect(page.locator('ag-worked-example .input-note').textContent()).resolves.toMatch(/q, component 1/);
    expect(new URL(page.url()).searchParams.get('q')).toBe('1,2,1.5,1');
    await page.getByLabel('q, component 1').fill('1');
    await expect(page.locator('ag-worked-example .input-note').isHidden()).resolves.toBe(true);
    expectMatchesReference(await readShown(page), scaledState);

    expectClean(problems);
    await context.close();
  });

  test('a URL with other inputs shows their float64-reference values', async () => {
    const cases = [
      {
        q: [0.5, -1, 2, 0.25],
        k: [
          [2, 0.125, -3, 1],
          [-0.5, 4, 1.5, -2],
          [7, 7, -7, 7],
        ],
        scale: 'sqrt-dk',
      },
      {
        q: [3, -2.5, 0, 10],
        k: [
          [-1, 1, 2, 0.875],
          [0, 0, 0, 0],
          [12, -8, 5, -0.5],
        ],
        scale: 'none',
      },
    ];
    for (const state of cases) {
      const { page, context, problems } = await open(query(state));
      expect(await readInputs(page)).toEqual(flat(state));
      expectMatchesReference(await readShown(page), state);
      await expect(page.locator('#url-note').isHidden()).resolves.toBe(true);
      expectClean(problems);
      await context.close();
    }
  });

  test('bad URL values are ignored with a visible note, shown as text, and the default example is used', async () => {
    const hostile = '1,2,<img src=x onerror=alert(1)>,1';
    const { page, context, problems } = await open(
      `?q=${encodeURIComponent(hostile)}&k=1,2;3&scale=${encodeURIComponent('<b>loud</b>')}&impl=fastest`,
    );
    const note = page.locator('#url-note');
    await expect(note.isVisible()).resolves.toBe(true);
    const text = await note.textContent();
    expect(text).toContain('q=1,2,<img src=x onerror=alert(1)>,1');
    expect(text).toContain('k=1,2;3');
    expect(text).toContain('scale=<b>loud</b>');
    expect(text).toContain('impl=fastest');
    expect(await page.locator('img, b').count()).toBe(0);
    expect(await readInputs(page)).toEqual(flat(ARTICLE));
    const shown = await readShown(page);
    expect(shown.scores.map((s) => s.text)).toEqual(['5', '\u22124', '0']);
    expectMatchesReference(shown, ARTICLE);
    expectClean(problems);
    await context.close();
  });

  test('every implementation in the menu gives the same numbers', async () => {
    const state = {
      q: [0.375, -1.25, 2.5, 0.125],
      k: [
        [1.5, -0.25, 0.75, 3],
        [-2, 0.625, 1, -1.125],
        [0.5, 0.5, -0.5, 2.25],
      ],
      scale: 'sqrt-dk',
    };
    const { page, context, problems } = await open(query(state));
    const ids = await page.$$eval('#implementation option', (els) => els.map((el) => el.value));
    // Chromium has 128-bit SIMD: the SIMD build's two kernel variants and the baseline build.
    expect(ids).toEqual(['simd128', 'scalar', 'baseline']);
    const results = {};
    for (const id of [...ids].reverse()) {
      await page.selectOption('#implementation', id);
      await page.waitForSelector(`ag-worked-example[data-computed-by="${id}"]`);
      results[id] = await readShown(page);
      expectMatchesReference(results[id], state);
      const impl = new URL(page.url()).searchParams.get('impl');
      expect(impl).toBe(id === 'simd128' ? null : id);
    }
    // The variants may differ in the last bits only: the shown digits agree.
    for (const id of ids) {
      expect(results[id].weights.map((w) => w.text)).toEqual(results.simd128.weights.map((w) => w.text));
      expect(results[id].scores.map((s) => s.text)).toEqual(results.simd128.scores.map((s) => s.text));
    }
    // The choice survives in the link.
    const again = await open(`${query(state)}&impl=scalar`);
    await again.page.waitForSelector('ag-worked-example[data-computed-by="scalar"]');
    expect(await again.page.inputValue('#implementation')).toBe('scalar');
    expectClean(again.problems);
    await again.context.close();
    expectClean(problems);
    await context.close();
  });

  test('shows a helpful error when the wasm cannot load', async () => {
    const { page, context, problems } = await open('', {
      waitFor: 'error',
      setup: (p) => p.route('**/*.wasm', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' })),
    });
    const panel = page.locator('#load-error');
    await expect(panel.isVisible()).resolves.toBe(true);
    await expect(panel.textContent()).resolves.toMatch(/did not load/);
    await expect(panel.locator('[data-role=error-detail]').textContent()).resolves.not.toBe('');
    // No numbers are made up in JS when the module is missing.
    const shown = await readShown(page);
    expect(shown.scores.every((s) => Number.isNaN(s.value))).toBe(true);
    expect(shown.weights.every((w) => Number.isNaN(w.value))).toBe(true);
    await expect(page.locator('ag-worked-example').evaluate((el) => el.inert)).resolves.toBe(true);
    await expect(page.locator('ag-worked-example .computed-by').textContent()).resolves.toMatch(/did not load/);
    expect(problems.foreign).toEqual([]);
    await context.close();
  });

  test('still computes when the server sends .wasm with a wrong MIME type', async () => {
    const { page, context, problems } = await open('', {
      setup: (p) =>
        p.route('**/*.wasm', async (route) => {
          const response = await route.fetch();
          await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
        }),
    });
    const shown = await readShown(page);
    expect(shown.scores.map((s) => s.text)).toEqual(['5', '\u22124', '0']);
    expectMatchesReference(shown, ARTICLE);
    expectClean(problems);
    await context.close();
  });

  test.each([
    [1024, 'desktop'],
    [320, 'phone'],
  ])('fits %i px without horizontal scrolling, in light and dark', async (width, name) => {
    const { page, context, problems } = await open('', { width, height: 1400 });
    for (const scheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: scheme });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(tmpdir(), `attention-geometry-${name}-${scheme}.png`), fullPage: true });
    }
    // Every input has a label.
    const unlabelled = await page.$$eval('input, select', (els) => els.filter((el) => el.labels.length === 0).length);
    expect(unlabelled).toBe(0);
    expectClean(problems);
    await context.close();

    // The note about a bad link, with a long value, fits too.
    const bad = await open(`?q=${'9'.repeat(300)}&k=${'1,'.repeat(80)}`, { width, height: 1400 });
    await expect(bad.page.locator('#url-note').isVisible()).resolves.toBe(true);
    const overflow = await bad.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expectClean(bad.problems);
    await bad.context.close();
  });
});
