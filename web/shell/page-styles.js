// A stylesheet of a site page that did not load (style.css of index.html, styles/embed.css of embed.html, or any
// other <link rel="stylesheet"> of the page): the page works, unstyled, and says why at its top, as a widget's
// frame does for its own sheets (widget/load-failure.js): the sheet's URL, the HTTP status when a fetch of it
// tells, and where the site's files must be. The message is an .error of styles/base.css, readable without the
// page's own sheet (and plain text when base.css is the sheet that failed). A sheet of the widgets' frames that
// fails (the same in every widget) is named in that one message too, and each widget only points to it.
//
// The page's Content-Security-Policy allows no inline handler, and a link's `error` event may fire before this
// module runs: a module runs once the stylesheets of the page's <head> have loaded or failed, and one that failed
// then has no sheet, or an empty one (Chromium's). Such a link is named when a fetch of its URL tells why it did
// not load (an empty sheet of the server's is no failure). A link that fails later is told by its `error`.
import { describeStyleFailure, failureText, STYLE_FAILURE_EVENT, whyUnreachable } from '../widget/load-failure.js';
import { h } from '../widget/dom.js';

/** Whether `link` has no sheet or an empty one, as one that did not load. */
function noRules(link) {
  try {
    return !link.sheet || link.sheet.cssRules.length === 0;
  } catch {
    return false; // another origin's sheet, which did load: its rules are not readable here
  }
}

/**
 * Watches the stylesheet links of `doc` (call it as the page's module starts), and those of its widgets' frames
 * (each widget reports its own, load-failure.js STYLE_FAILURE_EVENT, and then only points to this message): each
 * that did not load, or fails later, is named once, in the order they failed, in one message at the top of the body (an element .error with
 * role alert and data-failure="page-styles", added on the first failure). Throws nothing.
 * @param {Document} [doc]
 */
export function watchPageStyles(doc = document) {
  const failed = [];
  const whose = new Set(); // 'page' (its own links), 'figures' (the widgets' sheets): what the message speaks of
  const message = h('div', { class: 'error', role: 'alert', dataset: { failure: 'page-styles' } });
  const fail = async (url, of) => {
    const told = whose.size;
    whose.add(of);
    if (failed.includes(url) && whose.size === told) return;
    if (!failed.includes(url)) failed.push(url);
    const urls = [...failed];
    const size = whose.size;
    const [what, shown] = !whose.has('figures')
      ? ['this page', 'it is']
      : whose.has('page')
        ? ['this page and its figures', 'they are']
        : ['the figures on this page', 'they are'];
    const failure = await describeStyleFailure(urls, what, shown);
    if (urls.length !== failed.length || size !== whose.size) return; // a later failure writes it, with this one
    message.replaceChildren(...failureText(failure));
    if (!message.isConnected) doc.body.prepend(message);
  };
  // A widget's sheet that did not load (widget/base.js) is told here too, once for every widget it fails in.
  doc.addEventListener(STYLE_FAILURE_EVENT, (event) => {
    event.preventDefault();
    fail(event.detail.url, 'figures');
  });
  for (const link of doc.querySelectorAll('link[rel~="stylesheet"]')) {
    link.addEventListener('error', () => fail(link.href, 'page'));
    if (noRules(link)) whyUnreachable(link.href).then((why) => why && fail(link.href, 'page'));
  }
}
