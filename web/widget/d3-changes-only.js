// d3 selections that write only what changes. A widget redraws its figure
// on every update with d3's attr(), classed() and text(), and most of what
// it writes is what the figure holds already (the axes, the points that did
// not move). d3 writes anyway, and the browser treats every write to an SVG
// attribute as a change of the figure: its layout is redone, even for the
// same value. Installed once (on import), these versions of the three
// methods compare with the DOM first and skip equal values; what they write
// is exactly what d3's own methods would (same names, namespaces, removal of
// null values, function values called with (d, i, nodes)).
import { namespace, selection } from 'd3';
import { setText } from './dom.js';

const INSTALLED = Symbol.for('attention-geometry.d3-changes-only');

function setAttribute(node, fullname, value) {
  if (fullname.local) {
    if (value == null) node.removeAttributeNS(fullname.space, fullname.local);
    else if (node.getAttributeNS(fullname.space, fullname.local) !== `${value}`)
      node.setAttributeNS(fullname.space, fullname.local, value);
  } else if (value == null) node.removeAttribute(fullname);
  else if (node.getAttribute(fullname) !== `${value}`) node.setAttribute(fullname, value);
}

function setClasses(node, names, on) {
  const list = node.classList;
  for (const name of names) if (list.contains(name) !== on) list.toggle(name, on);
}

const proto = selection.prototype;
if (!proto[INSTALLED]) {
  const { attr, classed, text } = proto;
  proto.attr = function changesOnlyAttr(name, value) {
    if (arguments.length < 2) return attr.call(this, name);
    const fullname = namespace(name);
    return this.each(
      typeof value === 'function'
        ? function (...args) {
            setAttribute(this, fullname, value.apply(this, args));
          }
        : function () {
            setAttribute(this, fullname, value);
          },
    );
  };
  proto.classed = function changesOnlyClassed(name, value) {
    if (arguments.length < 2) return classed.call(this, name);
    const names = `${name}`.trim().split(/^|\s+/);
    return this.each(
      typeof value === 'function'
        ? function (...args) {
            setClasses(this, names, Boolean(value.apply(this, args)));
          }
        : function () {
            setClasses(this, names, Boolean(value));
          },
    );
  };
  proto.text = function changesOnlyText(value) {
    if (arguments.length < 1) return text.call(this);
    return this.each(
      typeof value === 'function'
        ? function (...args) {
            const v = value.apply(this, args);
            setText(this, v == null ? '' : `${v}`);
          }
        : function () {
            setText(this, value == null ? '' : `${value}`);
          },
    );
  };
  proto[INSTALLED] = true;
}
