// Decoding with a KV cache (issue 20): one step of grouped-query attention
// (Ainslie et al. 2023) as a model generating text runs it, T = 1 new query
// per head against P cached keys and values plus its own, h_q query heads on
// h_kv key/value heads, with and without rotary positions (RoFormer, base
// 10000, interleaved pairs: the new query and key turned at position P; the
// cached keys were turned when they were new). A step's results are the
// output and the present key and value ([past; new], the cache of the next
// step): every implementation returns all three through its API, and the
// output is checked against float64. A third workload is the step with RoPE
// once more, ours keeping the cache resident in wasm memory (createKvCache,
// attention's `cache` option: the new key and value written in place, the
// output the one result) and the peers running the same step as in the
// second, so that the two of ours can be set side by side.
import { tensor } from './data.mjs';
import { attentionRow, rope } from '../../tests/reference/float64.mjs';

/** Sizes: P cached keys, h_q query heads on h_kv key/value heads of d channels. */
export const DECODE_SIZES = {
  full: { P: 4096, hq: 32, hkv: 8, d: 64 },
  smoke: { P: 40, hq: 4, hkv: 2, d: 8 },
};

/** The family's entry of FAMILIES (workloads.mjs). */
export const DECODE_FAMILY = {
  what: 'one decoding step of grouped-query attention: q [1, h_q, 1, d] against the cache [1, h_kv, P, d] and the new key and value [1, h_kv, 1, d], the output and the present key and value returned',
  count: 'flop = 4 h_q (P + 1) d (the two products)',
  unit: 'GFLOP/s',
};

/**
 * The cos and sin of the angles that turn the interleaved pairs of a row of
 * d channels at `position` (angle of pair i: position · 10000^(−2i/d)), each
 * [d / 2], in float64.
 */
export function ropeAngles(position, d) {
  const half = d / 2;
  const cos = new Float64Array(half);
  const sin = new Float64Array(half);
  for (let i = 0; i < half; i++) {
    const angle = position * 10000 ** ((-2 * i) / d);
    cos[i] = Math.cos(angle);
    sin[i] = Math.sin(angle);
  }
  return { cos, sin };
}

/**
 * One decoding step in textbook loops (decode.mjs's workloads; plain JS and
 * the float64 reference): with `dims.rope`, q and the new key turned at
 * position P (tests/reference/float64.mjs), the present key and value
 * [1, h_kv, P + 1, d] joined, and query head h attending on key/value head
 * h / g. Returns the output [1, h_q, 1, d] in `Out`; the present key and
 * value are built in `Out` too, as a step's results.
 */
export function decodeLoops({ q, k, v, pk, pv }, { P, hq, hkv, d, rope: turn }, Out = Float64Array) {
  const g = hq / hkv;
  const qs = turn ? rope(q, [P], hq, 1, d).y : q;
  const ks = turn ? rope(k, [P], hkv, 1, d).y : k;
  const presentKey = new Out(hkv * (P + 1) * d);
  const presentValue = new Out(hkv * (P + 1) * d);
  for (let kv = 0; kv < hkv; kv++) {
    const at = kv * (P + 1) * d;
    presentKey.set(pk.subarray(kv * P * d, (kv + 1) * P * d), at);
    presentValue.set(pv.subarray(kv * P * d, (kv + 1) * P * d), at);
    presentKey.set(ks.subarray(kv * d, (kv + 1) * d), at + P * d);
    presentValue.set(v.subarray(kv * d, (kv + 1) * d), at + P * d);
  }
  const out = new Out(hq * d);
  for (let h = 0; h < hq; h++) {
    const at = Math.floor(h / g) * (P + 1) * d;
    const [K, V] = [presentKey, presentValue].map((x) => x.subarray(at, at + (P + 1) * d));
    out.set(attentionRow(qs.subarray(h * d, (h + 1) * d), K, V, P + 1, d, d, 1 / Math.sqrt(d)), h * d);
  }
  return out;
}

/**
 * The decode workloads, in the form of workloads.mjs: [{ id, family:
 * 'decode', label, work, dims: { P, hq, hkv, d, rope }, inputs: { q, k, v,
 * pk, pv }, reference() }].
 */
export function decodeWorkloads({ smoke = false } = {}) {
  const { P, hq, hkv, d } = smoke ? DECODE_SIZES.smoke : DECODE_SIZES.full;
  const q = tensor([1, hq, 1, d], 81).data;
  const [k, v] = [82, 83].map((seed) => tensor([1, hkv, 1, d], seed).data);
  const [pk, pv] = [84, 85].map((seed) => tensor([1, hkv, P, d], seed).data);
  const label = `GQA decode: 1 query × ${hq} heads on ${hkv} key/value heads, ${P} cached keys, d = ${d}`;
  const inputs = { q, k, v, pk, pv };
  return [
    [false, false],
    [true, false],
    [true, true],
  ].map(([turn, cache]) => {
    const dims = { P, hq, hkv, d, rope: turn, cache };
    return {
      id: `decode-gqa${turn ? '-rope' : ''}${cache ? '-cache' : ''}-P${P}`,
      family: 'decode',
      label: `${label}${turn ? ', RoPE' : ''}${cache ? ', ours with the cache resident (createKvCache)' : ''}`,
      work: 4 * hq * (P + 1) * d,
      dims,
      inputs,
      reference: () => decodeLoops(inputs, dims),
    };
  });
}
