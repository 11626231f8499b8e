// What require('attention-geometry/widgets') loads (package.json "exports",
// condition "require"). The widgets are one ES module for browsers that finds
// its stylesheets, fonts, worker and .wasm through import.meta.url, so there is
// no CommonJS form of them: this says so instead of failing somewhere later.
throw new Error(
  'attention-geometry/widgets is an ES module for browsers and cannot be loaded with require(). ' +
    'Load it in a page with <script type="module" src=".../widgets.js"></script>, serving the folder ' +
    'node_modules/attention-geometry/dist/widgets/ as it is: the widgets find their .wasm, stylesheets and ' +
    'fonts beside that file, so a bundler must not take it into a bundle (docs/package.md, "In a bundled app"). ' +
    'In Node, require the kernels API instead: require("attention-geometry").',
);
