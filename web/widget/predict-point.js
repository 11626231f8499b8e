// A point as the answer to a prediction (widget/predict.js): the learner puts
// a marker on the chapter's figure where they expect the output (drag it,
// click the figure, or focus it and move it with the arrow keys), then commits
// it (Enter on the marker, or the Commit button). The reveal computes the true
// point; the block draws it beside the learner's, with the line between them,
// and gives their distance (a wasm result); the answer is right within the
// radius the chapter states. A wrong point in one of the chapter's regions
// ({ where(point) => boolean, text }) names the misconception of that region.
import { pointer, select } from 'd3';
import { h, setText } from './dom.js';
import { fmt, formatNumber, pair } from './format.js';
import { draggablePoint } from './plot.js';

/** "x,y": a point as a response (xAPI, SCORM), in the figure's units, to 4 decimals at most. */
export const pointText = ([x, y]) => `${Number(x.toFixed(4))},${Number(y.toFixed(4))}`;

/** The point of a response "x,y", or null when it is not one. */
export function readPoint(text) {
  const parts = String(text).split(',').map(Number);
  return parts.length === 2 && parts.every(Number.isFinite) ? parts : null;
}

/**
 * Checks the `point` option of a prediction: { plane (the figure's plane, widget/plot.js), name (what the point
 * is, e.g. "y"), radius (> 0, figure units), start ([x, y], where the marker waits) }.
 * @throws {TypeError} naming the field and what was expected
 */
export function checkPointSpec(spec) {
  const bad = (what, expected) => {
    throw new TypeError(`predict point.${what}: expected ${expected}`);
  };
  if (!spec || typeof spec !== 'object') throw new TypeError('predict point: expected { plane, name, radius, start }');
  if (!spec.plane?.svg || typeof spec.plane.x !== 'function') bad('plane', 'the plane of the figure (widget/plot.js)');
  if (typeof spec.name !== 'string' || !spec.name) bad('name', 'the name of the point, such as "y"');
  if (!(spec.radius > 0)) bad('radius', 'a distance > 0 in the figure\u2019s units');
  if (!(Array.isArray(spec.start) && spec.start.length === 2 && spec.start.every(Number.isFinite)))
    bad('start', 'a point [x, y]');
  return spec;
}

/**
 * Checks the misconceptions of a point prediction: [{ where: (point) => boolean, text }].
 * @throws {TypeError} naming the entry and what was expected
 */
export function checkRegions(regions) {
  if (regions === undefined) return [];
  if (!Array.isArray(regions)) throw new TypeError('predict misconceptions: expected [{ where, text }]');
  regions.forEach((r, i) => {
    if (typeof r?.where !== 'function' || typeof r.text !== 'string' || !r.text.trim())
      throw new TypeError(`predict misconceptions[${i}]: expected { where: (point) => boolean, text }`);
  });
  return regions;
}

/**
 * The marker on the figure and the block's line "Your y: (x, y)" with its Commit button. `commit(point, text)`
 * is called with the marker's point; `distance(a, b)` measures (with the wasm module) how far it is from the
 * true point; `block` is the predict block (the markers are hidden while it is).
 * @returns {{ element, focusTarget, disable(on), reset(), judge(point, outcome), answerText(outcome), mark(outcome) }}
 */
export function pointAnswer({ spec, regions, commit, distance, block }) {
  const { plane: p, name, radius, start } = spec;
  let guess = start.slice();
  let open = true;
  const layer = p.layer('predict');
  layer.attr('class', 'layer-predict predict-markers');
  const gap = layer.append('line').attr('class', 'predict-gap').attr('aria-hidden', 'true');
  const truth = layer.append('g').attr('class', 'predict-truth').attr('aria-hidden', 'true');
  truth.append('circle').attr('r', 9);
  truth.append('path').attr('d', 'M-6,-6 L6,6 M-6,6 L6,-6');
  const at = h('span', { class: 'predict-at' });
  const submit = h('button', { type: 'button', class: 'predict-commit' }, 'Commit');
  const describe = (pt) => `your ${name}: ${pair(pt)}`;
  const marker = draggablePoint({
    plane: p,
    layer,
    name: `your ${name}`,
    className: 'handle-guess',
    get: () => guess,
    set: (pt) => {
      if (!open) return;
      guess = pt;
      marker.update();
      setText(at, pair(guess));
    },
    describe,
    announce: (pt) => `${describe(pt)}; Enter commits it`,
  });
  const node = select(marker.node).attr('aria-label', `your ${name}: move it with the arrow keys, Enter commits it`);
  marker.node.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !open) return;
    event.preventDefault();
    commit(guess.slice(), pointText(guess));
  });
  submit.addEventListener('click', () => commit(guess.slice(), pointText(guess)));
  // A click on the figure (not on one of its handles) puts the marker there.
  p.svg.on('click.predict', (event) => {
    if (!open || block.hidden || event.target.closest?.('.handle')) return;
    const [px, py] = pointer(event, p.svg.node());
    const clamp = (v) => Math.max(-p.extent, Math.min(p.extent, Math.round(v / 0.25) * 0.25));
    guess = [clamp(p.x.invert(px)), clamp(p.y.invert(py))];
    marker.update();
    setText(at, pair(guess));
  });
  const showTruth = (pt, guessed = false) => {
    truth.attr('transform', pt ? `translate(${p.x(pt[0])},${p.y(pt[1])})` : null).classed('is-shown', !!pt);
    gap.classed('is-shown', !!pt && guessed);
    if (pt) gap.attr('x1', p.x(guess[0])).attr('y1', p.y(guess[1])).attr('x2', p.x(pt[0])).attr('y2', p.y(pt[1]));
  };
  // The markers are the block's: hidden with it (a prediction the embed does not ask).
  const sync = () => layer.attr('visibility', block.hidden ? 'hidden' : null);
  new MutationObserver(sync).observe(block, { attributes: true, attributeFilter: ['hidden'] });
  sync();
  setText(at, pair(guess));
  const element = h('p', { class: 'predict-answer' }, `Your ${name}: `, at, ' ', submit);
  return {
    element,
    focusTarget: marker.node,
    disable(on) {
      open = !on;
      submit.disabled = on;
      // A committed marker is no control until "Ask me again": out of the tab order and hidden from assistive
      // technology (the result line says where it is).
      node
        .classed('is-committed', on)
        .attr('tabindex', on ? -1 : 0)
        .attr('aria-hidden', on ? 'true' : null);
    },
    reset() {
      guess = start.slice();
      marker.update();
      setText(at, pair(guess));
      showTruth(null);
    },
    /** Right within `radius` of the true point `outcome.value`; the region's misconception when wrong. */
    async judge(point, outcome) {
      const d = await distance(point, outcome.value);
      const correct = d <= radius;
      const region = correct ? null : regions.find((r) => r.where(point));
      return {
        correct,
        answer: pointText(outcome.value),
        said: `You put ${name} at ${pair(point)}, ${fmt(d)} from where it is; a point counts as right within ${formatNumber(radius)} of it. `,
        misconception: region?.text ?? null,
      };
    },
    answerText: (outcome) => `${name} = ${pair(outcome.value)}`,
    /** Draws the true point, and the line to the learner's when `guessed`. */
    mark: (outcome, guessed) => showTruth(outcome.value, guessed),
  };
}
