// The numbers a chapter widget shows ([data-value] in its shadow root): read
// them, pick them by role and key, compare them with a float64 reference
// (tests/reference/float64.mjs) as stored and as shown, and check that each is
// a result in the kernel-call log (window.__agCallLog, test mode).
import { expect } from '@jest/globals';

export { U } from '../reference/float64.mjs';

/**
 * Every number the widget shows ([data-value] in its shadow root): role, key,
 * text as shown, that text parsed (typographic minus, a trailing degree sign
 * dropped), and the exact value kept in data-value. The slot of a signed term
 * (signedTerm in web/widget/controls.js: "30 + 20" for 30 \u2212 (\u221220)) shows |x|:
 * `sep` is its separator as written and as shown, and `shown` is negative when
 * the shown separator is the flipped one (checked against the slot's data-sign).
 */
export async function readNumbers(page, tag) {
  return parseShown(await page.locator(`${tag} >> nth=0`).evaluate(shownItems));
}

/**
 * In the page (Playwright's or Puppeteer's evaluate; self-contained, so that either driver can serialise it):
 * the numbers the widget `el` shows, as they are in the DOM.
 */
export function shownItems(el) {
  return [...el.shadowRoot.querySelectorAll('[data-value]')].map((n) => {
    const sep = n.dataset.sign === undefined ? null : n.closest('.term')?.querySelector(':scope > .sep');
    return {
      role: n.dataset.role,
      key: n.dataset.key ?? null,
      text: n.textContent,
      value: Number(n.dataset.value),
      sign: n.dataset.sign ?? null,
      sep: sep ? { op: sep.dataset.op, text: sep.textContent.trim() } : null,
    };
  });
}

/** The numbers of shownItems, as readNumbers gives them. */
export function parseShown(items) {
  return items.map((item) => {
    const parsed = Number(item.text.replace(/\u2212/g, '-').replace(/\u00b0$/, ''));
    if (item.sign === null) return { ...item, shown: parsed };
    const name = `${item.role}${item.key === null ? '' : `.${item.key}`}`;
    if (!item.sep) throw new Error(`${name}: a signed slot outside a term with a separator`);
    if (!['+', '\u2212'].includes(item.sep.text)) throw new Error(`${name}: separator "${item.sep.text}"`);
    if (/^[\u2212-]/.test(item.text)) throw new Error(`${name}: a signed term shows a minus after "${item.sep.text}"`);
    const flipped = item.sep.text !== item.sep.op;
    if (flipped !== (item.sign === '-1'))
      throw new Error(`${name}: separator "${item.sep.text}", data-sign ${item.sign}`);
    return { ...item, shown: flipped ? -parsed : parsed };
  });
}

/** The numbers of one role, by key order: readNumbers filtered. */
export function byRole(numbers, role) {
  return numbers.filter((n) => n.role === role).sort((a, b) => String(a.key).localeCompare(String(b.key)));
}

/** One number by role (and key). */
export function one(numbers, role, key = null) {
  const found = numbers.filter((n) => n.role === role && (key === null || n.key === String(key)));
  if (found.length !== 1)
    throw new Error(`expected one number ${role}${key === null ? '' : `.${key}`}, found ${found.length}`);
  return found[0];
}

/**
 * In the page (Playwright's or Puppeteer's evaluate): the numbers shown by the
 * widget `el` ([data-value]) that no call in the kernel-call log returned.
 * A shown value is found when some result number x has String(x) equal to its
 * data-value; the search goes by value (a data-value that is not the shortest
 * text of its number is never found), newest call first, and stops once every
 * shown value is found: a chapter's log can hold millions of numbers.
 * Self-contained, so that either driver can serialise it.
 */
export function unloggedNumbers(el) {
  const log = window.__agCallLog ?? [];
  const shown = [...el.shadowRoot.querySelectorAll('[data-value]')];
  const valueOf = (n) => {
    const v = Number(n.dataset.value);
    return String(v) === n.dataset.value ? v : undefined;
  };
  const wanted = new Set(shown.map(valueOf).filter((v) => v !== undefined));
  const visit = (r) => {
    if (typeof r === 'number') wanted.delete(r);
    else if (ArrayBuffer.isView(r)) for (let i = 0; i < r.length && wanted.size; i++) wanted.delete(r[i]);
    else if (Array.isArray(r)) for (const x of r) visit(x);
    else if (r && typeof r === 'object') for (const v of Object.values(r)) visit(v);
  };
  for (let i = log.length - 1; i >= 0 && wanted.size; i--) visit(log[i].result);
  return {
    count: shown.length,
    missing: shown
      .filter((n) => valueOf(n) === undefined || wanted.has(valueOf(n)))
      .map((n) => `${n.dataset.role}=${n.dataset.value}`),
    log: log.length,
  };
}

/**
 * Checks that each number the widget shows is, bit for bit, a result in the
 * kernel-call log (test mode). Returns how many were checked.
 */
export async function expectAllLogged(page, tag) {
  const missing = await page.locator(`${tag} >> nth=0`).evaluate(unloggedNumbers);
  expect(missing.log).toBeGreaterThan(0);
  expect(missing.count).toBeGreaterThan(0);
  expect(missing.missing).toEqual([]);
  return missing.count;
}

export function expectClose(actual, expected, tolerance, what) {
  const ok = Math.abs(actual - expected) <= tolerance;
  if (!ok) throw new Error(`${what}: got ${actual}, expected ${expected} within ${tolerance}`);
  expect(ok).toBe(true);
}

/** The shown text is the reference to `digits` significant digits (within half a unit of the last digit). */
export function expectShown(item, expected, { digits = 4, extra = 0 } = {}) {
  const tol = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(expected) || 1)) - digits + 1) * 1.001 + extra;
  expectClose(item.shown, expected, tol, `${item.role}${item.key ? `.${item.key}` : ''} shown "${item.text}"`);
}

/**
 * Checks shown numbers against float64 references, one row each: [role, key, ref, tol, extra]. The number of
 * that role and key (null: none) is there once; its exact value is within tol of ref, and its text is ref
 * to 4 digits within `extra` more (default tol; false: the text is not checked). An angle row (angleRow)
 * compares radians and its text in degrees.
 */
export function expectNumbers(numbers, rows) {
  for (const [role, key, ref, tol, extra = tol, degrees = false] of rows) {
    const name = `${role}${key === null ? '' : `.${key}`}`;
    const found = numbers.filter((n) => n.role === role && n.key === (key === null ? null : String(key)));
    if (found.length !== 1) throw new Error(`expected one number ${name}, found ${found.length}`);
    expectClose(found[0].value, ref, tol, name);
    if (extra !== false) expectShown(found[0], degrees ? (ref * 180) / Math.PI : ref, { extra });
  }
}

/** A row of expectNumbers for an angle (radians, within 1e-5), shown in degrees (within 1e-3 more). */
export const angleRow = (role, key, ref) => [role, key, ref, 1e-5, 1e-3, true];

/** Rows of a role's numbers [T, cols] (keys "i-j", 1-based), as exact values. */
export function matrixOf(numbers, role) {
  const out = [];
  for (const n of numbers.filter((x) => x.role === role)) {
    const [i, j] = n.key.split('-').map(Number);
    (out[i - 1] ??= [])[j - 1] = n.value;
  }
  return out;
}

/**
 * Each number is shown to 3 significant digits (half a unit of the third, plus 5e-4 for
 * numbers near 0), and heat-map cells (`isCell`) to 2 decimals.
 */
export function expectThreeDigits(numbers, isCell) {
  for (const n of numbers)
    expectClose(
      n.shown,
      n.value,
      Math.abs(n.value) * 5e-3 + (isCell(n) ? 5.01e-3 : 5e-4),
      `${n.role}.${n.key} shown "${n.text}"`,
    );
}
