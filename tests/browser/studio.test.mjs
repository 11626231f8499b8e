// The instructor's studio (index.html?ch=<id>&studio=1, web/widget/studio.js), in three chapters of different kinds
// (a preset bar, a slider, a Part 4 chapter with a seed and a training run): the state set with the widget's own
// controls, a control group hidden and the prediction not asked round-trip through the iframe snippet and the
// element snippet pasted into a page on another origin (same state text and numbers, the hidden group neither shown
// nor focusable, the others shown, the prediction not asked). Hide and ask names a widget does not have are noted by
// the embed and warned about by the element, and the page stays usable. Every chapter of the tour offers a control
// group to hide, but the two listed below (with why).
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { dot } from '../reference/float64.mjs';
import { readHide } from '../../web/widget/studio-options.js';
import { CATALOGUE } from '../../scripts/chapter-options.mjs';
import {
  frameOf,
  hostPage,
  pressKeys,
  until,
  urlParams,
  useEnv,
  useHost,
  usePage,
  waitReady,
  widgetsScript,
  withChapter,
  withEmbed,
  withPage,
} from './helpers.mjs';
import { one, readNumbers } from './shown-numbers.mjs';

const env = useEnv();
const host = useHost(env);
const texts = async (where, tag) => (await readNumbers(where, tag)).map((n) => n.text);
/** withChapter on the chapter `id` with the studio open (?ch=<id>&studio=1). */
const withStudio = (id, tag, fn) => withChapter(env, id, tag, { search: `?ch=${id}&studio=1` }, fn);

/**
 * Waits until the numbers `tag` shows in `where` stay the same over two reads 300 ms apart, with the
 * widget ready (and its training run, if any, waiting or done: `status` matches its status line).
 */
async function settled(where, tag, status = null) {
  for (let i = 0, last = null; i < 200; i += 1) {
    const now = await where.locator(tag).evaluate((el, want) => {
      const line = el.shadowRoot.querySelector('.training .status')?.textContent ?? '';
      const ok = el.dataset.status === 'ready' && (want === null || new RegExp(want).test(line));
      return ok ? [...el.shadowRoot.querySelectorAll('[data-value]')].map((n) => n.textContent).join('|') : null;
    }, status);
    if (now !== null && now === last) return;
    last = now;
    await new Promise((done) => setTimeout(done, 300));
  }
  throw new Error(`the numbers of ${tag} did not settle`);
}

/**
 * In the open studio: hides the control groups `hide`, un-asks the predictions `unask`; returns the snippets,
 * the state text and the numbers shown.
 */
async function makeSnippets(page, tag, { hide, unask, status }) {
  const panel = page.locator('[data-role="studio"][data-state="ready"]');
  await panel.waitFor({ timeout: 20000 });
  for (const name of hide) await panel.locator(`[data-role="studio-hide"] input[value="${name}"]`).check();
  for (const id of unask) await panel.locator(`[data-role="studio-ask"] input[value="${id}"]`).uncheck();
  await settled(page, tag, status);
  const made = { stateText: await page.locator(tag).evaluate((el) => el.stateText), numbers: await texts(page, tag) };
  for (const kind of ['iframe', 'element', 'h5p', 'scorm'])
    made[kind] = await panel.locator(`textarea[data-snippet="${kind}"]`).inputValue();
  return made;
}

/**
 * In `where` (a page or a frame): the widget `tag` has the state text and numbers of `made`; each group of
 * `hidden` is there but not displayed (so nothing in it takes the focus), nor is any element of the selectors
 * `gone`, each of `shown` is displayed, and the predictions `unasked` are not shown.
 */
async function expectAsMade(where, tag, made, { hidden, shown, unasked, status, gone = [] }) {
  await waitReady(where, tag);
  await settled(where, tag, status);
  expect(await where.locator(tag).evaluate((el) => el.stateText)).toBe(made.stateText);
  expect(await texts(where, tag)).toEqual(made.numbers);
  for (const name of hidden) {
    const groups = where.locator(`${tag} [data-control-group="${name}"]`);
    const seen = await groups.evaluateAll((els) => els.map((el) => getComputedStyle(el).display));
    expect({ name, any: seen.length > 0 }).toEqual({ name, any: true });
    expect({ name, seen }).toEqual({ name, seen: seen.map(() => 'none') });
  }
  // Every control that changes a hidden part of the state is hidden with it (e.g. "New seed" with the seed).
  for (const selector of gone)
    expect([selector, await where.locator(`${tag} ${selector}`).isVisible()]).toEqual([selector, false]);
  for (const name of shown) {
    const visible = await where.locator(`${tag} [data-control-group="${name}"]`).first().isVisible();
    expect([name, visible]).toEqual([name, true]);
  }
  for (const id of unasked) {
    const prediction = where.locator(`${tag} [data-predict="${id}"]`);
    expect(await prediction.count()).toBe(1);
    expect(await prediction.isVisible()).toBe(false);
  }
  // Nothing left to predict: the lines held for the answer are shown (after-answer.js), in the frame's prose too.
  if (unasked.length) {
    expect(await where.locator(tag).getAttribute('data-answer-shown')).toBe('not-asked');
    expect(await where.locator('[data-after-answer="held"]').count()).toBe(0);
  }
  // Tab through the widget: the focus never lands inside a hidden group or an unasked prediction.
  const closed = [
    ...hidden.map((g) => `[data-control-group="${g}"]`),
    ...unasked.map((id) => `[data-predict="${id}"]`),
  ];
  const landed = await where.locator(tag).evaluate((el, sel) => {
    const inside = [...el.shadowRoot.querySelectorAll('a, button, input, select, textarea, [tabindex]')];
    return inside.filter((n) => n.closest(sel) && (n.focus(), el.shadowRoot.activeElement === n)).length;
  }, closed.join(', '));
  expect(landed).toBe(0);
}

/** Pastes the iframe and the element snippet of `made` into a page on another origin and checks each (expectAsMade). */
async function expectPasted(name, tag, made, expected) {
  const url = host.add(`${name}.html`, hostPage(`<h1>Course</h1>\n${made.iframe}\n${made.element}`));
  await withPage(env, url, async ({ page }) => {
    await expectAsMade(await frameOf(page), tag, made, expected);
    await expectAsMade(page, tag, made, expected);
  });
}

describe('the studio: a state, hidden controls and unasked predictions round-trip through its snippets', () => {
  test('a preset bar (chapter 2): the preset picked, the bar hidden, the prediction not asked', async () => {
    const TAG = 'ag-two-definitions';
    const made = await withStudio('dot-product', TAG, async ({ page }) => {
      await page.locator(`${TAG} button[data-preset="perpendicular"]`).click();
      // a = (3, 4), b = (-4, 3): a.b is the float64 dot product, 0.
      expect(one(await readNumbers(page, TAG), 'dot').value).toBe(dot([3, 4], [-4, 3]));
      // The address follows the state and keeps the studio on.
      const params = await urlParams(page);
      expect([params.get('studio'), params.get('b')]).toEqual(['1', '-4,3']);
      return makeSnippets(page, TAG, { hide: ['presets'], unask: ['perpendicular-sign'] });
    });
    expect(made.stateText).toBe('v=1&a=3,4&b=-4,3');
    expect(made.iframe).toContain(
      'embed.html?ch=dot-product&amp;s=v%3D1%26a%3D3%2C4%26b%3D-4%2C3&amp;hide=presets&amp;ask=none"',
    );
    expect(made.element).toContain(`<${TAG} state="v=1&amp;a=3,4&amp;b=-4,3" hide="presets" ask="none"></${TAG}>`);
    for (const kind of ['h5p', 'scorm'])
      expect(made[kind]).toBe(
        `npm run ${kind} -- --chapter dot-product --state 'v=1&a=3,4&b=-4,3' --hide presets --ask none`,
      );
    await expectPasted('dot-product', TAG, made, { hidden: ['presets'], shown: [], unasked: ['perpendicular-sign'] });
  }, 180000);

  test('a slider (chapter 6): t moved by the keys, its row hidden, the prediction not asked; the preset bar stays', async () => {
    const TAG = 'ag-length-lever';
    const made = await withStudio('length', TAG, async ({ page }) => {
      await page.locator(`${TAG} #ll-t`).focus();
      await pressKeys(page, ...Array(4).fill('ArrowRight'));
      return makeSnippets(page, TAG, { hide: ['ll-t'], unask: ['triple-length'] });
    });
    expect(made.stateText).not.toContain('t=1&');
    expect(made.iframe).toContain('&amp;hide=ll-t&amp;ask=none"');
    await expectPasted('length', TAG, made, { hidden: ['ll-t'], shown: ['presets'], unasked: ['triple-length'] });
  }, 180000);

  test('Part 4 (chapter "Training tunes the projections"): a new seed at step 0, the seed hidden; Train and the prediction stay', async () => {
    const TAG = 'ag-learn-to-attend';
    const status = '^Ready: step 0 ';
    const made = await withStudio('learn-to-attend', TAG, async ({ page }) => {
      await settled(page, TAG, status);
      const before = await texts(page, TAG);
      const seed = page.locator(`${TAG} input.seed`);
      await seed.fill('7');
      await seed.press('Enter');
      const made = await makeSnippets(page, TAG, { hide: ['seed'], unask: [], status });
      expect(made.numbers).not.toEqual(before); // another seed, another model at step 0
      // The run's group keeps its own label while its first button reads "Pause" (or "Train again").
      await page.locator(`${TAG} [data-control-group="train"] button`).first().click();
      const running = `${TAG} [data-action="pause"], ${TAG} [data-action="train"]:text("Train again")`;
      await page.locator(running).first().waitFor();
      const train = await page.locator(TAG).evaluate((el) => el.controlGroups.find((g) => g.name === 'train').label);
      expect(train).toBe('Train, Restart, Cancel');
      return made;
    });
    expect(made.stateText).toMatch(/(^|&)seed=7(&|$)/);
    expect(made.iframe).toContain('&amp;hide=seed"');
    expect(made.iframe).not.toContain('ask=');
    const gone = ['[data-action="new-seed"]'];
    await expectPasted('learn-to-attend', TAG, made, { hidden: ['seed'], shown: ['train'], unasked: [], status, gone });
  }, 300000);
});

describe('the hide and ask options: names the widget does not have', () => {
  const TAG = 'ag-two-definitions';
  test('embed.html lists them in its note; the names it has still apply and the widget still computes', async () => {
    const query = 'ch=dot-product&hide=presets,no-such-group,%3Cb%3E&ask=no-such-prediction';
    await withEmbed(env, query, TAG, async ({ page }) => {
      await page.waitForSelector('body[data-state="ready"]');
      const note = await page.locator('#embed-note').textContent();
      expect(note).toMatch(/hide=no-such-group — expected a control group of this widget \(it has: presets\)/);
      expect(note).toMatch(/hide=<b> — expected a name of up to 40 letters/);
      expect(note).toMatch(
        /ask=no-such-prediction — expected a prediction of this widget \(it has: perpendicular-sign\)/,
      );
      expect(await page.locator('#embed-note').isVisible()).toBe(true);
      expect(await page.locator(`${TAG} [data-control-group="presets"]`).isVisible()).toBe(false);
      // An ask naming no prediction of the widget asks none.
      expect(await page.locator(`${TAG} [data-predict]`).isVisible()).toBe(false);
      await page.locator(TAG).evaluate((el) => el.setAttribute('a', '1,2'));
      expect(one(await readNumbers(page, TAG), 'dot').value).toBe(dot([1, 2], [4, 3]));
    });
  }, 60000);

  test('the element warns on the console, once built, and computes; a point prediction not asked (convex-hull, ask="none"): its ring on the figure is hidden and takes no focus', async () => {
    const body = `<${TAG} hide="no-such-group" ask="none,perpendicular-sign"></${TAG}>\n<ag-convex-hull ask="none"></ag-convex-hull>`;
    const warnings = [];
    const setup = (page) => page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    const url = host.add('unknown-names.html', hostPage(`${widgetsScript(env)}\n${body}`));
    await withPage(env, url, { setup }, async ({ page }) => {
      await waitReady(page, TAG);
      await until(() => warnings.length > 0, 'a console warning');
      expect(warnings.join('\n')).toMatch(/hide=no-such-group \(expected a control group of this widget/);
      expect(warnings.join('\n')).toMatch(/ask=none \(expected either "none" or the ids of predictions, not both\)/);
      expect(await page.locator(`${TAG} [data-predict="perpendicular-sign"]`).isVisible()).toBe(true);
      expect(one(await readNumbers(page, TAG), 'dot').value).toBe(dot([3, 4], [4, 3]));
      await waitReady(page, 'ag-convex-hull');
      const ring = page.locator('ag-convex-hull .handle-guess');
      expect(await ring.count()).toBe(1);
      expect(await ring.isVisible()).toBe(false);
      expect(await ring.evaluate((n) => (n.focus(), n.getRootNode().activeElement === n))).toBe(false);
    });
  }, 60000);
});

/** Chapters whose widget has no control group to hide, and why. */
const NO_GROUPS = {
  atom: 'its inputs are the figure itself: q and the keys are dragged on the plane, a cell of the grid is clicked',
  pitfalls: 'its tabs choose which pitfall is read, the chapter\u2019s text rather than a setting of a figure',
};

describe('the tour opened with studio=1 and no chapter', () => {
  const tour = usePage(env, '?studio=1&agtest=1');

  test('studio=1 without a chapter, or another value, is named in the link note; no panel, no error', async () => {
    const expectNoted = async (page, text) => {
      await expect(page.locator('#url-note').textContent()).resolves.toContain(text);
      expect(await page.locator('[data-role="studio"]').count()).toBe(0);
    };
    await expectNoted(tour.page, 'studio=1 \u2014 expected a ch= naming the chapter to prepare an embed of.');
    await withPage(env, '?ch=dot-product&studio=yes&agtest=1', ({ page }) =>
      expectNoted(page, 'studio=yes \u2014 expected 1, with a ch= (the studio).'),
    );
  }, 60000);

  test('every chapter of the tour offers at least one control group in the studio, but those listed with why; web/chapter-options.json lists what each widget has', async () => {
    // build() makes the controls as the widget starts, before any number is computed.
    const built = await tour.page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('[data-chapter] > .chapter-widget:first-of-type > *')].map((w) => {
          w.start();
          return [
            w.closest('[data-chapter]').dataset.chapter,
            { controlGroups: w.controlGroups.map((g) => g.name), predictions: w.predictions.map((p) => p.id) },
          ];
        }),
      ),
    );
    // The catalogue the scorm and h5p commands check their --hide and --ask names against.
    expect(built).toEqual(CATALOGUE);
    const groups = Object.fromEntries(Object.entries(built).map(([id, w]) => [id, w.controlGroups]));
    const withWidget = CHAPTERS.filter((c) => c.tag).map((c) => c.id);
    expect(Object.keys(groups).sort()).toEqual([...withWidget].sort());
    const none = Object.keys(groups).filter((id) => groups[id].length === 0);
    expect(none.sort()).toEqual(Object.keys(NO_GROUPS).sort());
    // Every name is one the hide option reads.
    const names = Object.values(groups).flat();
    expect(names.filter((name) => readHide(name).problems.length > 0)).toEqual([]);
  }, 120000);
});
