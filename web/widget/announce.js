// Announcements for screen readers: a polite live region (aria-live) that
// reads a changed value once the learner has made a change, by keyboard or
// at the end of a drag. Each widget has one region (made by liveRegion() in
// base.js); code inside the widget reaches it from any of its nodes with
// announceFrom(node, text), so the drag helpers need no reference to the
// widget. Text only: the region's content is set with textContent.

/** A visually hidden polite live region, marked with data-live. */
export function liveRegion() {
  const p = document.createElement('p');
  p.className = 'visually-hidden';
  p.setAttribute('aria-live', 'polite');
  p.dataset.live = '';
  return p;
}

/**
 * Puts `text` in `region`. The same text twice in a row is still a change
 * (a no-break space is added or dropped), so that it is read again: pressing
 * an arrow key at the edge of the plane repeats the value.
 */
export function announceIn(region, text) {
  const plain = String(text);
  region.textContent = region.textContent === plain ? `${plain}\u00a0` : plain;
}

const regions = new WeakMap(); // root -> its live region, found once (a drag announces often)

/**
 * Announces `text` in the live region of the widget (shadow root or
 * document) that holds `node`. Without one (a plot used on its own), a
 * region is added after the node's nearest <svg>, or to the root.
 */
export function announceFrom(node, text) {
  const root = node.getRootNode();
  let region = regions.get(root);
  if (!region?.isConnected || region.getRootNode() !== root) region = root.querySelector?.('[data-live]');
  if (!region) {
    region = liveRegion();
    const svg = node.closest?.('svg') ?? null;
    if (svg?.parentNode) svg.after(region);
    else (root.body ?? root).append(region);
  }
  regions.set(root, region);
  announceIn(region, text);
  return region;
}
