// The page URL: ?ch=<chapter id>&<that chapter's state>[&impl=<id>]#ch-<id>.
// Only the shell reads and writes it (widgets never do), with
// history.replaceState, so a copied link opens the chapter the learner was
// looking at with what it showed. Parameters the shell does not own (agtest,
// for example) are kept.
//
// Version 0 links (the first page, before chapters): ?q=...&k=...&scale=...
// with no ch: they belong to the worked example, whose state decoder reads
// version 0 through its migration.
import { stateParamNames } from '../widget/state.js';

export const SHELL_PARAMS = ['ch', 'impl'];
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
  const owned = new Set([...SHELL_PARAMS, ...V0_PARAMS, 'v']);
  for (const w of widgets) for (const name of stateParamNames(w.constructor.stateDecl)) owned.add(name);
  // Drop every parameter a chapter owns (any chapter's fields could be there).
  for (const el of document.querySelectorAll('[data-chapter] > .chapter-widget > *')) {
    const decl = el.constructor.stateDecl;
    if (decl) for (const name of stateParamNames(decl)) owned.add(name);
  }
  const others = [...current].filter(([name]) => !owned.has(name));
  const parts = [];
  if (chapter && widgets.length) parts.push(`ch=${encodeURIComponent(chapter.id)}`, chapterStateText(widgets));
  if (implId && implId !== defaultImplId) parts.push(`impl=${encodeURIComponent(implId)}`);
  if (others.length) parts.push(new URLSearchParams(others).toString());
  const query = parts.filter(Boolean).join('&');
  const hash = chapter ? `#ch-${chapter.id}` : window.location.hash;
  const next = `${query ? `?${query}` : window.location.pathname}${hash}`;
  if (next !== `${window.location.search || window.location.pathname}${window.location.hash}`)
    window.history.replaceState(null, '', next);
}
