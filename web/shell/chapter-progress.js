// The learner's progress in one chapter: the launch page of a one-chapter
// SCORM package (embed.html with the package's launch meta, embed.js). It has
// the shape of the tour's progress (shell/progress.js), so that the same
// adapter (scorm.js) reports and resumes it, with what a chapter adds:
//   asked        the ids of the predictions the package asks (the ask option)
//   predictions  the first answer of each asked prediction, by prediction id
//   used         the chapter, once its widget was changed by the learner or a prediction answered
//   state        the widget's state text, so that a later launch starts where the learner left it
// `ag-progress` is fired on `root` with a snapshot on every change; a change
// of the state alone waits until the learner pauses (a drag changes it many
// times a second). An answer restored from an earlier attempt is put back in
// the page's record (its chapter's text held for the answer shows) and stated
// in a line above the widget.
import { h } from '../widget/dom.js';
import { pageRecord } from '../widget/predict.js';

/** A change of the state alone is reported once the learner has paused this long. */
const STATE_PAUSE_MS = 500;

/**
 * @param {{ root: Document, widget: HTMLElement, chapter: { id: string } }} o `widget`: the chapter's widget,
 *   built (started), with its ask option set
 * @returns {object} the read-only progress (window.agProgress): total, chapters, asked, visited(), used(),
 *   current(), score(), predictions(), snapshot(), restore()
 */
export function trackChapterProgress({ root, widget, chapter }) {
  const id = chapter.id;
  const asked = Object.freeze(widget.predictions.map((p) => p.id).filter((p) => widget.asks(p)));
  const first = new Map(); // prediction id -> { choice, correct }
  let used = false;
  let line = null;

  const score = () => {
    const answers = asked.filter((p) => first.has(p)).map((p) => first.get(p));
    return { answered: answers.length, correct: answers.filter((a) => a.correct).length, total: asked.length };
  };
  const predictions = () => Object.fromEntries(asked.filter((p) => first.has(p)).map((p) => [p, first.get(p)]));
  const snapshot = () => ({
    visited: [id],
    used: used ? [id] : [],
    total: 1,
    current: id,
    asked: [...asked],
    score: score(),
    predictions: predictions(),
    state: widget.stateText,
  });
  let timer = null;
  const changed = () => {
    clearTimeout(timer);
    timer = null;
    root.dispatchEvent(new CustomEvent('ag-progress', { detail: snapshot() }));
  };

  widget.addEventListener('ag-predict', ({ detail }) => {
    if (asked.includes(detail.id) && !first.has(detail.id))
      first.set(detail.id, { choice: String(detail.choice), correct: detail.correct === true });
    used = true;
    changed();
  });
  widget.addEventListener('ag-statechange', ({ detail }) => {
    if (detail?.source === 'user' && !used) {
      used = true;
      changed();
    } else {
      clearTimeout(timer);
      timer = setTimeout(changed, STATE_PAUSE_MS);
    }
  });

  /** The line that states the first answers restored from an earlier attempt. */
  const showRestored = (restored) => {
    const said = restored.map(([p, a]) => {
      const button = widget.shadowRoot?.querySelector(
        `[data-predict="${CSS.escape(p)}"] .predict-choice[data-choice="${CSS.escape(a.choice)}"]`,
      );
      const label = button?.textContent ?? a.choice;
      return `\u201c${label}\u201d (${a.correct ? 'right' : 'not right'})`;
    });
    line ??= h('p', { class: 'note embed-restored', dataset: { role: 'restored-answers' } });
    line.textContent = `Your first answer, given on an earlier visit: ${said.join(', ')}. Only the first answer is scored; you may answer again to try it.`;
    if (!line.isConnected) widget.before(line);
  };

  /**
   * Resumes an earlier attempt (decodeSuspendData's shape): the widget used, the first answers of asked
   * predictions, the widget's state text. What this page already holds is kept.
   * @returns {{ visited: number, used: number, predictions: number }} how many were taken
   */
  const restore = ({ used: usedBefore = [], predictions: before = {}, state } = {}) => {
    const taken = { visited: 0, used: 0, predictions: 0 };
    if (Array.isArray(usedBefore) && usedBefore.includes(id) && !used) {
      used = true;
      taken.used = 1;
    }
    const restored = [];
    for (const [p, answer] of Object.entries(before && typeof before === 'object' ? before : {})) {
      if (!asked.includes(p) || first.has(p) || typeof answer?.choice !== 'string') continue;
      if (typeof answer?.correct !== 'boolean') continue;
      first.set(p, { choice: answer.choice, correct: answer.correct });
      restored.push([p, answer]);
    }
    taken.predictions = restored.length;
    // The page's record is per chapter: its first answer is the first prediction's.
    if (restored.length) pageRecord.restore(id, restored[0][1]);
    if (restored.length) showRestored(restored);
    if (typeof state === 'string' && state !== widget.stateText) widget.stateText = state;
    if (taken.used || taken.predictions || typeof state === 'string') changed();
    return taken;
  };

  return Object.freeze({
    total: 1,
    chapters: Object.freeze([id]),
    asked,
    visited: () => [id],
    used: () => (used ? [id] : []),
    current: () => id,
    score,
    predictions,
    snapshot,
    restore,
  });
}
