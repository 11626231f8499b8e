// This project's implementations, called through the public API of dist/
// (the built package): each call copies its inputs into the wasm heap,
// runs one kernel and copies the result out, as a user's call does.
//   ag-simd128   the SIMD build, simd128 kernels (what init() picks)
//   ag-scalar    the SIMD build, scalar kernels (same module, same copies)
//   ag-baseline  the baseline build for engines without SIMD (init({ simd: false }))
import { readFileSync } from 'node:fs';
import { init } from '../../dist/index.js';

const CONFIGS = [
  { id: 'ag-simd128', label: 'ours, simd128', options: { simd: true, variant: 'simd128' } },
  { id: 'ag-scalar', label: 'ours, scalar kernels in the SIMD build', options: { simd: true, variant: 'scalar' } },
  { id: 'ag-baseline', label: 'ours, baseline build (no SIMD)', options: { simd: false } },
];

/** The call of workload `w` on instance `ag` ({ name, run }), `run` returning the result's Float32Array. */
export function callOf(ag, w) {
  const t = (data, shape) => ({ data, shape });
  const { inputs: x, dims } = w;
  switch (w.family) {
    case 'matmul':
      return { name: 'matmul', run: () => ag.matmul(t(x.A, [dims.M, dims.K]), t(x.B, [dims.K, dims.N])).data };
    case 'qkt':
      return {
        name: 'matmul transposeB',
        run: () => ag.matmul(t(x.Q, [dims.T, dims.d]), t(x.K, [dims.T, dims.d]), { transposeB: true }).data,
      };
    case 'softmax':
      return { name: 'softmax', run: () => ag.softmax(t(x.X, [dims.rows, dims.cols])).data };
    case 'attention': {
      const s = [dims.T, dims.d];
      return { name: 'attention', run: () => ag.attention(t(x.Q, s), t(x.K, s), t(x.V, s)).output.data };
    }
    case 'mha': {
      const { T, D, h } = dims;
      const sq = [D, D];
      const weights = {
        wQ: t(w.weights.wQ, sq),
        wK: t(w.weights.wK, sq),
        wV: t(w.weights.wV, sq),
        wO: t(w.weights.wO, sq),
      };
      return {
        name: 'multiHeadAttention',
        run: () => ag.multiHeadAttention({ query: t(x.X, [T, D]) }, weights, { numHeads: h }).output.data,
      };
    }
    case 'decode': {
      const { P, hq, hkv, d, rope } = dims;
      const kv = [1, hkv, 1, d];
      if (dims.cache) return residentDecode(ag, w);
      const options = { causal: true, pastKey: t(x.pk, [1, hkv, P, d]), pastValue: t(x.pv, [1, hkv, P, d]) };
      if (rope) options.rope = true;
      return {
        name: `attention (pastKey, pastValue, causal${rope ? ', rope' : ''})`,
        // The output and the present key and value come back from the one call.
        run: () => ag.attention(t(x.q, [1, hq, 1, d]), t(x.k, kv), t(x.v, kv), options).output.data,
      };
    }
    default:
      throw new Error(`no call for family ${w.family}`);
  }
}

/**
 * The decoding step of `w` with the cache resident in wasm memory: a cache of
 * capacity P + 1 filled once with the P cached keys (already turned, as
 * pastKey's are) and values; each call writes the new key (turned at P) and
 * value at row P and attends over the P + 1 rows in place. After each call
 * the cache is set back to its P rows (its private length: the API has no
 * truncation) so that every timed call is the same step. `dispose` frees it.
 */
function residentDecode(ag, w) {
  const t = (data, shape) => ({ data, shape });
  const { inputs: x, dims } = w;
  const { P, hq, hkv, d, rope } = dims;
  const kv = [1, hkv, 1, d];
  const cache = ag.createKvCache({ kvHeads: hkv, capacity: P + 1, dK: d });
  ag.attention(t(new Float32Array(hq * d), [1, hq, 1, d]), t(x.pk, [1, hkv, P, d]), t(x.pv, [1, hkv, P, d]), {
    cache,
  });
  const options = { causal: true, cache };
  if (rope) options.rope = true;
  return {
    name: `attention (cache, causal${rope ? ', rope' : ''})`,
    run: () => {
      const out = ag.attention(t(x.q, [1, hq, 1, d]), t(x.k, kv), t(x.v, kv), options).output.data;
      cache.truncate(P); // the same step on every timed call
      return out;
    },
    dispose: () => cache.dispose(),
  };
}

/** The three implementations of ours, each with its loaded instance (`ag`) for the probe and the memory measurement. */
export async function oursImplementations() {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const out = [];
  for (const c of CONFIGS) {
    const ag = await init(c.options);
    out.push({
      id: c.id,
      label: c.label,
      kind: 'ours',
      version: `attention-geometry ${version} (${ag.backend}, ${ag.variant})`,
      ag,
      prepare: async (w) => [{ dispose() {}, ...callOf(ag, w), isAsync: false }],
    });
  }
  return out;
}
