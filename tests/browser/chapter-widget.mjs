// A chapter's widget bound for its tests: chapterWidget(ch, tag) opens the chapter once per test file, takes
// each test's link to it in that page (as the shell does: applyParams), reads the widget's state, numbers and
// elements, presses keys and checks the state after each, cancels a worker run and reads the page's link back
// into it; linkCases and predictCases turn rows of links and predictions into tests; expectStages compares
// shown matrices with float64 references; measuredRows reads a table of measured numbers. A link opening its
// chapter, and its copy in a new page, are the contract's (its link round trip).
import { afterAll, expect, test } from '@jest/globals';
import { expectClean, openChapter, predictChoice, settledUrl, stateOf, useEnv, withChapter } from './helpers.mjs';
import { expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';

/** The numbers shown; a bracketed negative value "(−1)" (after a + sign) is read as −1. */
export async function readBracketed(page, tag) {
  return (await readNumbers(page, tag)).map((n) =>
    /^\(.*\)$/.test(n.text) ? { ...n, shown: Number(n.text.slice(1, -1).replace(/\u2212/g, '-')) } : n,
  );
}

/** What the shell does with a link: each widget of the chapter's `section` applies its parameters `text`. */
function applyLink(section, text) {
  for (const el of section.querySelectorAll('*')) el.applyParams?.(new URLSearchParams(text));
}

/**
 * The chapter `ch` with its widget `tag`, on one server and browser for the test file (useEnv), and one page
 * for the tests that need no page of their own. `read` reads the numbers shown (readNumbers unless given).
 */
export function chapterWidget(ch, tag, { read = readNumbers } = {}) {
  const env = useEnv();
  let shared = null;
  afterAll(() => shared?.context.close().catch(() => null));
  const c = {
    env,
    ch,
    tag,
    /** The link of the chapter with the state parameters `params` ('' or none: the chapter alone). */
    link: (params) => (params ? `?ch=${ch}&v=1&${params}` : ''),
    /** Every widget of the chapter takes the state parameters `params` as the shell takes a link's. */
    to: (page, params = '') => page.locator(`#ch-${ch}`).evaluate(applyLink, `v=1&${params}`),
    /**
     * `fn(opened)` on the chapter at c.link(params) (params may be left out), then the page's clean check.
     * With `options` (of withChapter; `search` is a whole link; `alone: true` alone) in a page of its own;
     * else in the file's page, opened at the first link and taken to each later one (c.to) at the default
     * viewport. A test that fails leaves the next one a new page.
     */
    async open(params, options, fn) {
      if (typeof params === 'function') [params, options, fn] = ['', {}, params];
      if (typeof options === 'function') [options, fn] = [{}, options];
      const { alone, ...own } = options;
      if (alone || Object.keys(own).length) return withChapter(env, ch, tag, { search: c.link(params), ...own }, fn);
      if (!shared) shared = await openChapter(env, ch, tag, { search: `?ch=${ch}&v=1&${params}` });
      else {
        await shared.page.mouse.move(0, 0);
        await shared.page.setViewportSize({ width: 1024, height: 900 });
        await c.to(shared.page, params);
      }
      try {
        const result = await fn(shared);
        await expectClean(shared);
        return result;
      } catch (err) {
        const failed = shared;
        shared = null;
        await failed.context.close().catch(() => null);
        throw err;
      }
    },
    el: (page, selector) => page.locator(selector ? `${tag} ${selector}` : tag),
    text: (page, selector) => c.el(page, selector).textContent(),
    state: (page) => stateOf(page, tag),
    numbers: (page) => read(page, tag),
    logged: (page, widget = tag) => expectAllLogged(page, widget),
    /** data-<name> (camelCase) of the widget `widget`. */
    data: (page, name, widget = tag) => page.locator(widget).evaluate((el, n) => el.dataset[n], name),
    /** Waits until data-<name> of `widget` is `value`. */
    waitData: (page, name, value = 'done', timeout = 200000, widget = tag) =>
      page.waitForFunction(([t, n, v]) => document.querySelector(t)?.dataset[n] === v, [widget, name, value], {
        timeout,
      }),
    /** Waits until the state of `widget` has the fields of `part` (compared as JSON). */
    waitState: (page, part, widget = tag) =>
      page.waitForFunction(
        ([t, p]) => Object.entries(p).every(([k, v]) => JSON.stringify(document.querySelector(t).state[k]) === v),
        [widget, Object.fromEntries(Object.entries(part).map(([k, v]) => [k, JSON.stringify(v)]))],
      ),
    /**
     * Focuses `selector` in the widget and, per step [keys, part], presses the keys (one or a list) and checks
     * that the state then has the fields of `part` (toMatchObject).
     */
    async keys(page, selector, ...steps) {
      await c.el(page, selector).focus();
      for (const [keys, part] of steps) {
        for (const key of [keys].flat()) await page.keyboard.press(key);
        expect(await c.state(page)).toMatchObject(part);
      }
    },
    /**
     * Per selector of `spec` (in the widget): its text (a string: toBe, a pattern: toMatch), how many match (a
     * number), or { more: n (more than n match), contains (texts), disabled, visible, value (of an input) }.
     */
    async see(page, spec) {
      for (const [selector, want] of Object.entries(spec)) {
        const el = c.el(page, selector);
        if (typeof want === 'string') expect(await el.textContent()).toBe(want);
        else if (want instanceof RegExp) expect(await el.textContent()).toMatch(want);
        else if (typeof want === 'number') expect(await el.count()).toBe(want);
        else {
          if ('more' in want) expect(await el.count()).toBeGreaterThan(want.more);
          for (const part of [want.contains ?? []].flat()) expect(await el.textContent()).toContain(part);
          if ('disabled' in want) expect(await el.isDisabled()).toBe(want.disabled);
          if ('visible' in want) expect(await el.isVisible()).toBe(want.visible);
          if ('value' in want) expect(await el.inputValue()).toBe(want.value);
        }
      }
    },
    /** Picks `choice` of the prediction and checks it is marked `result` ('right' or 'wrong'). */
    choose: (page, choice, result) => predictChoice(page, tag, choice, result),
    /**
     * Cancel (the control `[data-action=<action>]`) stops the run: data-<attr> is 'cancelled' and the
     * status `status` says so.
     */
    async cancel(page, { attr = 'run', action = 'cancel', status = '.status', says = /Cancelled/ } = {}) {
      await c.el(page, `[data-action="${action}"]`).click();
      expect(await c.data(page, attr)).toBe('cancelled');
      expect(await c.text(page, status)).toMatch(says);
    },
    /**
     * The page's link (once written) taken back into the page (c.to) shows numbers with the same `by`
     * ('text' or 'value') as `numbers`, those that `keep` keeps; `before(page)` runs first (a run to wait
     * for), `check(page, numbers)` after. Returns the numbers shown.
     */
    async again(page, numbers, { by = 'text', keep = () => true, before, check } = {}) {
      const { searchParams } = await settledUrl(page);
      searchParams.delete('v');
      await c.to(page, searchParams.toString());
      await before?.(page);
      const pick = (list) => list.filter(keep).map((n) => n[by]);
      const reopened = await c.numbers(page);
      expect(pick(reopened)).toEqual(pick(numbers));
      await check?.(page, reopened);
      return reopened;
    },
  };
  return c;
}

/**
 * Per row, a test of a link: the chapter at `params` (opened with `options`) has the `state` (toEqual) or the
 * fields of `part` (toMatchObject), its note is shown and holds every text of `note`, and `then(opened)`
 * checks the rest.
 */
export function linkCases(c, rows) {
  for (const { name, params, options = {}, state, part, note = [], then } of rows)
    test(name, () =>
      c.open(params, options, async (opened) => {
        const { page } = opened;
        if (state) expect(await c.state(page)).toEqual(state);
        if (part) expect(await c.state(page)).toMatchObject(part);
        if (note.length) expect(await c.el(page, '.note').first().isVisible()).toBe(true);
        const text = note.length ? await c.text(page, '.note') : '';
        for (const piece of note) expect(text).toContain(piece);
        await then?.(opened);
      }),
    );
}

/**
 * Per row, a test of the prediction at `params`: `wrong` is marked wrong, the answer says `says`, the widget
 * moves to the fields of `state`; `then(page)` checks the revealed state; `right` is marked right; `after(page)`
 * checks the rest.
 */
export function predictCases(c, rows) {
  for (const { name, params, wrong, says, state, then, right, after } of rows)
    test(name, () =>
      c.open(params, async ({ page }) => {
        await c.choose(page, wrong, 'wrong');
        if (says) expect(await c.text(page, '.predict-result')).toMatch(says);
        if (state) expect(await c.state(page)).toMatchObject(state);
        await then?.(page);
        if (right) await c.choose(page, right, 'right');
        await after?.(page);
      }),
    );
}

/**
 * Per stage [role, ref, tol, digits]: each entry of the shown matrix `role` (key "i-j") is within tol (a number,
 * or tol(i, j)) of the float64 rows `ref`; given `digits`, it is there once and shown as ref to that many
 * significant digits, within tol more.
 */
export function expectStages(numbers, stages) {
  for (const [role, ref, tol, digits] of stages)
    ref.forEach((r, i) =>
      r.forEach((x, j) => {
        const [key, t] = [`${i + 1}-${j + 1}`, typeof tol === 'function' ? tol(i, j) : tol];
        const n = digits ? one(numbers, role, key) : numbers.findLast((m) => m.role === role && m.key === key);
        expectClose(n.value, x, t, `${role}[${key}]`);
        if (digits) expectShown(n, x, { digits, extra: t });
      }),
    );
}

/**
 * The rows of the widget's table `selector` (tbody tr): each row's data attributes (`data`), whether it is
 * the current one (class is-current), and per td[data-role] its data-measured (else its data-formula) as a
 * number.
 */
export const measuredRows = (page, tag, selector) =>
  page.locator(tag).evaluate(
    (el, sel) =>
      [...el.shadowRoot.querySelectorAll(`${sel} tbody tr`)].map((tr) => {
        const row = { data: { ...tr.dataset }, current: tr.classList.contains('is-current') };
        for (const td of tr.querySelectorAll('td[data-role]'))
          row[td.dataset.role] = Number(td.dataset.measured ?? td.dataset.formula);
        return row;
      }),
    selector,
  );
