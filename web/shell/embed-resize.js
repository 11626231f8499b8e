// The one-widget page tells the page around its iframe how tall it is, so
// that the host can make the frame exactly that tall (no inner scrollbar).
// Whenever the document's height changes it posts two messages to
// window.parent:
//   { type: 'attention-geometry:resize', height, widget, chapter, id }
//   '{"subject":"lti.frameResize","height":...}'   (Canvas's own format, as a string)
// with targetOrigin '*': the page cannot know who embeds it, and a height is
// not a secret. It never listens to messages from the parent.

export const RESIZE_TYPE = 'attention-geometry:resize';

/** The document's height in whole CSS pixels (rounded up, so the content always fits). */
export function documentHeight() {
  return Math.ceil(document.documentElement.getBoundingClientRect().height);
}

/**
 * Starts reporting heights when the page is inside a frame.
 * @returns {() => void} stops reporting
 */
export function reportHeight({ widget, chapter, id }) {
  if (window.parent === window || typeof ResizeObserver === 'undefined') return () => {};
  let last = -1;
  const post = () => {
    const height = documentHeight();
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: RESIZE_TYPE, height, widget, chapter, id }, '*');
    window.parent.postMessage(JSON.stringify({ subject: 'lti.frameResize', height }), '*');
  };
  const observer = new ResizeObserver(post);
  observer.observe(document.documentElement);
  observer.observe(document.body);
  post();
  return () => observer.disconnect();
}
