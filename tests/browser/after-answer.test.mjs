// Text shown after the answer (web/widget/after-answer.js): a "things to try" line written answered('...') and a
// widget's readout that would give the prediction's answer away on opening are in the page but not displayed
// (printed, left out of the exports) until the prediction is answered, then displayed: chapter 2 in the page and in
// embed.html, a point answer, learn-to-attend (until Train has run), your-task (with the wrong choice's
// misconception), and the readouts of 14 chapters (some stay after "Ask me again"); what is announced or read
// aloud holds them too; an answer restored from an earlier attempt (as SCORM resumes) shows them at once.
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import {
  exportFiles,
  exportText,
  expectClean,
  predictChoice,
  RUNS,
  shortenRuns,
  useEnv,
  usePage,
  waitReady,
  waitRun,
  withEmbed,
} from './helpers.mjs';

const env = useEnv();
/** Runs `fn(shared)` on the chapter's widget `tag` in the page `shared` (usePage), once it is ready; then the page is still clean. */
async function onChapter(shared, tag, fn) {
  await waitReady(shared.page, tag);
  await fn(shared);
  await expectClean(shared);
}
/** The tour's lines of a chapter: [text, held] in order. */
const linesOf = (id) =>
  CHAPTERS.find((c) => c.id === id).after.map((l) => (typeof l === 'string' ? [l, false] : [l.text, l.afterAnswer]));

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

// Each test answers the prediction of its own chapter, which no other test on the same page uses: three pages of
// the tour serve all but one.
describe('on one page: "things to try" lines, and what is said aloud', () => {
  const full = usePage(env, '?agtest=1');
  // [what, chapter, widget, choice, its result ('wrong' if not given), in embed.html]: the held line is the
  // premise, one per chapter.
  test.each([
    ['chapter 2 (Part 1)', 'dot-product', 'ag-two-definitions', 'positive'],
    ['convex-hull: a point answer (the ring committed where it waits)', 'convex-hull', 'ag-convex-hull', '0,0'],
    ['chapter 2 in embed.html, around the one widget', 'dot-product', 'ag-two-definitions', 'zero', 'right', true],
  ])(
    '%s: the line that names the answer is held (printed, not displayed), then shown once answered',
    async (_what, id, tag, choice, result = 'wrong', embed = false) => {
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
      await waitRun(page, tag); // the model made and shown at step 0
      expect(await shownLines(page, '#ch-learn-to-attend')).toEqual(expected('learn-to-attend', false));
      expect(await page.locator(tag).getAttribute('data-answer-shown')).toBe(null);
      await page.locator(`${tag} [data-action="train"]`).click();
      const trained = (t) => document.querySelector(t).dataset.answerShown === 'run';
      await page.waitForFunction(trained, tag, { timeout: 120000 });
      expect(await shownLines(page, '#ch-learn-to-attend')).toEqual(expected('learn-to-attend', true));
    });
  }, 180000);

  test('your-task (Part 4): held until the prediction is answered; a wrong choice shows its misconception', async () => {
    const tag = 'ag-your-task';
    await onChapter(full, tag, async ({ page }) => {
      expect(await shownLines(page, '#ch-your-task')).toEqual(expected('your-task', false));
      await predictChoice(page, tag, 'reverse', 'wrong');
      expect(await shownLines(page, '#ch-your-task')).toEqual(expected('your-task', true));
      const misconception = page.locator(`${tag} .predict-misconception`);
      expect(await misconception.isVisible()).toBe(true);
      expect(await misconception.textContent()).toMatch(/^That takes reversing /);
    });
  }, 180000);

  test('atom: the aria-labels of S₂₃ and S₃₂ name their numbers only once the answer is on show', async () => {
    const tag = 'ag-attention-atom';
    await onChapter(full, tag, async ({ page }) => {
      const label = (cell) => page.locator(`${tag} [data-cell="${cell}"]`).getAttribute('aria-label');
      const labels = () => Promise.all(['2-3', '3-2', '2-2'].map(label));
      // S₂₃ = q₂·k₃ = (1, 2)·(−1, 1) = 1, S₃₂ = (2, 0.5)·(2, 1.5) = 4.75, S₂₂ = (1, 2)·(2, 1.5) = 5.
      const [s23, s32, s22] = await labels();
      expect([s23, s32]).toEqual([expect.not.stringMatching(/\d =|= /), expect.not.stringMatching(/\d =|= /)]);
      expect(s22).toMatch(/ = 5$/);
      await predictChoice(page, tag, 'different', 'right');
      expect((await labels()).map((l) => l.split(' = ')[1])).toEqual(['1', '4.75', '5']);
    });
  });

  test('orthogonality: the announcement leaves out the held weights until the answer, then says them', async () => {
    const tag = 'ag-orthogonality';
    await onChapter(full, tag, async ({ page }) => {
      const [live, snap] = [page.locator(`${tag} [aria-live]`), page.locator(`${tag} [data-action="snap"]`)];
      await snap.click();
      await expect(live.textContent()).resolves.toMatch(/k1: score [^;]+; k2: score/);
      expect(await live.textContent()).not.toMatch(/weight/);
      await predictChoice(page, tag, 'middle', 'right');
      await snap.click();
      await expect(live.textContent()).resolves.toMatch(/k1: score \S+, weight \S+; k2: score \S+, weight /);
    });
  });
});

// The readouts a widget holds because its opening state already shows the answer: [chapter, widget, its right
// choice, what its CSV must not hold before the answer (the chapter's own CSV columns of held numbers) or null,
// whether each held element is one element, which stays displayed after "Ask me again"]. A chapter of RUNS waits
// for its run first.
const HELD_READOUTS = [
  ['cosine', 'ag-cosine-vs-dot', 'tie', null],
  ['orthogonality', 'ag-orthogonality', 'middle', null],
  ['competition', 'ag-competition', 'down', /^(alpha-after|change|linear|jacobian)\./m],
  ['sqrt-d', 'ag-sqrt-d', '64', /^(std|rms|sqrt-d|sweep-std)/m],
  ['near-orthogonal', 'ag-near-orthogonal', '90', /^(pair-angle|rms-angle|table-[a-z-]+\.1000),/m],
  ['scale-fix', 'ag-scale-fix', 'one', /_unscaled/],
  ['cost', 'ag-attention-cost', '4', /grid_bytes/],
  ['kv-cache', 'ag-kv-cache', 'bits', null, true],
  ['multi-head', 'ag-multi-head', 'both', /^2,/m, true],
  ['content-to-weights', 'ag-content-to-weights', 'identical', /weight/, true],
  ['atom', 'ag-attention-atom', 'different', null, true],
  ['explain', 'ag-weights-explain', 'no', /change/, true],
  ['softmax', 'ag-softmax', 'nan', null, true],
  ['length', 'ag-length-lever', 'triple', null, true],
];
/** The held elements of each chapter of HELD_READOUTS: selectors inside its widget, ' | ' between them. */
const HELD = {
  cosine: '.verdict[data-measure="cosine"] | th.c-cos | td.c-cos',
  orthogonality: 'th.c-weight | td.c-weight',
  competition: 'td.c-after | th.c-change | td.c-change | th.c-linear | td.c-linear | .grid-box | .cell-read',
  'sqrt-d':
    '.stats p:has([data-role="std"]) | .stats p:has([data-role="rms"]) | .formulas > :nth-child(2) | ' +
    '.col:has(figure.sweep)',
  'near-orthogonal':
    'dd:has([data-role="pair-angle"]) | dd:has([data-role="rms-angle"]) | .dims tr[data-d="1000"] | ' +
    'button[data-dim="1000"] svg.mini | g.detail[data-dim="1000"]',
  'scale-fix':
    'path.curve.series-unscaled | th.col-unscaled | .legend > g:first-child | .mean-unscaled | ' +
    '.bar-row[data-series="unscaled"]',
  cost:
    '.formulas > :first-child | .formulas > :nth-child(2) | figure.memory figcaption > span | ' +
    '.formula-note > span | th.c-grid | td.c-grid',
  'kv-cache': '.recomputed',
  'multi-head': '.head-map[data-head="2"]',
  'content-to-weights':
    '.panel[data-step="4"] .hm-box | .panel[data-step="3"] .hm-box | .mat-wrap:has([data-role="q-table"]) | ' +
    '.readout > span:has([data-role="readout-weight"])',
  atom:
    '.hm-value[data-key="2-3"] | .hm-value[data-key="3-2"] | [data-cell="2-3"] .hm-rect | ' +
    '[data-cell="3-2"] .hm-rect | .pair .result',
  explain: '.weight-and-change',
  softmax: 'p.limit',
  length: '[data-role="ratio-text"]',
};

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
    const names = all.filter(isHeld).map(name);
    return { held: names.filter((n) => n && !shown.has(n)), figure: Boolean(el.figureToExport()) };
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

/** The tests of the rows of HELD_READOUTS whose readouts stay after "Ask me again" (`once`) or not, in the page `full`. */
function testHeldReadouts(full, once) {
  for (const [id, tag, right, csvNot] of HELD_READOUTS.filter((row) => Boolean(row[4]) === once)) {
    const again = once ? ', and stays after "Ask me again"' : '';
    test(`${id} (${tag}): present but not displayed before the answer, left out of the exports, displayed after it${again}`, async () => {
      const selectors = HELD[id].split(' | ');
      await onChapter(full, tag, async ({ page }) => {
        // Each held element (the first match of each selector; with `once`, how many match): its data-after-answer
        // and whether it is visible.
        const seen = () =>
          Promise.all(
            selectors.map(async (sel) => {
              const [all, el] = [page.locator(`${tag} ${sel}`), page.locator(`${tag} ${sel}`).first()];
              const count = once ? { count: await all.count() } : {};
              return { sel, ...count, held: await el.getAttribute('data-after-answer'), visible: await el.isVisible() };
            }),
          );
        const state = (held, visible) => selectors.map((sel) => ({ sel, ...(once && { count: 1 }), held, visible }));
        if (RUNS.has(id)) await waitRun(page, tag); // the readouts of a run exist once it is done
        expect(await seen()).toEqual(state('held', false));
        await expectExportsHoldNothingHeld(page, tag, csvNot);
        await predictChoice(page, tag, right, 'right');
        expect(await seen()).toEqual(state('shown', true));
        if (csvNot) expect(await exportText(page, tag, 'csv')).toMatch(csvNot); // the premise: held, not missing
        if (!once) return;
        // The answer has been seen: asking again reopens the question, not what it showed (WIDGETS.md).
        await page.locator(`${tag} .predict-again`).click();
        expect(await seen()).toEqual(state('shown', true));
      });
    }, 180000);
  }
}

describe('readouts that would give the answer away on opening; a restored answer', () => {
  // The runs of SHORT_RUNS' chapters short: the held readouts are the same at any size.
  const full = usePage(env, '?agtest=1', { ready: ({ page }) => shortenRuns(page) });
  // First, on the page as it opens: no test below uses chapter 2 or 6.
  test('an answer restored from an earlier attempt (as SCORM resumes) shows the held lines at once, started widget or not', async () => {
    await onChapter(full, 'ag-two-definitions', async ({ page }) => {
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
  testHeldReadouts(full, false);
});

describe('a widget readout that answers the prediction waits for the answer', () => {
  testHeldReadouts(usePage(env, '?agtest=1'), true);
});
