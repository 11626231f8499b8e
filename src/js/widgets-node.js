// What import('attention-geometry/widgets') loads in Node (package.json
// "exports", condition "node"). The widgets are custom elements, classes that
// extend the DOM's HTMLElement, and Node has no DOM: rather than fail with
// "HTMLElement is not defined" from inside the bundle, this says what the
// entry needs and what to import instead. Browser bundlers (Vite, webpack,
// esbuild) do not set the "node" condition and get the widgets themselves,
// which then miss their files: hence the advice not to bundle them.
// scripts/build.mjs appends the widgets' export names (declared, never
// assigned) so that a named import links and reaches this Error.
throw new Error(
  'attention-geometry/widgets needs a browser: its custom elements extend HTMLElement, and Node has no DOM. ' +
    'Load it in a page with <script type="module" src=".../widgets.js"></script>, serving the folder ' +
    'node_modules/attention-geometry/dist/widgets/ as it is: the widgets find their .wasm, stylesheets and ' +
    'fonts beside that file, so a bundler must not take it into a bundle (docs/package.md, "In a bundled app"). ' +
    'In Node, import the kernels API instead: import { init } from "attention-geometry".',
);
