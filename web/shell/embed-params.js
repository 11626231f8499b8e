// The address of the one-widget page (embed.html), read and checked:
//   ?w=<widget tag>&s=<state text>[&id=<name>]   one widget
//   ?ch=<chapter id>&s=<state text>[&id=<name>]  one chapter (title, intro, widget, things to try)
//   [&hide=<groups>][&ask=<ids>|none]            the studio's options (widget/studio-options.js), given
//                                                to the widget as its hide and ask attributes
// Nothing here is trusted: a tag must be a defined <ag-...> widget, a chapter
// id must be in the tour, `id` is a short plain name. Anything that does not
// fit becomes a problem (shown as text) and the page falls back to the worked
// example, or to the named widget's defaults. A name given twice is a
// problem too (the first is used). The state text itself is
// checked by the widget's own codec (web/widget/state.js).

/**
 * The launch page of a one-chapter SCORM package (scripts/scorm.mjs) is embed.html with its address in
 * <meta name="attention-geometry-launch" content="ch=…&s=…&hide=…&ask=…">: read in place of the page's own
 * query (which an LMS may extend with parameters of its own).
 */
export const LAUNCH_META = 'attention-geometry-launch';

/** The parameters of the page: the launch meta's when `doc` has one, else the query `search`. */
export function embedAddress(doc, search) {
  const meta = doc.querySelector(`meta[name="${LAUNCH_META}"]`);
  return { params: new URLSearchParams(meta ? (meta.getAttribute('content') ?? '') : search), launched: Boolean(meta) };
}

/** The widget shown when the address names none that exists. */
export const DEFAULT_TAG = 'ag-worked-example';
/** Longest w, ch or id read at all. */
const MAX_NAME = 100;
/** Unknown parameters listed one by one in the note (the rest are counted). */
const MAX_UNKNOWN = 10;
const TAG = /^ag-[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ID = /^[A-Za-z0-9_.:-]{1,64}$/;
/** The parameters of the page. */
const PARAMS = ['w', 'ch', 's', 'id', 'hide', 'ask'];

const isWidgetTag = (tag) => {
  if (typeof tag !== 'string' || tag.length > MAX_NAME || !TAG.test(tag)) return false;
  const cls = customElements.get(tag);
  return Boolean(cls && cls.stateDecl);
};

/**
 * @param {URLSearchParams} params
 * @param {{ id: string, tag: string|null }[]} chapters
 * @returns {{ tag: string, chapter: object|null, stateText: string|null, id: string|null, hide: string|null,
 *   ask: string|null, problems: { name: string, value: string, expected: string }[] }} `hide` and `ask` as given
 *   (the widget checks them)
 */
export function readEmbedParams(params, chapters) {
  const problems = [];
  // Each name once: a repeated one is reported, and the first is used.
  for (const name of PARAMS) {
    for (const extra of params.getAll(name).slice(1))
      problems.push({
        name,
        value: extra,
        expected: `one ${name}= only (the address gives more than one; the first is used)`,
      });
  }
  // Any other name is reported: a widget's fields go inside s= (agtest is the test mode, see engine.js).
  const unknown = [...params].filter(([name]) => ![...PARAMS, 'agtest'].includes(name));
  for (const [name, value] of unknown.slice(0, MAX_UNKNOWN)) {
    problems.push({
      name: name.slice(0, MAX_NAME),
      value,
      expected:
        'not a parameter of this page (it reads w, ch, s, id, hide and ask; a widget\u2019s own fields go inside s=)',
    });
  }
  if (unknown.length > MAX_UNKNOWN)
    problems.push({ name: '\u2026', value: `${unknown.length - MAX_UNKNOWN} more`, expected: 'no other parameters' });
  const w = params.get('w');
  const ch = params.get('ch');
  const s = params.get('s');
  const rawId = params.get('id');
  const withWidget = chapters.filter((c) => c.tag);

  let chapter = null;
  if (ch !== null) {
    chapter = (ch.length <= MAX_NAME && withWidget.find((c) => c.id === ch)) || null;
    if (!chapter)
      problems.push({
        name: 'ch',
        value: ch,
        expected: `a chapter id, such as ${withWidget
          .slice(0, 3)
          .map((c) => c.id)
          .join(', ')}`,
      });
  }
  let tag = null;
  if (w !== null) {
    if (isWidgetTag(w)) tag = w;
    else problems.push({ name: 'w', value: w, expected: 'the tag of a widget, such as ag-worked-example' });
  }
  if (chapter && tag && tag !== chapter.tag) {
    problems.push({ name: 'w', value: tag, expected: `no w= together with ch= (the chapter shows ${chapter.tag})` });
  }
  if (chapter) tag = chapter.tag;
  const found = Boolean(tag);
  if (!found) {
    tag = DEFAULT_TAG;
    if (w === null && ch === null)
      problems.push({
        name: 'w',
        value: '',
        expected: 'a widget tag (w=ag-...) or a chapter id (ch=...); the worked example is shown',
      });
  }

  // A state meant for a widget that was not found would not fit the default one.
  let stateText = s;
  if (s !== null && !found) {
    problems.push({
      name: 's',
      value: s,
      expected: 'the state of the widget named by w= or ch=; ignored, as that widget was not found',
    });
    stateText = null;
  }

  let id = null;
  if (rawId !== null) {
    if (ID.test(rawId)) id = rawId;
    else problems.push({ name: 'id', value: rawId, expected: 'up to 64 letters, digits, "-", "_", "." or ":"' });
  }
  return { tag, chapter, stateText, id, hide: params.get('hide'), ask: params.get('ask'), problems };
}
