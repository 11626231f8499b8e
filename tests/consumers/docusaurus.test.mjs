// EMBEDDING.md's Docusaurus recipe, followed literally: a fresh Docusaurus
// site (installed from the npm registry into a temp dir, exact versions) whose
// docusaurus.config.js gets the recipe's `scripts` entry and whose MDX page
// holds the recipe's two MDX blocks (the custom element and the iframe), with
// https://example.org/ag/ replaced by a server of build/site. The site is
// built by `docusaurus build`, served from another origin, and opened in
// Chromium: both widgets compute a·b for a = (3, 4), b = (4, 3), which is 24.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/chromium.mjs';
import { SITE_ROOT, startServer } from '../../scripts/serve.mjs';
import { ROOT, tempDir, writeFiles } from './helpers.mjs';

const VERSIONS = {
  '@docusaurus/core': '3.10.2',
  '@docusaurus/preset-classic': '3.10.2',
  '@mdx-js/react': '3.1.1',
  react: '19.3.1',
  'react-dom': '19.3.1',
};
const PLACEHOLDER = 'https://example.org/ag/';

/** The fenced blocks of EMBEDDING.md's "Docusaurus" section: { js: [...], mdx: [...] }. */
function recipe() {
  const text = readFileSync(join(ROOT, 'EMBEDDING.md'), 'utf8');
  const section = text.slice(text.indexOf('## Docusaurus'), text.indexOf('\n## ', text.indexOf('## Docusaurus') + 3));
  const blocks = { js: [], mdx: [] };
  for (const m of section.matchAll(/```(js|mdx)\n([\s\S]*?)```/g)) blocks[m[1]].push(m[2]);
  return blocks;
}

let dir;
let widgets;
let docs;
let browser;
beforeAll(async () => {
  dir = tempDir('docusaurus');
  cpSync(SITE_ROOT, join(dir, 'ag'), { recursive: true }); // a rebuild during the run cannot pull files away
  widgets = await startServer({ port: 0, root: join(dir, 'ag') });
  const { js, mdx } = recipe();
  expect(js).toHaveLength(1);
  expect(mdx).toHaveLength(2);
  // The recipe's config: `export default { scripts: [...] }`; the test adds what any site has.
  const scriptsLine = js[0].split('\n').find((l) => l.trim().startsWith('scripts:'));
  expect(scriptsLine).toBeDefined();
  writeFiles(dir, {
    'package.json': `${JSON.stringify({ name: 'course-site', private: true, dependencies: VERSIONS }, null, 2)}\n`,
    'docusaurus.config.js': [
      'export default {',
      "  title: 'A course', url: 'http://127.0.0.1', baseUrl: '/',",
      scriptsLine.replaceAll(PLACEHOLDER, widgets.url),
      "  presets: [['classic', { docs: { routeBasePath: '/', sidebarPath: false }, blog: false, pages: false }]],",
      '};',
      '',
    ].join('\n'),
    'docs/index.mdx': `# Week 3\n\n${mdx.map((b) => b.replaceAll(PLACEHOLDER, widgets.url)).join('\n')}\n`,
  });
  const npm = (args) => execFileSync('npm', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error']);
  execFileSync(join(dir, 'node_modules/.bin/docusaurus'), ['build'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  docs = await startServer({ port: 0, root: join(dir, 'build') });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}, 420000);

afterAll(async () => {
  await browser?.close();
  await docs?.close();
  await widgets?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the Docusaurus recipe: the element in MDX and the iframe both compute a·b = 24', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on(
    'console',
    (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
  );
  // Any failed request is named by its URL (the console message above does not say which).
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  await page.goto(docs.url);
  const dotOf = (root) =>
    root.waitForFunction(
      () => {
        const el = document.querySelector('ag-two-definitions');
        const n = el?.dataset.status === 'ready' && el.shadowRoot.querySelector('[data-role="dot"]');
        return n ? Number(n.dataset.value) : null;
      },
      null,
      { timeout: 30000 },
    );
  // React rendered the element with its state attribute as a string.
  expect(await page.locator('ag-two-definitions').getAttribute('state')).toBe('v=1&a=3,4&b=4,3');
  await page.locator('ag-two-definitions').scrollIntoViewIfNeeded();
  expect(await (await dotOf(page)).jsonValue()).toBe(24);
  await page.locator('iframe').scrollIntoViewIfNeeded(); // loading="lazy"
  const frame = page.frames().find((f) => f.url().includes('/embed.html'));
  expect(frame).toBeDefined();
  await frame.waitForSelector('body[data-state]', { timeout: 30000 }).catch(() => {});
  if ((await frame.evaluate(() => document.body.dataset.state)) !== 'ready') {
    throw new Error(
      `the frame did not get ready: ${await frame.evaluate(() => document.body.innerText.slice(0, 500))}`,
    );
  }
  expect(await (await dotOf(frame)).jsonValue()).toBe(24);
  expect(errors).toEqual([]);
  await page.close();
});
