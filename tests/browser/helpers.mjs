// Shared helpers of the browser tests: Debian's Chromium through
// playwright-core (no downloaded browser), the built site served from a
// temporary copy by scripts/serve.mjs, pages and chapters opened and closed,
// and the checks every page needs: no console error, no request to another
// origin, no horizontal overflow, screenshots, exports, the link the shell
// writes, the prediction. The numbers a widget shows are read and compared in
// shown-numbers.mjs; points are moved in pointer.mjs.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buffer } from 'node:stream/consumers';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { chromium } from 'playwright-core';
import { SITE_ROOT, startServer } from '../../scripts/serve.mjs';
import { byRole, expectClose, readNumbers } from './shown-numbers.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/chromium.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = join(ROOT, 'test-artifacts');

/**
 * Starts a server on a temporary copy of the site (a rebuild during the run cannot pull files from under the
 * page) and, unless `browser: false`, a Chromium (or connects to the stage's one). `extraFiles` ({ 'name.html':
 * text }) are written into the copy.
 */
export async function startEnv({ extraFiles = {}, browser: withBrowser = true } = {}) {
  const site = mkdtempSync(join(tmpdir(), 'attention-geometry-site-'));
  cpSync(SITE_ROOT, site, { recursive: true });
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(site, name), text);
  const server = await startServer({ port: 0, root: site });
  const browser = withBrowser ? await stageChromium() : null;
  return {
    server,
    browser,
    site, // the served copy (for a second server that serves the same files)
    async close() {
      await browser?.close();
      await server.close();
      rmSync(site, { recursive: true, force: true });
    },
  };
}

/**
 * One server and browser for the whole test file (beforeAll, afterAll): the object gets startEnv's fields.
 * A start that outlasts its hook is still closed once it ends, so that no browser keeps Jest from exiting.
 * `env.closing` holds what must run before the browser closes (usePage's last check).
 */
export function useEnv(options) {
  const env = { closing: [] };
  let starting;
  beforeAll(async () => Object.assign(env, await (starting = startEnv(options))), 120000);
  afterAll(async () => {
    try {
      for (const close of env.closing.splice(0)) await close();
    } finally {
      await (await starting?.catch(() => null))?.close();
    }
  });
  return env;
}

/**
 * Records console errors, page errors, dialogs (dismissed) and CSP violations (in window.__cspViolations of
 * each document) of `page`; given `origins`, also each request to any other origin (data:, blob: and about:
 * aside), else `foreign` is left for the caller. @returns {{ errors: string[], foreign: string[], dialogs: string[], csp: string[] }}
 */
export async function watchProblems(page, origins = null) {
  const problems = { errors: [], foreign: [], dialogs: [], csp: [] };
  page.on('console', (m) => m.type() === 'error' && problems.errors.push(m.text()));
  page.on('pageerror', (e) => problems.errors.push(String(e)));
  page.on('dialog', (d) => {
    problems.dialogs.push(d.message());
    d.dismiss();
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (origins && !['data:', 'blob:', 'about:'].includes(u.protocol) && !origins.includes(u.origin))
      problems.foreign.push(r.url());
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
 * Opens `path` (relative to the site, e.g. '?agtest=1#ch-dot-product', or the absolute address of a host page)
 * in a new context, recording what expectClean checks (watchProblems: requests to env's origin and the host
 * page's allowed); `setup(page)` runs before. A page of the site is awaited until body[data-state=<waitFor>],
 * unless waitFor is null. `bypassCSP` lets axe add its inline styles (the pages' CSP would refuse them).
 */
export async function openPage(
  env,
  path = '',
  { width = 1024, height = 900, waitFor = 'ready', setup, hasTouch = false, colorScheme = 'light', bypassCSP } = {},
) {
  const [url, site] = [new URL(path, env.server.url), new URL(env.server.url).origin];
  const viewport = { width, height };
  const context = await env.browser.newContext({ viewport, acceptDownloads: true, hasTouch, colorScheme, bypassCSP });
  const page = await context.newPage();
  const problems = await watchProblems(page, [site, url.origin]);
  if (setup) await setup(page);
  await page.goto(url.href);
  if (waitFor && url.origin === site)
    await page.waitForSelector(`body[data-state="${waitFor}"]`, { timeout: 20000 }).catch((err) => {
      const seen = JSON.stringify(problems);
      throw new Error(`the page did not reach state "${waitFor}": ${err.message}\n${seen}`, { cause: err });
    });
  return { page, context, problems };
}

/** The address of the page on one chapter in test mode; `search` ('?ch=...') comes first. */
export const chapterPath = (chapterId, search = '') => `${search ? `${search}&` : '?'}agtest=1#ch-${chapterId}`;
/** Chapters whose numbers come from a run in the experiment worker: a test waits for the run (waitRun) to read them. */
export const RUNS = new Set([
  'sqrt-d',
  'scale-fix',
  'near-orthogonal',
  'cost',
  'learn-to-attend',
  'scale-in-training',
  'heads-learn',
  'your-task',
]);
/**
 * Links (the `search` of chapterPath) that keep a chapter's worker run short, for tests whose checks do not depend
 * on the size of the run: a run of the default size costs seconds of CPU, more on a busy machine.
 */
export const SHORT_RUNS = {
  'sqrt-d': '?ch=sqrt-d&v=1&pairs=1000',
  cost: '?ch=cost&v=1&tmax=512',
  // Both widgets of the chapter read the link: pairs is <ag-near-orthogonal>'s, cand <ag-greedy-packing>'s.
  'near-orthogonal': '?ch=near-orthogonal&v=2&pairs=2000&cand=5000',
  'scale-in-training': '?ch=scale-in-training&v=1&steps=20',
  'heads-learn': '?ch=heads-learn&v=1&steps=30',
};
/**
 * Gives the widgets of the chapters of SHORT_RUNS in `page` (a page or a frame, once its widgets are defined) the
 * sizes of their short runs as attributes, each widget its own fields, for a test that goes through the chapters
 * and reads no number of their runs: a widget not started yet starts with them, a started one runs again with
 * them. Every chapter of SHORT_RUNS must take at least one.
 */
export async function shortenRuns(page) {
  const taken = await page.evaluate((runs) => {
    const out = {};
    for (const [id, search] of runs) {
      out[id] = [];
      for (const el of document.querySelectorAll(`#ch-${id} *`)) {
        const fields = customElements.get(el.localName)?.stateDecl?.fields ?? {};
        for (const [name, value] of new URLSearchParams(search))
          if (Object.hasOwn(fields, name)) {
            el.setAttribute(name, value);
            out[id].push(name);
          }
      }
    }
    return out;
  }, Object.entries(SHORT_RUNS));
  expect(Object.keys(taken).filter((id) => !taken[id].length)).toEqual([]);
}
/** The address of embed.html?<query> in test mode. */
const embedPath = (query) => `embed.html?${query}${query ? '&' : ''}agtest=1`;
/** The arguments (options, fn) of a call that may leave the options out. */
const optionsAnd = (options, fn) => (typeof options === 'function' ? [{}, options] : [options, fn]);

/** Opens the page on one chapter in test mode and waits until its widget has computed. */
export async function openChapter(env, chapterId, tag, { search, ...options } = {}) {
  const opened = await openPage(env, chapterPath(chapterId, search), options);
  await waitReady(opened.page, tag);
  return opened;
}

/**
 * Opens `path` (openPage; once given, the widget `tag` ready), runs `fn(opened)`, then checks the page stayed
 * clean (expectClean; `clean: false` skips that) and closes the context in any case. Returns what `fn` returns.
 */
export async function withPage(env, path, ...args) {
  const [{ clean = true, tag, ...open }, fn] = optionsAnd(...args);
  return closeAfter(await openPage(env, path, open), { clean }, async (opened) => {
    if (tag) await waitReady(opened.page, tag);
    return fn(opened);
  });
}

/**
 * Runs `fn(opened)` on a page opened by the caller, then checks it stayed clean (expectClean; `clean: false`
 * skips that) and closes its context in any case. Returns what `fn` returns.
 */
export async function closeAfter(opened, { clean = true }, fn) {
  try {
    const result = await fn(opened);
    if (clean) await expectClean(opened);
    return result;
  } finally {
    await opened.context.close();
  }
}

/** withPage on the chapter (as openChapter opens it), once its widget `tag` is ready. */
export function withChapter(env, chapterId, tag, ...args) {
  const [{ search, ...open }, fn] = optionsAnd(...args);
  return withPage(env, chapterPath(chapterId, search), { ...open, tag }, fn);
}

/** withPage on embed.html?<query> (test mode), once its widget `tag` is ready. */
export function withEmbed(env, query, tag, ...args) {
  const [options, fn] = optionsAnd(...args);
  return withPage(env, embedPath(query), { ...options, tag }, fn);
}

/**
 * One page for several tests (beforeAll, afterAll of the block it is called in): opens `path` (or what the
 * function `path` returns then: the address of a page added to useHost) as withPage does, with `options` as there and `ready(opened)` run once it is open (and the widget `tag` ready); the tests use `shared.page`. After
 * the block's last test (at the latest before useEnv closes the browser) the page is checked clean
 * (expectClean, unless `clean: false`) and closed.
 */
export function usePage(env, path, { clean = true, tag, ready, ...options } = {}) {
  const shared = {};
  const close = async () => {
    const opened = { ...shared };
    if (!shared.context) return;
    delete shared.context;
    await closeAfter(opened, { clean }, () => null);
  };
  beforeAll(async () => {
    env.closing.push(close);
    Object.assign(shared, await openPage(env, typeof path === 'function' ? path() : path, options));
    if (tag) await waitReady(shared.page, tag);
    await ready?.(shared);
  }, 120000);
  afterAll(close);
  return shared;
}

/** usePage on the chapter in test mode (as withChapter opens it), once its widget `tag` is ready. */
export const useChapter = (env, chapterId, tag, { search, ...options } = {}) =>
  usePage(env, chapterPath(chapterId, search), { ...options, tag });

/**
 * Puts the widget `tag` of the open page in the state `text` (its text form, "v=1&a=3,4"), the same parser as a
 * link's (decodeState), once it is in view and has computed; then waits until two frames in a row show the same
 * numbers with data-status one of `statuses` (by default "ready", or "stale" for a state it refused).
 */
export async function setStateText(page, tag, text, { statuses = ['ready', 'stale'] } = {}) {
  await waitReady(page, tag);
  await page
    .locator(tag)
    .first()
    .evaluate(
      (el, [t, allowed]) => {
        el.stateText = t;
        const texts = () => [...el.shadowRoot.querySelectorAll('[data-value]')].map((n) => n.textContent).join('|');
        return new Promise((done) => {
          let last = null;
          const frame = () => {
            const now = texts();
            if (now === last && allowed.includes(el.dataset.status)) done();
            else requestAnimationFrame(frame);
            last = now;
          };
          requestAnimationFrame(frame);
        });
      },
      [text, statuses],
    );
}

/** Polls `check` (async; a falsy value means not yet) every 100 ms until it gives a truthy value, which it returns. */
export async function until(check, what, tries = 150) {
  for (let i = 0; i < tries; i += 1) {
    const value = await check();
    if (value) return value;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A route's answer (Playwright's page.route handler): HTTP 404, for a file that did not load. */
export const gone = (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' });

/** The frame of `page` whose address contains `part`, once it is there. */
export const frameOf = (page, part = '/embed.html') =>
  until(() => page.frames().find((f) => f.url().includes(part)), `the frame of ${part}`);

/**
 * The height of the document in `frame` (rounded up), whether it scrolls (scrollHeight over clientHeight), and
 * the height of the first iframe element of `page` that holds it.
 */
export async function frameHeights(page, frame) {
  const inner = await frame.evaluate(() => ({
    height: Math.ceil(document.documentElement.getBoundingClientRect().height),
    scrolls: document.documentElement.scrollHeight > document.documentElement.clientHeight,
  }));
  return {
    ...inner,
    outer: await page.evaluate(() => document.querySelector('iframe').getBoundingClientRect().height),
  };
}

/**
 * A bundle with its files inside (the offline file, the H5P library) and a stylesheet of it that the browser did not
 * load (a host's policy blocking data: styles, say): the widget `locator`'s <link> of the site's `styles/<name>`,
 * inlined as a data: URL as the bundle holds it, fires `error`, as a blocked sheet's does (a data: URL cannot be made
 * to 404). Resolves to the stylesheet message that names it once it shows (the widget's, or the page's).
 */
export async function failInlinedSheet(locator, name) {
  const url = `data:text/css;base64,${readFileSync(join(SITE_ROOT, 'styles', name)).toString('base64')}`;
  await locator.evaluate((el, href) => {
    const link = [...el.shadowRoot.querySelectorAll('link[rel=stylesheet]')].find((l) => l.href === href);
    if (!link) throw new Error(`${el.localName} has no stylesheet link of the inlined ${href.slice(0, 40)}\u2026`);
    link.dispatchEvent(new Event('error'));
  }, url);
  const message = locator.locator('[data-failure=styles]');
  await message.waitFor({ state: 'visible' });
  // On a page with a stylesheet message of its own (the offline file's), the widget points to it.
  if (await message.evaluate((el) => el.classList.contains('error'))) return message.textContent();
  return locator.page().locator('body > .error[data-failure=page-styles]').textContent();
}

/**
 * The texts of the visible role=alert elements of `page`, in its document and in every widget's shadow root, that
 * contain `text`.
 */
export const alertsNaming = (page, text) =>
  page.evaluate((t) => {
    const roots = [document, ...[...document.querySelectorAll('*')].flatMap((el) => el.shadowRoot ?? [])];
    return roots
      .flatMap((root) => [...root.querySelectorAll('[role=alert]')])
      .filter((el) => el.checkVisibility() && el.textContent.includes(t))
      .map((el) => el.textContent);
  }, text);

/** How many times `text` occurs in the text of `page`, its widgets' shadow roots included. */
export const countOnPage = (page, text) =>
  page.evaluate((t) => {
    const roots = [document.body, ...[...document.querySelectorAll('*')].flatMap((el) => el.shadowRoot ?? [])];
    return roots.reduce((n, root) => n + root.textContent.split(t).length - 1, 0);
  }, text);

/** The text of a widget's note ('' when hidden or absent). */
export const noteOf = (locator) =>
  locator.evaluate((el) => {
    const n = el.shadowRoot.querySelector('.note');
    return n && !n.hidden ? n.textContent : '';
  });

/** The widget's state (its `state` property). */
export const stateOf = (page, tag) => page.locator(`${tag} >> nth=0`).evaluate((el) => el.state);

/** Scrolls the widget `tag` into view and waits until it has computed (data-status="ready"). */
export async function waitReady(page, tag) {
  await page.locator(tag).first().scrollIntoViewIfNeeded();
  await page.waitForSelector(`${tag}[data-status="ready"]`, { timeout: 20000 });
}

/** Waits until the widget's run in the experiment worker is done (data-run="done" on the host). */
export async function waitRun(page, tag, timeout = 200000) {
  await page.waitForFunction((t) => document.querySelector(t)?.dataset.run === 'done', tag, { timeout });
}

/** The status lines of the widget's training runs (widget/training.js), in order. */
export const runStatuses = (page, tag) =>
  page
    .locator(tag)
    .first()
    .evaluate((el) => [...el.shadowRoot.querySelectorAll('.training .status')].map((s) => s.textContent));

/**
 * Presses Train on each training run of the widget that waits at step 0 (its status "Ready: step 0 ..."), then
 * waits until its runs are done (waitRun). Returns how many it pressed.
 */
export async function trainWaiting(page, tag, timeout) {
  const pressed = await page
    .locator(tag)
    .first()
    .evaluate(async (el) => {
      const waiting = [...el.shadowRoot.querySelectorAll('.training')].filter((box) =>
        /^Ready: step 0 /.test(box.querySelector('.status').textContent),
      );
      for (const box of waiting) box.querySelector('[data-action="train"]').click();
      await new Promise((resolve) => setTimeout(resolve)); // the host's data-run follows the runs
      return waiting.length;
    });
  await waitRun(page, tag, timeout);
  return pressed;
}

const SEEDS = JSON.parse(readFileSync(join(ROOT, 'tests/data/seeds/worked-examples.json'), 'utf8')).cases;

/** The case `id` of the articles' seed file (tests/data/seeds/worked-examples.json). */
export function seedCase(id) {
  const found = SEEDS.find((c) => c.id === id);
  if (!found) throw new Error(`no seed case ${id}`);
  return found;
}

/**
 * The worked example's numbers (readNumbers) are the articles' (seedCase): the scores 5, -4, 0 exactly, and
 * three weights within the seed's tolerance, or within `tolerance(weight)`.
 */
export function expectWorkedExample(numbers, tolerance = () => seedCase('worked-softmax-unscaled').tolerance) {
  expect(byRole(numbers, 'score').map((s) => s.value)).toEqual(seedCase('worked-scores').expected);
  const weights = seedCase('worked-softmax-unscaled').expected;
  expect(byRole(numbers, 'weight')).toHaveLength(3);
  byRole(numbers, 'weight').forEach((w, j) =>
    expectClose(w.value, weights[j], tolerance(weights[j]), `weight ${j + 1}`),
  );
}

/** The widget's live region (what was announced) contains `text`. */
export async function expectAnnounced(page, tag, text) {
  await expect(page.locator(`${tag} [aria-live]`).textContent()).resolves.toContain(text);
}

/** No console error, no request to another origin, no dialog, no CSP violation in the page or any of its frames. */
export async function expectClean({ page, problems }) {
  expect(problems.errors).toEqual([]);
  expect(problems.foreign).toEqual([]);
  expect(problems.dialogs).toEqual([]);
  expect(await cspViolations(page)).toEqual([]);
}

/** CSP violations reported in the page and in every frame it holds. */
export async function cspViolations(page) {
  const all = [];
  for (const frame of page.frames()) {
    const found = await frame.evaluate(() => window.__cspViolations ?? []).catch(() => null);
    all.push(...(found ?? [`could not read the violations of frame ${frame.url()}`]));
  }
  return all;
}

/** The shell wrote the chapter's versioned state into the page URL: `ch`, v=1 and `params` (the text of each field). */
export async function expectParams(page, ch, params = {}) {
  const url = await urlParams(page);
  expect(url.get('ch')).toBe(ch);
  expect(url.get('v')).toBe('1');
  for (const [name, text] of Object.entries(params)) expect(url.get(name)).toBe(text);
  return url;
}

/**
 * A copy of the page's link (once the shell wrote it) opens on the same state and shows the same digits as
 * `numbers` (readNumbers of the page), on a clean page; `check(copy)` may look at more of the copy. Returns
 * the copy's numbers.
 */
export async function expectReopens(env, page, ch, tag, numbers, check) {
  const { search } = await settledUrl(page);
  return withChapter(env, ch, tag, { search }, async (copy) => {
    const reopened = await readNumbers(copy.page, tag);
    expect(reopened.map((n) => n.text)).toEqual(numbers.map((n) => n.text));
    await check?.(copy);
    return reopened;
  });
}

/**
 * Gives `response` to the prediction in `scope` (a locator of the widget, or of its block), by its kind: a choice
 * value is pressed; a number (as text) is typed and committed with Enter; a point "x,y" is reached from the
 * marker's place with the arrow keys (Shift: steps of 1, else 0.25) and committed with Enter on the marker.
 */
export async function respond(scope, response) {
  const block = scope.locator('.predict').first();
  const kind = await block.getAttribute('data-kind');
  if (kind === 'number') {
    await block.locator('input.predict-number').fill(String(response));
    await block.locator('input.predict-number').press('Enter');
  } else if (kind === 'point') {
    const marker = scope.locator('.handle-guess');
    const [from, to] = [await marker.getAttribute('aria-valuetext'), response].map((t) =>
      (/(-?[\d.]+),\s*(-?[\d.]+)/.exec(t.replace(/\u2212/g, '-')) ?? []).slice(1).map(Number),
    );
    await marker.focus();
    const page = marker.page();
    for (const [i, up, down] of [
      [0, 'ArrowRight', 'ArrowLeft'],
      [1, 'ArrowUp', 'ArrowDown'],
    ]) {
      const steps = Math.round((to[i] - from[i]) / 0.25);
      const key = steps > 0 ? up : down;
      for (let k = 0; k < Math.floor(Math.abs(steps) / 4); k++) await page.keyboard.press(`Shift+${key}`);
      for (let k = 0; k < Math.abs(steps) % 4; k++) await page.keyboard.press(key);
    }
    await page.keyboard.press('Enter');
  } else await block.locator(`.predict-choice[data-choice="${response}"]`).click();
}

/**
 * Predict, then reveal: gives `choice` (a choice value, a number or a point "x,y": respond) after "Ask me again"
 * if an answer is shown, and checks it is marked `result` once the reveal has answered (it may train first).
 */
export async function predictChoice(page, tag, choice, result) {
  const again = page.locator(`${tag} .predict-again`);
  if (await again.isVisible()) await again.click();
  await respond(page.locator(tag), choice);
  await page.locator(`${tag} .predict[data-result]`).waitFor({ timeout: 120000 }); // a reveal may train first
  await expect(page.locator(`${tag} .predict`).getAttribute('data-result')).resolves.toBe(result);
}

/**
 * Horizontal overflow of the page in px (0 or less means none). Chapters are contained (content-visibility
 * in style.css): what overflows one of them is clipped at its edge instead of widening the page, so each
 * chapter's own overflow counts too.
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

/** The downloaded file (its name and bytes) after clicking the export button `kind`. */
export const exportFile = async (page, tag, kind) => (await exportFiles(page, tag, [kind]))[kind];

/**
 * The downloaded files (by kind: its name and bytes) after clicking the export buttons `kinds` one after the
 * other, with the export menu opened once (it stays open after a download).
 */
export async function exportFiles(page, tag, kinds) {
  const files = {};
  await page.locator(`${tag} details.export summary`).click();
  for (const kind of kinds) {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`${tag} [data-export="${kind}"]`).click(),
    ]);
    // A stream, not a path: a browser connected to (the stage's) keeps its downloads on its own side.
    files[kind] = { name: download.suggestedFilename(), bytes: await buffer(await download.createReadStream()) };
  }
  await page.locator(`${tag} details.export summary`).click();
  return files;
}

/** The exported JSON of the widget (exportFile 'json'), parsed. */
export const exportJson = async (page, tag) => JSON.parse(await exportText(page, tag, 'json'));

/** The text of an export of the widget (exportFile `kind`: 'csv', 'svg'). */
export const exportText = async (page, tag, kind) => (await exportFile(page, tag, kind)).bytes.toString('utf8');

/**
 * The page URL once the shell has written the latest state into it. The shell writes it when the learner
 * pauses (web/shell/url-writer.js) and marks <body data-url="pending"> until then; this waits for that
 * write (at most a few seconds) and reads the address in the page itself.
 */
export async function settledUrl(page) {
  const handle = await page.waitForFunction(
    () => document.body?.dataset.url !== 'pending' && window.location.href,
    null,
    { timeout: 5000 },
  );
  return new URL(await handle.jsonValue());
}

/** Resolves after `n` animation frames of the page: what the shell does a frame or two after an event is done. */
export const frames = (page, n) =>
  page.evaluate(
    (count) =>
      new Promise((done) => {
        const next = (left) => (left ? requestAnimationFrame(() => next(left - 1)) : done());
        next(count);
      }),
    n,
  );

/** The state parameters of the page URL, once written (settledUrl). */
export const urlParams = async (page) => (await settledUrl(page)).searchParams;

/** The rows of a matrix written as a link writes it ('1,0;0,1' is [[1, 0], [0, 1]]). */
export const rowsOf = (text) => text.split(';').map((r) => r.split(',').map(Number));

/** Presses the keys one after the other (on the element that has the focus). */
export async function pressKeys(page, ...keys) {
  for (const key of keys) await page.keyboard.press(key);
}

// ------------------------------------------------------------ host pages (embedding)

/**
 * A second server for the whole test file, standing for a course platform, on 127.0.0.1 and its own port
 * (another origin than env.server): it serves the pages added by `host.add(name, body, headers)` (which
 * returns the page's address) as HTML with their own headers (a CSP header, for example); with `site: true`
 * every other path as static files from env's copy of the site, else a 404.
 */
export function useHost(env, { site = false } = {}) {
  const pages = {};
  const host = {
    add(name, body, headers) {
      pages[`/${name}`] = { body, headers };
      return `${host.url}${name}`;
    },
  };
  beforeAll(async () => {
    const { createServer } = await import('node:http');
    const serveStatic = site ? (await import('sirv')).default(env.site, { dev: true }) : null;
    const server = createServer((req, res) => {
      const path = new URL(req.url, 'http://host').pathname;
      const page = pages[path];
      const send = (status, headers, body) => res.writeHead(status, headers).end(body);
      // Browsers ask every origin for a favicon; a course platform would have one.
      if (path === '/favicon.ico') return send(204, {});
      if (page)
        return send(
          200,
          { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', ...page.headers },
          page.body,
        );
      const notFound = () => send(404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'Not found\n');
      if (!serveStatic) return notFound();
      if (path.endsWith('.wasm')) res.setHeader('Content-Type', 'application/wasm');
      else if (path.endsWith('.js')) res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
      serveStatic(req, res, notFound);
    });
    await new Promise((done) => server.listen(0, '127.0.0.1', done));
    host.url = `http://127.0.0.1:${server.address().port}/`;
    host.close = () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      });
  });
  afterAll(async () => host.close?.());
  return host;
}

/** A host page: `head` and `body` in a minimal HTML document. */
export const hostPage = (body, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>${head}</head><body>\n${body}\n</body></html>`;

/** The script tag that loads the widgets from env's server. */
export const widgetsScript = (env) =>
  `<script type="module" src="${new URL('widgets.js', env.server.url).href}"></script>`;

// ------------------------------------------------------------ other engines

/** The stage's Chromium (stage-chromium.mjs) when there is one, else a new one; its close() disconnects or closes. */
export const stageChromium = () =>
  process.env.AG_CHROMIUM_WS ? chromium.connect(process.env.AG_CHROMIUM_WS) : launchChromium();

/**
 * A Debian Chromium with the shared arguments plus `args` (for example V8 flags through --js-flags), for a
 * run under other engine conditions; use it in place of env.browser ({ ...env, browser }).
 */
export function launchChromium({ args = [] } = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args], headless: true });
}
