// Every public method of an instance keeps its own name and argument count, although each is wrapped
// (api.js: the wrapper that names the first bad argument): reflection sees `dot`, not the wrapper.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init } from './helpers.mjs';

/** Methods and their parameter counts, as index.d.ts declares them (optional parameters included). */
const DECLARED = [
  ['dot', 2],
  ['norm', 1],
  ['matmul', 3],
  ['softmax', 2],
  ['attention', 4],
  ['attentionBackward', 5],
  ['multiHeadAttention', 3],
  ['layerNormBackward', 3],
  ['adamUpdate', 4],
  ['heapAllocatedBytes', 0],
];

describe.each(CONFIGS)('method names: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test.each(DECLARED)('%s keeps its name and its %i parameters', (name, length) => {
    expect(ag[name].name).toBe(name);
    expect(ag[name].length).toBe(length);
  });

  test('every public method is named as the property that holds it', () => {
    const proto = Object.getPrototypeOf(ag);
    const names = Object.getOwnPropertyNames(proto).filter(
      (k) => k !== 'constructor' && !k.startsWith('_') && typeof proto[k] === 'function',
    );
    expect(names.length).toBeGreaterThan(30);
    for (const k of names) expect([k, proto[k].name]).toEqual([k, k]);
  });
});
