// How the kernel lab and the cost chapter choose the calls per timed sample
// (web/timing/calls-per-sample.js), and the kernel lab's medians, on a
// virtual clock: each call of a fake workload advances virtual time by a
// cost set here, and performance.now() reads that time rounded down to the
// clock's resolution, as a browser's coarse clock does. Each read of the
// clock also advances it by READ_MS (reading a clock takes time), so that
// the clock's tick can be measured by reading it; for the coarse clocks a
// read takes a thousandth of a tick (clockTickMs gives up after 250 ms of
// real time, which a million mocked reads could take on a loaded machine). Expected values are the
// costs and resolutions set here; the tolerances come from the rounding of
// the clock.
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { callsPerSample, TICKS } from '../../web/timing/calls-per-sample.js';
import { clockTick, clockTickMs } from '../../web/timing/clock-tick.js';
import { attentionCost } from '../../web/timing/attention-cost.js';
import { ROUND_MS, timeKernel } from '../../web/timing/kernel-timing.js';

const READ_MS = 0.001;
let virtualMs = 0;
let resolutionMs = 0.1;
let readMs = READ_MS;

beforeEach(() => {
  virtualMs = 0;
  readMs = READ_MS;
  jest.spyOn(performance, 'now').mockImplementation(() => {
    virtualMs += readMs;
    return Math.floor(virtualMs / resolutionMs) * resolutionMs;
  });
});
afterEach(() => jest.restoreAllMocks());

/** A workload whose calls cost `costs[i]` ms of virtual time for the i-th call, then `costs.at(-1)`. */
function workload(...costs) {
  let calls = 0;
  const call = () => {
    virtualMs += costs[Math.min(calls, costs.length - 1)];
    calls += 1;
  };
  return { call, calls: () => calls };
}

describe('calls per sample', () => {
  // The count is scaled from a batch read as m >= minMs while it lasted t,
  // with |t - m| < the resolution r: the sample lasts targetMs * t / m,
  // within a factor 1 +- r / minMs of targetMs, and rounding the count to
  // whole calls moves it by at most half a call more.
  test.each([
    ['a 1 ms clock, a call of 0.02 ms', 1, 0.02],
    ['a 0.1 ms clock, a call of 0.003 ms', 0.1, 0.003],
    ['a 1 ms clock, a call of 0.7 ms', 1, 0.7],
    ['a 0.005 ms clock, a call of 0.2 ms', 0.005, 0.2],
  ])('%s: a sample lasts the target within the clock\u2019s rounding', async (_, resolution, cost) => {
    resolutionMs = resolution;
    const targetMs = 30;
    const minMs = targetMs / 4;
    const w = workload(cost);
    const calls = await callsPerSample(w.call, { targetMs, maxCalls: 1e6 });
    const slack = resolution / minMs;
    expect(calls * cost).toBeGreaterThanOrEqual(targetMs * (1 - slack) - cost / 2);
    expect(calls * cost).toBeLessThanOrEqual(targetMs * (1 + slack) + cost / 2);
  });

  test('a fast call that reads 0 on a coarse clock does not give thousands of calls too many', async () => {
    resolutionMs = 1;
    const w = workload(0.3);
    const calls = await callsPerSample(w.call, { targetMs: 30, maxCalls: 20000 });
    // Timed by one call, 0 ms would have asked for the most calls allowed (20000 calls, 6 s).
    expect(calls * 0.3).toBeLessThanOrEqual(30 * (1 + 1 / 7.5) + 0.15);
    expect(calls * 0.3).toBeGreaterThanOrEqual(30 * (1 - 1 / 7.5) - 0.15);
  });

  test('a pause in the first call does not leave samples shorter than a tick of the clock', async () => {
    resolutionMs = 0.1;
    const w = workload(50, 0.004); // 50 ms (a pause of the collector), then 0.004 ms per call
    const calls = await callsPerSample(w.call, { targetMs: 8, maxCalls: 1e6 });
    // Timed by the first call alone, the count would be 1: a sample of 0.004 ms, read as 0.
    expect(calls * 0.004).toBeGreaterThanOrEqual(8 * (1 - 0.1 / 2) - 0.002);
    expect(calls * 0.004).toBeLessThanOrEqual(8 * (1 + 0.1 / 2) + 0.002);
  });

  test('a pause in a later batch does not decide the count either', async () => {
    resolutionMs = 0.1;
    // Batches of 1, 2, 4, ... calls: call 3 opens the batch of four; it pauses 40 ms.
    const w = workload(0.004, 0.004, 0.004, 40, 0.004);
    const calls = await callsPerSample(w.call, { targetMs: 8, maxCalls: 1e6 });
    expect(calls * 0.004).toBeGreaterThanOrEqual(8 * (1 - 0.1 / 2) - 0.002);
    expect(calls * 0.004).toBeLessThanOrEqual(8 * (1 + 0.1 / 2) + 0.002);
  });

  test('a call longer than the target is a sample by itself', async () => {
    resolutionMs = 0.1;
    expect(await callsPerSample(workload(40).call, { targetMs: 30, maxCalls: 100 })).toBe(1);
  });

  test('a clock that never moves stops at maxCalls, after fewer than 3 maxCalls calls in all', async () => {
    resolutionMs = 1;
    readMs = 0;
    const w = workload(0); // no time passes
    expect(await callsPerSample(w.call, { targetMs: 30, maxCalls: 1000, clockMs: 0 })).toBe(1000);
    // Batches of 1, 2, 4, ... 512 calls, then one of 1000.
    expect(w.calls()).toBeLessThan(3 * 1000);
  });

  // The count is scaled from a batch of at least TICKS ticks, read within one
  // tick: a sample then lasts at least TICKS ticks, within a factor
  // 1 +- 1 / TICKS, however short the target asked for.
  test.each([
    ['16.7 ms', 50 / 3, 0.05],
    ['100 ms', 100, 0.4],
  ])(
    'a %s clock (fingerprinting protection): a sample lasts several ticks, not a fraction of one',
    async (_, resolution, cost) => {
      resolutionMs = resolution;
      readMs = resolution / 1000;
      const w = workload(cost);
      const calls = await callsPerSample(w.call, { targetMs: 30, maxCalls: 1e6 });
      // A sample of 30 ms would read 0 on this clock most of the time.
      expect(calls * cost).toBeGreaterThanOrEqual(TICKS * resolution * (1 - 1 / TICKS) - cost / 2);
      expect(calls * cost).toBeLessThanOrEqual(TICKS * resolution * (1 + 1 / TICKS) + cost / 2);
    },
  );

  test('on a 100 ms clock maxCalls gives way, so that a fast call still fills several ticks', async () => {
    resolutionMs = 100;
    readMs = 0.1;
    const w = workload(0.0008); // a dot product of 256: under a microsecond
    const calls = await callsPerSample(w.call, { targetMs: 30, maxCalls: 20000 });
    // 20000 calls would last 16 ms: a sample read as 0 most times.
    expect(calls * 0.0008).toBeGreaterThanOrEqual(TICKS * 100 * (1 - 1 / TICKS));
    expect(calls * 0.0008).toBeLessThanOrEqual(TICKS * 100 * (1 + 1 / TICKS) + 0.0004);
  });

  test('a clock that stops after its tick was measured does not keep the search going past its time limit', async () => {
    resolutionMs = 100;
    readMs = 0;
    const w = workload(0); // no time passes: the clock never reaches minMs
    const t0 = Date.now();
    const calls = await callsPerSample(w.call, { targetMs: 30, maxCalls: 256, clockMs: 100, searchLimitMs: 50 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(calls).toBeGreaterThan(256); // the cap gave way (the clock is coarse) ...
    expect(calls).toBeLessThan(2 ** 28); // ... but the time limit ended the search
  });

  test('options out of range are a RangeError naming the option', async () => {
    await expect(callsPerSample(() => {}, { targetMs: Object.create(null), maxCalls: 10 })).rejects.toThrow(
      'options.targetMs must be a positive finite number of ms; got object',
    );
    for (const clockMs of [null, '5', true, [], '', Infinity, -1, NaN]) {
      await expect(callsPerSample(() => {}, { targetMs: 5, maxCalls: 10, clockMs })).rejects.toThrow(
        /^callsPerSample: options\.clockMs must be a finite number of ms >= 0; got /,
      );
    }
    await expect(callsPerSample(() => {}, { targetMs: '30', maxCalls: 10 })).rejects.toThrow(
      'callsPerSample: options.targetMs must be a positive finite number of ms; got the string "30"',
    );
    await expect(callsPerSample(() => {}, { targetMs: 30, maxCalls: 10, minMs: 0 })).rejects.toThrow(
      'options.minMs must be a positive finite number of ms; got number 0',
    );
    await expect(callsPerSample(() => {}, { targetMs: 30, maxCalls: 2.5 })).rejects.toThrow(
      'options.maxCalls must be a whole number >= 1; got number 2.5',
    );
    await expect(callsPerSample(() => {}, { targetMs: 30, maxCalls: 10, minMs: null })).rejects.toThrow(
      'options.minMs must be a positive finite number of ms; got null',
    );
    await expect(callsPerSample(() => {}, { targetMs: 30, maxCalls: 10, clockMs: true })).rejects.toThrow(
      'options.clockMs must be a finite number of ms >= 0; got boolean true',
    );
    await expect(callsPerSample(() => {}, { targetMs: 30, maxCalls: 10, searchLimitMs: '5' })).rejects.toThrow(
      'options.searchLimitMs must be a positive finite number of ms; got the string "5"',
    );
    await expect(callsPerSample(() => {}, { targetMs: 0, maxCalls: 10 })).rejects.toThrow(RangeError);
    await expect(callsPerSample(() => {}, { targetMs: 5, maxCalls: 0 })).rejects.toThrow(RangeError);
    await expect(callsPerSample(() => {}, { targetMs: 5, maxCalls: 2.5 })).rejects.toThrow(RangeError);
  });
});

describe('the cost chapter on a coarse clock', () => {
  // A fake API whose attention costs cost(T, streaming) ms of virtual time.
  const cost = (T, streaming) => (streaming ? 0.036 : 0.06) * (T / 64) ** 2;
  const fakeAg = {
    random: { normal: ({ n }) => ({ data: new Float32Array(n) }) },
    attention: (Q, _K, _V, options) => {
      const T = Q.shape ? Q.shape[0] : Q.length;
      virtualMs += cost(T, options?.streaming !== false);
      return { output: { data: new Float32Array(T * (Q.shape ? Q.shape[1] : 2)) } };
    },
  };
  const checker = { squaredDistance: () => 0 };

  test.each([100, 50 / 3])('a %s ms clock: every median is measured, none 0', async (resolution) => {
    resolutionMs = resolution;
    readMs = resolution / 1000;
    const result = await attentionCost({ sizes: [64, 128, 256], dk: 8 }, fakeAg, checker, {
      onProgress: () => {},
      tick: async () => {},
    });
    for (const row of result.rows) {
      for (const [path, streaming] of [
        ['plain', false],
        ['streaming', true],
      ]) {
        const c = cost(row.T, streaming);
        // Samples of at least (TICKS - 1) ticks, each read within one tick.
        expect(row[path].medianMs).toBeGreaterThanOrEqual(c * (1 - 1 / (TICKS - 1)));
        expect(row[path].medianMs).toBeLessThanOrEqual(c * (1 + 1 / (TICKS - 1)));
      }
    }
  });

  test('on a 100 ms clock a call of 180 ms is not a sample by itself: one or two ticks read it', async () => {
    resolutionMs = 100;
    readMs = 0.1;
    const slowAg = {
      ...fakeAg,
      attention: (Q, K, V, options) => {
        const r = fakeAg.attention(Q, K, V, options);
        if (options?.streaming === false) virtualMs += 180;
        return r;
      },
    };
    const result = await attentionCost({ sizes: [64], dk: 8 }, slowAg, checker, {
      onProgress: () => {},
      tick: async () => {},
    });
    // Over SLOW_MS (100 ms) by this clock, but under four ticks: samples of one call each (read as
    // 100 or 200 ms) would be off by a half; samples of several calls last at least three ticks.
    expect(result.rows[0].plain.calls).toBeGreaterThan(2);
    expect(result.rows[0].plain.medianMs).toBeGreaterThanOrEqual(180.06 * (1 - 1 / (TICKS - 1)));
    expect(result.rows[0].plain.medianMs).toBeLessThanOrEqual(180.06 * (1 + 1 / (TICKS - 1)));
  });
});

describe('the tick of the clock', () => {
  test.each([0.005, 0.1, 1, 50 / 3, 100])('a clock of %s ms reads as a tick of that size', (resolution) => {
    resolutionMs = resolution;
    readMs = Math.max(READ_MS, resolution / 1000);
    // The first move of the clock starts a tick and each later one ends one;
    // reads of readMs each see the end of a tick at most one read late.
    const tick = clockTickMs();
    expect(tick).toBeGreaterThanOrEqual(resolution - 1e-9);
    expect(tick).toBeLessThanOrEqual(resolution + readMs + 1e-9);
  });

  test('a pause while the clock is read does not pass for its tick', () => {
    resolutionMs = 0.1;
    readMs = 0.001;
    // One read in the first tick's timing takes 5 ms (the thread was paused).
    let reads = 0;
    performance.now.mockImplementation(() => {
      reads += 1;
      virtualMs += reads === 150 ? 5 : readMs;
      return Math.floor(virtualMs / resolutionMs) * resolutionMs;
    });
    const tick = clockTickMs();
    expect(tick).toBeGreaterThanOrEqual(0.1 - 1e-9);
    expect(tick).toBeLessThanOrEqual(0.1 + readMs + 1e-9);
  });

  test('clockTick measures a clock once, and measures again a clock it could not', () => {
    resolutionMs = 1;
    expect(clockTick()).toBeCloseTo(1, 2);
    // The same clock function: the tick is remembered, not measured again.
    resolutionMs = 5;
    expect(clockTick()).toBeCloseTo(1, 2);
    // A clock whose tick was unknown (it did not move) is measured at the next call.
    jest.restoreAllMocks();
    let frozen = true;
    jest.spyOn(performance, 'now').mockImplementation(() => {
      if (!frozen) virtualMs += readMs;
      return Math.floor(virtualMs / resolutionMs) * resolutionMs;
    });
    expect(clockTick({ limitMs: 20 })).toBe(0);
    frozen = false;
    expect(clockTick()).toBeCloseTo(5, 2);
    // A clock still unknown after a second try is kept as unknown: each try costs the time limit.
    jest.restoreAllMocks();
    const stuck = jest.spyOn(performance, 'now').mockImplementation(() => 0);
    expect(clockTick({ limitMs: 20 })).toBe(0);
    expect(clockTick({ limitMs: 20 })).toBe(0);
    // The third call measures nothing: it does not read the clock at all.
    const reads = stuck.mock.calls.length;
    expect(clockTick({ limitMs: 200 })).toBe(0);
    expect(stuck.mock.calls.length).toBe(reads);
  });

  test('a clock that never moves has an unknown tick, 0, after the time limit', () => {
    readMs = 0;
    const t0 = Date.now();
    expect(clockTickMs({ limitMs: 20 })).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(20);
  });
});

describe('the kernel lab on a coarse clock', () => {
  /** An API instance whose dot product costs `cost` ms of virtual time (the i-th call `first[i]` if given); inputs are zeros. */
  const fakeAg = (cost, first = []) => {
    let calls = 0;
    return {
      random: { normal: ({ n }) => ({ data: new Float32Array(n) }) },
      dot: () => {
        virtualMs += calls < first.length ? first[calls] : cost;
        calls += 1;
        return 0;
      },
    };
  };

  test.each([
    [1, 0.05, 0.2],
    [0.1, 0.004, 0.02],
  ])('a %s ms clock: medians of %s ms and %s ms per call are measured, not 0', async (resolution, fast, slow) => {
    resolutionMs = resolution;
    const builds = [
      { variant: 'simd128', build: 'simd', ag: fakeAg(fast) },
      { variant: 'scalar', build: 'simd', ag: fakeAg(slow) },
    ];
    const result = await timeKernel({ kernel: 'dot', size: 256 }, builds, {
      onProgress: () => {},
      tick: async () => {},
    });
    const [a, b] = result.rows;
    // A round of about ROUND_MS read to within one tick, as a time per call.
    const within = (measured, cost, calls) => {
      const tick = resolution / calls;
      expect(measured).toBeGreaterThanOrEqual(cost - tick);
      expect(measured).toBeLessThanOrEqual(cost + tick);
    };
    within(a.medianMs, fast, a.reps);
    within(b.medianMs, slow, b.reps);
    expect(a.medianMs).toBeGreaterThan(0);
    // Rounds of about ROUND_MS, not many times longer (a first call read as 0 would have given that).
    for (const [row, cost] of [
      [a, fast],
      [b, slow],
    ]) {
      expect(row.reps * cost).toBeGreaterThan(ROUND_MS / 2);
      expect(row.reps * cost).toBeLessThan(2 * ROUND_MS);
    }
    expect(b.medianMs / a.medianMs).toBeCloseTo(slow / fast, 0);
  });

  test('a 100 ms clock (fingerprinting protection): medians are measured, not 0, in rounds of a few ticks', async () => {
    resolutionMs = 100;
    readMs = 0.1;
    const builds = [
      { variant: 'simd128', build: 'simd', ag: fakeAg(0.05) },
      { variant: 'scalar', build: 'simd', ag: fakeAg(0.2) },
    ];
    const result = await timeKernel({ kernel: 'dot', size: 256 }, builds, {
      onProgress: () => {},
      tick: async () => {},
    });
    for (const [row, cost] of [
      [result.rows[0], 0.05],
      [result.rows[1], 0.2],
    ]) {
      // Rounds of ROUND_MS (30 ms) would read 0 or 100 ms: a median of 0 most times.
      expect(row.reps * cost).toBeGreaterThanOrEqual(TICKS * 100 * (1 - 1 / TICKS) - cost / 2);
      // Each round is read within one tick of its length, at least (TICKS - 1) ticks.
      expect(row.medianMs).toBeGreaterThanOrEqual(cost * (1 - 1 / (TICKS - 1)));
      expect(row.medianMs).toBeLessThanOrEqual(cost * (1 + 1 / (TICKS - 1)));
    }
  });

  test('a pause of 40 ms in the call after the warm-up still gives rounds of many calls and a median near the cost', async () => {
    resolutionMs = 1;
    const builds = [{ variant: 'simd128', build: 'simd', ag: fakeAg(0.05, [0.05, 40]) }];
    const result = await timeKernel({ kernel: 'dot', size: 256 }, builds, {
      onProgress: () => {},
      tick: async () => {},
    });
    const [row] = result.rows;
    // Timed by that one call, a round would be one call of 0.05 ms on a 1 ms clock: a median of 0.
    expect(row.reps).toBeGreaterThan(ROUND_MS / 2 / 0.05);
    expect(row.medianMs).toBeGreaterThanOrEqual(0.05 - 1 / row.reps);
    expect(row.medianMs).toBeLessThanOrEqual(0.05 + 1 / row.reps);
  });
});
