// The panels of a pipeline shown stage by stage (content-to-weights, multi-head): each stage is a
// <section class="panel"> with its heading, its formula, a line of shapes (p.shape-line[data-shape=id],
// which the chapter writes) and, when the stage names one, a box (its class) for tables or heat maps.
import { h } from './dom.js';
import { texElement } from './math.js';

/**
 * @param {{ id: string, title: string, tex: string, box?: string, dataset?: object }[]} stages
 * @param {{ formulaBox?: boolean }} [o] formulaBox: the formula and its shape line in a div.formula
 * @returns {{ panels: HTMLElement[], shapes: Record<string, HTMLElement>, boxes: Record<string, HTMLElement> }}
 */
export function stagePanels(stages, { formulaBox = false } = {}) {
  const shapes = {};
  const boxes = {};
  const panels = stages.map(({ id, title, tex, box, dataset }) => {
    shapes[id] = h('p', { class: 'shape-line', dataset: { shape: id } });
    if (box) boxes[id] = h('div', { class: box });
    const formula = [texElement(tex, { display: true }), shapes[id]];
    return h(
      'section',
      { class: 'panel', dataset },
      h('h3', {}, title),
      formulaBox ? h('div', { class: 'formula' }, formula) : formula,
      boxes[id],
    );
  });
  return { panels, shapes, boxes };
}
