// The H5P package (scripts/h5p.mjs) built from a copy of build/site into a
// temporary folder and unzipped with fflate: its JSON files against H5P's
// definitions (h5p.json, library.json: https://h5p.org/library-definition;
// semantics: https://h5p.org/semantics), content.json against the semantics,
// the licences, the command line's options and errors, and that two builds
// are byte-equal. The file types and the package played in a browser:
// tests/browser/h5p.test.mjs.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { strFromU8, unzipSync } from 'fflate';
import { buildH5p, chapterOf, LIBRARY_VERSION, libraryFolder, optionsFromArgs } from '../../scripts/h5p.mjs';
import { SITE_ROOT } from '../../scripts/serve.mjs';
import { CHAPTERS } from '../../web/chapters.js';
import { DEFAULT_L10N, readParams, semantics } from '../../web/h5p/semantics.js';

let dir;
let site;
let first;
let zip;
const json = (name) => JSON.parse(strFromU8(zip[name]));
const LIB = libraryFolder(LIBRARY_VERSION);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'attention-geometry-h5p-'));
  site = join(dir, 'site');
  cpSync(SITE_ROOT, site, { recursive: true });
  first = await buildH5p({ chapter: 'atom', site, out: join(dir, 'a.h5p') });
  zip = unzipSync(readFileSync(first.out));
}, 120000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the H5P package', () => {
  test('holds h5p.json, content/content.json and the library folder, and nothing else', () => {
    expect(Object.keys(zip).sort()).toEqual(
      [
        'h5p.json',
        'content/content.json',
        `${LIB}/library.json`,
        `${LIB}/semantics.json`,
        `${LIB}/attention-geometry.js`,
        `${LIB}/attention-geometry.css`,
        `${LIB}/THIRD_PARTY_NOTICES.txt`,
      ].sort(),
    );
    expect(first.bytes).toBe(readFileSync(first.out).length);
  });

  test('h5p.json: title, language, the main library among the preloaded dependencies, at the folder\u2019s version', () => {
    const h5p = json('h5p.json');
    expect(h5p.title).toBe('Attention Geometry: The atom of attention');
    expect(h5p.language).toBe('en');
    const dep = h5p.preloadedDependencies.find((d) => d.machineName === h5p.mainLibrary);
    expect(`${dep.machineName}-${dep.majorVersion}.${dep.minorVersion}`).toBe(LIB);
  });

  test('library.json: the required fields as integers, runnable, its preloaded files in the folder', () => {
    const lib = json(`${LIB}/library.json`);
    expect(lib.machineName).toMatch(/^[\w-]{1,255}\.[\w-]{1,255}$/);
    for (const key of ['majorVersion', 'minorVersion', 'patchVersion']) expect(Number.isInteger(lib[key])).toBe(true);
    expect(lib.runnable).toBe(1);
    expect(lib.title.length).toBeGreaterThan(0);
    expect(lib.embedTypes).toEqual(['iframe']);
    for (const { path } of [...lib.preloadedJs, ...lib.preloadedCss]) expect(zip[`${LIB}/${path}`]).toBeDefined();
  });

  test('the script is a classic script with the wasm inside: no import or export left, no import.meta', () => {
    const js = strFromU8(zip[`${LIB}/attention-geometry.js`]);
    expect(js).not.toMatch(/\bimport\.meta\b/);
    expect(js).not.toMatch(/^\s*(import|export)\s/m);
    expect(js.match(/data:application\/wasm;base64,AGFzbQ/g)).toHaveLength(2); // both builds, "\0asm"
  });

  test('semantics.json: a select of every chapter with a widget, in order; content.json fits it', () => {
    const fields = json(`${LIB}/semantics.json`);
    expect(fields).toEqual(semantics());
    const select = fields.find((f) => f.name === 'chapter');
    expect(select.options.map((o) => o.value)).toEqual(CHAPTERS.filter((c) => c.tag).map((c) => c.id));
    expect(select.options.map((o) => o.value)).toContain(select.default);
    const content = json('content/content.json');
    expect(Object.keys(content).sort()).toEqual(fields.map((f) => f.name).sort());
    expect(select.options.map((o) => o.value)).toContain(content.chapter);
    expect(content.chapter).toBe('atom');
    expect(typeof content.state).toBe('string');
    expect(typeof content.showIntro).toBe('boolean');
    const l10n = fields.find((f) => f.name === 'l10n');
    expect(l10n.fields.map((f) => f.name).sort()).toEqual(Object.keys(content.l10n).sort());
  });

  test('the licences: the bundled packages (KaTeX, D3) and Emscripten\u2019s parts of the wasm', () => {
    const text = strFromU8(zip[`${LIB}/THIRD_PARTY_NOTICES.txt`]);
    expect(text).toMatch(/^katex \S+ \(MIT\)/m);
    expect(text).toMatch(/^d3-\w+ \S+ \(ISC\)/m);
    expect(text).toContain('musl libc');
    expect(text).toContain('Emscripten runtime');
  });

  test('two builds of the same tree give the same bytes', async () => {
    const again = await buildH5p({ chapter: 'atom', site, out: join(dir, 'b.h5p') });
    expect(readFileSync(again.out).equals(readFileSync(first.out))).toBe(true);
  }, 120000);
});

describe('the options', () => {
  test('--chapter, --state and --out, as two words or with =', () => {
    expect(optionsFromArgs(['--chapter', 'atom', '--state=v=1&a=1,2', '--out', 'x.h5p'])).toEqual({
      chapter: 'atom',
      state: 'v=1&a=1,2',
      out: 'x.h5p',
    });
  });

  test('an unknown option, a missing value or an unknown chapter is a RangeError that names it', () => {
    expect(() => optionsFromArgs(['--chapters', 'atom'])).toThrow(/unknown option --chapters: use --chapter <id>/);
    expect(() => optionsFromArgs(['--chapter'])).toThrow(/--chapter needs a value/);
    expect(() => optionsFromArgs(['--chapter', '--out', 'x.h5p'])).toThrow(/^--chapter needs a value$/);
    expect(() => optionsFromArgs(['--chapter', 'atom', '--ask', 'nope'])).toThrow(
      /^--ask: no prediction "nope" in chapter atom; its predictions: not-symmetric$/,
    );
    expect(() => chapterOf('atoms')).toThrow(RangeError);
    expect(() => chapterOf('atoms')).toThrow(/no chapter "atoms" with a widget; known: atom, dot-product/);
  });

  test('readParams fills the defaults and keeps what the author gave', () => {
    expect(readParams({})).toEqual({
      chapter: 'dot-product',
      state: '',
      hide: '',
      ask: '',
      showIntro: true,
      l10n: DEFAULT_L10N,
    });
    const given = readParams({ chapter: 'atom', state: ' v=1 ', showIntro: false, l10n: { scoreText: 'x' } });
    expect(given).toEqual({
      chapter: 'atom',
      state: 'v=1',
      hide: '',
      ask: '',
      showIntro: false,
      l10n: { ...DEFAULT_L10N, scoreText: 'x' },
    });
  });
});
