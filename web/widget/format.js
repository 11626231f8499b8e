// How numbers are written on the page. Formatting only: every value shown is
// a result of the WebAssembly module, and nothing here changes it beyond
// rounding it to the digits displayed.

const MINUS = '\u2212';

/**
 * x with `digits` significant digits, trailing zeros dropped, a typographic
 * minus sign, and exponent form ("1.2e−10") only where toPrecision uses it.
 */
export function formatNumber(x, digits = 4) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '\u221e';
  if (x === -Infinity) return `${MINUS}\u221e`;
  if (x === 0) return '0'; // also -0
  let [mantissa, exponent] = x.toPrecision(digits).split('e');
  if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '');
  const text = exponent === undefined ? mantissa : `${mantissa}e${exponent.replace(/^\+/, '')}`;
  return text.replace(/-/g, MINUS);
}

/** The full value as stored (a float32 widened to a double), for data attributes. */
export function exactText(x) {
  return String(x);
}
