// Decoding with a KV cache, ours only: one step of grouped-query attention
// (Ainslie et al. 2023) as a model generating text runs it, T = 1 new query
// per head against P cached keys and values plus its own, h_q query heads on
// h_kv key/value heads, with and without rotary positions (the new query and
// key turned at position P). The peers of workloads.mjs have no KV-cache or
// shared-head operation in the form benchmarked there, so this section
// compares our builds: simd128, scalar kernels, baseline. Each result is
// checked against the float64 reference first (max error relative to the
// largest |output|).
import { tensor } from './data.mjs';
import { attentionRow, maxError, rope } from '../../tests/reference/float64.mjs';
import { formatRatio, formatTime, timeOnOurs } from './kernels.mjs';

/** Sizes: P cached keys, h_q query heads on h_kv key/value heads of d channels. */
export const DECODE_SIZES = {
  full: { P: 4096, hq: 32, hkv: 8, d: 64 },
  smoke: { P: 40, hq: 4, hkv: 2, d: 8 },
};

/**
 * The decode workloads: [{ id, label, work, call(ag), reference() }], work the
 * flop of the two products (4 h_q (P + 1) d).
 */
export function decodeWorkloads({ smoke = false } = {}) {
  const { P, hq, hkv, d } = smoke ? DECODE_SIZES.smoke : DECODE_SIZES.full;
  const t = (data, shape) => ({ data, shape });
  const q = tensor([1, hq, 1, d], 81).data;
  const [k, v] = [82, 83].map((seed) => tensor([1, hkv, 1, d], seed).data);
  const [pk, pv] = [84, 85].map((seed) => tensor([1, hkv, P, d], seed).data);
  const args = (options) => (ag) =>
    ag.attention(t(q, [1, hq, 1, d]), t(k, [1, hkv, 1, d]), t(v, [1, hkv, 1, d]), {
      causal: true,
      pastKey: t(pk, [1, hkv, P, d]),
      pastValue: t(pv, [1, hkv, P, d]),
      ...options,
    }).output.data;
  // The float64 result of query head h on key/value head h / g, over the P cached rows and the
  // new one, with q and the new key as given (already turned, for the rope workload).
  const reference = (qs, ks) => () => {
    const g = hq / hkv;
    const out = new Float64Array(hq * d);
    for (let h = 0; h < hq; h++) {
      const kv = Math.floor(h / g);
      const K = new Float64Array((P + 1) * d);
      const V = new Float64Array((P + 1) * d);
      K.set(pk.subarray(kv * P * d, (kv + 1) * P * d));
      V.set(pv.subarray(kv * P * d, (kv + 1) * P * d));
      K.set(ks.subarray(kv * d, (kv + 1) * d), P * d);
      V.set(v.subarray(kv * d, (kv + 1) * d), P * d);
      out.set(attentionRow(qs.subarray(h * d, (h + 1) * d), K, V, P + 1, d, d, 1 / Math.sqrt(d)), h * d);
    }
    return out;
  };
  const label = `GQA decode: 1 query × ${hq} heads on ${hkv} key/value heads, ${P} cached keys, d = ${d}`;
  const work = 4 * hq * (P + 1) * d;
  return [
    { id: `decode-gqa-P${P}`, label, work, call: args({}), reference: reference(q, k) },
    {
      id: `decode-gqa-rope-P${P}`,
      label: `${label}, RoPE`,
      work,
      call: args({ rope: true }),
      // q and the new key turned at position P in float64 (RoFormer, base 10000, interleaved).
      reference: () => reference(rope(q, [P], hq, 1, d).y, rope(k, [P], hkv, 1, d).y)(),
    },
  ];
}

/** Times every decode workload on ours; returns the run's `decode` entries. */
export async function measureDecode(ours, { smoke, measure, timing, log }) {
  const out = [];
  for (const w of decodeWorkloads({ smoke })) {
    const want = w.reference();
    const timed = await timeOnOurs(ours, w.call, { measure, timing });
    const results = timed.results.map((r) => ({
      ...r,
      error: maxError(w.call(ours.find((impl) => impl.id === r.impl).ag), want).relative,
    }));
    out.push({ id: w.id, label: w.label, work: w.work, results, ratios: timed.ratios });
    log(`${w.label}: ${results.map((r) => `${r.impl} ${r.medianMs?.toFixed(4) ?? 'failed'} ms`).join(', ')}`);
  }
  return out;
}

/** The Markdown section of the decode workloads. */
export function decodeReport(run) {
  if (!run.decode?.length) return '';
  const [time, ratio] = [formatTime, formatRatio];
  const lines = [
    '',
    '## Decoding with a KV cache (ours only)',
    '',
    'One decoding step of grouped-query attention with a KV cache (`attention` with `pastKey`, `pastValue`, `causal`; and `rope: true`). Median time per call; the error is the largest |ours − float64| over the largest |output|.',
    '',
    '| workload | simd128 | scalar kernels | baseline build | scalar / simd128 | baseline / simd128 | max error (simd128) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const w of run.decode) {
    const r = (id) => w.results.find((x) => x.impl === id);
    lines.push(
      `| ${w.label} | ${time(r('ag-simd128')?.medianMs)} | ${time(r('ag-scalar')?.medianMs)} | ${time(r('ag-baseline')?.medianMs)} | ${ratio(w.ratios.vsScalar)} | ${ratio(w.ratios.vsBaseline)} | ${r('ag-simd128')?.error?.toExponential(1) ?? '—'} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
