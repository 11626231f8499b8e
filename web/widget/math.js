// Math typesetting with KaTeX, self-hosted. katex.render builds DOM nodes, so
// it works under a strict style CSP (innerHTML of renderToString would not:
// it carries inline style attributes). Chromium ignores @font-face inside a
// shadow root, so the fonts are declared once in the host document (a
// <link> to the bundled KaTeX CSS, added to <head> if the page has none);
// each widget's shadow root links the same CSS for KaTeX's class styles.
import katex from 'katex';
import { assetUrl } from './assets.js';

export const KATEX_CSS = 'vendor/katex/katex.min.css';

/** Makes sure the host document declares KaTeX's fonts (idempotent). */
export function ensureKatexFonts(doc = document) {
  const href = assetUrl(KATEX_CSS).href;
  const present = [...doc.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href);
  if (present) return;
  const link = doc.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.dataset.agKatex = '';
  doc.head.append(link);
}

/**
 * Typesets `tex` into `element` (replacing its content). Inline by default.
 * Errors are shown as the source text, in the error colour, never thrown.
 */
export function tex(element, source, { display = false } = {}) {
  katex.render(source, element, {
    displayMode: display,
    throwOnError: false,
    output: 'htmlAndMathml',
    strict: 'ignore',
  });
  return element;
}

/** A new <span> (or <div> when display) holding typeset `source`. */
export function texElement(source, { display = false, className = '' } = {}) {
  const el = document.createElement(display ? 'div' : 'span');
  if (className) el.className = className;
  return tex(el, source, { display });
}

/** A new <div> holding `source` typeset as display maths. */
export const display = (source) => texElement(source, { display: true });

/** A `<p class="shapes">` of inline formulas (shapes of matrices), each a `span.shape`. */
export function shapes(...sources) {
  const line = document.createElement('p');
  line.className = 'shapes';
  line.append(...sources.map((source) => texElement(source, { className: 'shape' })));
  return line;
}

/** A `<div class="formulas">` of display formulas, one for each TeX source. */
export function formulas(...sources) {
  const box = document.createElement('div');
  box.className = 'formulas';
  box.append(...sources.map(display));
  return box;
}
