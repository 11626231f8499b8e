// The embedding guide on the site: EMBEDDING.md rendered by marked into
// build/site/embedding.html, so that the Embed control can link to the guide
// where the widgets are published rather than to a file of the repository.
// Links to other files of the repository (not on the site) become plain text;
// the page loads no script and keeps the site's strict Content-Security-Policy.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Marked } from 'marked';

export const GUIDE_PAGE = 'embedding.html';

/** Whether `href` stays valid on the site: absolute web or mail addresses, and anchors of the page itself. */
const keepsLink = (href) => /^(https?:|mailto:|#)/.test(href);

/** The guide's HTML page for the Markdown text `markdown`. */
export function guideHtml(markdown) {
  const marked = new Marked({
    gfm: true,
    walkTokens(token) {
      if (token.type === 'link' && !keepsLink(token.href)) {
        token.type = 'text';
        token.raw = token.text;
        delete token.tokens;
      }
    },
  });
  const body = marked.parse(markdown);
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? 'Embedding';
  const csp =
    "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'";
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n' +
    '  <meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    `  <meta http-equiv="Content-Security-Policy" content="${csp}">\n` +
    '  <meta name="color-scheme" content="light dark">\n' +
    `  <title>${title.replace(/</g, '&lt;')} \u2014 Attention Geometry</title>\n` +
    '  <link rel="stylesheet" href="styles/base.css">\n  <link rel="stylesheet" href="style.css">\n  <link rel="stylesheet" href="guide.css">\n</head>\n<body>\n' +
    '<main class="guide">\n<p><a href="index.html">\u2190 Attention Geometry</a></p>\n' +
    `${body}</main>\n</body>\n</html>\n`
  );
}

/** Writes build/site/embedding.html from EMBEDDING.md at `root`. */
export function writeGuide(root, site) {
  writeFileSync(join(site, GUIDE_PAGE), guideHtml(readFileSync(join(root, 'EMBEDDING.md'), 'utf8')));
}
