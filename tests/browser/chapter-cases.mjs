// A chapter's browser tests, written as cases: chapterTests() gives `it`, which opens the chapter for a case
// (on its default state or at a link) and hands it `w`: the page, the widget's readers, moves and checks bound
// to the chapter, and w.matches(...), the chapter's own check against the float64 reference. The shape the
// a/b chapters share, "drag, keys, reference, link", is one case made here from a table (it.dragKeys).
import { expect, test } from '@jest/globals';
import { expectAnnounced, expectParams, expectReopens, expectReveal, predictChoice, seedCase } from './helpers.mjs';
import { settledUrl, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragPoint, dragSlider, dragTo, keyPoint, keyTo, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';

/** A case may open three pages (its own, a link's copy, another link): time for them on a busy machine. */
const TIMEOUT = 120000;

/** The page at the chapter's link `?ch=<ch>&v=1&<params>` (a string), or withChapter's options (an object). */
const openAt = (ch, at) => (typeof at === 'string' ? { search: `?ch=${ch}&v=1&${at}` } : at);

/** The widget of `opened` with its checks; `match(numbers, ...args)` is the chapter's reference check. */
function widget(env, chapter, { page }) {
  const { ch, tag, match } = chapter;
  const at = (selector) => page.locator(`${tag} ${selector}`);
  const w = {
    env,
    page,
    ch,
    tag,
    at,
    read: () => readNumbers(page, tag),
    check: (numbers, ...args) => match(numbers, ...args),
    /** The numbers shown, checked by the chapter's reference check; `ref` is what the check returns. */
    async matches(...args) {
      const numbers = await w.read();
      return { numbers, ref: await match(numbers, ...args) };
    },
    state: () => stateOf(page, tag),
    url: () => urlParams(page),
    text: (selector) => at(selector).textContent(),
    attr: (selector, name) => at(selector).getAttribute(name),
    host: (name) => page.locator(tag).getAttribute(name),
    eval: (fn, arg) => page.locator(tag).evaluate(fn, arg),
    katex: () => at('.katex').count(),
    kernels: () => page.evaluate(() => window.__agCallLog.map((c) => c.kernel)),
    logged: () => expectAllLogged(page, tag),
    announced: (text) => expectAnnounced(page, tag, text),
    params: (params) => expectParams(page, ch, params),
    reveal: (spec) => expectReveal(page, tag, spec),
    predict: (choice, result) => predictChoice(page, tag, choice, result),
    drag: (name, to) => dragTo(page, tag, name, to),
    key: (name, keys, to, valuetext) => keyTo(page, tag, name, keys, to, valuetext),
    dragPoint: (name, to) => dragPoint(page, tag, name, to),
    keyPoint: (name, keys) => keyPoint(page, tag, name, keys),
    press: (selector, key, times) => pressOn(page, tag, selector, key, times),
    slide: (selector, from, to) => dragSlider(page, tag, selector, from, to),
    /** The chapter opened again at `at` (openAt), checked by `fn(copy)`. */
    open: (where, fn) => withChapter(env, ch, tag, openAt(ch, where), (copy) => fn(widget(env, chapter, copy))),
    /**
     * The chapter opened at its link `params`: its numbers match `state`'s reference (null: not checked), then
     * `check(copy, numbers, ref)`; withChapter's `options`, and `logged: false` skips expectAllLogged.
     */
    link: (params, state, { logged = true, ...options } = {}, check) =>
      w.open({ ...options, ...openAt(ch, params) }, async (copy) => {
        const { numbers, ref } = state ? await copy.matches(state) : { numbers: await copy.read() };
        await check?.(copy, numbers, ref);
        if (logged) await copy.logged();
      }),
    /** The chapter opened at a copy of the link the shell wrote. */
    copy: async (fn) => w.open({ search: (await settledUrl(page)).search }, fn),
    /** A copy of the link shows the same digits as `numbers` (expectReopens); `check(copy)` looks at more. */
    reopens: (numbers, check) =>
      expectReopens(env, page, ch, tag, numbers, check && ((copy) => check(widget(env, chapter, copy)))),
  };
  return w;
}

/**
 * The tests of one chapter ({ ch, tag, match }): returns `it(name, [at,] run)`, a test named "<ch>: <name>" that
 * opens the chapter (at `at`: see openAt) and runs `run(w)`; the page stays clean unless `at` says `clean: false`.
 * With `at` null, nothing is opened: `run` opens its own pages (w.open, w.link); `it.links(name, run)` is that.
 * `it.dragKeys(spec)` adds the case dragKeys.
 */
export function chapterTests(chapter) {
  const env = useEnv();
  const it = (name, ...rest) => {
    const [at, run] = rest.length === 1 ? [{}, rest[0]] : rest;
    const { ch, tag } = chapter;
    const opened = (o) => run(widget(env, chapter, o));
    const body = () => (at === null ? opened({}) : withChapter(env, ch, tag, openAt(ch, at), opened));
    test(`${ch}: ${name}`, body, TIMEOUT);
  };
  it.links = (name, run) => it(name, null, run);
  it.dragKeys = (spec) => it(spec.name, spec.at ?? {}, (w) => dragKeys(w, spec));
  return it;
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
 * The case "drag, keys, reference, link": from `from` (opened at `at`), the point drag[0] is dragged to drag[1]
 * with the mouse and key[0] moved by the keys key[1] to key[2] (its handle saying key[3]). The numbers match the
 * reference after each move (`afterDrag` and `afterKeys` (w, numbers, ref, state) check more; `afterKeys` may
 * return { numbers, state } after a further change); the live region says `announce(numbers)`; every number is
 * logged; the link holds `params`; a copy shows the same digits and the reference (`reopen(w, state)` instead).
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
