// The methods: one per registry kernel (or family of calls), each checking its
// arguments (tensor.js), copying in and out (heap.js) and calling the variant
// this instance was created for. No arithmetic on results happens here.
import {
  assertNoNaN,
  describeValue,
  formatIndex,
  formatShape,
  overflowError,
  shapeError,
  valueError,
} from './errors.js';
import { knownNaNIndex, runDeferredCheck } from './checks.js';
import { HEAP_LIMIT_BYTES, memoryStats, readOut, resetPeakMemory, withBuffers } from './heap.js';
import {
  booleanOption,
  broadcastShapes,
  broadcastStrides,
  finiteNumber,
  materialize,
  nonZero,
  numel,
  optionsObject,
  sameLength,
  toMask,
  toTensor,
  toTensorRank,
  toVector,
} from './tensor.js';
import { makeRandom, randomDotExperiment } from './random.js';
import { dotProductDensity, greedyPacking } from './montecarlo.js';

const f32 = (data, shape) => ({ data, shape });

// Element offsets of each slice of a batched tensor, for an output batch shape
// `outLead`, given the tensor's own leading shape and its slice size.
function sliceOffsets(lead, outLead, sliceSize) {
  const strides = broadcastStrides('', '', lead, outLead, '').map((s) => s * sliceSize);
  const n = numel(outLead);
  const offs = new Array(n);
  const idx = new Array(outLead.length).fill(0);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < outLead.length; d++) off += idx[d] * strides[d];
    offs[i] = off;
    for (let d = outLead.length - 1; d >= 0; d--) {
      if (++idx[d] < outLead[d]) break;
      idx[d] = 0;
    }
  }
  return offs;
}

function summarize(result) {
  if (typeof result === 'number') return result;
  if (result && result.data && result.shape) return { shape: result.shape.slice(), data: result.data.slice() };
  if (result && typeof result === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(result)) out[k] = summarize(v);
    return out;
  }
  return result;
}

// The JS method of each kernel, for error messages.
const METHOD = { entropy_bits: 'entropy', matmul_nt: 'matmul' };
const methodOf = (kernel) => METHOD[kernel] ?? kernel.replace(/_(\w)/g, (_, c) => c.toUpperCase());

function checkNoNaN(kernel, result, name = 'the result') {
  if (typeof result === 'number') {
    if (result !== result) throw overflowError(methodOf(kernel), name, [], 0);
  } else if (result && result.data instanceof Float32Array) {
    // Found in wasm while the result was still there (heap.js readOut), or
    // looked for here when the result was made in JS.
    const known = knownNaNIndex(result.data);
    if (known === undefined) assertNoNaN(methodOf(kernel), name, result.data, result.shape);
    else if (known >= 0) throw overflowError(methodOf(kernel), name, result.shape, known);
  } else if (result && typeof result === 'object') {
    for (const [k, v] of Object.entries(result)) {
      if (v && (typeof v === 'number' || v.data instanceof Float32Array)) checkNoNaN(kernel, v, k);
    }
  }
}

export class AttentionGeometry {
  /** @internal */
  constructor(rt, { build, variant, kernels, callLog, onKernelCall }) {
    this._rt = rt;
    this._registry = new Map(kernels.map((k) => [k.name, Object.freeze(k)]));
    this._onKernelCall = onKernelCall;
    const fixed = (value) => ({ value, enumerable: true, writable: false, configurable: false });
    Object.defineProperties(this, {
      backend: fixed(build === 'simd' ? 'wasm-simd128' : 'wasm-scalar'),
      variant: fixed(variant),
      kernels: fixed(Object.freeze(kernels)),
      random: fixed(makeRandom(this)),
    });
    if (callLog) this.callLog = [];
  }

  /** The Embind function of `name` for this instance's variant. @internal */
  _kernel(name) {
    const entry = this._registry.get(name);
    const fn = entry.variants[0] === 'shared' ? name : `${name}__${this.variant}`;
    return this._rt.module[fn];
  }

  /** @internal */
  _variantOf(name) {
    return this._registry.get(name).variants[0] === 'shared' ? 'shared' : this.variant;
  }

  /**
   * Checks and records a kernel call, then returns `result`. Inputs are
   * finite by the time a kernel runs, so a NaN in a result means that an
   * intermediate value (a partial sum, a product) overflowed float32: that is
   * a RangeError, never a number handed to the user. The naive softmax is the
   * one kernel whose NaN is its lesson. @internal
   */
  _done(kernel, args, result, calls = 1) {
    if (kernel !== 'softmax_naive') checkNoNaN(kernel, result);
    if (this.callLog || this._onKernelCall) {
      const shapes = {};
      for (const [k, v] of Object.entries(args)) shapes[k] = v;
      const entry = { kernel, variant: this._variantOf(kernel), args: shapes, result: summarize(result), calls };
      if (this.callLog) this.callLog.push(entry);
      if (this._onKernelCall) this._onKernelCall(entry);
    }
    return result;
  }

  /**
   * Bytes in use on this instance's wasm heap (a diagnostic: it returns to
   * the same value after every call, valid or not).
   */
  heapAllocatedBytes() {
    return this._rt.module.heapAllocatedBytes();
  }

  _buffers(method, specs, body) {
    return withBuffers(this._rt, method, specs, body);
  }

  _read(type, ptr, length, options) {
    return readOut(this._rt, type, ptr, length, options);
  }

  // ---- vectors -------------------------------------------------------------

  _pair(method, a, b) {
    const x = toVector(method, 'a', a);
    const y = toVector(method, 'b', b, `[n] with n = ${x.length} (the length of a)`);
    sameLength(method, 'a', x, 'b', y);
    return [x, y];
  }

  _scalar2(method, kernel, x, y) {
    const r = this._buffers(
      method,
      [
        { name: 'a', data: x },
        { name: 'b', data: y },
      ],
      ([pa, pb]) => this._kernel(kernel)(pa, pb, x.length),
    );
    return this._done(kernel, { a: [x.length], b: [y.length] }, r);
  }

  dot(a, b) {
    const [x, y] = this._pair('dot', a, b);
    return this._scalar2('dot', 'dot', x, y);
  }

  squaredNorm(a) {
    const x = toVector('squaredNorm', 'a', a);
    const r = this._buffers('squaredNorm', [{ name: 'a', data: x }], ([pa]) =>
      this._kernel('squared_norm')(pa, x.length),
    );
    return this._done('squared_norm', { a: [x.length] }, r);
  }

  norm(a) {
    const x = toVector('norm', 'a', a);
    const r = this._buffers('norm', [{ name: 'a', data: x }], ([pa]) => this._kernel('norm')(pa, x.length));
    return this._done('norm', { a: [x.length] }, r);
  }

  normalize(a) {
    const x = toVector('normalize', 'a', a);
    nonZero('normalize', 'a', x, 'normalize');
    const n = x.length;
    const r = this._buffers(
      'normalize',
      [
        { name: 'a', data: x },
        { name: 'out', length: n },
      ],
      ([pa, po]) => {
        this._kernel('normalize')(pa, n, po);
        return f32(this._read(Float32Array, po, n), [n]);
      },
    );
    return this._done('normalize', { a: [n] }, r);
  }

  cosine(a, b) {
    const [x, y] = this._pair('cosine', a, b);
    nonZero('cosine', 'a', x, 'cosine');
    nonZero('cosine', 'b', y, 'cosine');
    return this._scalar2('cosine', 'cosine', x, y);
  }

  angle(a, b) {
    const [x, y] = this._pair('angle', a, b);
    nonZero('angle', 'a', x, 'angle');
    nonZero('angle', 'b', y, 'angle');
    return this._scalar2('angle', 'angle', x, y);
  }

  scalarProjection(a, b) {
    const [x, y] = this._pair('scalarProjection', a, b);
    nonZero('scalarProjection', 'b', y, 'a projection onto b');
    return this._scalar2('scalarProjection', 'scalar_projection', x, y);
  }

  vectorProjection(a, b) {
    const [x, y] = this._pair('vectorProjection', a, b);
    nonZero('vectorProjection', 'b', y, 'a projection onto b');
    const n = x.length;
    const r = this._buffers(
      'vectorProjection',
      [
        { name: 'a', data: x },
        { name: 'b', data: y },
        { name: 'out', length: n },
      ],
      ([pa, pb, po]) => {
        this._kernel('vector_projection')(pa, pb, n, po);
        return f32(this._read(Float32Array, po, n), [n]);
      },
    );
    return this._done('vector_projection', { a: [n], b: [n] }, r);
  }

  squaredDistance(a, b) {
    const [x, y] = this._pair('squaredDistance', a, b);
    return this._scalar2('squaredDistance', 'squared_distance', x, y);
  }

  weightedSum(alpha, V) {
    const m = 'weightedSum';
    const w = toVector(m, 'alpha', alpha, '[T]');
    const T = w.length;
    const v = toTensorRank(m, 'V', V, [2], `[T, d] with T = ${T} (the length of alpha)`);
    if (v.shape[0] !== T)
      throw shapeError(m, 'V', v.shape, `[T, d] with T = ${T}`, 'V needs one row per weight in alpha');
    const d = v.shape[1];
    const r = this._buffers(
      m,
      [
        { name: 'alpha', data: w },
        { name: 'V', data: v.data },
        { name: 'y', length: d },
      ],
      ([pw, pv, py]) => {
        this._kernel('weighted_sum')(pw, pv, T, d, py);
        return f32(this._read(Float32Array, py, d), [d]);
      },
    );
    return this._done('weighted_sum', { alpha: [T], V: v.shape }, r);
  }

  // ---- matrices -------------------------------------------------------------

  matmul(A, B, options) {
    const m = 'matmul';
    const o = optionsObject(m, options, 'options', ['transposeB']);
    const transposeB = booleanOption(m, 'options.transposeB', o.transposeB, false);
    const a = toTensor(m, 'A', A, '[..., M, K]');
    if (a.shape.length < 2) throw shapeError(m, 'A', a.shape, '[..., M, K]', 'A must have rank 2 or more');
    const [M, K] = a.shape.slice(-2);
    const bExp = transposeB ? `[..., N, K] with K = ${K}` : `[..., K, N] with K = ${K}`;
    const b = toTensor(m, 'B', B, bExp);
    if (b.shape.length < 2) throw shapeError(m, 'B', b.shape, bExp, 'B must have rank 2 or more');
    const kB = transposeB ? b.shape.at(-1) : b.shape.at(-2);
    const N = transposeB ? b.shape.at(-2) : b.shape.at(-1);
    if (kB !== K) throw shapeError(m, 'B', b.shape, bExp, `the inner dimension K of A ${formatShape(a.shape)} is ${K}`);
    const leadA = a.shape.slice(0, -2);
    const leadB = b.shape.slice(0, -2);
    const lead = broadcastShapes(m, [
      { name: 'A', shape: leadA, full: a.shape, expected: '[..., M, K]' },
      { name: 'B', shape: leadB, full: b.shape, expected: bExp },
    ]);
    const batches = numel(lead);
    const offA = sliceOffsets(leadA, lead, M * K);
    const offB = sliceOffsets(leadB, lead, K * N);
    const kernel = transposeB ? 'matmul_nt' : 'matmul';
    const outShape = [...lead, M, N];
    const r = this._buffers(
      m,
      [
        { name: 'A', shape: a.shape, data: a.data },
        { name: 'B', shape: b.shape, data: b.data },
        { name: 'C', shape: outShape, length: batches * M * N },
      ],
      ([pa, pb, pc]) => {
        const fn = this._kernel(kernel);
        for (let i = 0; i < batches; i++) fn(pa + 4 * offA[i], pb + 4 * offB[i], M, K, N, pc + 4 * i * M * N);
        return f32(this._read(Float32Array, pc, batches * M * N), outShape);
      },
    );
    return this._done(kernel, { A: a.shape, B: b.shape }, r, batches);
  }

  // ---- softmax family ---------------------------------------------------------

  exp(x) {
    const t = toTensor('exp', 'x', x, '[...]');
    const n = t.data.length;
    const r = this._buffers(
      'exp',
      [
        { name: 'x', data: t.data },
        { name: 'y', length: n },
      ],
      ([px, py]) => {
        this._kernel('exp')(px, n, py);
        return f32(this._read(Float32Array, py, n), t.shape);
      },
    );
    return this._done('exp', { x: t.shape }, r);
  }

  softmax(x, options) {
    const m = 'softmax';
    const o = optionsObject(m, options, 'options', ['temperature', 'mask']);
    const t = toTensor(m, 'x', x, '[..., n]', { minRank: 1 });
    const temperature =
      o.temperature === undefined ? 1 : finiteNumber(m, 'options.temperature', o.temperature, { positive: true });
    if (!(Math.fround(temperature) >= 2 ** -126)) {
      throw new RangeError(
        `${m}: options.temperature ${temperature} is below the smallest normal float32 (about 1.2e-38); the kernels compute in float32`,
      );
    }
    const n = t.shape.at(-1);
    const rows = t.data.length / n;
    let mask = null;
    if (o.mask !== undefined && o.mask !== null) {
      const mk = toMask(m, 'mask', o.mask, `a shape that broadcasts to x ${formatShape(t.shape)}`);
      const strides = broadcastStrides(m, 'mask', mk.shape, t.shape, 'the shape of x');
      mask = { shape: mk.shape, data: materialize(mk.data, strides, t.shape) };
    }
    // x's finiteness is checked by the kernel in its max pass (registry.inc):
    // a non-zero status is either a non-finite x (its own RangeError, from
    // the deferred check) or an overflow. With status 0, y holds no NaN.
    const specs = [
      { name: 'x', data: t.data, kernelChecks: true },
      mask && { name: 'mask', data: mask.data },
      { name: 'y', length: t.data.length },
    ];
    const r = this._buffers(m, specs, ([px, pm, py]) => {
      const status = this._kernel('softmax')(px, pm, rows, n, temperature, py);
      if (status !== 0) {
        runDeferredCheck(this._rt.module, t.data, px);
        throw overflowError(m, mask ? 'x / temperature + mask' : 'x / temperature', t.shape, status - 1);
      }
      return f32(this._read(Float32Array, py, t.data.length, { nanFree: true }), t.shape);
    });
    const args = { x: t.shape };
    if (mask) args.mask = mask.shape;
    return this._done('softmax', args, r);
  }

  softmaxNaive(x) {
    const t = toTensor('softmaxNaive', 'x', x, '[..., n]', { minRank: 1 });
    const n = t.shape.at(-1);
    const rows = t.data.length / n;
    const r = this._buffers(
      'softmaxNaive',
      [
        { name: 'x', data: t.data },
        { name: 'y', length: t.data.length },
      ],
      ([px, py]) => {
        this._kernel('softmax_naive')(px, rows, n, py);
        return f32(this._read(Float32Array, py, t.data.length), t.shape);
      },
    );
    return this._done('softmax_naive', { x: t.shape }, r);
  }

  logSumExp(x) {
    const t = toTensor('logSumExp', 'x', x, '[..., n]', { minRank: 1 });
    const n = t.shape.at(-1);
    const rows = t.data.length / n;
    const r = this._buffers(
      'logSumExp',
      [
        { name: 'x', data: t.data },
        { name: 'out', length: rows },
      ],
      ([px, po]) => {
        this._kernel('log_sum_exp')(px, rows, n, po);
        const out = this._read(Float32Array, po, rows);
        return t.shape.length === 1 ? out[0] : f32(out, t.shape.slice(0, -1));
      },
    );
    return this._done('log_sum_exp', { x: t.shape }, r);
  }

  entropy(p) {
    const m = 'entropy';
    const x = toVector(m, 'p', p, '[n]');
    for (let i = 0; i < x.length; i++) {
      if (x[i] < 0) throw valueError(m, 'p', [x.length], i, x[i], 'p must be a distribution (every p_i >= 0)');
    }
    const r = this._buffers(m, [{ name: 'p', data: x }], ([pp]) => this._kernel('entropy_bits')(pp, x.length));
    return this._done('entropy_bits', { p: [x.length] }, r);
  }

  softmaxJacobian(alpha) {
    const x = toVector('softmaxJacobian', 'alpha', alpha, '[n]');
    const n = x.length;
    const r = this._buffers(
      'softmaxJacobian',
      [
        { name: 'alpha', data: x },
        { name: 'J', shape: [n, n], length: n * n },
      ],
      ([pa, pj]) => {
        this._kernel('softmax_jacobian')(pa, n, pj);
        return f32(this._read(Float32Array, pj, n * n), [n, n]);
      },
    );
    return this._done('softmax_jacobian', { alpha: [n] }, r);
  }

  // ---- random ----------------------------------------------------------------

  randomDotExperiment(options) {
    return randomDotExperiment(this, options);
  }

  // ---- attention ---------------------------------------------------------------

  /**
   * Scaled dot-product attention (Vaswani et al. 2017, §3.2.1): streaming
   * (online softmax over key tiles, no [Tq, Tk] buffer; Milakov & Gimelshein
   * 2018, Dao et al. 2022) unless weights or scores are asked for or
   * `streaming: false`. Shapes, options and errors: index.d.ts.
   */
  attention(q, k, v, options) {
    const m = 'attention';
    const o = optionsObject(m, options, 'options', [
      'scale',
      'causal',
      'mask',
      'returnWeights',
      'returnScores',
      'streaming',
    ]);
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
    const lead = broadcastShapes(m, [
      { name: 'Q', shape: Q.shape.slice(0, -2), full: Q.shape, expected: '[..., Tq, d_k]' },
      { name: 'K', shape: K.shape.slice(0, -2), full: K.shape, expected: kExp },
      { name: 'V', shape: V.shape.slice(0, -2), full: V.shape, expected: vExp },
    ]);
    const BH = [...new Array(2 - lead.length).fill(1), ...lead];
    const [B, H] = BH;
    const st = (t, rows, cols) => broadcastStrides(m, '', t.shape.slice(0, -2), BH, '').map((s) => s * rows * cols);
    const [qsb, qsh] = st(Q, Tq, dk);
    const [ksb, ksh] = st(K, Tk, dk);
    const [vsb, vsh] = st(V, Tk, dv);
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const causal = booleanOption(m, 'options.causal', o.causal, false);
    const returnWeights = booleanOption(m, 'options.returnWeights', o.returnWeights, false);
    const returnScores = booleanOption(m, 'options.returnScores', o.returnScores, false);
    const streaming = this._streamingOption(m, o.streaming, [
      returnWeights && 'returnWeights',
      returnScores && 'returnScores',
    ]);
    let mask = null;
    let ms = [0, 0, 0, 0];
    const scoreShape = [...lead, Tq, Tk];
    if (o.mask !== undefined && o.mask !== null) {
      const target = `a shape that broadcasts to [B, h, Tq, Tk] = ${formatShape([B, H, Tq, Tk])}`;
      mask = toMask(m, 'mask', o.mask, target);
      ms = broadcastStrides(m, 'mask', mask.shape, [B, H, Tq, Tk], '[B, h, Tq, Tk]');
    }
    const dims = new Int32Array([
      B,
      H,
      Tq,
      Tk,
      dk,
      dv,
      qsb,
      qsh,
      dk,
      ksb,
      ksh,
      dk,
      vsb,
      vsh,
      dv,
      H * Tq * dv,
      Tq * dv,
      dv,
      ...ms,
      0,
      causal ? 1 : 0,
      streaming ? 1 : 0,
    ]);
    const nOut = B * H * Tq * dv;
    const nW = B * H * Tq * Tk;
    const specs = [
      { name: 'Q', shape: Q.shape, data: Q.data },
      { name: 'K', shape: K.shape, data: K.data },
      { name: 'V', shape: V.shape, data: V.data },
      mask && { name: 'mask', data: mask.data },
      { name: 'dims', data: dims },
      { name: 'output', shape: [...lead, Tq, dv], length: nOut },
      returnWeights && { name: 'weights', shape: scoreShape, length: nW },
      returnScores && { name: 'scores', shape: scoreShape, length: nW },
      this._attentionWork(streaming, returnWeights || returnScores, Tq, Tk),
    ];
    const r = this._buffers(m, specs, ([pq, pk, pv, pm, pd, po, pw, ps, pwork]) => {
      const status = this._kernel('attention')(pq, pk, pv, pm, 0, scale, pd, po, pw, ps, pwork);
      if (status !== 0)
        throw this._scoreOverflow(
          m,
          mask ? 'the scores scale * Q K^T + mask' : 'the scores scale * Q K^T',
          scoreShape,
          status,
        );
      // A NaN in the output (a sum that overflowed) is a RangeError from _done.
      const res = { output: f32(this._read(Float32Array, po, nOut), [...lead, Tq, dv]) };
      if (returnWeights) res.weights = f32(this._read(Float32Array, pw, nW), scoreShape.slice());
      if (returnScores) res.scores = f32(this._read(Float32Array, ps, nW), scoreShape.slice());
      return res;
    });
    const args = { Q: Q.shape, K: K.shape, V: V.shape };
    if (mask) args.mask = mask.shape;
    return this._done('attention', args, r);
  }

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
    const o = optionsObject(m, options, 'options', [
      'numHeads',
      'scale',
      'causal',
      'mask',
      'keyPaddingMask',
      'returnWeights',
      'streaming',
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
    const wExp = `[d_model, d_model] = ${formatShape([dm, dm])} ([in, out])`;
    const weight = (name) => {
      if (pw[name] === undefined) throw new TypeError(`${m}: ${name} is missing; expected ${wExp}`);
      const w = toTensorRank(m, name, pw[name], [2], wExp);
      if (w.shape[0] !== dm || w.shape[1] !== dm) throw shapeError(m, name, w.shape, wExp);
      return w;
    };
    const bias = (name) => {
      if (pw[name] === undefined || pw[name] === null) return null;
      const b = toTensorRank(m, name, pw[name], [1], `[d_model] = [${dm}]`);
      if (b.shape[0] !== dm) throw shapeError(m, name, b.shape, `[d_model] = [${dm}]`);
      return b;
    };
    const [wQ, wK, wV, wO] = ['wQ', 'wK', 'wV', 'wO'].map(weight);
    const [bQ, bK, bV, bO] = ['bQ', 'bK', 'bV', 'bO'].map(bias);
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const causal = booleanOption(m, 'options.causal', o.causal, false);
    const returnWeights = booleanOption(m, 'options.returnWeights', o.returnWeights, false);
    const streaming = this._streamingOption(m, o.streaming, [returnWeights && 'returnWeights']);
    const wShape = batched ? [B, h, Tq, Tk] : [h, Tq, Tk];
    let mask = null;
    let ms = [0, 0, 0, 0];
    if (o.mask !== undefined && o.mask !== null) {
      const target = `a shape that broadcasts to ${batched ? '[B, h, Tq, Tk]' : '[h, Tq, Tk]'} = ${formatShape(wShape)}`;
      mask = toMask(m, 'mask', o.mask, target);
      const s = broadcastStrides(m, 'mask', mask.shape, wShape, batched ? '[B, h, Tq, Tk]' : '[h, Tq, Tk]');
      ms = batched ? s : [0, ...s];
    }
    let kpm = null;
    let kbsb = 0;
    if (o.keyPaddingMask !== undefined && o.keyPaddingMask !== null) {
      const kExp = batched ? `[B, Tk] = ${formatShape([B, Tk])}` : `[Tk] = [${Tk}]`;
      kpm = toMask(m, 'keyPaddingMask', o.keyPaddingMask, kExp, 'ignore');
      const target = batched ? [B, Tk] : [Tk];
      const s = broadcastStrides(m, 'keyPaddingMask', kpm.shape, target, batched ? '[B, Tk]' : '[Tk]');
      if (s.at(-1) === 0 && Tk > 1)
        throw shapeError(m, 'keyPaddingMask', kpm.shape, kExp, 'one entry per key is needed');
      kbsb = batched ? s[0] : 0;
    }
    if (!streaming && 4 * Tq * Tk > HEAP_LIMIT_BYTES) {
      // Checked here: the workspace size comes back from wasm as 32 bits.
      throw new RangeError(
        `${m}: the materialized path needs one head's [Tq, Tk] = ${formatShape([Tq, Tk])} score grid, ${4 * Tq * Tk} bytes, ` +
          `more than the 1 GiB limit of the heap; use smaller shapes, or the streaming path (no returnWeights, streaming not false)`,
      );
    }
    const dims = new Int32Array([B, Tq, Tk, dm, h, ...ms, kbsb, causal ? 1 : 0, streaming ? 1 : 0]);
    const nOut = B * Tq * dm;
    const nW = B * h * Tq * Tk;
    const r = this._buffers(m, [{ name: 'dims', data: dims }], ([pd]) => {
      const ws = this._rt.module.mhaWorkspaceFloats(pd);
      const specs = [
        // Self-attention passes one tensor as query, key and value: it is
        // copied in once and its pointer passed three times.
        { name: 'query', data: X.data },
        Kx !== X && { name: 'key', data: Kx.data },
        Vx !== Kx && { name: 'value', data: Vx.data },
        { name: 'wQ', data: wQ.data },
        { name: 'wK', data: wK.data },
        { name: 'wV', data: wV.data },
        { name: 'wO', data: wO.data },
        bQ && { name: 'bQ', data: bQ.data },
        bK && { name: 'bK', data: bK.data },
        bV && { name: 'bV', data: bV.data },
        bO && { name: 'bO', data: bO.data },
        mask && { name: 'mask', data: mask.data },
        kpm && { name: 'keyPaddingMask', data: kpm.data },
        { name: 'output', shape: X.shape, length: nOut },
        returnWeights && { name: 'weights', shape: wShape, length: nW },
        { name: 'workspace', length: ws },
      ];
      return this._buffers(m, specs, (ptrs) => {
        const p = ptrs.slice();
        p[1] = p[1] || p[0];
        p[2] = p[2] || p[1];
        const status = this._kernel('multi_head_attention')(...p.slice(0, 13), scale, pd, p[13], p[14], p[15]);
        const output = this._read(Float32Array, p[13], nOut);
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
              shape: [...Kx.shape.slice(0, -1), dm],
            },
            {
              what: `V = ${vName}\u00b7wV${bV ? ' + bV' : ''}`,
              inputs: bV ? `${vName}, wV or bV` : `${vName} or wV`,
              shape: [...Kx.shape.slice(0, -1), dm],
            },
          ];
          const outputProjection = {
            what: `concat(heads)\u00b7wO${bO ? ' + bO' : ''}`,
            inputs: bO ? 'wO, bO or the inputs' : 'wO or the inputs',
            shape: X.shape,
            nanAt: status === 0 ? knownNaNIndex(output) : -1,
          };
          const bad = this._projectionOverflow(m, p[15], projections, outputProjection);
          if (bad) throw bad;
        }
        if (status !== 0) throw this._scoreOverflow(m, 'the per-head scores', [B, h, Tq, Tk], status);
        // A NaN in the output (a sum that overflowed) is a RangeError from _done.
        const res = { output: f32(output, X.shape.slice()) };
        if (returnWeights) res.weights = f32(this._read(Float32Array, p[14], nW), wShape.slice());
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
  }

  // ---- dot product, step by step (kernel dot_trace) ------------------------------

  /**
   * a . b with every step of this variant's dot recorded (registry.inc:
   * dot_trace; layout in src/kernels/vector_trace.h). `value` equals
   * `dot(a, b)` of the same instance bit for bit.
   */
  dotTrace(a, b) {
    const m = 'dotTrace';
    const [x, y] = this._pair(m, a, b);
    const n = x.length;
    const fn = this._kernel('dot_trace');
    const count = this._buffers(
      m,
      [
        { name: 'a', data: x },
        { name: 'b', data: y },
      ],
      ([pa, pb]) => fn(pa, pb, n, 0, 0),
    );
    const W = DOT_TRACE_RECORD;
    const r = this._buffers(
      m,
      [
        { name: 'a', data: x },
        { name: 'b', data: y },
        { name: 'trace', shape: [count, W], length: count * W },
      ],
      ([pa, pb, pt]) => {
        fn(pa, pb, n, pt, count);
        return this._read(Float32Array, pt, count * W);
      },
    );
    const steps = [];
    for (let s = 0; s < count; s++) {
      const rec = r.subarray(s * W, (s + 1) * W);
      const lanes = (k) => Array.from(rec.subarray(k, k + 4));
      steps.push({
        kind: DOT_TRACE_KINDS[rec[0]],
        index: rec[1],
        count: rec[2],
        x: lanes(3),
        y: lanes(7),
        z: lanes(11),
        w: lanes(15),
        value: rec[19],
      });
    }
    const result = {
      value: r[(count - 1) * W + 19],
      variant: this._variantOf('dot_trace'),
      n,
      steps,
      trace: f32(r, [count, W]),
    };
    return this._done('dot_trace', { a: [n], b: [n] }, result, 2);
  }

  // ---- Monte Carlo chapters (kernels dot_density and greedy_packing; src/js/montecarlo.js) ----

  /** The exact density of q . k for q, k ~ N(0, I_d) at every x (registry.inc: dot_density). */
  dotProductDensity(x, d) {
    return dotProductDensity(this, x, d);
  }

  /** Greedy packing of random directions pairwise within +-epsilon of perpendicular (registry.inc: greedy_packing). */
  greedyPacking(options) {
    return greedyPacking(this, options);
  }

  // ---- wasm memory (src/js/heap.js) ------------------------------------------

  /** { heapBytes, allocatedBytes, peakAllocatedBytes } of this instance's wasm memory, in bytes. */
  memoryStats() {
    return memoryStats(this._rt);
  }

  /** Starts a new peak: peakAllocatedBytes becomes the bytes in use now. */
  resetPeakMemory() {
    resetPeakMemory(this._rt);
  }

  /**
   * The `streaming` option of attention and multiHeadAttention: a boolean,
   * by default true unless an option in `wanting` (names of the options that
   * ask for the [Tq, Tk] grid, or false) is set. @internal
   */
  _streamingOption(m, value, wanting) {
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
   * scores or the output went wrong, while the workspace is alive. @internal
   */
  _projectionOverflow(m, work, projections, output) {
    const error = (name, what, inputs, shape, flat) =>
      new RangeError(
        `${m}: ${name}${formatIndex(shape, flat)} overflowed float32 although the inputs are finite ` +
          `(the ${name === 'output' ? 'output ' : ''}projection ${what}, of shape ${formatShape(shape)}); scale ${inputs} down`,
      );
    let at = work;
    for (const { what, inputs, shape } of projections) {
      const n = numel(shape);
      const flat = this._rt.module.firstNonFinite(at, n, 0);
      if (flat >= 0) return error(what[0], what, inputs, shape, flat);
      at += 4 * n;
    }
    const headsFinite = () => this._rt.module.firstNonFinite(at, numel(output.shape), 0) < 0;
    if (output.nanAt >= 0 && headsFinite())
      return error('output', output.what, output.inputs, output.shape, output.nanAt);
    return null;
  }

  /**
   * The RangeError for an attention kernel's overflow status (1 + the flat
   * index of the first overflowed score, INT32_MAX when it did not fit). @internal
   */
  _scoreOverflow(m, what, shape, status) {
    if (status < 0x7fffffff) return overflowError(m, what, shape, status - 1);
    return new RangeError(
      `${m}: ${what} overflowed float32 at flat index 2147483646 or beyond although the inputs are finite ` +
        `(the shape of ${what} is ${formatShape(shape)}); scale the inputs down`,
    );
  }

  /**
   * The work buffer of the attention kernel (registry.inc): streaming, one
   * tile of scores and two numbers per query row of a block; materialized,
   * a row [Tk] when the weights or scores hold the grid, else the grid. @internal
   */
  _attentionWork(streaming, gridReturned, Tq, Tk) {
    if (streaming) return { name: 'work', length: ATTENTION_STREAMING_WORK_FLOATS };
    if (gridReturned) return { name: 'work', length: Tk };
    return { name: 'the score grid', shape: [Tq, Tk], length: Tq * Tk };
  }
}

/**
 * AG_ATTENTION_STREAMING_WORK_FLOATS of src/kernels/kernels.h: a [64, 256]
 * tile of scores and the running max and sum of 64 query rows.
 */
const ATTENTION_STREAMING_WORK_FLOATS = 64 * 256 + 2 * 64;

/** Floats per record of the dot_trace kernel, and its record kinds (src/kernels/vector_trace.h). */
const DOT_TRACE_RECORD = 20;
const DOT_TRACE_KINDS = Object.freeze({
  1: 'multiply-add',
  2: 'fold',
  3: 'swap-add',
  4: 'lane-sum',
  5: 'merge',
  6: 'total',
  7: 'block',
});
