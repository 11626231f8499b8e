// A call with more arguments than the method takes throws a TypeError naming
// the method and the count it takes, before any argument is read; trailing
// undefined arguments are not counted. The counts are those of the
// signatures in index.d.ts, written out here. The same holds for the
// functions outside the API object: random.*, tasks.*, the methods of the
// generators the tasks return, a transformer's methods and init (whose
// promise rejects).
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init as initInline } from '../../dist/inline.js';
import { CONFIGS, init, thrownBy, warmInstance } from './helpers.mjs';

/** Every method of the API object and the number of parameters its signature in index.d.ts declares. */
const ARITY = {
  heapAllocatedBytes: 0,
  memoryStats: 0,
  resetPeakMemory: 0,
  randomDotExperiment: 1,
  greedyPacking: 1,
  createTransformer: 1,
  createKvCache: 1,
  squaredNorm: 1,
  norm: 1,
  normalize: 1,
  exp: 1,
  softmaxNaive: 1,
  logSumExp: 1,
  entropy: 1,
  softmaxJacobian: 1,
  alibiSlopes: 1,
  dotProductDensity: 2,
  dot: 2,
  cosine: 2,
  angle: 2,
  scalarProjection: 2,
  vectorProjection: 2,
  squaredDistance: 2,
  weightedSum: 2,
  dotTrace: 2,
  softmax: 2,
  softmaxBackward: 2,
  rope: 2,
  layerNorm: 2,
  matmul: 3,
  multiHeadAttention: 3,
  layerNormBackward: 3,
  crossEntropy: 3,
  attention: 4,
  attentionTrace: 4,
  adamUpdate: 4,
  attentionBackward: 5,
};

/**
 * The functions of ag.random and ag.tasks and the methods of a task generator and of a transformer, by the
 * names their errors use.
 */
const OTHER_ARITY = {
  'random.uniform': 1,
  'random.normal': 1,
  'tasks.copyPrevious': 1,
  'tasks.reverse': 1,
  'tasks.sort': 1,
  'tasks.inductionCopy': 1,
  'tasks.bracketMatch': 1,
  'taskGenerator.next': 0,
  'taskGenerator.at': 1,
  'taskGenerator.reset': 0,
  'transformer.step': 2,
  'transformer.gradients': 2,
  'transformer.evaluate': 2,
  'transformer.forward': 2,
  'transformer.parameters': 0,
  'transformer.loadParameters': 1,
  'transformer.dispose': 0,
};

const CONFIG = { vocab: 5, T: 4, dModel: 8, heads: 2, seed: 1 };
const BATCH = { tokens: [0, 1, 2, 3], targets: [1, 2, 3, -1] };
const TASK = { T: 4, vocab: 5, seed: 1 };

/** Calls that are right as they are, each given one more argument (the reported cases first). */
const EXTRA = [
  ['softmaxNaive', (ag) => ag.softmaxNaive([1, 2], { temperature: 100 }), 'an object with keys {temperature}'],
  ['logSumExp', (ag) => ag.logSumExp([1, 2], 1), 'number 1'],
  ['exp', (ag) => ag.exp([1, 2], {}), 'an object with keys {}'],
  ['norm', (ag) => ag.norm([3, 4], [1, 1]), 'an array'],
  ['softmaxBackward', (ag) => ag.softmaxBackward([0.5, 0.5], [1, 0], {}), 'an object with keys {}'],
  [
    'adamUpdate',
    (ag) => ag.adamUpdate([1, 2], [0.1, 0.2], null, { lr: 0.1, step: 1 }, { lr: 1 }),
    'an object with keys {lr}',
  ],
  ['dot', (ag) => ag.dot([1, 2], [3, 4], [5, 6]), 'an array'],
  ['softmax', (ag) => ag.softmax([1, 2], {}, {}), 'an object with keys {}'],
  ['memoryStats', (ag) => ag.memoryStats(0), 'number 0'],
  ['attention', (ag) => ag.attention([[1, 0]], [[1, 0]], [[1]], {}, null), 'null'],
];

/** The count of a message: "no arguments", "1 argument", "2 arguments". */
const takes = (n) => (n === 0 ? 'no arguments' : `${n} argument${n === 1 ? '' : 's'}`);

describe.each(CONFIGS)('the count of arguments: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test('the table lists every method of the API object', () => {
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(ag)).filter(
      (n) => n !== 'constructor' && !n.startsWith('_') && typeof ag[n] === 'function',
    );
    expect(methods.sort()).toEqual(Object.keys(ARITY).sort());
  });

  test.each(EXTRA)('%s with one argument too many', (method, call, extra) => {
    const n = ARITY[method];
    const e = thrownBy(() => call(ag));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(`${method}: takes ${takes(n)} but was given ${n + 1}; argument ${n + 1} is ${extra}`);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test.each(Object.entries(ARITY))('%s: named with the count it takes, before its arguments', (method, n) => {
    // Arguments that are all wrong (NaN): the count is named, not the first of them.
    const args = [...Array.from({ length: n }, () => [NaN]), 'extra'];
    const e = thrownBy(() => ag[method](...args));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(
      `${method}: takes ${takes(n)} but was given ${n + 1}; argument ${n + 1} is the string "extra"`,
    );
    // Trailing undefined arguments are not counted: whatever the call throws, it is not about the count.
    const trailing = thrownBy(() => ag[method](...args.slice(0, n), undefined, undefined));
    expect(trailing === null || !/takes .* but was given/.test(trailing.message)).toBe(true);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('the table lists every function of random and tasks and every method of a task generator and a transformer', () => {
    const model = ag.createTransformer(CONFIG);
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(model)).filter(
      (n) =>
        n !== 'constructor' &&
        !n.startsWith('_') &&
        typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(model), n).value === 'function',
    );
    model.dispose();
    const generators = Object.keys(ag.tasks).map((task) => ag.tasks[task](TASK));
    const generatorMethods = [...new Set(generators.flatMap((g) => Object.keys(g).filter((k) => k !== 'options')))];
    const names = [
      ...Object.keys(ag.random).map((k) => `random.${k}`),
      ...Object.keys(ag.tasks).map((k) => `tasks.${k}`),
      ...generatorMethods.map((k) => `taskGenerator.${k}`),
      ...methods.map((k) => `transformer.${k}`),
    ];
    expect(names.sort()).toEqual(Object.keys(OTHER_ARITY).sort());
    for (const [name, n] of Object.entries(OTHER_ARITY)) {
      const [owner, key] = name.split('.');
      const fns =
        owner === 'transformer'
          ? [Object.getPrototypeOf(model)[key]]
          : owner === 'taskGenerator'
            ? generators.map((g) => g[key])
            : [ag[owner][key]];
      for (const fn of fns) expect([name, fn.name, fn.length]).toEqual([name, key, n]);
    }
  });

  test.each(Object.entries(OTHER_ARITY))('%s: named with the count it takes, before its arguments', (name, n) => {
    const model = ag.createTransformer(CONFIG);
    const generator = ag.tasks.copyPrevious(TASK);
    generator.next(); // batch 0: the next is batch 1
    const heap = ag.heapAllocatedBytes();
    const [owner, key] = name.split('.');
    const target = { transformer: model, taskGenerator: generator }[owner] ?? ag[owner];
    const call = (...args) => target[key](...args);
    const args = [...Array.from({ length: n }, () => [NaN]), 'extra'];
    const e = thrownBy(() => call(...args));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe(
      `${name}: takes ${takes(n)} but was given ${n + 1}; argument ${n + 1} is the string "extra"`,
    );
    expect(ag.heapAllocatedBytes()).toBe(heap);
    // Nothing happened: the model is neither disposed nor stepped.
    expect(model.steps).toBe(0);
    expect(Number.isFinite(model.evaluate(BATCH).loss)).toBe(true);
    // The generator is where it was, neither moved on nor reset: its next batch is batch 1.
    expect(generator.next()).toEqual(ag.tasks.copyPrevious(TASK).at(1));
    const trailing = thrownBy(() => call(...args.slice(0, n), undefined, undefined));
    expect(trailing === null || !/takes .* but was given/.test(trailing.message)).toBe(true);
    model.dispose();
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('the calls of random, tasks, a task generator and a transformer with one argument too many, and without it', () => {
    const model = ag.createTransformer(CONFIG);
    const extra = [
      ['random.normal', () => ag.random.normal({ seed: 1, n: 4 }, { n: 8 }), 'an object with keys {n}'],
      ['tasks.sort', () => ag.tasks.sort({ T: 4, vocab: 5 }, 2), 'number 2'],
      ['taskGenerator.next', () => ag.tasks.sort({ T: 4, vocab: 5 }).next(3), 'number 3'],
      ['taskGenerator.at', () => ag.tasks.sort({ T: 4, vocab: 5 }).at(0, 1), 'number 1'],
      ['taskGenerator.reset', () => ag.tasks.sort({ T: 4, vocab: 5 }).reset(0), 'number 0'],
      ['transformer.step', () => model.step(BATCH, { lr: 0.01 }, { clip: 1 }), 'an object with keys {clip}'],
      ['transformer.forward', () => model.forward([[0, 1, 2, 3]], {}, true), 'boolean true'],
      ['transformer.parameters', () => model.parameters('layers.0.attn.wq'), 'the string "layers.0.attn.wq"'],
    ];
    for (const [name, call, what] of extra) {
      const n = OTHER_ARITY[name];
      expect(() => call()).toThrow(
        new TypeError(`${name}: takes ${takes(n)} but was given ${n + 1}; argument ${n + 1} is ${what}`),
      );
    }
    expect(model.steps).toBe(0);
    expect(ag.random.normal({ seed: 1, n: 4 }).shape).toEqual([4]);
    expect(ag.tasks.sort({ T: 4, vocab: 5 }).next().tokens).toHaveLength(4);
    expect(Number.isFinite(model.step(BATCH, { lr: 0.01 }, undefined).loss)).toBe(true);
    expect(model.steps).toBe(1);
    model.dispose();
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('init: more than one argument rejects with the TypeError, before the options are read', async () => {
    const options = {
      get simd() {
        throw new Error('read');
      },
    };
    for (const load of [init, initInline]) {
      expect(load.name).toBe('init');
      await expect(load(options, 2)).rejects.toBeInstanceOf(TypeError);
      await expect(load(options, 2)).rejects.toThrow(
        new TypeError('init: takes 1 argument but was given 2; argument 2 is number 2'),
      );
    }
    const other = await init(cfg.options, undefined);
    expect(other.backend).toBe(cfg.backend);
  });

  test('the same calls without the extra argument return', () => {
    expect(ag.softmaxNaive([1, 2]).shape).toEqual([2]);
    expect(ag.norm([3, 4])).toBe(5);
    expect(ag.logSumExp([0, 0], undefined)).toBeCloseTo(Math.LN2, 6);
    expect(ag.adamUpdate([1, 2], [0.1, 0.2], null, { lr: 0.1, step: 1 }, undefined).param.shape).toEqual([2]);
  });
});
