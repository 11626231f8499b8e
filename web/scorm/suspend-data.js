// What the course keeps in cmi.suspend_data to resume an attempt: the
// chapters gone through, the chapters whose widget was used, and the first
// answer of each prediction, as compact JSON with a version:
// {"v":1,"seen":["atom",...],"u":["atom"],"p":{"atom":["yes",1]}}. Records
// written before "u" existed read as no chapter used.
// SCORM 1.2 allows 4096 characters; should the record grow past that, the
// chosen answers are dropped and only right/wrong is kept.

export const SUSPEND_DATA_VERSION = 1;
export const MAX_SUSPEND_DATA = 4096;

/** @param {{ visited: string[], used?: string[], predictions: Object<string, { choice: string, correct: boolean }> }} progress */
export function encodeSuspendData({ visited, used = [], predictions }) {
  const entries = Object.entries(predictions);
  const full = JSON.stringify({
    v: SUSPEND_DATA_VERSION,
    seen: visited,
    u: used,
    p: Object.fromEntries(entries.map(([id, a]) => [id, [a.choice, a.correct ? 1 : 0]])),
  });
  if (full.length <= MAX_SUSPEND_DATA) return full;
  const short = JSON.stringify({
    v: SUSPEND_DATA_VERSION,
    seen: visited,
    u: used,
    p: Object.fromEntries(entries.map(([id, a]) => [id, ['', a.correct ? 1 : 0]])),
  });
  if (short.length <= MAX_SUSPEND_DATA) return short;
  throw new Error(`the progress record needs ${short.length} characters; SCORM 1.2 keeps ${MAX_SUSPEND_DATA}`);
}

/**
 * Reads suspend data back: { visited, used, predictions } in the shape the page's
 * progress restore() takes, or { problem } when the text is not ours.
 * Empty text (a first launch) gives empty progress.
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
  return { visited, used, predictions };
}
