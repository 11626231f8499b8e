// Labels of a figure that overlap are pulled apart: each label, in document
// order, keeps its place if it clears the ones before it (and the boxes it
// must keep clear: handles, axis tick numbers), and otherwise takes the
// nearest place that clears them all and stays inside the figure. A label
// that carries its arrow's direction (data-along, set where its figure
// places it beyond an arrow's tip) moves first further along it, then
// across it (back onto the shaft last); other labels up or down, then
// sideways. Labels
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

/**
 * The moves of a label that points along the unit direction `along` (px, y down): further along that direction
 * (beyond its arrow's tip), nearest first; then across it either way; then MOVES.
 */
function movesAlong([ax, ay]) {
  const out = [];
  const across = [];
  for (let k = 1; k <= REACH; k += 1) {
    const d = k * STEP;
    out.push([d * ax, d * ay]);
    across.push([-d * ay, d * ax], [d * ay, -d * ax]);
  }
  return [[0, 0], ...out, ...across, ...MOVES.slice(1)];
}

function clears(box, [dx, dy], placed, bounds) {
  const x = box.x + dx;
  const y = box.y + dy;
  if (
    bounds &&
    (x < bounds.x ||
      y < bounds.y ||
      x + box.width > bounds.x + bounds.width ||
      y + box.height > bounds.y + bounds.height)
  )
    return false;
  return placed.every(
    (b) =>
      x >= b.x + b.width + GAP ||
      b.x >= x + box.width + GAP ||
      y >= b.y + b.height + GAP ||
      b.y >= y + box.height + GAP,
  );
}

/** The label's direction (data-along="x,y", a unit vector in px), or null. */
function alongOf(label) {
  const n = label.dataset.along?.split(',').map(Number);
  return n && n.length === 2 && n.every(Number.isFinite) ? n : null;
}

/**
 * Moves the visible `<text>` children of `layer` (an SVG group) so that no
 * two overlap, nor cover a box of `keepClear` (in the layer's units), nor
 * leave `bounds` (a box in the layer's units, if given), where a move of at
 * most REACH·STEP px can part them; returns how many labels it moved. Hidden
 * or empty labels are left as they are.
 * @param {SVGGElement} layer
 * @param {{ x: number, y: number, width: number, height: number }[]} [keepClear]
 * @param {{ x: number, y: number, width: number, height: number }} [bounds]
 */
export function separateLabels(layer, keepClear = [], bounds = null) {
  const labels = [...layer.querySelectorAll(':scope > text')].filter(
    (t) => t.getAttribute('visibility') !== 'hidden' && t.style.display !== 'none' && t.textContent.trim() !== '',
  );
  const placed = [...keepClear];
  let moved = 0;
  for (const label of labels) {
    const box = label.getBBox();
    if (box.width === 0) continue; // not laid out (a hidden figure): nothing to part
    const along = alongOf(label);
    const moves = along ? movesAlong(along) : MOVES;
    // Inside the bounds if it can be; a label that starts outside them may still move to clear the others.
    const move = moves.find((m) => clears(box, m, placed, bounds)) ??
      moves.find((m) => clears(box, m, placed)) ?? [0, 0];
    if (move[0] !== 0 || move[1] !== 0) {
      label.setAttribute('x', Number(label.getAttribute('x') ?? 0) + move[0]);
      label.setAttribute('y', Number(label.getAttribute('y') ?? 0) + move[1]);
      moved += 1;
    }
    placed.push({ x: box.x + move[0], y: box.y + move[1], width: box.width, height: box.height });
  }
  return moved;
}

/**
 * The boxes of the `<text>` elements under `root` (e.g. an axis's tick numbers), in the units of `layer`
 * (both in the same SVG), for separateLabels' keepClear. Texts not laid out are left out.
 */
export function textBoxes(root, layer) {
  const toLayer = layer.getScreenCTM()?.inverse();
  if (!toLayer) return [];
  return [...root.querySelectorAll('text')].flatMap((t) => {
    const b = t.getBBox();
    const m = t.getScreenCTM();
    if (!m || b.width === 0) return [];
    const to = toLayer.multiply(m);
    const xs = [b.x, b.x + b.width].flatMap((x) =>
      [b.y, b.y + b.height].map((y) => new DOMPoint(x, y).matrixTransform(to)),
    );
    const [x0, x1] = [Math.min(...xs.map((p) => p.x)), Math.max(...xs.map((p) => p.x))];
    const [y0, y1] = [Math.min(...xs.map((p) => p.y)), Math.max(...xs.map((p) => p.y))];
    return [{ x: x0, y: y0, width: x1 - x0, height: y1 - y0 }];
  });
}
