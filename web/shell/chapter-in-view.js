// The chapter in view, one rule for the page's address (app.js), the reading
// bar (reading-bar.js) and the learner's progress (progress.js):
//
//   The chapter in view is the last chapter whose top is above the reading
//   line, a line 30% down the window; once the page is scrolled to its very
//   end, the line is the window's bottom edge.
//
// So above the first chapter (the top of the page, the concept check before
// it) no chapter is in view; between two chapters (the links under one) and
// after the last (the concept check after it) the chapter in view is the one
// above; and at the end of the page the last chapter on screen is in view,
// though the page cannot scroll far enough to bring it up to the line.

/** The reading line, as a fraction of the window's height from its top. */
export const READING_LINE = 0.3;

/** Whether the page is scrolled to its very end (within 2 px). */
export function atPageEnd(target = window) {
  const root = target.document.documentElement;
  return target.scrollY + target.innerHeight >= root.scrollHeight - 2;
}

/**
 * The chapter in view (the rule above).
 * @param {Element[]} sections each chapter's section, in the tour's order
 * @returns {number} its index in `sections`; -1 when none is (above the first chapter)
 */
export function chapterInView(sections, target = window) {
  const line = target.innerHeight * (atPageEnd(target) ? 1 : READING_LINE);
  let i = sections.length - 1;
  while (i >= 0 && sections[i].getBoundingClientRect().top >= line) i -= 1;
  return i;
}

/**
 * Follows the chapter in view: `update(index)` (chapterInView's) runs in the
 * frame after each scroll (once per frame), after the first layout, and when a
 * chapter crosses the reading line with no scroll (a chapter above it grows; an
 * IntersectionObserver reports that).
 * @param {Element[]} sections each chapter's section, in the tour's order
 * @param {(index: number) => void} update
 * @returns {() => void} stops following
 */
export function followChapterInView(sections, update, target = window) {
  let scheduled = false;
  const check = () => {
    if (scheduled) return;
    scheduled = true;
    target.requestAnimationFrame(() => {
      scheduled = false;
      update(chapterInView(sections, target));
    });
  };
  // The root is the document, so that the margins apply in a frame too.
  const band = `-${READING_LINE * 100}% 0px -${100 - READING_LINE * 100}% 0px`;
  const observer = new target.IntersectionObserver(check, { root: target.document, rootMargin: band });
  for (const s of sections) observer.observe(s);
  target.addEventListener('scroll', check, { passive: true });
  return () => {
    observer.disconnect();
    target.removeEventListener('scroll', check);
  };
}
