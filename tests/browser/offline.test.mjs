// The offline single-file page (build/site/attention-geometry-offline.html), copied alone into an empty temporary
// folder and opened from disk (file://) in Chromium, with no server at all: every chapter computes, the worked
// example's numbers match the articles on the SIMD build and on the baseline build, a Monte Carlo experiment runs
// in the worker, nothing is requested outside the file, no console error, no CSP violation. And the file itself:
// a strict CSP (a script hash, no 'unsafe-inline', no eval), the third-party notices, no absolute path of this
// machine.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import * as h from './helpers.mjs';
import { expectAllLogged, one, readNumbers, U } from './shown-numbers.mjs';

const FILE = 'attention-geometry-offline.html';

const dir = mkdtempSync(join(tmpdir(), 'attention-geometry-offline-'));
copyFileSync(join(h.ROOT, 'build/site', FILE), join(dir, FILE));
const html = readFileSync(join(dir, FILE), 'utf8');
const fileUrl = pathToFileURL(join(dir, FILE)).href;
let browser;
beforeAll(async () => (browser = await h.stageChromium()));
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens the file with `search` and `hash`, recording what expectClean checks (watchProblems; foreign: any request
 * of the page or its worker whose URL is not file:, data: or blob:); runs `fn(opened)`, checks the page stayed
 * clean (unless `clean` is false) and closes it. `initScript` runs in the page before its own scripts; the page
 * is open once its body's data-state is `state`.
 */
async function withOffline(search, hash, fn, { initScript, state = 'ready', clean = true } = {}) {
  const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
  const page = await context.newPage();
  if (initScript) await page.addInitScript(initScript);
  const problems = await h.watchProblems(page);
  const requests = [];
  for (const source of [page, context])
    source.on('request', (r) => {
      requests.push(r.url());
      if (!['file:', 'data:', 'blob:'].includes(new URL(r.url()).protocol)) problems.foreign.push(r.url());
    });
  return h.closeAfter({ page, context, problems, requests }, { clean }, async (opened) => {
    await page.goto(`${fileUrl}${search}${hash}`);
    // The file is 1.6 MB of HTML to parse: allow for a busy machine.
    await page.waitForSelector(`body[data-state="${state}"]`, { timeout: 40000 });
    return fn(opened);
  });
}

/** The worked example's scores (exact in float32) and weights (softmax in float32: a few ulps, relative). */
const expectArticleNumbers = (numbers) => h.expectWorkedExample(numbers, (w) => 64 * U * w + 1e-9);

describe('the offline single-file page', () => {
  test('the file: strict CSP with the inline script hash, notices inside, no absolute path of this machine', () => {
    const csp = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/)[1];
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*' 'wasm-unsafe-eval'/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toMatch(/'unsafe-eval'/);
    // One script, inline; outside it, nothing refers to a file beside the page.
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
    const outside = html.replace(/<script type="module">[\s\S]*<\/script>/, '');
    expect(outside).not.toMatch(/<script\b/);
    expect(outside).not.toMatch(/(?:href|src)="(?!data:|#)[^"]+"/);
    // The notices: the site build's list (or, without it, KaTeX's and d3's licences) is in the
    // file as text, and the footer's link points at it.
    const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const notices = join(h.ROOT, 'build/site/vendor/THIRD_PARTY_NOTICES.txt');
    const texts = existsSync(notices)
      ? [readFileSync(notices, 'utf8')]
      : ['katex', 'd3'].map((pkg) => readFileSync(join(h.ROOT, 'node_modules', pkg, 'LICENSE'), 'utf8').trim());
    const section = outside.match(/<section id="third-party-notices"[\s\S]*?<\/section>/)[0];
    for (const text of texts) expect(section).toContain(escape(text));
    expect(outside).toContain('<a href="#third-party-notices">');
    expect(outside).toMatch(/^<!doctype html>\n<!--[^>]*Third-party notices[^>]*-->/);
    expect(outside).not.toContain('href="attention-geometry-offline.html"');
    // No path of the machine that built it (short paths such as /tmp could occur by chance in base64).
    expect(html).not.toContain(h.ROOT);
    expect(html).not.toContain('file://');
    // The normal page offers the file for download.
    const index = readFileSync(join(h.ROOT, 'build/site/index.html'), 'utf8');
    expect(index).toMatch(/<a href="attention-geometry-offline\.html" download>/);
  });

  test('from disk, the module refused by the browser: the panel and the widget say the file holds everything and name the CSP directives it needs; no web server, no data: URL printed', async () => {
    // The browser refuses to compile (as a policy without 'wasm-unsafe-eval' does), both builds.
    const initScript = () => {
      const refuse = () => Promise.reject(new WebAssembly.CompileError('refused by the test'));
      WebAssembly.instantiate = refuse;
      WebAssembly.instantiateStreaming = refuse;
    };
    const options = { initScript, state: 'error', clean: false };
    await withOffline(
      '?ch=worked-example',
      '',
      async ({ page, problems }) => {
        const panel = page.locator('#load-error');
        await expect(panel.isVisible()).resolves.toBe(true);
        const text = await panel.textContent();
        expect(text).toContain('This file holds everything the figures need (no other file, no web server).');
        expect(text).toContain("'wasm-unsafe-eval' in script-src");
        expect(text).toContain('data: in connect-src');
        expect(text).not.toMatch(/through a web server|npm start|not from disk|init\(|locateFile|wasmUrl/);
        // What the browser reported, short: never the base64 of the wasm's data: URL.
        const detail = await panel.locator('[data-role=error-detail]').textContent();
        expect(detail).toContain('refused by the test');
        expect(detail.length).toBeLessThan(300);
        expect(detail).not.toContain('base64,');
        // The widget's own message gives the same advice as the panel.
        const widget = page.locator('ag-worked-example .error[data-failure=module]');
        await widget.waitFor({ state: 'visible' });
        const advice = await panel.locator('p').first().textContent();
        expect(await widget.textContent()).toContain(advice);
        expect((await widget.textContent()).length).toBeLessThan(2000);
        expect(problems.foreign).toEqual([]);
      },
      options,
    );
  });

  test("from disk: a Monte Carlo experiment runs in the worker inlined in the file; the worked example computes the articles' numbers on the SIMD build and on the baseline build; every chapter of both parts computes", async () => {
    // One page: the link's state is sqrt-d's, the other chapters start at their defaults.
    await withOffline('?ch=sqrt-d&v=1&d=64&pairs=20000&seed=7&agtest=1', '#ch-sqrt-d', async ({ page, requests }) => {
      const run = 'ag-sqrt-d';
      await h.waitReady(page, run);
      await page.waitForFunction((t) => ['done', 'error'].includes(document.querySelector(t)?.dataset.run), run, {
        timeout: 40000,
      });
      expect(await page.evaluate((t) => document.querySelector(t).dataset.run, run)).toBe('done');
      const sigma = h.seedCase('sqrt-d-spread-64').expected;
      // Sample standard deviation of 20000 products: within 4 standard errors of sqrt(64).
      const std = one(await readNumbers(page, run), 'std').value;
      expect(Math.abs(std - sigma)).toBeLessThanOrEqual((4 * sigma) / Math.sqrt(2 * 20000));
      const inWorker = () => window.__agCallLog.some((c) => c.worker && c.kernel === 'random_dot_experiment');
      expect(await page.evaluate(inWorker)).toBe(true);
      await expectAllLogged(page, run);
      const tag = 'ag-worked-example';
      await h.waitReady(page, tag);
      const ids = await page.$$eval('#implementation option', (els) => els.map((el) => el.value));
      expect(ids).toEqual(['simd128', 'scalar', 'baseline']);
      for (const impl of ['simd128', 'baseline']) {
        await page.selectOption('#implementation', impl);
        await page.waitForSelector(`${tag}[data-computed-by="${impl}"]`);
        expectArticleNumbers(await readNumbers(page, tag));
        await expectAllLogged(page, tag);
        expect(await page.evaluate((i) => window.__agCallLog.some((c) => c.impl === i), impl)).toBe(true);
      }
      // The Embed control gives no snippet here: the file has no widgets.js or embed.html beside it.
      const embed = page.locator(tag).locator('details.embed');
      await embed.locator('summary').click();
      await expect(embed.locator('[data-role=embed-unavailable]').textContent()).resolves.toContain('offline copy');
      expect(await embed.locator('textarea').count()).toBe(0);
      // A stylesheet the browser did not load: named by its path (not its data: URL), and the advice fits a file
      // that holds everything: no folder to serve, no web server, not the npm package's dist/widgets/.
      const sheetError = await h.failInlinedSheet(page.locator(tag), 'widget.css');
      expect(sheetError).toContain('For styles/widget.css (inlined) the browser could not load it.');
      expect(sheetError).toContain('from inside this file, as data: URLs: there is no folder to serve.');
      expect(sheetError).not.toMatch(/dist\/widgets|serve that folder|web server|data:text/);
      // Every chapter, on the default build again: every chapter's widget, and the second widget of a chapter that
      // has one (`also`).
      await page.selectOption('#implementation', 'simd128');
      const tags = await page.$$eval('#chapters *', (els) =>
        els.map((el) => el.localName).filter((name) => name.startsWith('ag-')),
      );
      expect(tags).toEqual(CHAPTERS.flatMap((c) => [c.tag, ...(c.also ?? [])]));
      await h.shortenRuns(page); // what follows checks no run's numbers: short runs
      for (const t of tags) await h.waitReady(page, t);
      // The KaTeX fonts come from the file: at least one face is loaded.
      const katex = () => [...document.fonts].some((f) => f.family.startsWith('KaTeX') && f.status === 'loaded');
      expect(await page.evaluate(katex)).toBe(true);
      expect(requests.every((url) => url.startsWith(fileUrl) || url.startsWith('data:'))).toBe(true);
    });
  }, 180000);
});
