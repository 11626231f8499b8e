// A small element builder. Text always goes in as text nodes (never parsed as
// HTML), and styles only through classes, so widgets run under a CSP with no
// inline styles or scripts.

/**
 * h('td', { class: 'score', dataset: { key: 1 } }, 'text', otherNode)
 * Props: class, dataset, hidden, and any attribute (set with setAttribute).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name === 'hidden') el.hidden = true;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** <var>name</var><sub>index</sub>, as used for q, k_j and d_k. */
export function symbol(name, index) {
  const v = h('var', {}, name);
  return index === undefined ? v : h('span', { class: 'sym' }, v, h('sub', {}, String(index)));
}

/** An SVG element (d3 builds most of the figure; this is for small pieces). */
export function svg(tag, attrs = {}) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}
