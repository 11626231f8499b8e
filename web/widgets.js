// Every widget, in one ES module: load this file (one <script type="module">)
// and use any <ag-...> element on any page. The JS API and its wasm loader
// are bundled in; the .wasm files sit in wasm/ next to this file.
export { AgWidget, defineWidget } from './widget/base.js';
export { AgTwoDefinitions } from './chapters/two-definitions.js';
export { AgWorkedExample } from './chapters/worked-example.js';
