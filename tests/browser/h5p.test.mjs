// The H5P package (scripts/h5p.mjs) of the chapter "Two definitions agree": every file type in H5P's default
// whitelist, then the package unzipped and played by h5p-standalone (npm) in Chromium, as a platform plays it: the
// widget computes its numbers with the wasm inside the library's script (every number shown is a result in the
// kernel-call log), and the content type's score (getScore, getMaxScore, getAnswerGiven), its solutions, its reset
// and its xAPI "answered" statements follow the answers given, wrong and right; the state a platform saves brings
// the score back on a later visit.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { unzipSync } from 'fflate';
import { buildH5p, embedOptions, LIBRARY_VERSION, libraryFolder, MACHINE_NAME } from '../../scripts/h5p.mjs';
import { dot } from '../reference/float64.mjs';
import { failInlinedSheet, hostPage, predictChoice, useEnv, withPage } from './helpers.mjs';
import { expectAllLogged, expectNumbers, readNumbers, U } from './shown-numbers.mjs';

const PLAYER = dirname(createRequire(import.meta.url).resolve('h5p-standalone/dist/main.bundle.js'));
const TAG = 'ag-two-definitions';

// H5P core's default file whitelist, from h5p-php-library's h5p.classes.php (H5PCore::$defaultContentWhitelist
// and H5PCore::$defaultLibraryWhitelistExtras, https://github.com/h5p/h5p-php-library): content files may have
// the first list's extensions, library files the first's and the second's. Platforms may shorten the list.
const CONTENT_WHITELIST = `json png jpg jpeg gif bmp tif tiff svg eot ttf woff woff2 otf webm mp4 ogg mp3 m4a wav txt
  pdf rtf doc docx xls xlsx ppt pptx odt ods odp xml csv diff patch swf md textile vtt webvtt`.split(/\s+/);
const LIBRARY_WHITELIST_EXTRAS = ['js', 'css'];

// The prediction of the chapter: a = (3, 4) against b turned a quarter turn to (-4, 3) (the article's pair).
// Its right choice is the sign of the float64 dot product: 3*(-4) + 4*3 = 0.
const REVEALED = dot([3, 4], [-4, 3]);
const RIGHT = REVEALED > 0 ? 'positive' : REVEALED < 0 ? 'negative' : 'zero';
const WRONG = 'positive';
/** The start state of the studio's package: the prediction's own pair. */
const STUDIO_STATE = 'v=1&a=3,4&b=-4,3';

// The platform's page: h5p-standalone's player on the unzipped package; every xAPI statement the content
// triggers reaches H5P.externalDispatcher of this page and is kept in window.statements.
const HOST_JS = `
window.statements = [];
document.addEventListener('DOMContentLoaded', () => {
  const pkg = new URLSearchParams(location.search).get('pkg') ?? 'pkg';
  const options = { h5pJsonPath: pkg, frameJs: 'player/frame.bundle.js', frameCss: 'player/styles/h5p.css' };
  new H5PStandalone.H5P(document.getElementById('h5p'), options).then(() => {
    H5P.externalDispatcher.on('xAPI', (event) => window.statements.push(event.data.statement));
    document.body.dataset.state = 'ready';
  });
});
`;

const env = useEnv();
let pkg; // { out, files, entries }
beforeAll(async () => {
  const root = join(env.site, 'h5p');
  const built = await buildH5p({ chapter: 'dot-product', site: env.site, out: join(root, 'package.h5p') });
  const entries = unzipSync(readFileSync(built.out));
  for (const [name, bytes] of Object.entries(entries)) {
    if (name.endsWith('/')) continue;
    mkdirSync(dirname(join(root, 'pkg', name)), { recursive: true });
    writeFileSync(join(root, 'pkg', name), bytes);
  }
  const content = JSON.parse(readFileSync(join(root, 'pkg/content/content.json'), 'utf8'));
  for (const [folder, changed] of [
    ['pkg-unknown', { chapter: 'no-such' }], // a chapter this library does not have (an older or edited content.json)
    // As the studio's command makes it: a start state, the preset bar hidden, no prediction asked.
    ['pkg-studio', { state: STUDIO_STATE, ...embedOptions({ hide: 'presets', ask: 'none' }) }],
  ]) {
    cpSync(join(root, 'pkg'), join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, 'content/content.json'), JSON.stringify({ ...content, ...changed }));
  }
  cpSync(PLAYER, join(root, 'player'), { recursive: true });
  const head =
    '<link rel="icon" href="data:,"><script src="player/main.bundle.js"></script><script src="host.js"></script>';
  writeFileSync(join(root, 'index.html'), hostPage('<div id="h5p"></div>', head));
  writeFileSync(join(root, 'host.js'), HOST_JS);
  pkg = { ...built, entries };
}, 120000);

const json = (name) => JSON.parse(new TextDecoder().decode(pkg.entries[name]));
const extension = (name) => name.slice(name.lastIndexOf('.') + 1).toLowerCase();

describe('the .h5p package', () => {
  test('every file has a type of H5P\u2019s default whitelist: content and h5p.json the content list, the library also js and css', () => {
    const lib = `${libraryFolder(LIBRARY_VERSION)}/`;
    const names = Object.keys(pkg.entries).filter((n) => !n.endsWith('/'));
    expect(names).toEqual(pkg.files);
    for (const name of names) {
      const allowed = name.startsWith(lib) ? [...CONTENT_WHITELIST, ...LIBRARY_WHITELIST_EXTRAS] : CONTENT_WHITELIST;
      expect([name, allowed.includes(extension(name))]).toEqual([name, true]);
    }
    // Every file is at the root, in content/ or in the library's folder.
    expect(names.filter((n) => n.includes('/') && !n.startsWith('content/') && !n.startsWith(lib))).toEqual([]);
    for (const kind of ['wasm', 'mjs', 'map']) expect(names.map(extension)).not.toContain(kind);
  });

  test('h5p.json names the library; library.json preloads its script and stylesheet; semantics select the chapter', () => {
    const lib = libraryFolder(LIBRARY_VERSION);
    const main = json('h5p.json');
    expect(main.mainLibrary).toBe(MACHINE_NAME);
    expect(main.preloadedDependencies).toEqual([{ machineName: MACHINE_NAME, majorVersion: 1, minorVersion: 0 }]);
    const library = json(`${lib}/library.json`);
    expect(library).toMatchObject({ machineName: MACHINE_NAME, majorVersion: 1, minorVersion: 0, runnable: 1 });
    for (const { path } of [...library.preloadedJs, ...library.preloadedCss])
      expect(pkg.entries[`${lib}/${path}`]).toBeDefined();
    const chapter = json(`${lib}/semantics.json`).find((f) => f.name === 'chapter');
    expect(chapter.type).toBe('select');
    expect(chapter.options.map((o) => o.value)).toContain('dot-product');
    expect(json('content/content.json').chapter).toBe('dot-product');
    // The wasm travels inside the script, as base64 data: URLs.
    const script = new TextDecoder().decode(pkg.entries[`${lib}/${library.preloadedJs[0].path}`]);
    expect(script).toContain('data:application/wasm;base64,AGFzbQ'); // "\0asm", the wasm magic number
    expect(new TextDecoder().decode(pkg.entries[`${lib}/THIRD_PARTY_NOTICES.txt`])).toMatch(/^katex /m);
  });
});

/** withPage on the player of the package `pkg`: `fn({ page, frame })` with the content's frame, its widget ready unless `ready: false`. */
const withPlayer = (pkg, { ready = true, ...options }, fn) =>
  withPage(env, `h5p/index.html${pkg ? `?pkg=${pkg}` : ''}`, options, async ({ page }) => {
    const frame = page.frames().find((f) => f !== page.mainFrame());
    if (ready) await frame.locator(`${TAG}[data-status="ready"]`).waitFor({ timeout: 30000 });
    return fn({ page, frame });
  });
/** The content's instance in the player's frame (or `at`, an expression of the frame's window): what `fn(instance)` returns. */
const instance = (frame, fn, at = 'H5P.instances[0]') => frame.evaluate(`(${fn})(${at})`);
const scoreOf = (frame) =>
  instance(frame, (i) => ({ score: i.getScore(), max: i.getMaxScore(), given: i.getAnswerGiven() }));
const statements = (page) => page.evaluate(() => window.statements);
const SCORE_LINE = 'Score: 1 of 1 (the first answer to each prediction counts).';

/** The "answered" statement of the prediction with the learner's `response` and the content's `raw` score of 1. */
function expectAnswered(statement, { response, raw }) {
  expect(statement.verb.id).toBe('http://adlnet.gov/expapi/verbs/answered');
  expect(statement.object.definition).toMatchObject({
    interactionType: 'choice',
    correctResponsesPattern: [RIGHT],
    choices: [{ id: 'positive' }, { id: 'zero' }, { id: 'negative' }],
  });
  expect(statement.object.definition.description['en-US']).toMatch(/a = \(3, 4\).*\(\u22124, 3\)/);
  expect(statement.result).toMatchObject({ response, completion: true, success: raw === 1 });
  expect(statement.result.score).toEqual({ min: 0, max: 1, raw, scaled: raw });
}

describe('the .h5p played by h5p-standalone in Chromium', () => {
  test('the widget shows the wasm\u2019s numbers; score, solutions, reset and xAPI follow the answers, wrong and right', async () => {
    const setup = (page) => page.addInitScript(() => (window.AG_TEST_MODE = true)); // every frame logs its calls
    await withPlayer(null, { setup }, async ({ page, frame }) => {
      // Rendered from the wasm: the article's pair gives a.b = 24 both ways, each number a logged result.
      const d = dot([3, 4], [4, 3]);
      expectNumbers(await readNumbers(frame, TAG), [
        ['dot', null, d, 3 * U * 24, 0],
        ['geometric', null, d, 20 * U * 25],
      ]);
      await expectAllLogged(frame, TAG);
      // No embed snippets: inside the platform's frame the widget has no address of its own.
      await expect(frame.locator(`${TAG} [data-role=embed-unavailable]`).textContent()).resolves.toMatch(
        /^Embed snippets are turned off on this page/,
      );
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: false });
      expect(await statements(page)).toEqual([]);

      // A wrong first answer: score 0 of 1, one "answered" statement; a later right answer does not count.
      await predictChoice(frame, TAG, WRONG, 'wrong');
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: true });
      let sent = await statements(page);
      expect(sent).toHaveLength(1);
      expectAnswered(sent[0], { response: WRONG, raw: 0 });
      expectAnswered((await instance(frame, (i) => i.getXAPIData())).statement, { response: WRONG, raw: 0 });
      await predictChoice(frame, TAG, RIGHT, 'right');
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: true });
      expect(await statements(page)).toHaveLength(1);

      // resetTask: no answer, the start state back (the reveal had moved b), the question open again.
      await instance(frame, (i) => i.resetTask());
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: false });
      expect(await frame.locator(TAG).evaluate((el) => el.state)).toMatchObject({ a: [3, 4], b: [4, 3] });
      expect(await frame.locator(`${TAG} .predict[data-result]`).count()).toBe(0);

      // showSolutions: the right choice marked, with the wasm's number, and nothing scored.
      await instance(frame, (i) => i.showSolutions());
      await frame.locator(`${TAG} .predict[data-shown="answer"]`).waitFor({ timeout: 10000 });
      await expect(frame.locator(`${TAG} .predict-choice.is-answer`).getAttribute('data-choice')).resolves.toBe(RIGHT);
      await expect(frame.locator(`${TAG} .predict-result`).textContent()).resolves.toContain('a\u00b7b = 0');
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: false });

      // After a reset, a right first answer: score 1 of 1, and its statement.
      await instance(frame, (i) => i.resetTask());
      await predictChoice(frame, TAG, RIGHT, 'right');
      expect(await scoreOf(frame)).toEqual({ score: 1, max: 1, given: true });
      sent = await statements(page);
      expect(sent).toHaveLength(2);
      expectAnswered(sent[1], { response: RIGHT, raw: 1 });
      await expect(frame.locator('.h5p-ag-status').textContent()).resolves.toBe(SCORE_LINE);
      await expectAllLogged(frame, TAG);

      // The state a platform saves, and a later visit that starts from it; an unreadable one starts afresh.
      const saved = await instance(frame, (i) => i.getCurrentState());
      expect(saved.answers).toEqual({ 'perpendicular-sign': { choice: RIGHT, answer: RIGHT, correct: true } });
      const resumed = await frame.evaluate(
        ([previous, tag]) =>
          [previous, { answers: { x: { choice: 1 } }, state: 5 }].map((previousState) => {
            const div = document.body.appendChild(document.createElement('div'));
            const i = new window.H5P.AttentionGeometry({ chapter: 'dot-product' }, 'resumed', { previousState });
            i.attach(window.H5P.jQuery(div));
            const [s, { state }] = [div.querySelector('.h5p-ag-status'), div.querySelector(tag)];
            return { score: i.getScore(), given: i.getAnswerGiven(), state, status: s.hidden ? null : s.textContent };
          }),
        [saved, TAG],
      );
      // The first where the reveal left the widget.
      expect(resumed[0]).toEqual({ score: 1, given: true, state: { a: [3, 4], b: [-4, 3] }, status: SCORE_LINE });
      expect(resumed[1]).toEqual({ score: 0, given: false, state: { a: [3, 4], b: [4, 3] }, status: null });
    });
  }, 120000);

  test('a number and a point prediction (sqrt-d, convex-hull): getScore counts the first; numeric and other statements', async () => {
    await withPlayer(null, {}, async ({ frame }) => {
      // [chapter, widget, a wrong first answer, interactionType]; the right answer is the one revealed.
      for (const [chapter, tag, wrong, type] of [
        ['sqrt-d', 'ag-sqrt-d', '4096', 'numeric'],
        ['convex-hull', 'ag-convex-hull', '1,0.5', 'other'],
      ]) {
        const at = `#h5p-${chapter} ${tag}`;
        const of = (fn) => instance(frame, fn, 'window.agH5p');
        await frame.evaluate((ch) => {
          const div = document.body.appendChild(Object.assign(document.createElement('div'), { id: `h5p-${ch}` }));
          window.agH5p = new window.H5P.AttentionGeometry({ chapter: ch }, ch, {});
          window.agH5p.attach(window.H5P.jQuery(div));
        }, chapter);
        await frame.locator(`${at}[data-status]`).waitFor({ timeout: 30000 });
        await predictChoice(frame, at, wrong, 'wrong');
        const right = await frame.locator(`${at} .predict`).getAttribute('data-answer');
        const { statement } = await of((i) => i.getXAPIData());
        expect([statement.object.definition.interactionType, statement.result.response]).toEqual([type, wrong]);
        await predictChoice(frame, at, right, 'right');
        expect(await of((i) => [i.getScore(), i.getMaxScore()])).toEqual([0, 1]);
        await of((i) => i.resetTask());
        await predictChoice(frame, at, right, 'right');
        expect(await of((i) => [i.getScore(), i.getMaxScore(), i.getAnswerGiven()])).toEqual([1, 1, true]);
        // showSolutions after a reset: the answer, the number or the point, and nothing scored.
        await of((i) => (i.resetTask(), i.showSolutions()));
        await frame.locator(`${at} .predict[data-shown="answer"]`).waitFor({ timeout: 10000 });
        expect(await frame.locator(`${at} .predict-result`).textContent()).toMatch(/^The answer: (y = \(|\d)/);
        expect(await of((i) => [i.getScore(), i.getAnswerGiven()])).toEqual([0, false]);
      }
    });
  }, 180000);

  test('a content naming a chapter the library does not have says so, with no error, and scores nothing', async () => {
    await withPlayer('pkg-unknown', { ready: false }, async ({ page, frame }) => {
      await expect(frame.locator('.h5p-ag-error[role=alert]').textContent()).resolves.toBe(
        'This content names a chapter that this version of the library does not have: no-such.',
      );
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 1, given: false });
      await instance(frame, (i) => (i.showSolutions(), i.resetTask()));
      expect(await statements(page)).toEqual([]);
    });
  }, 60000);

  test('a platform whose Content-Security-Policy keeps data: out of connect-src: the widget names the directives the library needs', async () => {
    // The platform's page sends the policy; the player's frame (about:blank) inherits it. The library reads its
    // wasm from a data: URL, which connect-src 'self' refuses.
    const setup = (page) =>
      page.route('**/h5p/index.html', async (route) => {
        const response = await route.fetch();
        await route.fulfill({
          response,
          headers: { ...response.headers(), 'content-security-policy': "connect-src 'self'" },
        });
      });
    await withPlayer(null, { ready: false, setup, clean: false }, async ({ frame }) => {
      const message = frame.locator(`${TAG} .error[data-failure=module]`);
      await message.waitFor({ timeout: 30000 });
      const text = await message.textContent();
      expect(text).toContain('Everything the figures need is inside this H5P content.');
      expect(text).toContain(
        "a Content-Security-Policy of the platform that does not allow 'wasm-unsafe-eval' in script-src (to compile the module) and data: in connect-src",
      );
      expect(text).not.toMatch(/web server|from disk|npm start|init\(|locateFile|wasmUrl/);
      // What the browser reported, short: never the base64 of the wasm's data: URL.
      const detail = await message.locator('[data-role=error-detail]').textContent();
      expect(detail).not.toBe('');
      expect(detail.length).toBeLessThan(300);
      expect(detail).not.toContain('base64,');
    });
  }, 60000);

  test('a content with the studio\u2019s options starts in its state, without the hidden controls, asking nothing: max score 0', async () => {
    await withPlayer('pkg-studio', {}, async ({ page, frame }) => {
      const stateText = () => frame.locator(TAG).evaluate((el) => el.stateText);
      expect(await stateText()).toBe(STUDIO_STATE);
      expectNumbers(await readNumbers(frame, TAG), [['dot', null, dot([3, 4], [-4, 3]), 3 * U * 25, 0]]);
      expect(await frame.locator(`${TAG} [data-control-group="presets"]`).isVisible()).toBe(false);
      expect(await frame.locator(`${TAG} [data-predict]`).isVisible()).toBe(false);
      expect(await scoreOf(frame)).toEqual({ score: 0, max: 0, given: false });
      await instance(frame, (i) => i.resetTask());
      expect(await stateText()).toBe(STUDIO_STATE);
      expect(await statements(page)).toEqual([]);
      // A stylesheet the browser did not load (a platform's policy blocking data: styles): named by its path, and
      // the advice names the library's folder in the content package, not a folder of the page or the npm package's.
      const sheetError = await failInlinedSheet(frame.locator(TAG), 'widget.css');
      expect(sheetError).toContain('For styles/widget.css (inlined) the browser could not load it.');
      expect(sheetError).toContain(
        "from inside the library's script, attention-geometry.js, in the H5P.AttentionGeometry library's folder of the content package",
      );
      expect(sheetError).not.toMatch(/dist\/widgets|the folder this page came from|data:text/);
    });
  }, 60000);
});
