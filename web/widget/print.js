// Printing a page of widgets. Widgets start lazily, when they come near the
// viewport (base.js, START_MARGIN), so a page printed from its top would show
// "starts when scrolled into view" for every widget further down. Here:
//
// - Before the browser lays out the printout ('beforeprint', fired for the
//   print menu, Ctrl+P and window.print()), every widget on the page that
//   has not started starts. Starting builds the widget at once, and its
//   first render follows in the microtasks after the event handler, before
//   the browser goes on to print, provided the engine has loaded.
// - So that it has: once the page has loaded and the browser is idle, the
//   engine (the wasm module) is loaded, whether or not a widget has come
//   into view. A page printed before that prints its widgets' loading state.
// - Work a widget hands to its background worker (the experiments of the
//   sqrt(d_k), near-orthogonal and cost chapters) cannot finish in that
//   time: such a widget prints as "running", with a line saying so
//   (styles/widget.css).
// - A box that scrolls sideways (a wide table) would be cut at its edge on
//   paper: its content is scaled down to fit (zoom, from its widths measured
//   at the width of the paper before printing, removed after), to no less
//   than half its size.
//
// base.js adds each widget when it is connected and removes it when it
// leaves the page; the set never keeps a removed element alive.
import { getEngine } from './engine.js';
import { wideBoxes } from './scroll-focus.js';

/** Connected widgets: { start(): Promise, shadowRoot }. */
const onPage = new Set();
let listening = false;
let printing = false;
/** Boxes scaled for the printout, restored after it. */
const fitted = new Set();

/** The smallest scale a wide box gets on paper (below it, text would be too small to read). */
export const MIN_PRINT_FIT = 0.5;

/**
 * The width of the printable area in CSS px: A4 portrait with the browsers'
 * default margins of about 1 cm (190 mm at 96 px to the inch). The page is
 * measured laid out at this width, whatever the window's (a phone's is
 * narrower, a full-width embed's wider). On wider paper (Letter, landscape)
 * a box comes out a little smaller than it would need to be.
 */
export const PAPER_WIDTH_PX = 718;

/** The wide boxes of `widgets`, measured with the page laid out at the width of the paper. */
function boxesOnPaper(widgets) {
  const root = document.documentElement;
  const before = [root.style.getPropertyValue('width'), root.style.getPropertyPriority('width')];
  const scroll = [window.scrollX, window.scrollY];
  root.style.setProperty('width', `${PAPER_WIDTH_PX}px`, 'important');
  try {
    return widgets.flatMap((w) => wideBoxes(w.shadowRoot)); // reading the sizes lays the page out at that width
  } finally {
    if (before[0]) root.style.setProperty('width', before[0], before[1]);
    else root.style.removeProperty('width');
    window.scrollTo({ left: scroll[0], top: scroll[1], behavior: 'instant' });
  }
}

function fitWideBoxes(widgets) {
  // All sizes are read first, then the marks written: a write between two
  // reads would make the browser lay the page out again for each widget.
  const found = boxesOnPaper(widgets.filter((w) => w.shadowRoot && w.isConnected));
  for (const { el, fit } of found) {
    el.style.setProperty('--ag-print-fit', String(Math.max(MIN_PRINT_FIT, fit)));
    el.toggleAttribute('data-print-fit', true);
    fitted.add(el);
  }
}

async function beforePrint() {
  printing = true;
  const widgets = [...onPage];
  const started = widgets.map((w) => w.start());
  await Promise.allSettled(started);
  if (printing) fitWideBoxes(widgets); // unless the printout is already done
}

function afterPrint() {
  printing = false;
  for (const el of fitted) {
    el.removeAttribute('data-print-fit');
    el.style.removeProperty('--ag-print-fit');
  }
  fitted.clear();
}

function preloadEngine() {
  const idle =
    typeof requestIdleCallback === 'function'
      ? (fn) => requestIdleCallback(fn, { timeout: 2000 })
      : (fn) => setTimeout(fn, 200);
  // A failure here is the widgets' to report when they start; nothing to say twice.
  const load = () => idle(() => getEngine().catch(() => {}));
  if (document.readyState === 'complete') load();
  else window.addEventListener('load', load, { once: true });
}

/** `widget` is on the page: it starts before the page is printed, and its wide boxes fit the paper. */
export function watchForPrint(widget) {
  onPage.add(widget);
  if (!listening && typeof window !== 'undefined') {
    window.addEventListener('beforeprint', beforePrint);
    window.addEventListener('afterprint', afterPrint);
    preloadEngine();
    listening = true;
  }
}

/** `widget` has left the page. */
export function unwatchForPrint(widget) {
  onPage.delete(widget);
}
