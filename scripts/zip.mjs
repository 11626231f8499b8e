// A deterministic zip (the SCORM and H5P packages): entries in sorted order,
// each with one fixed modification time, so two builds of the same files give
// the same bytes.
import { zipSync } from 'fflate';

// Zip entries hold local date and time: a fixed local time gives the same bytes in every time zone.
const FIXED_MTIME = new Date(2000, 0, 1, 0, 0, 0);

/** The zip of `entries` ({ 'path/in/zip': Uint8Array }), deflated at level 9. @returns {Uint8Array} */
export function sortedZip(entries) {
  const sorted = Object.fromEntries(
    Object.keys(entries)
      .sort()
      .map((p) => [p, [entries[p], { mtime: FIXED_MTIME }]]),
  );
  return zipSync(sorted, { level: 9, mtime: FIXED_MTIME });
}
