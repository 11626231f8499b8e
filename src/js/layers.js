// Family "layers" (registry.inc): layer normalisation and its gradient, the
// softmax cross-entropy loss and its gradient, the Adam update. One method
// per kernel, each checking its arguments (tensor.js), copying in and out
// (heap.js) and calling the variant of its instance (api.js); no method
// changes its arguments. Shapes and errors: index.d.ts.
import {
  describeValue,
  entryError,
  formatShape,
  missingError,
  overflowError,
  shapeError,
  valueError,
} from './errors.js';
import { finiteNumber, optionsObject, tensorOf, toTensor, toTensorRank } from './tensor.js';

const F32_MIN_SUBNORMAL = 2 ** -149;

/** x [..., n] as rows of n: the tensor, n, the number of rows and the shape of one value per row. */
function rowsOf(method, name, x, expected) {
  const t = toTensor(method, name, x, expected, { minRank: 1 });
  const n = t.shape.at(-1);
  const lead = t.shape.length === 1 ? [1] : t.shape.slice(0, -1);
  return { t, n, rows: t.data.length / n, lead };
}

/** An optional tensor of `count` elements (null when absent), any shape holding exactly that many. */
function optionalOf(method, name, x, count, expected) {
  if (x === undefined || x === null) return null;
  const t = toTensor(method, name, x, expected);
  if (t.data.length !== count)
    throw shapeError(method, name, t.shape, expected, `${count} element${count === 1 ? ' was' : 's were'} expected`);
  return t;
}

/**
 * An optional gamma or beta: one value per feature of the last axis of x, a
 * vector [n] (null when absent). Another rank is a RangeError, also when it
 * holds n values ([1, n]): the kernel scales feature i by gamma_i, and has no
 * per-row or broadcast form.
 */
function featureVector(method, name, x, n) {
  if (x === undefined || x === null) return null;
  const expected = `[${n}] (n = ${n}, the last axis of x)`;
  const t = toTensorRank(method, name, x, [1], expected);
  if (t.shape[0] !== n) throw shapeError(method, name, t.shape, expected);
  return t;
}

/** eps > 0, and not 0 in float32. */
function epsOption(method, name, x, dflt) {
  if (x === undefined) return dflt;
  const eps = finiteNumber(method, name, x, { positive: true });
  if (!(Math.fround(eps) >= F32_MIN_SUBNORMAL)) {
    throw new RangeError(`${method}: ${name} is ${eps}, which is 0 in float32; the kernels compute in float32`);
  }
  return eps;
}

/** The index of the first entry that is not finite (an overflow of float32), or -1. */
function firstInfinite(data) {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) return i;
  return -1;
}

/**
 * Throws the overflow RangeError at the first entry of a result that is not
 * finite: with finite inputs, an infinity here comes from an intermediate
 * value beyond float32 (a sum of squares, a step size), not from an exact
 * result, so it is never handed out as a number.
 */
function assertFinite(method, name, t) {
  const bad = firstInfinite(t.data);
  if (bad >= 0) throw overflowError(method, name, t.shape, bad);
  return t;
}

/** Targets [rows]: an Int32Array or an array of integers, each in [0, vocab) or -1. */
function targetsOf(method, targets, rows, vocab) {
  const expected = `[${rows}] (one target per row of logits)`;
  if (!(targets instanceof Int32Array || Array.isArray(targets))) {
    throw new TypeError(
      `${method}: targets must be an Int32Array or an array of integers of shape ${expected}; got ${describeValue(targets)}`,
    );
  }
  if (targets.length !== rows) throw shapeError(method, 'targets', [targets.length], expected);
  const out = new Int32Array(rows);
  let count = 0;
  for (let r = 0; r < rows; r++) {
    const t = targets[r];
    if (typeof t !== 'number')
      throw entryError(method, 'targets', [rows], r, 'an integer', t, { hole: !(r in targets) });
    if (!Number.isInteger(t) || t < -1 || t >= vocab) {
      throw valueError(
        method,
        'targets',
        [rows],
        r,
        t,
        `a target is an integer in [0, ${vocab}) (vocab = ${vocab}), or -1 to ignore the row`,
      );
    }
    out[r] = t;
    if (t >= 0) count++;
  }
  return { targets: out, count };
}

export const layersMethods = {
  layerNorm(x, options) {
    const m = 'layerNorm';
    const { t, n, rows, lead } = rowsOf(m, 'x', x, '[rows, n] or [n]');
    const o = optionsObject(m, options, 'options', ['gamma', 'beta', 'eps']);
    const gamma = featureVector(m, 'options.gamma', o.gamma, n);
    const beta = featureVector(m, 'options.beta', o.beta, n);
    const eps = epsOption(m, 'options.eps', o.eps, 1e-5);
    const specs = {
      x: { data: t.data },
      gamma: gamma && { name: 'options.gamma', data: gamma.data },
      beta: beta && { name: 'options.beta', data: beta.data },
      y: { length: t.data.length },
      mean: { length: rows },
      rstd: { length: rows },
    };
    const r = this._buffers(m, specs, (p) => {
      this._kernel('layer_norm')(p.x, p.gamma, p.beta, rows, n, eps, p.y, p.mean, p.rstd);
      const rstd = tensorOf(this._read(Float32Array, p.rstd, rows), lead);
      // rstd = 1 / sqrt(var + eps) is 0 only when the sum of squares overflowed.
      const zero = rstd.data.indexOf(0);
      if (zero >= 0) throw overflowError(m, 'the variance of x', lead, zero);
      return {
        y: assertFinite(m, 'y', tensorOf(this._read(Float32Array, p.y, t.data.length), t.shape)),
        mean: assertFinite(m, 'the mean of x', tensorOf(this._read(Float32Array, p.mean, rows), lead)),
        rstd,
      };
    });
    const args = { x: t.shape };
    if (gamma) args.gamma = gamma.shape;
    if (beta) args.beta = beta.shape;
    return this._done('layer_norm', args, r);
  },

  layerNormBackward(dy, x, options) {
    const m = 'layerNormBackward';
    // Read in argument order, dy first, so that of two bad arguments dy is named; x's shape is judged
    // against dy's (an argument against the ones before it), and the options object comes last.
    const g = toTensor(m, 'dy', dy, '[rows, n] or [n]', { minRank: 1 });
    const same = `${formatShape(g.shape)} (the shape of dy)`;
    const { t, n, rows, lead } = rowsOf(m, 'x', x, same);
    if (g.shape.length !== t.shape.length || g.shape.some((d, i) => d !== t.shape[i])) {
      throw shapeError(m, 'x', t.shape, same, 'x and dy have the same shape');
    }
    const o = optionsObject(m, options, 'options', ['gamma', 'mean', 'rstd', 'eps']);
    const gamma = featureVector(m, 'options.gamma', o.gamma, n);
    const rowsExpected = `${formatShape(lead)} (one value per row of x)`;
    let mean = optionalOf(m, 'options.mean', o.mean, rows, rowsExpected);
    let rstd = optionalOf(m, 'options.rstd', o.rstd, rows, rowsExpected);
    if (!mean !== !rstd) {
      throw new RangeError(
        `${m}: options.mean and options.rstd go together (layerNorm's outputs); give both or neither`,
      );
    }
    const eps = epsOption(m, 'options.eps', o.eps, 1e-5);
    if (rstd) {
      for (let i = 0; i < rows; i++) {
        if (!(rstd.data[i] > 0))
          throw valueError(m, 'options.rstd', rstd.shape, i, rstd.data[i], 'rstd = 1 / sqrt(var + eps) is > 0');
      }
    }
    if (!mean) {
      // Recomputed as layerNorm computes them (same kernel, same eps).
      const stats = this.layerNorm(t, { eps, gamma: gamma ?? undefined });
      mean = stats.mean;
      rstd = stats.rstd;
    }
    const specs = {
      dy: { data: g.data },
      x: { data: t.data },
      gamma: gamma && { name: 'options.gamma', data: gamma.data },
      mean: { name: 'options.mean', data: mean.data },
      rstd: { name: 'options.rstd', data: rstd.data },
      dx: { length: t.data.length },
      dgamma: { length: n },
      dbeta: { length: n },
    };
    const r = this._buffers(m, specs, (p) => {
      this._kernel('layer_norm_backward')(p.dy, p.x, p.gamma, p.mean, p.rstd, rows, n, p.dx, p.dgamma, p.dbeta);
      return {
        dx: assertFinite(m, 'dx', tensorOf(this._read(Float32Array, p.dx, t.data.length), t.shape)),
        dGamma: assertFinite(m, 'dGamma', tensorOf(this._read(Float32Array, p.dgamma, n), [n])),
        dBeta: assertFinite(m, 'dBeta', tensorOf(this._read(Float32Array, p.dbeta, n), [n])),
      };
    });
    return this._done('layer_norm_backward', { dy: g.shape, x: t.shape }, r);
  },

  crossEntropy(logits, targets, options) {
    const m = 'crossEntropy';
    const { t, n: vocab, rows, lead } = rowsOf(m, 'logits', logits, '[rows, vocab] or [vocab]');
    const { targets: tg, count } = targetsOf(m, targets, rows, vocab);
    const o = optionsObject(m, options, 'options', ['gradScale']);
    const gradScale =
      o.gradScale === undefined ? (count > 0 ? 1 / count : 1) : finiteNumber(m, 'options.gradScale', o.gradScale);
    const specs = {
      logits: { data: t.data },
      targets: { data: tg },
      losses: { length: rows },
      dlogits: { length: t.data.length },
    };
    const r = this._buffers(m, specs, (p) => {
      const scored = this._kernel('cross_entropy')(p.logits, p.targets, rows, vocab, gradScale, p.losses, p.dlogits);
      const losses = this._read(Float32Array, p.losses, rows);
      const bad = firstInfinite(losses);
      if (bad >= 0) throw overflowError(m, 'the loss log sum exp(logits - max) + (max - logits[t])', lead, bad);
      let sum = 0;
      for (let i = 0; i < rows; i++) sum += losses[i];
      return {
        loss: scored > 0 ? sum / scored : 0,
        losses: tensorOf(losses, lead),
        dLogits: assertFinite(m, 'dLogits', tensorOf(this._read(Float32Array, p.dlogits, t.data.length), t.shape)),
        count: scored,
      };
    });
    return this._done('cross_entropy', { logits: t.shape, targets: [rows] }, r);
  },

  adamUpdate(param, grad, state, options) {
    const m = 'adamUpdate';
    const p = toTensor(m, 'param', param, '[...]');
    const n = p.data.length;
    const same = `${formatShape(p.shape)} (the shape of param)`;
    const g = toTensor(m, 'grad', grad, same);
    if (g.data.length !== n || g.shape.length !== p.shape.length || g.shape.some((d, i) => d !== p.shape[i])) {
      throw shapeError(m, 'grad', g.shape, same);
    }
    const st = optionsObject(m, state, 'state', ['m', 'v']);
    const mom = optionalOf(m, 'state.m', st.m, n, same);
    const vel = optionalOf(m, 'state.v', st.v, n, same);
    if (!mom !== !vel)
      throw new RangeError(`${m}: state.m and state.v go together; give both, or neither for the first step`);
    if (vel) {
      for (let i = 0; i < n; i++) {
        if (!(vel.data[i] >= 0))
          throw valueError(m, 'state.v', vel.shape, i, vel.data[i], 'v, a mean of squares, is >= 0');
      }
    }
    const o = optionsObject(m, options, 'options', ['lr', 'step', 'beta1', 'beta2', 'eps', 'gradScale']);
    if (o.lr === undefined) throw missingError(m, 'options.lr (the learning rate)', 'a number >= 0');
    const lr = finiteNumber(m, 'options.lr', o.lr);
    if (lr < 0) throw new RangeError(`${m}: options.lr must be >= 0; got ${lr}`);
    const step = o.step;
    if (step === undefined)
      throw missingError(m, 'options.step (the 1-based step count)', 'an integer from 1 to 2147483647');
    if (typeof step !== 'number' || !Number.isInteger(step)) {
      throw new TypeError(`${m}: options.step (the 1-based step count) must be an integer; got ${describeValue(step)}`);
    }
    if (step < 1 || step > 2147483647)
      throw new RangeError(`${m}: options.step must be between 1 and 2147483647; got ${step}`);
    const beta = (name, x, dflt) => {
      if (x === undefined) return dflt;
      const b = finiteNumber(m, name, x);
      if (!(b >= 0 && Math.fround(b) < 1)) throw new RangeError(`${m}: ${name} must be in [0, 1) in float32; got ${b}`);
      return b;
    };
    const beta1 = beta('options.beta1', o.beta1, 0.9);
    const beta2 = beta('options.beta2', o.beta2, 0.999);
    const eps = epsOption(m, 'options.eps', o.eps, 1e-8);
    const gradScale = o.gradScale === undefined ? 1 : finiteNumber(m, 'options.gradScale', o.gradScale);
    // Updated in place on the wasm heap: the arguments themselves are not changed.
    const specs = {
      param: { data: p.data },
      grad: { data: g.data },
      m: { name: 'state.m', data: mom ? mom.data : new Float32Array(n) },
      v: { name: 'state.v', data: vel ? vel.data : new Float32Array(n) },
    };
    const r = this._buffers(m, specs, (ptr) => {
      this._kernel('adam_update')(ptr.param, ptr.grad, ptr.m, ptr.v, n, lr, beta1, beta2, eps, gradScale, step);
      const v = assertFinite(
        m,
        'v = b2 v + (1 - b2) (gradScale grad)^2',
        tensorOf(this._read(Float32Array, ptr.v, n), p.shape),
      );
      return {
        param: assertFinite(m, 'param', tensorOf(this._read(Float32Array, ptr.param, n), p.shape)),
        m: assertFinite(m, 'm', tensorOf(this._read(Float32Array, ptr.m, n), p.shape)),
        v,
      };
    });
    return this._done('adam_update', { param: p.shape, grad: g.shape }, r);
  },
};
