// Whether a point lies in the convex hull of a set of 2-D points (the values
// of a convex combination): a drawing decision, yes or no, never a number
// shown. d3-polygon gives the hull; a hull of points all on one line is the
// segment between the two farthest of them.
import { polygonArea, polygonContains, polygonHull } from 'd3';

/** Is y in the convex hull of pts (within eps)? A drawing decision (yes or no), never a shown number. */
export function inHull(y, pts, eps = 1e-4) {
  const hull = polygonHull(pts);
  if (hull && Math.abs(polygonArea(hull)) > 1e-9) {
    if (polygonContains(hull, y)) return true;
    return hull.some((a, i) => distToSegment(y, a, hull[(i + 1) % hull.length]) <= eps);
  }
  // A degenerate hull (all values on one line): the segment between the two farthest values.
  let best = [pts[0], pts[0]];
  let far = -1;
  for (const a of pts)
    for (const b of pts) {
      const d = (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;
      if (d > far) [far, best] = [d, [a, b]];
    }
  return distToSegment(y, best[0], best[1]) <= eps;
}

/** The distance from p to the segment from a to b. */
function distToSegment(p, a, b) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}
