// The counter-based generator: bit-identical samples in the SIMD and the
// baseline build for the same seed and counter, an independent Philox4x32-10
// (reference.mjs) checked against the published Random123 answers, and a
// Kolmogorov-Smirnov test of 10^5 normal samples against the standard normal.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, init } from './helpers.mjs';

test('the reference Philox4x32-10 gives the Random123 known answers', () => {
  // Random123 kat_vectors: philox4x32 10 rounds.
  expect(ref.philox4x32([0, 0, 0, 0], [0, 0])).toEqual([0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
  expect(ref.philox4x32([0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff])).toEqual([
    0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd,
  ]);
  expect(ref.philox4x32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0])).toEqual([
    0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1,
  ]);
});

describe('samples are identical in every build and variant', () => {
  let instances;
  beforeAll(async () => {
    instances = await Promise.all(CONFIGS.map((c) => init(c.options)));
  });
  const draws = [
    { seed: 0, counter: 0, n: 1 },
    { seed: 7, counter: 3, n: 1001 },
    { seed: 2 ** 53 - 1, counter: 2 ** 40 + 5, n: 64 },
    { seed: 0xfedcba9876543210n, counter: 0xffffffffffffffffn, n: 9 }, // the counter wraps mod 2^64
  ];
  test.each(draws)('uniform and normal, seed $seed, counter $counter, n $n', (d) => {
    const [first, ...rest] = instances;
    for (const kind of ['uniform', 'normal']) {
      const want = first.random[kind](d).data;
      for (const ag of rest) {
        const got = ag.random[kind](d).data;
        expect(new Uint32Array(got.buffer)).toEqual(new Uint32Array(want.buffer));
      }
    }
  });
  test('a seed given as a number and as a BigInt gives the same samples; splitting a draw by counter gives the same stream', () => {
    const ag = instances[0];
    const a = ag.random.uniform({ seed: 2 ** 40 + 3, counter: 5, n: 12 }).data;
    const b = ag.random.uniform({ seed: 2n ** 40n + 3n, counter: 5n, n: 12 }).data;
    expect(Array.from(a)).toEqual(Array.from(b));
    // Four samples per block: counter 6 starts at sample 4.
    const c = ag.random.uniform({ seed: 2 ** 40 + 3, counter: 6, n: 8 }).data;
    expect(Array.from(c)).toEqual(Array.from(a.subarray(4)));
    expect(Array.from(ag.random.uniform({ seed: 1, counter: 0, n: 8 }).data)).not.toEqual(
      Array.from(ag.random.uniform({ seed: 2, counter: 0, n: 8 }).data),
    );
  });
  test("the experiment draws the same vectors in every build: samples differ at most by the two variants' dot bounds", () => {
    const d = 64;
    const trials = 50;
    const runs = instances.map((ag) => ag.randomDotExperiment({ d, trials, seed: 5 }));
    const blocks = BigInt(d / 4);
    for (let t = 0; t < trials; t++) {
      const a = ref.philoxNormal(5n, 2n * BigInt(t) * blocks, d);
      const b = ref.philoxNormal(5n, (2n * BigInt(t) + 1n) * blocks, d);
      // Same float32 inputs in every build; each dot is within (2 ceil(log2 d) + 1) u sum|a_i b_i|
      // of the exact value, so two of them differ by at most twice that (sum|a_i b_i| from the
      // float64 normals, padded by 1e-4 relative for their float32 rounding).
      const bound = 2 * (2 * ref.clog2(d) + 1) * ref.U * ref.sumAbsProd(a, b) * (1 + 1e-4);
      const vals = runs.map((r) => r.samples.data[t]);
      expect(Math.max(...vals) - Math.min(...vals)).toBeLessThanOrEqual(bound);
    }
    // The baseline build and the scalar variant of the SIMD build run the same scalar code.
    expect(Array.from(runs[1].samples.data)).toEqual(Array.from(runs[2].samples.data));
  });
});

describe.each(CONFIGS)('distribution: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });
  test('Kolmogorov-Smirnov: 10^5 normal samples vs the standard normal (alpha = 0.001)', () => {
    const n = 100000;
    const x = Float64Array.from(ag.random.normal({ seed: 20170612, counter: 0, n }).data).sort();
    let D = 0;
    for (let i = 0; i < n; i++) {
      const F = ref.normalCdf(x[i]);
      D = Math.max(D, (i + 1) / n - F, F - i / n);
    }
    // Asymptotic critical value c(alpha) / sqrt(n), c(alpha) = sqrt(-ln(alpha / 2) / 2) = 1.9495 at alpha = 0.001.
    const critical = Math.sqrt(-Math.log(0.001 / 2) / 2) / Math.sqrt(n);
    expect(D).toBeLessThan(critical);
  });
  test('uniform samples lie in [0, 1) on the 2^-24 grid, with mean 1/2 within 5 standard errors', () => {
    const n = 100000;
    const u = ag.random.uniform({ seed: 3, n }).data;
    let sum = 0;
    let bad = 0;
    for (const v of u) {
      if (!(v >= 0 && v < 1 && Number.isInteger(v * 2 ** 24))) bad++;
      sum += v;
    }
    expect(bad).toBe(0);
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / n));
  });
});
