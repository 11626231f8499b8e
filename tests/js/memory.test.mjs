// Wasm memory: memoryStats() and resetPeakMemory() (src/js/heap.js), and
// what they show about attention. The streaming path (the default when
// neither weights nor scores are asked for) holds no [Tq, Tk] buffer: its
// peak is the inputs and the output plus a work buffer of fixed size
// (AG_ATTENTION_STREAMING_WORK_FLOATS = 64*256 + 2*64 floats, registry.inc),
// while `streaming: false` forms the [Tq, Tk] score grid.
//
// The bound asserted for a streaming call, in bytes above the allocation
// before it:
//   4 (Tq d_k + Tk d_k + Tk d_v + Tq d_v)      inputs Q, K, V and output
//   + 4 (64*256 + 2*64)                         the streaming work
//   + 4 KiB                                     the dims block and the
//                                               allocator's per-block headers
// which at T = 4096, d = 64 is about 4.07 MiB, against the 64 MiB of one
// [4096, 4096] float grid. The materialized call must exceed 4 Tq Tk bytes.
import { beforeAll, describe, expect, test } from '@jest/globals';
import * as ref from '../reference/float64.mjs';
import { CONFIGS, init } from './helpers.mjs';

const STREAMING_WORK_BYTES = 4 * (64 * 256 + 2 * 64);
const SLACK_BYTES = 4096;

describe.each(CONFIGS)('wasm memory: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test('memoryStats: heap size, bytes in use now, the peak since resetPeakMemory', () => {
    const s0 = ag.memoryStats();
    expect(Object.keys(s0).sort()).toEqual(['allocatedBytes', 'heapBytes', 'peakAllocatedBytes']);
    for (const v of Object.values(s0)) expect(Number.isInteger(v) && v >= 0).toBe(true);
    expect(s0.heapBytes).toBeGreaterThanOrEqual(s0.allocatedBytes);
    expect(s0.peakAllocatedBytes).toBeGreaterThanOrEqual(s0.allocatedBytes);
    expect(s0.allocatedBytes).toBe(ag.heapAllocatedBytes());

    ag.resetPeakMemory();
    const s1 = ag.memoryStats();
    expect(s1.peakAllocatedBytes).toBe(s1.allocatedBytes);
    // A call holding 2 x 1 MiB of inputs and 1 MiB of output raises the
    // peak by at least 3 MiB, and gives everything back.
    const n = 1 << 18;
    const a = new Float32Array(n).fill(1);
    ag.exp(a);
    ag.dot(a, a);
    const s2 = ag.memoryStats();
    expect(s2.allocatedBytes).toBe(s1.allocatedBytes);
    expect(s2.peakAllocatedBytes - s1.allocatedBytes).toBeGreaterThanOrEqual(2 * 4 * n);
    expect(s2.peakAllocatedBytes - s1.allocatedBytes).toBeLessThan(2 * 4 * n + SLACK_BYTES);
    // A failed call counts too if it allocated; one that throws before does not.
    ag.resetPeakMemory();
    expect(() => ag.dot(a, [1])).toThrow(RangeError);
    expect(ag.memoryStats().peakAllocatedBytes).toBe(s1.allocatedBytes);
  });

  test('attention: streaming needs inputs + output + a fixed work buffer; streaming: false needs the [T, T] grid', () => {
    // T = 4096 on the SIMD variant; the scalar variants (about ten times
    // slower) show the same at T = 1024.
    const T = cfg.variant === 'simd128' ? 4096 : 1024;
    const d = 64;
    const r = ref.rng(4096);
    const q = { data: r.f32(T * d), shape: [T, d] };
    const k = { data: r.f32(T * d), shape: [T, d] };
    const v = { data: r.f32(T * d), shape: [T, d] };
    const io = 4 * 4 * T * d; // Q, K, V and the output

    ag.resetPeakMemory();
    const base = ag.memoryStats().allocatedBytes;
    const streamed = ag.attention(q, k, v);
    const sStream = ag.memoryStats();
    expect(streamed.output.shape).toEqual([T, d]);
    expect(sStream.allocatedBytes).toBe(base);
    const streamPeak = sStream.peakAllocatedBytes - base;
    expect(streamPeak).toBeGreaterThanOrEqual(io);
    expect(streamPeak).toBeLessThanOrEqual(io + STREAMING_WORK_BYTES + SLACK_BYTES);
    if (T === 4096) expect(streamPeak).toBeLessThan((4 * T * T) / 8); // well under one [T, T] grid

    ag.resetPeakMemory();
    ag.attention(q, k, v, { streaming: false });
    const gridPeak = ag.memoryStats().peakAllocatedBytes - base;
    expect(gridPeak).toBeGreaterThanOrEqual(io + 4 * T * T);
    expect(gridPeak - streamPeak).toBeGreaterThanOrEqual(4 * T * T - STREAMING_WORK_BYTES);
    expect(ag.memoryStats().heapBytes).toBeGreaterThanOrEqual(4 * T * T);
  });

  test('multi-head attention: the streaming workspace has no [Tq, Tk] grid either', () => {
    const [T, dm, h] = [512, 32, 4];
    const r = ref.rng(512);
    const x = { data: r.f32(T * dm), shape: [T, dm] };
    const w = {};
    for (const name of ['wQ', 'wK', 'wV', 'wO']) w[name] = { data: r.f32(dm * dm, -0.3, 0.3), shape: [dm, dm] };
    let first = null;
    const peak = (options) => {
      ag.resetPeakMemory();
      const base = ag.memoryStats().allocatedBytes;
      const out = ag.multiHeadAttention({ query: x }, w, { numHeads: h, ...options }).output.data;
      // Everything is given back (query, key and value share one copy, freed once),
      // and a second call gives the same output bit for bit.
      expect(ag.memoryStats().allocatedBytes).toBe(base);
      if (options.streaming === undefined) {
        if (first) expect(Array.from(out)).toEqual(first);
        first = Array.from(out);
      }
      return ag.memoryStats().peakAllocatedBytes - base;
    };
    // Inputs: X (copied in once for query, key and value) and four weights;
    // the output; the workspace: Q, K, V, the heads and the attention's work.
    const fixed = 4 * (T * dm + 4 * dm * dm + T * dm + 4 * T * dm);
    const streamPeak = peak({});
    expect(peak({})).toBe(streamPeak);
    expect(streamPeak).toBeLessThanOrEqual(fixed + STREAMING_WORK_BYTES + SLACK_BYTES);
    expect(peak({ streaming: false }) - streamPeak).toBeGreaterThanOrEqual(4 * T * T - STREAMING_WORK_BYTES);
  });
});
