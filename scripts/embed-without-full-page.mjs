// embed.html for a folder that holds no full page (index.html) beside it: the
// npm package's dist/widgets/ and a one-chapter SCORM package. The page says so
// with a meta, which makes embed.js hide its "Open the full page" link; with no
// script run, the link is hidden and the note shown when embed.js did not load
// names no full page either.

/** With it, embed.js hides embed.html's "Open the full page" link. */
export const FULL_PAGE_OFF_META = '<meta name="attention-geometry-full-page" content="off">';

/**
 * `html` (embed.html, or a page made from it) without its full page: the meta inserted before </head> on a
 * line of its own, the link hidden and the words "or open the full page" taken out of the note for an
 * embed.js that did not load. An Error naming the page (`name`) when one of those is not there exactly once.
 */
export function withoutFullPage(html, name) {
  const edits = [
    ['</head>', `  ${FULL_PAGE_OFF_META}\n</head>`],
    ['<span class="embed-missing-open">, or open the full page</span>', ''],
    ['<p class="embed-open">', '<p class="embed-open" hidden>'],
  ];
  return edits.reduce((text, [from, to]) => {
    if (text.split(from).length !== 2) throw new Error(`${name}: expected exactly one ${from}`);
    return text.replace(from, to);
  }, html);
}
