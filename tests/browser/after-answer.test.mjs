// Text shown after the answer (web/widget/after-answer.js): a "things to try"
// line that the tour writes answered('...') states what the chapter's
// prediction asks, so it is not shown on screen before the learner has seen
// the answer, and it is shown after:
// - chapter 2 (Part 1): held at first (in the page, not displayed, printed),
//   shown once the prediction is answered, in the full page and in
//   embed.html; the other lines are shown all along;
// - learn-to-attend (Part 4): held until the learner presses Train (the run
//   shows the answer anyway); your-task: held until its prediction is
//   answered, with the misconception of the wrong choice under the answer;
// - an answer restored from an earlier attempt (the page's record, as the
//   SCORM adapter resumes it) shows the held lines at once, in a chapter whose
//   widget has not started too.
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import {
  exportFiles,
  exportText,
  expectClean,
  predictChoice,
  RUNS,
  SHORT_RUNS,
  useEnv,
  usePage,
  waitReady,
  waitRun,
  withChapter,
  withEmbed,
} from './helpers.mjs';

const env = useEnv();
/**
 * One full page for the tests of the block it is made in (usePage): each test answers the prediction of its own
 * chapter, which no other test of the block uses, so none needs a page of its own. Give it to onChapter.
 */
const useFullPage = () => usePage(env, '?agtest=1');
/** Runs `fn(shared)` on the chapter's widget `tag` in the page `shared` (useFullPage), once it is ready; then the page is still clean. */
async function onChapter(shared, tag, fn) {
  await waitReady(shared.page, tag);
  await fn(shared);
  await expectClean(shared);
}
const chapterOf = (id) => CHAPTERS.find((c) => c.id === id);
/** The tour's lines of a chapter: [text, held] in order. */
const linesOf = (id) =>
  chapterOf(id).after.map((line) => (typeof line === 'string' ? [line, false] : [line.text, line.afterAnswer]));

/** The "things to try" lines inside `root` (a CSS selector): text, data-after-answer and whether displayed. */
const shownLines = (page, root) =>
  page.locator(`${root} .tries li`).evaluateAll((items) =>
    items.map((li) => ({
      text: li.textContent,
      held: li.dataset.afterAnswer ?? null,
      displayed: getComputedStyle(li).display !== 'none',
    })),
  );

/** What the lines of chapter `id` look like when `shown` (false: the held ones are held). */
const expected = (id, shown) =>
  linesOf(id).map(([text, held]) => ({
    text,
    held: held ? (shown ? 'shown' : 'held') : null,
    displayed: !held || shown,
  }));

describe('held before the answer, shown after', () => {
  const full = useFullPage();
  // [what, chapter, widget, choice, its result, in embed.html]: the held line is the premise, one per chapter.
  test.each([
    ['chapter 2 (Part 1)', 'dot-product', 'ag-two-definitions', 'positive', 'wrong', false],
    [
      'convex-hull: a point answer (the ring committed where it waits)',
      'convex-hull',
      'ag-convex-hull',
      '0,0',
      'wrong',
      false,
    ],
    ['chapter 2 in embed.html, around the one widget', 'dot-product', 'ag-two-definitions', 'zero', 'right', true],
  ])(
    '%s: the line that names the answer is held (printed, not displayed), then shown once answered',
    async (_what, id, tag, choice, result, embed) => {
      expect(linesOf(id).filter(([, held]) => held)).toHaveLength(1);
      const open = (fn) => (embed ? withEmbed(env, `ch=${id}`, tag, fn) : onChapter(full, tag, fn));
      await open(async ({ page }) => {
        const root = embed ? 'article' : `#ch-${id}`;
        expect(await shownLines(page, root)).toEqual(expected(id, false));
        // A printout is the whole chapter: the held line is printed.
        await page.emulateMedia({ media: 'print' });
        expect((await shownLines(page, root)).every((l) => l.displayed)).toBe(true);
        await page.emulateMedia({ media: 'screen' });
        await predictChoice(page, tag, choice, result);
        expect(await shownLines(page, root)).toEqual(expected(id, true));
        expect(await page.locator(tag).getAttribute('data-answer-shown')).toBe('answer');
      });
    },
  );

  test('learn-to-attend (Part 4): held while the model waits at step 0, shown once Train has trained it', async () => {
    const tag = 'ag-learn-to-attend';
    expect(linesOf('learn-to-attend').filter(([, held]) => held).length).toBeGreaterThan(0); // the premise
    await onChapter(full, tag, async ({ page }) => {
      const root = '#ch-learn-to-attend';
      await waitRun(page, tag); // the model made and shown at step 0
      expect(await shownLines(page, root)).toEqual(expected('learn-to-attend', false));
      expect(await page.locator(tag).getAttribute('data-answer-shown')).toBe(null);
      await page.locator(`${tag} [data-action="train"]`).click();
      await page.waitForFunction((t) => document.querySelector(t).dataset.answerShown === 'run', tag, {
        timeout: 120000,
      });
      expect(await shownLines(page, root)).toEqual(expected('learn-to-attend', true));
    });
  }, 180000);

  test('your-task (Part 4): held until the prediction is answered; a wrong choice shows its misconception', async () => {
    const tag = 'ag-your-task';
    await onChapter(full, tag, async ({ page }) => {
      const root = '#ch-your-task';
      expect(await shownLines(page, root)).toEqual(expected('your-task', false));
      await predictChoice(page, tag, 'reverse', 'wrong');
      expect(await shownLines(page, root)).toEqual(expected('your-task', true));
      const misconception = page.locator(`${tag} .predict-misconception`);
      expect(await misconception.isVisible()).toBe(true);
      expect(await misconception.textContent()).toMatch(/^That takes reversing /);
    });
  }, 180000);
});

// The readouts a widget holds because its opening state already shows the answer: for each chapter, its
// right choice, a selector of each held element (inside the widget), and what its CSV must not hold before the
// answer (a chapter's own CSV columns of held numbers), or null. A chapter of RUNS waits for its run first.
const HELD_READOUTS = [
  ['cosine', 'ag-cosine-vs-dot', 'tie', ['.verdict[data-measure="cosine"]', 'th.c-cos', 'td.c-cos'], null],
  ['orthogonality', 'ag-orthogonality', 'middle', ['th.c-weight', 'td.c-weight'], null],
  [
    'competition',
    'ag-competition',
    'down',
    ['td.c-after', 'th.c-change', 'td.c-change', 'th.c-linear', 'td.c-linear', '.grid-box', '.cell-read'],
    /^(alpha-after|change|linear|jacobian)\./m,
  ],
  [
    'sqrt-d',
    'ag-sqrt-d',
    '64',
    [
      '.stats p:has([data-role="std"])',
      '.stats p:has([data-role="rms"])',
      '.formulas > :nth-child(2)',
      '.col:has(figure.sweep)',
    ],
    /^(std|rms|sqrt-d|sweep-std)/m,
  ],
  [
    'near-orthogonal',
    'ag-near-orthogonal',
    '90',
    [
      'dd:has([data-role="pair-angle"])',
      'dd:has([data-role="rms-angle"])',
      '.dims tr[data-d="1000"]',
      'button[data-dim="1000"] svg.mini',
      'g.detail[data-dim="1000"]',
    ],
    /^(pair-angle|rms-angle|table-[a-z-]+\.1000),/m,
  ],
  [
    'scale-fix',
    'ag-scale-fix',
    'one',
    [
      'path.curve.series-unscaled',
      'th.col-unscaled',
      '.legend > g:first-child',
      '.mean-unscaled',
      '.bar-row[data-series="unscaled"]',
    ],
    /_unscaled/,
  ],
  [
    'cost',
    'ag-attention-cost',
    '4',
    [
      '.formulas > :first-child',
      '.formulas > :nth-child(2)',
      'figure.memory figcaption > span',
      '.formula-note > span',
      'th.c-grid',
      'td.c-grid',
    ],
    /grid_bytes/,
  ],
];

/**
 * The exports of the widget made before the answer hold nothing held on screen: no held number in the JSON or
 * the CSV (nor what `csvNot` matches), no held element in the SVG; a figure held whole is not exported.
 */
async function expectExportsHoldNothingHeld(page, tag, csvNot) {
  const { held, figure } = await page.locator(tag).evaluate((el) => {
    const name = (n) => [n.dataset.role, n.dataset.key].filter(Boolean).join('.');
    const all = [...el.shadowRoot.querySelectorAll('[data-value]')];
    const isHeld = (n) => Boolean(n.closest('[data-after-answer="held"]'));
    const shown = new Set(all.filter((n) => !isHeld(n)).map(name));
    return {
      held: all
        .filter(isHeld)
        .map(name)
        .filter((n) => n && !shown.has(n)),
      figure: Boolean(el.figureToExport()),
    };
  });
  const files = await exportFiles(page, tag, figure ? ['json', 'csv', 'svg'] : ['json', 'csv']);
  const json = JSON.parse(files.json.bytes.toString('utf8'));
  expect(Object.keys(json.numbers).filter((n) => held.includes(n))).toEqual([]);
  const csv = files.csv.bytes.toString('utf8');
  expect(csv.split('\r\n').filter((line) => held.includes(line.split(',')[0]))).toEqual([]);
  if (csvNot) expect(csv).not.toMatch(csvNot);
  if (figure) expect(files.svg.bytes.toString('utf8')).not.toMatch(/data-after-answer="held"/);
  else {
    await page.locator(`${tag} details.export summary`).click();
    await page.locator(`${tag} [data-export="svg"]`).click();
    await expect(page.locator(`${tag} .note`).first().textContent()).resolves.toMatch(/answer it first|no figure/);
    await page.locator(`${tag} details.export summary`).click();
  }
  return json;
}

describe('readouts that would give the answer away on opening', () => {
  const full = useFullPage();
  /** Each held element (the first match of each selector): its data-after-answer and whether it is visible. */
  const heldState = (page, tag, selectors) =>
    Promise.all(
      selectors.map(async (sel) => {
        const el = page.locator(`${tag} ${sel}`).first();
        return { sel, held: await el.getAttribute('data-after-answer'), visible: await el.isVisible() };
      }),
    );
  const expectState = (selectors, held, visible) => selectors.map((sel) => ({ sel, held, visible }));

  test.each(HELD_READOUTS)(
    '%s: present but not displayed before the answer, left out of the exports, displayed after it',
    async (id, tag, right, selectors, csvNot) => {
      // A short run (SHORT_RUNS, a link of the chapter's own page): the held readouts are the same at any size.
      const open = (fn) =>
        SHORT_RUNS[id] ? withChapter(env, id, tag, { search: SHORT_RUNS[id] }, fn) : onChapter(full, tag, fn);
      await open(async ({ page }) => {
        if (RUNS.has(id)) await waitRun(page, tag); // the readouts of a run exist once it is done
        expect(await heldState(page, tag, selectors)).toEqual(expectState(selectors, 'held', false));
        await expectExportsHoldNothingHeld(page, tag, csvNot);
        await predictChoice(page, tag, right, 'right');
        expect(await heldState(page, tag, selectors)).toEqual(expectState(selectors, 'shown', true));
        if (csvNot) expect(await exportText(page, tag, 'csv')).toMatch(csvNot); // the premise: held, not missing
      });
    },
    180000,
  );
});

describe('a restored answer', () => {
  test('an answer restored from an earlier attempt (as SCORM resumes) shows the held lines at once, started widget or not', async () => {
    await withChapter(env, 'dot-product', 'ag-two-definitions', async ({ page }) => {
      // The premise: chapter 6 ("length") is far below, its widget not started.
      expect(await page.locator('ag-length-lever').getAttribute('data-status')).toBe(null);
      expect(await shownLines(page, '#ch-length')).toEqual(expected('length', false));
      const taken = await page.evaluate(() =>
        window.agProgress.restore({
          predictions: { 'dot-product': { choice: 'zero', correct: true }, length: { choice: 'nine', correct: false } },
        }),
      );
      expect(taken.predictions).toBe(2);
      expect(await shownLines(page, '#ch-dot-product')).toEqual(expected('dot-product', true));
      expect(await shownLines(page, '#ch-length')).toEqual(expected('length', true));
      expect(await page.locator('ag-two-definitions').getAttribute('data-answer-shown')).toBe('restored');
      // Started later, the widget of chapter 6 knows the answer is on show.
      await waitReady(page, 'ag-length-lever');
      expect(await page.locator('ag-length-lever').getAttribute('data-answer-shown')).toBe('restored');
    });
  });
});

// A widget's own readout that answers the prediction on opening (the chapter's default state) is held the same
// way: present in the widget, not displayed until the prediction is answered, displayed after.
describe('a widget readout that answers the prediction waits for the answer', () => {
  const full = useFullPage();
  // [chapter, widget, held elements (one match each), the right choice, what its CSV must not hold before the
  // answer (columns of held numbers in a chapter's own CSV) or null]
  test.each([
    ['kv-cache', 'ag-kv-cache', ['.recomputed'], 'bits', null],
    ['multi-head', 'ag-multi-head', ['.head-map[data-head="2"]'], 'both', /^2,/m],
    [
      'content-to-weights',
      'ag-content-to-weights',
      [
        '.panel[data-step="4"] .hm-box',
        '.panel[data-step="3"] .hm-box',
        '.mat-wrap:has([data-role="q-table"])',
        '.readout > span:has([data-role="readout-weight"])',
      ],
      'identical',
      /weight/,
    ],
    [
      'atom',
      'ag-attention-atom',
      [
        '.hm-value[data-key="2-3"]',
        '.hm-value[data-key="3-2"]',
        '[data-cell="2-3"] .hm-rect',
        '[data-cell="3-2"] .hm-rect',
        '.pair .result',
      ],
      'different',
      null,
    ],
    ['explain', 'ag-weights-explain', ['.weight-and-change'], 'no', /change/],
    ['softmax', 'ag-softmax', ['p.limit'], 'nan', null],
    ['length', 'ag-length-lever', ['[data-role="ratio-text"]'], 'triple', null],
  ])(
    '%s (%s): the readout that answers is held and left out of the exports, then displayed once answered, and stays after "Ask me again"',
    async (id, tag, held, right, csvNot) => {
      await onChapter(full, tag, async ({ page }) => {
        const seen = () =>
          Promise.all(
            held.map(async (selector) => {
              const el = page.locator(`${tag} ${selector}`);
              return [selector, await el.count(), await el.getAttribute('data-after-answer'), await el.isVisible()];
            }),
          );
        expect(await seen()).toEqual(held.map((s) => [s, 1, 'held', false]));
        await expectExportsHoldNothingHeld(page, tag, csvNot);
        await predictChoice(page, tag, right, 'right');
        expect(await seen()).toEqual(held.map((s) => [s, 1, 'shown', true]));
        if (csvNot) expect(await exportText(page, tag, 'csv')).toMatch(csvNot); // the premise: held, not missing
        // The answer has been seen: asking again reopens the question, not what it showed (WIDGETS.md).
        await page.locator(`${tag} .predict-again`).click();
        expect(await seen()).toEqual(held.map((s) => [s, 1, 'shown', true]));
      });
    },
    180000,
  );
});

describe('what is said aloud', () => {
  const full = useFullPage();
  test('atom: the aria-labels of S₂₃ and S₃₂ name their numbers only once the answer is on show', async () => {
    const tag = 'ag-attention-atom';
    await onChapter(full, tag, async ({ page }) => {
      const labels = () =>
        Promise.all(
          ['2-3', '3-2', '2-2'].map((c) => page.locator(`${tag} [data-cell="${c}"]`).getAttribute('aria-label')),
        );
      // S₂₃ = q₂·k₃ = (1, 2)·(−1, 1) = 1, S₃₂ = (2, 0.5)·(2, 1.5) = 4.75, S₂₂ = (1, 2)·(2, 1.5) = 5.
      const [s23, s32, s22] = await labels();
      expect([s23, s32]).toEqual([expect.not.stringMatching(/\d =|= /), expect.not.stringMatching(/\d =|= /)]);
      expect(s22).toMatch(/ = 5$/);
      await predictChoice(page, tag, 'different', 'right');
      const after = await labels();
      expect(after.map((l) => l.split(' = ')[1])).toEqual(['1', '4.75', '5']);
    });
  });

  test('orthogonality: the announcement leaves out the held weights until the answer, then says them', async () => {
    const tag = 'ag-orthogonality';
    await onChapter(full, tag, async ({ page }) => {
      const live = page.locator(`${tag} [aria-live]`);
      const snap = page.locator(`${tag} [data-action="snap"]`);
      await snap.click();
      await expect(live.textContent()).resolves.toMatch(/k1: score [^;]+; k2: score/);
      expect(await live.textContent()).not.toMatch(/weight/);
      await predictChoice(page, tag, 'middle', 'right');
      await snap.click();
      await expect(live.textContent()).resolves.toMatch(/k1: score \S+, weight \S+; k2: score \S+, weight /);
    });
  });
});
