// The page beyond Chromium: Debian's firefox-esr (installed by scripts/setup.sh,
// never downloaded), driven by puppeteer-core over WebDriver BiDi, headless, with
// a fresh profile. The worked example shows the articles' numbers
// (tests/data/seeds/worked-examples.json) and follows an edit, with no console
// error; if Firefox cannot be started or driven, the test fails with the reason.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import puppeteer from 'puppeteer-core';
import { SITE_ROOT, startServer } from '../../scripts/serve.mjs';
import { ROOT } from './helpers.mjs';
import { byRole, expectClose, expectShown, unloggedNumbers } from './shown-numbers.mjs';
import { dot, softmax } from '../reference/float64.mjs';

const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const CH = 'worked-example';
const TAG = 'ag-worked-example';
const cases = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;
const seed = (id) => cases.find((c) => c.id === id);

let site;
let profile;
let server;
let browser;
let page;
const problems = { errors: [], foreign: [] };

beforeAll(async () => {
  if (!existsSync(FIREFOX))
    throw new Error(`${FIREFOX} is missing: scripts/setup.sh installs Debian's firefox-esr (or set FIREFOX_PATH)`);
  site = mkdtempSync(join(tmpdir(), 'attention-geometry-site-'));
  cpSync(SITE_ROOT, site, { recursive: true });
  server = await startServer({ port: 0, root: site });
  profile = mkdtempSync(join(tmpdir(), 'attention-geometry-firefox-'));
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      protocol: 'webDriverBiDi',
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profile,
    });
  } catch (err) {
    throw new Error(`${FIREFOX} could not be started and driven over WebDriver BiDi: ${err.message}`, { cause: err });
  }
  page = await browser.newPage();
  const origin = new URL(server.url).origin;
  page.on('console', (m) => m.type() === 'error' && problems.errors.push(m.text()));
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:', 'about:'].includes(u.protocol) && u.origin !== origin) problems.foreign.push(r.url());
  });
}, 45000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  for (const dir of [site, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every number the widget shows, as readNumbers (helpers.mjs) gives it. */
async function readNumbers() {
  const items = await page.$eval(TAG, (el) =>
    [...el.shadowRoot.querySelectorAll('[data-value]')].map((n) => ({
      role: n.dataset.role,
      key: n.dataset.key ?? null,
      text: n.textContent,
      value: Number(n.dataset.value),
    })),
  );
  return items.map((item) => ({ ...item, shown: Number(item.text.replace(/\u2212/g, '-')) }));
}

/** Waits until the widget shows `count` scores whose exact values are `scores`. */
async function waitScores(scores) {
  await page.waitForFunction(
    (tag, want) => {
      const shown = [...(document.querySelector(tag)?.shadowRoot?.querySelectorAll('[data-role="score"]') ?? [])].map(
        (n) => Number(n.dataset.value),
      );
      return shown.length === want.length && shown.every((s, j) => s === want[j]);
    },
    { timeout: 20000 },
    TAG,
    scores,
  );
}

function expectWeights(numbers, expected, tolerance) {
  const weights = byRole(numbers, 'weight');
  expect(weights).toHaveLength(expected.length);
  weights.forEach((w, j) => {
    expectClose(w.value, expected[j], tolerance, `weight ${j + 1}`);
    expectShown(w, expected[j], { extra: tolerance });
  });
}

describe('Firefox ESR', () => {
  test('opens the worked example with the articles\u2019 numbers, and follows an edit', async () => {
    const scoresCase = seed('worked-scores');
    const softmaxCase = seed('worked-softmax-unscaled');
    await page.goto(`${server.url}?agtest=1#ch-${CH}`);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
    await page.$eval(TAG, (el) => el.scrollIntoView());
    await page.waitForSelector(`${TAG}[data-status="ready"]`, { timeout: 20000 });
    await waitScores(scoresCase.expected);

    const before = await readNumbers();
    const scores = byRole(before, 'score');
    expect(scores.map((s) => s.value)).toEqual(scoresCase.expected); // 5, -4, 0: exact
    expect(scores.map((s) => s.shown)).toEqual(scoresCase.expected);
    expectWeights(before, softmaxCase.expected, softmaxCase.tolerance); // 0.9932, 0.0001226, 0.006692
    // Each shown number is a result of a kernel call (the call log of test mode).
    const { missing: unlogged } = await page.$eval(TAG, unloggedNumbers);
    expect(unlogged).toEqual([]);
    expect(['simd128', 'baseline']).toContain(await page.$eval('#implementation', (m) => m.value));

    // An edit by keyboard: q's third component from 0 to 2.
    const q = [...scoresCase.inputs.q];
    q[2] = 2;
    const input = await page.$(`${TAG} >>> input.vec-input[data-row="q"][data-index="2"]`);
    expect(input).not.toBeNull();
    await input.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await page.keyboard.type('2');
    const edited = scoresCase.inputs.K.map((k) => dot(k, q)); // float64 reference, unscaled
    const ref = { scores: edited, weights: softmax(edited, 1, edited.length) };
    await waitScores(ref.scores); // 7, -4, 2: exact in float32
    const after = await readNumbers();
    expect(byRole(after, 'score').map((s) => s.shown)).toEqual(ref.scores);
    expectWeights(after, ref.weights, softmaxCase.tolerance);
    // The shell writes the address once the learner pauses (<body data-url="pending"> until then).
    await page.waitForFunction(() => document.body.dataset.url !== 'pending', { timeout: 5000 });
    expect(new URL(await page.evaluate(() => window.location.href)).searchParams.get('q')).toBe(q.join(','));

    expect(problems.errors).toEqual([]);
    expect(problems.foreign).toEqual([]);
  }, 40000);
});
