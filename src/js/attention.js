// Family "attention" (registry.inc; Vaswani et al. 2017, §3.2.1 and §3.2.2):
// scaled dot-product attention and multi-head attention. Arguments, masks and
// strides are checked and computed here (tensor.js); the shapes and strides
// go to the kernels as the ag_attention_dims / ag_mha_dims blocks of
// kernels.h, packed by field name in the order the bindings give
// (attentionDimsFields, mhaDimsFields), the buffers by name (heap.js), and the
// streaming work size is the bindings' constant ATTENTION_STREAMING_WORK_FLOATS.
// Shapes, options and errors: index.d.ts.
import { ALIBI_MAX_DISTANCE, alibiOption } from './alibi.js';
import { knownNaNIndex, runDeferredCheck, runDeferredCheckBlocks } from './checks.js';
import { describeValue, formatIndex, formatShape, overflowError, shapeError } from './errors.js';
import { copyRows } from './copy-rows.js';
import { HEAP_LIMIT_BYTES } from './heap.js';
import { advanceKvCache, kvCacheObjectOption, recheckKvCache, refuseKvCacheOption, writeKvRows } from './kv-cache.js';
import { checkEvenWidth, ROPE_MAX_POSITION, ropeCall, ropeOption, ropePositions, ropeSettings } from './rope.js';
import {
  booleanOption,
  broadcastShapes,
  broadcastStrides,
  checkKnownKeys,
  finiteNumber,
  numel,
  optionsObject,
  positiveInt,
  tensorOf,
  maskKindOption,
  toMask,
  toTensorRank,
} from './tensor.js';

/** Field lists per module and binding: { attentionDimsFields: [...], mhaDimsFields: [...] }. */
const dimsFields = new WeakMap();

/**
 * A dims block of kernels.h as an Int32Array: `values` by field name, packed in
 * the order of the binding `which` (attentionDimsFields or mhaDimsFields).
 * A field without a value, or a value without a field, is a bug here.
 */
function packDims(module, which, values) {
  let known = dimsFields.get(module);
  if (!known) dimsFields.set(module, (known = {}));
  const fields = (known[which] ??= module[which]().split(','));
  // Every field has a value and there are no more values than fields: then
  // every value has a field (one pass; the lists are looked at only on a bug).
  const out = new Int32Array(fields.length);
  let found = 0;
  for (let i = 0; i < fields.length; i++) {
    if (fields[i] in values) found++;
    out[i] = values[fields[i]];
  }
  if (found !== fields.length || Object.keys(values).length !== fields.length) {
    const extra = Object.keys(values).filter((k) => !fields.includes(k));
    const missing = fields.filter((f) => !(f in values));
    throw new Error(
      `${which}: no value for [${missing}], no field for [${extra}] (kernels.h and attention.js disagree)`,
    );
  }
  return out;
}

/**
 * The `streaming` option of attention and multiHeadAttention: a boolean,
 * by default true unless an option in `wanting` (names of the options that
 * ask for the [Tq, Tk] grid, or false) is set.
 */
function streamingOption(m, value, wanting) {
  const grid = wanting.filter(Boolean);
  const streaming = booleanOption(m, 'options.streaming', value, grid.length === 0);
  if (streaming && grid.length > 0) {
    throw new TypeError(
      `${m}: options.streaming is true, but options.${grid[0]} asks for the [Tq, Tk] grid, which the streaming ` +
        `path never forms; leave streaming out (or set it to false) to get ${grid[0] === 'returnScores' ? 'the scores' : 'the weights'}`,
    );
  }
  return streaming;
}

/**
 * The RangeError that names the projection that spoiled multiHeadAttention's
 * scores or output, or null: the first of Q, K, V (laid out one after the
 * other from `work`, then the heads, as in attention_impl.h) that holds a
 * non-finite entry; else, when the output has a NaN (`output.nanAt` >= 0)
 * while the heads are finite, the output projection. Called only after the
 * scores or the output went wrong, while the workspace is alive.
 */
function projectionOverflow(module, m, work, projections, output) {
  const error = (name, what, inputs, shape, flat) =>
    new RangeError(
      `${m}: ${name}${formatIndex(shape, flat)} overflowed float32 although the inputs are finite ` +
        `(the ${name === 'output' ? 'output ' : ''}projection ${what}, of shape ${formatShape(shape)}); scale ${inputs} down`,
    );
  let at = work;
  for (const { what, inputs, shape } of projections) {
    const n = numel(shape);
    const flat = module.firstNonFinite(at, n, 0);
    if (flat >= 0) return error(what[0], what, inputs, shape, flat);
    at += 4 * n;
  }
  const headsFinite = () => module.firstNonFinite(at, numel(output.shape), 0) < 0;
  if (output.nanAt >= 0 && headsFinite())
    return error('output', output.what, output.inputs, output.shape, output.nanAt);
  return null;
}

/**
 * The RangeError for an attention kernel's overflow status (1 + the flat
 * index of the first overflowed score, INT32_MAX when it did not fit).
 */
export function scoreOverflow(m, what, shape, status, remedy = 'scale the inputs down') {
  if (status < 0x7fffffff) return overflowError(m, what, shape, status - 1, remedy);
  return new RangeError(
    `${m}: ${what} overflowed float32 at flat index 2147483646 or beyond although the inputs are finite ` +
      `(the shape of ${what} is ${formatShape(shape)}); ${remedy}`,
  );
}

/**
 * What an attention kernel's overflow status blames, for its RangeError:
 * { what, remedy } (scoreOverflow's arguments). A score is
 * cap(scale * (q . k)) + ALiBi bias + mask (attention_impl.h:
 * finish_scores; no cap without options.softcap), and the kernel reports
 * (overflow.h: overflowed) the first one whose value before the bias and
 * mask is not finite, or whose sum is NaN, +Infinity, or -Infinity where no
 * mask entry was. From finite inputs:
 * - the product scale * (q . k) of a finite q . k overflows only when
 *   |scale| > 1 in float32, and a capped one never does (tanh of +-Infinity
 *   is +-1) unless the 'raw' scores are asked for (`raw`), which are checked
 *   uncapped;
 * - the sum overflows only with something added that can reach FLT_MAX: an
 *   ALiBi bias, or a finite mask entry other than 0 added to a score that is
 *   not 0 (with scale 0 every finite q . k gives 0, and 0 + a float32 mask
 *   entry is finite);
 * - else it is q . k itself that overflowed: its sum of d_k products is
 *   formed before the scale (and with scale 0, 0 times +-Infinity is NaN).
 * `mask` is the additive mask (tensor.js toMask) or null; `alibi` whether
 * ALiBi slopes were given; `raw` whether the 'raw' scores were asked for.
 */
export function scoresOverflowCause({ scale, softcap = 0, alibi = false, mask = null, raw = false }) {
  const f32Scale = Math.fround(scale);
  const added = `${alibi ? ' + ALiBi bias' : ''}${mask ? ' + mask' : ''}`;
  const productCan = Math.abs(f32Scale) > 1 && (!softcap || raw);
  // A mask of 0 and -Infinity only (a boolean one among them) adds nothing that could overflow.
  const maskAdds = mask !== null && mask.data.some((x) => x !== 0 && x !== -Infinity);
  const sumCan = alibi || (maskAdds && f32Scale !== 0);
  // Large slopes times a long distance reach FLT_MAX on their own.
  const inputs = alibi && sumCan ? "the inputs or options.alibi's slopes" : 'the inputs';
  if (softcap) {
    // Before the cap, what overflows is Q K^T, or the product with the 'raw' scores asked for (which
    // are checked uncapped); after it, a capped score plus a bias or mask entry near FLT_MAX. The kernel's
    // status does not say which: with a bias or a mask that can overflow, both are named.
    const rawNote = raw
      ? "; the cap bounds the output and the 'capped' scores, not the 'raw' ones asked for by options.returnScores"
      : '';
    const before = productCan ? 'the scores scale * Q K^T' : 'the dot products Q K^T';
    if (!sumCan) return { what: before, remedy: `this is before the soft cap; scale ${inputs} down${rawNote}` };
    return {
      what: `the scores softcap(scale * Q K^T)${added}`,
      remedy:
        `either ${productCan ? 'scale * q . k' : 'a dot product q . k'} overflowed before the soft cap, or a ` +
        `capped score${added} after it; scale ${inputs} down${rawNote}`,
    };
  }
  if (productCan || sumCan) return { what: `the scores scale * Q K^T${added}`, remedy: `scale ${inputs} down` };
  const why =
    f32Scale === 0
      ? `scale = ${scale}${scale === 0 ? '' : ' (0 in float32)'} times an infinite q . k is NaN`
      : `scale = ${scale} (|scale| <= 1) makes no finite q . k overflow`;
  return {
    what: 'the dot products Q K^T',
    remedy: `the scores scale * Q K^T are formed from them, and ${why}; scale Q or K down`,
  };
}

/**
 * The work buffer of the attention kernel (registry.inc): streaming, one
 * tile of scores and two numbers per query row of a block; materialized,
 * a row [Tk] when the weights or scores hold the grid, else the grid.
 */
function attentionWork(module, streaming, gridReturned, Tq, Tk) {
  if (streaming) return { length: module.ATTENTION_STREAMING_WORK_FLOATS };
  if (gridReturned) return { length: Tk };
  return { name: 'the score grid', shape: [Tq, Tk], length: Tq * Tk };
}

/**
 * Query heads per key/value head of an attention call (grouped-query
 * attention, Ainslie et al. 2023; multi-query when K and V have one head):
 * 1 unless Q has h_q > 1 heads (its axis -3) and K or V has h_kv heads with
 * 1 < h_kv < h_q; then h_kv must divide h_q, and K and V must each have
 * h_kv heads or 1 (RangeError naming both shapes otherwise). A head axis of
 * 1 in K or V, or Q without heads, is ordinary broadcasting.
 */
function kvGroup(m, Q, K, V) {
  const heads = (t) => (t.shape.length >= 3 ? t.shape.at(-3) : 1);
  const hq = heads(Q);
  const shared = [K, V].map(heads).filter((n) => n !== 1 && n !== hq);
  if (hq === 1 || shared.length === 0) return 1;
  const hkv = shared[0];
  const where = `Q ${formatShape(Q.shape)}, K ${formatShape(K.shape)}, V ${formatShape(V.shape)}`;
  const holders =
    [K, V].filter((t) => heads(t) === hkv).length === 2 ? 'K and V have' : `${heads(K) === hkv ? 'K' : 'V'} has`;
  if (hq % hkv !== 0)
    throw new RangeError(
      `${m}: ${holders} h_kv = ${hkv} heads and Q has h_q = ${hq} (${where}); for shared key/value heads ` +
        `h_kv must divide h_q (query head i reads key/value head floor(i * h_kv / h_q))`,
    );
  for (const [name, t] of [
    ['K', K],
    ['V', V],
  ])
    if (heads(t) !== hkv && heads(t) !== 1)
      throw new RangeError(
        `${m}: ${name} has ${heads(t)} heads where the other of K and V has h_kv = ${hkv} (${where}); ` +
          `shared key/value heads need K and V with h_kv heads each (or 1, broadcast)`,
      );
  return hq / hkv;
}

/**
 * The `softcap` option of attention: undefined (no cap, 0 for the kernel),
 * else a finite number > 0 whose float32 is not 0 (TypeError, RangeError).
 */
function softcapOption(m, value) {
  if (value === undefined) return 0;
  const c = finiteNumber(m, 'options.softcap', value, { positive: true });
  if (Math.fround(c) === 0)
    throw new RangeError(`${m}: options.softcap = ${c} is 0 in float32; a soft cap must be at least 2^-149`);
  return c;
}

/**
 * The `rope` option of multiHeadAttention: undefined or false (null), true
 * or { base, interleaved } (the settings of rope.js). d_k must be even and
 * the last position, T - 1, within 2^24 (RangeError).
 */
function mhaRopeOption(m, value, dk, T) {
  if (value === undefined || value === false) return null;
  if (value !== true && (value === null || typeof value !== 'object' || Array.isArray(value)))
    throw new TypeError(`${m}: options.rope must be true, false or { base, interleaved }; got ${describeValue(value)}`);
  const o = value === true ? {} : optionsObject(m, value, 'options.rope', ['base', 'interleaved']);
  const settings = ropeSettings(m, o, 'options.rope');
  if (dk % 2 !== 0)
    throw new RangeError(
      `${m}: options.rope turns pairs of channels, and each head has d_k = d_model / numHeads = ${dk}, odd; d_k must be even`,
    );
  if (T - 1 > ROPE_MAX_POSITION)
    throw new RangeError(`${m}: options.rope: token ${T - 1} is beyond position 2^24 = ${ROPE_MAX_POSITION}`);
  return settings;
}

/** ag_attention_dims.scores_stage (kernels.h) per `returnScores` stage. */
const SCORES_STAGES = { masked: 0, capped: 1, raw: 2 };

/**
 * The `returnScores` option of attention, as ag_attention_dims.scores_stage:
 * undefined or false (null: no scores), true or 'masked' (0: the scores the
 * softmax reads), 'capped' (1: after the soft cap, before the mask; ONNX
 * qk_matmul_output_mode 1) or 'raw' (2: scale Q K^T; mode 0). TypeError
 * otherwise.
 */
function scoresOption(m, value) {
  if (value === undefined || value === false) return null;
  if (value === true) return SCORES_STAGES.masked;
  if (typeof value === 'string' && Object.hasOwn(SCORES_STAGES, value)) return SCORES_STAGES[value];
  throw new TypeError(
    `${m}: options.returnScores must be true, false, 'masked', 'capped' or 'raw'; got ${describeValue(value)}`,
  );
}

/**
 * The `window` option of attention (sliding-window attention): undefined (0
 * for the kernel: no window), else an integer w >= 1, query i then seeing
 * only its last w keys. A window is causal: with `causal: false` it is a
 * RangeError.
 */
export function windowOption(m, value, causal) {
  if (value === undefined) return 0;
  const w = positiveInt(m, 'options.window', value);
  if (causal === false)
    throw new RangeError(
      `${m}: options.window = ${w} keeps each query's last ${w} keys, up to its own position: it is causal, and options.causal is false`,
    );
  return w;
}

/**
 * The KV cache options of attention: pastKey and pastValue (both or neither,
 * TypeError otherwise), each of K's (V's) rank with the same leading shape
 * and width, and the same number P ≥ 0 of cached rows (RangeError naming the
 * option otherwise; P = 0 is the empty cache of a decode's first step). Returns null, or { key, value, P } with the tensors.
 */
function kvCacheOption(m, o, K, V) {
  if (o.pastKey === undefined && o.pastValue === undefined) return null;
  if (o.pastKey === undefined || o.pastValue === undefined)
    throw new TypeError(
      `${m}: options.pastKey and options.pastValue go together (a KV cache); got only options.${o.pastKey === undefined ? 'pastValue' : 'pastKey'}`,
    );
  const past = (name, t, of) => {
    const lead = t.shape.slice(0, -2);
    const expected = `${formatShape([...lead, 'P', t.shape.at(-1)])} (the shape of ${of} ${formatShape(t.shape)} with P cached rows)`;
    const x = toTensorRank(m, `options.${name}`, o[name], [t.shape.length], expected, { emptyAxis: -2 });
    if (x.shape.at(-1) !== t.shape.at(-1) || x.shape.slice(0, -2).join() !== lead.join())
      throw shapeError(m, `options.${name}`, x.shape, expected);
    return x;
  };
  const key = past('pastKey', K, 'K');
  const value = past('pastValue', V, 'V');
  const P = key.shape.at(-2);
  if (value.shape.at(-2) !== P)
    throw shapeError(
      m,
      'options.pastValue',
      value.shape,
      `${P} row${P === 1 ? '' : 's'}, as options.pastKey ${formatShape(key.shape)}`,
    );
  return { key, value, P };
}

/**
 * The kvSeqLen option of attention: undefined, or B integers (an array or
 * typed array), each from 0 to the number of keys (TypeError, RangeError
 * naming options.kvSeqLen[b] otherwise). Returns null or the integers.
 */
function kvSeqLenOption(m, value, B, keys, qShape) {
  if (value === undefined) return null;
  if (!Array.isArray(value) && !ArrayBuffer.isView(value))
    throw new TypeError(
      `${m}: options.kvSeqLen must be an array of B = ${B} integers (one per batch); got ${describeValue(value)}`,
    );
  if (value.length !== B) {
    // Rank 3 is [h, T, d] (heads, no batch): a batch of one query head each is [B, 1, T, d].
    const hint =
      qShape.length === 3
        ? `; a rank-3 Q ${formatShape(qShape)} is read as [h, Tq, d_k] (one batch): for ${value.length} batches give [B, 1, Tq, d_k]`
        : '';
    throw new RangeError(
      `${m}: options.kvSeqLen has ${value.length} ${value.length === 1 ? 'entry' : 'entries'} but B = ${B} (one per batch) were expected${hint}`,
    );
  }
  return Array.from(value, (n, b) => {
    if (typeof n !== 'number')
      throw new TypeError(`${m}: options.kvSeqLen[${b}] must be a number; got ${describeValue(n)}`);
    if (!Number.isInteger(n) || n < 0 || n > keys)
      throw new RangeError(
        `${m}: options.kvSeqLen[${b}] = ${typeof n === 'number' ? n : describeValue(n)}; each must be an integer from 0 to the ${keys} keys`,
      );
    return n;
  });
}

/**
 * Writes present = [past; now] along the token axis into `out` (a byte
 * offset in the wasm memory of `rt`): for each of `lead` leading indices, the P rows of
 * `past` (the cache's Float32Array in JS, copied straight to its place) and
 * the T rows at byte offset `now`, each row `width` floats. The cache has no
 * buffer of its own: each float is copied once. Its finiteness check, if it
 * was deferred, is checkPast's.
 */
function joinRows(rt, out, past, now, lead, P, T, width) {
  const f = new Float32Array(rt.memory().buffer);
  const stride = (P + T) * width;
  if (P > 0) copyRows(lead, P * width, { array: f, at: out / 4, stride }, { array: past, at: 0, stride: P * width });
  copyRows(
    lead,
    T * width,
    { array: f, at: out / 4 + P * width, stride },
    { array: f, at: now / 4, stride: T * width },
  );
}

/** The deferred finiteness check of a cache `past` joined into `out` by joinRows (same arguments). */
function checkPast(rt, out, past, lead, P, T, width) {
  if (P > 0) runDeferredCheckBlocks(rt.module, past, out, lead, P * width, (P + T) * width);
}

/**
 * Q, K and V of an attention call, checked (TypeError, RangeError naming the
 * argument, its shape and what was expected): Q [..., Tq, d_k], K [..., Tk,
 * d_k], V [..., Tk, d_v], each of rank 2 to 4, their leading axes
 * broadcasting to `lead` (at most [B, h]; B and H are 1 where absent), with
 * `group` query heads per key/value head (kvGroup). Used by attention and
 * attentionBackward (attention-backward.js).
 */
export function attentionInputs(m, q, k, v) {
  const Q = toTensorRank(m, 'Q', q, [2, 3, 4], '[..., Tq, d_k]');
  const [Tq, dk] = Q.shape.slice(-2);
  const kExp = `[..., Tk, d_k] with d_k = ${dk} (from Q ${formatShape(Q.shape)})`;
  const K = toTensorRank(m, 'K', k, [2, 3, 4], kExp);
  if (K.shape.at(-1) !== dk) throw shapeError(m, 'K', K.shape, kExp, 'Q and K must have the same d_k');
  const Tk = K.shape.at(-2);
  const vExp = `[..., Tk, d_v] with Tk = ${Tk} (from K ${formatShape(K.shape)})`;
  const V = toTensorRank(m, 'V', v, [2, 3, 4], vExp);
  if (V.shape.at(-2) !== Tk) throw shapeError(m, 'V', V.shape, vExp, 'V needs one row per key');
  const dv = V.shape.at(-1);
  const group = kvGroup(m, Q, K, V);
  // With shared key/value heads, K and V are checked as if they had h_q heads, then read with their own.
  const asQueryHeads = (t) => (group > 1 ? [...t.shape.slice(0, -3), Q.shape.at(-3)] : t.shape.slice(0, -2));
  const lead = broadcastShapes(m, [
    { name: 'Q', shape: Q.shape.slice(0, -2), full: Q.shape, expected: '[..., Tq, d_k]' },
    { name: 'K', shape: asQueryHeads(K), full: K.shape, expected: kExp },
    { name: 'V', shape: asQueryHeads(V), full: V.shape, expected: vExp },
  ]);
  const [B, H] = [...new Array(2 - lead.length).fill(1), ...lead];
  return { Q, K, V, Tq, dk, Tk, dv, group, lead, B, H };
}

/**
 * The element strides of tensor t's batch and head axes as the kernel reads
 * them against `target` ([B, H]; 0 where t broadcasts), for rows x cols
 * matrices per slice.
 */
export function headStrides(m, t, rows, cols, target) {
  return broadcastStrides(m, '', t.shape.slice(0, -2), target, '').map((s) => s * rows * cols);
}

/**
 * The `mask` option of attention (with options.maskKind): { mask: null, ms:
 * [0, 0, 0, 0] } for none, else the additive mask (tensor.js toMask) and its
 * strides over `grid` = [B, h, Tq, keys] (RangeError naming the shapes when it
 * does not broadcast); `keys` names the key axis in messages.
 */
export function attentionMask(m, o, grid, keys) {
  // options.maskKind is judged after the mask (it says how to read it), and without a mask too.
  if (o.mask === undefined || o.mask === null) {
    maskKindOption(m, o.maskKind);
    return { mask: null, ms: [0, 0, 0, 0] };
  }
  const target = `a shape that broadcasts to [B, h, Tq, ${keys}] = ${formatShape(grid)}`;
  let ms;
  const mask = toMask(m, 'mask', o.mask, target, 'attend', o.maskKind, (shape) => {
    ms = broadcastStrides(m, 'mask', shape, grid, `[B, h, Tq, ${keys}]`);
  });
  maskKindOption(m, o.maskKind);
  return { mask, ms };
}

/**
 * The ag_attention_dims block (kernels.h) of an attention call on
 * contiguous [B, H, T, d] rows (row strides d_k, d_v; the output [B, H, Tq,
 * d_v] contiguous), packed by field name: q, k, v the [batch, head] strides
 * of Q, K, V (headStrides), ms the mask's four strides, kbsb the key bias's
 * batch stride (0: none or broadcast).
 */
export function attentionDims(module, d) {
  const { B, H, Tq, Tk, dk, dv, q, k, v, ms } = d;
  return packDims(module, 'attentionDimsFields', {
    B,
    H,
    Tq,
    Tk,
    d_k: dk,
    d_v: dv,
    q_sb: q[0],
    q_sh: q[1],
    q_st: dk,
    k_sb: k[0],
    k_sh: k[1],
    k_st: dk,
    v_sb: v[0],
    v_sh: v[1],
    v_st: dv,
    o_sb: H * Tq * dv,
    o_sh: Tq * dv,
    o_st: dv,
    m_sb: ms[0],
    m_sh: ms[1],
    m_si: ms[2],
    m_sj: ms[3],
    kb_sb: d.kbsb ?? 0,
    kv_group: d.group,
    causal: d.causal ? 1 : 0,
    causal_offset: d.offset ?? 0,
    window: d.window ?? 0,
    streaming: d.streaming ? 1 : 0,
    scores_stage: d.scoresStage ?? SCORES_STAGES.masked,
  });
}

export const attentionMethods = {
  /**
   * Scaled dot-product attention (Vaswani et al. 2017, §3.2.1): streaming
   * (online softmax over key tiles, no [Tq, Tk] buffer; Milakov & Gimelshein
   * 2018, Dao et al. 2022) unless weights or scores are asked for or
   * `streaming: false`. Shapes, options and errors: index.d.ts.
   */
  attention(q, k, v, options) {
    const m = 'attention';
    const { Q, K, V, Tq, dk, Tk, dv, group, lead, B, H } = attentionInputs(m, q, k, v);
    // The options object comes last, after Q, K and V (argument order); its members in the order of
    // index.d.ts (AttentionOptions).
    const o = optionsObject(m, options, 'options', [
      'scale',
      'softcap',
      'cache',
      'pastKey',
      'pastValue',
      'kvSeqLen',
      'causal',
      'window',
      'rope',
      'alibi',
      'mask',
      'maskKind',
      'returnWeights',
      'returnScores',
      'streaming',
    ]);
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const softcap = softcapOption(m, o.softcap);
    // A KV cache of P rows goes before K and V: Tk keys in all, query i at position P + i. Either rows
    // passed in (pastKey, pastValue) or a cache object resident in wasm memory (kv-cache.js).
    const cache = kvCacheObjectOption(this, m, o, K, V);
    const past = cache ? null : kvCacheOption(m, o, K, V);
    const P = cache ? cache.P : past ? past.P : 0;
    const Tall = P + Tk;
    const BHkv = [B, H / group];
    const [qsb, qsh] = headStrides(m, Q, Tq, dk, [B, H]);
    // K and V as the kernel reads them: with pastKey, the joined present key and value (Tall rows); with
    // a cache object, its blocks in place (capacity rows per slice, of which the kernel reads Tall).
    const rowsPerSlice = cache ? cache.cache.capacity : Tall;
    const [ksb, ksh] = headStrides(m, K, rowsPerSlice, dk, BHkv);
    const [vsb, vsh] = headStrides(m, V, rowsPerSlice, dv, BHkv);
    // Per batch, the count of valid keys (ONNX nonpad_kv_seqlen): keys past it hidden by a key bias.
    const lengths = kvSeqLenOption(m, o.kvSeqLen, B, Tall, Q.shape);
    const causalGiven = booleanOption(m, 'options.causal', o.causal, false);
    const window = windowOption(m, o.window, o.causal);
    const causal = causalGiven || window > 0;
    // Rotary positions: Q and K turned first, query i at position P + i, key j (of K) at P + j.
    const rope = ropeOption(m, o.rope, o.kvSeqLen);
    if (rope) checkEvenWidth(m, 'Q', Q.shape, 'options.rope turns pairs of channels');
    // The first query and new key sit at rope.start (default P, after the cache): the last at start + T - 1.
    const ropeStart = rope ? (rope.start ?? P) : 0;
    const ropeLast = ropeStart + Math.max(Tq, Tk) - 1;
    if (rope && (Math.abs(ropeStart) > ROPE_MAX_POSITION || Math.abs(ropeLast) > ROPE_MAX_POSITION))
      throw new RangeError(
        `${m}: options.rope puts the queries and new keys at positions ${ropeStart} to ${ropeLast}${rope.start === null ? ` (after ${P} cached keys)` : ''}; a position must be within |m| <= 2^24 = ${ROPE_MAX_POSITION}`,
      );
    // ALiBi: one slope per query head; query i at position P + i (kvSeqLen[b] - Tq + i with kvSeqLen).
    const slopes = alibiOption(m, o.alibi, H);
    if (slopes && Tq + Tall - 1 > ALIBI_MAX_DISTANCE)
      throw new RangeError(
        `${m}: options.alibi with ${Tq} queries and ${Tall} keys: query-key distances reach ${Tq + Tall - 1}, beyond 2^24 = ${ALIBI_MAX_DISTANCE} (the bias is exact only up to there)`,
      );
    const { mask, ms } = attentionMask(m, o, [B, H, Tq, Tall], past || cache ? 'P + Tk' : 'Tk');
    const returnWeights = booleanOption(m, 'options.returnWeights', o.returnWeights, false);
    const scoresStage = scoresOption(m, o.returnScores);
    const returnScores = scoresStage !== null;
    const streaming = streamingOption(m, o.streaming, [
      returnWeights && 'returnWeights',
      returnScores && 'returnScores',
    ]);
    const scoreShape = [...lead, Tq, Tall];
    // ag_attention_dims (kernels.h) by field name, for nb batches from the first.
    const packed = (nb, offset) =>
      attentionDims(this._rt.module, {
        B: nb,
        H,
        Tq,
        Tk: Tall,
        dk,
        dv,
        q: [qsb, qsh],
        k: [ksb, ksh],
        v: [vsb, vsh],
        ms,
        kbsb: lengths ? Tall : 0,
        group,
        causal,
        offset,
        window,
        streaming,
        scoresStage: scoresStage ?? SCORES_STAGES.masked,
      });
    const dims = packed(B, P);
    const nOut = B * H * Tq * dv;
    const nW = B * H * Tq * Tall;
    const presentShape = (t, d) => [...t.shape.slice(0, -2), Tall, d];
    // Without a soft cap or a window, and with every key seen by some query
    // (no causal masking, or Tq >= Tk: the last query sees them all, cached
    // keys included, when kvSeqLen does not move it), the kernel forms and
    // checks every score q.k (registry.inc), so a non-finite Q, K or past key
    // shows in its status: their finiteness checks are left to it. (Turned by
    // rope, a non-finite entry leaves its pair non-finite: cos and sin are
    // never both 0.) V's and the past value's run after the kernel, so that
    // the first bad input is still the one named, and only when the output is
    // not finite if, without a mask or kvSeqLen, every query has a visible key
    // and every value row is weighted into an output row: a weight times a
    // non-finite entry is never finite (0 times it is NaN), and nothing makes
    // a non-finite sum finite again.
    const kernelChecks = !softcap && window === 0 && (!causal || (Tq >= Tk && !lengths));
    const outputChecksValues = kernelChecks && !mask && !lengths;
    const specs = {
      Q: { shape: Q.shape, data: Q.data, kernelChecks },
      K: { shape: K.shape, data: K.data, kernelChecks },
      V: { shape: V.shape, data: V.data, kernelChecks },
      // The past rows (pastKey, pastValue) are copied straight into the present key and value (joinRows).
      presentKey: past && { shape: presentShape(K, dk), length: numel(presentShape(K, dk)) },
      presentValue: past && { shape: presentShape(V, dv), length: numel(presentShape(V, dv)) },
      keyBias: lengths && {
        data: Float32Array.from({ length: B * Tall }, (_, x) =>
          x % Tall < lengths[Math.floor(x / Tall)] ? 0 : -Infinity,
        ),
      },
      mask: mask && { data: mask.data },
      slopes: slopes && { name: 'options.alibi', data: slopes },
      Qrot: rope && { name: 'Q rotated', shape: Q.shape, length: Q.data.length },
      Krot: rope && { name: 'K rotated', shape: K.shape, length: K.data.length },
      qPositions: rope && { name: 'the query positions', data: ropePositions(m, '', undefined, Tq, ropeStart) },
      kPositions: rope && { name: 'the key positions', data: ropePositions(m, '', undefined, Tk, ropeStart) },
      ropeWork: rope && {
        name: 'the cosine and sine table',
        shape: [2, Math.max(Tq, Tk), dk],
        length: 2 * Math.max(Tq, Tk) * dk,
      },
      dims: { data: dims },
      output: { shape: [...lead, Tq, dv], length: nOut },
      weights: returnWeights && { shape: scoreShape, length: nW },
      scores: returnScores && { shape: scoreShape, length: nW },
      work: attentionWork(this._rt.module, streaming, returnWeights || returnScores, Tq, Tall),
    };
    const r = this._buffers(m, specs, (p) => {
      if (cache) recheckKvCache(m, cache);
      if (rope) {
        // Q and K turned into their own buffers, rows of Tq (Tk) tokens.
        for (const [x, input, T, positions, out] of [
          [Q, p.Q, Tq, p.qPositions, p.Qrot],
          [K, p.K, Tk, p.kPositions, p.Krot],
        ])
          ropeCall(this, { x: input, positions, out, work: p.ropeWork }, numel(x.shape) / (T * dk), T, dk, rope);
      }
      const [pq, pk0] = rope ? [p.Qrot, p.Krot] : [p.Q, p.K];
      if (past) {
        joinRows(this._rt, p.presentKey, past.key.data, pk0, numel(K.shape.slice(0, -2)), P, Tk, dk);
        joinRows(this._rt, p.presentValue, past.value.data, p.V, numel(V.shape.slice(0, -2)), P, Tk, dv);
        if (!kernelChecks) {
          checkPast(this._rt, p.presentKey, past.key.data, numel(K.shape.slice(0, -2)), P, Tk, dk);
          checkPast(this._rt, p.presentValue, past.value.data, numel(V.shape.slice(0, -2)), P, Tk, dv);
        }
      }
      if (cache) {
        // This call's rows (K turned by rope) written at rows P.. of the cache, past its length: until the
        // call succeeds (advanceKvCache, after _done) they are scratch, and the P rows held are untouched.
        const slices = (t) => numel(t.shape.slice(0, -2));
        const { capacity } = cache.cache;
        writeKvRows(this._rt, cache.keys, pk0, slices(K), capacity, P, Tk, dk);
        writeKvRows(this._rt, cache.values, p.V, slices(V), capacity, P, Tk, dv);
      }
      const [pk, pv] = past ? [p.presentKey, p.presentValue] : cache ? [cache.keys, cache.values] : [pk0, p.V];
      const call = (b, dimsPtr) => {
        // Batch b onwards (byte offsets; 0 for a null pointer).
        const at = (ptr, floats) => (ptr ? ptr + 4 * b * floats : 0);
        return this._kernel('attention')(
          at(pq, qsb),
          at(pk, ksb),
          at(pv, vsb),
          at(p.mask, ms[0]),
          at(p.keyBias, Tall),
          p.slopes,
          scale,
          softcap,
          dimsPtr,
          at(p.output, H * Tq * dv),
          at(p.weights, H * Tq * Tall),
          at(p.scores, H * Tq * Tall),
          p.work,
        );
      };
      let status = 0;
      if (lengths && (causal || slopes)) {
        // The causal offset (and ALiBi's query position) differs per batch (query i sits at position
        // kvSeqLen[b] - Tq + i): one call per batch, on its dims, the overflow index made flat over all batches.
        const view = new Int32Array(this._rt.memory().buffer, p.dims, dims.length);
        for (let b = 0; b < B && status === 0; b++) {
          view.set(packed(1, lengths[b] - Tq));
          const s = call(b, p.dims);
          if (s !== 0) status = s === 0x7fffffff ? s : Math.min(0x7fffffff, s + b * H * Tq * Tall);
        }
      } else status = call(0, p.dims);
      // With kernelChecks, whether the output is all finite (then it holds no NaN either), or null.
      let outputFinite = null;
      if (kernelChecks) {
        const module = this._rt.module;
        const [kLead, vLead] = [K, V].map((t) => numel(t.shape.slice(0, -2)));
        if (status !== 0) {
          runDeferredCheck(module, Q.data, p.Q);
          runDeferredCheck(module, K.data, p.K);
        }
        // In the order of the arguments: V before the past rows.
        const checkValues = () => {
          runDeferredCheck(module, V.data, p.V);
          if (past) checkPast(this._rt, p.presentValue, past.value.data, vLead, P, Tk, dv);
        };
        if (status !== 0 && past) {
          runDeferredCheck(module, V.data, p.V);
          checkPast(this._rt, p.presentKey, past.key.data, kLead, P, Tk, dk);
          checkPast(this._rt, p.presentValue, past.value.data, vLead, P, Tk, dv);
        } else if (!outputChecksValues || status !== 0) {
          checkValues();
        } else {
          outputFinite = module.firstNonFinite(p.output, nOut, 0) < 0;
          if (!outputFinite) checkValues();
        }
      }
      if (status !== 0) {
        const { what, remedy } = scoresOverflowCause({
          scale,
          softcap,
          alibi: Boolean(slopes),
          mask,
          raw: scoresStage === SCORES_STAGES.raw,
        });
        throw scoreOverflow(m, what, scoreShape, status, remedy);
      }
      // A NaN in the output (a sum that overflowed) is a RangeError from _done.
      const res = {
        output: tensorOf(this._read(Float32Array, p.output, nOut, { nanFree: outputFinite === true }), [
          ...lead,
          Tq,
          dv,
        ]),
      };
      if (returnWeights) res.weights = tensorOf(this._read(Float32Array, p.weights, nW), scoreShape.slice());
      if (returnScores) res.scores = tensorOf(this._read(Float32Array, p.scores, nW), scoreShape.slice());
      if (past) {
        // The cache for the next call: the past rows, then this call's. Copies of inputs checked
        // finite (K turned by rope: finite rows times cos and sin, never NaN), so no NaN is looked for.
        for (const [name, t, d] of [
          ['presentKey', K, dk],
          ['presentValue', V, dv],
        ]) {
          const n = numel(presentShape(t, d));
          res[name] = tensorOf(this._read(Float32Array, p[name], n, { nanFree: true }), presentShape(t, d));
        }
      }
      return res;
    });
    const args = { Q: Q.shape, K: K.shape, V: V.shape };
    if (past) Object.assign(args, { pastKey: past.key.shape, pastValue: past.value.shape });
    // A cache object's keys as held before the call, [B, h_kv, P, d_k].
    if (cache) args.cache = [cache.cache.batch, cache.cache.kvHeads, P, dk];
    if (mask) args.mask = mask.shape;
    const result = this._done('attention', args, r);
    // Only a call that returns a result keeps its rows: any error above left the length at P.
    if (cache) advanceKvCache(cache, Tk);
    return result;
  },

  /**
   * Multi-head attention (Vaswani et al. 2017, §3.2.2): projections by the
   * variant's matmul, each head attended in place through strides, streaming
   * unless the weights are asked for or `streaming: false`. Shapes, options
   * and errors: index.d.ts.
   */
  multiHeadAttention(inputs, params, options) {
    const m = 'multiHeadAttention';
    const io = optionsObject(m, inputs, 'the first argument {query, key, value}', ['query', 'key', 'value']);
    const pw = optionsObject(m, params, 'the second argument {wQ, wK, wV, wO, bQ, bK, bV, bO}', [
      'wQ',
      'wK',
      'wV',
      'wO',
      'bQ',
      'bK',
      'bV',
      'bO',
    ]);
    if (io.query === undefined) throw new TypeError(`${m}: query is missing; expected [T, d_model] or [B, T, d_model]`);
    const X = toTensorRank(m, 'query', io.query, [2, 3], '[Tq, d_model] or [B, Tq, d_model]');
    const batched = X.shape.length === 3;
    const B = batched ? X.shape[0] : 1;
    const [Tq, dm] = X.shape.slice(-2);
    const kvExp = batched ? `[B, Tk, d_model] with B = ${B}, d_model = ${dm}` : `[Tk, d_model] with d_model = ${dm}`;
    const Kx = io.key === undefined ? X : toTensorRank(m, 'key', io.key, [X.shape.length], kvExp);
    if (Kx.shape.at(-1) !== dm || (batched && Kx.shape[0] !== B))
      throw shapeError(m, 'key', Kx.shape, kvExp, 'query and key must agree on B and d_model');
    const Tk = Kx.shape.at(-2);
    const vExp = batched
      ? `[B, Tk, d_model] = ${formatShape([B, Tk, dm])}`
      : `[Tk, d_model] = ${formatShape([Tk, dm])}`;
    const Vx = io.value === undefined ? Kx : toTensorRank(m, 'value', io.value, [X.shape.length], vExp);
    if (Vx.shape.join() !== Kx.shape.join())
      throw shapeError(m, 'value', Vx.shape, vExp, 'value must have the shape of key');
    // The weights (the second argument) come before the options (argument order): each is checked here
    // for what the arguments before it fix (its rank, d_model rows; the columns of wQ and wO, the length
    // of bQ and bO), and what options.numHeads and kvHeads fix (the columns of wK and wV, the lengths of
    // bK and bV) once those options were read, in argument order: never wV or bK against a wK not yet judged.
    const wExp = (name) =>
      name === 'wQ' || name === 'wO'
        ? `[d_model, d_model] = ${formatShape([dm, dm])} ([in, out])`
        : `[d_model, kvHeads d_k] with d_model = ${dm} ([in, out])`;
    const weight = (name) => {
      if (pw[name] === undefined) throw new TypeError(`${m}: ${name} is missing; expected ${wExp(name)}`);
      const w = toTensorRank(m, name, pw[name], [2], wExp(name));
      const cols = name === 'wQ' || name === 'wO' ? dm : w.shape[1];
      if (w.shape[0] !== dm || w.shape[1] !== cols) throw shapeError(m, name, w.shape, wExp(name));
      return w;
    };
    const bias = (name) => {
      if (pw[name] === undefined || pw[name] === null) return null;
      const kv = name === 'bK' || name === 'bV';
      const bExp = kv ? '[kvHeads d_k]' : `[d_model] = [${dm}]`;
      const b = toTensorRank(m, name, pw[name], [1], bExp);
      if (!kv && b.shape[0] !== dm) throw shapeError(m, name, b.shape, bExp);
      return b;
    };
    const wQ = weight('wQ');
    const wK = weight('wK');
    const wV = weight('wV');
    const wO = weight('wO');
    const [bQ, bK, bV, bO] = ['bQ', 'bK', 'bV', 'bO'].map(bias);
    // attention's cache option is refused with what to do instead, whatever its value, before the unknown
    // keys (of the object as given: a null member is absent, but its key is still checked).
    const o = optionsObject(m, options, 'options');
    refuseKvCacheOption(
      m,
      options,
      'to decode with one, project the new tokens with matmul (X wQ, X wK, X wV, split into heads [B, h, T, d_k]), ' +
        'call attention(q, k, v, { cache }) and project its output with wO',
    );
    checkKnownKeys(m, 'options', options ?? {}, [
      'numHeads',
      'kvHeads',
      'rope',
      'scale',
      'causal',
      'mask',
      'maskKind',
      'keyPaddingMask',
      'returnWeights',
      'streaming',
    ]);
    if (o.numHeads === undefined)
      throw new TypeError(`${m}: options.numHeads (h) is missing; it must divide d_model = ${dm}`);
    if (typeof o.numHeads !== 'number' || !Number.isInteger(o.numHeads)) {
      const got = typeof o.numHeads === 'number' ? String(o.numHeads) : describeValue(o.numHeads);
      throw new TypeError(
        `${m}: options.numHeads (h) must be an integer >= 1 that divides d_model = ${dm}; got ${got}`,
      );
    }
    const h = o.numHeads;
    if (h < 1)
      throw new RangeError(
        `${m}: options.numHeads = ${h}; the number of heads h must be >= 1 (and divide d_model = ${dm})`,
      );
    if (dm % h !== 0) {
      throw new RangeError(
        `${m}: options.numHeads = ${h} does not divide d_model = ${dm} (query has shape ${formatShape(X.shape)}); h must be a divisor of d_model so that d_k = d_model / h`,
      );
    }
    const dk = dm / h;
    // Shared key/value heads (grouped-query attention): W_K and W_V project to kvHeads d_k columns.
    const hkv = o.kvHeads === undefined ? h : positiveInt(m, 'options.kvHeads', o.kvHeads);
    if (h % hkv !== 0)
      throw new RangeError(
        `${m}: options.kvHeads = ${hkv} does not divide options.numHeads = ${h}; query head i reads key/value head floor(i kvHeads / numHeads), so kvHeads must be a divisor of numHeads`,
      );
    const dkv = hkv * dk;
    // The checks of the weights that these two options fix, in argument order (wK, wV, bK, bV).
    const fixedBy = `options.numHeads = ${h} and kvHeads = ${hkv} fix its`;
    for (const [name, w] of [
      ['wK', wK],
      ['wV', wV],
    ]) {
      const exp = `[d_model, kvHeads d_k] = ${formatShape([dm, dkv])} ([in, out]; kvHeads = ${hkv}, d_k = ${dk})`;
      if (w.shape[1] !== dkv) throw shapeError(m, name, w.shape, exp, `${fixedBy} columns`);
    }
    for (const [name, b] of [
      ['bK', bK],
      ['bV', bV],
    ]) {
      const exp = `[kvHeads d_k] = [${dkv}] (kvHeads = ${hkv}, d_k = ${dk})`;
      if (b && b.shape[0] !== dkv) throw shapeError(m, name, b.shape, exp, `${fixedBy} length`);
    }
    // Rotary positions: each head's q and k of token t turned by position t.
    const rope = mhaRopeOption(m, o.rope, dk, Math.max(Tq, Tk));
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const causal = booleanOption(m, 'options.causal', o.causal, false);
    const wShape = batched ? [B, h, Tq, Tk] : [h, Tq, Tk];
    let mask = null;
    let ms = [0, 0, 0, 0];
    if (o.mask !== undefined && o.mask !== null) {
      const target = `a shape that broadcasts to ${batched ? '[B, h, Tq, Tk]' : '[h, Tq, Tk]'} = ${formatShape(wShape)}`;
      mask = toMask(m, 'mask', o.mask, target, 'attend', o.maskKind, (shape) => {
        const s = broadcastStrides(m, 'mask', shape, wShape, batched ? '[B, h, Tq, Tk]' : '[h, Tq, Tk]');
        ms = batched ? s : [0, ...s];
      });
    }
    // options.maskKind is judged after the mask (it says how to read it), and without a mask too.
    maskKindOption(m, o.maskKind);
    let kpm = null;
    let kbsb = 0;
    if (o.keyPaddingMask !== undefined && o.keyPaddingMask !== null) {
      const kExp = batched ? `[B, Tk] = ${formatShape([B, Tk])}` : `[Tk] = [${Tk}]`;
      const target = batched ? [B, Tk] : [Tk];
      kpm = toMask(m, 'keyPaddingMask', o.keyPaddingMask, kExp, 'ignore', o.maskKind, (shape) => {
        const s = broadcastStrides(m, 'keyPaddingMask', shape, target, batched ? '[B, Tk]' : '[Tk]');
        if (s.at(-1) === 0 && Tk > 1) throw shapeError(m, 'keyPaddingMask', shape, kExp, 'one entry per key is needed');
        kbsb = batched ? s[0] : 0;
      });
    }
    const returnWeights = booleanOption(m, 'options.returnWeights', o.returnWeights, false);
    const streaming = streamingOption(m, o.streaming, [returnWeights && 'returnWeights']);
    if (!streaming && 4 * Tq * Tk > HEAP_LIMIT_BYTES) {
      // Checked here: the workspace size comes back from wasm as 32 bits.
      throw new RangeError(
        `${m}: the materialized path needs one head's [Tq, Tk] = ${formatShape([Tq, Tk])} score grid, ${4 * Tq * Tk} bytes, ` +
          `more than the 1 GiB limit of the heap; use smaller shapes, or the streaming path (no returnWeights, streaming not false)`,
      );
    }
    // ag_mha_dims (kernels.h) by field name.
    const dims = packDims(this._rt.module, 'mhaDimsFields', {
      B,
      Tq,
      Tk,
      d_model: dm,
      h,
      h_kv: hkv,
      m_sb: ms[0],
      m_sh: ms[1],
      m_si: ms[2],
      m_sj: ms[3],
      kb_sb: kbsb,
      causal: causal ? 1 : 0,
      rope: rope ? 1 : 0,
      rope_interleaved: rope && rope.interleaved ? 1 : 0,
      streaming: streaming ? 1 : 0,
    });
    const nOut = B * Tq * dm;
    const nW = B * h * Tq * Tk;
    const r = this._buffers(m, { dims: { data: dims } }, ({ dims: pd }) => {
      const specs = {
        // Self-attention passes one tensor as query, key and value: it is
        // copied in once and its pointer passed three times.
        query: { data: X.data },
        key: Kx !== X && { data: Kx.data },
        value: Vx !== Kx && { data: Vx.data },
        wQ: { data: wQ.data },
        wK: { data: wK.data },
        wV: { data: wV.data },
        wO: { data: wO.data },
        bQ: bQ && { data: bQ.data },
        bK: bK && { data: bK.data },
        bV: bV && { data: bV.data },
        bO: bO && { data: bO.data },
        mask: mask && { data: mask.data },
        keyPaddingMask: kpm && { data: kpm.data },
        output: { shape: X.shape, length: nOut },
        weights: returnWeights && { shape: wShape, length: nW },
        workspace: { length: this._rt.module.mhaWorkspaceFloats(pd) },
      };
      return this._buffers(m, specs, (p) => {
        const key = p.key || p.query;
        const value = p.value || key;
        const status = this._kernel('multi_head_attention')(
          p.query,
          key,
          value,
          p.wQ,
          p.wK,
          p.wV,
          p.wO,
          p.bQ,
          p.bK,
          p.bV,
          p.bO,
          p.mask,
          p.keyPaddingMask,
          scale,
          rope ? rope.base : 10000,
          pd,
          p.output,
          p.weights,
          p.workspace,
        );
        const output = this._read(Float32Array, p.output, nOut);
        if (status !== 0 || knownNaNIndex(output) >= 0) {
          // Scores or output went wrong: a projection that overflowed is the
          // cause to name, if one did (the workspace still holds Q, K and V).
          // Key and value default to query (and value to key): name what was passed.
          const kName = io.key === undefined ? 'query' : 'key';
          const vName = io.value === undefined ? kName : 'value';
          const projections = [
            {
              what: `Q = query\u00b7wQ${bQ ? ' + bQ' : ''}`,
              inputs: bQ ? 'query, wQ or bQ' : 'query or wQ',
              shape: [...X.shape.slice(0, -1), dm],
            },
            {
              what: `K = ${kName}\u00b7wK${bK ? ' + bK' : ''}`,
              inputs: bK ? `${kName}, wK or bK` : `${kName} or wK`,
              shape: [...Kx.shape.slice(0, -1), dkv],
            },
            {
              what: `V = ${vName}\u00b7wV${bV ? ' + bV' : ''}`,
              inputs: bV ? `${vName}, wV or bV` : `${vName} or wV`,
              shape: [...Kx.shape.slice(0, -1), dkv],
            },
          ];
          const outputProjection = {
            what: `concat(heads)\u00b7wO${bO ? ' + bO' : ''}`,
            inputs: bO ? 'wO, bO or the inputs' : 'wO or the inputs',
            shape: X.shape,
            nanAt: status === 0 ? knownNaNIndex(output) : -1,
          };
          const bad = projectionOverflow(this._rt.module, m, p.workspace, projections, outputProjection);
          if (bad) throw bad;
        }
        if (status !== 0) throw scoreOverflow(m, 'the per-head scores', [B, h, Tq, Tk], status);
        // A NaN in the output (a sum that overflowed) is a RangeError from _done.
        const res = { output: tensorOf(output, X.shape.slice()) };
        if (returnWeights) res.weights = tensorOf(this._read(Float32Array, p.weights, nW), wShape.slice());
        return res;
      });
    });
    const args = {
      query: X.shape,
      key: Kx.shape,
      value: Vx.shape,
      wQ: wQ.shape,
      wK: wK.shape,
      wV: wV.shape,
      wO: wO.shape,
    };
    if (mask) args.mask = mask.shape;
    if (kpm) args.keyPaddingMask = kpm.shape;
    return this._done('multi_head_attention', args, r);
  },
};
