// Which argument a bad-input error names when more than one argument holds a
// non-finite value: the first in the documented argument order, whatever
// form each argument is given in (a Float32Array's values are checked in
// wasm, after the later arguments were read; the others in JS, while they are
// read), and also when one Float32Array is passed as several arguments.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, thrownBy, warmInstance } from './helpers.mjs';
import { asTensor, indexText } from './property-values.mjs';

/** The forms of a tensor argument: {data, shape} with Float32Array, Float64Array or number[] data, or nested arrays. */
const FORMS = ['f32', 'f64', 'array', 'nested'];

/** Finite values of no special pattern (never only 0s and 1s, which a mask would refuse as ambiguous). */
const plain = (n) => Array.from({ length: n }, (_, i) => 0.25 * ((i * 7) % 9) - 1);
/** Rows of 3 weights that sum to 1, for softmaxBackward's weights. */
const distribution = (n) => Array.from({ length: n }, (_, i) => [0.25, 0.25, 0.5][i % 3]);
/** Non-negative values, for Adam's v. */
const squares = (n) => plain(n).map((x) => x * x);

/**
 * Every method that takes two or more arrays, each array as [its name in
 * messages, its shape, its good values], in the documented argument order
 * (options after the positional arguments, in the order index.d.ts lists
 * them), and the call made from the arrays in that order.
 */
/** Q, K and V of an attention call: Tq = 2, Tk = 3, d_k = 4, d_v = 2. */
const QKV = [
  ['Q', [2, 4]],
  ['K', [3, 4]],
  ['V', [3, 2]],
];

const METHODS = [
  ...['dot', 'cosine', 'angle', 'scalarProjection', 'vectorProjection', 'squaredDistance', 'dotTrace'].map(
    (method) => ({
      method,
      args: [
        ['a', [3]],
        ['b', [3]],
      ],
      call: (ag, [a, b]) => ag[method](a, b),
    }),
  ),
  {
    method: 'weightedSum',
    args: [
      ['alpha', [3]],
      ['V', [3, 2]],
    ],
    call: (ag, [alpha, V]) => ag.weightedSum(alpha, V),
  },
  {
    method: 'matmul',
    args: [
      ['A', [2, 3]],
      ['B', [3, 2]],
    ],
    call: (ag, [A, B]) => ag.matmul(A, B),
  },
  {
    method: 'attention',
    args: [...QKV, ['mask', [2, 3]]],
    call: (ag, [Q, K, V, mask]) => ag.attention(Q, K, V, { mask }),
  },
  {
    method: 'attention',
    args: [...QKV, ['options.pastKey', [2, 4]], ['options.pastValue', [2, 2]]],
    call: (ag, [Q, K, V, pastKey, pastValue]) => ag.attention(Q, K, V, { pastKey, pastValue, causal: true }),
  },
  {
    method: 'attentionBackward',
    args: [...QKV, ['dOutput', [2, 2]]],
    call: (ag, [Q, K, V, dOutput]) => ag.attentionBackward(Q, K, V, dOutput),
  },
  {
    method: 'attentionTrace',
    args: QKV,
    call: (ag, [Q, K, V]) => ag.attentionTrace(Q, K, V),
  },
  {
    method: 'multiHeadAttention',
    args: [
      ['query', [2, 4]],
      ['key', [3, 4]],
      ['value', [3, 4]],
      ...['wQ', 'wK', 'wV', 'wO'].map((w) => [w, [4, 4]]),
      ...['bQ', 'bK', 'bV', 'bO'].map((b) => [b, [4]]),
    ],
    call: (ag, [query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO]) =>
      ag.multiHeadAttention({ query, key, value }, { wQ, wK, wV, wO, bQ, bK, bV, bO }, { numHeads: 2 }),
  },
  {
    method: 'softmax',
    args: [
      ['x', [2, 3]],
      ['mask', [2, 3]],
    ],
    call: (ag, [x, mask]) => ag.softmax(x, { mask }),
  },
  {
    method: 'softmaxBackward',
    args: [
      ['weights', [2, 3], distribution],
      ['dWeights', [2, 3]],
    ],
    call: (ag, [weights, dWeights]) => ag.softmaxBackward(weights, dWeights),
  },
  {
    method: 'layerNorm',
    args: [
      ['x', [2, 3]],
      ['options.gamma', [3]],
      ['options.beta', [3]],
    ],
    call: (ag, [x, gamma, beta]) => ag.layerNorm(x, { gamma, beta }),
  },
  {
    method: 'layerNormBackward',
    args: [
      ['dy', [2, 3]],
      ['x', [2, 3]],
      ['options.gamma', [3]],
    ],
    call: (ag, [dy, x, gamma]) => ag.layerNormBackward(dy, x, { gamma }),
  },
  {
    method: 'adamUpdate',
    args: [
      ['param', [3]],
      ['grad', [3]],
      ['state.m', [3]],
      ['state.v', [3], squares],
    ],
    call: (ag, [param, grad, m, v]) => ag.adamUpdate(param, grad, { m, v }, { lr: 0.1, step: 1 }),
  },
];

/** Where the bad value goes in each bad argument, and what it is. */
const AT = 1;

/** The arguments of `spec`, those in `bad` holding NaN at AT, each in forms[k] (good ones as Float32Array). */
function argumentsOf(spec, bad) {
  return spec.args.map(([, shape, good = plain], k) => {
    const values = good(shape.reduce((a, b) => a * b, 1));
    if (!(k in bad)) return asTensor(values, shape, 'f32');
    values[AT] = NaN;
    return asTensor(values, shape, bad[k]);
  });
}

/** The start of the message that names argument k of `spec` and its NaN. */
function naming(spec, k) {
  const [name, shape] = spec.args[k];
  return `${spec.method}: ${name}${indexText(shape, AT)} is NaN`;
}

/** [title, call on one Float32Array X of 4 values (X[1] NaN), the start of the message]. */
const ALIASED = (() => {
  const T = (X) => ({ data: X, shape: [2, 2] });
  const G = { data: Float32Array.of(0.5, -1, 0.25, 2), shape: [2, 2] };
  const pair = ['dot', 'cosine', 'angle', 'scalarProjection', 'vectorProjection', 'squaredDistance', 'dotTrace'];
  return [
    ...pair.map((m) => [`${m}(x, x)`, (ag, X) => ag[m](X, X), `${m}: a[1] is NaN`]),
    [
      'weightedSum(x, x as [4, 1])',
      (ag, X) => ag.weightedSum(X, { data: X, shape: [4, 1] }),
      'weightedSum: alpha[1] is NaN',
    ],
    ['matmul(A, A)', (ag, X) => ag.matmul(T(X), T(X)), 'matmul: A[0, 1] is NaN'],
    ['attention(X, X, X)', (ag, X) => ag.attention(T(X), T(X), T(X)), 'attention: Q[0, 1] is NaN'],
    [
      'attention(X, X, X), materialized',
      (ag, X) => ag.attention(T(X), T(X), T(X), { returnWeights: true }),
      'attention: Q[0, 1] is NaN',
    ],
    [
      'attention(X, X, X) with a window',
      (ag, X) => ag.attention(T(X), T(X), T(X), { window: 1 }),
      'attention: Q[0, 1] is NaN',
    ],
    ['attention(G, X, X)', (ag, X) => ag.attention(G, T(X), T(X)), 'attention: K[0, 1] is NaN'],
    [
      'attention(G, G, X) with X as the cache',
      (ag, X) => ag.attention(G, G, T(X), { pastKey: T(X), pastValue: T(X) }),
      'attention: V[0, 1] is NaN',
    ],
    [
      'attention(G, G, G) with X as both halves of the cache',
      (ag, X) => ag.attention(G, G, G, { pastKey: T(X), pastValue: T(X) }),
      'attention: options.pastKey[0, 1] is NaN',
    ],
    [
      'attentionBackward(X, X, X, X)',
      (ag, X) => ag.attentionBackward(T(X), T(X), T(X), T(X)),
      'attentionBackward: Q[0, 1] is NaN',
    ],
    [
      'attentionBackward(G, X, G, X)',
      (ag, X) => ag.attentionBackward(G, T(X), G, T(X)),
      'attentionBackward: K[0, 1] is NaN',
    ],
    ['attentionTrace(X, X, X)', (ag, X) => ag.attentionTrace(T(X), T(X), T(X)), 'attentionTrace: Q[0, 1] is NaN'],
    [
      'multiHeadAttention with X everywhere',
      (ag, X) =>
        ag.multiHeadAttention(
          { query: T(X), key: T(X), value: T(X) },
          { wQ: T(X), wK: T(X), wV: T(X), wO: T(X) },
          { numHeads: 1 },
        ),
      'multiHeadAttention: query[0, 1] is NaN',
    ],
    [
      'multiHeadAttention with X as wK, wV and wO',
      (ag, X) => ag.multiHeadAttention({ query: G }, { wQ: G, wK: T(X), wV: T(X), wO: T(X) }, { numHeads: 1 }),
      'multiHeadAttention: wK[0, 1] is NaN',
    ],
    ['layerNormBackward(X, X)', (ag, X) => ag.layerNormBackward(T(X), T(X)), 'layerNormBackward: dy[0, 1] is NaN'],
    [
      'adamUpdate(X, X) with X as state.m',
      (ag, X) => ag.adamUpdate(T(X), T(X), { m: T(X), v: G }, { lr: 0.1, step: 1 }),
      'adamUpdate: param[0, 1] is NaN',
    ],
  ];
})();

describe.each(CONFIGS)('the first bad argument is named: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test.each(ALIASED)('one Float32Array as several arguments: %s', (title, call, start) => {
    const X = Float32Array.of(0.5, NaN, 0.25, 2);
    const e = thrownBy(() => call(ag, X));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message.slice(0, start.length)).toBe(start);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  // softmaxBackward's weights must be a distribution: a row that is not one is named before dWeights is read.
  test.each([
    [
      'weights with a negative entry, dWeights of the wrong shape',
      [-0.5, 1.5],
      [0, 0, 0],
      'softmaxBackward: weights[0] is -0.5',
    ],
    ['weights that sum to 2, dWeights with a NaN', [1, 1], [NaN, 0], 'softmaxBackward: row 0 of weights [2] sums to 2'],
  ])('softmaxBackward: bad weights are named before dWeights: %s', (title, weights, dWeights, start) => {
    for (const form of [(x) => x, (x) => Float32Array.from(x)]) {
      const e = thrownBy(() => ag.softmaxBackward(form(weights), form(dWeights)));
      expect(e).toBeInstanceOf(RangeError);
      expect(e.message.slice(0, start.length)).toBe(start);
    }
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test.each(METHODS.map((spec) => [`${spec.method}(${spec.args.map(([n]) => n).join(', ')})`, spec]))(
    'two bad arguments in any two forms: %s',
    (title, spec) => {
      let calls = 0;
      for (let i = 0; i < spec.args.length; i++) {
        for (let j = i + 1; j < spec.args.length; j++) {
          for (const first of FORMS) {
            for (const second of FORMS) {
              const e = thrownBy(() => spec.call(ag, argumentsOf(spec, { [i]: first, [j]: second })));
              const context = `${spec.args[i][0]} as ${first}, ${spec.args[j][0]} as ${second}`;
              expect([context, e && e.constructor.name]).toEqual([context, 'RangeError']);
              expect([context, e.message.slice(0, naming(spec, i).length)]).toEqual([context, naming(spec, i)]);
              calls++;
            }
          }
        }
      }
      expect(calls).toBe(((spec.args.length * (spec.args.length - 1)) / 2) * FORMS.length ** 2);
      // The instance is intact: nothing left allocated, and the next call is right.
      expect(ag.heapAllocatedBytes()).toBe(heapBefore);
      expect(ag.dot([3, 4], [4, 3])).toBe(24);
    },
  );
});

// The options object is the last argument, and an argument's shape comes before its values and those
// of later arguments (index.d.ts, "Which error, when there are several").

/** A tensor of `shape` with plain values, NaN at AT when `nan`, in `form`. */
const make = (shape, form = 'f32', { nan = false, good = plain } = {}) => {
  const values = good(shape.reduce((a, b) => a * b, 1));
  if (nan) values[AT] = NaN;
  return asTensor(values, shape, form);
};

/** Options objects that are wrong as a whole: named after every positional argument. */
const BAD_OPTIONS = [
  ['an unknown key', { temprature: 1 }],
  ['not an object', 5],
  ['an array', [1]],
];

/**
 * Methods taking options, each with the positional argument given NaN at AT ([name, shape]) and the
 * call with that argument and the options. The other arguments are good.
 */
const WITH_OPTIONS = [
  ['softmax', ['x', [2, 3]], (ag, x, o) => ag.softmax(x, o)],
  ['matmul', ['B', [3, 2]], (ag, B, o) => ag.matmul(make([2, 3]), B, o)],
  ['rope', ['x', [2, 4]], (ag, x, o) => ag.rope(x, o)],
  ['layerNorm', ['x', [2, 3]], (ag, x, o) => ag.layerNorm(x, o)],
  ['layerNormBackward', ['x', [2, 3]], (ag, x, o) => ag.layerNormBackward(make([2, 3]), x, o)],
  ['crossEntropy', ['logits', [2, 3]], (ag, x, o) => ag.crossEntropy(x, [0, 2], o)],
  ['adamUpdate', ['grad', [3]], (ag, g, o) => ag.adamUpdate(make([3]), g, {}, o)],
  ['attention', ['V', [3, 2]], (ag, V, o) => ag.attention(make([2, 4]), make([3, 4]), V, o)],
  ['attentionTrace', ['V', [3, 2]], (ag, V, o) => ag.attentionTrace(make([2, 4]), make([3, 4]), V, o)],
  [
    'attentionBackward',
    ['dOutput', [2, 2]],
    (ag, dY, o) => ag.attentionBackward(make([2, 4]), make([3, 4]), make([3, 2]), dY, o),
  ],
  [
    'multiHeadAttention',
    ['wO', [4, 4]],
    (ag, wO, o) =>
      ag.multiHeadAttention({ query: make([2, 4]) }, { wQ: make([4, 4]), wK: make([4, 4]), wV: make([4, 4]), wO }, o),
  ],
];

/** [title, call given the NaN argument in a form, the start of the message]: a shape error before a NaN. */
const SHAPE_FIRST = [
  // An argument with both a wrong shape and a NaN: its shape is named.
  [
    'matmul: B of the wrong K, with a NaN',
    (ag, f) => ag.matmul(make([2, 3]), make([2, 2], f, { nan: true })),
    'matmul: B has shape [2, 2]',
  ],
  [
    'attention: K of the wrong d_k, with a NaN',
    (ag, f) => ag.attention(make([2, 4]), make([3, 5], f, { nan: true }), make([3, 2])),
    'attention: K has shape [3, 5]',
  ],
  [
    'attentionBackward: dOutput of the wrong shape, with a NaN',
    (ag, f) => ag.attentionBackward(make([2, 4]), make([3, 4]), make([3, 2]), make([2, 3], f, { nan: true })),
    'attentionBackward: dOutput has shape [2, 3]',
  ],
  [
    'layerNorm: gamma of the wrong length, with a NaN',
    (ag, f) => ag.layerNorm(make([2, 3]), { gamma: make([4], f, { nan: true }) }),
    'layerNorm: options.gamma has shape [4]',
  ],
  [
    'softmax: a mask that does not broadcast, with a NaN',
    (ag, f) => ag.softmax(make([2, 3]), { mask: make([2, 2], f === 'f32' ? 'f64' : f, { nan: true }) }),
    'softmax: mask has shape [2, 2]',
  ],
  // A shape error of an earlier argument (judged against the ones before it) before a later NaN.
  [
    'layerNormBackward: x of another shape than dy, dy fine, x with a NaN',
    (ag, f) => ag.layerNormBackward(make([1, 2]), make([1, 3], f, { nan: true })),
    'layerNormBackward: x has shape [1, 3] but [1, 2] (the shape of dy) was expected',
  ],
  [
    'layerNormBackward: x of another shape than dy, gamma with a NaN',
    (ag, f) => ag.layerNormBackward(make([2, 3]), make([2, 2]), { gamma: make([2], f, { nan: true }) }),
    'layerNormBackward: x has shape [2, 2]',
  ],
  [
    'attention: K of the wrong d_k, V with a NaN',
    (ag, f) => ag.attention(make([2, 4]), make([3, 5]), make([3, 2], f, { nan: true })),
    'attention: K has shape [3, 5]',
  ],
  [
    'adamUpdate: grad of the wrong shape, state.m with a NaN',
    (ag, f) =>
      ag.adamUpdate(
        make([3]),
        make([2]),
        { m: make([3], f, { nan: true }), v: make([3], 'f32', { good: squares }) },
        { lr: 0.1, step: 1 },
      ),
    'adamUpdate: grad has shape [2]',
  ],
  [
    'multiHeadAttention: key of another d_model, wQ with a NaN',
    (ag, f) =>
      ag.multiHeadAttention(
        { query: make([2, 4]), key: make([3, 2]) },
        { wQ: make([4, 4], f, { nan: true }), wK: make([4, 4]), wV: make([4, 4]), wO: make([4, 4]) },
        { numHeads: 2 },
      ),
    'multiHeadAttention: key has shape [3, 2]',
  ],
];

/** Bad numHeads: each loses to a NaN in a weight, which comes before the options. */
const BAD_HEADS = [
  ['missing', {}],
  ['a string', { numHeads: '2' }],
  ['not dividing d_model', { numHeads: 3 }],
  ['kvHeads not dividing it', { numHeads: 2, kvHeads: 3 }],
];

describe.each(CONFIGS)('options last, shapes before values: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test('the example: softmax([NaN, 1], { temprature: 1 }) names x[0]', () => {
    const e = thrownBy(() => ag.softmax([NaN, 1], { temprature: 1 }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message.startsWith('softmax: x[0] is NaN')).toBe(true);
  });

  test.each(WITH_OPTIONS)(
    '%s: a NaN in a positional argument comes before a bad options object',
    (method, [name, shape], call) => {
      for (const form of FORMS) {
        for (const [what, options] of BAD_OPTIONS) {
          const e = thrownBy(() => call(ag, make(shape, form, { nan: true }), options));
          const context = `${name} as ${form}, options ${what}`;
          expect([context, e && e.constructor.name]).toEqual([context, 'RangeError']);
          const start = `${method}: ${name}${indexText(shape, AT)} is NaN`;
          expect([context, e.message.slice(0, start.length)]).toEqual([context, start]);
        }
        // The same options are refused when the arguments are good (the test above is not vacuous).
        expect(thrownBy(() => call(ag, make(shape, form), BAD_OPTIONS[0][1]))).toBeInstanceOf(TypeError);
      }
      expect(ag.heapAllocatedBytes()).toBe(heapBefore);
    },
  );

  test('attentionBackward: a NaN in Q comes before a refused option (softcap)', () => {
    for (const form of FORMS) {
      const e = thrownBy(() =>
        ag.attentionBackward(make([2, 4], form, { nan: true }), make([3, 4]), make([3, 2]), make([2, 2]), {
          softcap: 1,
        }),
      );
      expect([form, e && e.message.slice(0, 'attentionBackward: Q[0, 1] is NaN'.length)]).toEqual([
        form,
        'attentionBackward: Q[0, 1] is NaN',
      ]);
    }
    const refused = thrownBy(() =>
      ag.attentionBackward(make([2, 4]), make([3, 4]), make([3, 2]), make([2, 2]), { softcap: 1 }),
    );
    expect(refused.message).toContain('options.softcap is not supported');
  });

  test('a transformer: a bad batch or tokens come before a bad options object', () => {
    const tf = ag.createTransformer({ vocab: 4, T: 4, dModel: 4, heads: 1, layers: 1 });
    try {
      const batch = { tokens: [[0, 1, 2, 9]], targets: [[0, 1, 2, 3]] };
      const calls = [
        ['forward', 'tokens', () => tf.forward(batch.tokens, { bogus: 1 })],
        ['evaluate', 'batch.tokens', () => tf.evaluate(batch, { bogus: 1 })],
        ['gradients', 'batch.tokens', () => tf.gradients(batch, { bogus: 1 })],
        ['step', 'batch.tokens', () => tf.step(batch, { bogus: 1 })],
      ];
      for (const [method, name, call] of calls) {
        const e = thrownBy(call);
        expect([method, e && e.constructor.name]).toEqual([method, 'RangeError']);
        expect([method, e.message.slice(0, `transformer.${method}: ${name} `.length)]).toEqual([
          method,
          `transformer.${method}: ${name} `,
        ]);
      }
      expect(tf.steps).toBe(0);
    } finally {
      tf.dispose();
    }
  });

  test.each(BAD_HEADS)('multiHeadAttention: numHeads %s comes after a NaN in the weights', (title, options) => {
    for (const form of FORMS) {
      const e = thrownBy(() =>
        ag.multiHeadAttention(
          { query: make([2, 4]) },
          { wQ: make([4, 4]), wK: make([4, 4], form, { nan: true }), wV: make([4, 4]), wO: make([4, 4]) },
          options,
        ),
      );
      expect([form, e && e.message.slice(0, 'multiHeadAttention: wK[0, 1] is NaN'.length)]).toEqual([
        form,
        'multiHeadAttention: wK[0, 1] is NaN',
      ]);
    }
    // Alone, the same numHeads is the error.
    const alone = thrownBy(() =>
      ag.multiHeadAttention(
        { query: make([2, 4]) },
        { wQ: make([4, 4]), wK: make([4, 4]), wV: make([4, 4]), wO: make([4, 4]) },
        options,
      ),
    );
    expect(alone.message).toMatch(/options\.(numHeads|kvHeads)/);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test.each(SHAPE_FIRST)('%s: the shape is named', (title, call, start) => {
    for (const form of FORMS) {
      const e = thrownBy(() => call(ag, form));
      expect([form, e && e.constructor.name]).toEqual([form, 'RangeError']);
      expect([form, e.message.slice(0, start.length)]).toEqual([form, start]);
    }
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
    expect(ag.dot([3, 4], [4, 3])).toBe(24);
  });
});
