// The SCORM 1.2 package (scripts/scorm.mjs) built from build/site into a
// temporary folder: unzipped with fflate, its imsmanifest.xml read with
// fast-xml-parser. Checks the manifest against the SCORM 1.2 content
// packaging rules (ADL SCORM 1.2 schema, one SCO resource, every file
// listed), the launch page, the licences, and that builds are byte-equal;
// the same for a one-chapter package with the studio's options. Also the
// CMITimespan and suspend-data formats the adapter writes.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { strFromU8, unzipSync } from 'fflate';
import {
  buildScorm,
  chapterLaunchPage,
  chapterRule,
  defaultOut,
  launchPage,
  manifestXml,
  optionsFromArgs,
  reportText,
} from '../../scripts/scorm.mjs';
import { SITE_ROOT } from '../../scripts/serve.mjs';
import { decodeSuspendData, encodeSuspendData, MAX_SUSPEND_DATA } from '../../web/scorm/suspend-data.js';
import { formatTimespan } from '../../web/scorm/timespan.js';

let dir;
let site; // a copy of build/site: a rebuild during the run cannot change it
let first;
let zip;
let manifest;
const readManifest = (text) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    isArray: (name) => ['file', 'resource', 'organization', 'item'].includes(name),
  }).parse(text).manifest;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'attention-geometry-scorm-'));
  site = join(dir, 'site');
  cpSync(SITE_ROOT, site, { recursive: true });
  first = buildScorm({ site, out: join(dir, 'a.zip') });
  zip = unzipSync(readFileSync(first.out));
  const text = strFromU8(zip['imsmanifest.xml']);
  expect(XMLValidator.validate(text)).toBe(true);
  manifest = readManifest(text);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the SCORM 1.2 package', () => {
  test('is written where asked, with the size reported', () => {
    expect(existsSync(first.out)).toBe(true);
    expect(first.bytes).toBe(readFileSync(first.out).length);
  });

  test('imsmanifest.xml is SCORM 1.2 (ADL SCORM, schemaversion 1.2) with the IMS CP and ADL namespaces', () => {
    expect(manifest.metadata.schema).toBe('ADL SCORM');
    expect(String(manifest.metadata.schemaversion)).toBe('1.2');
    expect(manifest['@_xmlns']).toBe('http://www.imsproject.org/xsd/imscp_rootv1p1p2');
    expect(manifest['@_xmlns:adlcp']).toBe('http://www.adlnet.org/xsd/adlcp_rootv1p2');
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(manifest['@_version']).toBe(version);
  });

  test('one organization with one item "Attention Geometry" pointing at one SCO resource whose launch page is in the zip', () => {
    const orgs = manifest.organizations.organization;
    expect(orgs).toHaveLength(1);
    expect(manifest.organizations['@_default']).toBe(orgs[0]['@_identifier']);
    expect(orgs[0].item).toHaveLength(1);
    const item = orgs[0].item[0];
    expect(item.title).toBe('Attention Geometry');
    const resources = manifest.resources.resource;
    expect(resources).toHaveLength(1);
    const sco = resources[0];
    expect(item['@_identifierref']).toBe(sco['@_identifier']);
    expect(sco['@_adlcp:scormtype']).toBe('sco');
    expect(sco['@_type']).toBe('webcontent');
    expect(sco['@_href']).toBe('index.html');
    expect(zip[sco['@_href']]).toBeDefined();
  });

  test('every file in the zip is listed in the resource, and every listed file is in the zip', () => {
    const listed = manifest.resources.resource[0].file.map((f) => decodeURI(f['@_href'])).sort();
    const inZip = Object.keys(zip)
      .filter((p) => p !== 'imsmanifest.xml' && !p.endsWith('/'))
      .sort();
    expect(listed).toEqual(inZip);
    expect(new Set(listed).size).toBe(listed.length);
    // The whole site went in: the bundles, the wasm builds, the styles, the offline page if built.
    const siteFiles = readdirSync(site, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => relative(site, join(d.parentPath, d.name)).split(sep).join('/'));
    expect(inZip).toEqual(siteFiles.sort());
    for (const p of ['app.js', 'scorm.js', 'widgets.js', 'style.css']) expect(inZip).toContain(p);
    expect(inZip.some((p) => p.startsWith('wasm/') && p.endsWith('.wasm'))).toBe(true);
    expect(inZip.some((p) => p.startsWith('styles/'))).toBe(true);
  });

  test('the launch page is the site page with scorm.js loaded after app.js, both as modules; the strict CSP kept', () => {
    const sitePage = readFileSync(join(site, 'index.html'), 'utf8');
    const page = strFromU8(zip['index.html']);
    const app = page.indexOf('<script type="module" src="app.js"></script>');
    const adapter = page.indexOf('<script type="module" src="scorm.js"></script>');
    expect(app).toBeGreaterThan(0);
    expect(adapter).toBeGreaterThan(app);
    expect(adapter).toBeLessThan(page.indexOf('</head>'));
    // The widgets' Embed control is turned off there (its addresses would point into the LMS).
    const meta = page.indexOf('<meta name="attention-geometry-embed" content="off">');
    expect(meta).toBeGreaterThan(0);
    expect(meta).toBeLessThan(adapter);
    // The author's reporting rule, the default one here.
    expect(page).toContain(
      '<meta name="attention-geometry-scorm" content="completion=used; min-minutes=0; score=predictions">',
    );
    // Nothing else changed: removing the three inserted lines gives the site's page back.
    expect(
      page.replace(
        '  <meta name="attention-geometry-embed" content="off">\n  <meta name="attention-geometry-scorm" content="completion=used; min-minutes=0; score=predictions">\n  <script type="module" src="scorm.js"></script>\n',
        '',
      ),
    ).toBe(sitePage);
    expect(page).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  test('launchPage: a page without one </head>, without app.js, or already with the adapter is refused', () => {
    expect(() => launchPage('<html><body></body></html>')).toThrow(/one <\/head>/);
    expect(() => launchPage('<head></head><head></head>')).toThrow(/one <\/head>/);
    expect(() => launchPage('<head>\n</head>')).toThrow(/app\.js/);
    expect(() =>
      launchPage(
        '<head>\n  <script type="module" src="app.js"></script>\n  <script type="module" src="scorm.js"></script>\n</head>',
      ),
    ).toThrow(/already/);
    expect(launchPage('<head><script type="module" src="app.js"></script></head>')).toBe(
      '<head><script type="module" src="app.js"></script><meta name="attention-geometry-embed" content="off"><meta name="attention-geometry-scorm" content="completion=used; min-minutes=0; score=predictions"><script type="module" src="scorm.js"></script></head>',
    );
  });

  test('licences and notices are in the package', () => {
    expect(zip['vendor/index.html']).toBeDefined();
    const notices = Object.keys(zip).filter((p) => /(LICENSE|NOTICE)[^/]*$/i.test(p));
    expect(notices.length).toBeGreaterThan(0);
    // The licence texts of what the bundles hold (KaTeX and d3 are MIT and ISC).
    const text = notices.map((p) => strFromU8(zip[p])).join('\n');
    expect(text).toMatch(/katex/i);
    expect(text).toMatch(/\bd3\b/i);
    expect(text).toMatch(/Permission is hereby granted/);
    expect(text).toMatch(/Permission to use, copy, modify, and\/or distribute/);
  });

  test('two builds give the same bytes', () => {
    const second = buildScorm({ site, out: join(dir, 'b.zip') });
    expect(Buffer.compare(readFileSync(first.out), readFileSync(second.out))).toBe(0);
  });

  test('a missing site is a clear error naming the build step', () => {
    expect(() => buildScorm({ site: join(dir, 'no-site'), out: join(dir, 'c.zip') })).toThrow(
      /node scripts\/build\.mjs/,
    );
    expect(existsSync(join(dir, 'c.zip'))).toBe(false);
  });

  test('file names with markup characters are escaped in the manifest, and read back unchanged', () => {
    const text = manifestXml({ files: ['a&b <c>.txt', 'x/y.js'], version: '1' });
    expect(XMLValidator.validate(text)).toBe(true);
    const files = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_' }).parse(text).manifest.resources
      .resource.file;
    expect(files.map((f) => decodeURI(f['@_href']))).toEqual(['a&b <c>.txt', 'x/y.js']);
  });
});

describe('a one-chapter package (--chapter, with the studio\u2019s options)', () => {
  const ARGS = ['--chapter', 'dot-product', '--state', 'v=1&a=3,4&b=-4,3', '--hide', 'presets', '--ask', 'none'];
  let built;
  let files;
  beforeAll(() => {
    const { out, ...options } = optionsFromArgs(ARGS);
    expect(out).toBeUndefined();
    built = buildScorm({ site, ...options, out: join(dir, 'chapter.zip') });
    files = unzipSync(readFileSync(built.out));
  });

  test('its default file names the chapter', () => {
    expect(defaultOut(optionsFromArgs(ARGS).chapter)).toMatch(/build\/attention-geometry-dot-product-scorm12\.zip$/);
  });

  test('the manifest names the chapter and states its rule; every file is listed, the course\u2019s pages are not', () => {
    const text = strFromU8(files['imsmanifest.xml']);
    expect(XMLValidator.validate(text)).toBe(true);
    const m = readManifest(text);
    expect(m['@_identifier']).toBe('attention-geometry-dot-product');
    expect(String(m.metadata.schemaversion)).toBe('1.2');
    const item = m.organizations.organization[0].item[0];
    expect(item.title).toBe('Attention Geometry: Two definitions agree');
    const general = m.metadata['imsmd:lom']['imsmd:general'];
    // --ask none: no prediction, so the widget used completes it and no score is sent.
    expect(general['imsmd:description']['imsmd:langstring']['#text']).toBe(
      'Completed once the learner has used the widget (changed something in it or answered a prediction). No score is sent.',
    );
    const sco = m.resources.resource[0];
    expect([item['@_identifierref'], sco['@_href']]).toEqual([sco['@_identifier'], 'index.html']);
    const listed = sco.file.map((f) => decodeURI(f['@_href'])).sort();
    expect(listed).toEqual(
      Object.keys(files)
        .filter((p) => p !== 'imsmanifest.xml')
        .sort(),
    );
    for (const p of ['embed.js', 'scorm.js', 'widgets.js', 'experiment-worker.js', 'styles/embed.css'])
      expect(listed).toContain(p);
    for (const p of ['app.js', 'embed.html', 'attention-geometry-offline.html']) expect(listed).not.toContain(p);
  });

  test('the launch page is embed.html with the chapter\u2019s address, the rule and the adapter after embed.js', () => {
    const page = strFromU8(files['index.html']);
    expect(page).toContain(
      '<meta name="attention-geometry-launch" content="ch=dot-product&amp;s=v%3D1%26a%3D3%2C4%26b%3D-4%2C3&amp;hide=presets&amp;ask=none">',
    );
    // Asked none: the page completes once used and sends no score, and its policy meta says so.
    expect(page).toContain(
      '<meta name="attention-geometry-scorm" content="completion=used; min-minutes=0; score=none">',
    );
    expect(page).toContain('<meta name="attention-geometry-full-page" content="off">');
    // The package holds no full page: the link is hidden and the note for an embed.js that did not load names none.
    expect(page).toContain('<p class="embed-open" hidden>');
    expect(page).not.toContain('embed-missing-open');
    expect(page).toContain('<title>Attention Geometry: Two definitions agree</title>');
    const embed = page.indexOf('<script type="module" src="embed.js"></script>');
    expect(embed).toBeGreaterThan(0);
    expect(page.indexOf('<script type="module" src="scorm.js"></script>')).toBeGreaterThan(embed);
    expect(page).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(() => chapterLaunchPage('<head></head>', { chapter: { id: 'x', title: 'x' } })).toThrow(/embed\.js/);
  });

  test('the summary and the manifest state the real rule: no score when nothing is asked', () => {
    const rule = (args) => {
      const o = optionsFromArgs(args);
      return [reportText(o), chapterRule(o)];
    };
    expect(rule(ARGS)).toEqual([
      'chapter dot-product; asks none; completion=used; min-minutes=0; score=none',
      'Completed once the learner has used the widget (changed something in it or answered a prediction). No score is sent.',
    ]);
    expect(rule(['--ch', 'dot-product', '--ask', 'perpendicular-sign'])).toEqual([
      'chapter dot-product; asks perpendicular-sign; completion=asked; min-minutes=0; score=predictions',
      'Completed once the learner has answered the predictions perpendicular-sign. cmi.core.score.raw (0 to 100) is the share of the predictions asked that were right at the first answer.',
    ]);
    expect(rule(['--ch', 'dot-product'])[0]).toBe(
      'chapter dot-product; asks every prediction; completion=asked; min-minutes=0; score=predictions',
    );
  });

  test('two builds give the same bytes', () => {
    const again = buildScorm({ site, ...optionsFromArgs(ARGS), out: join(dir, 'chapter-b.zip') });
    expect(Buffer.compare(readFileSync(built.out), readFileSync(again.out))).toBe(0);
  });
});

describe('what the adapter writes', () => {
  test('session time is a SCORM 1.2 CMITimespan (HHHH:MM:SS.SS)', () => {
    // 1 h 2 min 3.45 s
    expect(formatTimespan(3_723_450)).toBe('01:02:03.45');
    expect(formatTimespan(0)).toBe('00:00:00.00');
    expect(formatTimespan(-5)).toBe('00:00:00.00');
    expect(formatTimespan(59_999)).toBe('00:00:59.99');
    expect(formatTimespan(100 * 3600 * 1000)).toBe('100:00:00.00');
    expect(formatTimespan(1e13)).toBe('9999:59:59.99');
    for (const ms of [0, 999, 61_000, 3_723_450, 1e13])
      expect(formatTimespan(ms)).toMatch(/^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
  });

  test('suspend data: versioned JSON that reads back; within 4096 characters for a full tour', () => {
    const visited = Array.from({ length: 24 }, (_, i) => `a-rather-long-chapter-id-${i}`);
    const predictions = Object.fromEntries(
      visited.map((id, i) => [id, { choice: `choice-${i}`, correct: i % 2 === 0 }]),
    );
    const text = encodeSuspendData({ visited, predictions });
    expect(text.length).toBeLessThanOrEqual(MAX_SUSPEND_DATA);
    expect(JSON.parse(text).v).toBe(1);
    expect(decodeSuspendData(text)).toEqual({ visited, used: [], predictions });
    expect(decodeSuspendData('')).toEqual({ visited: [], used: [], predictions: {} });
    expect(decodeSuspendData('{"v":99}').problem).toMatch(/version/);
    expect(decodeSuspendData('not json').problem).toMatch(/not readable/);
  });
});
