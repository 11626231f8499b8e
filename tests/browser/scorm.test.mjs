// The SCORM 1.2 package in a test LMS: a host page runs scorm-again's SCORM 1.2 runtime (window.API, no commit
// URL, so the data stays in the page where the test reads it) and opens the unzipped package's launch page in an
// iframe, as an LMS does. Checks what the course reports (status, location, suspend data, score, interactions,
// session time, exit; the concept check's answers), that it commits and finishes, that a second launch resumes,
// the review and browse modes, and that the package opened without an LMS says so and still computes. Then
// one-chapter packages made with the studio's options (scripts/scorm.mjs --chapter): the state, the hidden group
// and the unasked prediction, the chapter's completion rule, its score and interaction, and a resume.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { unzipSync } from 'fflate';
import { buildScorm, optionsFromArgs } from '../../scripts/scorm.mjs';
import { CHAPTERS } from '../../web/chapters.js';
import { QUESTIONS } from '../../web/models/concept-check.js';
import { dot } from '../reference/float64.mjs';
import * as h from './helpers.mjs';
import { one, readNumbers } from './shown-numbers.mjs';

const RUNTIME = join(dirname(createRequire(import.meta.url).resolve('scorm-again/scorm12')), 'scorm12.min.js');
const TAGGED = CHAPTERS.filter((c) => c.tag);
// The studio's options of the one-chapter packages: the state a = (3, 4), b = (-4, 3), the preset bar hidden.
const CHAPTER = TAGGED.find((c) => c.id === 'dot-product');
const STUDIO = ['--chapter', CHAPTER.id, '--state', 'v=1&a=3,4&b=-4,3', '--hide', 'presets'];

// The LMS side: every call the course makes is logged in window.calls.
const HOST_JS = `
window.calls = [];
window.launch = (previous, pkg) => {
  const api = new Scorm12API({ autocommit: false, logLevel: 4 });
  if (previous) api.loadFromJSON(previous);
  for (const name of ['LMSInitialize', 'LMSCommit', 'LMSFinish']) api.on(name, () => window.calls.push({ call: name }));
  api.on('LMSSetValue.cmi.*', (element, value) => window.calls.push({ call: 'LMSSetValue', element, value }));
  window.API = api;
  document.getElementById('sco').src = pkg + '/index.html';
};
`;

// The LMS and the unzipped packages are served from lms/ beside the site's copy.
const env = h.useEnv();
beforeAll(async () => {
  const root = join(env.site, 'lms');
  for (const [folder, args] of [
    ['pkg', []], // the course
    ['ch-ask', STUDIO], // one chapter asking its prediction
    ['ch-none', [...STUDIO, '--ask', 'none']], // the same asking none
    ['ch-bad-state', ['--chapter', CHAPTER.id, '--state', 'v=1&a=3,x']], // a start state the chapter cannot read
  ]) {
    const { out } = buildScorm({ site: env.site, ...optionsFromArgs(args), out: join(root, `${folder}.zip`) });
    for (const [name, bytes] of Object.entries(unzipSync(readFileSync(out)))) {
      if (name.endsWith('/')) continue;
      mkdirSync(dirname(join(root, folder, name)), { recursive: true });
      writeFileSync(join(root, folder, name), bytes);
    }
  }
  const head = '<link rel="icon" href="data:,"><script src="scorm12.min.js"></script><script src="host.js"></script>';
  const frame = '<iframe id="sco" title="course" style="width: 1000px; height: 760px; border: 0"></iframe>';
  writeFileSync(join(root, 'index.html'), h.hostPage(frame, head));
  writeFileSync(join(root, 'host.js'), HOST_JS);
  cpSync(RUNTIME, join(root, 'scorm12.min.js'));
});

const LMS = ['lms/index.html', { waitFor: null, width: 1040, height: 800 }];
/** In the test LMS `opened`, launches the package in folder `pkg` (resuming `previous` cmi data); adds its frame as `course`. */
async function start(opened, previous, pkg) {
  await opened.page.evaluate(([p, folder]) => window.launch(p, folder), [previous, pkg]);
  await opened.page.frameLocator('#sco').locator('body[data-state="ready"]').waitFor({ timeout: 20000 });
  const course = opened.page.frames().find((f) => f.url().includes(`/${pkg}/index.html`));
  // The whole course is gone through, and no test here reads the numbers of a chapter's run: short runs.
  if (pkg === 'pkg') await h.shortenRuns(course);
  return { ...opened, course };
}
/** Opens the test LMS, launches the package (start), runs `fn(launched)`; checks it stayed clean, closes it in any case. */
const withLms = (previous, pkg, fn) =>
  h.withPage(env, ...LMS, async (opened) => fn(await start(opened, previous, pkg)));

/** The LMS page closes the course's frame (the learner leaves); waits for LMSFinish. */
async function leave(page) {
  await page.evaluate(() => (document.getElementById('sco').src = 'about:blank'));
  await page.waitForFunction(() => window.calls.some((c) => c.call === 'LMSFinish'), null, { timeout: 5000 });
}

const calls = (page) => page.evaluate(() => window.calls);
const setsOf = async (page, element) =>
  (await calls(page)).filter((c) => c.call === 'LMSSetValue' && c.element === element).map((c) => c.value);
const cmi = (page) =>
  page.evaluate(() => {
    const { core, suspend_data: suspend } = window.API.cmi;
    const { lesson_status: status, lesson_location: location, score } = core;
    return { status, location, suspend, raw: score.raw, min: score.min, max: score.max };
  });
/** Polls the cmi field `name` until it is `expected` (8 s at most), then asserts it. */
async function pollCmi(page, name, expected) {
  await h.until(async () => (await cmi(page))[name] === expected, `cmi ${name}`, 80).catch(() => null);
  expect((await cmi(page))[name]).toBe(expected);
}
/** The text of the launch page's element of data-role `role` (the LMS note, the policy line). */
const textOf = (course, role) => course.locator(`[data-role=${role}]`).textContent();

/** Scrolls a chapter to the top of the frame and waits until the page counts it as gone through. */
async function goThrough(course, id) {
  await course.evaluate((ch) => document.getElementById(`ch-${ch}`).scrollIntoView({ block: 'start' }), id);
  await course.waitForFunction((ch) => window.agProgress.visited().includes(ch), id, { timeout: 20000 });
}

/** Answers a chapter's prediction: its 'first' or 'last' choice, or a number or point (respond); returns if it was right. */
async function predict(course, chapter, which = 'first') {
  await goThrough(course, chapter.id);
  await course.waitForSelector(`${chapter.tag}[data-status="ready"]`, { timeout: 20000 });
  if (which === 'first' || which === 'last') await course.locator(`${chapter.tag} .predict-choice`)[which]().click();
  else await h.respond(course.locator(chapter.tag), which);
  await course.locator(`${chapter.tag} .predict[data-result]`).first().waitFor({ timeout: 10000 });
  const said = await course.locator(`${chapter.tag} .predict-result`).first().textContent();
  const right = (await course.locator(`${chapter.tag} .predict`).first().getAttribute('data-result')) === 'right';
  expect(said.startsWith(right ? 'Right.' : 'Not quite.')).toBe(true);
  return right;
}

/**
 * The interaction a chapter's answer should be, from its predict block: id <chapter>.<prediction>, the
 * letters of the pressed and the revealed choice (a for the first shown), and the result.
 */
const interactionOf = (course, chapter) =>
  course.locator(`${chapter.tag} .predict >> nth=0`).evaluate((block, id) => {
    const choices = [...block.querySelectorAll('.predict-choice')];
    const letter = (sel) => 'abcdefghijklmnopqrstuvwxyz'[choices.findIndex((b) => b.matches(sel))];
    return {
      id: `${id}.${block.dataset.predict}`,
      type: 'choice',
      student_response: letter('[aria-pressed="true"]'),
      'correct_responses.0.pattern': letter('.is-answer'),
      result: block.dataset.result === 'right' ? 'correct' : 'wrong',
    };
  }, chapter.id);

/** The interactions the course set, by index: { n: { field: value } } (time left out, checked for its form). */
async function interactionsSet(page) {
  const out = [];
  for (const { element, value } of await calls(page)) {
    const [, n, field] = /^cmi\.interactions\.(\d+)\.(.+)$/.exec(element ?? '') ?? [];
    if (!field) continue;
    out[n] ??= {};
    if (field === 'time') expect(value).toMatch(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
    else out[n][field] = value;
  }
  return out;
}
/** Waits until the course has set as many interactions as `expected` (8 s at most), expects them; returns them. */
async function expectInteractions(page, expected) {
  const what = `${expected.length} interactions`;
  await h.until(async () => (await interactionsSet(page)).length === expected.length, what, 80).catch(() => null);
  const set = await interactionsSet(page);
  expect(set).toEqual(expected);
  return set;
}

describe('the SCORM 1.2 package in an LMS', () => {
  let first; // the first launch, kept across the tests of one attempt
  let partial; // the cmi data after some chapters, for the resume test
  const answered = []; // { id, right }

  test('launch: LMSInitialize, lesson_status incomplete, no note; location and suspend data follow the chapters; committed', async () => {
    first = await start(await h.openPage(env, ...LMS), null, 'pkg');
    const { page, course } = first;
    const log = await calls(page);
    expect(log[0].call).toBe('LMSInitialize');
    expect(log.filter((c) => c.call === 'LMSInitialize')).toHaveLength(1);
    expect(await setsOf(page, 'cmi.core.lesson_status')).toEqual(['incomplete']);
    expect((await cmi(page)).status).toBe('incomplete');
    await expect(course.locator('[data-role=scorm-status]').isHidden()).resolves.toBe(true);
    for (const c of TAGGED.slice(0, 2)) await goThrough(course, c.id);
    await pollCmi(page, 'location', TAGGED[1].id);
    const saved = JSON.parse((await cmi(page)).suspend);
    expect(saved.v).toBe(1);
    expect(saved.seen).toEqual(expect.arrayContaining([TAGGED[0].id, TAGGED[1].id]));
    // A commit follows the changes (throttled: within a few seconds).
    const committed = () =>
      window.calls.findLastIndex((c) => c.call === 'LMSCommit') >
      window.calls.findLastIndex((c) => c.element === 'cmi.suspend_data');
    await page.waitForFunction(committed, null, { timeout: 6000 });
  });

  test('answering predictions: score.raw is the right first answers over every chapter with a prediction, in 0..100', async () => {
    const { page, course } = first;
    const interactions = [];
    let numeric; // the measured value of the number prediction
    for (const [i, c] of TAGGED.slice(2, 6).entries()) {
      answered.push({ id: c.id, right: await predict(course, c, i % 2 ? 'last' : 'first') });
      interactions.push(await interactionOf(course, c));
    }
    const rights = answered.filter((a) => a.right).length;
    expect(rights).toBeGreaterThan(0); // a score above zero: the right answers count
    const expected = String(Math.round((100 * rights) / TAGGED.length));
    await pollCmi(page, 'raw', expected);
    const now = await cmi(page);
    expect([now.min, now.max]).toEqual(['0', '100']);
    // A second answer does not change the score: the first answer counts.
    await course.locator(`${TAGGED[2].tag} .predict-again`).first().click();
    await course.locator(`${TAGGED[2].tag} .predict-choice`).last().click();
    await course.locator(`${TAGGED[2].tag} .predict[data-result]`).first().waitFor({ state: 'attached' });
    expect((await cmi(page)).raw).toBe(expected);
    // Every answer, the second one too, is an interaction, in order.
    interactions.push(await interactionOf(course, TAGGED[2]));
    // A number and a point, both wrong: numeric (the pattern the measured value) and performance ("x,y").
    for (const [id, response, type] of [
      ['sqrt-d', '4096', 'numeric'],
      ['convex-hull', '1,0.5', 'performance'],
    ]) {
      const c = TAGGED.find((t) => t.id === id);
      answered.push({ id, right: await predict(course, c, response) });
      const block = course.locator(`${c.tag} .predict`).first();
      const [prediction, answer] = [await block.getAttribute('data-predict'), await block.getAttribute('data-answer')];
      const pattern = type === 'numeric' ? expect.stringMatching(/^\d+(\.\d+)?$/) : answer;
      const base = { id: `${id}.${prediction}`, type, student_response: response, result: 'wrong' };
      interactions.push({ ...base, 'correct_responses.0.pattern': pattern });
      if (type === 'numeric') numeric = Number(answer);
    }
    const set = await expectInteractions(page, interactions);
    expect(Math.abs(Number(set[5]['correct_responses.0.pattern']) / numeric - 1)).toBeLessThan(1e-6);
    expect(now.status).toBe('incomplete');
    await page.waitForFunction(() => window.API.cmi.suspend_data.includes('"p"'));
    partial = await cmi(page);
  });

  test('going through every chapter is not enough; once every chapter\u2019s widget was used, lesson_status is completed', async () => {
    const { page, course } = first;
    for (const c of TAGGED) await goThrough(course, c.id);
    // Every chapter gone through is in the suspend data: the report that wrote it left the status as it was.
    await h.until(async () => JSON.parse((await cmi(page)).suspend).seen.length === TAGGED.length, 'seen', 80);
    expect((await cmi(page)).status).toBe('incomplete');
    // The launch page says what completes the course and what the score counts.
    await expect(textOf(course, 'scorm-policy')).resolves.toMatch(
      /complete once you have used every chapter.s widget\. The score is the share of chapters whose prediction you got right/,
    );
    // Using a widget: a change made in it, as its own controls make (setState).
    for (const c of TAGGED) await course.evaluate((tag) => document.querySelector(tag).setState({}), c.tag);
    await pollCmi(page, 'status', 'completed');
    expect(await course.evaluate(() => window.agProgress.used().length)).toBe(TAGGED.length);
    expect(await setsOf(page, 'cmi.core.lesson_status')).toEqual(['incomplete', 'completed']);
    // Every chapter is marked in the table of contents.
    expect(await course.locator('#toc li[data-chapter] [data-role=visited]').count()).toBe(TAGGED.length);
    // Going back up does not undo it.
    await goThrough(course, TAGGED[0].id);
    await pollCmi(page, 'location', TAGGED[0].id);
    expect((await cmi(page)).status).toBe('completed');
  }, 180000); // every chapter, twice

  test('leaving (the frame navigates away): session_time, exit, one commit and one LMSFinish', async () => {
    const { page } = first;
    await leave(page);
    const log = await calls(page);
    expect(log.filter((c) => c.call === 'LMSFinish')).toHaveLength(1);
    const finish = log.findIndex((c) => c.call === 'LMSFinish');
    const times = log.filter((c) => c.element === 'cmi.core.session_time');
    expect(times).toHaveLength(1);
    expect(times[0].value).toMatch(/^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/);
    expect(log.filter((c) => c.element === 'cmi.core.exit').map((c) => c.value)).toEqual(['']); // completed
    expect(log.findIndex((c) => c.element === 'cmi.core.session_time')).toBeLessThan(finish);
    expect(log.slice(0, finish).findLast((c) => c.call !== 'LMSSetValue').call).toBe('LMSCommit');
    // No call after the end, even from a pending commit timer (web/scorm.js commits at most every 2 s).
    await page.waitForTimeout(2200);
    expect((await calls(page)).length).toBe(log.length);
    await h.closeAfter(first, {}, () => null); // clean (expectClean), then closed
  });

  test('a second launch with the saved data resumes: visited and predicted marks, the location, the status kept', async () => {
    const { status, location, suspend, raw } = partial;
    const core = { lesson_status: status, lesson_location: location, entry: 'resume' };
    await withLms({ core, suspend_data: suspend }, 'pkg', async ({ page, course }) => {
      const { seen } = JSON.parse(suspend);
      await course.waitForFunction((n) => window.agProgress.visited().length >= n, seen.length);
      const visited = '#toc li[data-chapter]:has([data-role=visited])';
      const marked = await course.$$eval(visited, (els) => els.map((e) => e.dataset.chapter));
      expect(marked).toEqual(expect.arrayContaining(seen));
      for (const a of answered)
        await expect(
          course.locator(`#toc li[data-chapter="${a.id}"] [data-role=progress]`).textContent(),
        ).resolves.toBe(a.right ? ' \u2713 predicted' : ' \u2022 predicted');
      // Scrolled back to where the learner was.
      await course.waitForFunction((id) => window.agProgress.current() === id, location);
      expect(await setsOf(page, 'cmi.core.lesson_status')).toEqual([]); // already incomplete: not set again
      // The score survives the resume (the first answers came back).
      await pollCmi(page, 'raw', raw);
    });
  });
});

describe('lesson_mode: review and browse', () => {
  test("review: the attempt's progress is shown, nothing is written, and the session still ends with LMSFinish", async () => {
    // Saved data as an earlier attempt leaves it: two chapters gone through, the learner at the second.
    const [one, two] = TAGGED;
    const core = { lesson_mode: 'review', lesson_status: 'incomplete', lesson_location: two.id, entry: 'resume' };
    const suspend = JSON.stringify({ v: 1, seen: [one.id, two.id], p: {} });
    await withLms({ core, suspend_data: suspend }, 'pkg', async ({ page, course }) => {
      await course.waitForFunction((n) => window.agProgress.visited().length >= n, 2);
      await expect(textOf(course, 'scorm-status')).resolves.toMatch(/^Review: .*nothing you do now is recorded/);
      // Going through more chapters and answering a prediction changes nothing in the LMS.
      await goThrough(course, TAGGED[3].id);
      await predict(course, TAGGED[4]);
      await leave(page);
      expect((await calls(page)).map((c) => c.call)).toEqual(['LMSInitialize', 'LMSFinish']);
      const now = await cmi(page);
      expect([now.status, now.location, now.raw]).toEqual(['incomplete', two.id, '']);
    });
  });

  test('browse: a first launch is browsed and only the place is kept; a graded attempt after it starts afresh', async () => {
    const here = await withLms({ core: { lesson_mode: 'browse' } }, 'pkg', async ({ page, course }) => {
      await pollCmi(page, 'status', 'browsed');
      await expect(textOf(course, 'scorm-status')).resolves.toMatch(
        /^Browsing: your place is kept, but no progress, answers, score or completion are recorded/,
      );
      await predict(course, TAGGED[2]);
      for (const c of TAGGED) await goThrough(course, c.id);
      const place = await course.evaluate(() => window.agProgress.current());
      await pollCmi(page, 'location', place);
      const now = await cmi(page);
      expect([now.status, now.raw, now.suspend]).toEqual(['browsed', '', '']);
      expect(await setsOf(page, 'cmi.suspend_data')).toEqual([]);
      expect(await setsOf(page, 'cmi.core.score.raw')).toEqual([]);
      expect(await setsOf(page, 'cmi.core.lesson_status')).toEqual(['browsed']);
      // Leaving the preview: no session time and no exit ('suspend' would make the LMS resume it as an attempt).
      await leave(page);
      const written = new Set((await calls(page)).filter((c) => c.call === 'LMSSetValue').map((c) => c.element));
      expect([...written].sort()).toEqual(['cmi.core.lesson_location', 'cmi.core.lesson_status']);
      return place;
    });

    // The graded attempt after the preview: incomplete, no answer or chapter carried over.
    const core = { lesson_mode: 'normal', lesson_status: 'browsed', lesson_location: here, entry: 'resume' };
    await withLms({ core }, 'pkg', async ({ page, course }) => {
      await pollCmi(page, 'status', 'incomplete');
      expect(await course.evaluate(() => window.agProgress.snapshot().score.answered)).toBe(0);
      expect((await cmi(page)).raw).toBe('');
    });
  }, 180000); // every chapter, and two launches
});

test('the concept check: each answer is an interaction concept-check.<phase>.<question>; the score stays the predictions\u2019', async () => {
  await withLms(null, 'pkg', async ({ page, course }) => {
    // Three questions: the first right, the second wrong (its first wrong choice), the third right.
    await course.locator('#check-pre summary').click();
    const wrong = (q) => q.choices.find((c) => c.value !== q.answer).value;
    const given = QUESTIONS.slice(0, 3).map((q, i) => [q, i === 1 ? wrong(q) : q.answer]);
    for (const [q, choice] of given)
      await course.locator(`#check-pre fieldset[data-question="${q.id}"] input[value="${choice}"]`).check();
    await course.locator('#check-pre .check-submit').click();
    const letter = (q, v) => 'abcd'[q.choices.findIndex((c) => c.value === v)];
    await expectInteractions(
      page,
      given.map(([q, choice]) => ({
        id: `concept-check.pre.${q.id}`,
        type: 'choice',
        student_response: letter(q, choice),
        'correct_responses.0.pattern': letter(q, q.answer),
        result: choice === q.answer ? 'correct' : 'wrong',
      })),
    );
    // The round's "completed" statement is no interaction and no note; no prediction answered, no score.
    await expect(course.locator('[data-role=scorm-status]').isHidden()).resolves.toBe(true);
    expect(await setsOf(page, 'cmi.core.score.raw')).toEqual([]);
  });
});

test('the package without an LMS says that progress is not reported, and the worked example still computes', async () => {
  await h.withPage(env, 'lms/pkg/index.html?agtest=1#ch-worked-example', async ({ page }) => {
    const note = page.locator('[data-role=scorm-status]');
    await expect(note.isVisible()).resolves.toBe(true);
    await expect(note.textContent()).resolves.toBe('Progress is not being reported: no LMS was found');
    await h.waitReady(page, 'ag-worked-example');
    // The articles' worked example: scores 5, -4, 0 and weights 0.99319, 0.00012257, 0.0066920.
    h.expectWorkedExample(await readNumbers(page, 'ag-worked-example'));
  });
});

describe('one chapter as a SCORM package, with the studio\u2019s options', () => {
  const { tag } = CHAPTER;
  /** The chapter opened in the studio's state: a.b is the float64 dot product, 0; the preset bar is not shown. */
  async function expectStudioState(course) {
    await h.waitReady(course, tag);
    expect(one(await readNumbers(course, tag), 'dot').value).toBe(dot([3, 4], [-4, 3]));
    const presets = course.locator(`${tag} [data-control-group="presets"]`);
    const displays = await presets.evaluateAll((els) => els.map((el) => getComputedStyle(el).display));
    expect(displays.length > 0 && displays.every((d) => d === 'none')).toBe(true);
  }

  test('asking none: the state and hidden group apply, no prediction; complete once the widget is used, no score', async () => {
    // The package holds no full page: its launch page names none, even with no script run (the link hidden, the
    // note for an embed.js that did not load without "or open the full page"), and the open page shows no link.
    const launchPage = readFileSync(join(env.site, 'lms/ch-none/index.html'), 'utf8');
    expect(launchPage).toContain('<p class="embed-open" hidden>');
    const missingNote = launchPage.match(/class="embed-note embed-missing">(.*?)<\/p>/)?.[1];
    expect(missingNote).toMatch(
      /^This figure could not be shown: its script, embed\.js, did not load\. Serve the folder/,
    );
    expect(missingNote).not.toMatch(/full page/);
    await withLms(null, 'ch-none', async ({ page, course }) => {
      await expectStudioState(course);
      expect(await course.locator('#embed-open').isVisible()).toBe(false);
      expect(await course.locator(`${tag} [data-predict]`).isVisible()).toBe(false);
      await expect(textOf(course, 'scorm-policy')).resolves.toMatch(
        /^This chapter is complete once you have used its widget .* No score is reported\.$/,
      );
      expect((await cmi(page)).status).toBe('incomplete');
      await course.evaluate((t) => document.querySelector(t).setState({ a: [1, 2] }), tag);
      await pollCmi(page, 'status', 'completed');
      expect(JSON.parse((await cmi(page)).suspend).s).toBe('v=1&a=1,2&b=-4,3');
      await leave(page);
      expect(await setsOf(page, 'cmi.core.score.raw')).toEqual([]);
      expect(await interactionsSet(page)).toEqual([]);
    });
  }, 60000);

  test('a start state the chapter cannot use: the note speaks of the package’s author, not of a link', async () => {
    await withLms(null, 'ch-bad-state', async ({ course }) => {
      await h.waitReady(course, tag);
      const note = course.locator(`${tag} .note`);
      await expect(note.textContent()).resolves.toMatch(
        /^Part of the start state the author of this package set could not be used\..*a=3,x/,
      );
      expect(await note.textContent()).not.toMatch(/link|address/);
    });
  }, 60000);

  test('asking its prediction: the answer sets score.raw, completed and an interaction; a relaunch restores it', async () => {
    const { right, label, state, saved } = await withLms(null, 'ch-ask', async ({ page, course }) => {
      await expectStudioState(course);
      await expect(textOf(course, 'scorm-policy')).resolves.toMatch(
        /^This chapter is complete once you have answered its prediction\. The score is 100 if your first answer/,
      );
      await course.locator(`${tag} .predict-choice`).first().click();
      await course.locator(`${tag} .predict[data-result]`).waitFor({ timeout: 10000 });
      const right = (await course.locator(`${tag} .predict`).getAttribute('data-result')) === 'right';
      const label = await course.locator(`${tag} .predict-choice[aria-pressed="true"]`).textContent();
      await pollCmi(page, 'status', 'completed');
      await pollCmi(page, 'raw', right ? '100' : '0');
      await expectInteractions(page, [await interactionOf(course, CHAPTER)]);
      const state = await course.evaluate((t) => document.querySelector(t).stateText, tag);
      await leave(page);
      return { right, label, state, saved: await cmi(page) };
    });

    const resumed = { core: { lesson_status: saved.status, entry: 'resume' }, suspend_data: saved.suspend };
    await withLms(resumed, 'ch-ask', async ({ page, course }) => {
      await expect(textOf(course, 'restored-answers')).resolves.toContain(
        `\u201c${label}\u201d (${right ? 'right' : 'not right'})`,
      );
      expect(await course.locator(tag).getAttribute('data-answer-shown')).toBe('restored');
      expect(await course.evaluate((t) => document.querySelector(t).stateText, tag)).toBe(state);
      await pollCmi(page, 'raw', right ? '100' : '0');
      expect(await setsOf(page, 'cmi.core.lesson_status')).toEqual([]);
    });
  }, 90000);
});
