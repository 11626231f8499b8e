// Each member of an options object is read once: a getter (or a Proxy) runs once per call, so
// that the value checked is the value used, and code in a getter does not run twice. The
// options are those index.d.ts lists for each method, each given as a getter that counts its
// reads; the refused members of attentionBackward are given as null or false (no option).
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init } from './helpers.mjs';
import { K, Q, V } from './small-inputs.mjs';

const MASK = [
  [true, false, true],
  [true, true, true],
];

/** Methods with options that work together on Q [2, 4], K [3, 4], V [3, 2]. */
const METHODS = [
  {
    method: 'attention',
    call: (ag, o) => ag.attention(Q, K, V, o),
    good: { scale: 0.5, causal: true, window: 2, mask: MASK, maskKind: 'boolean', returnWeights: true },
  },
  {
    method: 'attentionBackward',
    call: (ag, o) => ag.attentionBackward(Q, K, V, V.slice(0, 2), o),
    good: {
      scale: 0.5,
      causal: true,
      window: 2,
      mask: MASK,
      maskKind: 'boolean',
      softcap: null,
      returnWeights: false,
      streaming: null,
    },
  },
];

/** `good` with every member a getter; `reads` counts the reads of each. */
function counted(good) {
  const reads = Object.fromEntries(Object.keys(good).map((key) => [key, 0]));
  const options = {};
  for (const [key, value] of Object.entries(good))
    Object.defineProperty(options, key, {
      enumerable: true,
      get() {
        reads[key] += 1;
        return value;
      },
    });
  return { options, reads };
}

describe.each(CONFIGS)('$label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  test.each(METHODS.map((row) => [row.method, row]))('%s reads each option once', (_, { call, good }) => {
    const want = call(ag, good);
    const { options, reads } = counted(good);
    expect(call(ag, options)).toEqual(want);
    expect(reads).toEqual(Object.fromEntries(Object.keys(good).map((key) => [key, 1])));
  });
});
