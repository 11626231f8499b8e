// The streamed dot-product experiment of chapter 10 (web/models/chunked-experiment.js):
// chunks within the work bound, chunk c seeded c * 2^32 + seed, and the
// combined statistics against float64 statistics of every sample of every
// chunk (the same calls with returnSamples).
import { describe, expect, test } from '@jest/globals';
import { chunkCalls, chunkSizes, combineChunks, MAX_WORK } from '../../web/models/chunked-experiment.js';
import { CONFIGS, init } from './helpers.mjs';

// One configuration: the combination is the same on every build (the kernels' variants are tested elsewhere).
describe.each(CONFIGS.slice(0, 1))('chunked experiment: $label', ({ options }) => {
  test('chunk sizes: every pair, each chunk within 2^26 / d', () => {
    expect(chunkSizes(4096, 100000)).toEqual([16384, 16384, 16384, 16384, 16384, 16384, 1696]);
    expect(chunkSizes(64, 100000)).toEqual([100000]);
    for (const [d, n] of [
      [3, 7],
      [4096, 16384],
      [4095, 50000],
    ]) {
      const sizes = chunkSizes(d, n);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
      for (const s of sizes) expect(d * s).toBeLessThanOrEqual(MAX_WORK);
    }
  });

  test('combined mean, std and rms match float64 statistics of all the samples', async () => {
    const ag = await init(options);
    // d = 2^20: one chunk holds 64 pairs, so 67 pairs are two chunks (64 + 3).
    const d = 2 ** 20;
    const pairs = 67;
    const calls = chunkCalls(d, pairs, 5, { bins: 4, range: [-4096, 4096] });
    expect(calls.map((c) => c.args[0].trials)).toEqual([64, 3]);
    expect(calls.map((c) => c.args[0].seed)).toEqual([5, 2 ** 32 + 5]);
    const results = calls.map((c) => ag.randomDotExperiment({ ...c.args[0], returnSamples: true }));
    const samples = results.flatMap((r) => [...r.samples.data]);
    const n = samples.length;
    const mean = samples.reduce((a, b) => a + b, 0) / n;
    const ms = samples.reduce((a, b) => a + b * b, 0) / n;
    const std = Math.sqrt(samples.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
    const got = combineChunks(ag, results, chunkSizes(d, pairs));
    expect(got.pairs).toBe(pairs);
    // float32 terms (a few 2^-24 relatively) in a pairwise sum of at most 4.
    const scale = Math.sqrt(ms);
    expect(Math.abs(got.mean - mean)).toBeLessThanOrEqual(1e-6 * scale);
    expect(Math.abs(got.rms - Math.sqrt(ms))).toBeLessThanOrEqual(1e-6 * scale);
    expect(Math.abs(got.std - std)).toBeLessThanOrEqual(1e-6 * scale);
    // The second chunk is another stream: not the first chunk's pairs again.
    expect(results[1].samples.data[0]).not.toBe(results[0].samples.data[0]);
    expect(got.histogram.counts.reduce((a, b) => a + b, 0) + results.reduce((a, r) => a + r.outOfRange, 0)).toBe(n);
  });
});
