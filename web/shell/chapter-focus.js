// Where the reader arrives, the focus goes: a chapter reached by a link (the
// page opened on #ch-<id> or ?ch=<id>, or a chapter chosen in the reading
// bar or in the contents at the top) takes the focus on its section, which its heading labels, without
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

/**
 * The chapter links of a contents list (contentsLists in chapters-view.js: `li[data-chapter] > a`), the
 * table at the top and the reading bar's alike: a link followed focuses its chapter (focusChapter,
 * after the link's own navigation); followed with Enter (a click with no pointer: detail 0), by key.
 * @param {HTMLElement} list the element holding the links
 * @param {(link: HTMLAnchorElement) => void} [before] runs first (the bar closes its contents)
 */
export function focusChapterOnFollow(list, before = () => {}) {
  list.addEventListener('click', (event) => {
    const link = event.target.closest('li[data-chapter] > a');
    if (!link || !list.contains(link)) return;
    before(link);
    focusChapter(link.hash.slice(1), { later: true, byKey: event.detail === 0 });
  });
}
