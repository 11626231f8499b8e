// How measurements are written on the page (the kernel lab and the cost of
// attention): times and byte counts. Formatting only; these numbers are
// measured in the browser, not results of the kernels.
import { formatNumber } from '../widget/format.js';

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
