// The page URL: ?ch=<chapter id>&<that chapter's state>[&impl=<id>][&studio=1][&agtest=1]#ch-<id>.
// Only the shell reads and writes it (widgets never do), with
// history.replaceState, so a copied link opens the chapter the learner was
// looking at with what it showed. The rule for any other parameter: it is
// named once, in the link note when the page opens with it (unknownParams,
// studioProblems), and the address the shell writes next leaves it out, so a
// link copied after any change is clean. Kept are only the two modes the
// page's hosts open it in: studio=1 (the studio) and agtest=1 (the test
// mode, widget/engine.js). The SCORM course's launch page carries its
// settings in meta elements, embed.html reads its own (shell/embed-params.js).
//
// Version 0 links (the first page, before chapters): ?q=...&k=...&scale=...
// with no ch: they belong to the worked example, whose state decoder reads
// version 0 through its migration.
import { stateParamNames } from '../widget/state.js';

export const SHELL_PARAMS = ['ch', 'impl'];
/** studio=1 with ch=: the chapter's studio panel (widget/studio.js); kept in the address as it is. */
export const STUDIO_PARAM = 'studio';
/** The page's modes, kept in the address the shell writes with the value that turns them on. */
const MODES = [STUDIO_PARAM, 'agtest'];
const V0_PARAMS = ['q', 'k', 'scale'];

/**
 * Which chapter a link points at, and the parameters meant for its widget.
 * @returns {{ chapterId: string|null, problems: object[] }}
 */
export function readChapter(params, chapters) {
  const problems = [];
  const ch = params.get('ch');
  if (ch !== null) {
    if (chapters.some((c) => c.id === ch && c.tag)) return { chapterId: ch, problems };
    problems.push({
      name: 'ch',
      value: ch,
      expected: `a chapter id (${chapters
        .filter((c) => c.tag)
        .map((c) => c.id)
        .join(', ')})`,
    });
    return { chapterId: null, problems };
  }
  if (V0_PARAMS.some((name) => params.has(name))) return { chapterId: 'worked-example', problems };
  return { chapterId: null, problems };
}

/**
 * The studio parameter that cannot be used, as a link-note problem: a value other than 1, or studio=1 without
 * a chapter. @returns {object[]}
 */
export function studioProblems(params, chapterId) {
  const value = params.get(STUDIO_PARAM);
  if (value === null || (value === '1' && chapterId)) return [];
  const expected = value === '1' ? 'a ch= naming the chapter to prepare an embed of' : '1, with a ch= (the studio)';
  return [{ name: STUDIO_PARAM, value, expected }];
}

/** Unknown parameters listed one by one in the note (the rest are counted), as on embed.html. */
const MAX_UNKNOWN = 5;

/**
 * The parameters of a link that nothing reads, as link-note problems: with a
 * chapter (`widgets`, its elements), a name that is no field of its widgets;
 * without one, any chapter setting, which needs ch= to be read. The shell's
 * own parameters and agtest (engine.js) are read.
 * @param {URLSearchParams} params
 * @param {HTMLElement[]|null} widgets the chosen chapter's widgets, or null
 * @param {string|null} chapterId
 */
export function unknownParams(params, widgets, chapterId) {
  const known = new Set([...SHELL_PARAMS, 'agtest', STUDIO_PARAM]);
  if (widgets) {
    known.add('v');
    for (const w of widgets) for (const name of stateParamNames(w.constructor.stateDecl)) known.add(name);
    // A version 0 link (no v=) is the worked example's, read through its migration.
    if (chapterId === 'worked-example' && !params.has('v')) for (const name of V0_PARAMS) known.add(name);
  }
  const fields = [...known].filter((n) => ![...SHELL_PARAMS, 'agtest', STUDIO_PARAM, 'v'].includes(n));
  const expected = widgets
    ? `a setting of chapter ${chapterId}: ${fields.join(', ')}`
    : 'a ch= naming its chapter: no chapter reads a setting without one';
  const unknown = [...params].filter(([name]) => !known.has(name));
  const problems = unknown.slice(0, MAX_UNKNOWN).map(([name, value]) => ({ name: name.slice(0, 40), value, expected }));
  if (unknown.length > MAX_UNKNOWN)
    problems.push({ name: '\u2026', value: `${unknown.length - MAX_UNKNOWN} more`, expected: 'no other parameters' });
  return problems;
}

/**
 * The state of a chapter's widgets as one text: each parameter once (the
 * version and the fields they share are equal, shell/chapters-view.js).
 */
function chapterStateText(widgets) {
  const seen = new Set();
  const parts = [];
  for (const w of widgets) {
    for (const part of w.stateText.split('&')) {
      const name = part.split('=')[0];
      if (!seen.has(name)) parts.push(part);
      seen.add(name);
    }
  }
  return parts.join('&');
}

/** Writes the page URL for `chapter` (null: no chapter) and its widgets. */
export function writeUrl({ chapter, widgets, implId, defaultImplId }) {
  const current = new URLSearchParams(window.location.search);
  const parts = [];
  if (chapter && widgets.length) parts.push(`ch=${encodeURIComponent(chapter.id)}`, chapterStateText(widgets));
  if (implId && implId !== defaultImplId) parts.push(`impl=${encodeURIComponent(implId)}`);
  // Nothing else the link had: what was not used was named in the link note when the page opened.
  for (const mode of MODES) if (current.get(mode) === '1') parts.push(`${mode}=1`);
  const query = parts.filter(Boolean).join('&');
  // No chapter (the top of the page): no chapter's anchor either, another one (#check-pre) is kept.
  const kept = window.location.hash.startsWith('#ch-') ? '' : window.location.hash;
  const hash = chapter ? `#ch-${chapter.id}` : kept;
  const next = `${query ? `?${query}` : window.location.pathname}${hash}`;
  if (next !== `${window.location.search || window.location.pathname}${window.location.hash}`)
    window.history.replaceState(null, '', next);
}
