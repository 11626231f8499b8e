// The tour's parts and numbers, the same wherever a chapter is named: the
// contents, the chapter headings, the reading bar and the previous/next links.
// Chapters are numbered 1 to n through the whole tour (part 2 goes on from
// part 1, it does not start again at 1), and each part is shown with its name.

/** Part names: a record with `part: n` belongs to part n; records without `part` to part 1. */
export const PART_TITLES = {
  1: 'Part 1: the geometry of dot products',
  2: 'Part 2: mixing the values',
  3: 'Part 3: attention as today\u2019s models run it',
  4: 'Part 4: attention that learns',
};

export const partOf = (chapter) => chapter.part ?? 1;

export const partTitle = (part) => PART_TITLES[part] ?? `Part ${part}`;

/** The chapter at index `i` of the tour, as the page names it: "17. Values do the work". */
export const numbered = (chapter, i) => `${i + 1}. ${chapter.title}`;

/** The tour in parts, in order: [{ part, title, items: [{ chapter, index }] }]. */
export function partsOf(chapters) {
  const parts = [];
  chapters.forEach((chapter, index) => {
    const part = partOf(chapter);
    if (parts.at(-1)?.part !== part) parts.push({ part, title: partTitle(part), items: [] });
    parts.at(-1).items.push({ chapter, index });
  });
  return parts;
}
