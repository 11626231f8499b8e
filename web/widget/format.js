// How numbers are written on the page. Formatting only: every value shown is
// a result of the WebAssembly module, and nothing here changes it beyond
// rounding it to the digits displayed.

const MINUS = '\u2212';

/** Below this size a number is written in exponent form ("1.907e−6", never "0.000001907"). */
const SMALL = 1e-4;

/**
 * x with `digits` significant digits, trailing zeros dropped, a typographic
 * minus sign, and exponent form ("1.2e−10") for |x| < 1e−4 and where
 * toPrecision uses it (at 10^digits and above): one form for a quantity
 * whatever its size (toPrecision alone writes 0.000001907 but 4.768e−7).
 */
export function formatNumber(x, digits = 4) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '\u221e';
  if (x === -Infinity) return `${MINUS}\u221e`;
  if (x === 0) return '0'; // also -0
  const written = Math.abs(x) < SMALL ? x.toExponential(digits - 1) : x.toPrecision(digits);
  let [mantissa, exponent] = written.split('e');
  if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '');
  const text = exponent === undefined ? mantissa : `${mantissa}e${exponent.replace(/^\+/, '')}`;
  return text.replace(/-/g, MINUS);
}

/** The full value as stored (a float32 widened to a double), for data attributes. */
export function exactText(x) {
  return String(x);
}

// Short forms the chapters share (display only: rounding, units, brackets).

/** x with 4 significant digits (formatNumber's default), the chapters' usual number. */
export const fmt = (x) => formatNumber(x, 4);

/** An angle given in radians, written in degrees with 4 significant digits and "°". */
export const deg = (radians) => `${formatNumber((radians * 180) / Math.PI, 4)}\u00b0`;

/** A share from 0 to 1 as a percentage with 3 significant digits: 0.875 is "87.5 %". */
export const percent = (x) => `${formatNumber(x * 100, 3)} %`;

/** A 2-D point or vector: "(3, −4)". */
export const pair = ([x, y]) => `(${fmt(x)}, ${fmt(y)})`;

/** x in brackets when negative, for a product written out: 3×(−4). */
export const paren = (x) => (x < 0 ? `(${fmt(x)})` : fmt(x));

/** Every digit of `text` as a subscript digit: sub(12) is "₁₂", sub('k2') is "k₂". */
export const sub = (text) => String(text).replace(/\d/g, (d) => String.fromCharCode(0x2080 + Number(d)));

/** A shape as text: [5, 4]. */
export const shapeText = (dims) => `[${dims.join(', ')}]`;

// Measurements (the kernel lab and the cost of attention): times and byte
// counts measured in the browser, not results of the kernels.

/** A time in milliseconds as text: s, ms, µs or ns, three significant digits. */
export function formatTime(ms) {
  if (ms >= 1000) return `${formatNumber(ms / 1000, 3)} s`;
  if (ms >= 1) return `${formatNumber(ms, 3)} ms`;
  if (ms >= 0.001) return `${formatNumber(ms * 1000, 3)} \u00b5s`;
  return `${formatNumber(ms * 1e6, 3)} ns`;
}

/** Bytes with binary units (B, KiB, MiB, GiB), three significant digits; a dash for none. */
export function formatBytes(b) {
  if (b === null || b === undefined) return '\u2014';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let u = 0;
  let x = b;
  while (Math.abs(x) >= 1024 && u < units.length - 1) {
    x /= 1024;
    u += 1;
  }
  return `${formatNumber(x, 3)} ${units[u]}`;
}
