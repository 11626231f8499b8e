// The ONNX operator conformance cases (tests/data/onnx, see its README.md)
// that the API covers, on every configuration, with the ONNX runner's
// tolerance |actual - expected| <= 1e-7 + 1e-3 |expected| (README.md). Cases
// needing a feature the API does not have are listed as skipped with that
// feature. Reshaping and transposing test data (e.g. ONNX's 3-D attention
// layout [B, T, h*d] to [B, h, T, d]) is data movement in the test; every
// number compared comes from the API.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, expectClose, init, listJson, num, readJson, reportSkipped } from './helpers.mjs';

const onnxTol = (i, want) => 1e-7 + 1e-3 * Math.abs(want);
// float16 cases run with their inputs widened to float32 (exactly: every float16 is a float32)
// and are compared at float16's precision: their expected values were computed and stored in
// float16, each stored weight and output rounded to 11 bits (2^-11 relative), and the sum of
// rounded terms in float16 adds about as much again; four such roundings, plus float16's
// smallest normal 2^-14 for values near 0, bound the difference.
const float16Tol = (i, want) => 2 ** -14 + 4 * 2 ** -11 * Math.abs(want);
const isFloat16 = (c) => [...c.inputs, ...c.outputs].some((t) => t.dtype === 'float16');

/** Moves axis `axis` of a row-major [shape] array to the end (a permutation of the data). */
function moveAxisLast(data, shape, axis) {
  const perm = [...shape.keys()].filter((d) => d !== axis).concat([axis]);
  return transpose(data, shape, perm);
}
/** out[perm-ordered index] = data[index]: out has shape perm.map(p => shape[p]). */
function transpose(data, shape, perm) {
  const outShape = perm.map((p) => shape[p]);
  const strides = new Array(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d];
  }
  const out = new Array(data.length);
  const idx = new Array(shape.length).fill(0);
  for (let o = 0; o < data.length; o++) {
    let src = 0;
    for (let d = 0; d < perm.length; d++) src += idx[d] * strides[perm[d]];
    out[o] = data[src];
    for (let d = perm.length - 1; d >= 0; d--) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
  return { data: out, shape: outShape };
}
const inverse = (perm) => perm.map((_, i) => perm.indexOf(i));

function tensorOf(t) {
  if (t.dtype === 'bool') return { data: t.data.map(Boolean), shape: t.shape };
  return { data: Float32Array.from(t.data.map(num)), shape: t.shape };
}

// Why a case is not covered, or null when it is.
function missingFeature(c) {
  const dtypes = [...c.inputs, ...c.outputs].map((t) => t.dtype);
  if (dtypes.includes('float64')) return 'float64 tensors (the API is float32)';
  const a = c.attributes;
  switch (c.op) {
    case 'Attention': {
      const ins = c.node_inputs;
      const tensor = (i) => c.inputs.find((t) => t.name === ins[i]);
      return tensor(0) ? null : 'no Q';
    }
    case 'Softmax':
    case 'MatMul':
    case 'LpNormalization':
      return null;
    case 'Gemm': {
      // A bias C of zeros adds nothing (gemm_transposeA's): the case is matmul's, transA included.
      const bias = c.node_inputs[2] && c.inputs.find((t) => t.name === c.node_inputs[2]);
      if (a.alpha !== undefined || a.beta !== undefined || (bias && bias.data.some((x) => num(x) !== 0))) {
        return 'Gemm alpha/beta/bias C (no fused GEMM kernel; scaling or adding in JS would be arithmetic outside wasm)';
      }
      return null;
    }
    case 'ReduceL2':
      if (c.inputs[0].shape.includes(0))
        return 'empty reduction (zero-length vectors are rejected by design; ONNX gives 0)';
      return null;
    case 'LayerNormalization':
      return null;
    case 'Einsum':
      return 'Einsum';
    default:
      return `op ${c.op}`;
  }
}

/** ONNX qk_matmul_output_mode 0, 1, 2 as the API's returnScores. */
const STAGES = ['raw', 'capped', 'masked'];

/**
 * An ONNX attn_mask whose last axis is shorter than the keys is padded with -inf to the keys
 * (the operator's rule, opset 23): the test writes that padding into the mask it passes, as it
 * moves the 3-D layout; the API itself asks for a mask that broadcasts.
 */
function paddedMask(mask, keys) {
  const n = mask.shape.at(-1);
  if (n === 1 || n >= keys) return mask;
  const rows = mask.data.length / n;
  const fill = typeof mask.data[0] === 'boolean' ? false : -Infinity;
  const data = Array.from({ length: rows * keys }, (_, x) =>
    x % keys < n ? mask.data[Math.floor(x / keys) * n + (x % keys)] : fill,
  );
  return {
    data: typeof fill === 'boolean' ? data : Float32Array.from(data),
    shape: [...mask.shape.slice(0, -1), keys],
  };
}

// Runs a covered case; returns [[label, got, want], ...] to compare.
function run(ag, c) {
  const byName = Object.fromEntries(c.inputs.map((t) => [t.name, t]));
  const input = (i) => byName[c.node_inputs[i]];
  const a = c.attributes;
  const out0 = c.outputs.find((t) => t.node_output_index === 0 || t.name === c.node_outputs[0]);
  switch (c.op) {
    case 'Attention': {
      const [q, k, v] = [0, 1, 2].map((i) => tensorOf(input(i)));
      let qh = q;
      let kh = k;
      let vh = v;
      const threeD = q.shape.length === 3;
      // [B, T, h*d] -> [B, h, T, d] (ONNX README: head-major split of the last axis); K and V have
      // kv_num_heads heads, fewer than Q's with shared key/value heads (GQA/MQA).
      const split = (t, heads) => {
        const [B, T, hd] = t.shape;
        const r = transpose(t.data, [B, T, heads, hd / heads], [0, 2, 1, 3]);
        return { data: Float32Array.from(r.data), shape: r.shape };
      };
      if (threeD) [qh, kh, vh] = [split(q, a.q_num_heads), split(k, a.kv_num_heads), split(v, a.kv_num_heads)];
      const opts = { causal: Boolean(a.is_causal), returnWeights: true, returnScores: true };
      if (a.scale !== undefined) opts.scale = a.scale;
      if (a.softcap) opts.softcap = a.softcap;
      if (c.node_inputs[3])
        opts.mask = paddedMask(tensorOf(input(3)), kh.shape.at(-2) + (c.node_inputs[4] ? input(4).shape.at(-2) : 0));
      // KV cache: past_key, past_value [B, kv_heads, P, d] before K and V; present_* are both joined.
      if (c.node_inputs[4]) [opts.pastKey, opts.pastValue] = [tensorOf(input(4)), tensorOf(input(5))];
      // nonpad_kv_seqlen: per batch, the count of valid keys (with is_causal, query i at kvSeqLen[b] - Tq + i).
      if (c.node_inputs[6]) opts.kvSeqLen = input(6).data.map(Number);
      const res = ag.attention(qh, kh, vh, opts);
      let y = res.output;
      if (threeD) {
        const r = transpose(Array.from(y.data), y.shape, [0, 2, 1, 3]);
        y = { data: r.data, shape: [r.shape[0], r.shape[1], r.shape[2] * r.shape[3]] };
      }
      const checks = [['Y', y, out0]];
      for (const [i, name] of [
        [1, 'presentKey'],
        [2, 'presentValue'],
      ]) {
        const want = c.outputs.find((t) => c.node_outputs[i] && t.name === c.node_outputs[i]);
        if (want) checks.push([name, res[name], want]);
      }
      const qk = c.outputs.find((t) => t.name === c.node_outputs[3]);
      if (qk) {
        // Modes 0, 1, 2: the scores scale Q K^T, then capped, then + mask (the API's 'raw', 'capped',
        // 'masked'); mode 3: the weights.
        const mode = a.qk_matmul_output_mode ?? 0;
        const scores = mode === 3 ? null : ag.attention(qh, kh, vh, { ...opts, returnScores: STAGES[mode] }).scores;
        checks.push(['qk_matmul_output', mode === 3 ? res.weights : scores, qk]);
      }
      return checks;
    }
    case 'Softmax': {
      const x = tensorOf(input(0));
      const rank = x.shape.length;
      const axis = ((a.axis ?? -1) + rank) % rank;
      const moved = moveAxisLast(Array.from(x.data), x.shape, axis);
      const y = ag.softmax({ data: Float32Array.from(moved.data), shape: moved.shape });
      const perm = [...x.shape.keys()].filter((d) => d !== axis).concat([axis]);
      const back = transpose(Array.from(y.data), y.shape, inverse(perm));
      return [['y', back, out0]];
    }
    case 'MatMul':
    case 'Gemm': {
      const A = tensorOf(input(0));
      const B = tensorOf(input(1));
      if (A.shape.length === 1 && B.shape.length === 1)
        return [['c (dot)', { data: [ag.dot(A.data, B.data)], shape: [] }, out0]];
      const [transposeA, transposeB] = [Boolean(a.transA), Boolean(a.transB)];
      if (B.shape.length === 1) {
        // [..., M, K] . [K] = ([..., M, K] . [K, 1]) without the last axis (NumPy matmul rules).
        const r = ag.matmul(A, { data: B.data, shape: [B.shape[0], 1] });
        return [['c', { data: r.data, shape: r.shape.slice(0, -1) }, out0]];
      }
      return [['c', ag.matmul(A, B, { transposeB, transposeA }), out0]];
    }
    case 'ReduceL2': {
      const x = tensorOf(input(0));
      const rank = x.shape.length;
      const axesT = input(1);
      const axes = axesT && axesT.data.length ? axesT.data.map((d) => (d + rank) % rank) : [...x.shape.keys()];
      const kept = [...x.shape.keys()].filter((d) => !axes.includes(d));
      // Move the reduced axes last, then one norm per row of the kept axes.
      const moved = transpose(Array.from(x.data), x.shape, [...kept, ...axes]);
      const len = axes.reduce((p, d) => p * x.shape[d], 1);
      const out = [];
      for (let r = 0; r < moved.data.length / len; r++)
        out.push(ag.norm(Float32Array.from(moved.data.slice(r * len, (r + 1) * len))));
      const shape = a.keepdims === 0 ? kept.map((d) => x.shape[d]) : x.shape.map((s, d) => (axes.includes(d) ? 1 : s));
      return [['reduced', { data: out, shape }, out0]];
    }
    case 'LayerNormalization': {
      // Normalised over the axes from `axis` on (default -1): rows of those axes flattened, which is
      // layerNorm over the last axis of x seen as [rows, n], with W and B ([axis..] of x) as [n].
      // Mean and InvStdDev keep x's rank, 1 on the normalised axes; InvStdDev is layerNorm's rstd.
      const x = tensorOf(input(0));
      const rank = x.shape.length;
      const axis = ((a.axis ?? -1) + rank) % rank;
      const n = x.shape.slice(axis).reduce((p, d) => p * d, 1);
      const flat = (t) => t && Float32Array.from(t.data.map(num));
      const { y, mean, rstd } = ag.layerNorm(
        { data: x.data, shape: [x.data.length / n, n] },
        { gamma: flat(input(1)), beta: flat(input(2)), eps: a.epsilon ?? 1e-5 },
      );
      const statsShape = x.shape.map((d, i) => (i < axis ? d : 1));
      const checks = [['Y', { data: y.data, shape: x.shape }, out0]];
      for (const [i, got] of [
        [1, mean],
        [2, rstd],
      ]) {
        const want = c.outputs.find((t) => c.node_outputs[i] && t.name === c.node_outputs[i]);
        if (want) checks.push([c.node_outputs[i], { data: got.data, shape: statsShape }, want]);
      }
      return checks;
    }
    case 'LpNormalization': {
      const x = tensorOf(input(0));
      const n = x.shape.at(-1);
      const out = [];
      for (let r = 0; r < x.data.length / n; r++) out.push(...ag.normalize(x.data.subarray(r * n, (r + 1) * n)).data);
      return [['y', { data: out, shape: x.shape }, out0]];
    }
    default:
      throw new Error(`no runner for ${c.op}`);
  }
}

const files = listJson('onnx');
const cases = files.map((f) => ({ file: f.replace(/\.json$/, ''), ...readJson(`onnx/${f}`) }));

test('the ONNX data is all there (92 cases, README.md)', () => {
  expect(cases.length).toBe(92);
});

describe.each(CONFIGS)('ONNX conformance cases: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });
  for (const c of cases) {
    const missing = missingFeature(c);
    if (missing) {
      test.skip(`${c.file} (${c.op}) skipped, missing feature: ${missing}`, () => {});
      continue;
    }
    test(`${c.file} (${c.op})`, () => {
      for (const [label, got, want] of run(ag, c)) {
        expect([label, got.shape]).toEqual([label, want.shape]);
        expectClose(got.data, want.data.map(num), isFloat16(c) ? float16Tol : onnxTol, `${c.file}: ${label}`);
      }
    });
  }
});

afterAll(() => {
  const skipped = cases.map((c) => [c.file, missingFeature(c)]).filter(([, m]) => m);
  reportSkipped('ONNX cases (tests/data/onnx)', skipped);
});
