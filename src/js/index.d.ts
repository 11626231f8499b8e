/**
 * attention-geometry: the mathematics of attention as WebAssembly kernels
 * (128-bit SIMD and scalar variants) behind one JS API.
 *
 * ```js
 * import { init } from 'attention-geometry';
 * const ag = await init();
 * ag.dot([3, 4], [4, 3]);                                        // 24
 * ag.attention([[1, 2, 0, 1]], K, V, { scale: 1 }).output;       // { data, shape: [1, d_v] }
 * ```
 *
 * ## Numeric contract
 * - Everything is float32. Inputs are rounded to float32 on the way in.
 * - Inputs must be finite once rounded to float32: a number is accepted when
 *   `Math.fround` of it is finite (3.4028235e38, FLT_MAX as NumPy prints it, is;
 *   3.5e38 is not). The same holds for number options such as `scale`. Only additive
 *   masks may hold `-Infinity`. Otherwise a `RangeError` names the argument and the
 *   first bad index, e.g. `attention: Q[1, 2] is NaN`.
 * - Dot products and sums are pairwise/blocked:
 *   |error| <= (2 ceil(log2 n) + 1) u sum|a_i b_i| with u = 2^-24, for n up to 2^24.
 *   Results that overflow float32 are `Infinity` or `-Infinity` (e.g. `squaredNorm` of
 *   huge vectors; `norm` is scaled and overflows only if the true norm does). The bound
 *   holds while sum|a_i b_i| < FLT_MAX; beyond it a result may be +-Infinity.
 * - Finite inputs whose intermediate values overflow float32 (x / temperature, the scores
 *   scale * q.k, a partial sum) never give NaN: where an overflow would turn into NaN
 *   (3e38 + 3e38 - 3e38 - 3e38 summed in pairs is Infinity - Infinity) or into a score that
 *   looks masked, a `RangeError` names the first entry that overflowed. A sum whose
 *   partial sums pass FLT_MAX but stay of one sign gives +-Infinity instead (which
 *   partial sums overflow depends on the variant's summation order; see the bound
 *   above). `softmaxNaive` alone returns NaN, by design (that is its lesson):
 *   `softmaxNaive([100, 1])` is `[NaN, 0]`; see its own entry.
 * - A row whose every key is masked gets all-zero weights and an all-zero
 *   output, never NaN.
 *
 * ## Errors (thrown synchronously by every method)
 * - `TypeError`: an argument of the wrong kind (a string for a vector, an array
 *   where a number belongs, a number or an empty slot where a row belongs, a shape
 *   entry that is not a number, a mask mixing booleans and numbers, a missing weight,
 *   malformed `init` options, an options key that the method does not know, more
 *   arguments than the method takes: `softmaxNaive([1, 2], { temperature: 100 })`
 *   names the method, the count it takes and the extra argument; trailing `undefined`
 *   arguments are not counted). The count is checked, in the same words, by every
 *   method of this object, by `random.*` and `tasks.*` (named `random.normal`,
 *   `tasks.sort`), by the methods of the {@link TaskGenerator} a task returns
 *   (`taskGenerator.at`), by a {@link Transformer}'s methods (`transformer.step`) and by
 *   `init`, whose promise rejects with it.
 * - `RangeError`: a mismatched shape or a ragged nested array, a shape dimension that is
 *   not a non-negative integer (-1, 1.5), a length of zero, a non-finite value, a
 *   zero vector where a direction is needed (cosine, angle, projections,
 *   normalize), `numHeads` not dividing d_model, a temperature <= 0 or not
 *   finite, a size beyond the 1 GiB wasm heap (or a failed allocation).
 * Messages name the method, the argument, the shape received and the shape
 * expected, e.g. `dot: b has shape [3] but [2] was expected`.
 *
 * Which error, when there are several: too many arguments is an error of the call,
 * thrown before any argument is read; then arguments are checked in the documented
 * argument order, and the first bad one is named. The options object is the last
 * argument: its own errors (not a plain object, an unknown or refused key) come
 * after every positional argument, then its members in the order they are listed
 * here (so `softmax([NaN, 1], { temprature: 1 })` names `x[0]`, not the key);
 * `maskKind`, which says how to read a mask, comes after the mask's kind and shape
 * and before its values.
 * Each argument's shape is judged against the arguments before it, and within one
 * argument its kind and shape come before its values (a NaN), which come before
 * rules on its values (a distribution, a zero vector): `layerNormBackward([[0, 1]],
 * [[NaN, 2, 3]])` names x's shape [1, 3], not its NaN. This holds whatever form each
 * argument takes, and when one array is passed as several arguments (`dot(x, x)`
 * names a). Where a shape depends on an option, it is checked once that option was
 * read, in its place among the options, and nothing is judged against it before:
 * matmul's inner dimension K (after `transposeB` and `transposeA`; its batch axes
 * come before the options), attention's even d_k of Q (after `rope`), and
 * multiHeadAttention's columns of wK and wV and lengths of bK and bV (after
 * `numHeads` and `kvHeads`, in that argument order: a wV that fits the options is
 * never blamed for a wK that does not).
 *
 * After any error
 * the instance is intact: nothing stays allocated and the next call is right.
 *
 * ## Options: null is absent
 * An option set to `null` is the same as one left out (`undefined`), for every member of every
 * options object (`init`'s, each method's, nested ones such as `options.rope`) and of the object
 * arguments with named members (multiHeadAttention's inputs and weights, adamUpdate's state, a
 * transformer's config and batch, the parameters of `loadParameters`): an optional one takes its
 * default, and a required one is missing, the same error as when it is left out
 * (`adamUpdate(p, g, null, { lr: null, step: 1 })` names `options.lr` as required). An options
 * argument of `null` is one left out: `attention(Q, K, V, null)` is `attention(Q, K, V)`. A
 * positional tensor argument that is `null` is a `TypeError` (`attention(null, K, V)`), except
 * adamUpdate's state, where `null` is the first step's zeros. The declarations below write
 * `| null` only where it was always documented; the rule holds for every member.
 * A member of a method's options (or object argument) is given only as an own enumerable key:
 * an object with a non-enumerable member, or one inherited from a prototype of its own (a getter
 * of a class, `Object.create(o)`), is a `TypeError` naming the member, since reading it as absent
 * would run the call on defaults. A class instance whose members are its own fields is accepted
 * (methods on its class are no members), as is another realm's plain object.
 *
 * Sources: A. Vaswani et al., "Attention Is All You Need", 2017, §3.2.1
 * (scaled dot-product attention, eq. 1) and §3.2.2 (multi-head attention);
 * M. Milakov and N. Gimelshein, "Online normalizer calculation for softmax",
 * 2018, and T. Dao et al., "FlashAttention", 2022 (the streaming attention);
 * the module's two articles on the geometry of dot products and on softmax.
 * @module attention-geometry
 */

/** A vector [n]: a Float32Array or an array of numbers (a rank-1 {@link Tensor} is accepted too). */
export type Vector = Float32Array | Float64Array | number[];

/** Nested arrays of numbers, rectangular, row-major (e.g. `[[1, 2], [3, 4]]` has shape [2, 2]). */
export type NestedNumbers = number | NestedNumbers[];

/** A tensor as returned by every method: a fresh JS-owned Float32Array in row-major order and its shape. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/**
 * A tensor argument: `{data, shape}` (data Float32Array, Float64Array or number[]), nested arrays (whose rows
 * may also be Float32Arrays or Float64Arrays), or a bare Float32Array or Float64Array (a vector [n]). Float64
 * values are rounded to float32 on the way in.
 */
export type TensorLike =
  | Tensor
  | { data: Float32Array | Float64Array | number[]; shape: number[] }
  | NestedNumbers[]
  | Float32Array
  | Float64Array;

/**
 * A mask. Boolean masks: nested arrays of booleans, `{data: boolean[] | Uint8Array, shape}`
 * or a bare Uint8Array (a vector; 1 = true). Additive float masks: numbers, added to the scores/logits, may
 * hold `-Infinity`. What `true` means is said by each option.
 */
export type MaskLike =
  | boolean[]
  | boolean[][]
  | boolean[][][]
  | boolean[][][][]
  | { data: boolean[] | Uint8Array | Float32Array | Float64Array | number[]; shape: number[] }
  | Uint8Array
  | TensorLike;

/** 64-bit seed or counter: a non-negative safe integer (< 2^53) or a BigInt in [0, 2^64). */
export type U64 = number | bigint;

/** One entry of the kernel registry (src/kernels/registry.inc). */
export interface KernelInfo {
  /** Registry name, e.g. `'dot'`, `'matmul_nt'`, `'multi_head_attention'`. */
  name: string;
  /** `'vector' | 'matrix' | 'softmax' | 'attention' | 'random'`. */
  family: string;
  /** `['scalar', 'simd128']` in the SIMD build, `['scalar']` in the baseline build, `['shared']` for one implementation in every build. */
  variants: string[];
}

/** One logged kernel call (test mode): what the page showed must come from here. */
export interface KernelCall {
  /** Registry name of the kernel. */
  kernel: string;
  /** `'simd128'`, `'scalar'` or `'shared'`. */
  variant: string;
  /** Shape of each argument, by its name in the API (Q, K, V, mask, a, b, x, ...). */
  args: Record<string, number[]>;
  /** The result: a number, a `{shape, data}` copy, or an object of those (attention: output, weights, scores). */
  result: unknown;
  /** Number of kernel invocations (batched matmul calls the kernel once per batch entry). */
  calls: number;
}

export interface InitOptions {
  /**
   * Which build to load. `'auto'` (default): the SIMD build when
   * `WebAssembly.validate` accepts a tiny SIMD module and a known-answer check
   * passes after instantiation, else the baseline build. `true`: the SIMD build
   * (rejects if the engine has no SIMD). `false`: the baseline build.
   */
  simd?: 'auto' | boolean;
  /**
   * Which kernel variant this instance calls. Default `'simd128'` in the SIMD
   * build; the baseline build has only `'scalar'` (asking it for `'simd128'` rejects
   * with a RangeError).
   */
  variant?: 'simd128' | 'scalar';
  /**
   * Maps a file name (`'ag-simd.wasm'` or `'ag-scalar.wasm'`) to its URL, for
   * hosting the .wasm elsewhere. A relative URL resolves against the page
   * (`document.baseURI`) in browsers and against the current working directory
   * (`process.cwd()`) in Node; pass an absolute URL (or a `file:` URL in Node)
   * to be independent of both. Default: `./wasm/<name>` next to this module.
   * It must return a non-empty string or a URL; anything else (an empty string
   * included) makes init() reject with a TypeError, and an error it throws
   * makes init() reject with an Error naming it (the original as `cause`).
   */
  locateFile?: (name: string) => string | URL;
  /**
   * The URL of the .wasm (of the build chosen), or one per build: `{simd, scalar}`.
   * Takes precedence over locateFile. An object without an entry for the build
   * that is loaded (e.g. `{simd}` on an engine without SIMD) locates that build
   * as if it were absent: by locateFile if given, else at the default location.
   * Relative URLs resolve as for locateFile. Each entry must be a non-empty string or a
   * URL (else a TypeError names it, e.g. `options.wasmUrl.simd`).
   */
  wasmUrl?: string | URL | { simd?: string | URL; scalar?: string | URL };
  /**
   * The bytes of the .wasm (of the build chosen), or one per build: `{simd, scalar}` (a build without an entry is
   * located as if wasmBinary were absent). Nothing is fetched. Buffers and views made in another realm (an
   * iframe, node:vm) are bytes too; an object that is neither bytes nor a plain `{simd, scalar}` object (a Proxy
   * of a buffer, a Map) is a TypeError.
   */
  wasmBinary?:
    | ArrayBuffer
    | SharedArrayBuffer
    | ArrayBufferView
    | {
        simd?: ArrayBuffer | SharedArrayBuffer | ArrayBufferView;
        scalar?: ArrayBuffer | SharedArrayBuffer | ArrayBufferView;
      };
  /** Test mode: keep every kernel call in `ag.callLog`. Default false. */
  logCalls?: boolean;
  /** Test mode: called after every kernel call with what was called and what it returned. */
  onKernelCall?: (call: KernelCall) => void;
}

export interface SoftmaxOptions {
  /** softmax(x / temperature); > 0 and finite. Default 1. Lower is sharper, higher flatter. */
  temperature?: number;
  /**
   * Mask over x, broadcast trailing-aligned to x's shape. Boolean: `true` = may
   * take part, `false` = weight 0. Float: added to x / temperature (may hold -Infinity).
   */
  mask?: MaskLike;
  /**
   * Which kind of mask a plain number array is. The kind comes from the container: booleans
   * and Uint8Array are boolean, Float32Array/Float64Array additive (as in PyTorch), and a
   * number array additive, except that a number array of only 0s and 1s is refused with a
   * TypeError (as an additive mask it hides nothing; PyTorch and Hugging Face users mean 1 =
   * attend) unless this says which it is: `'boolean'` reads 1 as true, `'additive'` adds
   * the numbers. A stated kind that contradicts the container is a TypeError.
   */
  maskKind?: 'additive' | 'boolean';
}

/** How {@link AttentionGeometry.rope} turns pairs (also attention's `rope` option). */
export interface RopeSettings {
  /** theta_p = base^(-2p/d): a finite number >= 1 (so that every angle stays within the bound). Default 10000 (RoFormer). */
  base?: number;
  /** Pairs (x_2p, x_2p+1) when true (default), (x_p, x_p+d/2) when false (half-split). */
  interleaved?: boolean;
}

/** Options of {@link AttentionGeometry.rope}. */
export interface RopeOptions extends RopeSettings {
  /** The position m_t of each of the T tokens (finite, |m_t| <= 2^24; fractions are kept: the angles are computed in float64). Default 0, 1, ..., T - 1. */
  positions?: ArrayLike<number>;
}

/**
 * The members of {@link AttentionOptions}, each documented here; AttentionOptions allows one kind of
 * KV cache at most (`cache`, or `pastKey` and `pastValue`).
 */
export interface AttentionOptionMembers {
  /**
   * Multiplies Q K^T. Default 1/sqrt(d_k) (Vaswani et al. 2017, eq. 1), rounded to float32. Any
   * number finite in float32, 0 and negatives included (0: equal weights over the visible keys); not
   * a number: TypeError; not finite in float32: RangeError.
   */
  scale?: number;
  /**
   * Soft cap c > 0 on the scores (Gemma 2, Team et al. 2024; the ONNX Attention operator,
   * opset 23): each score becomes c tanh(scale q.k / c), in (-c, c), before the mask is
   * added, so a masked key stays masked. Leave it out for no cap. A value that is not a
   * number is a TypeError; 0, a negative, a non-finite value or one that is 0 in float32
   * is a RangeError.
   */
  softcap?: number;
  /**
   * A KV cache resident in this instance's wasm memory ({@link AttentionGeometry.createKvCache};
   * Pope et al. 2022, "Efficiently Scaling Transformer Inference", §2), for decoding: K
   * [B, h_kv, Tk, d_k] and V [B, h_kv, Tk, d_v] (leading axes of 1 may be left out; K turned by
   * `rope` at positions P..P + Tk - 1, P = `cache.length`) are written into the cache at rows
   * P..P + Tk - 1, and the queries attend over its P + Tk rows in place (read through strides,
   * never copied), as with `pastKey` and `pastValue` holding those rows: query i sits at P + i
   * (`causal`, `window`, `rope`, `alibi`), the mask, weights and scores have P + Tk columns,
   * `kvSeqLen` counts among the P + Tk keys, and both paths (`streaming`) and shared key/value heads
   * (h_q a multiple of h_kv) work as there. The result has no `presentKey` or `presentValue`: the
   * rows stay in the cache, whose `length` becomes P + Tk when the call returns. Any error (a bad
   * argument or option, a non-finite input, an overflow) leaves the cache as it was (length and
   * rows). Not a cache made by createKvCache, or one of another instance, or together with
   * `pastKey` or `pastValue`: TypeError; a disposed cache: Error; K or V whose B, h_kv, d_k or d_v
   * differ from the cache's, or P + Tk beyond its capacity: RangeError naming `options.cache` and
   * the numbers. The cache's B is K's batch: a cache of batch 1 serves Q of any batch.
   */
  cache?: KvCache;
  /**
   * A KV cache: the keys and values of P earlier tokens, [..., P, d_k] and [..., P, d_v] with
   * K's and V's leading shape, placed before K and V (P + Tk keys in all; the mask, weights
   * and scores then have P + Tk columns). With `causal`, query i sits at position P + i and
   * sees keys 0..P + i. The result carries `presentKey` and `presentValue`, the joined rows,
   * for the next call. Both or neither (TypeError); other shapes are a RangeError naming the
   * option; a non-finite entry is a RangeError naming it. P may be 0 (a { data, shape } with
   * P = 0; a nested array cannot hold 0 rows, so `[]` is a RangeError: the empty cache of a
   * decode loop's first call, whose presentKey and presentValue
   * are then K and V; with `rope`, K turned at positions 0..Tk - 1); every other dimension
   * is at least 1.
   */
  pastKey?: TensorLike;
  /** The values of the KV cache: see {@link AttentionOptionMembers.pastKey}. */
  pastValue?: TensorLike;
  /**
   * Per batch, the number of valid keys (ONNX `nonpad_kv_seqlen`, opset 24): B integers from 0
   * to the number of keys; keys at positions >= kvSeqLen[b] are hidden. With `causal`, query i
   * of batch b sits at position kvSeqLen[b] - Tq + i (rows before any valid key get a +0
   * output). B is Q's batch axis: a rank-3 Q is [h, Tq, d_k] (one batch), so per-batch lengths
   * need [B, 1, Tq, d_k]. Not an array, or an entry that is not a number: TypeError; another
   * length or a value out of range: RangeError naming `options.kvSeqLen[b]`.
   */
  kvSeqLen?: ArrayLike<number>;
  /** Query i sees keys 0..i only (top-left aligned when Tq != Tk; 0..P + i with a KV cache of P). Default false. */
  causal?: boolean;
  /**
   * Sliding-window attention (Beltagy et al. 2020, Longformer; Jiang et al. 2023, Mistral 7B):
   * an integer w >= 1; query i sees only its last w keys, i - w + 1..i (i + P - w + 1..i + P
   * with a KV cache of P), as if the keys before were masked with -Infinity; neither path
   * reads them. A window is causal: it turns `causal` on, and `causal: false` with it is a
   * RangeError. Not an integer: TypeError; below 1 or above 2^31 - 1: RangeError.
   */
  window?: number;
  /**
   * Rotary positions (RoPE; Su et al. 2021): Q and K are turned by {@link AttentionGeometry.rope}
   * before the scores, query i at position P + i and key j of K at P + j (P = 0 without a KV
   * cache; the cached keys are taken as already turned, and `presentKey` holds turned keys).
   * `true` for base 10000 and interleaved pairs, or `{ base, interleaved, start }`, `start` the
   * position of the first query and new key (default P; give it when a `pastKey` cache was trimmed, as a
   * sliding window's rolling cache is, so that P is no longer the position; a `cache` object is never
   * trimmed from the front, so its P is always the position). d_k must be even
   * (RangeError naming Q). With `kvSeqLen` it is a RangeError (the positions would differ per
   * batch: turn Q and K with `rope(x, { positions })` first). Not a boolean or an object:
   * TypeError.
   */
  rope?: boolean | (RopeSettings & { start?: number });
  /**
   * ALiBi, attention with linear biases (Press et al. 2022, "Train Short, Test Long", §3):
   * query head h adds -m_h |i + P - j| to the score of query i and key j, where the mask is
   * added (after `softcap`, before `mask`), P the queries' position: 0, the KV cache's length,
   * or with `kvSeqLen` kvSeqLen[b] - Tq (with or without `causal`). For keys after the query
   * (no `causal`) the distance is taken as |i + P - j|, the symmetric form. `true` for the
   * paper's slopes ({@link AttentionGeometry.alibiSlopes} of h_q), or h_q slopes m_h (an array
   * or a Float32Array; rounded to float32; any finite value: 0 adds nothing, and a negative
   * slope favours far keys, where the paper's are all positive). The bias is computed in the kernel, exact to one
   * rounding (registry.inc); `returnScores` `'raw'` and `'capped'` leave it out. Not a boolean or
   * an array: TypeError; another length than h_q, a non-finite slope, or distances beyond 2^24
   * (Tq + P + Tk - 1 > 2^24): RangeError naming `options.alibi`.
   */
  alibi?: boolean | ArrayLike<number>;
  /**
   * Boolean (`true` = may attend) or additive float mask (added to the scaled
   * scores; -Infinity hides a key), broadcast to [B, h, Tq, Tk] from any
   * trailing-aligned shape ([Tq, Tk], [Tk], [B, 1, Tq, Tk], ...).
   */
  mask?: MaskLike;
  /**
   * Which kind of mask a plain number array is. The kind comes from the container: booleans
   * and Uint8Array are boolean, Float32Array/Float64Array additive (as in PyTorch), and a
   * number array additive, except that a number array of only 0s and 1s is refused with a
   * TypeError (as an additive mask it hides nothing; PyTorch and Hugging Face users mean 1 =
   * attend) unless this says which it is: `'boolean'` reads 1 as true, `'additive'` adds
   * the numbers. A stated kind that contradicts the container is a TypeError.
   */
  maskKind?: 'additive' | 'boolean';
  /** Also return the weights (softmax of the scores) [..., Tq, Tk]. Default false. */
  returnWeights?: boolean;
  /**
   * Also return the scores [..., Tq, Tk]. `true` or `'masked'`: those the softmax reads, scale Q K^T
   * (capped if `softcap`) + ALiBi bias + mask, with -Infinity where masked, causal or outside the window (ONNX
   * qk_matmul_output_mode 2). `'capped'`: after the soft cap, before any mask (mode 1). `'raw'`:
   * scale Q K^T alone (mode 0); the last two at every key, from the same pass of the kernel. Default false;
   * another value is a TypeError. A raw score beyond float32 is a RangeError with `'raw'` even under a
   * soft cap, which bounds the output and the capped scores but not the raw ones.
   */
  returnScores?: boolean | 'masked' | 'capped' | 'raw';
  /**
   * How the softmax over the keys is computed. Default: true unless `returnWeights` or
   * `returnScores` is true.
   * - `true`, streaming (Milakov & Gimelshein 2018, online softmax; Dao et al. 2022,
   *   FlashAttention): for each block of 64 queries the keys and values are read in tiles
   *   of 256, keeping per query a running max m, a running sum l and the unnormalised
   *   output O, rescaled by exp(m_old - m_new) when the max grows; output = O / l. No
   *   [Tq, Tk] buffer is ever allocated: wasm memory is the inputs, the output and 64.5 KiB
   *   of work, whatever Tq and Tk.
   * - `false`, materialized: the [Tq, Tk] scores of each (batch, head) slice are formed,
   *   softmaxed row by row (bit for bit the `softmax` method's weights) and mixed with V.
   *   Needs 4 Tq Tk bytes of wasm memory per slice (in the weights or scores when they are
   *   returned).
   * The two orders of operations differ, so their outputs may differ in the last bits
   * (each within its error bound, src/kernels/registry.inc: attention).
   * @throws TypeError when not a boolean, or when `true` together with `returnWeights` or
   *   `returnScores` (the streaming path never forms them), naming both options.
   */
  streaming?: boolean;
}

/**
 * The options of {@link AttentionGeometry.attention}: the members of {@link AttentionOptionMembers},
 * with one kind of KV cache at most: `cache` (rows kept in wasm memory), or `pastKey` and `pastValue`
 * (rows passed in, `presentKey` and `presentValue` returned), never both (a type error here; at run
 * time a TypeError naming both options).
 */
export type AttentionOptions =
  | (AttentionOptionMembers & { pastKey?: undefined; pastValue?: undefined })
  | (AttentionOptionMembers & { cache?: undefined });

export interface AttentionResult {
  /** Y = softmax(scores) V, shape [..., Tq, d_v]. */
  output: Tensor;
  /** Attention weights [..., Tq, Tk] ([..., Tq, P + Tk] with a KV cache of P rows); rows sum to 1 (or are all 0 when every key is masked). Present with `returnWeights: true`. */
  weights?: Tensor;
  /** Scores (logits) [..., Tq, Tk] ([..., Tq, P + Tk] with a KV cache of P rows): scale Q K^T + mask, or an earlier stage (see `returnScores`). Present with `returnScores`. */
  scores?: Tensor;
  /**
   * [pastKey; K] along the tokens, [..., P + Tk, d_k]: the cache for the next call. Present with `pastKey`;
   * never with `cache`, whose rows stay in wasm memory ({@link KvCache.keys} copies them out).
   */
  presentKey?: Tensor;
  /** [pastValue; V] along the tokens, [..., P + Tk, d_v]. Present with `pastValue`; never with `cache`. */
  presentValue?: Tensor;
}

/**
 * `O` with every key that `Allowed` does not have typed `never`: a misspelt option key is a
 * type error even beside valid ones (at run time it is a TypeError naming the key).
 */
export type OnlyKnownKeys<O, Allowed> = O & { [K in Exclude<keyof O, keyof Allowed>]: never };

/**
 * `Allowed` with every key of `O` that it does not have typed `never`, as the bound of an options type
 * `O extends KnownOptions<O, Allowed>`: a misspelt key is a type error, as with {@link OnlyKnownKeys}, and an
 * `Allowed` that is a union ({@link AttentionOptions}) takes an argument of that union type as it is.
 */
export type KnownOptions<O, Allowed> = Allowed & { [K in Exclude<keyof O, keyof Allowed>]: never };

/**
 * What {@link AttentionGeometry.attention} returns for options of type `O`:
 * `weights` is a `Tensor` (not optional) when `O` has `returnWeights: true`,
 * `scores` when it has `returnScores: true`, and `presentKey` and `presentValue` when it has `pastKey`.
 */
export type AttentionResultFor<O extends AttentionOptions> = AttentionResult &
  (O extends { returnWeights: true } ? { weights: Tensor } : unknown) &
  (O extends { returnScores: true | 'masked' | 'capped' | 'raw' } ? { scores: Tensor } : unknown) &
  (O extends { pastKey: TensorLike } ? { presentKey: Tensor; presentValue: Tensor } : unknown);

export interface MultiHeadInputs {
  /** X_q: [Tq, d_model] or [B, Tq, d_model]. */
  query: TensorLike;
  /** X_k: [Tk, d_model] or [B, Tk, d_model] (same rank as query). Default: query (self-attention). */
  key?: TensorLike;
  /** X_v: the shape of key. Default: key. */
  value?: TensorLike;
}

/**
 * Projection weights in the row-vector convention of the articles: Q = X_q W_Q + b_Q.
 * Every W is [d_model, d_model] as [in, out], except W_K and W_V with `kvHeads`: [d_model,
 * kvHeads d_k] (and b_K, b_V [kvHeads d_k]). PyTorch's nn.Linear stores [out, in]:
 * pass the transpose (for nn.MultiheadAttention, W_Q, W_K, W_V are the three
 * [d_model, d_model] row blocks of in_proj_weight, W_O is out_proj.weight; transpose each).
 */
export interface MultiHeadWeights {
  wQ: TensorLike;
  wK: TensorLike;
  wV: TensorLike;
  wO: TensorLike;
  /** Biases [d_model] ([kvHeads d_k] for bK and bV); each optional (none by default). */
  bQ?: Vector | null;
  bK?: Vector | null;
  bV?: Vector | null;
  bO?: Vector | null;
}

export interface MultiHeadOptions {
  /** h, the number of heads; must divide d_model (d_k = d_v = d_model / h). Required. */
  numHeads: number;
  /**
   * Shared key/value heads (grouped-query attention, Ainslie et al. 2023; 1 is multi-query
   * attention): W_K and W_V project to kvHeads d_k columns and query head i reads key/value
   * head floor(i kvHeads / numHeads), shared in place. An integer >= 1 that divides numHeads
   * (RangeError otherwise; W_K, W_V, b_K or b_V of another width: RangeError naming it and
   * the expected [d_model, kvHeads d_k]). Default numHeads.
   */
  kvHeads?: number;
  /**
   * Rotary positions (RoPE; Su et al. 2021): after the projections, each head's q and k of
   * token t are turned as {@link AttentionGeometry.rope} turns position t (queries and keys
   * alike, from 0), before the scores. `true` for base 10000 and interleaved pairs, or
   * `{ base, interleaved }`. d_k must be even (RangeError). Not a boolean or an object: TypeError.
   */
  rope?: boolean | RopeSettings;
  /** Default 1/sqrt(d_k). */
  scale?: number;
  /** Query i sees keys 0..i (top-left aligned). Default false. */
  causal?: boolean;
  /**
   * Boolean (`true` = may attend; PyTorch MHA's boolean attn_mask is the opposite, negate it)
   * or additive float, broadcast to [B, h, Tq, Tk] ([h, Tq, Tk] unbatched) from any
   * trailing-aligned shape such as [Tq, Tk].
   */
  mask?: MaskLike;
  /**
   * Which kind of mask (`mask` and `keyPaddingMask`) a plain number array is. The kind comes from the container: booleans
   * and Uint8Array are boolean, Float32Array/Float64Array additive (as in PyTorch), and a
   * number array additive, except that a number array of only 0s and 1s is refused with a
   * TypeError (as an additive mask it hides nothing; PyTorch and Hugging Face users mean 1 =
   * attend, or for `keyPaddingMask` 1 = ignore) unless this says which it is: `'boolean'` reads 1 as true, `'additive'` adds
   * the numbers. A stated kind that contradicts the container is a TypeError.
   */
  maskKind?: 'additive' | 'boolean';
  /** [B, Tk] ([Tk] unbatched): `true` = this key is padding and is ignored, as in PyTorch. A float mask is added instead. */
  keyPaddingMask?: MaskLike;
  /** Also return the per-head weights [B, h, Tq, Tk] ([h, Tq, Tk] unbatched; not averaged). Default false. */
  returnWeights?: boolean;
  /**
   * As {@link AttentionOptionMembers.streaming}, per head: default true unless `returnWeights`;
   * `false` forms one head's [Tq, Tk] score grid in wasm memory.
   * @throws TypeError when not a boolean, or when `true` together with `returnWeights`.
   */
  streaming?: boolean;
}

/** What {@link AttentionGeometry.memoryStats} reports, in bytes. */
export interface MemoryStats {
  /** The size of this instance's wasm memory (it grows as needed, up to 1 GiB, and never shrinks). */
  heapBytes: number;
  /** Bytes allocated on the wasm heap now (the allocator's in-use count; the same after every call). */
  allocatedBytes: number;
  /**
   * The most bytes allocated at once since {@link AttentionGeometry.resetPeakMemory} (or since
   * `init`): read right after each call allocated its buffers (its inputs, outputs and work;
   * the kernels themselves never allocate). Never less than `allocatedBytes`.
   */
  peakAllocatedBytes: number;
}

export interface MultiHeadResult {
  /** concat(head_1..head_h) W_O + b_O: the shape of query. */
  output: Tensor;
  /** Per-head weights [B, h, Tq, Tk] or [h, Tq, Tk]. Present with `returnWeights: true`. */
  weights?: Tensor;
}

/**
 * What {@link AttentionGeometry.multiHeadAttention} returns for options of type
 * `O`: `weights` is a `Tensor` (not optional) when `O` has `returnWeights: true`.
 */
export type MultiHeadResultFor<O extends MultiHeadOptions> = MultiHeadResult &
  (O extends { returnWeights: true } ? { weights: Tensor } : unknown);

export interface RandomOptions {
  /** Key of the generator. Default 0. */
  seed?: U64;
  /** 64-bit block counter of the first sample; four samples per block. Default 0. */
  counter?: U64;
  /** Number of samples, >= 1. Required. */
  n: number;
}

export interface RandomDotExperimentOptions {
  /** Dimension d of the random vectors, >= 1. */
  d: number;
  /** Number of independent pairs, >= 1; d * trials is at most 2^26 per call (split larger experiments). */
  trials: number;
  /** Generator seed. Default 0. Trial t draws its pair from counters 2 t ceil(d/4) and (2 t + 1) ceil(d/4). */
  seed?: U64;
  /** `'dot'` (a . b; mean 0, standard deviation sqrt(d)) or `'cosine'` (mean 0, standard deviation 1/sqrt(d)). Default 'dot'. */
  measure?: 'dot' | 'cosine';
  /** Histogram bins over `range`. Default 32. */
  bins?: number;
  /**
   * Histogram range [lo, hi), lo < hi. Default ±4 sqrt(d) for dot, ±min(1, 4/sqrt(d)) for cosine. Not an array of
   * length 2: a TypeError; an entry that is not a number (missing, an empty slot, a string): a TypeError naming it
   * and range's shape (`range[0] must be a finite number (range has shape [2]; [lo, hi], lo < hi); got undefined`);
   * an entry not finite in float32, or lo >= hi once rounded to float32: a RangeError (ends that differ but round
   * to one float32 are said to, with that float32: `needs lo < hi after rounding to float32 (both are 1)`).
   */
  range?: [number, number];
  /** Return every sample. Default true. */
  returnSamples?: boolean;
}

export interface RandomDotExperimentResult {
  /** The measured values [trials] (when returnSamples). */
  samples?: Tensor;
  mean: number;
  /** Population standard deviation. */
  std: number;
  /** Root mean square. */
  rms: number;
  /** Count of values outside [lo, hi). */
  outOfRange: number;
  /** Mean absolute value (for the cosine about sqrt(2/pi)/sqrt(d) = 0.80/sqrt(d)). */
  meanAbs: number;
  /** Counts of values in `bins` equal bins over [lo, hi) (lo, hi as float32). */
  histogram: { lo: number; hi: number; bins: number; counts: Int32Array };
}

/** The counter-based generator (Philox4x32-10): the same seed and counter give bit-identical samples in every build and worker. */
export interface RandomApi {
  /** n uniform floats in [0, 1) on the 2^-24 grid: {data, shape: [n]}. */
  uniform(options: RandomOptions): Tensor;
  /** n standard-normal floats (Box-Muller on the uniforms): {data, shape: [n]}. */
  normal(options: RandomOptions): Tensor;
}

/**
 * One step of {@link AttentionGeometry.dotTrace}: four-lane fields x, y, z, w and a
 * scalar `value`, whose meaning depends on `kind` (unused fields are 0):
 * - `'multiply-add'` (simd128): elements index..index+7 (count real, the rest zero
 *   padding); x, y = the products of lanes 0-3 and 4-7; z, w = the two accumulators after.
 * - `'fold'` (simd128): x, y = the accumulators; z = x + y.
 * - `'swap-add'` (simd128): x = v, y = v with halves swapped (lanes 2, 3, 0, 1); z = x + y.
 * - `'lane-sum'` (simd128): x = that z; value = x[0] + x[1], the block's sum.
 * - `'block'` (scalar): x = count <= 4 products from index; y[0] = x0 + x1, y[1] = x2 + x3; value = the block's sum.
 * - `'merge'`: value = x[0] + x[1] (combining block sums). `'total'`: value = a . b.
 */
export interface DotTraceStep {
  kind: 'multiply-add' | 'fold' | 'swap-add' | 'lane-sum' | 'block' | 'merge' | 'total';
  index: number;
  count: number;
  x: number[];
  y: number[];
  z: number[];
  w: number[];
  value: number;
}

export interface DotTraceResult {
  /** a . b, bit for bit this instance's `dot(a, b)`. */
  value: number;
  /** The kernel variant traced. */
  variant: 'simd128' | 'scalar';
  n: number;
  steps: DotTraceStep[];
  /** The raw records [steps, 20]: kind code, index, count, x, y, z, w, value. */
  trace: Tensor;
}

/**
 * One step of {@link AttentionGeometry.attentionTrace}: query row `row` after the keys
 * `start` .. `start + count - 1` of one tile (count 0 where causal hides the whole tile
 * from this row). The update of the online softmax (Milakov & Gimelshein 2018):
 * m = max(mPrev, tileMax), correction = exp(mPrev - m) (1 where none is applied: an
 * unchanged max, or the row's first visible tile, whose l and O start at 0),
 * l = correction * l + sum_j exp(s_j - m), O = correction * O + sum_j exp(s_j - m) v_j.
 */
export interface AttentionTraceStep {
  row: number;
  start: number;
  count: number;
  /** The largest finished score scale * q.k of the tile's keys (-Infinity when count is 0). */
  tileMax: number;
  /** The running max before the tile (-Infinity before the first visible key). */
  mPrev: number;
  /** The running max after the tile. */
  m: number;
  /** exp(mPrev - m), the factor applied to l and O before the tile is added; 1 where none is. */
  correction: number;
  /** The running sum of exp(s_j - m) over the keys seen, after the tile. */
  l: number;
  /** The unnormalised output row [d_v] after the tile: sum_j exp(s_j - m) v_j. */
  O: number[];
}

export interface AttentionTraceResult {
  /** softmax(scale Q K^T) V [Tq, d_v]: O / l per row, as the kernel divided it. */
  output: Tensor;
  /** The kernel variant traced. */
  variant: 'simd128' | 'scalar';
  /** The tile width used. */
  tileKeys: number;
  /**
   * Every (row, tile) step in the kernel's order: for each tile the kernel visits, each row.
   * It visits the ceil(Tk / tileKeys) tiles, or with `causal` only those up to the last
   * row's last key, ceil(min(Tq, Tk) / tileKeys) of them: a tile that no row sees is skipped,
   * as the streaming path skips it.
   */
  steps: AttentionTraceStep[];
  /**
   * The raw records [Tq * (tiles + 1), 10 + d_v], tiles the count visited (see `steps`):
   * kind (1 tile, 2 output), row, start,
   * count, tileMax, mPrev, m, correction, l, first overflowed key (-1), then O
   * (src/kernels/attention_trace.h).
   */
  trace: Tensor;
}

export interface AttentionTraceOptions {
  /**
   * Keys per tile: 2, 3, 4, 6 or 8 to step through a short row, or 256 (the default),
   * the tile of {@link AttentionGeometry.attention}'s streaming path.
   */
  tileKeys?: 2 | 3 | 4 | 6 | 8 | 256;
  /** Multiplies q.k. Default 1/sqrt(d_k) (rounded to float32). */
  scale?: number;
  /** Query i sees keys 0..i only. Default false. */
  causal?: boolean;
}

/** One loaded module. Every method validates its arguments, calls one kernel of {@link variant}, and returns JS-owned results. */
export interface AttentionGeometry {
  /** `'wasm-simd128'` (the SIMD build) or `'wasm-scalar'` (the baseline build). */
  readonly backend: 'wasm-simd128' | 'wasm-scalar';
  /** The kernel variant this instance calls. */
  readonly variant: 'simd128' | 'scalar';
  /** The kernel registry of the loaded build. */
  readonly kernels: readonly KernelInfo[];
  /** Every kernel call, when init was given `logCalls: true` (test mode). */
  readonly callLog?: KernelCall[];
  readonly random: RandomApi;
  /** The training tasks of {@link createTransformer}: seeded generators of batches (src/js/tasks.js). */
  readonly tasks: TasksApi;
  /**
   * A tiny transformer trained in this instance's wasm memory on its kernels (GPT-2 style pre-norm decoder,
   * causal; Radford et al. 2019, Vaswani et al. 2017). See {@link TransformerConfig} and {@link Transformer}.
   * @throws TypeError for a config that is not a plain object, a size that is not an integer, a flag that is not
   *   a boolean, or an unknown key; RangeError naming the field for a size out of range (vocab 1..65536, T 1..4096,
   *   dModel 1..4096, layers 1..64, heads 1..dModel), heads not dividing dModel, a norm other than 'layer' or
   *   'none', and sizes whose parameters (with gradients and Adam's moments) need more than 512 MiB or that do not
   *   fit with one batch row in the 1 GiB of wasm memory.
   */
  createTransformer(config: TransformerConfig): Transformer;
  /**
   * A KV cache for decoding (Pope et al. 2022, "Efficiently Scaling Transformer Inference", §2: the keys and
   * values of earlier tokens kept, so that each step computes only its own): keys [B, h_kv, capacity, d_k] and
   * values [B, h_kv, capacity, d_v] allocated once in this instance's wasm memory, filled by
   * `attention(q, k, v, { cache })` (see {@link AttentionOptionMembers.cache}) a few rows per call, so that a decode
   * step copies its new rows in and its output out, not the whole cache as `pastKey` does. Empty (length 0)
   * when made. See {@link KvCache}.
   * @throws TypeError for options that are missing or not a plain object, an unknown key, a missing kvHeads,
   *   capacity or dK, or a size that is not an integer; RangeError for a size below 1, and for sizes beyond the
   *   1 GiB wasm heap or that it could not allocate.
   */
  createKvCache(options: KvCacheOptions): KvCache;

  /** a . b = sum_i a_i b_i; a, b [n]. Pairwise sum (see the numeric contract). */
  dot(a: Vector, b: Vector): number;
  /** |a|^2 = a . a; a [n]. Overflows to Infinity when |a|^2 > 3.4e38 (use norm for lengths). */
  squaredNorm(a: Vector): number;
  /**
   * |a| = sqrt(sum a_i^2), scaled so that it does not overflow for any finite input; a [n]. 0 for the zero vector.
   * @throws RangeError for an entry that is NaN or +-Infinity, naming it (`norm: a[2] is NaN; ...`), also among
   *   zeros: the input is checked before the kernel, whose own answer would be NaN (for +-Infinity +Infinity).
   */
  norm(a: Vector): number;
  /** a / |a|, [n]. @throws RangeError for the zero vector. */
  normalize(a: Vector): Tensor;
  /** cos(theta) = a . b / (|a| |b|) in [-1, 1]; a, b [n]. @throws RangeError if a or b is the zero vector. */
  cosine(a: Vector, b: Vector): number;
  /** The angle between a and b in radians, [0, pi]; accurate also for nearly parallel vectors. @throws RangeError for zero vectors. */
  angle(a: Vector, b: Vector): number;
  /** Scalar projection of a onto b: a . b / |b| = |a| cos(theta). @throws RangeError if b is the zero vector. */
  scalarProjection(a: Vector, b: Vector): number;
  /** Vector projection of a onto b: (a . b / |b|^2) b, [n]. @throws RangeError if b is the zero vector. */
  vectorProjection(a: Vector, b: Vector): Tensor;
  /** |a - b|^2, a, b [n] (the law of cosines: |a|^2 + |b|^2 - 2 |a||b| cos(theta)). */
  squaredDistance(a: Vector, b: Vector): number;
  /** y = sum_j alpha_j V_j: alpha [T], V [T, d] -> y [d] (the value mixture of attention). */
  weightedSum(alpha: Vector, V: TensorLike): Tensor;
  /**
   * C = A B with A [..., M, K], B [..., K, N] -> [..., M, N], or with `transposeB`
   * C = A B^T for B [..., N, K] (the scores Q K^T), or with `transposeA` C = A^T B for
   * A [..., K, M] (a weight gradient dW = X^T dY; A is read in place, not copied transposed).
   * Leading (batch) dimensions broadcast (NumPy rules). Overflow: an entry whose products or partial sums
   * pass float32's range (about 3.4e38) with one sign only is returned as +Infinity or -Infinity, not an
   * error; an entry where they pass it with both signs (Infinity - Infinity, e.g. 1e20 1e20 - 1e20 1e20) has no
   * float32 value, and a RangeError names its index in C instead of returning NaN. Which partial sums overflow
   * depends on the build's summation order, so near the limit the two builds may differ (docs/numerics.md,
   * "Finite inputs, no NaN").
   * @throws RangeError when `transposeA` and `transposeB` are both true, the inner dimensions differ, or an
   *   entry of C overflows with both signs (above).
   */
  matmul(A: TensorLike, B: TensorLike, options?: { transposeB?: boolean; transposeA?: boolean }): Tensor;
  /** exp(x) elementwise, any shape. Overflows to Infinity above about 88.72. */
  exp(x: TensorLike): Tensor;
  /**
   * Stable softmax over the last axis: softmax(x / temperature + mask), the maximum
   * subtracted first (changes nothing mathematically, keeps exp from overflowing).
   * x [..., n] -> [..., n]. A row whose every entry is masked gives all zeros.
   * @throws RangeError for temperature <= 0 or not finite, or when x / temperature (+ mask)
   *   overflows float32 (the row would be NaN): the message names the entry of x, as
   *   `x[0, 1] / temperature`, and suggests a higher temperature or smaller x.
   */
  softmax(x: TensorLike, options?: SoftmaxOptions): Tensor;
  /**
   * The textbook float32 softmax exp(x_i) / sum_j exp(x_j) over the last axis, without the max subtracted (for
   * the overflow demonstration); x [..., n] -> [..., n]. Its input must be finite, but its result is the one
   * not checked for NaN: an x_i above ln(FLT_MAX) ~ 88.72 gives NaN there and 0 elsewhere in its row
   * (`softmaxNaive([100, 1])` is `[NaN, 0]`); a row whose x_i are all below ln(2^-150) ~ -103.97 gives NaN
   * throughout (0 / 0); a row whose exponentials sum past FLT_MAX gives zeros. See docs/numerics.md.
   */
  softmaxNaive(x: TensorLike): Tensor;
  /** log sum_i exp(x_i) over the last axis, stable: a vector x [n] gives a number. */
  logSumExp(x: Vector): number;
  /** log sum_i exp(x_i) over the last axis, stable: nested arrays x [..., m, n] (rank 2 or more) give a tensor [..., m]. */
  logSumExp(x: NestedNumbers[][]): Tensor;
  /** log sum_i exp(x_i) over the last axis, stable: x [n] -> number, x [..., n] -> [...] (the rank of a `{data, shape}` is known only when it runs). */
  logSumExp(x: TensorLike): number | Tensor;
  /**
   * Shannon entropy in bits, H = -sum p_i log2 p_i (0 log 0 = 0; Shannon 1948), of a distribution p [n].
   * @throws RangeError when an entry is negative or not finite, or when the entries (as float32) do not sum
   *   to 1 within 1e-5 + n * 2^-22 (the rounding of n float32 weights, with room for the order the producer
   *   summed them in); the message gives the sum.
   */
  entropy(p: Vector): number;
  /** The softmax Jacobian J_ij = alpha_i (delta_ij - alpha_j): alpha [n] -> [n, n]. */
  softmaxJacobian(alpha: Vector): Tensor;
  /**
   * Rotary position embedding (RoPE; Su et al. 2021, RoFormer, §3.2.2, eq. 15, computed as in
   * §3.4.2, eq. 34): x [..., T, d] (d even) turned pair by pair, pair p of token t by the angle
   * m_t theta_p (radians), theta_p = base^(-2p/d), m_t = `positions[t]` (default t):
   * (x_a, x_b) -> (x_a cos - x_b sin, x_a sin + x_b cos). The pairs are (x_2p, x_2p+1) with
   * `interleaved: true` (the default; RoFormer, GPT-J) and (x_p, x_p+d/2) with `false` (the
   * half-split layout of GPT-NeoX and of LLaMA in Hugging Face transformers). Then
   * rope(q, m) . rope(k, n) depends on m - n only. Returns a tensor of x's shape. Both
   * variants give the same floats; |error| <= 4 u (|x_a| + |x_b|) per element (registry.inc).
   * @throws TypeError for x that is not a tensor, positions that are not an array of numbers,
   *   or an option of the wrong kind (unknown keys included).
   * @throws RangeError for rank < 2, an odd d (naming x and its shape), positions of another
   *   length than T or not finite or beyond |m| <= 2^24 (naming `options.positions[t]`), a base
   *   that is not a finite number >= 1, or a non-finite entry of x.
   */
  rope(x: TensorLike, options?: RopeOptions): Tensor;
  /**
   * The ALiBi slopes of h heads (Press et al. 2022, §3), rounded to float32: for h a power of
   * two, m_i = 2^(-8i/h), i = 1..h (1/2, 1/4, ..., 1/256 for 8 heads); otherwise the slopes
   * of the power of two n below h, then every other slope of 2n (the 1st, 3rd, ...) up to h,
   * as in the paper's implementation. What `attention(..., { alibi: true })` uses.
   * @throws TypeError when h is not an integer; RangeError when it is not between 1 and 65536.
   */
  alibiSlopes(h: number): Float32Array;
  /**
   * Scaled dot-product attention (Vaswani et al. 2017, §3.2.1, eq. 1):
   * scores = scale Q K^T + mask, weights = softmax(scores) over keys, output = weights V.
   * Q [..., Tq, d_k], K [..., Tk, d_k], V [..., Tk, d_v]; up to two leading dimensions
   * (B, h), broadcast between Q, K and V (read in place, no copies per head). Shared
   * key/value heads (grouped-query attention, Ainslie et al. 2023; multi-query attention,
   * Shazeer 2019): Q [B, h_q, Tq, d_k] with K, V [B, h_kv, Tk, ·] where h_kv divides h_q;
   * query head i reads key/value head floor(i h_kv / h_q), K and V are not copied per
   * query head. Returns output [..., Tq, d_v] (h_q heads) and, on request, weights and
   * scores [..., Tq, Tk] (typed as present when the options say `true`).
   * Without weights or scores the output is computed by streaming over tiles of 256 keys
   * with an online softmax (Milakov & Gimelshein 2018; Dao et al. 2022): wasm memory is
   * O(T d), never a [Tq, Tk] buffer; `streaming: false` forms the [Tq, Tk] grid instead
   * (see {@link AttentionOptionMembers.streaming}).
   * Unknown option keys throw a TypeError naming the key.
   * @throws TypeError for an option of the wrong kind, e.g. `streaming: true` together with
   *   `returnWeights: true`.
   * @throws RangeError for shapes that do not fit (naming the argument, the shape received
   *   and the shape expected), an h_kv that does not divide h_q or K and V with different
   *   head counts other than 1 (naming h_q, h_kv and the three shapes), non-finite Q, K or V, or scores scale * q.k that overflow
   *   float32 (the weights would be NaN), naming the first such score in the flat
   *   [..., Tq, Tk] order on both paths, and what overflowed: the dot products Q K^T
   *   themselves where the scale cannot be the cause (|scale| <= 1, scale 0 included, with
   *   nothing added that could overflow; or a soft cap without the 'raw' scores), else the
   *   scores.
   */
  attention<O extends KnownOptions<O, AttentionOptions> = {}>(
    Q: TensorLike,
    K: TensorLike,
    V: TensorLike,
    options?: O,
  ): AttentionResultFor<O>;
  /**
   * Multi-head attention (Vaswani et al. 2017, §3.2.2) in the row-vector convention:
   * Q = X_q W_Q + b_Q (likewise K, V); h heads of d_k = d_model / h (head i reads columns
   * i d_k .. (i+1) d_k - 1); each head is scaled dot-product attention; the heads are
   * concatenated and projected: output = concat(head_1..head_h) W_O + b_O.
   * Separate query, key and value give cross-attention. The projections use this variant's
   * matmul; each head reads and writes its d_k columns in place (row stride d_model), and is
   * attended by streaming (no [Tq, Tk] buffer) unless `returnWeights` or `streaming: false`.
   * With `kvHeads` the key/value projections are narrower and shared by groups of query heads
   * (GQA); with `rope` each head's q and k are turned by their positions before the scores.
   * @throws TypeError for `streaming: true` together with `returnWeights: true`, an option
   *   of the wrong kind or an unknown key (even one set to null), a non-enumerable or inherited
   *   member (named), and for `cache` whatever its value (null too; an own enumerable key, as the
   *   unknown keys are), which attention alone takes (decoding with a {@link KvCache}): the message says
   *   so, and to project the new tokens with matmul, call `attention(q, k, v, { cache })` on the
   *   heads and project its output with wO.
   * @throws RangeError when numHeads does not divide d_model or kvHeads does not divide
   *   numHeads, when `rope` meets an odd d_k, for shapes that do not fit,
   *   or when a projection or a head's scores overflow float32 (the output would be NaN).
   *   An overflowing projection Q, K or V is named as such, with the entry and the inputs
   *   to scale ("V[0, 3] overflowed float32 ... (the projection V = value·wV ..."); so is the
   *   output projection concat(heads)·wO + bO when its sums turn into NaN (when they overflow
   *   to +-Infinity of one sign, that is the result, as for every sum).
   */
  multiHeadAttention<O extends MultiHeadOptions>(
    inputs: MultiHeadInputs,
    weights: MultiHeadWeights,
    options: OnlyKnownKeys<O, MultiHeadOptions>,
  ): MultiHeadResultFor<O>;
  /**
   * One head of attention by the streaming kernel of {@link attention} (online softmax over
   * tiles of keys; Milakov & Gimelshein 2018; Dao et al. 2022, FlashAttention, Algorithm 1),
   * every step recorded: per query row and tile the tile's max, the running max m before
   * and after, the correction exp(m_old - m_new) applied to l and O, and l and O after;
   * then O / l. Q [Tq, d_k] with Tq <= 64 (one block of query rows), K [Tk, d_k],
   * V [Tk, d_v]. The same kernel code runs as for `attention(Q, K, V, { streaming: true })`:
   * with the default tile of 256 keys the output is that call's bit for bit; with a small
   * tile it is within the same error bound for ceil(Tk / tileKeys) tiles (registry.inc:
   * attention_trace), and differs from the two-pass softmax (`streaming: false`) in the
   * last bits, each exp being taken of a differently shifted score.
   * @throws TypeError for an option of the wrong kind or an unknown option key.
   * @throws RangeError for `tileKeys` not in 2, 3, 4, 6, 8, 256; shapes that do not fit
   *   (naming the argument, the shape received and the shape expected), Tq > 64; non-finite
   *   Q, K or V; a trace of more than 2^22 floats; or scores scale * q.k that overflow
   *   float32, naming the first in [Tq, Tk] (as the dot products Q K^T when |scale| <= 1).
   */
  attentionTrace(Q: TensorLike, K: TensorLike, V: TensorLike, options?: AttentionTraceOptions): AttentionTraceResult;
  /**
   * The Monte Carlo experiment of the articles: `trials` pairs of independent
   * standard-normal vectors of dimension d, measured by dot (spread sqrt(d): why
   * attention scales by 1/sqrt(d_k)) or cosine (spread 1/sqrt(d): random directions
   * are nearly orthogonal), with statistics and a histogram, all computed in wasm.
   */
  randomDotExperiment(options: RandomDotExperimentOptions): RandomDotExperimentResult;
  /**
   * a . b computed by this instance's dot kernel, every step recorded (a teaching view
   * of SIMD: kernel dot_trace). `value` equals `dot(a, b)` bit for bit.
   * simd128: per 8 elements two f32x4 products and the two accumulators ('multiply-add'),
   * then per block of 64 'fold', 'swap-add' and 'lane-sum' (the horizontal sum); scalar:
   * per 4 elements a 'block' of products, pair sums and its sum; both: 'merge' steps
   * combining block sums, and a last 'total'.
   */
  dotTrace(a: Vector, b: Vector): DotTraceResult;
  /** Bytes in use on this instance's wasm heap (a diagnostic; unchanged by any completed call). */
  heapAllocatedBytes(): number;
  /**
   * This instance's wasm memory in bytes: its size, the bytes allocated now, and the peak
   * allocation since {@link resetPeakMemory} (e.g. attention at T = 4096, d = 64 peaks at
   * about 4 MiB streaming, 68 MiB with `streaming: false`).
   */
  memoryStats(): MemoryStats;
  /** Starts a new peak: `peakAllocatedBytes` becomes the bytes allocated now. */
  resetPeakMemory(): void;

  // ---- Monte Carlo chapters (kernels dot_density and greedy_packing) ----
  /**
   * The exact density of q . k for q, k independent N(0, I_d), at every x (any shape;
   * same shape out): f_d(x) = (1/pi) int_0^inf cos(t x) (1 + t^2)^(-d/2) dt
   * = |x|^nu K_nu(|x|) / (sqrt(pi) Gamma(nu + 1/2) 2^nu), nu = (d - 1)/2 (variance-gamma).
   * d = 2 gives the Laplace density exp(-|x|)/2; as d grows it tends to N(0, d); d = 1 is
   * K_0(|x|)/pi, +Infinity at 0. Within 2u relatively (u = 2^-24) where the result is a
   * normal float32.
   * @throws RangeError unless 1 <= d <= 4096; TypeError/RangeError for non-finite x.
   */
  dotProductDensity(x: TensorLike, d: number): Tensor;
  /**
   * Greedy packing: scans `candidates` random unit vectors of dimension d (candidate c
   * drawn from the seed at counter c ceil(d/4)) and keeps each one whose |cos| with every
   * direction kept so far is <= epsilon. Pass `first` and the `directions` of an earlier
   * call to continue a run (a run split into calls keeps the same directions).
   * @throws RangeError when candidates * (kept + candidates) * d > 2^28 (split the run).
   */
  greedyPacking(options: GreedyPackingOptions): GreedyPackingResult;

  // ---- Gradients (kernels softmax_backward and attention_backward) ----
  /**
   * The softmax's backward pass: given weights y = softmax(logits) and the gradient
   * dWeights = dL/dy of a loss L, returns dLogits = dL/dlogits over the last axis,
   * dLogits_i = y_i (dy_i - sum_k y_k dy_k): the softmax Jacobian diag(y) - y y^T (see
   * `softmaxJacobian`) times dWeights, without forming it (e.g. Goodfellow et al. 2016,
   * "Deep Learning", §6.5.9). weights and dWeights [n] or [..., n] (the same shape, row-major);
   * dLogits has that shape. Error per element, to first order: y_i ((2 ceil(log2 n) + 1) u
   * sum_k y_k |dy_k| + 2 u |dy_i - sum_k y_k dy_k|), u = 2^-24 (registry.inc: softmax_backward).
   * @throws TypeError when an argument is not a tensor.
   * @throws RangeError when dWeights's shape is not weights's (naming both shapes), an entry is
   *   not finite, a weight is negative (naming its index), or a row of weights does not sum to 1
   *   within 1e-5 + n 2^-22 (naming the row and its sum: weights must be softmax outputs).
   */
  softmaxBackward(weights: TensorLike, dWeights: TensorLike): Tensor;
  /**
   * The gradients of scaled dot-product attention (Vaswani et al. 2017, §3.2.1) for training:
   * with scores S = scale Q K^T + mask, P = softmax(S) over the keys and output Y = P V, and
   * dOutput = dL/dY, returns dV = P^T dOutput, dQ = scale dS K and dK = scale dS^T Q with
   * dS = P * (dP - D), dP = dOutput V^T, D_i = sum_j P_ij dP_ij (the softmax's backward on each
   * row of scores). Computed as FlashAttention's backward (Dao et al. 2022, Algorithm 4; Dao
   * 2023, Algorithm 2): the forward is recomputed tile by tile (256 keys, 64 queries at a time),
   * so wasm memory is O(T d) (the inputs, the gradients and 192.5 KiB + Tq (d_v + 3) floats of
   * work), never a [Tq, Tk] buffer.
   * Q [..., Tq, d_k], K [..., Tk, d_k], V [..., Tk, d_v] and the options `scale`, `causal`,
   * `window`, `mask` and `maskKind` exactly as {@link AttentionGeometry.attention} takes them
   * (up to two leading axes B, h, broadcast; shared key/value heads); dOutput has the shape of
   * attention's output, [..., Tq, d_v] over the broadcast leading axes. dQ, dK and dV have the
   * shapes of Q, K and V; where an input is broadcast (over batches or heads, or shared by the
   * query heads of a group), its gradient is the sum over the slices that read it. A query
   * that sees no key (every key masked) gets dQ = 0 and adds nothing to dK and dV, never NaN.
   * Error bound: registry.inc, attention_backward (first order, per element).
   * @throws TypeError for an argument that is not a tensor or an option of the wrong kind
   *   (unknown keys included, even one set to null; a non-enumerable or inherited member, named), and
   *   for `cache` whatever its value (null too; an own enumerable key, as the unknown keys are),
   *   which attention alone takes (decoding with a {@link KvCache}): the message says so, and to
   *   pass every key and value as K and V
   *   ({@link KvCache.keys} and {@link KvCache.values} copy a cache's rows out).
   * @throws RangeError for shapes that do not fit (naming the argument, the shape received and
   *   the shape expected; dOutput must have the output's shape), non-finite inputs, a scale
   *   that is not finite in float32, scores that overflow float32 (naming the first), an
   *   intermediate gradient of the scores dS = scale P (dP - D) that overflows float32 (naming
   *   its first entry [..., i, j]; dQ and dK may still be finite in exact arithmetic), a dQ, dK
   *   or dV entry whose sum overflows (naming it), and for
   *   the options of attention the gradients do not cover, naming the option: `softcap`,
   *   `alibi`, `rope`, `pastKey`, `pastValue`, `kvSeqLen` (use a key-padding mask
   *   [B, 1, 1, Tk]), `returnWeights`, `returnScores`, `streaming`.
   */
  attentionBackward(
    Q: TensorLike,
    K: TensorLike,
    V: TensorLike,
    dOutput: TensorLike,
    options?: AttentionBackwardOptions,
  ): AttentionGradients;
  // ---- Training layers (family "layers": layer_norm, layer_norm_backward, cross_entropy, adam_update) ----
  /**
   * Layer normalisation (Ba, Kiros & Hinton 2016, "Layer Normalization", eq. 4) over the last
   * axis of x [rows, n] or [n] (any leading shape): y_i = gamma_i (x_i - mean) rstd + beta_i
   * with mean and the biased variance var of the row, rstd = 1 / sqrt(var + eps) (eps inside
   * the square root, as PyTorch's LayerNorm). Two-pass variance, pairwise sums; the error
   * bound is registry.inc's (layer_norm).
   * @param options.gamma a vector [n] (one scale per feature of the last axis), default all 1;
   *   options.beta a vector [n], default all 0; any other shape, [1, n] included, is a RangeError
   *   (the kernel has no broadcast form); options.eps > 0, default 1e-5.
   * @returns y (the shape of x), mean and rstd (the leading shape of x; [1] for x [n]), for
   *   {@link layerNormBackward}.
   * @throws TypeError for a wrong type or an unknown option; RangeError for a shape that does
   *   not fit, a non-finite value, eps <= 0 (or 0 in float32), or a row whose sums (the mean,
   *   the variance) or results overflow float32.
   */
  layerNorm(x: TensorLike, options?: LayerNormOptions): LayerNormResult;
  /**
   * The gradients of {@link layerNorm} for the upstream gradient dy (the shape of x): with
   * h = (x - mean) rstd and g = dy gamma, dx = rstd (g - mean(g) - h mean(g h)),
   * dGamma = sum over rows of dy h, dBeta = sum over rows of dy (Ba et al. 2016, eq. 4,
   * differentiated). mean and rstd are layerNorm's outputs for this x (both or neither: when
   * absent they are recomputed with options.eps, default 1e-5).
   * @returns dx (the shape of x), dGamma and dBeta [n]. New arrays; the arguments are not changed.
   * @throws TypeError for a wrong type or an unknown option; RangeError when x's shape is not
   *   dy's (x is named: it comes after dy), gamma is not a vector [n], mean or rstd do not hold one value per row (or only one of them is
   *   given), an rstd is <= 0, a value is not finite, or a result overflows float32.
   */
  layerNormBackward(dy: TensorLike, x: TensorLike, options?: LayerNormBackwardOptions): LayerNormBackwardResult;
  /**
   * Softmax cross-entropy (the negative log-likelihood, in nats) of logits [rows, vocab] or
   * [vocab] against targets, one per row: losses_r = logsumexp(logits_r) - logits_r[t_r],
   * computed as log sum exp(logits_r - max) + (max - logits_r[t_r]) (both terms >= 0); a target
   * of -1 ignores its row (loss 0, a zero gradient row). The gradient is
   * gradScale (softmax(logits_r) - onehot(t_r)) (Goodfellow, Bengio & Courville 2016, §6.2.2.3).
   * @param targets an Int32Array or an array of integers in [0, vocab), or -1.
   * @param options.gradScale default 1 / count (the gradient of the mean loss; 1 when every row
   *   is ignored).
   * @returns loss (the mean over the scored rows, summed in float64 from the float32 losses; 0
   *   when there are none), losses (the leading shape of logits; [1] for [vocab]), dLogits (the
   *   shape of logits) and count (the rows scored).
   * @throws TypeError for a wrong type, a target that is not a number, or an unknown option;
   *   RangeError naming targets[i] for a target that is not an integer in [0, vocab) or -1,
   *   for targets of another length than the rows, a non-finite value, or a loss or gradient
   *   that overflows float32 (logits spread beyond 3.4e38, a huge gradScale).
   */
  crossEntropy(
    logits: TensorLike,
    targets: Int32Array | number[],
    options?: { gradScale?: number },
  ): CrossEntropyResult;
  /**
   * One step of Adam (Kingma & Ba 2015, "Adam: A Method for Stochastic Optimization",
   * Algorithm 1, bias-corrected), arranged as torch.optim.Adam: g = gradScale grad,
   * m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2,
   * param - lr (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) + eps). param, grad and the
   * state's m and v have one shape (any); state null or undefined is the first step's zeros.
   * The hyperparameters are float32 in the kernel.
   * @returns the new param, m and v (new arrays: the arguments are not changed).
   * @throws TypeError for a wrong type, an unknown option, a missing lr or a step that is not
   *   an integer; RangeError for shapes that differ, only one of m and v, a negative v, lr < 0,
   *   beta1 or beta2 outside [0, 1), eps <= 0, step < 1, a non-finite value, or a new param,
   *   m or v that overflows float32 ((gradScale grad)^2 or lr / (1 - beta1^step) beyond 3.4e38).
   */
  adamUpdate(
    param: TensorLike,
    grad: TensorLike,
    state: { m: TensorLike; v: TensorLike } | null | undefined,
    options: AdamOptions,
  ): AdamState;
}

/** The options of {@link AttentionGeometry.attentionBackward}: those of attention that it honours. */
export interface AttentionBackwardOptions {
  /** As {@link AttentionOptionMembers.scale}: default 1/sqrt(d_k), rounded to float32. */
  scale?: number;
  /** As {@link AttentionOptionMembers.causal}. */
  causal?: boolean;
  /** As {@link AttentionOptionMembers.window} (a causal sliding window of the last w keys). */
  window?: number;
  /** As {@link AttentionOptionMembers.mask}: boolean or additive, broadcast to [B, h, Tq, Tk]. */
  mask?: AttentionOptionMembers['mask'];
  /** As {@link AttentionOptionMembers.maskKind}. */
  maskKind?: AttentionOptionMembers['maskKind'];
}

/** The gradients of a loss with respect to attention's inputs. */
export interface AttentionGradients {
  /** dL/dQ, the shape of Q. */
  dQ: Tensor;
  /** dL/dK, the shape of K. */
  dK: Tensor;
  /** dL/dV, the shape of V. */
  dV: Tensor;
}

/** Options of {@link AttentionGeometry.layerNorm}. */
export interface LayerNormOptions {
  /** The scale gamma [n]; default all 1. */
  gamma?: Vector;
  /** The shift beta [n]; default all 0. */
  beta?: Vector;
  /** Added to the variance inside the square root; > 0, default 1e-5 (PyTorch's). */
  eps?: number;
}

/** What {@link AttentionGeometry.layerNorm} returns. */
export interface LayerNormResult {
  /** The normalised x, its shape. */
  y: Tensor;
  /** The mean of each row of x: the leading shape of x ([1] for x [n]). */
  mean: Tensor;
  /** 1 / sqrt(var + eps) of each row, the shape of mean. */
  rstd: Tensor;
}

/** Options of {@link AttentionGeometry.layerNormBackward}. */
export interface LayerNormBackwardOptions {
  /** The scale gamma [n] of the forward pass; default all 1. */
  gamma?: Vector;
  /** layerNorm's mean (one per row); recomputed when absent (with rstd). */
  mean?: TensorLike;
  /** layerNorm's rstd (one per row, > 0); recomputed when absent (with mean). */
  rstd?: TensorLike;
  /** eps of the forward pass, used when mean and rstd are recomputed; default 1e-5. */
  eps?: number;
}

/** What {@link AttentionGeometry.layerNormBackward} returns. */
export interface LayerNormBackwardResult {
  /** dL/dx, the shape of x. */
  dx: Tensor;
  /** dL/dgamma [n], summed over the rows. */
  dGamma: Tensor;
  /** dL/dbeta [n], summed over the rows. */
  dBeta: Tensor;
}

/** What {@link AttentionGeometry.crossEntropy} returns. */
export interface CrossEntropyResult {
  /** The mean loss over the scored rows, in nats (0 when every row is ignored). */
  loss: number;
  /** The loss of each row in nats, 0 where the target is -1. */
  losses: Tensor;
  /** gradScale (softmax(logits) - onehot(target)) per row; zero rows where ignored. */
  dLogits: Tensor;
  /** The number of rows whose target is not -1. */
  count: number;
}

/** Options of {@link AttentionGeometry.adamUpdate}. */
export interface AdamOptions {
  /** The learning rate (step size), >= 0. Required. */
  lr: number;
  /** The 1-based step count t of Algorithm 1 (the bias corrections 1 - beta^t), >= 1. Required. */
  step: number;
  /** Decay of the first moment, in [0, 1); default 0.9. */
  beta1?: number;
  /** Decay of the second moment, in [0, 1); default 0.999. */
  beta2?: number;
  /** Added to sqrt(v_hat); > 0, default 1e-8. */
  eps?: number;
  /** Multiplies grad first (a loss scale or a clipping factor); default 1. */
  gradScale?: number;
}

/** The parameters and state after one {@link AttentionGeometry.adamUpdate} step, each the shape of param. */
export interface AdamState {
  param: Tensor;
  /** The first moment estimate (PyTorch's exp_avg). */
  m: Tensor;
  /** The second raw moment estimate (PyTorch's exp_avg_sq), >= 0. */
  v: Tensor;
}

export interface GreedyPackingOptions {
  /** Dimension, >= 1. */
  d: number;
  /** Candidates to scan in this call, >= 1. */
  candidates: number;
  /** Half-width of the band around perpendicular: |cos| <= epsilon, 0 < epsilon < 1. */
  epsilon: number;
  /** Generator seed. Default 0. */
  seed?: U64;
  /** Index of the first candidate (to continue a run). Default 0. */
  first?: number;
  /** Directions kept by earlier calls of the same run, [kept, d]. Default none. */
  directions?: TensorLike | null;
}

export interface GreedyPackingResult {
  /** How many directions are kept after this call (including earlier ones). */
  kept: number;
  /** first + candidates: where a continuation starts. */
  next: number;
  /** The kept unit vectors [kept, d]. */
  directions: Tensor;
}

/**
 * Loads a module and resolves to an instance of the API. Each call gives an
 * independent instance (its own wasm memory). In Node the .wasm is read from disk;
 * in browsers it is streamed (falling back to fetch + instantiate when the server
 * sends the wrong MIME type).
 * @throws Error (rejects) when the .wasm cannot be loaded, naming the URL tried and the options that fix it
 *   (its `cause` is what failed; when fetching it did, an Error with `url`, the URL fetched, and `status`, the
 *   HTTP status of a response that was not ok, or null when no response came, e.g. a network error), and when the module given is the other build's (ag-scalar.wasm for `simd: true`, ag-simd.wasm for `simd: false`,
 *   and ag-scalar.wasm given for the SIMD build under `'auto'`: as `{ simd }` of `wasmUrl` or `wasmBinary`, from
 *   `locateFile('ag-simd.wasm')` or at the default location; one file given for both builds may be either).
 * @throws TypeError (rejects) for malformed options, for an unknown option key
 *   (e.g. `wasmURL`), naming it and the known ones, and for more than one argument
 *   (`init: takes 1 argument but was given 2; ...`, before the options are read).
 */
export function init(options?: InitOptions): Promise<AttentionGeometry>;
export default init;

export interface TaskOptions {
  /** Positions per row, 1..4096 (each task states its least T). */
  T: number;
  /** Symbols, 1..65536 (each task states its least vocab). */
  vocab: number;
  /** Rows per batch, >= 1; batch * T <= 2^20. Default 1. */
  batch?: number;
  /** Philox seed (as random.uniform's). Default 0. */
  seed?: U64;
}

/** One batch: tokens and targets, Int32Array [batch * T] row-major; a target of -1 is a position not scored. */
export interface TaskBatch {
  tokens: Int32Array;
  targets: Int32Array;
}

/**
 * A seeded generator of batches: the same seed gives the same batches in every build. Its methods, like the
 * API's, refuse more arguments than they take with a TypeError named `taskGenerator.next`, `taskGenerator.at`
 * or `taskGenerator.reset` (`taskGenerator.next: takes no arguments but was given 1; argument 1 is number 3`),
 * thrown before anything is drawn or reset; trailing `undefined` arguments are not counted.
 */
export interface TaskGenerator {
  readonly options: Readonly<Required<TaskOptions> & { task: string }>;
  /**
   * The next batch; the first call gives batch 0.
   * @throws TypeError when given an argument.
   */
  next(): TaskBatch;
  /**
   * Batch i, the same as the (i + 1)-th call of next(); where next() stands is not changed.
   * @param i a non-negative safe integer, at most floor((2^53 - 1) / blocks), where blocks is the number of
   *   Philox blocks (four uniforms each) one batch draws: batch i starts at the counter i * blocks.
   * @throws TypeError for an i that is missing or not an integer (a string, 1.5, NaN, Infinity), and for more
   *   than one argument (`taskGenerator.at: ...`).
   * @throws RangeError for an i below 0 or past that bound, naming the bound.
   */
  at(i: number): TaskBatch;
  /**
   * Starts next() again from batch 0.
   * @throws TypeError when given an argument.
   */
  reset(): void;
}

/**
 * The toy tasks, each `(options) => TaskGenerator`. Every task is next-token
 * prediction: targets[t] is the token expected after position t.
 * @throws TypeError for a missing or non-integer size or an unknown option key;
 *   RangeError for a size out of range (naming it and the limit).
 */
export interface TasksApi {
  /** Tokens uniform in 0..vocab-1; target at t >= 1 is tokens[t-1] (position 0 not scored). T >= 2. */
  copyPrevious(options: TaskOptions): TaskGenerator;
  /**
   * L = floor(T/2) symbols in 0..vocab-2, the separator vocab-1 at position L, then the symbols reversed;
   * positions L..2L-1 scored. T >= 2, vocab >= 2.
   */
  reverse(options: TaskOptions): TaskGenerator;
  /** The layout of reverse with the symbols sorted ascending after the separator. T >= 2, vocab >= 2. */
  sort(options: TaskOptions): TaskGenerator;
  /**
   * Induction copy with a random repeat offset: each row draws L uniformly from max(2, ceil(T/4))..floor(T/2),
   * then L distinct symbols s_0..s_{L-1}, repeated to the end of the row (tokens[t] = s_{t mod L}); positions
   * L..T-2 scored, each predicting tokens[t+1] = tokens[t+1-L], the token after the current token's earlier
   * occurrence. L changes from row to row, so no fixed offset solves it: an induction head fed by a
   * previous-token head does (Elhage et al. 2021, "A Mathematical Framework for Transformer Circuits"; Olsson et
   * al. 2022, "In-context Learning and Induction Heads"). T >= 4, vocab >= floor(T/2).
   */
  inductionCopy(options: TaskOptions): TaskGenerator;
  /**
   * Tokens 0 '(' and 1 ')' in a walk that never closes an unopened bracket; the target at every position is 1
   * when the brackets so far are balanced, else 0. vocab >= 2.
   */
  bracketMatch(options: TaskOptions): TaskGenerator;
}

/** The sizes of a {@link Transformer}; every field is checked (see createTransformer). */
export interface TransformerConfig {
  /** Symbols, 1..65536: tokens and targets are integers in 0..vocab-1. */
  vocab: number;
  /** Positions per row (the context), 1..4096; learned position embeddings P [T, dModel]. */
  T: number;
  /** Channels d_model, 1..4096. */
  dModel: number;
  /** Attention heads h, dividing dModel: d_k = dModel / heads. */
  heads: number;
  /** Decoder layers, 1..64. Default 1. */
  layers?: number;
  /** Each layer's MLP block x += W2 ReLU(W1 LN2(x) + b1) + b2, hidden width 4 dModel (Vaswani et al. 2017, §3.3). Default true. */
  mlp?: boolean;
  /** 'layer': layer norm (eps 1e-5; Ba et al. 2016) before each block and before the unembedding; 'none': no norm. Default 'layer'. */
  norm?: 'layer' | 'none';
  /** Scores scaled by 1/sqrt(d_k) (true, Vaswani et al. 2017, eq. 1) or unscaled (false). Default true. */
  scaleScores?: boolean;
  /** Philox seed of the initial parameters: the same seed gives the same parameters in every build. Default 0. */
  seed?: U64;
}

/** A batch: tokens and targets [B, T], as an Int32Array or array of B*T integers, or B arrays of T. */
export interface TransformerBatch {
  /** Integers in 0..vocab-1. */
  tokens: Int32Array | number[] | ArrayLike<number>[];
  /** Integers in 0..vocab-1, or -1 where the position is not scored; the shape of tokens. */
  targets: Int32Array | number[] | ArrayLike<number>[];
}

export interface TransformerStepOptions {
  /** Adam's learning rate, > 0. */
  lr: number;
  /** The optimizer: 'adam' (Kingma & Ba 2015, Algorithm 1), the only one. Default 'adam'. */
  optimizer?: 'adam';
  /** Clip the gradient to this global L2 norm (Pascanu et al. 2013), > 0. Default none. */
  clip?: number;
  /** Adam's beta1 in [0, 1). Default 0.9. */
  beta1?: number;
  /** Adam's beta2 in [0, 1). Default 0.999. */
  beta2?: number;
  /** Adam's epsilon, > 0. Default 1e-8. */
  eps?: number;
}

export interface TransformerEvaluation {
  /** Mean cross-entropy over the scored positions, in nats (0 when none is scored). */
  loss: number;
  /** Share of the scored positions whose largest logit (the first, on ties) is the target (0 when none is scored). */
  accuracy: number;
  /** The number of scored positions (targets not -1). */
  scored: number;
}

export interface TransformerStepResult extends TransformerEvaluation {
  /** The L2 norm of all the gradients together, before clipping. */
  gradNorm: number;
  /** The L2 norm of each parameter's gradient, by parameter name (e.g. 'layers.0.attn.wq'). */
  gradNorms: Record<string, number>;
}

export interface TransformerGradients extends TransformerStepResult {
  /** Each parameter's gradient, by name, laid out as its parameter. */
  gradients: Record<string, Float32Array>;
}

/**
 * Heads switched off, per layer and head: `layers` arrays of `heads` numbers, or a flat array of
 * layers * heads (layer by layer); 1 keeps the head, 0 switches it off (its output, columns j d_k .. of O,
 * is zeroed before W_O, so it adds nothing to the residual stream; its weights are still computed).
 * Omitted: every head runs. A value other than 0 or 1, or another shape, is a RangeError naming
 * options.headMask; a value that is not an array, a TypeError.
 */
export type TransformerHeadMask = ArrayLike<number> | ArrayLike<number>[];

export interface TransformerEvaluateOptions {
  /** Heads to switch off (see {@link TransformerHeadMask}). Default: every head on. */
  headMask?: TransformerHeadMask;
}

export interface TransformerForwardOptions {
  /** Heads to switch off (see {@link TransformerHeadMask}). Default: every head on. */
  headMask?: TransformerHeadMask;
  /** Also return each layer's attention weights [B, heads, T, T]. Default false. */
  returnWeights?: boolean;
  /** Also return each layer's q and k [B, T, dModel] (head j in columns j d_k ..). Default false. */
  returnQK?: boolean;
}

export interface TransformerForwardResult {
  /** [B, T, vocab]. */
  logits: Tensor;
  /** Per layer, [B, heads, T, T] (returnWeights). */
  weights?: Tensor[];
  /** Per layer, the queries [B, T, dModel] (returnQK). */
  q?: Tensor[];
  /** Per layer, the keys [B, T, dModel] (returnQK). */
  k?: Tensor[];
}

/** One parameter tensor of a {@link Transformer}: its name, shape ([in, out] for weights) and offset in floats. */
export interface TransformerParameterInfo {
  readonly name: string;
  readonly shape: readonly number[];
  readonly offset: number;
}

/** The sizes of a {@link KvCache} ({@link AttentionGeometry.createKvCache}): integers >= 1. */
export interface KvCacheOptions {
  /** B, the batch of K and V (a K of batch 1 serves queries of any batch, as without a cache). Default 1. */
  batch?: number;
  /** h_kv, the key/value heads (as multiHeadAttention's `kvHeads`; queries may have any multiple of it). */
  kvHeads: number;
  /** The most rows (tokens) per head it holds: P + Tk of every call must stay within it. */
  capacity: number;
  /** d_k, the width of a key. */
  dK: number;
  /** d_v, the width of a value. Default dK. */
  dV?: number;
}

/**
 * A KV cache made by {@link AttentionGeometry.createKvCache}: keys [B, h_kv, capacity, d_k] and values
 * [B, h_kv, capacity, d_v] in the wasm memory of its instance until {@link dispose}, of which the first
 * `length` rows per head are held. Pass it as `attention`'s `cache` option (same instance). After dispose,
 * `length`, `keys`, `values`, `reset`, `truncate` and attention with it throw an Error naming the cache; the sizes stay
 * readable. More arguments than a method takes is a TypeError (`kvCache.reset: takes no arguments ...`).
 * Call dispose() when done: a cache dropped without it is freed only when the JS engine collects it, which
 * a full wasm heap does not trigger (dropped caches can fill the 1 GiB heap; createKvCache then throws a
 * RangeError). One call at a time: a call whose argument reading (a getter, a proxy) disposes the cache
 * or uses it in another call throws an Error and writes nothing. Rows are kept from the first: a sliding
 * window over a long sequence needs a capacity of the whole sequence here (or `pastKey` with a trimmed
 * cache and `rope.start`). Only the cache's sizes are enumerable (JSON gives them alone).
 */
export interface KvCache {
  /** P, the rows held per head; each successful attention call adds its Tk. Read-only. */
  readonly length: number;
  /** The most rows per head. */
  readonly capacity: number;
  /** B. */
  readonly batch: number;
  /** h_kv. */
  readonly kvHeads: number;
  /** d_k. */
  readonly dK: number;
  /** d_v. */
  readonly dV: number;
  /** The keys held, [B, h_kv, P, d_k]: a fresh JS-owned copy (turned, when attention had `rope`). */
  keys(): Tensor;
  /** The values held, [B, h_kv, P, d_v]: a fresh JS-owned copy. */
  values(): Tensor;
  /** Empties the cache (length 0) for a new sequence; the memory is kept. */
  reset(): void;
  /**
   * Keeps the first `length` rows per head and forgets the rest, e.g. draft tokens a verifier rejected
   * (speculative decoding) or a step to be taken again. `length` is an integer from 0 to the current length:
   * not an integer is a TypeError, out of that range a RangeError; after dispose, an Error.
   */
  truncate(length: number): void;
  /** Frees the wasm memory; later uses throw an Error. Calling it again does nothing. */
  dispose(): void;
}

/**
 * A model made by {@link AttentionGeometry.createTransformer}. Parameters, gradients and Adam's moments live in
 * the wasm memory of its instance until {@link dispose}; every number is computed there by the instance's
 * kernels (registry.inc, family "transformer"). The same config and seed give the same numbers, bit for bit,
 * within a build and variant. Initial weights W [fan_in, fan_out] are N(0, 1/fan_in) (q and k of unit variance,
 * so q.k has variance d_k, the articles' setting), embeddings N(0, 1), layer-norm gamma 1 and beta 0.
 * Bad batches: TypeError for a tokens/targets that is not an array, RangeError for a length that is not a
 * positive multiple of T, a row that is not of length T, a token outside 0..vocab-1 or a target outside
 * -1..vocab-1, and targets of another shape than tokens. Every method but dispose throws an Error after dispose.
 * More arguments than a method takes is a TypeError, before any argument is read and before the dispose check
 * (`transformer.dispose: takes no arguments but was given 1; ...`; see the error rule at the top).
 * Overflow from finite parameters: forward, evaluate, gradients and step throw a RangeError, and change nothing,
 * when the attention scores of a layer overflow float32 (naming the first score [b, head, i, j]) or when the
 * variance of a layer norm's input row does (naming the layer norm and the row, e.g. "the variance of layer 0's
 * ln1 input row 0 (batch 0, position 0)"; rstd would be 0 and the row's output beta).
 */
export interface Transformer {
  /** The checked config, frozen (defaults filled in). */
  readonly config: Readonly<Required<TransformerConfig>>;
  /** The parameters in buffer order (computed by the kernels' layout, not in JS). */
  readonly layout: readonly TransformerParameterInfo[];
  /** Adam steps since creation or the last loadParameters. */
  readonly steps: number;
  /**
   * Loss and gradients of the batch (the mean cross-entropy over scored positions), then one Adam step.
   * @throws RangeError for bad options (lr <= 0 or 0 in float32, an optimizer other than 'adam', clip <= 0,
   *   betas outside [0, 1) in float32, eps 0 in float32), when the loss or gradient overflows float32, and when
   *   the Adam update itself does (a huge lr): in every case the parameters and Adam's moments are left unchanged.
   */
  step(batch: TransformerBatch, options: TransformerStepOptions): TransformerStepResult;
  /**
   * Loss and gradients of the batch without an update.
   * @throws TypeError when `options` is given with any key (it takes none yet), RangeError when the loss or a
   *   gradient overflows float32 (naming the first parameter whose gradient overflowed in the backward pass).
   */
  gradients(batch: TransformerBatch, options?: Record<string, never>): TransformerGradients;
  /** Mean loss and accuracy over the scored positions of the batch, with the heads of options.headMask off. */
  evaluate(batch: TransformerBatch, options?: TransformerEvaluateOptions): TransformerEvaluation;
  /** The forward pass on tokens [B, T]. */
  forward(tokens: TransformerBatch['tokens'], options?: TransformerForwardOptions): TransformerForwardResult;
  /**
   * Every parameter by name, fresh Float32Arrays; JSON-safe: `JSON.stringify` writes each as an array of
   * numbers (exactly its float32 values), which {@link Transformer.loadParameters} takes back bit for bit.
   */
  parameters(): Record<string, Float32Array>;
  /**
   * Replaces every parameter; Adam's moments and steps start again from zero.
   * @throws RangeError for a missing or unknown name, a wrong length or a value that is not finite in float32;
   *   TypeError for a value that is not an array.
   */
  loadParameters(params: Record<string, ArrayLike<number>>): void;
  /** Frees the wasm memory; later calls throw an Error. */
  dispose(): void;
}
