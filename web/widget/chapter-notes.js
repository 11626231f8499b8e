// The short notes of a chapter under its figures and numbers: a hint on how
// to use a control (`p.hint`) and the line naming the sources of what the
// chapter shows (`p.source`). Text only.
import { h } from './dom.js';

/** A hint on how to use a figure or a control: `<p class="hint">...content</p>`. */
export const hint = (...content) => h('p', { class: 'hint' }, ...content);

/** The sources of what the chapter shows (papers, sections, operators): `<p class="source">...content</p>`. */
export const sources = (...content) => h('p', { class: 'source' }, ...content);
