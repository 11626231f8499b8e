// Family "vector" (registry.inc): the geometry of dot products. One method per
// kernel, each checking its arguments (tensor.js), copying in and out
// (heap.js) and calling the variant of its instance (api.js). No arithmetic on
// results happens here. Shapes and errors: index.d.ts.
import { nonZero, sameLength, tensorOf, toTensorRank, toVector } from './tensor.js';
import { shapeError } from './errors.js';

/** Two vectors a, b of the same length n, checked. */
function pair(method, a, b) {
  const x = toVector(method, 'a', a);
  const y = toVector(method, 'b', b, `[n] with n = ${x.length} (the length of a)`);
  sameLength(method, 'a', x, 'b', y);
  return [x, y];
}

/** A kernel (a, b, n) -> number on two checked vectors of length n. */
function scalarOfPair(ag, method, kernel, x, y) {
  const r = ag._buffers(method, { a: { data: x }, b: { data: y } }, (p) => ag._kernel(kernel)(p.a, p.b, x.length));
  return ag._done(kernel, { a: [x.length], b: [y.length] }, r);
}

/** A kernel (a, n) -> number on one checked vector of length n. */
function scalarOfVector(ag, method, kernel, x) {
  const r = ag._buffers(method, { a: { data: x } }, (p) => ag._kernel(kernel)(p.a, x.length));
  return ag._done(kernel, { a: [x.length] }, r);
}

/** A kernel (..., n, out) -> out [n] on named inputs of length n. */
function vectorOf(ag, method, kernel, inputs, call) {
  const n = inputs.a.length;
  const specs = {};
  for (const [name, data] of Object.entries(inputs)) specs[name] = { data };
  specs.out = { length: n };
  const r = ag._buffers(method, specs, (p) => {
    call(ag._kernel(kernel), p, n);
    return tensorOf(ag._read(Float32Array, p.out, n), [n]);
  });
  const args = {};
  for (const name of Object.keys(inputs)) args[name] = [n];
  return ag._done(kernel, args, r);
}

/**
 * The dot_trace record of src/kernels/dot_trace.h, as the bindings describe
 * it (dotTraceLayout): floats per record, the offset of each field and the
 * code of each kind. The kinds' names are the API's (index.d.ts).
 */
const DOT_TRACE_KIND_NAMES = Object.freeze({
  mulAdd: 'multiply-add',
  fold: 'fold',
  swapAdd: 'swap-add',
  laneSum: 'lane-sum',
  merge: 'merge',
  total: 'total',
  scalarBlock: 'block',
});
const traceLayouts = new WeakMap();
function dotTraceLayout(module) {
  let layout = traceLayouts.get(module);
  if (!layout) {
    const raw = JSON.parse(module.dotTraceLayout());
    const kinds = {};
    for (const [key, code] of Object.entries(raw.kinds)) kinds[code] = DOT_TRACE_KIND_NAMES[key];
    layout = { ...raw, kinds };
    traceLayouts.set(module, layout);
  }
  return layout;
}

export const vectorMethods = {
  dot(a, b) {
    const [x, y] = pair('dot', a, b);
    return scalarOfPair(this, 'dot', 'dot', x, y);
  },

  squaredNorm(a) {
    return scalarOfVector(this, 'squaredNorm', 'squared_norm', toVector('squaredNorm', 'a', a));
  },

  norm(a) {
    return scalarOfVector(this, 'norm', 'norm', toVector('norm', 'a', a));
  },

  normalize(a) {
    const x = toVector('normalize', 'a', a);
    nonZero('normalize', 'a', x, 'normalize');
    return vectorOf(this, 'normalize', 'normalize', { a: x }, (fn, p, n) => fn(p.a, n, p.out));
  },

  cosine(a, b) {
    const [x, y] = pair('cosine', a, b);
    nonZero('cosine', 'a', x, 'cosine');
    nonZero('cosine', 'b', y, 'cosine');
    return scalarOfPair(this, 'cosine', 'cosine', x, y);
  },

  angle(a, b) {
    const [x, y] = pair('angle', a, b);
    nonZero('angle', 'a', x, 'angle');
    nonZero('angle', 'b', y, 'angle');
    return scalarOfPair(this, 'angle', 'angle', x, y);
  },

  scalarProjection(a, b) {
    const [x, y] = pair('scalarProjection', a, b);
    nonZero('scalarProjection', 'b', y, 'a projection onto b');
    return scalarOfPair(this, 'scalarProjection', 'scalar_projection', x, y);
  },

  vectorProjection(a, b) {
    const [x, y] = pair('vectorProjection', a, b);
    nonZero('vectorProjection', 'b', y, 'a projection onto b');
    return vectorOf(this, 'vectorProjection', 'vector_projection', { a: x, b: y }, (fn, p, n) =>
      fn(p.a, p.b, n, p.out),
    );
  },

  squaredDistance(a, b) {
    const [x, y] = pair('squaredDistance', a, b);
    return scalarOfPair(this, 'squaredDistance', 'squared_distance', x, y);
  },

  weightedSum(alpha, V) {
    const m = 'weightedSum';
    const w = toVector(m, 'alpha', alpha, '[T]');
    const T = w.length;
    const v = toTensorRank(m, 'V', V, [2], `[T, d] with T = ${T} (the length of alpha)`);
    if (v.shape[0] !== T)
      throw shapeError(m, 'V', v.shape, `[T, d] with T = ${T}`, 'V needs one row per weight in alpha');
    const d = v.shape[1];
    const r = this._buffers(m, { alpha: { data: w }, V: { data: v.data }, y: { length: d } }, (p) => {
      this._kernel('weighted_sum')(p.alpha, p.V, T, d, p.y);
      return tensorOf(this._read(Float32Array, p.y, d), [d]);
    });
    return this._done('weighted_sum', { alpha: [T], V: v.shape }, r);
  },

  /**
   * a . b with every step of this variant's dot recorded (registry.inc:
   * dot_trace; layout in src/kernels/dot_trace.h). `value` equals
   * `dot(a, b)` of the same instance bit for bit.
   */
  dotTrace(a, b) {
    const m = 'dotTrace';
    const [x, y] = pair(m, a, b);
    const n = x.length;
    const fn = this._kernel('dot_trace');
    const count = this._buffers(m, { a: { data: x }, b: { data: y } }, (p) => fn(p.a, p.b, n, 0, 0));
    const L = dotTraceLayout(this._rt.module);
    const W = L.floats;
    const r = this._buffers(
      m,
      { a: { data: x }, b: { data: y }, trace: { shape: [count, W], length: count * W } },
      (p) => {
        fn(p.a, p.b, n, p.trace, count);
        return this._read(Float32Array, p.trace, count * W);
      },
    );
    const steps = [];
    for (let s = 0; s < count; s++) {
      const rec = r.subarray(s * W, (s + 1) * W);
      const lanes = (k) => Array.from(rec.subarray(k, k + 4));
      steps.push({
        kind: L.kinds[rec[L.kind]],
        index: rec[L.index],
        count: rec[L.count],
        x: lanes(L.x),
        y: lanes(L.y),
        z: lanes(L.z),
        w: lanes(L.w),
        value: rec[L.value],
      });
    }
    const result = {
      value: r[(count - 1) * W + L.value],
      variant: this._variantOf('dot_trace'),
      n,
      steps,
      trace: tensorOf(r, [count, W]),
    };
    return this._done('dot_trace', { a: [n], b: [n] }, result, 2);
  },
};
