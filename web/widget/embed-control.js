// The "Embed" control of a widget toolbar: the HTML to put this widget, as it
// is now, on another page. Two snippets, each with a Copy button:
//   - an <iframe> of embed.html (works where a page may not run scripts of
//     its own, e.g. Canvas); widget only, or the whole chapter;
//   - the module script and the custom element with its state attribute.
// The snippets follow the widget's state (ag-statechange) while the control
// is open. Their URLs are absolute: by default the site address is where the
// bundle itself was loaded from, and the panel lets it be set (remembered in
// localStorage), since the page is often viewed from a local server before it
// is published. An address that only this computer can reach (loopback,
// localhost) gets a warning. A page opened from disk has no URL another site
// could use, so the control says so instead of offering snippets that would
// not work. A page
// may turn the snippets off with <meta name="attention-geometry-embed"
// content="off"> (the SCORM launch page does: its URLs are inside an LMS).
//
// The frame's height is the widget's own (or its chapter section's), without
// this control's open panel, plus a small margin for embed.html's link.
import { CHAPTERS } from '../chapters.js';
import { assetUrl, SINGLE_FILE } from './assets.js';
import { h } from './dom.js';

/** Room added to the widget's height, for the frame's own page (the full-page link, margins). */
export const FRAME_MARGIN = 48;
/** A chapter adds its title, intro and "things to try": used when the widget is not in a chapter section. */
const CHAPTER_MARGIN = 360;
/** The sandbox of the iframe snippet: what every part of the frame needs (links open tabs, exports download). */
export const SNIPPET_SANDBOX =
  'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-downloads';

/** The embedding guide's page in the site build. */
export const GUIDE_PAGE = 'embedding.html';

/** The localStorage key of the site address the learner set for the snippets. */
export const SITE_ADDRESS_KEY = 'attention-geometry:embed-site-address';

/**
 * Whether `url` (a URL) can be reached from this computer only: a file, or a
 * loopback host (localhost, *.localhost, 127.0.0.0/8, [::1], 0.0.0.0).
 */
export function localOnly(url) {
  if (url.protocol === 'file:') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0'
  );
}

/**
 * The site address (the folder that holds embed.html and widgets.js) typed as
 * `text`: an absolute http or https URL. A page address (…/index.html) stands
 * for its folder. Throws a TypeError that quotes the text otherwise.
 */
export function parseSiteAddress(text) {
  const trimmed = String(text).trim();
  let url;
  try {
    url = new URL(trimmed);
  } catch {
    url = null;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) {
    throw new TypeError(
      `\u201c${trimmed}\u201d is not a web address: the site address must start with https:// (or http://)`,
    );
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/[^/]*$/, '');
  return url;
}

/** The site address remembered on this browser, or null (none, unreadable storage, or not a web address). */
export function storedSiteAddress(storage) {
  try {
    // Reading localStorage itself throws in a frame with an opaque origin (sandboxed without allow-same-origin).
    const text = (storage ?? globalThis.localStorage)?.getItem(SITE_ADDRESS_KEY);
    return text ? parseSiteAddress(text) : null;
  } catch {
    return null;
  }
}

/** Whether the document turns the snippets off (<meta name="attention-geometry-embed" content="off">). */
export function embedTurnedOff(doc) {
  const meta = doc.querySelector('meta[name="attention-geometry-embed"]');
  return Boolean(meta) && meta.getAttribute('content')?.trim().toLowerCase() === 'off';
}

/** Text made safe inside a double-quoted HTML attribute value. */
export function escapeAttribute(text) {
  return String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The chapter whose widget is `tag`, or null. */
export function chapterOfTag(tag) {
  return CHAPTERS.find((c) => c.tag === tag) ?? null;
}

/** Whether the bundle was loaded from a web server, so its URLs work on other pages. */
export function servedOverHttp() {
  // The offline file has no widgets.js or embed.html beside it, wherever it is opened from.
  return !SINGLE_FILE && ['http:', 'https:'].includes(assetUrl('widgets.js').protocol);
}

/** The studio's options ({ hide, ask } texts, widget/studio-options.js optionTexts) as `name=value` pairs, in order. */
const optionPairs = (options) => ['hide', 'ask'].filter((n) => options[n] !== undefined).map((n) => [n, options[n]]);

/**
 * The query of embed.html (without "?") for `tag` with state text `stateText` (null: none, the widget's own
 * start): with `chapter`, the whole chapter (ch=), else the widget alone (w=); `options` ({ hide, ask }, texts)
 * as the parameters hide= and ask=.
 */
export function embedQuery({ tag, stateText, chapter = null, options = {} }) {
  const what = chapter ? `ch=${encodeURIComponent(chapter.id)}` : `w=${encodeURIComponent(tag)}`;
  const state = stateText === null ? '' : `&s=${encodeURIComponent(stateText)}`;
  const more = optionPairs(options).map(([n, v]) => `&${n}=${encodeURIComponent(v).replace(/%2C/g, ',')}`);
  return `${what}${state}${more.join('')}`;
}

/** The iframe snippet for `tag` with state text `stateText` (and `chapter`, `options`: see embedQuery). */
export function iframeSnippet({ tag, title, stateText, chapter = null, height, site = assetUrl(''), options = {} }) {
  const src = new URL('embed.html', site);
  src.search = `?${embedQuery({ tag, stateText, chapter, options })}`;
  const name = chapter ? chapter.title : title;
  return (
    `<iframe src="${escapeAttribute(src.href)}" title="${escapeAttribute(`Attention Geometry: ${name}`)}" ` +
    `width="100%" height="${Math.max(150, Math.ceil(height))}" style="border:0" loading="lazy" ` +
    `sandbox="${SNIPPET_SANDBOX}" allow="clipboard-write"></iframe>`
  );
}

/** The custom-element snippet: the module script and the element with its state (and `options` as attributes). */
export function elementSnippet({ tag, stateText, site = assetUrl(''), options = {} }) {
  const more = optionPairs(options).map(([n, v]) => ` ${n}="${escapeAttribute(v)}"`);
  return (
    `<script type="module" src="${escapeAttribute(new URL('widgets.js', site).href)}"></script>\n` +
    `<${tag} state="${escapeAttribute(stateText)}"${more.join('')}></${tag}>`
  );
}

/**
 * Copies `text`; resolves true when the clipboard took it. Never throws, and
 * does not call the clipboard where the frame's policy is known to block it
 * (Chromium says so through document.featurePolicy), which would log an error.
 */
export async function copyText(text) {
  try {
    if (!navigator.clipboard?.writeText) return false;
    if (document.featurePolicy?.allowsFeature?.('clipboard-write') === false) return false;
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A read-only text box of a snippet with its label, help and Copy button: `<div class="embed-snippet">`.
 * Copy writes to the clipboard, or selects the text and names the keys; `status` (a role=status element) says
 * which. @returns {{ area: HTMLTextAreaElement, copy: HTMLButtonElement, node: HTMLDivElement }}
 */
export function snippetBox({ id, label, help, status, rows = 4 }) {
  // In a sentence: "iframe snippet", but "H5P command".
  const named = label.replace(/\b[A-Z][a-z]+/g, (word) => word.toLowerCase());
  const area = h('textarea', {
    id,
    class: 'embed-code',
    readonly: true,
    rows,
    spellcheck: 'false',
    'aria-describedby': `${id}-help`,
  });
  const copy = h('button', { type: 'button', class: 'embed-copy' }, `Copy ${named}`);
  copy.addEventListener('click', async () => {
    if (await copyText(area.value)) {
      status.textContent = `${label} copied.`;
      return;
    }
    area.focus();
    area.select();
    status.textContent = `Copying is not allowed here. The ${named} is selected: press Ctrl+C (\u2318C on a Mac) to copy it.`;
  });
  const node = h(
    'div',
    { class: 'embed-snippet' },
    h('label', { for: id }, label),
    h('p', { id: `${id}-help`, class: 'embed-help' }, help),
    area,
    copy,
  );
  return { area, copy, node };
}

let controlCount = 0;

/**
 * The control for `widget` (an AgWidget): a disclosure like the export
 * control. Reads the widget's tag, title, state text and height when shown.
 */
export function embedControl(widget) {
  controlCount += 1;
  const uid = `ag-embed-${controlCount}`;
  const tag = widget.localName;
  const title = widget.constructor.title;
  const chapter = chapterOfTag(tag);
  const details = h('details', { class: 'embed' }, h('summary', {}, 'Embed'));

  const unavailable = (text) => {
    details.append(
      h('div', { class: 'embed-panel' }, h('p', { class: 'embed-help', dataset: { role: 'embed-unavailable' } }, text)),
    );
    return details;
  };
  if (embedTurnedOff(widget.ownerDocument)) {
    return unavailable(
      'Embed snippets are turned off on this page: its addresses are not ones another page could load the widget from. They come from the page on its own web site.',
    );
  }
  if (!servedOverHttp()) {
    return unavailable(
      SINGLE_FILE
        ? 'This is the offline copy of the page: it has no address another page could load the widget from. Embed snippets come from the page on its web server.'
        : 'Embed snippets need this page to be served from a web server (an http or https address). Opened from a file, it has no address another page could load the widget from.',
    );
  }

  // role=status is a polite live region (no aria-live attribute: the widget's own announcer is the one [aria-live] node).
  const status = h('p', { class: 'embed-status', role: 'status' });
  const box = (id, label, help) => snippetBox({ id, label, help, status });

  // The site address the snippets point to, and the warning for one that only this computer reaches.
  let site = storedSiteAddress() ?? assetUrl('');
  // The embedding guide, on the site the snippets load from (scripts/guide.mjs makes it from EMBEDDING.md).
  const guideLink = h('a', { target: '_blank', rel: 'noopener' }, 'embedding guide');
  guideLink.dataset.role = 'embed-guide';
  const showGuide = () => guideLink.setAttribute('href', new URL(GUIDE_PAGE, site).href);

  const siteId = `${uid}-site`;
  const siteInput = h('input', {
    id: siteId,
    type: 'url',
    class: 'embed-site',
    value: site.href,
    spellcheck: 'false',
    autocomplete: 'url',
    'aria-describedby': `${siteId}-help ${siteId}-warning`,
  });
  const siteWarning = h('p', {
    id: `${siteId}-warning`,
    class: 'embed-help embed-warning',
    dataset: { role: 'embed-local' },
  });
  const showSite = () => {
    siteInput.value = site.href;
    siteWarning.textContent = localOnly(site)
      ? `${site.origin} is an address of this computer only: a course page elsewhere cannot load these snippets. Publish the site on a web server and enter its address here.`
      : '';
    siteWarning.hidden = !localOnly(site);
    showGuide();
  };
  siteInput.addEventListener('change', () => {
    try {
      site = parseSiteAddress(siteInput.value);
      try {
        localStorage.setItem(SITE_ADDRESS_KEY, site.href);
      } catch {
        // Storage refused (private mode, sandboxed frame): the address holds until the page closes.
      }
      status.textContent = `The snippets now load from ${site.href}.`;
    } catch (e) {
      status.textContent = `${e.message}. The snippets still load from ${site.href}.`;
    }
    showSite();
    update();
  });
  showSite();
  const siteField = h(
    'div',
    { class: 'embed-snippet' },
    h('label', { for: siteId }, 'Site address'),
    h(
      'p',
      { id: `${siteId}-help`, class: 'embed-help' },
      'Where the published site is (the folder of embed.html); the snippets load the widget from there. Remembered on this browser.',
    ),
    siteInput,
    siteWarning,
  );

  const frame = box(`${uid}-iframe`, 'Iframe snippet', [
    'For any page, also where scripts are removed (Canvas). The frame can report its height to the page: the ',
    guideLink,
    ' has the listener.',
  ]);
  frame.area.dataset.snippet = 'iframe';
  const element = box(
    `${uid}-element`,
    'Element snippet',
    'For pages that may load scripts: the widget becomes part of the page.',
  );
  element.area.dataset.snippet = 'element';

  let scope = 'widget';
  let choice = null;
  if (chapter) {
    const radio = (value, text) => {
      const input = h('input', { type: 'radio', name: `${uid}-scope`, value, checked: value === scope });
      input.addEventListener('change', () => {
        if (!input.checked) return;
        scope = value;
        update();
      });
      return h('label', { class: 'embed-choice' }, input, ` ${text}`);
    };
    choice = h(
      'fieldset',
      { class: 'embed-scope' },
      h('legend', {}, 'The frame shows'),
      radio('widget', 'this widget only'),
      radio('chapter', `the whole chapter \u201c${chapter.title}\u201d`),
    );
  }

  const panel = h('div', { class: 'embed-panel' }, siteField, choice, frame.node, element.node, status);
  const summary = details.querySelector('summary');
  // The open panel is part of the widget's height, but not of the frame's:
  // the height the panel adds is measured once, from just before it opens
  // (the summary's click) to just after, less the panel's own height then;
  // later measures subtract the panel's height at that time (it grows with
  // the status line, or when the learner resizes a text box).
  let closedHeight = null;
  let layoutExtra = null;
  const height = (node) => node.getBoundingClientRect().height;
  summary.addEventListener('click', () => {
    if (!details.open) closedHeight = height(widget);
  });
  const withoutPanel = (h0) => {
    if (layoutExtra === null) {
      // Opened without a click (details.open set by a script): the summary line stays, the panel goes.
      layoutExtra =
        closedHeight === null
          ? Math.max(0, height(details) - height(summary) - height(panel))
          : Math.max(0, height(widget) - closedHeight - height(panel));
    }
    return h0 - height(panel) - layoutExtra;
  };
  const section = widget.closest('[data-chapter]');

  const update = () => {
    if (!details.open) return;
    const stateText = widget.stateText;
    const own = withoutPanel(height(widget));
    const inChapter = scope === 'chapter';
    const shown = inChapter ? (section ? withoutPanel(height(section)) : own + CHAPTER_MARGIN) : own;
    frame.area.value = iframeSnippet({
      tag,
      title,
      stateText,
      chapter: inChapter ? chapter : null,
      height: shown + FRAME_MARGIN,
      site,
    });
    element.area.value = elementSnippet({ tag, stateText, site });
  };
  details.addEventListener('toggle', () => {
    status.textContent = '';
    if (!details.open) {
      closedHeight = null;
      layoutExtra = null;
    }
    update();
  });
  widget.addEventListener('ag-statechange', update);

  details.append(panel);
  return details;
}
