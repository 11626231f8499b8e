// What the course reports to the LMS for a snapshot of the page's progress
// (the detail of an `ag-progress` event): the SCORM 1.2 elements and their
// values, under the author's policy (policy.js). Completion: every chapter's
// widget used (or, by choice, every chapter gone through; in a one-chapter
// package, every prediction asked answered), and the time floor reached.
// Score, unless turned off: the first answers of the predictions, right ones
// over all predictions counted (`score.total`), as 0..100.
import { DEFAULT_POLICY } from './policy.js';
import { encodeSuspendData } from './suspend-data.js';

/** Statuses that are never changed again. */
export const FINAL_STATUSES = new Set(['completed', 'passed']);

/** 0..100, rounded; null before any answer. */
export function scoreRaw({ answered, correct, total }) {
  if (!answered || !total) return null;
  return Math.round((100 * correct) / total);
}

/**
 * Whether `snapshot` (with `minutes`, the time spent so far) completes the package under `policy`. 'asked' (a
 * one-chapter package): every id of `snapshot.asked` has a first answer in `snapshot.predictions`; with none
 * asked, the widget used.
 */
export function completes(snapshot, policy = DEFAULT_POLICY) {
  const asked = policy.completion === 'asked' ? (snapshot.asked ?? []) : [];
  const done = policy.completion === 'visited' ? snapshot.visited : (snapshot.used ?? []);
  const met = asked.length
    ? asked.every((id) => Object.hasOwn(snapshot.predictions ?? {}, id))
    : snapshot.total > 0 && done.length === snapshot.total;
  return met && (snapshot.minutes ?? 0) >= policy.minMinutes;
}

/**
 * @param {object} snapshot { visited, used, total, current, score, predictions, minutes, asked?, state? }
 * @param {string} status the lesson_status the LMS holds now
 * @param {string} [mode] cmi.core.lesson_mode: in 'browse' (a preview) only
 *   the place is kept: the chapters gone through and the answers of a
 *   preview must not become the graded attempt's, so no suspend data, no
 *   score and no completion. ('review' reports nothing: see scorm.js.)
 * @param {object} [policy] the author's policy (policy.js)
 * @returns {[string, string][]} elements to set, in order
 */
export function cmiValues(snapshot, status, mode = 'normal', policy = DEFAULT_POLICY) {
  const values = [];
  if (snapshot.current) values.push(['cmi.core.lesson_location', snapshot.current]);
  if (mode === 'browse') return values;
  values.push(['cmi.suspend_data', encodeSuspendData(snapshot)]);
  const raw = policy.score === 'none' ? null : scoreRaw(snapshot.score);
  if (raw !== null)
    values.push(['cmi.core.score.min', '0'], ['cmi.core.score.max', '100'], ['cmi.core.score.raw', String(raw)]);
  if (completes(snapshot, policy) && !FINAL_STATUSES.has(status)) values.push(['cmi.core.lesson_status', 'completed']);
  return values;
}
