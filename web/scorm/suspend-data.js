// What the course keeps in cmi.suspend_data to resume an attempt: the
// chapters gone through, the chapters whose widget was used, and the first
// answer of each prediction, as compact JSON with a version:
// {"v":1,"seen":["atom",...],"u":["atom"],"p":{"atom":["yes",1]}}. Records
// written before "u" existed read as no chapter used. A one-chapter package
// keys "p" by prediction id and adds its widget's state text:
// {"v":1,"seen":["length"],"u":["length"],"p":{"triple-length":["3",1]},"s":"v=1&t=2"}.
// SCORM 1.2 allows 4096 characters; should the record grow past that, the
// state is dropped first, then the chosen answers (only right/wrong is kept).

export const SUSPEND_DATA_VERSION = 1;
export const MAX_SUSPEND_DATA = 4096;

/**
 * @param {{ visited: string[], used?: string[], predictions: Object<string, { choice: string, correct: boolean }>,
 *   state?: string }} progress `state`: a widget's state text (a one-chapter package)
 */
export function encodeSuspendData({ visited, used = [], predictions, state }) {
  const entries = Object.entries(predictions);
  const record = (choices, withState) =>
    JSON.stringify({
      v: SUSPEND_DATA_VERSION,
      seen: visited,
      u: used,
      p: Object.fromEntries(entries.map(([id, a]) => [id, [choices ? a.choice : '', a.correct ? 1 : 0]])),
      ...(withState && typeof state === 'string' ? { s: state } : {}),
    });
  // In order: everything; without the state; without the chosen answers.
  const tries = [record(true, true), record(true, false), record(false, false)];
  const fits = tries.find((text) => text.length <= MAX_SUSPEND_DATA);
  if (fits) return fits;
  throw new Error(`the progress record needs ${tries[2].length} characters; SCORM 1.2 keeps ${MAX_SUSPEND_DATA}`);
}

/**
 * Reads suspend data back: { visited, used, predictions } (and `state` when the record has one) in the shape the
 * page's progress restore() takes, or { problem } when the text is not ours. Empty text (a first launch) gives
 * empty progress.
 */
export function decodeSuspendData(text) {
  if (!text) return { visited: [], used: [], predictions: {} };
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return { problem: 'the saved progress is not readable' };
  }
  if (!data || typeof data !== 'object' || data.v !== SUSPEND_DATA_VERSION)
    return { problem: `the saved progress has an unknown version (${String(data?.v)})` };
  const ids = (list) => (Array.isArray(list) ? list.filter((id) => typeof id === 'string') : []);
  const visited = ids(data.seen);
  const used = ids(data.u);
  const predictions = {};
  for (const [id, answer] of Object.entries(data.p && typeof data.p === 'object' ? data.p : {})) {
    if (Array.isArray(answer) && typeof answer[0] === 'string' && (answer[1] === 0 || answer[1] === 1)) {
      predictions[id] = { choice: answer[0], correct: answer[1] === 1 };
    }
  }
  return { visited, used, predictions, ...(typeof data.s === 'string' ? { state: data.s } : {}) };
}
