// Shared helpers for the chapter tests: Debian's Chromium through
// playwright-core (no downloaded browser), the built site served from a
// temporary copy by scripts/serve.mjs, and the checks every chapter needs:
// read the numbers a widget shows, drag a point by mouse and by keyboard,
// compare with a float64 reference, check that each shown number is a result
// in the kernel-call log (window.__agCallLog, test mode), no console error,
// no request to another origin, no horizontal overflow, screenshots.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import { chromium } from 'playwright-core';
import { SITE_ROOT, startServer } from '../../scripts/serve.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** float32 unit roundoff. */
export const U = 2 ** -24;

/**
 * Starts a server on a temporary copy of the site (a rebuild during the run
 * cannot pull files from under the page) and a browser.
 * `extraFiles` ({ 'name.html': text }) are written into the copy.
 */
export async function startEnv({ extraFiles = {} } = {}) {
  const site = mkdtempSync(join(tmpdir(), 'attention-geometry-site-'));
  cpSync(SITE_ROOT, site, { recursive: true });
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(site, name), text);
  const server = await startServer({ port: 0, root: site });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return {
    server,
    browser,
    site, // the served copy (for a second server that serves the same files)
    async close() {
      await browser.close();
      await server.close();
      rmSync(site, { recursive: true, force: true });
    },
  };
}

/**
 * Records what a page must not do: console errors, page errors, dialogs
 * (dismissed), requests to an origin outside `origins` (data:, blob: and
 * about: aside), and CSP violations (in window.__cspViolations of each
 * document). @returns {{ errors: string[], foreign: string[], dialogs: string[], csp: string[] }}
 */
async function watchPage(page, origins) {
  const allowed = new Set(origins);
  const problems = { errors: [], foreign: [], dialogs: [], csp: [] };
  page.on('console', (m) => m.type() === 'error' && problems.errors.push(m.text()));
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    d.dismiss();
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (!['data:', 'blob:', 'about:'].includes(u.protocol) && !allowed.has(u.origin)) problems.foreign.push(r.url());
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI}`),
    );
  });
  return problems;
}

/**
 * Opens `path` (relative to the site, e.g. '?agtest=1#ch-dot-product') and
 * records console errors, page errors, dialogs, CSP violations and any request
 * that leaves the server's origin. Waits for body[data-state=<waitFor>] unless
 * waitFor is null.
 */
export async function openPage(
  env,
  path = '',
  { width = 1024, height = 900, waitFor = 'ready', setup, hasTouch = false } = {},
) {
  const context = await env.browser.newContext({ viewport: { width, height }, hasTouch, acceptDownloads: true });
  const page = await context.newPage();
  const problems = await watchPage(page, [new URL(env.server.url).origin]);
  if (setup) await setup(page);
  await page.goto(new URL(path, env.server.url).href);
  if (waitFor) {
    try {
      await page.waitForSelector(`body[data-state="${waitFor}"]`, { timeout: 20000 });
    } catch (err) {
      throw new Error(`the page did not reach state "${waitFor}": ${err.message}\n${JSON.stringify(problems)}`, {
        cause: err,
      });
    }
  }
  return { page, context, problems };
}

/** Opens the page on one chapter in test mode and waits until its widget has computed. */
export async function openChapter(env, chapterId, tag, { search = '', ...options } = {}) {
  const query = search ? `${search}&agtest=1` : '?agtest=1';
  const opened = await openPage(env, `${query}#ch-${chapterId}`, options);
  await waitReady(opened.page, tag);
  return opened;
}

export async function waitReady(page, tag) {
  await page.locator(tag).first().scrollIntoViewIfNeeded();
  await page.waitForSelector(`${tag}[data-status="ready"]`, { timeout: 20000 });
}

/** No console error, no request to another origin, no dialog, no CSP violation. */
export async function expectClean({ page, problems }) {
  expect(problems.errors).toEqual([]);
  expect(problems.foreign).toEqual([]);
  expect(problems.dialogs).toEqual([]);
  expect(await page.evaluate(() => window.__cspViolations)).toEqual([]);
}

/**
 * Every number the widget shows ([data-value] in its shadow root): role, key,
 * text as shown, that text parsed (typographic minus, a trailing degree sign
 * dropped), and the exact value kept in data-value.
 */
export async function readNumbers(page, tag) {
  const items = await page
    .locator(tag)
    .first()
    .evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('[data-value]')].map((n) => ({
        role: n.dataset.role,
        key: n.dataset.key ?? null,
        text: n.textContent,
        value: Number(n.dataset.value),
      })),
    );
  return items.map((item) => ({ ...item, shown: Number(item.text.replace(/\u2212/g, '-').replace(/\u00b0$/, '')) }));
}

/** The numbers of one role, by key order: readNumbers filtered. */
export function byRole(numbers, role) {
  return numbers.filter((n) => n.role === role).sort((a, b) => String(a.key).localeCompare(String(b.key)));
}

/** One number by role (and key). */
export function one(numbers, role, key = null) {
  const found = numbers.filter((n) => n.role === role && (key === null || n.key === String(key)));
  if (found.length !== 1)
    throw new Error(`expected one number ${role}${key === null ? '' : `.${key}`}, found ${found.length}`);
  return found[0];
}

/**
 * Checks that each number the widget shows is, bit for bit, a result in the
 * kernel-call log (test mode). Returns how many were checked.
 */
export async function expectAllLogged(page, tag) {
  const missing = await page
    .locator(tag)
    .first()
    .evaluate((el) => {
      const seen = new Set();
      const visit = (r) => {
        if (typeof r === 'number') seen.add(String(r));
        else if (r && (ArrayBuffer.isView(r) || Array.isArray(r))) for (const x of r) visit(x);
        else if (r && typeof r === 'object') for (const v of Object.values(r)) visit(v);
      };
      for (const call of window.__agCallLog ?? []) visit(call.result);
      const shown = [...el.shadowRoot.querySelectorAll('[data-value]')];
      return {
        count: shown.length,
        missing: shown.filter((n) => !seen.has(n.dataset.value)).map((n) => `${n.dataset.role}=${n.dataset.value}`),
        log: (window.__agCallLog ?? []).length,
      };
    });
  expect(missing.log).toBeGreaterThan(0);
  expect(missing.count).toBeGreaterThan(0);
  expect(missing.missing).toEqual([]);
  return missing.count;
}

export function expectClose(actual, expected, tolerance, what) {
  const ok = Math.abs(actual - expected) <= tolerance;
  if (!ok) throw new Error(`${what}: got ${actual}, expected ${expected} within ${tolerance}`);
  expect(ok).toBe(true);
}

/** The shown text is the reference to `digits` significant digits (within half a unit of the last digit). */
export function expectShown(item, expected, { digits = 4, extra = 0 } = {}) {
  const tol = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(expected) || 1)) - digits + 1) * 1.001 + extra;
  expectClose(item.shown, expected, tol, `${item.role}${item.key ? `.${item.key}` : ''} shown "${item.text}"`);
}

/** Screen position of plot coordinates (x, y) in the widget's d3 plane. */
async function planePoint(page, tag, [x, y]) {
  return page
    .locator(tag)
    .first()
    .evaluate(
      (el, [px, py]) => {
        const svg = el.shadowRoot.querySelector('svg.plane');
        const extent = Number(svg.dataset.extent);
        const margin = Number(svg.dataset.margin);
        const box = svg.viewBox.baseVal;
        const vx = margin + ((px + extent) / (2 * extent)) * (box.width - 2 * margin);
        const vy = box.height - margin - ((py + extent) / (2 * extent)) * (box.height - 2 * margin);
        const p = svg.createSVGPoint();
        p.x = vx;
        p.y = vy;
        const s = p.matrixTransform(svg.getScreenCTM());
        return { x: s.x, y: s.y };
      },
      [x, y],
    );
}

/** Drags the point `name` (data-point) to plot coordinates `to` with the mouse. */
export async function dragPoint(page, tag, name, to) {
  const handle = page.locator(`${tag} [data-point="${name}"]`);
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.locator('circle.dot').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  const target = await planePoint(page, tag, to);
  await page.mouse.move((box.x + target.x) / 2, (box.y + target.y) / 2, { steps: 4 });
  await page.mouse.move(target.x, target.y, { steps: 4 });
  await page.mouse.up();
}

/**
 * Drags the point `name` to plane coordinates `to` with a finger: real touch
 * events through the DevTools protocol (the context needs hasTouch: true).
 */
export async function touchDragPoint(page, tag, name, to) {
  const handle = page.locator(`${tag} [data-point="${name}"]`);
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.locator('circle.dot').boundingBox();
  const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const target = await planePoint(page, tag, to);
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, p) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: p ? [{ x: p.x, y: p.y }] : [] });
  await touch('touchStart', from);
  for (let i = 1; i <= 8; i++)
    await touch('touchMove', { x: from.x + ((target.x - from.x) * i) / 8, y: from.y + ((target.y - from.y) * i) / 8 });
  await touch('touchEnd');
  await cdp.detach();
}

/**
 * The shell wrote the chapter's versioned state into the page URL (`params`:
 * the expected text of each field), and a copy of that link shows the same
 * digits as `numbers`. Checks both pages are clean, then closes them.
 */
export async function expectLinkReopens(env, opened, { ch, tag, params, numbers }) {
  const url = await urlParams(opened.page);
  expect(url.get('ch')).toBe(ch);
  expect(url.get('v')).toBe('1');
  for (const [name, text] of Object.entries(params)) expect(url.get(name)).toBe(text);
  const copy = await openChapter(env, ch, tag, { search: (await settledUrl(opened.page)).search });
  const reopened = await readNumbers(copy.page, tag);
  expect(reopened.map((n) => n.text)).toEqual(numbers.map((n) => n.text));
  await expectClean(copy);
  await copy.context.close();
  await expectClean(opened);
  await opened.context.close();
}

/** Focuses the point `name` with Tab order intact and presses `keys` (e.g. ['ArrowRight', 'Shift+ArrowUp']). */
export async function keyPoint(page, tag, name, keys) {
  await page.locator(`${tag} [data-point="${name}"]`).focus();
  for (const key of keys) await page.keyboard.press(key);
}

/**
 * Horizontal overflow of the page in px (0 or less means none). Chapters are
 * contained (content-visibility in style.css): what overflows one of them is
 * clipped at its edge instead of widening the page, so each chapter's own
 * overflow counts too.
 */
export async function overflow(page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const chapters = [...document.querySelectorAll('section.chapter')].map((s) => s.scrollWidth - s.clientWidth);
    return Math.max(root.scrollWidth - root.clientWidth, ...chapters);
  });
}

/** Saves a screenshot of the element (or the page) under test-artifacts/. */
export async function screenshot(target, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await target.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** The text of a downloaded file after clicking the export button `kind`. */
export async function exportFile(page, tag, kind) {
  await page.locator(`${tag} details.export summary`).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`${tag} [data-export="${kind}"]`).click(),
  ]);
  const path = await download.path();
  await page.locator(`${tag} details.export summary`).click();
  const { readFileSync } = await import('node:fs');
  return { name: download.suggestedFilename(), bytes: readFileSync(path) };
}

/**
 * The page URL once the shell has written the latest state into it. The
 * shell writes it when the learner pauses (web/shell/url-writer.js) and marks
 * <body data-url="pending"> until then; this waits for that write (at most
 * a few seconds) and reads the address in the page itself.
 */
export async function settledUrl(page) {
  const handle = await page.waitForFunction(
    () => document.body?.dataset.url !== 'pending' && window.location.href,
    null,
    { timeout: 5000 },
  );
  return new URL(await handle.jsonValue());
}

/** The state parameters of the page URL, once written (settledUrl). */
export async function urlParams(page) {
  return (await settledUrl(page)).searchParams;
}

// ------------------------------------------------------------ host pages (embedding)

/**
 * A second server, standing for a course platform: it serves `pages`
 * ({ '/path': { body, headers } }) with their own headers (a CSP header, for
 * example), and with `root` every other path as static files from that
 * folder (same origin as the pages); without `root` any other path is 404.
 * It listens on 127.0.0.1 on its own port: another origin than env.server.
 */
export async function startHostServer({ pages = {}, root = null } = {}) {
  const { createServer } = await import('node:http');
  const serveStatic = root ? (await import('sirv')).default(root, { dev: true }) : null;
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://host').pathname;
    const page = pages[path];
    if (path === '/favicon.ico') {
      // Browsers ask every origin for one; a course platform would have one.
      res.writeHead(204);
      res.end();
      return;
    }
    if (page) {
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        ...(page.headers ?? {}),
      });
      res.end(page.body);
      return;
    }
    const notFound = () => {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Not found\n');
    };
    if (!serveStatic) return notFound();
    if (path.endsWith('.wasm')) res.setHeader('Content-Type', 'application/wasm');
    else if (path.endsWith('.js')) res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    serveStatic(req, res, notFound);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    origin: new URL(url).origin,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}

/**
 * Opens an absolute `url` (a host page) and records what openPage records,
 * with requests to any of `origins` allowed (the host and the widgets'
 * server). Console messages and CSP violations of frames are included.
 * `permissions` are granted to the context (e.g. clipboard).
 */
export async function openUrl(env, url, { origins = [], width = 1024, height = 900, permissions = [] } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height } });
  if (permissions.length) await context.grantPermissions(permissions);
  const page = await context.newPage();
  const problems = await watchPage(page, [new URL(env.server.url).origin, new URL(url).origin, ...origins]);
  await page.goto(url);
  return { page, context, problems };
}

/** CSP violations reported in the page and in every frame it holds. */
export async function cspViolations(page) {
  const all = [];
  for (const frame of page.frames()) {
    try {
      all.push(...((await frame.evaluate(() => window.__cspViolations ?? [])) ?? []));
    } catch {
      all.push(`could not read the violations of frame ${frame.url()}`);
    }
  }
  return all;
}

/** expectClean for a host page: also looks into its frames for CSP violations. */
export async function expectHostClean({ page, problems }) {
  expect(problems.errors).toEqual([]);
  expect(problems.foreign).toEqual([]);
  expect(problems.dialogs).toEqual([]);
  expect(await cspViolations(page)).toEqual([]);
}

// ------------------------------------------------------------ other engines

/**
 * A second Debian Chromium with the shared arguments plus `args` (for
 * example V8 flags through --js-flags), for a run under other engine
 * conditions; use it in place of env.browser ({ ...env, browser }).
 */
export function launchChromium({ args = [] } = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args], headless: true });
}
