// A callback for the moment right after the browser's next layout, before it
// paints: where sizes and positions can be read at no cost of their own. Read
// in a microtask or an animation frame instead, each read lays out whatever
// changed since; as the page opens, with dozens of widgets building at once,
// that is the whole page, again for each widget.
//
// The moment is a ResizeObserver's callback: an element observed anew gets one
// after the next layout, if it is rendered. One that is not (display: none,
// no size) may get none: the function then runs in the second animation frame
// from now, as late as the first frame's layout and paint.

/**
 * Runs `fn` once, after the next layout of the page, before the next paint.
 * @param {Element} element an element whose box the layout gives a size (the
 *   widget's frame, a figure's svg)
 * @param {() => void} fn
 */
export function afterLayout(element, fn) {
  if (typeof ResizeObserver === 'undefined') {
    requestAnimationFrame(fn);
    return;
  }
  let done = false;
  const observer = new ResizeObserver(() => run());
  const run = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    fn();
  };
  observer.observe(element);
  requestAnimationFrame(() => requestAnimationFrame(run));
}
