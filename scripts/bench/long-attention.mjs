// Attention at a long sequence (T = 4096, d_k = d_v = 64), ours only: its
// time and the peak wasm heap of the call, for the streaming path (online
// softmax over key tiles, no [T, T] buffer) and, if it fits, the
// materialized one (streaming: false). The peak comes from the API's
// memoryStats() after resetPeakMemory(); the heap in use before the call is
// subtracted, so "extra" is what the call itself allocated at its peak
// (inputs, output and workspace). The extra peak is also measured at T/4 and
// T/2: a path without a [T, T] buffer grows linearly with T.
import { tensor } from './data.mjs';
import { attentionRef, maxError } from '../../tests/reference/float64.mjs';
import { measure } from './timing.mjs';

const hasMemoryStats = (ag) => typeof ag.memoryStats === 'function' && typeof ag.resetPeakMemory === 'function';

/** Whether ag.attention knows the `streaming` option (an unknown option key is a TypeError naming it). */
function knowsStreaming(ag) {
  const x = { data: new Float32Array(8).fill(0.5), shape: [2, 4] };
  try {
    ag.attention(x, x, x, { streaming: true });
    return true;
  } catch (e) {
    if (e instanceof TypeError && /streaming/.test(e.message)) return false;
    throw e;
  }
}

/** { extraBytes, peakBytes, beforeBytes } of one call, or null without memoryStats. */
function peakOf(ag, call) {
  if (!hasMemoryStats(ag)) return null;
  const beforeBytes = ag.memoryStats().allocatedBytes;
  ag.resetPeakMemory();
  call();
  const peakBytes = ag.memoryStats().peakAllocatedBytes;
  return { beforeBytes, peakBytes, extraBytes: peakBytes - beforeBytes };
}

function inputs(T, d) {
  return [61, 62, 63].map((seed) => tensor([T, d], seed + T));
}

/**
 * Measures ours (instance `ag`, the simd128 build) at sequence length T.
 * Returns { T, d, memoryStats, streamingOption, paths: [{ name, ok, medianMs (by `clock`), wallMedianMs, cpuMedianMs, gflops, peak, growth, error }] }.
 */
export async function measureLongAttention(ag, { T, d = 64, clock, rounds, roundMs }) {
  const streamingOption = knowsStreaming(ag);
  const [Q, K, V] = inputs(T, d);
  // The float64 reference on 64 query rows spread over the sequence (rows are independent).
  const step = Math.max(1, Math.floor(T / 64));
  const rows = Array.from({ length: Math.ceil(T / step) }, (_, i) => i * step);
  const ref = attentionRef(Q.data, K.data, V.data, T, d, d, 1 / Math.sqrt(d), { rows });
  const flop = 4 * T * T * d;
  const paths = streamingOption
    ? [
        { name: 'streaming (default)', options: {} },
        { name: 'materialized (streaming: false)', options: { streaming: false } },
      ]
    : [{ name: 'default (this build has no streaming option)', options: {} }];
  const out = [];
  for (const p of paths) {
    const call = (q = Q, k = K, v = V) => ag.attention(q, k, v, p.options).output.data;
    let result;
    try {
      result = call();
    } catch (e) {
      out.push({ name: p.name, ok: false, reason: `${e.name}: ${e.message.slice(0, 200)}` });
      continue;
    }
    const error = maxError(result, ref, { rows, width: d });
    const peak = peakOf(ag, () => call());
    const growth = [];
    if (peak) {
      for (const t of [T / 4, T / 2]) {
        const [q, k, v] = inputs(t, d);
        growth.push({ T: t, ...peakOf(ag, () => call(q, k, v)) });
      }
      growth.push({ T, ...peak });
    }
    const timed = await measure([{ key: p.name, run: () => call(), isAsync: false }], {
      clock,
      rounds,
      roundMs,
      warmMs: 0,
      minCalls: 1,
    });
    const { failed, ...times } = timed.get(p.name);
    if (failed) out.push({ name: p.name, ok: false, reason: failed });
    else out.push({ name: p.name, ok: true, ...times, gflops: flop / times.medianMs / 1e6, peak, growth, error });
  }
  return { T, d, flop, memoryStats: hasMemoryStats(ag), streamingOption, squareBufferBytes: 4 * T * T, paths: out };
}
