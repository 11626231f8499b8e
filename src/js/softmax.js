// Family "softmax" (registry.inc): from logits to weights. One method per
// kernel, each checking its arguments (tensor.js), copying in and out
// (heap.js) and calling the variant of its instance (api.js). Shapes and
// errors: index.d.ts.
import { runDeferredCheck } from './checks.js';
import { formatShape, overflowError, shapeError, valueError } from './errors.js';
import {
  broadcastStrides,
  finiteNumber,
  materialize,
  optionsObject,
  tensorOf,
  maskKindOption,
  toMask,
  toTensor,
  toVector,
} from './tensor.js';

/** x [..., n] as rows of n: the tensor, n and the number of rows. */
function rowsOf(method, x, name = 'x') {
  const t = toTensor(method, name, x, '[..., n]', { minRank: 1 });
  const n = t.shape.at(-1);
  return { t, n, rows: t.data.length / n };
}

export const softmaxMethods = {
  exp(x) {
    const t = toTensor('exp', 'x', x, '[...]');
    const n = t.data.length;
    const r = this._buffers('exp', { x: { data: t.data }, y: { length: n } }, (p) => {
      this._kernel('exp')(p.x, n, p.y);
      return tensorOf(this._read(Float32Array, p.y, n), t.shape);
    });
    return this._done('exp', { x: t.shape }, r);
  },

  softmax(x, options) {
    const m = 'softmax';
    // Arguments in argument order: x, then the options object (its keys, then its members).
    const { t, n, rows } = rowsOf(m, x);
    const o = optionsObject(m, options, 'options', ['temperature', 'mask', 'maskKind']);
    const temperature =
      o.temperature === undefined ? 1 : finiteNumber(m, 'options.temperature', o.temperature, { positive: true });
    if (!(Math.fround(temperature) >= 2 ** -126)) {
      throw new RangeError(
        `${m}: options.temperature ${temperature} is below the smallest normal float32 (about 1.2e-38); the kernels compute in float32`,
      );
    }
    let mask = null;
    if (o.mask !== undefined && o.mask !== null) {
      let strides;
      const mk = toMask(
        m,
        'mask',
        o.mask,
        `a shape that broadcasts to x ${formatShape(t.shape)}`,
        'attend',
        o.maskKind,
        (shape) => {
          strides = broadcastStrides(m, 'mask', shape, t.shape, 'the shape of x');
        },
      );
      mask = { shape: mk.shape, data: materialize(mk.data, strides, t.shape) };
    }
    // Without a mask too, a maskKind that is not one is named (after the mask: it says how to read it).
    maskKindOption(m, o.maskKind);
    // x's finiteness is checked by the kernel in its max pass (registry.inc):
    // a non-zero status is either a non-finite x (its own RangeError, from
    // the deferred check) or an overflow. With status 0, y holds no NaN.
    const specs = {
      x: { data: t.data, kernelChecks: true },
      mask: mask && { data: mask.data },
      y: { length: t.data.length },
    };
    const r = this._buffers(m, specs, (p) => {
      const status = this._kernel('softmax')(p.x, p.mask, rows, n, temperature, p.y);
      if (status !== 0) {
        runDeferredCheck(this._rt.module, t.data, p.x);
        // The index is x's (and the mask's, broadcast to x): the entry whose logit left float32.
        throw overflowError(
          m,
          mask ? 'x[] / temperature + mask' : 'x[] / temperature',
          t.shape,
          status - 1,
          `the temperature is ${temperature}: raise options.temperature, or scale x${mask ? ' or the mask' : ''} down`,
        );
      }
      return tensorOf(this._read(Float32Array, p.y, t.data.length, { nanFree: true }), t.shape);
    });
    const args = { x: t.shape };
    if (mask) args.mask = mask.shape;
    return this._done('softmax', args, r);
  },

  softmaxNaive(x) {
    const { t, n, rows } = rowsOf('softmaxNaive', x);
    const r = this._buffers('softmaxNaive', { x: { data: t.data }, y: { length: t.data.length } }, (p) => {
      this._kernel('softmax_naive')(p.x, rows, n, p.y);
      return tensorOf(this._read(Float32Array, p.y, t.data.length), t.shape);
    });
    return this._done('softmax_naive', { x: t.shape }, r);
  },

  logSumExp(x) {
    const { t, n, rows } = rowsOf('logSumExp', x);
    const r = this._buffers('logSumExp', { x: { data: t.data }, out: { length: rows } }, (p) => {
      this._kernel('log_sum_exp')(p.x, rows, n, p.out);
      const out = this._read(Float32Array, p.out, rows);
      return t.shape.length === 1 ? out[0] : tensorOf(out, t.shape.slice(0, -1));
    });
    return this._done('log_sum_exp', { x: t.shape }, r);
  },

  entropy(p) {
    const m = 'entropy';
    const x = toVector(m, 'p', p, '[n]');
    let sum = 0;
    for (let i = 0; i < x.length; i++) {
      if (x[i] < 0) throw valueError(m, 'p', [x.length], i, x[i], 'p must be a distribution (every p_i >= 0)');
      sum += x[i];
    }
    // A distribution sums to 1, up to the rounding of n float32 weights (n 2^-24 each way, 4x for the
    // producer's own summation order) and 1e-5. NaN entries fail here too (the kernel would give NaN).
    const tolerance = 1e-5 + x.length * 2 ** -22;
    if (!(Math.abs(sum - 1) <= tolerance)) {
      throw new RangeError(
        `${m}: p [${x.length}] must be a distribution, but its entries sum to ${sum} (expected 1 within ${tolerance.toPrecision(3)}); divide by the sum to normalise it`,
      );
    }
    const r = this._buffers(m, { p: { data: x } }, (ptr) => this._kernel('entropy_bits')(ptr.p, x.length));
    return this._done('entropy_bits', { p: [x.length] }, r);
  },

  softmaxJacobian(alpha) {
    const x = toVector('softmaxJacobian', 'alpha', alpha, '[n]');
    const n = x.length;
    const specs = { alpha: { data: x }, J: { shape: [n, n], length: n * n } };
    const r = this._buffers('softmaxJacobian', specs, (p) => {
      this._kernel('softmax_jacobian')(p.alpha, n, p.J);
      return tensorOf(this._read(Float32Array, p.J, n * n), [n, n]);
    });
    return this._done('softmax_jacobian', { alpha: [n] }, r);
  },

  /**
   * The softmax's backward (registry.inc: softmax_backward): dLogits = y *
   * (dy - sum(y * dy)) row-wise, the softmax Jacobian diag(y) - y y^T times
   * dWeights without forming it. Shapes and errors: index.d.ts.
   */
  softmaxBackward(weights, dWeights) {
    const m = 'softmaxBackward';
    const { t, n, rows } = rowsOf(m, weights, 'weights');
    // Each row a distribution: weights >= 0 summing to 1 (as entropy checks p); checked before dWeights is
    // read, so that bad weights are named first (argument order).
    const tolerance = 1e-5 + n * 2 ** -22;
    for (let r = 0; r < rows; r++) {
      let sum = 0;
      for (let i = r * n; i < (r + 1) * n; i++) {
        if (t.data[i] < 0)
          throw valueError(m, 'weights', t.shape, i, t.data[i], 'weights must be softmax outputs (every weight >= 0)');
        sum += t.data[i];
      }
      if (!(Math.abs(sum - 1) <= tolerance))
        throw new RangeError(
          `${m}: row ${r} of weights ${formatShape(t.shape)} sums to ${sum}, not 1 (within ${tolerance.toPrecision(3)}); weights must be softmax outputs, each row a distribution`,
        );
    }
    const expected = `the shape of weights ${formatShape(t.shape)}`;
    const d = toTensor(m, 'dWeights', dWeights, expected, { minRank: 1 });
    if (d.shape.join() !== t.shape.join()) throw shapeError(m, 'dWeights', d.shape, expected);
    const specs = { weights: { data: t.data }, dWeights: { data: d.data }, dLogits: { length: t.data.length } };
    const r = this._buffers(m, specs, (p) => {
      this._kernel('softmax_backward')(p.weights, p.dWeights, rows, n, p.dLogits);
      return tensorOf(this._read(Float32Array, p.dLogits, t.data.length), t.shape);
    });
    return this._done('softmax_backward', { weights: t.shape, dWeights: d.shape }, r);
  },
};
