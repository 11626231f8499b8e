// Screenshots of every chapter, to check that a change of the style sheets
// leaves what a reader sees as it was, and their comparison pixel by pixel.
//
//   node scripts/screenshots.mjs capture OUT [--site DIR] [--only id,id]
//       serves DIR (default build/site, as scripts/serve.mjs does), opens each
//       chapter of web/chapters.js (?ch=<id>, test mode) at 375 px in the dark
//       scheme and at 1024 px in the light one, waits until its widgets are
//       ready (and a run in the experiment worker is done), and writes the
//       whole section of the chapter, however tall, to OUT/<id>-<width>-<scheme>.png.
//   node scripts/screenshots.mjs compare BEFORE AFTER [DIFF]
//       compares each pair of PNGs of the same name: identical bytes pass at
//       once, other pairs are decoded in Chromium (canvas getImageData) and
//       their differing pixels counted; DIFF (optional) gets an image per
//       differing pair, the differences in red over a faded copy of AFTER.
//       Exits with 1 when any pair differs or a file has no partner.
//
// Chapters whose numbers come from a run in the worker open with a short run
// (the links below, as the contract tests use). Timings measured on the
// machine differ from run to run: capture a folder twice to see which pages
// are not reproducible before comparing two builds.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { CHAPTERS } from '../web/chapters.js';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.mjs';
import { SITE_ROOT, startServer } from './serve.mjs';

/** The views taken of each chapter: width (px) and colour scheme. */
const VIEWS = [
  [375, 'dark'],
  [1024, 'light'],
];
/** Links that keep a chapter's worker run short. */
const SHORT_RUN = {
  'sqrt-d': 'v=1&pairs=1000',
  cost: 'v=1&tmax=512',
  'near-orthogonal': 'v=1&d=100&pairs=2000&cand=5000',
  'scale-in-training': 'v=1&steps=20',
  'heads-learn': 'v=1&steps=30',
};
/** Chapters with a run in the experiment worker (data-run="done" on the host once it ends). */
const RUNS = new Set(['sqrt-d', 'scale-fix', 'near-orthogonal', 'cost']);
const RUN_TIMEOUT = 180000;
/** For loading a page and its widgets: generous, as a loaded machine can take long. */
const LOAD_TIMEOUT = 120000;

function usage(message) {
  if (message) console.error(message);
  console.error(
    'usage: node scripts/screenshots.mjs capture OUT [--site DIR] [--only id,id]\n' +
      '       node scripts/screenshots.mjs compare BEFORE AFTER [DIFF]',
  );
  process.exit(2);
}

async function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Opens one chapter in a new context and saves the section's screenshot. */
async function captureOne(browser, url, { id, tag, also = [] }, [width, scheme], out) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const search = `?ch=${id}${SHORT_RUN[id] ? `&${SHORT_RUN[id]}` : ''}&agtest=1`;
    await page.goto(`${url}${search}#ch-${id}`, { timeout: LOAD_TIMEOUT });
    await page.waitForSelector('body[data-state="ready"]', { timeout: LOAD_TIMEOUT });
    const section = page.locator(`#ch-${id}`);
    for (const t of [tag, ...also]) {
      await section.locator(t).first().scrollIntoViewIfNeeded();
      await section.locator(`${t}[data-status="ready"]`).first().waitFor({ timeout: LOAD_TIMEOUT });
    }
    if (RUNS.has(id))
      await page.waitForFunction((t) => document.querySelector(t)?.dataset.run === 'done', tag, {
        timeout: RUN_TIMEOUT,
      });
    // The section's top at the top of the window (the page's sticky reading bar is drawn where the window is,
    // so the same scroll every time), the fonts, then two frames, so that nothing is left to lay out.
    await section.evaluate((el) => el.scrollIntoView({ block: 'start', behavior: 'instant' }));
    await page.evaluate(() =>
      document.fonts.ready.then(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))),
    );
    await page.mouse.move(0, 0);
    await section.screenshot({ path: join(out, `${id}-${width}-${scheme}.png`), animations: 'disabled' });
    if (errors.length) console.warn(`${id} ${width} ${scheme}: page errors: ${errors.join('; ')}`);
  } finally {
    await context.close();
  }
}

async function capture(out, { site, only }) {
  mkdirSync(out, { recursive: true });
  const server = await startServer({ port: 0, root: site });
  const browser = await launch();
  const chapters = CHAPTERS.filter((c) => c.tag && (!only || only.includes(c.id)));
  let failed = 0;
  try {
    for (const chapter of chapters) {
      for (const view of VIEWS) {
        const started = Date.now();
        try {
          await captureOne(browser, server.url, chapter, view, out);
          console.log(`${chapter.id} ${view.join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
        } catch (err) {
          failed += 1;
          console.error(`${chapter.id} ${view.join(' ')}: ${err.message.split('\n')[0]}`);
        }
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  if (failed) process.exitCode = 1;
}

/** Counts the differing pixels of two PNGs (data: URLs) in the page; returns the count, size and a diff image. */
function diffInPage([a, b]) {
  const load = (src) =>
    new Promise((done, fail) => {
      const img = new Image();
      img.onload = () => done(img);
      img.onerror = () => fail(new Error('not a PNG'));
      img.src = src;
    });
  const pixels = (img, w, h) => {
    const canvas = new OffscreenCanvas(w, h);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    return ctx.getImageData(0, 0, w, h).data;
  };
  return Promise.all([load(a), load(b)]).then(async ([ia, ib]) => {
    const w = Math.max(ia.naturalWidth, ib.naturalWidth);
    const h = Math.max(ia.naturalHeight, ib.naturalHeight);
    const [pa, pb] = [pixels(ia, w, h), pixels(ib, w, h)];
    const canvas = new OffscreenCanvas(w, h);
    const ctx = canvas.getContext('2d');
    const out = ctx.createImageData(w, h);
    let count = 0;
    for (let i = 0; i < pa.length; i += 4) {
      const same = pa[i] === pb[i] && pa[i + 1] === pb[i + 1] && pa[i + 2] === pb[i + 2] && pa[i + 3] === pb[i + 3];
      if (same) {
        const grey = 160 + (pb[i] + pb[i + 1] + pb[i + 2]) / 8;
        out.data.set([grey, grey, grey, 255], i);
      } else {
        count += 1;
        out.data.set([255, 0, 0, 255], i);
      }
    }
    ctx.putImageData(out, 0, 0);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return {
      count,
      sizes: [
        [ia.naturalWidth, ia.naturalHeight],
        [ib.naturalWidth, ib.naturalHeight],
      ],
      diff: btoa(binary),
    };
  });
}

async function compare(before, after, diffDir) {
  const pngs = (dir) => new Set(readdirSync(dir).filter((f) => f.endsWith('.png')));
  const [a, b] = [pngs(before), pngs(after)];
  const names = [...new Set([...a, ...b])].sort();
  let bad = 0;
  let browser = null;
  let page = null;
  try {
    for (const name of names) {
      if (!a.has(name) || !b.has(name)) {
        bad += 1;
        console.log(`${name}: only in ${a.has(name) ? before : after}`);
        continue;
      }
      const [x, y] = [readFileSync(join(before, name)), readFileSync(join(after, name))];
      if (x.equals(y)) {
        console.log(`${name}: identical`);
        continue;
      }
      if (!page) {
        browser = await launch();
        page = await browser.newPage();
      }
      const url = (buf) => `data:image/png;base64,${buf.toString('base64')}`;
      const { count, sizes, diff } = await page.evaluate(diffInPage, [url(x), url(y)]);
      const sized =
        sizes[0].join('x') === sizes[1].join('x') ? sizes[0].join('x') : sizes.map((s) => s.join('x')).join(' -> ');
      if (count === 0 && sizes[0].join() === sizes[1].join()) {
        console.log(`${name}: same pixels (${sized})`);
        continue;
      }
      bad += 1;
      console.log(`${name}: ${count} pixels differ (${sized})`);
      if (diffDir) {
        mkdirSync(diffDir, { recursive: true });
        writeFileSync(join(diffDir, name), Buffer.from(diff, 'base64'));
      }
    }
  } finally {
    await browser?.close();
  }
  console.log(`${names.length} pairs, ${bad} differ`);
  if (bad) process.exitCode = 1;
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'capture') {
  const out = rest[0];
  if (!out || out.startsWith('--')) usage('capture needs an output folder');
  const option = (name) => {
    const i = rest.indexOf(name);
    return i < 0 ? null : rest[i + 1];
  };
  const site = resolve(option('--site') ?? SITE_ROOT);
  if (!existsSync(join(site, 'index.html'))) usage(`no site in ${site}: run node scripts/build.mjs first`);
  const only = option('--only')?.split(',') ?? null;
  await capture(resolve(out), { site, only });
} else if (command === 'compare') {
  if (rest.length < 2) usage('compare needs two folders');
  await compare(resolve(rest[0]), resolve(rest[1]), rest[2] ? resolve(rest[2]) : null);
} else {
  usage();
}
