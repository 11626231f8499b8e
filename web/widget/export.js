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

/** A standalone SVG document (text) of `svgEl` with its computed paint inlined. */
export function serializeSvg(svgEl, { background } = {}) {
  const clone = svgEl.cloneNode(true);
  const src = [svgEl, ...svgEl.querySelectorAll('*')];
  const dst = [clone, ...clone.querySelectorAll('*')];
  src.forEach((el, i) => {
    const cs = getComputedStyle(el);
    for (const prop of PAINT) {
      const value = cs.getPropertyValue(prop);
      if (value) dst[i].setAttribute(prop, value);
    }
    if (cs.display === 'none' || cs.visibility === 'hidden') dst[i].setAttribute('visibility', 'hidden');
    dst[i].removeAttribute('tabindex');
    dst[i].removeAttribute('class');
  });
  const box = svgEl.viewBox.baseVal;
  const width = box && box.width ? box.width : svgEl.clientWidth;
  const height = box && box.height ? box.height : svgEl.clientHeight;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  if (background) {
    const rect = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
    for (const [k, v] of Object.entries({ x: box?.x ?? 0, y: box?.y ?? 0, width, height, fill: background }))
      rect.setAttribute(k, String(v));
    clone.insertBefore(rect, clone.firstChild);
  }
  return { text: new XMLSerializer().serializeToString(clone), width, height };
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

export function svgBlob(svgEl, options) {
  return new Blob([serializeSvg(svgEl, options).text], { type: 'image/svg+xml' });
}

/** The figure as a PNG blob at `scale` times its size. */
export async function pngBlob(svgEl, { scale = 2, background } = {}) {
  const { text, width, height } = serializeSvg(svgEl, { background });
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

export function jsonBlob(data) {
  return new Blob([JSON.stringify(data, null, 2) + '\n'], { type: 'application/json' });
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
