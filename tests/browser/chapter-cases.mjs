// A chapter's browser tests, written as cases: chapterTests() gives `it`, which runs a case on the file's shared
// page (opened once; a new one after a failed case) and hands it `w`: the page, the widget's readers, moves and
// checks bound to the chapter, and w.matches(...), the chapter's own check against the float64 reference. Each
// case starts from the default state, or from its link's state set in the page (el.stateText: the parser a
// link goes through), and ends with the page's clean check. The shell's part (a copy of the written link
// reopening the same digits) is the contract's round trip, after the reveal (chapters.contract.test.mjs). The
// a/b chapters' "drag, keys, reference, link" is one case made here from a table (it.dragKeys).
import { afterAll, expect, test } from '@jest/globals';
import { expectAnnounced, expectClean, expectParams, expectReopens, expectReveal, openChapter } from './helpers.mjs';
import { predictChoice, seedCase, setStateText, stateOf, urlParams, useEnv, withChapter } from './helpers.mjs';
import { dragPoint, dragSlider, dragTo, keyPoint, keyTo, pressOn } from './pointer.mjs';
import { byRole, expectAllLogged, expectClose, expectShown, one, readNumbers } from './shown-numbers.mjs';

/** A case may open a page of its own beside the shared one: time for both on a busy machine. */
const TIMEOUT = 120000;

/** The page at the chapter's link `?ch=<ch>&v=1&<params>` (a string), or withChapter's options (an object). */
const openAt = (ch, at) => (typeof at === 'string' ? { search: `?ch=${ch}&v=1&${at}` } : at);

/** The widget of `opened` with its checks; `match(numbers, ...args)` is the chapter's reference check. */
function widget(env, chapter, { page }) {
  const { ch, tag, match } = chapter;
  const at = (selector) => page.locator(`${tag} ${selector}`);
  const host = page.locator(`${tag} >> nth=0`);
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
    /** w.matches(state), or only the numbers shown when `state` is null. */
    shown: async (state) => (state ? w.matches(state) : { numbers: await w.read() }),
    /**
     * The state of the link text `params` ('a=1,2&b=3,4'; '' the default state) set in the open page, once the
     * numbers have settled: then they match `state`'s reference (null: not checked).
     */
    async set(params, state) {
      await setStateText(page, tag, `v=1${params ? `&${params}` : ''}`, { statuses: ['ready'] });
      return w.shown(state);
    },
    state: () => stateOf(page, tag),
    url: () => urlParams(page),
    text: (selector) => at(selector).textContent(),
    attr: (selector, name) => at(selector).getAttribute(name),
    host: (name) => host.getAttribute(name),
    eval: (fn, arg) => host.evaluate(fn, arg),
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
    /** The chapter opened on a page of its own at `where` (openAt), checked by `fn(other)`. */
    open: (where, fn) => withChapter(env, ch, tag, openAt(ch, where), (other) => fn(widget(env, chapter, other))),
    /**
     * The chapter at its link `params`, set in this page (with `page: true`, opened on a page of its own, with
     * withChapter's other options): its numbers match `state`'s reference (null: not checked), then
     * `check(w, numbers, ref)` (w of that page); `logged: false` skips expectAllLogged.
     */
    link: (params, state, { logged = true, page: own = false, ...options } = {}, check) => {
      const run = async (z) => {
        const { numbers, ref } = await (own ? z.shown(state) : z.set(params, state));
        await check?.(z, numbers, ref);
        if (logged) await z.logged();
      };
      return own ? w.open({ ...options, ...openAt(ch, params) }, run) : run(w);
    },
    /** The fields of the link the shell wrote, set again in this page after the default state (w.set). */
    async relink() {
      const fields = await host.evaluate((el) => Object.keys(el.constructor.stateDecl.fields));
      const link = [...(await w.url())].filter(([name]) => fields.includes(name));
      await w.set('');
      return w.set(new URLSearchParams(link).toString());
    },
    /** w.relink() shows the same digits as `numbers`; `check(w)` looks at more. Returns the numbers shown then. */
    async reopens(numbers, check) {
      const { numbers: again } = await w.relink();
      expect(again.map((n) => n.text)).toEqual(numbers.map((n) => n.text));
      await check?.(w);
      return again;
    },
    /** A copy of the link the shell wrote, opened on a page of its own, shows the same digits (expectReopens). */
    copyOpens: (numbers, check) =>
      expectReopens(env, page, ch, tag, numbers, check && ((copy) => check(widget(env, chapter, copy)))),
  };
  return w;
}

/**
 * The tests of one chapter ({ ch, tag, match }): returns `it(name, [at,] run)`, a test named "<ch>: <name>" that
 * runs `run(w)` on the file's shared page, from the default state or, with `at` a link text ('a=1,2&b=3,4'),
 * from that state set in the page; with `at` withChapter's options (an object: a phone, a link opened as a
 * link), on a page of its own, clean unless `at` says `clean: false`. `it.links(name, run)` is a case of links
 * (w.link); `it.atLink(name, params, run)` opens the link `params` on a page of its own (a link whose subject is
 * the link: a size the contract's round trip does not reach). `it.dragKeys(spec)` adds the case dragKeys.
 */
export function chapterTests(chapter) {
  const env = useEnv();
  const { ch, tag } = chapter;
  let shared = null;
  afterAll(async () => shared?.context.close());
  const onShared = async (params, run) => {
    const fresh = !shared;
    if (fresh) shared = await openChapter(env, ch, tag);
    const opened = shared;
    const w = widget(env, chapter, opened);
    try {
      if (!fresh || params) await w.set(params);
      await run(w);
      await expectClean(opened);
    } catch (err) {
      shared = null; // the next case gets a new page
      await opened.context.close();
      throw err;
    }
  };
  const it = (name, ...rest) => {
    const [at, run] = rest.length === 1 ? ['', rest[0]] : rest;
    const own = () => withChapter(env, ch, tag, at, (o) => run(widget(env, chapter, o)));
    test(`${ch}: ${name}`, () => (typeof at === 'string' ? onShared(at, run) : own()), TIMEOUT);
  };
  it.links = (name, run) => it(name, '', run);
  it.atLink = (name, params, run) => it(name, openAt(ch, params), run);
  it.dragKeys = (spec) => it(spec.name, spec.at ?? '', (w) => dragKeys(w, spec));
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
