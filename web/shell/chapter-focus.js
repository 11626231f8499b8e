// Where the reader arrives, the focus goes: a chapter reached by a link (the
// page opened on #ch-<id> or ?ch=<id>, or a chapter chosen in the reading
// bar) takes the focus on its section, which its heading labels, without
// scrolling. A screen reader then reads where the reader is, and the next Tab
// goes on from that chapter instead of from the skip link at the top.
//
// The section itself, not its heading: when the address has a fragment, the
// browser's own navigation to it focuses the target (the section) once it
// exists, or else takes the focus away from whatever script focused before.

/**
 * Focuses the chapter section `sectionId` (made focusable by script only:
 * tabindex -1).
 * @param {string} sectionId e.g. 'ch-projection'
 * @param {{ later?: boolean }} [o] later: after the current task (a link's own
 *   navigation would take the focus away again)
 */
export function focusChapter(sectionId, { later = false } = {}) {
  const section = document.getElementById(sectionId);
  if (!section) return;
  section.tabIndex = -1;
  const go = () => section.focus({ preventScroll: true });
  if (later) setTimeout(go);
  else go();
}
