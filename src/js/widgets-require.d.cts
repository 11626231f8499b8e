/**
 * `require('attention-geometry/widgets')` throws an Error: the widgets are an
 * ES module for browsers. Load them with `<script type="module">` or `import()`;
 * their declarations are in `attention-geometry/widgets` under `import`.
 * @module attention-geometry/widgets (require)
 */
export {};
