// What the course reports to the LMS for a snapshot of the page's progress
// (the detail of an `ag-progress` event): the SCORM 1.2 elements and their
// values. Completion: every chapter gone through. Score: the first answers
// of the predictions, right ones over all chapters that ask one, as 0..100.
import { encodeSuspendData } from './suspend-data.js';

/** Statuses that are never changed again. */
export const FINAL_STATUSES = new Set(['completed', 'passed']);

/** 0..100, rounded; null before any answer. */
export function scoreRaw({ answered, correct, total }) {
  if (!answered || !total) return null;
  return Math.round((100 * correct) / total);
}

/**
 * @param {object} snapshot { visited, total, current, score, predictions }
 * @param {string} status the lesson_status the LMS holds now
 * @param {string} [mode] cmi.core.lesson_mode: in 'browse' (a preview) only
 *   the place is kept: the chapters gone through and the answers of a
 *   preview must not become the graded attempt's, so no suspend data, no
 *   score and no completion. ('review' reports nothing: see scorm.js.)
 * @returns {[string, string][]} elements to set, in order
 */
export function cmiValues(snapshot, status, mode = 'normal') {
  const values = [];
  if (snapshot.current) values.push(['cmi.core.lesson_location', snapshot.current]);
  if (mode === 'browse') return values;
  values.push(['cmi.suspend_data', encodeSuspendData(snapshot)]);
  const raw = scoreRaw(snapshot.score);
  if (raw !== null)
    values.push(['cmi.core.score.min', '0'], ['cmi.core.score.max', '100'], ['cmi.core.score.raw', String(raw)]);
  if (snapshot.total > 0 && snapshot.visited.length === snapshot.total && !FINAL_STATUSES.has(status))
    values.push(['cmi.core.lesson_status', 'completed']);
  return values;
}
