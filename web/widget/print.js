// Printing a page of widgets. Widgets start lazily, when they come near the
// viewport (base.js, START_MARGIN), so a page printed from its top would show
// "starts when scrolled into view" for every widget further down. Before the
// browser lays out the printout ('beforeprint', fired for the print menu,
// Ctrl+P and window.print()), every widget still waiting starts.
//
// Starting builds the widget at once; its first render follows as soon as the
// engine is there. With the engine already loaded (any widget on the page has
// rendered), that render runs in the microtasks that follow the event
// handler, before the browser goes on to print. A page printed before the
// engine has loaded prints the widgets' loading state.
//
// Only widgets that are connected and not yet started are held here (base.js
// adds and removes them); the list never keeps a removed element alive.

/** @type {Set<{ start(): unknown }>} */
const waiting = new Set();
let listening = false;

function startAll() {
  for (const widget of [...waiting]) widget.start();
}

/** `widget` starts before the page is printed, unless it has started (or left the page) by then. */
export function startBeforePrint(widget) {
  waiting.add(widget);
  if (!listening && typeof window !== 'undefined') {
    window.addEventListener('beforeprint', startAll);
    listening = true;
  }
}

/** `widget` has started or left the page: printing need not start it. */
export function forgetForPrint(widget) {
  waiting.delete(widget);
}
