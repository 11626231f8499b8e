// The concept check on the page (web/shell/concept-check.js): the pre-check answered with the keyboard alone is
// kept and shows no marks; a reload restores it; the post-check shows its score, the pre-check's, the gain and
// Hake's normalized gain (post - pre)/(max - pre), and per question the right answer and the feedback; each answer
// is one xAPI "answered" statement and each phase one "completed" statement (counted and checked field by field);
// the marked check, restored from what an earlier visit kept, fits 375 and 320 px in light and dark, and axe finds
// no WCAG 2.1 A or AA violation in it in either scheme; a pre-check not handed in closes once the post-check is.
// The right answers are the question set's own (web/models/concept-check.js, checked as data in
// tests/js/concept-check.test.mjs); the scores and gains expected are counted from the answers the test gives.
import { expect, test } from '@jest/globals';
import { QUESTIONS } from '../../web/models/concept-check.js';
import { overflow, screenshot, useEnv, withPage } from './helpers.mjs';
import { expectNoViolation } from './wcag.mjs';

const env = useEnv();
const KEY = 'attention-geometry:concept-check';
const ANSWERED = 'http://adlnet.gov/expapi/verbs/answered';
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const wrongOf = (q) => q.choices.find((c) => c.value !== q.answer).value;

// The pre-check: questions 1-4 right, 5-8 wrong, 9-10 left unanswered. The post-check: all right but question 3.
const PRE = Object.fromEntries(QUESTIONS.slice(0, 8).map((q, i) => [q.id, i < 4 ? q.answer : wrongOf(q)]));
const POST = Object.fromEntries(QUESTIONS.map((q, i) => [q.id, i === 2 ? wrongOf(q) : q.answer]));
const [PRE_RIGHT, POST_RIGHT, MAX] = [4, 9, 10];

/** Opens the page with `kept` as what an earlier visit kept; `options` as withPage's. */
function withKept(kept, options, fn) {
  const setup = (page) => page.addInitScript(([k, t]) => localStorage.setItem(k, t), [KEY, JSON.stringify(kept)]);
  return withPage(env, '', { ...options, setup }, fn);
}

/** Collects the ag-xapi statements fired in the page (window.__statements), from now on. */
const collect = (page) =>
  page.evaluate(() => {
    window.__statements = [];
    document.addEventListener('ag-xapi', (e) => window.__statements.push(e.detail));
  });

/** What a phase's section shows: status lines, marks, feedback, radios (checked, disabled). */
const shown = (page, phase) =>
  page.locator(`#check-${phase}`).evaluate((section) => {
    const all = (sel) => [...section.querySelectorAll(sel)];
    const question = (el) => el.closest('fieldset').dataset.question;
    return {
      done: section.dataset.done,
      status: all('.check-status p').map((p) => [p.dataset.role ?? null, p.textContent]),
      marks: all('.check-mark').map((m) => m.textContent),
      answers: all('.check-choice.is-answer').map((l) => [question(l), l.dataset.choice]),
      results: all('fieldset').map((f) => f.dataset.result),
      feedback: all('.check-feedback:not([hidden])').map((p) => p.textContent),
      checked: Object.fromEntries(all('input:checked').map((i) => [question(i), i.value])),
      disabled: all('input').every((i) => i.disabled),
      submit: !section.querySelector('.check-submit').hidden,
    };
  });

test('pre-check by keyboard, kept and restored without marks; post-check marked with the gain; reported by xAPI', async () => {
  await withPage(env, '', async ({ page }) => {
    await collect(page);
    // The contents link to both phases.
    const links = await page.locator('#toc .toc-check a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(['#check-pre', '#check-post']);

    // The pre-check with the keyboard alone: open it, each question a Tab stop, a choice by Space or the arrows.
    await page.locator('#check-pre summary').focus();
    await page.keyboard.press('Enter');
    for (const q of QUESTIONS) {
      await page.keyboard.press('Tab');
      const choice = PRE[q.id];
      if (choice === undefined) continue;
      const index = q.choices.findIndex((c) => c.value === choice);
      if (index === 0) await page.keyboard.press('Space');
      for (let i = 0; i < index; i += 1) await page.keyboard.press('ArrowDown');
    }
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement.className)).toBe('check-submit');
    await page.keyboard.press('Enter');
    // The focus stays in the section, on its status.
    expect(await page.evaluate(() => document.activeElement.dataset.role)).toBe('check-status');

    const pre = await shown(page, 'pre');
    const status = [['pre-handed-in', expect.stringMatching(/^Handed in: 8 answers of 10 kept on this browser\./)]];
    const unmarked = { marks: [], answers: [], results: QUESTIONS.map(() => ''), feedback: [] };
    expect(pre).toEqual({ done: 'true', status, ...unmarked, checked: PRE, disabled: true, submit: false });
    const marked = /Right\. |Not quite|right answer|your answer|\d+ of \d+ right/;
    expect(await page.locator('#check-pre').textContent()).not.toMatch(marked);

    // Kept under the page's key convention.
    const kept = JSON.parse(await page.evaluate((key) => localStorage.getItem(key), KEY));
    expect(kept).toEqual({ v: 1, pre: { answers: PRE, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });

    // Statements: one "answered" per answer, then one "completed" with the score.
    const base = `${new URL(env.server.url).origin}/#concept-check`;
    let details = await page.evaluate(() => window.__statements);
    expect(details.map((d) => d.statement.verb.id)).toEqual([...Array(8).fill(ANSWERED), COMPLETED]);
    for (const [i, d] of details.slice(0, 8).entries()) {
      const q = QUESTIONS[i];
      expect(d).toMatchObject({ widget: null, chapter: 'concept-check', prediction: `pre.${q.id}`, phase: 'pre' });
      expect(d.statement.object.id).toBe(`${base}/${q.id}`);
      const { definition } = d.statement.object;
      expect(definition).toMatchObject({ interactionType: 'choice', correctResponsesPattern: [q.answer] });
      expect(d.statement.result).toEqual({ success: i < 4, response: PRE[q.id] });
      expect(d.statement.context.extensions).toEqual({ [`${base}/phase`]: 'pre' });
      expect(d.statement.context.contextActivities.parent[0].id).toBe(`${base}/pre`);
    }
    expect(details[8]).toMatchObject({ chapter: 'concept-check', prediction: null, phase: 'pre' });
    expect(details[8].statement.object.id).toBe(`${base}/pre`);
    const preScore = { raw: PRE_RIGHT, min: 0, max: MAX, scaled: PRE_RIGHT / MAX };
    expect(details[8].statement.result).toEqual({ completion: true, score: preScore });

    // A reload brings the handed-in pre-check back, still without marks; the post-check is open.
    await page.reload();
    await page.waitForSelector('body[data-state="ready"]');
    expect(await shown(page, 'pre')).toEqual(pre);
    expect((await shown(page, 'post')).done).toBe('false');

    // The post-check, with the mouse.
    await collect(page);
    await page.locator('#check-post summary').click();
    for (const [id, choice] of Object.entries(POST))
      await page.locator(`#check-post fieldset[data-question="${id}"] input[value="${choice}"]`).check();
    await page.locator('#check-post .check-submit').click();
    const post = await shown(page, 'post');
    const normalized = (POST_RIGHT - PRE_RIGHT) / (MAX - PRE_RIGHT);
    expect(post.status).toEqual([
      ['post-score', `After the tour: ${POST_RIGHT} of ${MAX} right.`],
      // The two questions left out before the tour count as not right, and the line says so.
      ['pre-score', `Before the tour: ${PRE_RIGHT} of ${MAX} right (2 not answered, counted as not right).`],
      ['gain', expect.stringContaining(`Gain: +${POST_RIGHT - PRE_RIGHT} questions. Normalized gain`)],
    ]);
    expect(post.status[2][1]).toContain(
      `= ${POST_RIGHT - PRE_RIGHT} / ${MAX - PRE_RIGHT} = ${normalized.toFixed(2)}: the share of what was left`,
    );
    // Per question: the right answer marked, the result, and feedback (the misconception of the wrong choice).
    expect(post.answers).toEqual(QUESTIONS.map((q) => [q.id, q.answer]));
    expect(post.results).toEqual(QUESTIONS.map((_, i) => (i === 2 ? 'wrong' : 'right')));
    expect(post.feedback).toHaveLength(MAX);
    const third = QUESTIONS[2];
    expect(post.feedback[2].startsWith(`Not quite. ${third.misconceptions[wrongOf(third)]} ${third.why}`)).toBe(true);
    expect(post.feedback[2]).toMatch(/ Chapter \d+\. \S.*\.$/);
    expect(post.feedback[0]).toMatch(/^Right\. /);
    expect(post.marks.filter((m) => m.includes('your answer'))).toHaveLength(MAX);

    details = await page.evaluate(() => window.__statements);
    expect(details.map((d) => d.statement.verb.id)).toEqual([...Array(MAX).fill(ANSWERED), COMPLETED]);
    const successes = details.map((d) => d.statement.result.success).slice(0, MAX);
    expect(successes).toEqual(post.results.map((r) => r === 'right'));
    expect(details.every((d) => d.phase === 'post')).toBe(true);
    expect(details[MAX].statement.result).toEqual({
      completion: true,
      score: { raw: POST_RIGHT, min: 0, max: MAX, scaled: POST_RIGHT / MAX },
      extensions: { [`${base}/pre-score`]: PRE_RIGHT, [`${base}/normalized-gain`]: normalized },
    });

    // Marked and reloaded: the same marks.
    await page.reload();
    await page.waitForSelector('body[data-state="ready"]');
    expect(await shown(page, 'post')).toEqual(post);

    // Clearing forgets both phases.
    await page.locator('#check-post .check-reset').click();
    expect(await page.evaluate((key) => localStorage.getItem(key), KEY)).toBeNull();
    expect((await shown(page, 'pre')).done).toBe('false');
    expect((await shown(page, 'post')).checked).toEqual({});
  });
}, 120000);

test('the marked check fits 375 and 320 px in light and dark; axe finds no WCAG 2.1 A or AA violation', async () => {
  // Both phases handed in on an earlier visit.
  const kept = { v: 1, pre: { answers: PRE, at: null }, post: { answers: POST, at: null } };
  await withKept(kept, { width: 375, height: 900, bypassCSP: true, clean: false }, async ({ page }) => {
    expect((await shown(page, 'post')).status.map(([role]) => role)).toEqual(['post-score', 'pre-score', 'gain']);
    await page.locator('.concept-check details').evaluateAll((ds) => ds.forEach((d) => (d.open = true)));
    for (const colorScheme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme });
      for (const width of [375, 320]) {
        await page.setViewportSize({ width, height: 900 });
        expect([colorScheme, width, Math.max(0, await overflow(page))]).toEqual([colorScheme, width, 0]);
      }
      await page.setViewportSize({ width: 375, height: 900 });
      await screenshot(page.locator('#check-post'), `concept-check-post-375-${colorScheme}`);
      const checked = await expectNoViolation(page, ['#check-pre', '#check-post', '#toc'], colorScheme);
      expect(checked.some((t) => t.includes('check-feedback') || t.includes('check-mark'))).toBe(true);
    }
  });
}, 120000);

test('a check before the tour not handed in closes once the check after it has shown the answers', async () => {
  // Only the check after the tour was handed in (on an earlier visit): its marks show the right answers.
  await withKept({ v: 1, post: { answers: POST, at: null } }, {}, async ({ page }) => {
    const pre = await shown(page, 'pre');
    expect(pre).toMatchObject({ done: 'closed', disabled: true, submit: false, checked: {} });
    expect(pre.status).toEqual([['pre-closed', expect.stringMatching(/^Closed: the check after the tour has shown/)]]);
    expect((await shown(page, 'post')).status.map(([role]) => role)).toEqual(['post-score', 'pre-score']);
  });
}, 120000);
