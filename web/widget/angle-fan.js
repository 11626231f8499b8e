// A query and the keys it sees as a fan (an `svg.mini.qk-fan`): q along the axis, each key at its angle from q
// (0 to 180°, on a half circle), lengths to scale (the longest of them reaches the arc), so that the score q·k is
// |q| times how far right the tip of k lies. One key is marked (`fan-prev`; the others `fan-key`, q `fan-q`), and
// two names are written: q's under the axis at its tip, the marked key's beyond its tip (above the axis, so they
// never meet). Drawing only: the angles and lengths are the chapter's results (ag.angle, ag.norm).
import { ownFigure } from './figure-layout.js';

const FAN = { width: 300, height: 178, cx: 150, cy: 150, r: 118 };
const at = (theta, r = FAN.r) => [FAN.cx + r * Math.cos(theta), FAN.cy - r * Math.sin(theta)];

/**
 * @param {HTMLElement} box where the figure goes
 * @param {string} label the figure's aria-label
 * @returns {{ svg: d3.Selection, draw(o: { angles: number[], lengths: number[], marked: number, names: string[] }): void }}
 *   draw: `angles` (radians) of the keys from q, `lengths` |q| then each |k_j|, `marked` the index of the marked
 *   key, `names` [q's, the marked key's]
 */
export function angleFan(box, label) {
  const svg = ownFigure(box, { className: 'mini qk-fan', width: FAN.width, height: FAN.height, label });
  svg
    .append('path')
    .attr('class', 'fan-arc')
    .attr('d', `M${at(0).join(',')} A${FAN.r},${FAN.r} 0 0 0 ${at(Math.PI).join(',')}`);
  const keys = svg.append('g').attr('class', 'fan-keys');
  const labels = svg.append('g').attr('class', 'layer-labels');
  function draw({ angles, lengths, marked, names }) {
    const longest = Math.max(...lengths);
    const r = (len) => (FAN.r * len) / longest;
    const rays = [
      { cls: 'fan-q', theta: 0, r: r(lengths[0]) },
      ...angles.map((theta, j) => ({ cls: j === marked ? 'fan-prev' : 'fan-key', theta, r: r(lengths[j + 1]) })),
    ];
    const tip = (d) => at(d.theta, d.r);
    keys
      .selectAll('line')
      .data(rays)
      .join('line')
      .attr('class', (d) => d.cls)
      .attr('x1', FAN.cx)
      .attr('y1', FAN.cy)
      .attr('x2', (d) => tip(d)[0])
      .attr('y2', (d) => tip(d)[1]);
    keys
      .selectAll('circle')
      .data(rays)
      .join('circle')
      .attr('class', (d) => d.cls)
      .attr('r', 3.5)
      .attr('cx', (d) => tip(d)[0])
      .attr('cy', (d) => tip(d)[1]);
    const key = rays[marked + 1];
    const [px, py] = at(key.theta, key.r + 12);
    const side = key.theta < 1.2 ? 'start' : key.theta > 1.9 ? 'end' : 'middle';
    const texts = [
      { text: names[0], x: tip(rays[0])[0], y: FAN.cy + 18, anchor: 'middle' },
      { text: names[1], x: px, y: Math.min(py, FAN.cy - 6), anchor: side },
    ];
    labels
      .selectAll('text')
      .data(texts)
      .join('text')
      .attr('x', (d) => d.x)
      .attr('y', (d) => d.y)
      .attr('text-anchor', (d) => d.anchor)
      .text((d) => d.text);
  }
  return { svg, draw };
}
