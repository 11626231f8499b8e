// A small element builder. Text always goes in as text nodes (never parsed as
// HTML), and styles only through classes, so widgets run under a CSP with no
// inline styles or scripts.

/**
 * h('td', { class: 'score', dataset: { key: 1 } }, 'text', otherNode)
 * Props: class, dataset, hidden, and any attribute (set with setAttribute).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name === 'hidden') el.hidden = true;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** <var>name</var><sub>index</sub>, as used for q, k_j and d_k. */
export function symbol(name, index) {
  const v = h('var', {}, name);
  return index === undefined ? v : h('span', { class: 'sym' }, v, h('sub', {}, String(index)));
}

/**
 * A sentence with nodes in it, written as a template: words`|${q}| = ${x}.` gives the parts
 * ['|', q, '| = ', x, '.'] to pass to h() or append (a value that is not a node joins the text
 * around it; empty texts are left out).
 */
export function words(strings, ...values) {
  const parts = [strings[0]];
  values.forEach((v, i) => {
    if (v instanceof Node) parts.push(v, strings[i + 1]);
    else parts[parts.length - 1] += `${v}${strings[i + 1]}`;
  });
  return parts.filter((p) => p !== '');
}

/** An SVG element (d3 builds most of the figure; this is for small pieces). */
export function svg(tag, attrs = {}) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return el;
}

/**
 * Sets the text of `el` to `text` unless it already is: an update rewrites
 * many numbers and labels of which most stay the same, and each write costs
 * style and layout work. An element holding one text node keeps that node
 * (its value changes), so the layout of the text is all that is redone.
 */
export function setText(el, text) {
  if (text === '') {
    if (el.firstChild) el.textContent = '';
    return;
  }
  const only = el.firstChild;
  if (only !== null && only === el.lastChild && only.nodeType === 3) {
    if (only.nodeValue !== text) only.nodeValue = text;
  } else if (el.textContent !== text) el.textContent = text;
}

/** Sets attribute `name` of `el` to `value` (as text) unless it already has it. */
export function setAttr(el, name, value) {
  const text = String(value);
  if (el.getAttribute(name) !== text) el.setAttribute(name, text);
}

/** Sets attribute `name` of `el` to `value`, or removes it when `value` is null, unless it already is so. */
export function setOrRemove(el, name, value) {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else setAttr(el, name, value);
}

/** Sets the value of a form control (input, select, output) unless it already is `text`. */
export function setValue(control, text) {
  if (control.value !== text) control.value = text;
}

/**
 * Moves the focus to `el` (the next tab, cell or option of a group the
 * learner steps through with the arrow keys) without laying the page out
 * in the input's task: focus() scrolls the element into view, which needs
 * the layout of everything the update just changed. Here the scroll waits
 * for the next frame, when that layout is made anyway, and does nothing
 * when the element is in view already (the usual case: it is next to the
 * one that had the focus).
 */
export function focusInPlace(el) {
  el.focus({ preventScroll: true });
  requestAnimationFrame(() => {
    if (el.isConnected && el.getRootNode().activeElement === el)
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  });
}

/** Sets a boolean property (hidden, disabled, checked) of `el` unless it already has that value. */
export function setFlag(el, name, on) {
  const value = Boolean(on);
  if (el[name] !== value) el[name] = value;
}

/**
 * Marks `el` (a table row, say) as the current one or not: class `name` for
 * the eye, aria-current for assistive technology; writes only what changes.
 */
export function markCurrent(el, name, on) {
  if (el.classList.contains(name) !== on) el.classList.toggle(name, on);
  if ((el.getAttribute('aria-current') === 'true') !== on) {
    if (on) el.setAttribute('aria-current', 'true');
    else el.removeAttribute('aria-current');
  }
}

/**
 * The click handler of a button that disables itself (a Cancel button): runs
 * `action`, and when the button had the keyboard focus, hands the focus to
 * `next()` (a disabled button cannot keep it, and it would fall back to the
 * page, leaving a keyboard user at the top).
 */
export function handOffFocus(button, next, action) {
  return () => {
    const had = button.getRootNode().activeElement === button;
    action();
    if (had && button.disabled) next()?.focus();
  };
}
