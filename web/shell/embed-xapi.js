// The one-widget page passes each xAPI statement of its widget (the
// `ag-xapi` event fired for every answer of a prediction, widget/xapi.js) to
// the page around its iframe, one message per answer:
//   { type: 'attention-geometry:xapi', statement, widget, chapter, id }
// with the fields of the height message (embed-resize.js): `widget` the tag
// shown, `chapter` the chapter id given with ch= (else null), `id` the id=
// parameter (else null). Target origin '*', as for the height: the page
// cannot know who embeds it, and a statement names no learner.
import { XAPI_EVENT, XAPI_MESSAGE_TYPE } from '../widget/xapi.js';

/**
 * Starts passing the statements fired inside `root` to window.parent when the page is inside a frame.
 * @returns {() => void} stops passing them
 */
export function reportStatements(root, { widget, chapter, id }) {
  if (window.parent === window) return () => {};
  const post = (event) => {
    const statement = event.detail?.statement;
    if (!statement) return;
    window.parent.postMessage({ type: XAPI_MESSAGE_TYPE, statement, widget, chapter, id }, '*');
  };
  root.addEventListener(XAPI_EVENT, post);
  return () => root.removeEventListener(XAPI_EVENT, post);
}
