// The script of the H5P library H5P.AttentionGeometry (bundled by
// scripts/h5p.mjs into one classic script, the wasm inside it as data: URLs):
// every widget, and the content type H5P.AttentionGeometry, which H5P
// constructs for each content (machine name -> H5P.AttentionGeometry).
import '../widgets.js';
import { defineContentType } from './content-type.js';

const H5P = (window.H5P = window.H5P || {});
if (typeof H5P.EventDispatcher !== 'function')
  throw new Error('H5P.AttentionGeometry: H5P core (H5P.EventDispatcher) must be loaded before this library');
H5P.AttentionGeometry = defineContentType(H5P);
