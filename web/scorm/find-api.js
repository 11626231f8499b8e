// The SCORM 1.2 API search: the LMS puts an object named `API` in a window
// that holds the content (a parent frame, or the window that opened a
// pop-up). The content looks up the chain of parents a bounded number of
// steps (the ADL sample's limit of 7), then from window.opener and its
// parents. A window of another origin cannot be read: it is skipped quietly.

/** How many parent steps the search takes at most from its start. */
export const MAX_DEPTH = 7;

function readApi(win) {
  try {
    const api = win.API;
    return api && typeof api.LMSInitialize === 'function' ? api : null;
  } catch {
    return null; // another origin
  }
}

function parentOf(win) {
  try {
    const parent = win.parent;
    return parent && parent !== win ? parent : null;
  } catch {
    return null;
  }
}

function searchUp(start) {
  let win = start;
  for (let depth = 0; win && depth <= MAX_DEPTH; depth++) {
    const api = readApi(win);
    if (api) return api;
    win = parentOf(win);
  }
  return null;
}

/** The LMS's SCORM 1.2 API object seen from `start`, or null when there is none. */
export function findApi(start = window) {
  const found = searchUp(start);
  if (found) return found;
  let opener;
  try {
    opener = start.opener;
  } catch {
    opener = null;
  }
  return opener ? searchUp(opener) : null;
}
