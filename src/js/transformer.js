// createTransformer: a tiny GPT-2 style decoder trained in wasm memory on the
// project's kernels (registry.inc, family "transformer"; the model itself is
// src/kernels/transformer_impl.h). This module checks the configuration and
// the batches, keeps the model's buffers (parameters, gradients, Adam's two
// moments, all laid out by transformer_layout.h) on the heap, and copies
// results out; every number of the model is computed in wasm.
import { countedCall } from './checks.js';
import { describeValue, missingError, overflowError } from './errors.js';
import { HEAP_LIMIT_BYTES, readOut, withBuffers } from './heap.js';
import { splitU64 } from './random.js';
import { booleanOption, finiteNumber, optionsObject, positiveInt } from './tensor.js';

/** The limits of a configuration (see index.d.ts: TransformerConfig). */
export const TRANSFORMER_LIMITS = Object.freeze({
  vocab: 65536,
  T: 4096,
  dModel: 4096,
  layers: 64,
  /** Parameters, gradients and Adam's two moments together: 512 MiB of the 1 GiB heap. */
  stateBytes: HEAP_LIMIT_BYTES / 2,
});

const CONFIG_KEYS = ['vocab', 'T', 'dModel', 'heads', 'layers', 'mlp', 'norm', 'scaleScores', 'seed'];

function checkConfig(config) {
  const m = 'createTransformer';
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new TypeError(
      `${m}: config must be an object { vocab, T, dModel, heads, ... }; got ${describeValue(config)}`,
    );
  const o = optionsObject(m, config, 'config', CONFIG_KEYS);
  const vocab = positiveInt(m, 'config.vocab', o.vocab, TRANSFORMER_LIMITS.vocab);
  const T = positiveInt(m, 'config.T', o.T, TRANSFORMER_LIMITS.T);
  const dModel = positiveInt(m, 'config.dModel', o.dModel, TRANSFORMER_LIMITS.dModel);
  const heads = positiveInt(m, 'config.heads', o.heads, dModel);
  if (dModel % heads !== 0)
    throw new RangeError(
      `${m}: config.heads must divide config.dModel (d_k = dModel / heads); got heads ${heads} for dModel ${dModel}`,
    );
  const layers = positiveInt(m, 'config.layers', o.layers ?? 1, TRANSFORMER_LIMITS.layers);
  const mlp = booleanOption(m, 'config.mlp', o.mlp, true);
  const norm = o.norm ?? 'layer';
  if (norm !== 'layer' && norm !== 'none')
    throw new RangeError(`${m}: config.norm must be 'layer' or 'none'; got ${describeValue(norm)}`);
  const scaleScores = booleanOption(m, 'config.scaleScores', o.scaleScores, true);
  const seed = o.seed ?? 0;
  splitU64(m, 'config.seed', seed);
  return Object.freeze({ vocab, T, dModel, heads, layers, mlp, norm, scaleScores, seed });
}

/** The dims block of kernels.h (ag_transformer_dims), packed by the field names of the binding. */
function dimsOf(module, c) {
  const values = {
    vocab: c.vocab,
    T: c.T,
    d_model: c.dModel,
    heads: c.heads,
    layers: c.layers,
    mlp: c.mlp ? 1 : 0,
    norm: c.norm === 'layer' ? 1 : 0,
    scale_scores: c.scaleScores ? 1 : 0,
  };
  const fields = module.transformerDimsFields().split(',');
  if (fields.length !== Object.keys(values).length || fields.some((f) => !(f in values)))
    throw new Error(`transformerDimsFields: [${fields}] (kernels.h and transformer.js disagree)`);
  return Int32Array.from(fields, (f) => values[f]);
}

/** What a row of a matrix argument was, with its length when it is an array ("an array of 2"). */
const rowOf = (row) => (Array.isArray(row) ? `an array of ${row.length}` : describeValue(row));

/** A token matrix [B, T] as an Int32Array: an Int32Array/array of B*T integers, or B arrays of T. */
function tokenMatrix(method, name, x, T, lo, hi) {
  if (x === undefined) throw missingError(method, name, 'an Int32Array [B * T] or an array of B arrays of T');
  let flat = x;
  if (Array.isArray(x) && x.length > 0 && (Array.isArray(x[0]) || ArrayBuffer.isView(x[0]))) {
    for (let b = 0; b < x.length; b++) {
      if (!(Array.isArray(x[b]) || ArrayBuffer.isView(x[b])) || x[b].length !== T)
        throw new RangeError(`${method}: ${name}[${b}] must be an array of T = ${T} tokens; got ${rowOf(x[b])}`);
    }
    flat = x.flatMap((row) => Array.from(row));
  }
  if (!(Array.isArray(flat) || ArrayBuffer.isView(flat)))
    throw new TypeError(
      `${method}: ${name} must be an Int32Array [B * T] or an array of B arrays of T; got ${describeValue(x)}`,
    );
  if (flat.length === 0 || flat.length % T !== 0)
    throw new RangeError(
      `${method}: ${name} must hold B * T tokens, a positive multiple of T = ${T}; got ${flat.length} tokens`,
    );
  const out = Int32Array.from(flat);
  for (let i = 0; i < flat.length; i++) {
    const v = flat[i];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi)
      throw new RangeError(
        `${method}: ${name} must hold integers in ${lo}..${hi}; got ${describeValue(v)} at [${Math.floor(i / T)}, ${i % T}]`,
      );
  }
  return out;
}

/**
 * options.headMask as a Float32Array [layers * heads] of 0 and 1, or null when
 * not given: `layers` arrays of `heads` numbers, or a flat array (or typed
 * array) of layers * heads, layer by layer; 1 keeps a head, 0 switches it off.
 */
function headMaskOf(method, mask, c) {
  if (mask === undefined || mask === null) return null;
  const name = 'options.headMask';
  const want = `${c.layers} arrays of ${c.heads} (layers x heads) or ${c.layers * c.heads} numbers`;
  let flat = mask;
  if (Array.isArray(mask) && mask.length > 0 && (Array.isArray(mask[0]) || ArrayBuffer.isView(mask[0]))) {
    if (mask.length !== c.layers) throw new RangeError(`${method}: ${name} must be ${want}; got ${mask.length} arrays`);
    for (let l = 0; l < mask.length; l++) {
      if (!(Array.isArray(mask[l]) || ArrayBuffer.isView(mask[l])) || mask[l].length !== c.heads)
        throw new RangeError(
          `${method}: ${name}[${l}] must be an array of heads = ${c.heads} numbers; got ${rowOf(mask[l])}`,
        );
    }
    flat = mask.flatMap((row) => Array.from(row));
  }
  if (!(Array.isArray(flat) || (ArrayBuffer.isView(flat) && !(flat instanceof DataView))))
    throw new TypeError(`${method}: ${name} must be ${want}; got ${describeValue(mask)}`);
  if (flat.length !== c.layers * c.heads)
    throw new RangeError(`${method}: ${name} must be ${want}; got ${flat.length} numbers`);
  for (let i = 0; i < flat.length; i++) {
    if (flat[i] !== 0 && flat[i] !== 1)
      throw new RangeError(
        `${method}: ${name} must hold 0 (head off) or 1 (head on); got ${describeValue(flat[i])} at [${Math.floor(i / c.heads)}, ${i % c.heads}]`,
      );
  }
  return Float32Array.from(flat);
}

function batchOf(method, batch, c) {
  if (batch === null || typeof batch !== 'object' || Array.isArray(batch))
    throw new TypeError(`${method}: batch must be an object { tokens, targets }; got ${describeValue(batch)}`);
  const o = optionsObject(method, batch, 'batch', ['tokens', 'targets']);
  const tokens = tokenMatrix(method, 'batch.tokens', o.tokens, c.T, 0, c.vocab - 1);
  const targets = tokenMatrix(method, 'batch.targets', o.targets, c.T, -1, c.vocab - 1);
  if (targets.length !== tokens.length)
    throw new RangeError(
      `${method}: batch.targets must have the shape of batch.tokens, [${tokens.length / c.T}, ${c.T}]; got [${targets.length / c.T}, ${c.T}]`,
    );
  return { tokens, targets, B: tokens.length / c.T };
}

// Frees a model's buffers when it is collected without dispose() (a safety net only).
const finalizer = new FinalizationRegistry(({ module, pointers }) => {
  for (const p of pointers) if (p) module.free(p);
});

/**
 * The model of ag.createTransformer (index.d.ts: Transformer). Built by
 * createTransformer; its buffers live on the heap of `ag` until dispose().
 */
class Transformer {
  constructor(ag, config) {
    const m = 'createTransformer';
    this._ag = ag;
    const module = ag._rt.module;
    this.config = config;
    const dims = dimsOf(module, config);
    const dimsPtr = module.malloc(dims.byteLength);
    if (!dimsPtr) throw new RangeError(`${m}: the wasm heap could not allocate the configuration block`);
    new Int32Array(ag._rt.memory().buffer, dimsPtr, dims.length).set(dims);
    const floats = module.transformerParameterFloats(dimsPtr);
    const stateBytes = floats * 16; // parameters, gradients, Adam's m and v
    const workBytes = module.transformerWorkspaceFloats(dimsPtr, 1) * 4;
    if (
      !(stateBytes <= TRANSFORMER_LIMITS.stateBytes) ||
      !(workBytes > 0 && stateBytes + workBytes <= HEAP_LIMIT_BYTES)
    ) {
      module.free(dimsPtr);
      throw new RangeError(
        `${m}: the config (vocab ${config.vocab}, T ${config.T}, dModel ${config.dModel}, layers ${config.layers}) ` +
          `needs ${floats} parameters (${stateBytes} bytes with gradients and Adam's moments) and ${workBytes} bytes ` +
          `of workspace per batch row; the limits are 512 MiB for the former and 1 GiB of wasm memory in all`,
      );
    }
    const layout = JSON.parse(module.transformerLayout(dimsPtr));
    this._floats = layout.floats;
    this.layout = Object.freeze(layout.parameters.map((p) => Object.freeze({ ...p, shape: Object.freeze(p.shape) })));
    const pointers = [dimsPtr];
    const alloc = () => {
      const p = module.malloc(this._floats * 4);
      pointers.push(p);
      if (!p) {
        for (const q of pointers) if (q) module.free(q);
        throw new RangeError(
          `${m}: the wasm heap (capped at 1 GiB) could not allocate ${this._floats * 4} bytes for the model`,
        );
      }
      return p;
    };
    this._p = { dims: dimsPtr, params: alloc(), grads: alloc(), m: alloc(), v: alloc() };
    this._pointers = pointers;
    const stats = module.malloc((4 + this.layout.length) * 4);
    if (!stats) {
      for (const q of pointers) module.free(q);
      throw new RangeError(`${m}: the wasm heap could not allocate the model's statistics`);
    }
    pointers.push(stats);
    this._p.stats = stats;
    const [slo, shi] = splitU64(m, 'config.seed', config.seed);
    module.transformer_init(dimsPtr, slo, shi, this._p.params);
    this._resetOptimizer();
    this._token = {};
    finalizer.register(this, { module, pointers }, this._token);
  }

  _live(method) {
    if (!this._p) throw new Error(`transformer.${method}: the model was disposed; create a new one`);
    return this._ag._rt.module;
  }

  _resetOptimizer() {
    const buffer = this._ag._rt.memory().buffer;
    new Float32Array(buffer, this._p.m, this._floats).fill(0);
    new Float32Array(buffer, this._p.v, this._floats).fill(0);
    this._steps = 0;
  }

  /** The Adam steps taken since the model was made or loadParameters() was called. */
  get steps() {
    return this._steps;
  }

  _statsOut(method, withNorms) {
    const s = readOut(this._ag._rt, Float32Array, this._p.stats, 4 + this.layout.length, { nanFree: true });
    const r = { loss: s[0], accuracy: s[1], scored: s[2] };
    if (withNorms) {
      r.gradNorm = s[3];
      r.gradNorms = Object.fromEntries(this.layout.map((p, i) => [p.name, s[4 + i]]));
    }
    // A gradient with an entry that overflowed in the backward pass has norm NaN (transformer_gradients).
    const bad = withNorms ? this.layout.find((p) => Number.isNaN(r.gradNorms[p.name])) : undefined;
    if (bad && Number.isFinite(r.loss))
      throw new RangeError(
        `transformer.${method}: the gradient of ${bad.name} overflowed float32 in the backward pass although the ` +
          "forward pass is finite (an intermediate such as a layer norm's input gradient passed 3.4e38); " +
          'the parameters are left as they were; lower lr, set clip, or loadParameters() a saved state',
      );
    if (!Number.isFinite(r.loss) || (withNorms && !Number.isFinite(r.gradNorm)))
      throw new RangeError(
        `transformer.${method}: the loss or the gradient overflowed float32 (loss ${r.loss}, gradient norm ${r.gradNorm}); ` +
          'the parameters are left as they were; lower lr, set clip, or loadParameters() a saved state',
      );
    return r;
  }

  _status(method, status, B) {
    const c = this.config;
    if (status < 0) {
      // A layer norm whose variance overflowed float32 (transformer_forward's status -(1 + slot B T + row)).
      const R = B * c.T;
      const slot = Math.floor((-status - 1) / R);
      const row = (-status - 1) % R;
      const ln = slot === 2 * c.layers ? 'lnf' : `layer ${slot >> 1}'s ${slot % 2 ? 'ln2' : 'ln1'}`;
      throw new RangeError(
        `transformer.${method}: the variance of ${ln} input row ${row} (batch ${Math.floor(row / c.T)}, ` +
          `position ${row % c.T}) overflowed float32 although the inputs are finite (the input has B T = ${R} rows ` +
          `of dModel = ${c.dModel}); the first such row of the pass is named; the parameters are left as they were; ` +
          'lower lr or set clip, or loadParameters() a saved state',
      );
    }
    if (status !== 0)
      throw overflowError(
        `transformer.${method}`,
        'the attention scores',
        [B, this.config.heads, this.config.T, this.config.T],
        status - 1,
        'the first such score of the layers is named; lower lr or set clip',
      );
  }

  /** Runs the gradients kernel on a batch already read by batchOf. */
  _gradients(method, { tokens, targets, B }) {
    const module = this._live(method);
    const specs = {
      tokens: { data: tokens },
      targets: { data: targets },
      work: { name: 'the workspace', length: module.transformerWorkspaceFloats(this._p.dims, B) },
    };
    const status = withBuffers(this._ag._rt, `transformer.${method}`, specs, (p) =>
      this._ag._kernel('transformer_gradients')(
        this._p.dims,
        this._p.params,
        p.tokens,
        p.targets,
        B,
        this._p.grads,
        this._p.stats,
        p.work,
      ),
    );
    this._status(method, status, B);
    return { B, stats: this._statsOut(method, true) };
  }

  /**
   * One training step: the loss and gradients of `batch`, then one Adam step
   * (gradients clipped to global norm `clip` when given). Returns the loss,
   * accuracy and gradient norms before the update.
   */
  step(batch, options) {
    const m = 'transformer.step';
    this._live('step');
    // Argument order: the batch, then the options object.
    const read = batchOf(m, batch, this.config);
    const o = optionsObject(m, options, 'options', ['lr', 'optimizer', 'clip', 'beta1', 'beta2', 'eps']);
    if (o.lr === undefined) throw missingError(m, 'options.lr (the learning rate)', 'a number > 0');
    const lr = finiteNumber(m, 'options.lr', o.lr, { positive: true });
    if ((o.optimizer ?? 'adam') !== 'adam')
      throw new RangeError(
        `${m}: options.optimizer must be 'adam' (the one optimizer); got ${describeValue(o.optimizer)}`,
      );
    const clip = o.clip === undefined ? 0 : finiteNumber(m, 'options.clip', o.clip, { positive: true });
    const beta1 = o.beta1 === undefined ? 0.9 : finiteNumber(m, 'options.beta1', o.beta1);
    const beta2 = o.beta2 === undefined ? 0.999 : finiteNumber(m, 'options.beta2', o.beta2);
    const eps = o.eps === undefined ? 1e-8 : finiteNumber(m, 'options.eps', o.eps, { positive: true });
    // The kernel computes in float32: a value that rounds to 0 (lr, eps) or to 1 (a beta) there is refused.
    if (!(Math.fround(lr) > 0))
      throw new RangeError(`${m}: options.lr is ${lr}, which is 0 in float32; the kernels compute in float32`);
    if (!(Math.fround(eps) > 0))
      throw new RangeError(`${m}: options.eps is ${eps}, which is 0 in float32; the kernels compute in float32`);
    for (const [name, b] of [
      ['beta1', beta1],
      ['beta2', beta2],
    ])
      if (!(b >= 0 && Math.fround(b) < 1))
        throw new RangeError(`${m}: options.${name} must be in [0, 1) in float32; got ${b}`);
    const { B, stats } = this._gradients('step', read);
    const next = this._steps + 1;
    // All or nothing: the kernel checks the whole update before it writes (transformer_adam).
    const status = this._ag._kernel('transformer_adam')(
      this._p.dims,
      this._p.params,
      this._p.grads,
      this._p.m,
      this._p.v,
      this._p.stats,
      lr,
      beta1,
      beta2,
      eps,
      clip,
      next,
    );
    // An update that would overflow float32 (a huge lr, or a tiny eps under a large gradient) was not made.
    if (status !== 0) {
      const i = status - 1;
      const at = this.layout.find((t) => i >= t.offset && i < t.offset + t.shape.reduce((a, b) => a * b, 1));
      throw new RangeError(
        `${m}: the Adam update would overflow float32 (a parameter of ${at ? at.name : 'the model'}, or its ` +
          `moment, would become infinite or NaN) with options.lr ${lr}, beta1 ${beta1}, beta2 ${beta2}, eps ${eps}; ` +
          `the parameters and Adam's moments are unchanged; lower options.lr or set options.clip`,
      );
    }
    this._steps = next;
    return this._ag._done('transformer_adam', { tokens: [B, this.config.T] }, stats);
  }

  /**
   * The loss, accuracy and gradients of `batch` without an update: { loss, accuracy, scored, gradNorm, gradNorms, gradients }.
   * `options` takes no option yet: an object with any key is a TypeError (a misspelt option is not ignored).
   */
  gradients(batch, options) {
    this._live('gradients');
    const read = batchOf('transformer.gradients', batch, this.config);
    optionsObject('transformer.gradients', options, 'options', []);
    const { B, stats } = this._gradients('gradients', read);
    stats.gradients = this._tensors(this._p.grads);
    return this._ag._done('transformer_gradients', { tokens: [B, this.config.T] }, stats);
  }

  /**
   * The mean loss and the accuracy over the scored positions of `batch`;
   * options.headMask switches heads off (see forward).
   */
  evaluate(batch, options) {
    const m = 'transformer.evaluate';
    const module = this._live('evaluate');
    const { tokens, targets, B } = batchOf(m, batch, this.config);
    const o = optionsObject(m, options, 'options', ['headMask']);
    const headMask = headMaskOf(m, o.headMask, this.config);
    const specs = {
      tokens: { data: tokens },
      targets: { data: targets },
      headMask: headMask && { name: 'the head mask', data: headMask },
      work: { name: 'the workspace', length: module.transformerWorkspaceFloats(this._p.dims, B) },
    };
    const status = withBuffers(this._ag._rt, 'transformer.evaluate', specs, (p) =>
      this._ag._kernel('transformer_forward')(
        this._p.dims,
        this._p.params,
        p.tokens,
        p.targets,
        B,
        p.headMask,
        0,
        0,
        0,
        this._p.stats,
        p.work,
      ),
    );
    this._status('evaluate', status, B);
    const r = this._statsOut('evaluate', false);
    return this._ag._done('transformer_forward', { tokens: [B, this.config.T] }, r);
  }

  /**
   * The forward pass: logits [B, T, vocab], and per layer the attention
   * weights [B, heads, T, T] (returnWeights) and q, k [B, T, dModel] (returnQK).
   * options.headMask ([layers][heads] of 0 and 1) switches each head with 0
   * off: its output is zeroed before W_O (its weights are still returned).
   */
  forward(tokens, options) {
    const m = 'transformer.forward';
    const module = this._live('forward');
    const c = this.config;
    const toks = tokenMatrix(m, 'tokens', tokens, c.T, 0, c.vocab - 1);
    const o = optionsObject(m, options, 'options', ['returnWeights', 'returnQK', 'headMask']);
    const returnWeights = booleanOption(m, 'options.returnWeights', o.returnWeights, false);
    const returnQK = booleanOption(m, 'options.returnQK', o.returnQK, false);
    const headMask = headMaskOf(m, o.headMask, c);
    const B = toks.length / c.T;
    const perWeights = B * c.heads * c.T * c.T;
    const perQK = B * c.T * c.dModel;
    const specs = {
      tokens: { data: toks },
      headMask: headMask && { name: 'the head mask', data: headMask },
      logits: { length: B * c.T * c.vocab },
      weights: returnWeights && { name: 'the weights', length: c.layers * perWeights },
      qk: returnQK && { name: 'q and k', length: c.layers * 2 * perQK },
      work: { name: 'the workspace', length: module.transformerWorkspaceFloats(this._p.dims, B) },
    };
    const r = withBuffers(this._ag._rt, m, specs, (p) => {
      const status = this._ag._kernel('transformer_forward')(
        this._p.dims,
        this._p.params,
        p.tokens,
        0,
        B,
        p.headMask,
        p.logits,
        p.weights,
        p.qk,
        0,
        p.work,
      );
      this._status('forward', status, B);
      const read = (ptr, n) => readOut(this._ag._rt, Float32Array, ptr, n);
      const out = { logits: { data: read(p.logits, B * c.T * c.vocab), shape: [B, c.T, c.vocab] } };
      if (returnWeights) {
        out.weights = Array.from({ length: c.layers }, (_, l) => ({
          data: read(p.weights + l * perWeights * 4, perWeights),
          shape: [B, c.heads, c.T, c.T],
        }));
      }
      if (returnQK) {
        const part = (l, j) => ({ data: read(p.qk + (2 * l + j) * perQK * 4, perQK), shape: [B, c.T, c.dModel] });
        out.q = Array.from({ length: c.layers }, (_, l) => part(l, 0));
        out.k = Array.from({ length: c.layers }, (_, l) => part(l, 1));
      }
      return out;
    });
    return this._ag._done('transformer_forward', { tokens: [B, c.T] }, r);
  }

  _tensors(ptr) {
    const all = readOut(this._ag._rt, Float32Array, ptr, this._floats, { nanFree: true });
    return Object.fromEntries(
      this.layout.map((p) => [p.name, all.slice(p.offset, p.offset + p.shape.reduce((a, b) => a * b, 1))]),
    );
  }

  /** Every parameter by name, a fresh Float32Array each (Array.from makes it JSON-safe). */
  parameters() {
    this._live('parameters');
    const params = this._tensors(this._p.params);
    // JSON.stringify writes a typed array as an object of numbered keys; these write a plain array of
    // numbers (each float32 value exactly: the shortest decimal of a double round-trips), which
    // loadParameters takes back.
    for (const a of Object.values(params)) Object.defineProperty(a, 'toJSON', { value: () => Array.from(a) });
    return params;
  }

  /**
   * Replaces every parameter: `params` holds each name of the layout with as
   * many finite numbers (a typed array or an array), and no other name. Adam's
   * moments and the step count start again from zero.
   */
  loadParameters(params) {
    const m = 'transformer.loadParameters';
    this._live('loadParameters');
    const o = optionsObject(m, params, 'params');
    const names = new Set(this.layout.map((p) => p.name));
    for (const key of Object.keys(o))
      if (!names.has(key)) throw new RangeError(`${m}: params has an unknown parameter '${key.slice(0, 60)}'`);
    const checked = this.layout.map((p) => {
      const n = p.shape.reduce((a, b) => a * b, 1);
      if (!Object.hasOwn(o, p.name)) throw new RangeError(`${m}: params has no parameter '${p.name}' [${p.shape}]`);
      const x = o[p.name];
      if (!(Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView))))
        throw new TypeError(
          `${m}: params['${p.name}'] must be an array of ${n} numbers [${p.shape}]; got ${describeValue(x)}`,
        );
      if (x.length !== n)
        throw new RangeError(`${m}: params['${p.name}'] must hold ${n} numbers (shape [${p.shape}]); got ${x.length}`);
      const f = Float32Array.from(x);
      for (let i = 0; i < n; i++)
        if (!Number.isFinite(f[i]))
          throw new RangeError(`${m}: params['${p.name}'][${i}] must be finite in float32; got ${describeValue(x[i])}`);
      return [p.offset, f];
    });
    const buffer = this._ag._rt.memory().buffer;
    for (const [offset, f] of checked) new Float32Array(buffer, this._p.params + offset * 4, f.length).set(f);
    this._resetOptimizer();
  }

  /** Frees the model's wasm memory; every later call throws an Error. Calling it again does nothing. */
  dispose() {
    if (!this._p) return;
    finalizer.unregister(this._token);
    for (const p of this._pointers) this._ag._rt.module.free(p);
    this._p = null;
    this._pointers = [];
  }
}

// A transformer's methods, like the API's, refuse more arguments than they take (checks.js).
for (const name of ['step', 'gradients', 'evaluate', 'forward', 'parameters', 'loadParameters', 'dispose'])
  Transformer.prototype[name] = countedCall(`transformer.${name}`, Transformer.prototype[name]);

export const transformerMethods = {
  /**
   * A tiny transformer (GPT-2 style pre-norm decoder) on this instance's
   * kernels; see index.d.ts (createTransformer) for the config and the model.
   */
  createTransformer(config) {
    return new Transformer(this, checkConfig(config));
  },
};
