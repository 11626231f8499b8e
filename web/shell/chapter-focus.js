// Where the reader arrives, the focus goes: a chapter reached by a link (the
// page opened on #ch-<id> or ?ch=<id>, or a chapter chosen in the reading
// bar) takes the focus on its section, which its heading labels, without
// scrolling. A screen reader then reads where the reader is, and the next Tab
// goes on from that chapter instead of from the skip link at the top.
//
// The section itself, not its heading: when the address has a fragment, the
// browser's own navigation to it focuses the target (the section) once it
// exists, or else takes the focus away from whatever script focused before.
//
// The section is no control: it shows the focus ring only when a key brought
// the focus there (style.css, [data-key-focus]), not when the page opened on
// it; the browser's :focus-visible alone counts a script's focus at load as
// the keyboard's.

/**
 * Focuses the chapter section `sectionId` (made focusable by script only:
 * tabindex -1).
 * @param {string} sectionId e.g. 'ch-projection'
 * @param {{ later?: boolean, byKey?: boolean }} [o] later: after the current task (a link's own
 *   navigation would take the focus away again); byKey: a key brought the reader here (the section
 *   gets data-key-focus until it loses the focus)
 */
export function focusChapter(sectionId, { later = false, byKey = false } = {}) {
  const section = document.getElementById(sectionId);
  if (!section) return;
  section.tabIndex = -1;
  const go = () => {
    section.toggleAttribute('data-key-focus', byKey);
    if (byKey) section.addEventListener('blur', () => section.removeAttribute('data-key-focus'), { once: true });
    section.focus({ preventScroll: true });
  };
  if (later) setTimeout(go);
  else go();
}
