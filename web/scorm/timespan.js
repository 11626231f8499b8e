// SCORM 1.2 time spans (CMITimespan): HHHH:MM:SS.SS, hours with two to
// four digits, seconds with at most two decimals.

const MAX_HOURS = 9999;

/** @param {number} ms a duration in milliseconds (negative or not finite: 0) */
export function formatTimespan(ms) {
  const hundredths = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 10) : 0;
  const capped = Math.min(hundredths, (MAX_HOURS * 3600 + 59 * 60 + 59) * 100 + 99);
  const hours = Math.floor(capped / 360000);
  const minutes = Math.floor((capped % 360000) / 6000);
  const seconds = Math.floor((capped % 6000) / 100);
  const rest = capped % 100;
  const two = (n) => String(n).padStart(2, '0');
  return `${two(hours)}:${two(minutes)}:${two(seconds)}.${two(rest)}`;
}
