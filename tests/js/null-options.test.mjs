// null is absent, as undefined, for every option (index.d.ts, "Options"): for
// each method, each member of its options (and of its object arguments:
// multiHeadAttention's inputs and weights, adamUpdate's state, a transformer's
// config, batch and parameters) set to null gives what leaving it out gives: the same
// result for an optional member, the same error for a required one. An options
// argument of null is one left out. The members are written out here from
// index.d.ts, not read from the code.
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init, warmInstance } from './helpers.mjs';
import { I4, K, Q, V, X } from './small-inputs.mjs';

const CONFIG = { vocab: 5, T: 4, dModel: 4, heads: 2, layers: 1, mlp: true, norm: 'layer', scaleScores: true, seed: 3 };
const BATCH = { tokens: [0, 1, 2, 3, 4, 3, 2, 1], targets: [1, 2, 3, 4, 3, 2, 1, -1] };

/** A transformer made for one call and disposed after it (a step changes the model). */
function withModel(ag, use) {
  const model = ag.createTransformer(CONFIG);
  try {
    return use(model);
  } finally {
    model.dispose();
  }
}

/** Options of attention that work together (rope and streaming are tried apart). */
const ATTENTION_GOOD = {
  scale: 0.5,
  softcap: 30,
  pastKey: [[0, 0, 0, 1]],
  pastValue: [[1, 1]],
  causal: true,
  window: 3,
  alibi: [0.5],
  mask: [[true, true, true, true]],
  maskKind: 'boolean',
  returnWeights: true,
  returnScores: 'raw',
};

/** What a generator of batches gives: its options and its first two batches. */
const batches = (g) => ({ options: g.options, first: g.next(), second: g.next() });

/**
 * Every method with an options object (or an object argument with named members): the call with
 * `o` in that place, options that work (`good`), and the members as index.d.ts lists them, each
 * required or optional. `args` says when `o` is not an options argument (then null is not tried
 * for the whole object, which is required).
 */
const METHODS = [
  {
    method: 'softmax',
    call: (ag, o) => ag.softmax(X, o),
    good: { temperature: 2, mask: [[true, false, true]], maskKind: 'boolean' },
    optional: ['temperature', 'mask', 'maskKind'],
  },
  {
    method: 'matmul',
    call: (ag, o) => ag.matmul(X, V.slice(0, 3), o),
    good: { transposeB: false, transposeA: false },
    optional: ['transposeB', 'transposeA'],
  },
  {
    method: 'rope',
    call: (ag, o) => ag.rope(Q, o),
    good: { base: 100, interleaved: true, positions: [3, 5] },
    optional: ['base', 'interleaved', 'positions'],
  },
  {
    method: 'attention',
    call: (ag, o) => ag.attention(Q, K, V, o),
    good: ATTENTION_GOOD,
    optional: [...Object.keys(ATTENTION_GOOD), 'rope', 'streaming'],
  },
  {
    method: 'attention (kvSeqLen, streaming)',
    call: (ag, o) => ag.attention([[Q]], [[K]], [[V]], o),
    good: { kvSeqLen: [2], streaming: true },
    optional: ['kvSeqLen', 'streaming'],
  },
  {
    method: 'attention (options.rope)',
    call: (ag, o) => ag.attention(Q, K, V, { rope: o }),
    good: { base: 100, interleaved: true, start: 2 },
    optional: ['base', 'interleaved', 'start'],
  },
  {
    method: 'multiHeadAttention',
    call: (ag, o) => ag.multiHeadAttention({ query: Q }, { wQ: I4, wK: I4, wV: I4, wO: I4 }, o),
    good: {
      numHeads: 2,
      kvHeads: 2,
      rope: { base: 100 },
      scale: 0.5,
      causal: true,
      mask: [[true, true]],
      maskKind: 'boolean',
      keyPaddingMask: [false, true],
      returnWeights: true,
    },
    required: ['numHeads'],
    optional: ['kvHeads', 'rope', 'scale', 'causal', 'mask', 'maskKind', 'keyPaddingMask', 'returnWeights'],
  },
  {
    method: 'multiHeadAttention (streaming)',
    call: (ag, o) => ag.multiHeadAttention({ query: Q }, { wQ: I4, wK: I4, wV: I4, wO: I4 }, o),
    good: { numHeads: 2, streaming: true },
    required: ['numHeads'],
    optional: ['streaming'],
  },
  {
    method: 'multiHeadAttention (options.rope)',
    call: (ag, o) => ag.multiHeadAttention({ query: Q }, { wQ: I4, wK: I4, wV: I4, wO: I4 }, { numHeads: 2, rope: o }),
    good: { base: 100, interleaved: true },
    optional: ['base', 'interleaved'],
  },
  {
    method: 'multiHeadAttention (inputs)',
    call: (ag, o) => ag.multiHeadAttention(o, { wQ: I4, wK: I4, wV: I4, wO: I4 }, { numHeads: 2 }),
    args: true,
    good: { query: Q, key: K, value: K },
    required: ['query'],
    optional: ['key', 'value'],
  },
  {
    method: 'multiHeadAttention (weights)',
    call: (ag, o) => ag.multiHeadAttention({ query: Q }, o, { numHeads: 2 }),
    args: true,
    good: { wQ: I4, wK: I4, wV: I4, wO: I4, bQ: [1, 0, 0, 0], bK: [0, 1, 0, 0], bV: [0, 0, 1, 0], bO: [0, 0, 0, 1] },
    required: ['wQ', 'wK', 'wV', 'wO'],
    optional: ['bQ', 'bK', 'bV', 'bO'],
  },
  {
    method: 'attentionTrace',
    call: (ag, o) => ag.attentionTrace(Q, K, V, o),
    good: { tileKeys: 2, scale: 0.5, causal: true },
    optional: ['tileKeys', 'scale', 'causal'],
  },
  {
    method: 'attentionBackward',
    call: (ag, o) => ag.attentionBackward(Q, K, V, V.slice(0, 2), o),
    good: { scale: 0.5, causal: true, window: 2, mask: [[true, false, true]], maskKind: 'boolean' },
    optional: ['scale', 'causal', 'window', 'mask', 'maskKind'],
  },
  {
    method: 'layerNorm',
    call: (ag, o) => ag.layerNorm(X, o),
    good: { gamma: [1, 2, 3], beta: [0, 1, 0], eps: 0.01 },
    optional: ['gamma', 'beta', 'eps'],
  },
  {
    method: 'layerNormBackward',
    call: (ag, o) => ag.layerNormBackward(X, X, o),
    good: { gamma: [1, 2, 3], mean: [3, 5], rstd: [1, 1], eps: 0.01 },
    optional: ['gamma', 'mean', 'rstd', 'eps'],
  },
  {
    method: 'crossEntropy',
    call: (ag, o) => ag.crossEntropy(X, [0, 2], o),
    good: { gradScale: 0.25 },
    optional: ['gradScale'],
  },
  {
    method: 'adamUpdate',
    call: (ag, o) => ag.adamUpdate([1, 2], [0.5, 0.25], null, o),
    good: { lr: 0.1, step: 2, beta1: 0.8, beta2: 0.9, eps: 0.001, gradScale: 2 },
    required: ['lr', 'step'],
    optional: ['beta1', 'beta2', 'eps', 'gradScale'],
  },
  {
    method: 'adamUpdate (state)',
    call: (ag, o) => ag.adamUpdate([1, 2], [0.5, 0.25], o, { lr: 0.1, step: 2 }),
    good: { m: [0.1, 0.2], v: [0.01, 0.02] },
    // m and v go together: each alone left out (or null) is the same RangeError.
    optional: ['m', 'v'],
  },
  {
    method: 'random.uniform',
    call: (ag, o) => ag.random.uniform(o),
    good: { seed: 7, counter: 3, n: 5 },
    required: ['n'],
    optional: ['seed', 'counter'],
  },
  {
    method: 'random.normal',
    call: (ag, o) => ag.random.normal(o),
    good: { seed: 7, counter: 3, n: 5 },
    required: ['n'],
    optional: ['seed', 'counter'],
  },
  {
    method: 'randomDotExperiment',
    call: (ag, o) => ag.randomDotExperiment(o),
    good: { d: 4, trials: 8, seed: 5, measure: 'cosine', bins: 4, range: [-1, 1], returnSamples: true },
    required: ['d', 'trials'],
    optional: ['seed', 'measure', 'bins', 'range', 'returnSamples'],
  },
  {
    method: 'greedyPacking',
    call: (ag, o) => ag.greedyPacking(o),
    good: { d: 4, candidates: 8, epsilon: 0.5, seed: 2, first: 3, directions: [[1, 0, 0, 0]] },
    required: ['d', 'candidates', 'epsilon'],
    optional: ['seed', 'first', 'directions'],
  },
  ...['copyPrevious', 'reverse', 'sort', 'inductionCopy', 'bracketMatch'].map((task) => ({
    method: `tasks.${task}`,
    call: (ag, o) => batches(ag.tasks[task](o)),
    good: { T: 8, vocab: 6, batch: 2, seed: 4 },
    required: ['T', 'vocab'],
    optional: ['batch', 'seed'],
  })),
  {
    method: 'createTransformer',
    call: (ag, o) => {
      const model = ag.createTransformer(o);
      const out = { config: model.config, parameters: model.parameters() };
      model.dispose();
      return out;
    },
    args: true,
    good: CONFIG,
    required: ['vocab', 'T', 'dModel', 'heads'],
    optional: ['layers', 'mlp', 'norm', 'scaleScores', 'seed'],
  },
  {
    method: 'transformer.evaluate (batch)',
    call: (ag, o) => withModel(ag, (model) => model.evaluate(o)),
    args: true,
    good: BATCH,
    required: ['tokens', 'targets'],
  },
  {
    method: 'transformer.step',
    call: (ag, o) => withModel(ag, (model) => ({ result: model.step(BATCH, o), parameters: model.parameters() })),
    good: { lr: 0.01, optimizer: 'adam', clip: 0.5, beta1: 0.8, beta2: 0.9, eps: 0.001 },
    required: ['lr'],
    optional: ['optimizer', 'clip', 'beta1', 'beta2', 'eps'],
  },
  {
    method: 'transformer.gradients',
    call: (ag, o) => withModel(ag, (model) => model.gradients(BATCH, o)),
    good: {},
  },
  {
    method: 'transformer.evaluate',
    call: (ag, o) => withModel(ag, (model) => model.evaluate(BATCH, o)),
    good: { headMask: [1, 0] },
    optional: ['headMask'],
  },
  {
    method: 'transformer.forward',
    call: (ag, o) => withModel(ag, (model) => model.forward(BATCH.tokens, o)),
    good: { headMask: [[0, 1]], returnWeights: true, returnQK: true },
    optional: ['headMask', 'returnWeights', 'returnQK'],
  },
];

/** The outcome of a call: { value } or { error: 'TypeError: message' }. */
function outcome(call) {
  try {
    return { value: call() };
  } catch (e) {
    return { error: `${e.name}: ${e.message}` };
  }
}

const without = (o, name) => Object.fromEntries(Object.entries(o).filter(([key]) => key !== name));

describe.each(CONFIGS)('null is absent: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test.each(METHODS.map((t) => [t.method, t]))('%s', (method, t) => {
    const { call, good, required = [], optional = [], args = false } = t;
    // The good options work, so that the comparisons below are not between two errors of something else.
    const base = outcome(() => call(ag, good));
    expect(base.error).toBeUndefined();
    const differs = [];
    for (const name of [...required, ...optional]) {
      const absent = outcome(() => call(ag, without(good, name)));
      const nulled = outcome(() => call(ag, { ...good, [name]: null }));
      // A required member left out is an error naming it.
      if (required.includes(name)) expect(absent.error).toContain(name);
      try {
        expect(nulled).toEqual(absent);
      } catch {
        differs.push(
          `${name}: null gives ${JSON.stringify(nulled.error ?? 'a result')}, absent ${absent.error ?? 'a result'}`,
        );
      }
    }
    expect(differs).toEqual([]);
    if (!args) expect(outcome(() => call(ag, null))).toEqual(outcome(() => call(ag, undefined)));
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  // null is absent for the members a method knows: an unknown key is refused whatever its value, as
  // one set to a number is (a misspelt option set to null would otherwise pass unseen).
  test.each(METHODS.map((t) => [t.method, t]))('%s: an unknown key set to null is refused', (method, t) => {
    const { call, good } = t;
    for (const value of [null, undefined, 1]) {
      const got = outcome(() => call(ag, { ...good, unlisted: value }));
      expect(got.error).toMatch(/^TypeError: .*has an unknown key 'unlisted'/);
    }
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  // A member is given only as an own enumerable key (as checkKnownKeys counts the unknown ones). A
  // non-enumerable or an inherited one (a getter of a class, Object.create) would be read as absent and
  // the call would run on defaults, silently: it is a TypeError naming the member, whatever its value
  // (null too), with or without another member set to null, and nothing is written (the cache stays
  // empty). Each row: the call, the visible members, a member to hide, its value, and the other member
  // set to null alongside. The same member given as an own key changes the outcome.
  test('a non-enumerable or inherited member is a TypeError naming it, whatever else the object holds', () => {
    const cache = ag.createKvCache({ kvHeads: 1, capacity: 8, dK: 4, dV: 2 });
    const W = { wQ: I4, wK: I4, wV: I4, wO: I4 };
    // attention's outcome with the rows it wrote into the cache (then emptied for the next call).
    const attention = (o) => {
      try {
        return { result: ag.attention(Q, K, V, o), rows: cache.length };
      } finally {
        cache.reset();
      }
    };
    const backward = (o) => ag.attentionBackward(Q, K, V, V.slice(0, 2), o);
    const multiHead = (o) => ag.multiHeadAttention({ query: Q }, W, o);
    const inputs = (o) => ag.multiHeadAttention(o, W, { numHeads: 2 });
    const ROWS = [
      ['attention', attention, {}, 'scale', 1, 'causal'],
      ['attention', attention, {}, 'causal', true, 'scale'],
      ['attention', attention, {}, 'cache', cache, 'causal'],
      ['attentionBackward', backward, {}, 'scale', 1, 'causal'],
      ['attentionBackward', backward, {}, 'causal', true, 'scale'],
      ['attentionBackward', backward, {}, 'cache', cache, 'causal'],
      ['multiHeadAttention', multiHead, {}, 'numHeads', 2, 'causal'],
      ['multiHeadAttention', multiHead, { numHeads: 2 }, 'scale', 1, 'causal'],
      ['multiHeadAttention', multiHead, { numHeads: 2 }, 'causal', true, 'scale'],
      ['multiHeadAttention', multiHead, { numHeads: 2 }, 'cache', cache, 'causal'],
      ['multiHeadAttention (inputs)', inputs, { query: Q }, 'key', K, 'value'],
    ];
    const hidden = (visible, key, value) => Object.defineProperty({ ...visible }, key, { value, enumerable: false });
    const inherited = (visible, key, value) => Object.assign(Object.create({ [key]: value }), visible);
    const byGetter = (visible, key, value) => {
      class Options {
        get [key]() {
          return value;
        }
      }
      return Object.assign(new Options(), visible);
    };
    const wrong = [];
    for (const [method, call, given, key, value, other] of ROWS) {
      for (const visible of [given, { ...given, [other]: null }]) {
        const absent = outcome(() => call(visible));
        expect(outcome(() => call({ ...visible, [key]: value }))).not.toEqual(absent);
        for (const [how, make, said] of [
          ['non-enumerable', hidden, 'not enumerable'],
          ['inherited', inherited, 'inherited'],
          ['a class getter', byGetter, 'inherited'],
        ]) {
          for (const v of [value, null]) {
            const got = outcome(() => call(make(visible, key, v)));
            const name = method.split(' ')[0];
            const expected = `TypeError: ${name}: `;
            if (!got.error?.startsWith(expected) || !got.error.includes(`a member '${key}' that is ${said}`)) {
              const withNull = visible === given ? '' : ` with ${other}: null`;
              wrong.push(
                `${method}: ${how} ${key} = ${v === null ? 'null' : 'a value'}${withNull} gives ${got.error ?? 'a result'}`,
              );
            }
            expect(cache.length).toBe(0);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // A class instance whose members are its own fields is a plain object's equal.
    class Own {
      constructor() {
        this.scale = 0.5;
        this.causal = true;
      }
    }
    expect(outcome(() => ag.attention(Q, K, V, new Own()))).toEqual(
      outcome(() => ag.attention(Q, K, V, { scale: 0.5, causal: true })),
    );
    // So is one with methods on its class (no member of the options), and a toJSON beside its members.
    class WithMethod {
      constructor() {
        this.scale = 0.5;
      }
      describe() {
        return 'scale 0.5';
      }
    }
    const half = outcome(() => ag.attention(Q, K, V, { scale: 0.5 }));
    expect(outcome(() => ag.attention(Q, K, V, new WithMethod()))).toEqual(half);
    const withToJSON = Object.defineProperty({ scale: 0.5 }, 'toJSON', { value: () => ({}) });
    expect(outcome(() => ag.attention(Q, K, V, withToJSON))).toEqual(half);
    // Members inherited from a null-prototype object, or from another realm's object, are members too: named.
    const nullBase = Object.assign(Object.create(null), { causal: true });
    const realmBase = runInNewContext('({ causal: true })');
    for (const base of [nullBase, realmBase]) {
      const got = outcome(() => ag.attention(Q, K, V, Object.assign(Object.create(base), { scale: 0.5 })));
      expect(got.error).toBe(
        "TypeError: attention: options has a member 'causal' that is inherited, which would be ignored; give every member as an own enumerable key (a plain object literal)",
      );
    }
    // Another realm's plain object, and a null-prototype one, are plain objects.
    expect(outcome(() => ag.attention(Q, K, V, runInNewContext('({ scale: 0.5 })')))).toEqual(half);
    expect(outcome(() => ag.attention(Q, K, V, Object.assign(Object.create(null), { scale: 0.5 })))).toEqual(half);
    cache.dispose();
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('an options object of another kind is named with its article', () => {
    expect(outcome(() => ag.attention(Q, K, V, { [Symbol.toStringTag]: 'Opts' })).error).toBe(
      'TypeError: attention: options must be a plain object; got an Opts',
    );
    expect(outcome(() => ag.attention(Q, K, V, new Map())).error).toBe(
      'TypeError: attention: options must be a plain object; got a Map',
    );
  });

  test('transformer.loadParameters: a parameter that is null is missing, as one left out', () => {
    withModel(ag, (model) => {
      const params = model.parameters();
      const [name] = Object.keys(params);
      const absent = outcome(() => model.loadParameters(without(params, name)));
      expect(absent.error).toContain(`no parameter '${name}'`);
      expect(outcome(() => model.loadParameters({ ...params, [name]: null }))).toEqual(absent);
    });
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});

describe('null is absent: init', () => {
  // Each option set to null loads what leaving it out loads.
  const summary = async (options) => {
    try {
      const ag = await init(options);
      return { backend: ag.backend, variant: ag.variant, dot: ag.dot([3, 4], [4, 3]) };
    } catch (e) {
      return { error: `${e.name}: ${e.message}` };
    }
  };

  test.each(['simd', 'variant', 'locateFile', 'wasmUrl', 'wasmBinary', 'logCalls', 'onKernelCall'])(
    'init({ %s: null })',
    async (name) => {
      const absent = await summary({});
      expect(absent.error).toBeUndefined();
      expect(await summary({ [name]: null })).toEqual(absent);
    },
  );

  test('init(null), and null entries of wasmUrl {simd, scalar}', async () => {
    const absent = await summary(undefined);
    expect(await summary(null)).toEqual(absent);
    expect(await summary({ wasmUrl: { simd: null, scalar: null } })).toEqual(absent);
  });
});
