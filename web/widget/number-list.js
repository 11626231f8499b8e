// A list of number slots in a line of text: the slots with a separator
// between them, as in "(0.1, 0.2, 0.7)" or "Row sums: 1, 1, 1".

/** The nodes `els` with `sep` between each two: [a, ', ', b, ', ', c], to put in a line or a paragraph. */
export const listed = (els, sep = ', ') => els.flatMap((el, i) => (i ? [sep, el] : [el]));
