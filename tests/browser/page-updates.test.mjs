// scripts/bench/page-updates.mjs runs: on one chapter of a copy of the built
// site it opens Chromium, repeats the chapter's update and returns one row
// with its latencies, which the Markdown table shows. No timing is asserted
// (the benchmark reports them; the tests only check that it measures).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { profileText } from '../../scripts/bench/page-update-profile.mjs';
import { markdownTable, measurePageUpdates, quantile, UPDATES } from '../../scripts/bench/page-updates.mjs';
import { SITE_ROOT } from '../../scripts/serve.mjs';
import { CHAPTERS } from '../../web/chapters.js';

let site;
beforeAll(() => {
  site = mkdtempSync(join(tmpdir(), 'attention-geometry-site-'));
  cpSync(SITE_ROOT, site, { recursive: true });
});
afterAll(() => {
  if (site) rmSync(site, { recursive: true, force: true });
});

test('every chapter with a widget has an update to measure', () => {
  expect(Object.keys(UPDATES).sort()).toEqual(
    CHAPTERS.filter((c) => c.tag)
      .map((c) => c.id)
      .sort(),
  );
});

test('the 95th percentile by the nearest-rank rule', () => {
  const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
  expect(quantile(twenty, 0.95)).toBe(19);
  expect(quantile(twenty, 0.5)).toBe(10);
  expect(quantile([7], 0.95)).toBe(7);
  expect(quantile([], 0.5)).toBe(null);
});

// One run in the profile mode, which adds the trace's summary to the row it returns.
test('measurePageUpdates times one chapter: a row with its samples, and the Markdown table; the profile mode summarises the input tasks of a Chromium trace', async () => {
  const rows = await measurePageUpdates({ rounds: 6, warmup: 1, chapters: ['dot-product'], site, profile: true });
  expect(rows).toHaveLength(1);
  const [row] = rows;
  expect(row.chapter).toBe('dot-product');
  expect(row.update).toBe(UPDATES['dot-product'].update);
  expect(row.samples + row.missed).toBe(6);
  expect(row.samples).toBeGreaterThan(0);
  for (const key of 'medianMs p95Ms renderMedianMs shellMedianMs shellP95Ms taskMedianMs taskP95Ms inputDelayMedianMs'.split(
    ' ',
  )) {
    expect(Number.isFinite(row[key])).toBe(true);
    expect(row[key]).toBeGreaterThanOrEqual(0);
  }
  expect(row.p95Ms).toBeGreaterThanOrEqual(row.medianMs);
  expect(row.shellP95Ms).toBeGreaterThanOrEqual(row.shellMedianMs);
  // The whole task ends with the input's last handler, after the render and the shell.
  expect(row.taskMedianMs).toBeGreaterThanOrEqual(row.shellMedianMs);
  const table = markdownTable(rows).split('\n');
  expect(table[0]).toMatch(/^\| chapter \| update \| median ms \| p95 ms \|/);
  expect(table[2].startsWith('| dot-product | move b with the arrow keys |')).toBe(true);
  const { profile } = row;
  expect(profile.tasks).toBeGreaterThan(0);
  expect(profile.taskP95Ms).toBeGreaterThanOrEqual(profile.taskMedianMs);
  // Where the time went, in ms per input task: some script ran in every one.
  expect(profile.kinds.find(([kind]) => kind === 'script')?.[1]).toBeGreaterThan(0);
  expect(profile.functions.length).toBeGreaterThan(0);
  expect(profileText('dot-product', profile)).toMatch(/^dot-product: \d+ input tasks/);
}, 60000);

test('unknown chapters and bad round counts are refused', async () => {
  await expect(measurePageUpdates({ chapters: ['no-such-chapter'], site })).rejects.toThrow(
    /unknown chapter ids no-such-chapter/,
  );
  await expect(measurePageUpdates({ rounds: 0, site })).rejects.toThrow(RangeError);
});
