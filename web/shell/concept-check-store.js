// The concept check's answers kept on this browser (localStorage, under a key
// named like the page's other keys, `attention-geometry:<what>`), so that the
// pre-check answered before the tour is there for the post-check after it,
// across reloads and days. Only a phase the learner has handed in is kept:
//   {"v":1,"pre":{"answers":{"zero-score":"opposed",...},"at":"2026-…Z"},"post":…}
// Reading checks every entry against the question set (models/concept-check.js):
// unknown questions, choices that are not choices and malformed phases are
// left out. Storage that cannot be read or written (an opaque origin, a full
// or disabled store) gives no answers; the check then works for this visit only.
import { CHECK_VERSION, PHASES, questionOf } from '../models/concept-check.js';

export const CHECK_STORAGE_KEY = 'attention-geometry:concept-check';

/** The phases of a stored text: { pre: { answers, at } | null, post: … }; empty for text that is not ours. */
export function decodeCheck(text) {
  const none = { pre: null, post: null };
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return none;
  }
  if (!data || typeof data !== 'object' || data.v !== CHECK_VERSION) return none;
  const out = { ...none };
  for (const phase of PHASES) {
    const entry = data[phase];
    if (!entry || typeof entry !== 'object' || typeof entry.answers !== 'object' || !entry.answers) continue;
    const answers = {};
    for (const [id, choice] of Object.entries(entry.answers)) {
      if (questionOf(id)?.choices.some((c) => c.value === choice)) answers[id] = choice;
    }
    out[phase] = { answers, at: typeof entry.at === 'string' ? entry.at : null };
  }
  return out;
}

/** The text kept for the phases { pre, post } (each { answers, at } or null). */
export function encodeCheck(phases) {
  const data = { v: CHECK_VERSION };
  for (const phase of PHASES) if (phases[phase]) data[phase] = phases[phase];
  return JSON.stringify(data);
}

/** The stored phases, or none when storage cannot be read. */
export function readCheck(storage) {
  try {
    const text = (storage ?? globalThis.localStorage)?.getItem(CHECK_STORAGE_KEY);
    return text ? decodeCheck(text) : decodeCheck('');
  } catch {
    return decodeCheck('');
  }
}

/** Keeps the phases; returns false when storage cannot be written. Both phases null: the key is removed. */
export function writeCheck(phases, storage) {
  try {
    const store = storage ?? globalThis.localStorage;
    if (!phases.pre && !phases.post) store.removeItem(CHECK_STORAGE_KEY);
    else store.setItem(CHECK_STORAGE_KEY, encodeCheck(phases));
    return true;
  } catch {
    return false;
  }
}
