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

/**
 * A CMITimespan (HHHH:MM:SS.SS, as cmi.core.total_time gives) in
 * milliseconds; null for text that is not one (an LMS may give '').
 */
export function parseTimespan(text) {
  const m = /^(\d{2,4}):([0-5]\d):([0-5]\d)(?:\.(\d{1,2}))?$/.exec(String(text ?? '').trim());
  if (!m) return null;
  const hundredths = m[4] ? Number(m[4].padEnd(2, '0')) : 0;
  return ((Number(m[1]) * 60 + Number(m[2])) * 60 + Number(m[3])) * 1000 + hundredths * 10;
}
