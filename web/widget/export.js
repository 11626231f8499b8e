// Export of a widget's figure (SVG, PNG) and numbers (JSON, CSV) as downloads.
// The figure is styled by the widget's stylesheet, which a file on its own
// would lose, so the copy gets the computed colours and fonts as presentation
// attributes (attributes, not style="": nothing here needs 'unsafe-inline').
// PNG: the serialized SVG drawn on a canvas through a blob: image.
import { h } from './dom.js';

const PAINT = [
  'fill',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'opacity',
  'fill-opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
];

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The space between figures exported together, in px. */
const FIGURE_GAP = 16;

/**
 * A copy of `svgEl` with its computed paint inlined, and its size: { clone, width, height }. What is held until
 * the answer (data-after-answer="held", after-answer.js) is left out: an export made before the answer holds
 * nothing the screen holds back.
 */
function paintedCopy(svgEl) {
  const clone = svgEl.cloneNode(true);
  const src = [svgEl, ...svgEl.querySelectorAll('*')];
  const dst = [clone, ...clone.querySelectorAll('*')];
  const held = [];
  src.forEach((el, i) => {
    if (el.dataset?.afterAnswer === 'held') held.push(dst[i]);
    const cs = getComputedStyle(el);
    for (const prop of PAINT) {
      const value = cs.getPropertyValue(prop);
      if (value) dst[i].setAttribute(prop, value);
    }
    if (cs.display === 'none' || cs.visibility === 'hidden') dst[i].setAttribute('visibility', 'hidden');
    dst[i].removeAttribute('tabindex');
    dst[i].removeAttribute('class');
  });
  for (const el of held) el.remove();
  const box = svgEl.viewBox.baseVal;
  const width = box && box.width ? box.width : svgEl.clientWidth;
  const height = box && box.height ? box.height : svgEl.clientHeight;
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  return { clone, width, height, x0: box?.x ?? 0, y0: box?.y ?? 0 };
}

/**
 * A standalone SVG document (text) of `figure`, one <svg> or a list of them (laid side by side, FIGURE_GAP
 * apart, each kept whole as a nested <svg>), with the computed paint inlined.
 */
export function serializeSvg(figure, { background } = {}) {
  const parts = [figure].flat().map(paintedCopy);
  let root;
  let width;
  let height;
  let origin = [0, 0];
  if (parts.length === 1) {
    ({ clone: root, width, height } = parts[0]);
    origin = [parts[0].x0, parts[0].y0];
  } else {
    root = document.createElementNS(SVG_NS, 'svg');
    width = parts.reduce((sum, p) => sum + p.width, FIGURE_GAP * (parts.length - 1));
    height = Math.max(...parts.map((p) => p.height));
    root.setAttribute('viewBox', `0 0 ${width} ${height}`);
    root.setAttribute('width', String(width));
    root.setAttribute('height', String(height));
    let x = 0;
    for (const p of parts) {
      p.clone.setAttribute('x', String(x));
      p.clone.setAttribute('y', '0');
      root.append(p.clone);
      x += p.width + FIGURE_GAP;
    }
  }
  root.setAttribute('xmlns', SVG_NS);
  if (background) {
    const rect = document.createElementNS(SVG_NS, 'rect');
    for (const [k, v] of Object.entries({ x: origin[0], y: origin[1], width, height, fill: background }))
      rect.setAttribute(k, String(v));
    root.insertBefore(rect, root.firstChild);
  }
  return { text: new XMLSerializer().serializeToString(root), width, height };
}

/** Starts a download of `blob` as `filename`. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function svgBlob(figure, options) {
  return new Blob([serializeSvg(figure, options).text], { type: 'image/svg+xml' });
}

/** The figure (one <svg> or a list, as serializeSvg) as a PNG blob at `scale` times its size. */
export async function pngBlob(figure, { scale = 2, background } = {}) {
  const { text, width, height } = serializeSvg(figure, { background });
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const ctx = canvas.getContext('2d');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise((done, fail) =>
      canvas.toBlob((b) => (b ? done(b) : fail(new Error('PNG export failed'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** CSV (RFC 4180) of { columns: string[], rows: (string|number)[][] }. Numbers in full (as stored). */
export function toCsv({ columns, rows }) {
  const cell = (x) => {
    const t = typeof x === 'number' ? String(x) : String(x ?? '');
    return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
  };
  return [columns, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/**
 * JSON has no infinities or NaN (JSON.stringify would write null, losing a mask's −∞): a number that is not
 * finite is written as the string JS prints for it, "-Infinity", "Infinity" or "NaN", as the CSV has it.
 */
const finiteOrText = (key, value) => (typeof value === 'number' && !Number.isFinite(value) ? String(value) : value);

export function jsonBlob(data) {
  return new Blob([JSON.stringify(data, finiteOrText, 2) + '\n'], { type: 'application/json' });
}

export function csvBlob(table) {
  return new Blob([toCsv(table)], { type: 'text/csv' });
}

/**
 * The export control for a widget toolbar: a disclosure with four buttons.
 * `actions` maps svg/png/json/csv to functions; a missing one is not offered.
 */
export function exportControl(actions) {
  const labels = { svg: 'Figure as SVG', png: 'Figure as PNG', json: 'Numbers as JSON', csv: 'Numbers as CSV' };
  const buttons = Object.entries(labels)
    .filter(([kind]) => actions[kind])
    .map(([kind, label]) => {
      const b = h('button', { type: 'button', class: 'export-button', dataset: { export: kind } }, label);
      b.addEventListener('click', () => {
        Promise.resolve(actions[kind]()).catch((err) => actions.onError?.(err));
      });
      return b;
    });
  return h('details', { class: 'export' }, h('summary', {}, 'Export'), h('div', { class: 'export-menu' }, buttons));
}
