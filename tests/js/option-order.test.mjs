// The members of an options object are judged in the order index.d.ts lists
// them: with two bad members, the one listed first is named, and an unknown
// key's message lists the known keys in that order. The orders are written
// out here from index.d.ts, not read from the code.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, thrownBy, warmInstance } from './helpers.mjs';
import { I4, K, Q, V, X } from './small-inputs.mjs';

const BAD = 'bad';

/**
 * Every method with an options object of two members or more: the call, good options that the bad
 * members are put into, and its members in the order index.d.ts lists them, each as [name, the
 * name its messages use] (the latter when it is not `options.name`). A bad member is the string 'bad'.
 */
const METHODS = [
  {
    method: 'softmax',
    call: (ag, o) => ag.softmax(X, o),
    good: { mask: [[true, false, true]] },
    members: [['temperature'], ['mask', 'mask'], ['maskKind']],
  },
  {
    method: 'matmul',
    call: (ag, o) => ag.matmul(X, V.slice(0, 3), o),
    good: {},
    members: [['transposeB'], ['transposeA']],
  },
  { method: 'rope', call: (ag, o) => ag.rope(Q, o), good: {}, members: [['base'], ['interleaved'], ['positions']] },
  {
    method: 'attention',
    call: (ag, o) => ag.attention(Q, K, V, o),
    good: { pastKey: [[0, 0, 0, 1]], pastValue: [[1, 1]], mask: [[true, true, true, true]] },
    members: [
      ['scale'],
      ['softcap'],
      ['cache'],
      ['pastKey'],
      ['pastValue'],
      ['kvSeqLen'],
      ['causal'],
      ['window'],
      ['rope'],
      ['alibi'],
      ['mask', 'mask'],
      ['maskKind'],
      ['returnWeights'],
      ['returnScores'],
      ['streaming'],
    ],
  },
  {
    method: 'multiHeadAttention',
    call: (ag, o) => ag.multiHeadAttention({ query: Q }, { wQ: I4, wK: I4, wV: I4, wO: I4 }, o),
    good: { numHeads: 2, mask: [[true, true]], keyPaddingMask: [false, false] },
    members: [
      ['numHeads'],
      ['kvHeads'],
      ['rope'],
      ['scale'],
      ['causal'],
      ['mask', 'mask'],
      ['maskKind'],
      ['keyPaddingMask', 'keyPaddingMask'],
      ['returnWeights'],
      ['streaming'],
    ],
  },
  {
    method: 'attentionTrace',
    call: (ag, o) => ag.attentionTrace(Q, K, V, o),
    good: {},
    members: [['tileKeys'], ['scale'], ['causal']],
  },
  {
    method: 'attentionBackward',
    call: (ag, o) => ag.attentionBackward(Q, K, V, V.slice(0, 2), o),
    good: { mask: [[true, true, true]] },
    members: [['scale'], ['causal'], ['window'], ['mask', 'mask'], ['maskKind']],
  },
  { method: 'layerNorm', call: (ag, o) => ag.layerNorm(X, o), good: {}, members: [['gamma'], ['beta'], ['eps']] },
  {
    method: 'layerNormBackward',
    call: (ag, o) => ag.layerNormBackward(X, X, o),
    good: {},
    members: [['gamma'], ['mean'], ['rstd'], ['eps']],
  },
  {
    method: 'adamUpdate',
    call: (ag, o) => ag.adamUpdate([1, 2], [0.5, 0.25], null, o),
    good: { lr: 0.1, step: 1 },
    members: [['lr'], ['step'], ['beta1'], ['beta2'], ['eps'], ['gradScale']],
  },
  {
    method: 'randomDotExperiment',
    call: (ag, o) => ag.randomDotExperiment(o),
    good: { d: 4, trials: 8 },
    members: [...['d', 'trials', 'seed', 'measure', 'bins', 'range'].map((n) => [n, n]), ['returnSamples']],
  },
  {
    method: 'greedyPacking',
    call: (ag, o) => ag.greedyPacking(o),
    good: { d: 4, candidates: 8, epsilon: 0.5 },
    members: ['d', 'candidates', 'epsilon', 'seed', 'first', 'directions'].map((n) => [n, n]),
  },
];

/** Whether `message` is `method`'s error about the member called `label` (not a longer name it begins). */
const names = (message, method, label) => {
  const start = `${method}: ${label}`;
  return message.startsWith(start) && !/^[\w.[]/.test(message.slice(start.length));
};

describe.each(CONFIGS)('options in the order of index.d.ts: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test.each(METHODS.map((t) => [t.method, t]))('%s', (method, { call, good, members }) => {
    const label = ([name, label]) => label ?? `options.${name}`;
    // The good options pass, and each bad member alone is named (so that the pairs below are not vacuous).
    expect(thrownBy(() => call(ag, good))).toBe(null);
    const alone = members.map((m) => {
      const e = thrownBy(() => call(ag, { ...good, [m[0]]: BAD }));
      return [m[0], e !== null && names(e.message, method, label(m)) ? 'named' : e && e.message];
    });
    expect(alone).toEqual(members.map((m) => [m[0], 'named']));
    // Every pair of bad members: the one listed first is named.
    const wrong = [];
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const e = thrownBy(() => call(ag, { ...good, [members[i][0]]: BAD, [members[j][0]]: BAD }));
        if (!names(e.message, method, label(members[i])))
          wrong.push(`${members[i][0]} + ${members[j][0]}: ${e.message}`);
      }
    }
    expect(wrong).toEqual([]);
    // An unknown key: the known keys are listed in the same order.
    const unknown = thrownBy(() => call(ag, { ...good, unlisted: 1 }));
    expect(unknown.message).toBe(
      `${method}: options has an unknown key 'unlisted'; the known keys are ${members.map((m) => m[0]).join(', ')}`,
    );
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});
