// The learner's progress through the tour: which chapters were gone through
// (a chapter counts once it has been the chapter in view or its widget was
// used), which chapters' widgets were used (the learner changed something in
// it, or answered its prediction) and the predictions, per chapter
// (the page's record, widget/predict.js, in which each widget records its
// answers before it fires ag-predict). Both are shown as text marks in the table of contents. The page
// exposes a read-only view of it (window.agProgress) and fires `ag-progress`
// on the document with a snapshot on every change, so a course wrapper (the
// SCORM adapter) can report it and resume it.
import { h } from '../widget/dom.js';
import { pageRecord } from '../widget/predict.js';

const PREDICTED_RIGHT = ' \u2713 predicted';
const PREDICTED = ' \u2022 predicted';
const VISITED = ' (visited)';

/**
 * @param {{ root: Document, nav: HTMLElement, chapters: object[], chapterOf: (el: Element) => object|null }} o
 * @returns {{ progress: object, visit: (chapterId: string) => void }} `progress` is the read-only view;
 *   `visit` is for the shell, which knows which chapter is in view.
 */
export function trackProgress({ root, nav, chapters, chapterOf }) {
  // Every chapter with a widget counts; each of them asks a prediction.
  const ids = chapters.filter((c) => c.tag).map((c) => c.id);
  const known = new Set(ids);
  const record = pageRecord; // the widgets record their answers in it
  const visited = new Set();
  const used = new Set();
  let current = null;

  const itemOf = (id) => nav.querySelector(`li[data-chapter="${CSS.escape(id)}"]`);
  const markVisited = (id) => {
    const item = itemOf(id);
    if (!item || item.querySelector('[data-role=visited]')) return;
    const mark = h('span', { class: 'toc-mark toc-visited', dataset: { role: 'visited' } }, VISITED);
    const predicted = item.querySelector('[data-role=progress]');
    if (predicted) predicted.before(mark);
    else item.append(mark);
  };
  const markPredicted = (id, correct) => {
    const mark = itemOf(id)?.querySelector('[data-role=progress]');
    if (mark) mark.textContent = correct ? PREDICTED_RIGHT : PREDICTED;
  };

  /** First answer of each chapter: { [chapterId]: { choice, correct } }. */
  const firstAnswers = () =>
    Object.fromEntries(
      Object.entries(record.toJSON())
        .filter(([id]) => known.has(id))
        .map(([id, e]) => [id, { choice: e.first.choice, correct: e.first.correct }]),
    );
  const snapshot = () => ({
    visited: ids.filter((id) => visited.has(id)),
    used: ids.filter((id) => used.has(id)),
    total: ids.length,
    current,
    score: record.score(ids),
    predictions: firstAnswers(),
  });
  const changed = () => root.dispatchEvent(new CustomEvent('ag-progress', { detail: snapshot() }));

  // Marks and records without an event; callers fire one event per change.
  const addVisit = (id) => {
    if (!known.has(id)) return false;
    const fresh = !visited.has(id);
    visited.add(id);
    markVisited(id);
    const moved = current !== id;
    current = id;
    return fresh || moved;
  };
  const visit = (id) => {
    if (addVisit(id)) changed();
  };

  root.addEventListener('ag-predict', (event) => {
    const chapter = chapterOf(event.target);
    if (!chapter || !known.has(chapter.id)) return;
    markPredicted(chapter.id, event.detail.correct);
    used.add(chapter.id);
    addVisit(chapter.id);
    changed();
  });
  root.addEventListener('ag-statechange', (event) => {
    if (event.detail?.source !== 'user') return;
    const chapter = chapterOf(event.target);
    if (!chapter || !known.has(chapter.id)) return;
    const fresh = !used.has(chapter.id);
    used.add(chapter.id);
    if (addVisit(chapter.id) || fresh) changed();
  });

  /**
   * Resumes an earlier attempt: chapters gone through, chapters used and first answers
   * (the shape `ag-progress` reports). Unknown chapters and malformed
   * entries are skipped; what this page already holds is kept.
   * @returns {{ visited: number, used: number, predictions: number }} how many were taken
   */
  const restore = ({ visited: seen = [], used: usedBefore = [], predictions = {} } = {}) => {
    const taken = { visited: 0, used: 0, predictions: 0 };
    for (const id of Array.isArray(seen) ? seen : []) {
      if (typeof id !== 'string' || !known.has(id) || visited.has(id)) continue;
      visited.add(id);
      markVisited(id);
      taken.visited += 1;
    }
    for (const id of Array.isArray(usedBefore) ? usedBefore : []) {
      if (typeof id !== 'string' || !known.has(id) || used.has(id)) continue;
      used.add(id);
      taken.used += 1;
    }
    for (const [id, answer] of Object.entries(predictions && typeof predictions === 'object' ? predictions : {})) {
      if (
        !known.has(id) ||
        record.has(id) ||
        typeof answer?.choice !== 'string' ||
        typeof answer?.correct !== 'boolean'
      )
        continue;
      record.restore(id, answer);
      markPredicted(id, answer.correct);
      taken.predictions += 1;
    }
    if (taken.visited || taken.used || taken.predictions) changed();
    return taken;
  };

  const progress = Object.freeze({
    total: ids.length,
    chapters: Object.freeze([...ids]),
    visited: () => ids.filter((id) => visited.has(id)),
    used: () => ids.filter((id) => used.has(id)),
    current: () => current,
    score: () => record.score(ids),
    predictions: firstAnswers,
    snapshot,
    restore,
  });
  return { progress, visit };
}
