// The page treats its address as untrusted data, asks nothing of other
// origins and writes nothing but its own address:
// - every chapter given hostile values (markup, javascript: URLs, huge and
//   non-finite numbers, control and bidi characters, very long text) in
//   every field of its state and in v=: twelve by their link (with hostile
//   impl= and hash too), the others by stateText in one of those pages; the
//   embed page with hostile w=, ch=, s= and id=. For each: no request to another origin, no
//   dialog, no console or page error, no script element beyond the page's
//   own module, no event-handler attribute or javascript: URL anywhere in the
//   DOM (shadow roots included), nothing run from the address
//   (window.__pwned stays unset), no cookie, no localStorage,
//   sessionStorage, IndexedDB or Cache Storage write, no service worker, and
//   the history gets no new entry (the shell only replaces the address);
// - the sources in web/ use no HTML-parsing sink (innerHTML, outerHTML,
//   insertAdjacentHTML, document.write, d3's .html(), DOMParser, ...) and no
//   string-to-code call (eval, new Function) outside comments.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { ROOT, setStateText, useEnv, watchProblems } from './helpers.mjs';

// Values an attacker could put in a link. Each must be shown as text (or
// ignored with a note), never parsed as HTML or run.
const HOSTILE = [
  '<script>window.__pwned=1</script>',
  '"><img src=x onerror="window.__pwned=1">',
  'javascript:window.__pwned=1',
  '1e309',
  '-1e308,1e308,NaN,Infinity',
  '99999999999999999999999999',
  '\u202e\u0000\u{1d54f}\ud83d\udc69\u200d\ud83d\udcbb',
  "'; window.__pwned=1; //",
  '%3Csvg%20onload%3Dwindow.__pwned%3D1%3E',
  '//evil.example/x.js',
  'x'.repeat(5000),
  '1,2,<b>3</b>;4,5',
];

/** Runs in the page before any of its scripts: records every write to browser storage. */
function recordWrites() {
  window.__writes = [];
  window.__historyAtStart = history.length;
  const note = (what) => window.__writes.push(what);
  const wrap = (obj, name, what) => {
    const original = obj?.[name];
    if (typeof original !== 'function') return;
    obj[name] = function wrapped(...args) {
      note(`${what}(${String(args[0]).slice(0, 40)})`);
      return original.apply(this, args);
    };
  };
  wrap(Storage.prototype, 'setItem', 'Storage.setItem');
  wrap(window.indexedDB, 'open', 'indexedDB.open');
  wrap(window.caches, 'open', 'caches.open');
  wrap(navigator.serviceWorker, 'register', 'serviceWorker.register');
  wrap(History.prototype, 'pushState', 'history.pushState');
  const cookie = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
  Object.defineProperty(Document.prototype, 'cookie', {
    configurable: true,
    get() {
      return cookie.get.call(this);
    },
    set(value) {
      note(`document.cookie=${String(value).slice(0, 40)}`);
      cookie.set.call(this, value);
    },
  });
}

/** What the page holds after it has run, read through every shadow root. */
async function inspect(page) {
  return page.evaluate(async () => {
    const all = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        all.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    const handlers = [];
    const scriptUrls = [];
    for (const el of all) {
      for (const attr of el.attributes) {
        if (/^on/i.test(attr.name)) handlers.push(`<${el.localName} ${attr.name}>`);
        if (/^\s*javascript:/i.test(attr.value))
          handlers.push(`<${el.localName} ${attr.name}="${attr.value.slice(0, 40)}">`);
      }
      if (el.localName === 'script') scriptUrls.push(el.src || `inline: ${el.textContent.slice(0, 40)}`);
    }
    const databases = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
    return {
      pwned: window.__pwned ?? null,
      writes: window.__writes,
      handlers,
      scriptUrls,
      cookie: document.cookie,
      local: localStorage.length,
      session: sessionStorage.length,
      databases,
      caches: window.caches ? await caches.keys() : [],
      workers: navigator.serviceWorker ? (await navigator.serviceWorker.getRegistrations()).length : 0,
      history: history.length - window.__historyAtStart,
    };
  });
}

const env = useEnv();
let context;
let origin;
const foreign = []; // requests of the context to another origin
const NOTHING_STORED = { cookie: '', local: 0, session: 0, databases: [], caches: [], workers: 0, history: 0 };
const isForeign = (u) => !['data:', 'blob:', 'about:'].includes(u.protocol) && u.origin !== origin;

beforeAll(async () => {
  origin = new URL(env.server.url).origin;
  context = await env.browser.newContext({ viewport: { width: 1024, height: 900 } });
  await context.addInitScript(recordWrites);
  // Requests to another origin are recorded and refused (so a test never reaches out).
  await context.route(isForeign, (route) => {
    foreign.push(route.request().url());
    route.abort();
  });
  // Every request of every page and worker of the context (the route above may not see a worker's).
  context.on('request', (r) => {
    if (isForeign(new URL(r.url())) && !foreign.includes(r.url())) foreign.push(r.url());
  });
});

// The shared context closes with the file (the stage's Chromium outlives it).
afterAll(() => context?.close());

/** Opens `path` in a fresh page of the shared context and checks everything the header lists. */
async function expectSafe(path, { script, ready }) {
  // A new tab each time, so that the history and the page's globals start
  // afresh (storage is the context's: a write by any address stays visible).
  foreign.length = 0;
  const tab = await context.newPage();
  const { errors, dialogs } = await watchProblems(tab);
  await tab.goto(new URL(path, env.server.url).href);
  await ready(tab);
  const { pwned, writes, handlers, scriptUrls, ...stored } = await inspect(tab);
  await tab.close();
  expect({ path, pwned, writes, handlers }).toEqual({ path, pwned: null, writes: [], handlers: [] });
  expect({ path, scripts: scriptUrls }).toEqual({ path, scripts: [`${origin}/${script}`] });
  expect({ path, ...stored }).toEqual({ path, ...NOTHING_STORED });
  expect({ path, errors, foreign, dialogs }).toEqual({ path, errors: [], foreign: [], dialogs: [] });
}

/** The state field names of every chapter's widget, read from the page (the widgets' declarations). */
async function fieldsOf() {
  const tab = await context.newPage();
  await tab.goto(env.server.url);
  await tab.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
  const fields = await tab.evaluate(
    (tags) => Object.fromEntries(tags.map((tag) => [tag, Object.keys(customElements.get(tag).stateDecl.fields)])),
    CHAPTERS.filter((c) => c.tag).map((c) => c.tag),
  );
  await tab.close();
  return fields;
}

/** Waits for the page (body[data-state=<state>]), then for its widget `tag` (scrolled into view): ready, or stale
 * (inputs that cannot be computed are refused with a note), never left loading. */
const widgetReady =
  (tag, state = '="ready"') =>
  async (tab) => {
    await tab.waitForSelector(`body[data-state${state}]`, { timeout: 20000 });
    await tab.locator(tag).first().scrollIntoViewIfNeeded();
    await tab.waitForSelector(`${tag}[data-status="ready"], ${tag}[data-status="stale"]`, { timeout: 20000 });
  };

describe('hostile addresses', () => {
  let FIELDS;
  beforeAll(async () => {
    FIELDS = await fieldsOf();
  });

  // Each field gets its own hostile value, shifted from chapter to chapter, so that across the tour every kind
  // of value reaches every kind of field.
  const chapters = CHAPTERS.filter((c) => c.tag).map((c, n) => ({ ...c, n }));
  const hostileState = ({ tag, n }) => {
    const params = new URLSearchParams({ v: HOSTILE[n % HOSTILE.length] });
    FIELDS[tag].forEach((name, f) => params.set(name, HOSTILE[(n + f + 1) % HOSTILE.length]));
    return params;
  };
  // One link per hostile value of v, impl and the hash (chapter k of the tour); the state of chapters k + 12,
  // k + 24, ... then goes in by stateText on the same page, the same parser (decodeState) as the link's.
  const groups = chapters.slice(0, HOSTILE.length).map((c) => chapters.filter((o) => o.n % HOSTILE.length === c.n));
  test.each(groups.map((g) => [g.map((c) => c.id).join(', '), g]))(
    'chapters %s: hostile values in every state field, v, impl and the hash',
    async (_ids, [linked, ...others]) => {
      for (const { tag } of [linked, ...others]) expect(FIELDS[tag].length).toBeGreaterThan(0);
      const params = new URLSearchParams({ ch: linked.id, ...Object.fromEntries(hostileState(linked)) });
      params.set('impl', HOSTILE[(linked.n + 2) % HOSTILE.length]);
      const hash = encodeURIComponent(HOSTILE[(linked.n + 3) % HOSTILE.length]).slice(0, 200);
      await expectSafe(`?agtest=1&${params}#${hash}`, {
        script: 'app.js',
        ready: async (tab) => {
          await widgetReady(linked.tag)(tab);
          for (const other of others) await setStateText(tab, other.tag, String(hostileState(other)));
        },
      });
    },
  );

  test('an unknown chapter, a repeated one, and markup in ch=', async () => {
    for (const query of [
      'ch=<img src=x onerror=window.__pwned=1>',
      'ch=atom&ch=dot-product&a=1,1',
      `ch=${encodeURIComponent(HOSTILE[0])}&q=${encodeURIComponent(HOSTILE[1])}`,
    ]) {
      await expectSafe(`?agtest=1&${query}`, {
        script: 'app.js',
        ready: (tab) => tab.waitForSelector('body[data-state="ready"]', { timeout: 20000 }),
      });
    }
  });

  test('the embed page: hostile w=, ch=, s= and id=', async () => {
    const h = (i) => encodeURIComponent(HOSTILE[i]);
    const s = (text) => encodeURIComponent(text);
    const cases = [
      [`w=${h(0)}&id=${h(1)}`, 'ag-worked-example'],
      [`w=ag-two-definitions&s=${s(`v=1&a=${HOSTILE[1]}&b=${HOSTILE[3]}&zz=${HOSTILE[2]}`)}`, 'ag-two-definitions'],
      [`ch=${h(2)}&s=${h(0)}`, 'ag-worked-example'],
      [`ch=multi-head&s=${s(`v=1&words=${HOSTILE[11]}&h=${HOSTILE[5]}`)}&id=${h(6)}`, 'ag-multi-head'],
    ];
    for (const [query, tag] of cases) {
      await expectSafe(`embed.html?agtest=1&${query}`, { script: 'embed.js', ready: widgetReady(tag, '') });
    }
  });
});

// ------------------------------------------------------------ the sources

/** Every .js and .html file under web/ (sources, not the built bundle). */
function sources(dir = join(ROOT, 'web')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(m?js|html)$/.test(e.name) ? [path] : [];
  });
}

// HTML parsing sinks and string-to-code calls.
const SINK =
  /\binnerHTML\b|\bouterHTML\b|\binsertAdjacentHTML\b|\bdocument\.write(ln)?\b|\.html\(|\bsetHTMLUnsafe\b|\bparseHTMLUnsafe\b|\bcreateContextualFragment\b|\bDOMParser\b|\bsrcdoc\b|\beval\(|\bnew Function\(|\bset(Timeout|Interval)\(\s*['"`]/;

// Occurrences allowed in code, each with constant strings only (file, trimmed line). None today.
const ALLOWED = [];

describe('sources: no HTML from strings', () => {
  test('no innerHTML, outerHTML, insertAdjacentHTML, document.write, d3 .html(), DOMParser, eval or new Function in web/ outside comments', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(40);
    const inCode = [];
    for (const file of files) {
      const name = relative(ROOT, file);
      let inBlock = false;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const trimmed = line.trim();
          const comment = inBlock || trimmed.startsWith('//') || trimmed.startsWith('/*') || trimmed.startsWith('*');
          if (trimmed.startsWith('/*') && !trimmed.includes('*/')) inBlock = true;
          else if (inBlock && trimmed.includes('*/')) inBlock = false;
          if (!SINK.test(line)) return;
          if (!comment) inCode.push({ file: name, line: i + 1, text: trimmed });
        });
    }
    // Mentions in comments (explanations of why a sink is not used) do not count.
    expect(inCode.map(({ file, text }) => ({ file, text }))).toEqual(ALLOWED);
  });
});
