// Labels of a figure that overlap are pulled apart: each label, in document
// order, keeps its place if it clears the ones before it, and otherwise takes
// the nearest place up or down (then sideways) that clears them all. Labels
// are placed by their figure first (beside the tips of their arrows); this
// only settles collisions, so that "a − b" does not sit on "a", nor "q₂ cat"
// on "k₅ fish".

/** Space kept between two labels, in SVG user units (px at the viewBox scale). */
const GAP = 2;
/** Candidate moves (px), nearest first: up and down, then sideways as well. */
const STEP = 3;
const REACH = 14;
const MOVES = [[0, 0]];
for (let k = 1; k <= REACH; k += 1) MOVES.push([0, -k * STEP], [0, k * STEP]);
for (let k = 1; k <= REACH; k += 1) {
  for (const dy of [0, -REACH * STEP, REACH * STEP]) MOVES.push([k * STEP, dy], [-k * STEP, dy]);
}

function clears(box, [dx, dy], placed) {
  const x = box.x + dx;
  const y = box.y + dy;
  return placed.every(
    (b) =>
      x >= b.x + b.width + GAP ||
      b.x >= x + box.width + GAP ||
      y >= b.y + b.height + GAP ||
      b.y >= y + box.height + GAP,
  );
}

/**
 * Moves the visible `<text>` children of `layer` (an SVG group) so that no
 * two overlap, nor cover a box of `keepClear` (in the layer's units), where a
 * move of at most REACH·STEP px can part them; returns how many labels it
 * moved. Hidden or empty labels are left as they are.
 * @param {SVGGElement} layer
 * @param {{ x: number, y: number, width: number, height: number }[]} [keepClear]
 */
export function separateLabels(layer, keepClear = []) {
  const labels = [...layer.querySelectorAll(':scope > text')].filter(
    (t) => t.getAttribute('visibility') !== 'hidden' && t.style.display !== 'none' && t.textContent.trim() !== '',
  );
  const placed = [...keepClear];
  let moved = 0;
  for (const label of labels) {
    const box = label.getBBox();
    if (box.width === 0) continue; // not laid out (a hidden figure): nothing to part
    const move = MOVES.find((m) => clears(box, m, placed)) ?? [0, 0];
    if (move[0] !== 0 || move[1] !== 0) {
      label.setAttribute('x', Number(label.getAttribute('x') ?? 0) + move[0]);
      label.setAttribute('y', Number(label.getAttribute('y') ?? 0) + move[1]);
      moved += 1;
    }
    placed.push({ x: box.x + move[0], y: box.y + move[1], width: box.width, height: box.height });
  }
  return moved;
}
