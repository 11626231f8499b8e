// A chapter's browser tests, written as cases in tests/browser/<chapter id>.chapter.mjs, which the contract
// (chapters.contract.test.mjs) runs in the chapter's block after its own test. chapterTests({ ch, tag, match })
// gives `it`: it(name, run) is the test "<ch>: <name>", which runs `run(w)` on the chapter's one page (the
// contract's, or opened at the first case's link; a new one after a failed case) and ends with the page's clean
// check. `w` is the widget bound for its tests: readers (state, numbers, texts, the written link), moves (drags,
// keys, sliders), checks (w.matches: the chapter's own check against the float64 reference; logged, announced,
// see), the prediction and links. A case starts from the default state, or with it(...).at(link) from the state of
// `link` ('a=1,2&b=3,4'), set in the open page as a link sets it (every widget of the chapter takes it; the same
// parser as a link's), at 1024 px with the mouse aside. With .at(options) (withChapter's options, `link` its state
// parameters) a case opens a page of its own: a phone, a link whose subject is the link, the page's implementation.
// A copy of the written link opened in a new page is the contract's round trip; w.copyOpens does it for a state the
// round trip does not reach. What the contract checks of every chapter (a clean open, every number logged, the
// exports, the prediction's marking, the round trip, the widths) is left to it: a file's head comment names the rest.
import { existsSync } from 'node:fs';
import { afterAll, expect, test } from '@jest/globals';
import {
  expectAnnounced,
  expectClean,
  expectParams,
  expectReopens,
  openChapter,
  predictChoice,
  respond,
} from './helpers.mjs';
import {
  runStatuses,
  seedCase,
  setStateText,
  stateOf,
  trainWaiting,
  urlParams,
  useEnv,
  withChapter,
} from './helpers.mjs';
import { dragPoint, dragSlider, dragTo, keyPoint, keyTo, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';

export { rowsOf, seedCase } from './helpers.mjs';
export { angleRow, byRole, expectClose, expectNumbers, expectShown, expectThreeDigits } from './shown-numbers.mjs';
export { matrixOf, one, readNumbers, U } from './shown-numbers.mjs';

/** A case may open a page of its own beside the shared one: time for both on a busy machine. */
const TIMEOUT = 120000;

/** The address of the chapter at its state parameters `params` ('' : the chapter alone). */
const linkOf = (ch, params) => (params ? `?ch=${ch}&v=1&${params}` : '');

/**
 * The chapter on a page of its own (withChapter's `options`; `link` its state parameters, `browser` another than
 * env's), bound for `fn(w)`.
 */
const openOwn = (env, chapter, { link = '', browser = env.browser, ...options }, fn) =>
  withChapter({ ...env, browser }, chapter.ch, chapter.tag, { search: linkOf(chapter.ch, link), ...options }, (o) =>
    fn(bind(env, chapter, o)),
  );

/** The widget `tag` of `opened` bound for its tests (see the head comment); `chapter` is chapterTests' argument. */
function bind(env, chapter, opened) {
  const { ch, tag, match = () => null, read = readNumbers } = chapter;
  const { page } = opened;
  /** The element `selector` of the widget (none: the widget itself). */
  const at = (selector) => page.locator(selector ? `${tag} ${selector}` : `${tag} >> nth=0`);
  const w = {
    env,
    page,
    opened,
    ch,
    tag,
    at,
    read: () => read(page, tag),
    check: (numbers, ...args) => match(numbers, ...args),
    /** The numbers shown, checked by the chapter's reference check; `ref` is what the check returns. */
    async matches(...args) {
      const numbers = await w.read();
      return { numbers, ref: await match(numbers, ...args) };
    },
    /** The state has the fields of `part` (toMatchObject), and then w.matches(...args). */
    async matchesAt(part, ...args) {
      expect(await w.state()).toMatchObject(part);
      return w.matches(...args);
    },
    state: (widget = tag) => stateOf(page, widget),
    url: () => urlParams(page),
    text: (selector) => at(selector).textContent(),
    attr: (selector, name) => at(selector).getAttribute(name),
    host: (name) => at().getAttribute(name),
    eval: (fn, arg) => at().evaluate(fn, arg),
    /** data-<name> (camelCase) of the widget `widget`. */
    data: (name, widget = tag) =>
      page
        .locator(widget)
        .first()
        .evaluate((el, n) => el.dataset[n], name),
    katex: () => at('.katex').count(),
    kernels: () => page.evaluate(() => window.__agCallLog.map((c) => c.kernel)),
    logged: (widget = tag) => expectAllLogged(page, widget),
    announced: (text) => expectAnnounced(page, tag, text),
    params: (params) => expectParams(page, ch, params),
    drag: (name, to) => dragTo(page, tag, name, to),
    key: (name, keys, to, valuetext) => keyTo(page, tag, name, keys, to, valuetext),
    dragPoint: (name, to) => dragPoint(page, tag, name, to),
    keyPoint: (name, keys) => keyPoint(page, tag, name, keys),
    press: (selector, key, times) => pressOn(page, tag, selector, key, times),
    slide: (selector, from, to, widget = tag) => dragSlider(page, widget, selector, from, to),
    /** Waits until data-<name> of `widget` is `value`. */
    waitData: (name, value = 'done', timeout = 200000, widget = tag) =>
      page.waitForFunction(([t, n, v]) => document.querySelector(t)?.dataset[n] === v, [widget, name, value], {
        timeout,
      }),
    /** Waits until the state of `widget` has the fields of `part` (compared as JSON). */
    waitState: (part, widget = tag) =>
      page.waitForFunction(
        ([t, p]) => Object.entries(p).every(([k, v]) => JSON.stringify(document.querySelector(t).state[k]) === v),
        [widget, Object.fromEntries(Object.entries(part).map(([k, v]) => [k, JSON.stringify(v)]))],
      ),
    /**
     * Focuses `selector` in the widget and, per step [keys, part], presses the keys (one or a list) and checks
     * that the state then has the fields of `part` (toMatchObject).
     */
    async keys(selector, ...steps) {
      await at(selector).focus();
      for (const [keys, part] of steps) {
        for (const key of [keys].flat()) await page.keyboard.press(key);
        expect(await w.state()).toMatchObject(part);
      }
    },
    /**
     * Per selector of `spec` (in the widget): its text (a string: toBe, a pattern: toMatch), how many match (a
     * number), or { more: n (more than n match), contains (texts), disabled, visible, value (of an input) }.
     */
    async see(spec) {
      for (const [selector, want] of Object.entries(spec)) {
        const el = at(selector);
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
    /** Gives `choice` (a choice, a number, a point "x,y") and checks it is marked `result` ('right' or 'wrong'). */
    predict: (choice, result) => predictChoice(page, tag, choice, result),
    /** Gives `choice` and waits for the reveal (it may train first): the result is marked, its text says `says`. */
    async answer(choice, says) {
      await respond(page.locator(tag), choice);
      await at('.predict[data-result]').waitFor({ timeout: 120000 });
      expect(await w.text('.predict-result')).toMatch(says);
    },
    /**
     * Predict, then reveal: `wrong` is marked wrong, the answer says `says` (a pattern), the widget's state (the
     * answer loads its example) is `state` (toEqual; then its numbers meet the chapter's reference check for
     * it) or has the fields of `part`; with `args`, the numbers meet the reference check for those arguments;
     * `right` is marked right; every number shown is logged (unless `logged: false`). Returns the revealed
     * numbers and what the reference check returned.
     */
    async reveal({ wrong, says, state, part, args, right, logged = true }) {
      await w.predict(wrong, 'wrong');
      if (says) expect(await w.text('.predict-result')).toMatch(says);
      if (part) expect(await w.state()).toMatchObject(part);
      if (state) expect(await w.state()).toEqual(state);
      const revealed = args || state ? await w.matches(...(args ?? [state])) : { numbers: await w.read() };
      if (right) await w.predict(right, 'right');
      if (logged) await w.logged();
      return revealed;
    },
    /**
     * Cancel (the control `[data-action=<action>]`) stops the run: data-<attr> is 'cancelled' and the status
     * `status` says so.
     */
    async cancel({ attr = 'run', action = 'cancel', status = '.status', says = /Cancelled/ } = {}) {
      await at(`[data-action="${action}"]`).click();
      expect(await w.data(attr)).toBe('cancelled');
      expect(await w.text(status)).toMatch(says);
    },
    /** The status lines of the widget's training runs (Part 4). */
    statuses: () => runStatuses(page, tag),
    /** Each of the widget's `runs` training runs waits at step 0 of `steps`, untrained, and its status says so. */
    untrained: async (steps, runs = 1) =>
      expect(await w.statuses()).toEqual(
        Array(runs).fill(`Ready: step 0 of ${steps}, untrained. Train starts the run.`),
      ),
    /** Presses Train on each run that waits at step 0 and waits until the runs are done (trainWaiting). */
    train: (timeout) => trainWaiting(page, tag, timeout),
    /** Sets the state parameters `params`, waits for the run, and trains it if it waits at step 0 (w.train). */
    async trainAt(params, timeout) {
      await w.set(params);
      await w.waitData('run', 'done', timeout);
      return w.train(timeout);
    },
    /** Each of `values` (numbers of an export) is in a call's result at `path` ('data': result.data) in the log. */
    async inLog(values, path) {
      const missing = await page.evaluate(
        ([list, keys]) => {
          const at = (c) => keys.reduce((x, k) => x?.[k], c.result);
          const logged = new Set(window.__agCallLog.flatMap((c) => (at(c) ? Array.from(at(c)) : [])));
          return list.filter((v) => !logged.has(v));
        },
        [values, path.split('.')],
      );
      expect(missing).toEqual([]);
    },
    /**
     * In the page, with the page's own engine: the model of the worker's `job` (jobOf: its config, batches, rate
     * and clip) trained `until` steps, its parameters and step losses; with `held` ({ batch, seed }) also its last
     * loss (at step 0 that of batch 0, by evaluate), the held-out batch and a held-out sequence.
     */
    trainInPage: (job, until = job.steps, held = null) =>
      w.eval(
        (el, [job, until, held]) => {
          const ag = el.engine;
          const model = ag.createTransformer(job.config);
          const { name, ...task } = job.task;
          const data = ag.tasks[name](task);
          const losses = [];
          for (let i = 0; i < until; i += 1) losses.push(model.step(data.at(i), { lr: job.lr, clip: job.clip }).loss);
          const loss = held && (until ? losses.at(-1) : model.evaluate(data.at(0)).loss);
          const params = Object.fromEntries(Object.entries(model.parameters()).map(([k, v]) => [k, Array.from(v)]));
          model.dispose();
          if (!held) return { params, losses };
          const heldOut = ag.tasks[name]({ ...task, batch: held.batch, seed: held.seed }).at(0);
          const seq = Array.from(ag.tasks[name]({ ...task, batch: 1, seed: held.seed }).at(0).tokens);
          return { params, losses, loss, held: [heldOut.tokens, heldOut.targets].map((a) => Array.from(a)), seq };
        },
        [job, until, held],
      ),
    /** Picks the implementation `id` in the page's menu and waits until the widget is computed by it. */
    async implementation(id) {
      await page.selectOption('#implementation', id);
      await page.waitForSelector(`${tag}[data-computed-by="${id}"]`);
    },
    /** Clicks `start`, then `stop` in the same task as the text of `watch` first matches `when` (all in the widget). */
    clickWhen: (start, watch, when, stop) =>
      w.eval(
        (el, [first, seen, pattern, then]) =>
          new Promise((resolve) => {
            const root = el.shadowRoot;
            const watched = new MutationObserver(() => {
              if (!new RegExp(pattern).test(root.querySelector(seen).textContent)) return;
              watched.disconnect();
              root.querySelector(then).click();
              resolve();
            });
            watched.observe(root, { childList: true, characterData: true, subtree: true });
            root.querySelector(first).click();
          }),
        [start, watch, when.source, stop],
      ),
    /**
     * A Cancel while the prediction's reveal waits for training: picks `choice`, then, as soon as the text of
     * `watch` matches `when` (the run's first update past step 0), clicks `cancel`. The reveal then ends with the
     * predict block's error (`says`, a pattern), no result is marked, and every choice can be picked again.
     */
    async cancelReveal({ choice, watch, when, cancel = '[data-action="cancel"]', says }) {
      if (await at('.predict-again').isVisible()) await at('.predict-again').click();
      await w.clickWhen(`.predict-choice[data-choice="${choice}"]`, watch, when, cancel);
      const result = at('.predict-result');
      await page.waitForFunction((el) => el.textContent !== '', await result.elementHandle(), { timeout: 60000 });
      expect(await result.textContent()).toMatch(/^The answer could not be computed: /);
      expect(await result.textContent()).toMatch(says);
      expect(await at('.predict').getAttribute('data-result')).toBe(null);
      for (const button of await at('.predict-choice').all()) expect(await button.isDisabled()).toBe(false);
    },
    /**
     * Every widget of the chapter takes the state parameters `params` ('' the default state) as from a link, in
     * the open page; once the numbers of the widget have settled, returns them.
     */
    async set(params) {
      const text = `v=1${params ? `&${params}` : ''}`;
      const others = (section, [t, main]) => {
        for (const el of section.querySelectorAll('*')) if (el.localName !== main && el.applyParams) el.stateText = t;
      };
      await page.locator(`#ch-${ch}`).evaluate(others, [text, tag]);
      await setStateText(page, tag, text, { statuses: ['ready'] });
      return w.read();
    },
    /** The chapter opened on a page of its own (openOwn). */
    open: (where, fn) => openOwn(env, chapter, where, fn),
    /**
     * A link case: the chapter at the state parameters `link`, set in this page or, with `own` (true or
     * withChapter's options), opened on a page of its own. Its state is `state` (toEqual) or has the fields of
     * `part`; its note is shown and holds each text of `note`; its numbers meet the chapter's reference check
     * for `args` (one argument, or a list of them; null: not checked); `then(w, numbers, ref)` checks more (w of
     * that page); every number shown is logged, unless `logged: false`.
     */
    async link(link, args, { own, state, part, note = [], logged = true } = {}, then) {
      const run = async (z) => {
        if (state) expect(await z.state()).toEqual(state);
        if (part) expect(await z.state()).toMatchObject(part);
        if (note.length) expect(await z.at('.note').first().isVisible()).toBe(true);
        for (const piece of note) expect(await z.text('.note')).toContain(piece);
        const shown = args == null ? { numbers: await z.read() } : await z.matches(...[args].flat(1));
        await then?.(z, shown.numbers, shown.ref);
        if (logged) await z.logged();
      };
      if (own) return w.open({ ...(own === true ? {} : own), link }, run);
      await w.set(link);
      return run(w);
    },
    /**
     * The fields of the link the shell wrote, set again in this page after the default state: the numbers then
     * have the same `by` ('text' or 'value') as `numbers`, those that `keep` keeps; `before(w)` runs first (a run
     * to wait for), `check(w, again)` after. With `params`, every number shown is logged and the link holds
     * `params` (w.params) before. Returns the numbers shown then.
     */
    async reopens(numbers, { by = 'text', keep = () => true, before, check, params } = {}) {
      if (params) await w.logged();
      if (params) await w.params(params);
      const fields = await w.eval((el) => Object.keys(el.constructor.stateDecl.fields));
      const link = [...(await w.url())].filter(([name]) => fields.includes(name));
      await w.set('');
      await w.set(new URLSearchParams(link).toString());
      await before?.(w);
      const again = await w.read();
      const pick = (list) => list.filter(keep).map((n) => n[by]);
      expect(pick(again)).toEqual(pick(numbers));
      await check?.(w, again);
      return again;
    },
    /** A copy of the link the shell wrote, opened on a page of its own, shows the same digits (expectReopens). */
    copyOpens: (numbers, check) =>
      expectReopens(env, page, ch, tag, numbers, check && ((copy) => check(bind(env, chapter, copy)))),
  };
  return w;
}

/** Each chapter's { chapter, cases } (chapterTests' argument, its cases in order), by chapter id. */
const CHAPTER_CASES = new Map();
/** True while chapterCases imports a chapter's file: its cases are kept for the contract, not run on their own. */
let collecting = false;

/**
 * The tests of one chapter: `chapter` is { ch, tag, match, read (readNumbers unless given), timeout }. Returns
 * `it(name, run)`, whose `.at(where)` sets where the case starts (see the head comment);
 * `it.dragKeys(spec)`, the a/b chapters' case "drag, keys, reference, link" (dragKeys). In <id>.chapter.mjs
 * (imported by the contract through chapterCases) the cases are kept for caseTests; in a test file of its own
 * they are its tests, on a browser of the file's own.
 */
export function chapterTests(chapter) {
  const cases = [];
  CHAPTER_CASES.set(chapter.ch, { chapter, cases });
  const own = collecting ? null : caseTests(useEnv(), chapter);
  const it = (name, run) => {
    const one = { name, run, at: '' };
    cases.push(one);
    own?.(one);
    return { at: (where) => (one.at = where) };
  };
  it.dragKeys = (spec) => it(spec.name, (w) => dragKeys(w, spec)).at(spec.at ?? '');
  return it;
}

/** The chapter `id`'s { chapter, cases } from tests/browser/<id>.chapter.mjs (null without one), no test made. */
export async function chapterCases(id) {
  const file = new URL(`./${id}.chapter.mjs`, import.meta.url);
  if (!existsSync(file)) return null;
  collecting = true;
  await import(file.href).finally(() => (collecting = false));
  if (!CHAPTER_CASES.has(id)) throw new Error(`${id}.chapter.mjs makes no cases of chapterTests({ ch: '${id}' })`);
  return CHAPTER_CASES.get(id);
}

/**
 * Makes each case given to the returned function the test "<ch>: <name>" of the block it is in, on env. The cases
 * share one page of the chapter, `shared.opened`: one the caller put there (the contract's, once its checks
 * passed), else opened at the first case's link; a failed case closes it and the next opens a new one.
 */
export function caseTests(env, chapter, shared = {}) {
  const { ch, timeout = TIMEOUT } = chapter;
  afterAll(async () => shared.opened?.context.close().catch(() => null));
  const onShared = async (params, run) => {
    const fresh = !shared.opened;
    if (fresh) shared.opened = await openChapter(env, ch, chapter.tag, { search: linkOf(ch, params) });
    const { opened } = shared;
    const w = bind(env, chapter, opened);
    try {
      if (!fresh) {
        await opened.page.mouse.move(0, 0);
        if (opened.page.viewportSize().width !== 1024) await opened.page.setViewportSize({ width: 1024, height: 900 });
        await w.set(params);
      }
      await run(w);
      await expectClean(opened);
    } catch (err) {
      shared.opened = null; // the next case gets a new page
      await opened.context.close().catch(() => null);
      throw err;
    }
  };
  return (one) =>
    test(
      `${ch}: ${one.name}`,
      () => (typeof one.at === 'string' ? onShared(one.at, one.run) : openOwn(env, chapter, one.at, one.run)),
      timeout,
    );
}

/**
 * The case "drag, keys, reference, link": from `from` (opened at `at`), the point drag[0] is dragged to drag[1]
 * with the mouse and key[0] moved by the keys key[1] to key[2] (its handle saying key[3]). The numbers match the
 * reference after each move (`afterDrag` and `afterKeys` (w, numbers, ref, state) check more; `afterKeys` may
 * return { numbers, state } after a further change); the live region says `announce(numbers)`; every number is
 * logged; the link holds `params` and, set again, shows the same digits and the reference (`reopen(w, state)`
 * instead). A copy opened as a link is the contract's round trip (the reveal's state: the same fields).
 */
async function dragKeys(w, { from, drag, key, afterDrag, afterKeys, announce, params, reopen }) {
  await w.drag(...drag);
  let state = { ...from, [drag[0]]: drag[1] };
  let { numbers, ref } = await w.matches(state);
  await afterDrag?.(w, numbers, ref, state);
  await w.key(...key);
  state = { ...state, [key[0]]: key[2] };
  expect(await w.state()).toEqual(state);
  ({ numbers, ref } = await w.matches(state));
  await w.announced(announce(numbers));
  ({ numbers, state } = (await afterKeys?.(w, numbers, ref, state)) ?? { numbers, state });
  await w.logged();
  await w.params(params);
  if (reopen) await reopen(w, state);
  else w.check(await w.reopens(numbers), state);
}

/** The numbers shown; a bracketed negative value "(−1)" (after a + sign) is read as −1. */
export async function readBracketed(page, tag) {
  return (await readNumbers(page, tag)).map((n) =>
    /^\(.*\)$/.test(n.text) ? { ...n, shown: Number(n.text.slice(1, -1).replace(/\u2212/g, '-')) } : n,
  );
}

/** The texts shown: `spec` maps a role ('dot') or role.key ('norm.a') to a text, or a role to its texts by key. */
export function expectTexts(numbers, spec) {
  const shown = Object.fromEntries(
    Object.entries(spec).map(([name, want]) => {
      const [role, key = null] = name.split(/\.(.*)/);
      return [name, Array.isArray(want) ? byRole(numbers, role).map((n) => n.text) : one(numbers, role, key).text];
    }),
  );
  expect(shown).toEqual(spec);
}

/**
 * Each number of `role` shown (by key order) is within `tol` of refs[i] (a number, or tol(refs[i], i)), and with
 * `shown` (expectShown's options, or shown(refs[i])) its text is refs[i].
 */
export function expectRole(numbers, role, refs, tol, shown) {
  byRole(numbers, role).forEach((n, i) => {
    expectClose(n.value, refs[i], typeof tol === 'function' ? tol(refs[i], i) : tol, `${role}.${n.key}`);
    if (shown) expectShown(n, refs[i], typeof shown === 'function' ? shown(refs[i]) : shown);
  });
}

/** The seed file's case `id` (its inputs `inputs`, when given) is met by `got`: a value, or values in order. */
export function expectSeed(id, got, inputs) {
  const c = seedCase(id);
  if (inputs) expect(c.inputs).toEqual(inputs);
  const values = [got].flat();
  [c.expected].flat().forEach((x, i) => expectClose(values[i], x, c.tolerance, `seed ${id} [${i}]`));
  return c;
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
export const measuredRows = (w, selector) =>
  w.eval(
    (el, sel) =>
      [...el.shadowRoot.querySelectorAll(`${sel} tbody tr`)].map((tr) => {
        const row = { data: { ...tr.dataset }, current: tr.classList.contains('is-current') };
        for (const td of tr.querySelectorAll('td[data-role]'))
          row[td.dataset.role] = Number(td.dataset.measured ?? td.dataset.formula);
        return row;
      }),
    selector,
  );
