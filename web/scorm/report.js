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
 * @param {string} [mode] cmi.core.lesson_mode: in 'browse' (a preview
 *   without credit) the place and the progress are kept, but no score and
 *   no completion are reported. ('review' reports nothing: see scorm.js.)
 * @returns {[string, string][]} elements to set, in order
 */
export function cmiValues(snapshot, status, mode = 'normal') {
  const values = [];
  if (snapshot.current) values.push(['cmi.core.lesson_location', snapshot.current]);
  values.push(['cmi.suspend_data', encodeSuspendData(snapshot)]);
  if (mode === 'browse') return values;
  const raw = scoreRaw(snapshot.score);
  if (raw !== null) values.push(['cmi.core.score.min', '0'], ['cmi.core.score.max', '100'], ['cmi.core.score.raw', String(raw)]);
  if (snapshot.total > 0 && snapshot.visited.length === snapshot.total && !FINAL_STATUSES.has(status)) values.push(['cmi.core.lesson_status', 'completed']);
  return values;
}
