// The page beyond Chromium: Debian's firefox-esr (installed by scripts/setup.sh,
// never downloaded), driven by puppeteer-core over WebDriver BiDi, headless, with
// a fresh profile. The worked example shows the articles' numbers
// (tests/data/seeds/worked-examples.json) and follows an edit, with no console
// error; if Firefox cannot be started or driven, the test fails with the reason.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import puppeteer from 'puppeteer-core';
import { seedCase, useEnv } from './helpers.mjs';
import { byRole, expectClose, expectShown, parseShown, shownItems, unloggedNumbers } from './shown-numbers.mjs';
import { dot, softmax } from '../reference/float64.mjs';

const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const TAG = 'ag-worked-example';

const env = useEnv({ browser: false }); // the site's server only
const profile = mkdtempSync(join(tmpdir(), 'attention-geometry-firefox-'));
let launching; // the launch, kept so that a browser that starts after a timeout is closed too
let page;
const problems = { errors: [], foreign: [] };

beforeAll(async () => {
  if (!existsSync(FIREFOX))
    throw new Error(`${FIREFOX} is missing: scripts/setup.sh installs Debian's firefox-esr (or set FIREFOX_PATH)`);
  launching = puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    headless: true,
    userDataDir: profile,
  });
  const browser = await launching.catch((err) => {
    throw new Error(`${FIREFOX} could not be started and driven over WebDriver BiDi: ${err.message}`, { cause: err });
  });
  page = await browser.newPage();
  const origin = new URL(env.server.url).origin;
  page.on('console', (m) => m.type() === 'error' && problems.errors.push(m.text()));
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:', 'about:'].includes(u.protocol) && u.origin !== origin) problems.foreign.push(r.url());
  });
}, 120000); // Firefox's first start with a fresh profile is slow on a busy machine

afterAll(async () => {
  await (await launching?.catch(() => null))?.close();
  rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
}, 60000);

/** Every number the widget shows, as readNumbers (shown-numbers.mjs) gives it. */
const readNumbers = async () => parseShown(await page.$eval(TAG, shownItems));

/** Waits until the widget's scores are exactly `scores`, then checks its scores and weights (shown and exact). */
async function expectNumbers(scores, weights, tolerance) {
  await page.waitForFunction(
    (tag, want) => {
      const root = document.querySelector(tag)?.shadowRoot;
      const shown = [...(root?.querySelectorAll('[data-role="score"]') ?? [])].map((n) => Number(n.dataset.value));
      return shown.length === want.length && shown.every((s, j) => s === want[j]);
    },
    { timeout: 20000 },
    TAG,
    scores,
  );
  const numbers = await readNumbers();
  expect(byRole(numbers, 'score').map((s) => [s.value, s.shown])).toEqual(scores.map((s) => [s, s]));
  expect(byRole(numbers, 'weight')).toHaveLength(weights.length);
  byRole(numbers, 'weight').forEach((w, j) => {
    expectClose(w.value, weights[j], tolerance, `weight ${j + 1}`);
    expectShown(w, weights[j], { extra: tolerance });
  });
}

describe('Firefox ESR', () => {
  test('opens the worked example with the articles\u2019 numbers, and follows an edit', async () => {
    const scoresCase = seedCase('worked-scores');
    const softmaxCase = seedCase('worked-softmax-unscaled');
    await page.goto(`${env.server.url}?agtest=1#ch-worked-example`);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
    await page.$eval(TAG, (el) => el.scrollIntoView());
    await page.waitForSelector(`${TAG}[data-status="ready"]`, { timeout: 20000 });
    // Scores 5, -4, 0 (exact), weights 0.9932, 0.0001226, 0.006692.
    await expectNumbers(scoresCase.expected, softmaxCase.expected, softmaxCase.tolerance);
    // Each shown number is a result of a kernel call (the call log of test mode).
    expect((await page.$eval(TAG, unloggedNumbers)).missing).toEqual([]);
    expect(['simd128', 'baseline']).toContain(await page.$eval('#implementation', (m) => m.value));

    // An edit by keyboard: q's third component from 0 to 2.
    const q = [...scoresCase.inputs.q];
    q[2] = 2;
    const input = await page.$(`${TAG} >>> input.vec-input[data-row="q"][data-index="2"]`);
    expect(input).not.toBeNull();
    await input.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await page.keyboard.type('2');
    const edited = scoresCase.inputs.K.map((k) => dot(k, q)); // float64 reference, unscaled: 7, -4, 2 (exact in float32)
    await expectNumbers(edited, softmax(edited, 1, edited.length), softmaxCase.tolerance);
    // The shell writes the address once the learner pauses (<body data-url="pending"> until then).
    await page.waitForFunction(() => document.body.dataset.url !== 'pending', { timeout: 5000 });
    expect(new URL(await page.evaluate(() => window.location.href)).searchParams.get('q')).toBe(q.join(','));

    expect(problems).toEqual({ errors: [], foreign: [] });
  }, 40000);
});
