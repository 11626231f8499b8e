// A figure (an <svg> with a viewBox, as wide as its box) that the browser
// lays out on its own. Every update moves something in a figure, and a
// change inside an <svg> otherwise makes the browser lay out every box
// around it again, up to the page, before the next paint. With its aspect
// ratio given and size and layout containment (class "own-layout" in
// styles/widget.css), the figure's size no longer depends on its content:
// the browser lays out the figure alone. The figure keeps the size it had:
// its width from the stylesheet, its height from the viewBox's ratio.
import { select } from 'd3';

/** Makes `svg` (a node or a d3 selection) a figure laid out on its own; call again after changing its viewBox. */
export function ownLayout(svg) {
  const node = svg.node?.() ?? svg;
  const box = node.viewBox?.baseVal;
  if (!box || !(box.width > 0) || !(box.height > 0)) return svg;
  const ratio = `${box.width} / ${box.height}`;
  if (node.style.aspectRatio !== ratio) node.style.aspectRatio = ratio;
  node.classList.add('own-layout');
  return svg;
}

/**
 * Appends to `parent` (a node or a d3 selection) an `<svg class role aria-label>` with the viewBox
 * `0 0 width height`, laid out on its own; returns it as a d3 selection.
 */
export function ownFigure(parent, { className, width, height, label, role = 'img' }) {
  const svg = (typeof parent.node === 'function' ? parent : select(parent))
    .append('svg')
    .attr('class', className)
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('role', role)
    .attr('aria-label', label);
  return ownLayout(svg);
}
