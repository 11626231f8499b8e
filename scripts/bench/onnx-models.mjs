// The ONNX models that onnxruntime-web runs in the benchmark, built with
// onnx-proto (the ONNX schema compiled for protobufjs) and encoded to bytes.
// Each workload has one or more candidate graphs: the plain ONNX operators,
// and where onnxruntime has a fused operator for it (com.microsoft
// MultiHeadAttention and Attention, ONNX's own Attention of opset 23) that
// too; peers-ort.mjs keeps the fastest that runs. Shapes are in elements,
// row-major; weights are initializers (constants of the model), as a user of
// onnxruntime would ship them.
import onnxProto from 'onnx-proto';
import { ropeAngles } from './decode.mjs';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const ATTR = onnx.AttributeProto.AttributeType;

const valueInfo = (name, dims) => ({
  name,
  type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
});

/** A float32 constant: its bytes as raw_data (little-endian, as ONNX stores them). */
const floatInit = (name, data, dims) => ({
  name,
  dims,
  dataType: FLOAT,
  rawData: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)),
});
const int64Init = (name, values) => ({ name, dims: [values.length], dataType: INT64, int64Data: values });
const scalarInit = (name, value) => floatInit(name, Float32Array.of(value), []);

function attribute(name, value) {
  if (Array.isArray(value)) return { name, type: ATTR.INTS, ints: value };
  if (Number.isInteger(value)) return { name, type: ATTR.INT, i: value };
  return { name, type: ATTR.FLOAT, f: value };
}

/** A node; `attrs` maps attribute names to an int, a float or a list of ints. */
function node(opType, input, output, attrs = {}, domain = '') {
  return { opType, input, output, domain, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)) };
}

/**
 * The encoded model. `opset` is the default domain's version; `contrib` adds
 * com.microsoft (onnxruntime's own operators). IR version 8 is what this
 * schema (ONNX 1.10) writes; opset 23 needs IR 10, which is only a number here.
 */
function encode({ nodes, inputs, outputs, initializers = [], opset = 17, contrib = false }) {
  const opsetImport = [{ domain: '', version: opset }];
  if (contrib) opsetImport.push({ domain: 'com.microsoft', version: 1 });
  const model = onnx.ModelProto.create({
    irVersion: opset >= 21 ? 10 : 8,
    producerName: 'attention-geometry bench',
    opsetImport,
    graph: {
      name: 'bench',
      node: nodes,
      input: inputs.map(([name, dims]) => valueInfo(name, dims)),
      output: outputs.map(([name, dims]) => valueInfo(name, dims)),
      initializer: initializers,
    },
  });
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`onnx model: ${err}`);
  return onnx.ModelProto.encode(model).finish();
}

/** C = A B: A [M, K], B [K, N]. */
export function matmulModel(M, K, N) {
  return [
    {
      name: 'MatMul',
      bytes: encode({
        nodes: [node('MatMul', ['A', 'B'], ['C'])],
        inputs: [
          ['A', [M, K]],
          ['B', [K, N]],
        ],
        outputs: [['C', [M, N]]],
      }),
    },
  ];
}

/** S = Q K^T: Q [Tq, d], K [Tk, d]. */
export function qktModels(Tq, Tk, d) {
  const io = {
    inputs: [
      ['Q', [Tq, d]],
      ['K', [Tk, d]],
    ],
    outputs: [['S', [Tq, Tk]]],
  };
  return [
    { name: 'Gemm transB', bytes: encode({ ...io, nodes: [node('Gemm', ['Q', 'K'], ['S'], { transB: 1 })] }) },
    {
      name: 'Transpose+MatMul',
      bytes: encode({
        ...io,
        nodes: [node('Transpose', ['K'], ['Kt'], { perm: [1, 0] }), node('MatMul', ['Q', 'Kt'], ['S'])],
      }),
    },
  ];
}

/** Y = softmax(X) over the last axis: X [rows, cols]. */
export function softmaxModels(rows, cols) {
  return [
    {
      name: 'Softmax',
      bytes: encode({
        nodes: [node('Softmax', ['X'], ['Y'], { axis: -1 })],
        inputs: [['X', [rows, cols]]],
        outputs: [['Y', [rows, cols]]],
      }),
    },
  ];
}

/** O = softmax(Q K^T / sqrt(d)) V: Q [T, d], K [T, d], V [T, dv]. */
export function attentionModels(T, d, dv) {
  const scale = 1 / Math.sqrt(d);
  const plain = {
    inputs: [
      ['Q', [T, d]],
      ['K', [T, d]],
      ['V', [T, dv]],
    ],
    outputs: [['O', [T, dv]]],
    initializers: [scalarInit('scale', scale)],
  };
  const batched = {
    inputs: [
      ['Q', [1, T, d]],
      ['K', [1, T, d]],
      ['V', [1, T, dv]],
    ],
    outputs: [['O', [1, T, dv]]],
  };
  return [
    {
      name: 'MatMul, Mul, Softmax, MatMul',
      bytes: encode({
        ...plain,
        nodes: [
          node('Transpose', ['K'], ['Kt'], { perm: [1, 0] }),
          node('MatMul', ['Q', 'Kt'], ['S']),
          node('Mul', ['S', 'scale'], ['Ss']),
          node('Softmax', ['Ss'], ['W'], { axis: -1 }),
          node('MatMul', ['W', 'V'], ['O']),
        ],
      }),
    },
    {
      name: 'com.microsoft MultiHeadAttention',
      dims: (name) => (name === 'V' ? [1, T, dv] : [1, T, d]),
      bytes: encode({
        ...batched,
        contrib: true,
        nodes: [node('MultiHeadAttention', ['Q', 'K', 'V'], ['O'], { num_heads: 1 }, 'com.microsoft')],
      }),
    },
    {
      name: 'Attention (opset 23)',
      dims: (name) => (name === 'V' ? [1, T, dv] : [1, T, d]),
      bytes: encode({
        ...batched,
        opset: 23,
        nodes: [node('Attention', ['Q', 'K', 'V'], ['O'], { q_num_heads: 1, kv_num_heads: 1 })],
      }),
    },
  ];
}

/**
 * Multi-head self-attention with the four projections (no biases):
 * Q = X W_Q, K = X W_K, V = X W_V (each [T, D]), h heads of D / h columns,
 * output = concat(heads) W_O. X [T, D]; the weights [D, D] are initializers.
 */
export function mhaModels(T, D, h, w) {
  const dk = D / h;
  const scale = 1 / Math.sqrt(dk);
  const weights = [
    floatInit('WQ', w.wQ, [D, D]),
    floatInit('WK', w.wK, [D, D]),
    floatInit('WV', w.wV, [D, D]),
    floatInit('WO', w.wO, [D, D]),
  ];
  const projections = [
    node('MatMul', ['X', 'WQ'], ['Qp']),
    node('MatMul', ['X', 'WK'], ['Kp']),
    node('MatMul', ['X', 'WV'], ['Vp']),
  ];
  const composed = encode({
    inputs: [['X', [T, D]]],
    outputs: [['Y', [T, D]]],
    initializers: [...weights, scalarInit('scale', scale), int64Init('heads', [T, h, dk]), int64Init('merged', [T, D])],
    nodes: [
      ...projections,
      node('Reshape', ['Qp', 'heads'], ['Q3']),
      node('Reshape', ['Kp', 'heads'], ['K3']),
      node('Reshape', ['Vp', 'heads'], ['V3']),
      node('Transpose', ['Q3'], ['Qh'], { perm: [1, 0, 2] }), // [h, T, dk]
      node('Transpose', ['K3'], ['Kht'], { perm: [1, 2, 0] }), // [h, dk, T]
      node('Transpose', ['V3'], ['Vh'], { perm: [1, 0, 2] }),
      node('MatMul', ['Qh', 'Kht'], ['S']), // [h, T, T]
      node('Mul', ['S', 'scale'], ['Ss']),
      node('Softmax', ['Ss'], ['A'], { axis: -1 }),
      node('MatMul', ['A', 'Vh'], ['Oh']), // [h, T, dk]
      node('Transpose', ['Oh'], ['O3'], { perm: [1, 0, 2] }),
      node('Reshape', ['O3', 'merged'], ['O']),
      node('MatMul', ['O', 'WO'], ['Y']),
    ],
  });
  const batched = { inputs: [['X', [1, T, D]]], outputs: [['Y', [1, T, D]]] };
  // com.microsoft Attention projects Q, K, V itself from one [D, 3D] weight (and bias).
  const wQKV = new Float32Array(D * 3 * D);
  for (let r = 0; r < D; r++) {
    wQKV.set(w.wQ.subarray(r * D, (r + 1) * D), r * 3 * D);
    wQKV.set(w.wK.subarray(r * D, (r + 1) * D), r * 3 * D + D);
    wQKV.set(w.wV.subarray(r * D, (r + 1) * D), r * 3 * D + 2 * D);
  }
  return [
    { name: 'MatMul, Reshape, Transpose, Softmax', bytes: composed },
    {
      name: 'com.microsoft Attention + MatMul',
      dims: () => [1, T, D],
      bytes: encode({
        ...batched,
        contrib: true,
        initializers: [
          floatInit('WQKV', wQKV, [D, 3 * D]),
          floatInit('BQKV', new Float32Array(3 * D), [3 * D]),
          weights[3],
        ],
        nodes: [
          node('Attention', ['X', 'WQKV', 'BQKV'], ['O'], { num_heads: h }, 'com.microsoft'),
          node('MatMul', ['O', 'WO'], ['Y']),
        ],
      }),
    },
    {
      name: 'MatMul + com.microsoft MultiHeadAttention',
      dims: () => [1, T, D],
      bytes: encode({
        ...batched,
        contrib: true,
        initializers: weights,
        nodes: [
          ...projections,
          node('MultiHeadAttention', ['Qp', 'Kp', 'Vp'], ['O'], { num_heads: h }, 'com.microsoft'),
          node('MatMul', ['O', 'WO'], ['Y']),
        ],
      }),
    },
    {
      name: 'MatMul + Attention (opset 23)',
      dims: () => [1, T, D],
      bytes: encode({
        ...batched,
        opset: 23,
        initializers: weights,
        nodes: [
          ...projections,
          node('Attention', ['Qp', 'Kp', 'Vp'], ['O'], { q_num_heads: h, kv_num_heads: h }),
          node('MatMul', ['O', 'WO'], ['Y']),
        ],
      }),
    },
  ];
}

const INT32 = onnx.TensorProto.DataType.INT32;
const int32Init = (name, values, dims) => ({ name, dims, dataType: INT32, int32Data: values });

/**
 * One decoding step of grouped-query attention (decode.mjs): q [1, hq, 1, d],
 * the new k and v [1, hkv, 1, d], the cache pk and pv [1, hkv, P, d]; outputs
 * Y [1, hq, 1, d] and the present key and value [1, hkv, P + 1, d]. With
 * `rope`, q and k are turned at position P first (interleaved pairs, base
 * 10000; the cos and sin of the angles are initializers). Candidates: plain
 * ONNX operators, ONNX Attention (opset 23, with RotaryEmbedding for RoPE)
 * and com.microsoft GroupQueryAttention (which turns q and k itself).
 */
export function decodeModels(P, hq, hkv, d, rope) {
  const g = hq / hkv;
  const angles = ropeAngles(P, d);
  const kvShape = [1, hkv, 1, d];
  const io = {
    inputs: [
      ['q', [1, hq, 1, d]],
      ['k', kvShape],
      ['v', kvShape],
      ['pk', [1, hkv, P, d]],
      ['pv', [1, hkv, P, d]],
    ],
    outputs: [
      ['Y', [1, hq, 1, d]],
      ['present_key', [1, hkv, P + 1, d]],
      ['present_value', [1, hkv, P + 1, d]],
    ],
  };
  const half = d / 2;
  const f32 = (xs) => Float32Array.from(xs);
  // Plain operators: x cos + swap(x) sin, with the pairs swapped by a Gather.
  const plainRope = [];
  const plainRopeInits = [];
  if (rope) {
    const cos = new Float32Array(d);
    const sin = new Float32Array(d);
    for (let i = 0; i < half; i++) {
      [cos[2 * i], cos[2 * i + 1]] = [angles.cos[i], angles.cos[i]];
      [sin[2 * i], sin[2 * i + 1]] = [-angles.sin[i], angles.sin[i]];
    }
    const swap = Array.from({ length: d }, (_, i) => i ^ 1);
    plainRopeInits.push(floatInit('cos', cos, [d]), floatInit('sin', sin, [d]), int64Init('swap', swap));
    for (const x of ['q', 'k']) {
      plainRope.push(
        node('Gather', [x, 'swap'], [`${x}_swapped`], { axis: 3 }),
        node('Mul', [x, 'cos'], [`${x}_cos`]),
        node('Mul', [`${x}_swapped`, 'sin'], [`${x}_sin`]),
        node('Add', [`${x}_cos`, `${x}_sin`], [`${x}_turned`]),
      );
    }
  }
  const [qIn, kIn] = rope ? ['q_turned', 'k_turned'] : ['q', 'k'];
  const plain = encode({
    ...io,
    initializers: [
      ...plainRopeInits,
      scalarInit('scale', 1 / Math.sqrt(d)),
      int64Init('qShape', [hkv, g, d]),
      int64Init('kvShape', [hkv, P + 1, d]),
      int64Init('yShape', [1, hq, 1, d]),
    ],
    nodes: [
      ...plainRope,
      node('Concat', ['pk', kIn], ['present_key'], { axis: 2 }),
      node('Concat', ['pv', 'v'], ['present_value'], { axis: 2 }),
      node('Mul', [qIn, 'scale'], ['qs']),
      node('Reshape', ['qs', 'qShape'], ['q3']),
      node('Reshape', ['present_key', 'kvShape'], ['K3']),
      node('Reshape', ['present_value', 'kvShape'], ['V3']),
      node('Transpose', ['K3'], ['K3t'], { perm: [0, 2, 1] }),
      node('MatMul', ['q3', 'K3t'], ['S']), // [hkv, g, P + 1]
      node('Softmax', ['S'], ['W'], { axis: -1 }),
      node('MatMul', ['W', 'V3'], ['O']), // [hkv, g, d]
      node('Reshape', ['O', 'yShape'], ['Y']),
    ],
  });
  // ONNX RotaryEmbedding (opset 23) without position ids takes the cos and sin of the positions: [1, 1, d / 2].
  const attention23 = encode({
    ...io,
    opset: 23,
    initializers: rope
      ? [floatInit('cos_p', f32(angles.cos), [1, 1, half]), floatInit('sin_p', f32(angles.sin), [1, 1, half])]
      : [],
    nodes: [
      ...(rope
        ? ['q', 'k'].map((x) => node('RotaryEmbedding', [x, 'cos_p', 'sin_p'], [`${x}_turned`], { interleaved: 1 }))
        : []),
      node('Attention', [qIn, kIn, 'v', '', 'pk', 'pv'], ['Y', 'present_key', 'present_value']),
    ],
  });
  // GroupQueryAttention reads q, k and v as [1, 1, heads · d] (the same floats), the cache as
  // [1, hkv, P, d], the number of past keys in seqlens_k, and with do_rotary the cos and sin of
  // every position up to P ([P + 1, d / 2]).
  const gqaInits = [int32Init('seqlens_k', [P], [1]), int32Init('total_sequence_length', [P + 1], [])];
  if (rope) {
    const cosCache = new Float32Array((P + 1) * half);
    const sinCache = new Float32Array((P + 1) * half);
    for (let p = 0; p <= P; p++) {
      const { cos, sin } = ropeAngles(p, d);
      cosCache.set(cos, p * half);
      sinCache.set(sin, p * half);
    }
    gqaInits.push(floatInit('cos_cache', cosCache, [P + 1, half]), floatInit('sin_cache', sinCache, [P + 1, half]));
  }
  const gqa = encode({
    inputs: [
      ['q', [1, 1, hq * d]],
      ['k', [1, 1, hkv * d]],
      ['v', [1, 1, hkv * d]],
      ['pk', [1, hkv, P, d]],
      ['pv', [1, hkv, P, d]],
    ],
    outputs: [
      ['Y', [1, 1, hq * d]],
      ['present_key', [1, hkv, P + 1, d]],
      ['present_value', [1, hkv, P + 1, d]],
    ],
    contrib: true,
    initializers: gqaInits,
    nodes: [
      node(
        'GroupQueryAttention',
        ['q', 'k', 'v', 'pk', 'pv', 'seqlens_k', 'total_sequence_length', ...(rope ? ['cos_cache', 'sin_cache'] : [])],
        ['Y', 'present_key', 'present_value'],
        { num_heads: hq, kv_num_heads: hkv, ...(rope ? { do_rotary: 1, rotary_interleaved: 1 } : {}) },
        'com.microsoft',
      ),
    ],
  });
  const gqaDims = (name) => ({ q: [1, 1, hq * d], k: [1, 1, hkv * d], v: [1, 1, hkv * d] })[name];
  return [
    { name: `${rope ? 'Gather, Mul, Add (RoPE), ' : ''}Concat, MatMul, Softmax, MatMul (Q scaled)`, bytes: plain },
    { name: `${rope ? 'RotaryEmbedding + ' : ''}Attention (opset 23)`, bytes: attention23 },
    { name: 'com.microsoft GroupQueryAttention', dims: gqaDims, bytes: gqa },
  ];
}
