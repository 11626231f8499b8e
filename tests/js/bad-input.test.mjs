/* eslint no-sparse-arrays: "off" -- arrays with holes are among the bad inputs tested */
// The bad-input list of the acceptance: every bad argument throws a TypeError
// or RangeError (never a wasm trap, an abort or a bare number) whose message
// names the argument and, for shapes, the shape received and the one
// expected; afterwards the module still works (the next valid call returns
// the right answer) and no wasm heap memory is leaked.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init, warmInstance } from './helpers.mjs';

const v3 = [1, 2, 3];
const I2 = [
  [1, 0],
  [0, 1],
];
// q = (1e20, 0) and two keys: q . k is 1e40 (beyond float32) for the first, 1e20 for the second.
const Q40 = [[1e20, 0]];
const K40 = [
  [1e20, 0],
  [1, 1],
];
const W8 = { data: new Float32Array(64).fill(0.1), shape: [8, 8] };
const X8 = { data: new Float32Array(24).fill(0.5), shape: [3, 8] };
const mhaW = { wQ: W8, wK: W8, wV: W8, wO: W8 };

// [title, call, error class, strings the message must contain, strings it must not contain]
const CASES = [
  // wrong type
  ['string vector', (ag) => ag.dot('abc', v3), TypeError, ['dot', 'a']],
  ['string inside a vector', (ag) => ag.dot([1, 'x', 3], v3), TypeError, ['dot', 'a']],
  ['null tensor', (ag) => ag.attention(null, I2, I2), TypeError, ['attention', 'Q']],
  ['number for a matrix', (ag) => ag.matmul(I2, 5), TypeError, ['matmul', 'B']],
  ['tensor with string data', (ag) => ag.softmax({ data: 'abc', shape: [3] }), TypeError, ['softmax', 'x.data']],
  [
    'tensor with a shape entry of the wrong kind',
    (ag) => ag.exp({ data: [1, 2], shape: [true] }),
    TypeError,
    ['exp', 'x.shape[0] is boolean true'],
  ],
  ['ragged nested array', (ag) => ag.matmul([[1, 2], [3]], I2), RangeError, ['matmul', 'A[1]', 'length 1']],
  [
    'mask mixing booleans and numbers',
    (ag) =>
      ag.attention(I2, I2, I2, {
        mask: [
          [true, 0],
          [true, true],
        ],
      }),
    TypeError,
    ['attention', 'mask'],
  ],
  ['string options', (ag) => ag.softmax(v3, 'hot'), TypeError, ['softmax', 'options']],
  ['non-boolean causal', (ag) => ag.attention(I2, I2, I2, { causal: 1 }), TypeError, ['attention', 'causal']],
  // messages: "an" before a vowel sound, and the shape as received
  [
    'an Int32Array for a vector',
    (ag) => ag.dot(new Int32Array([3, 4]), [4, 3]),
    TypeError,
    ['dot', 'a', 'got an Int32Array'],
  ],
  ['a Uint8Array for a vector', (ag) => ag.norm(new Uint8Array([3, 4])), TypeError, ['norm', 'a', 'got a Uint8Array']],
  // a shape entry that is not a number is of the wrong kind (TypeError); a number that is not a
  // non-negative integer is of the right kind with a wrong value (RangeError); 0 breaks the zero-length rule
  [
    'a fractional dimension in a shape',
    (ag) => ag.matmul({ data: new Float32Array(6), shape: [1.5, 4] }, I2),
    RangeError,
    ['matmul: A.shape[0] is 1.5; a dimension is a non-negative integer', 'got [1.5, 4]', '[..., M, K]'],
  ],
  [
    'a negative dimension in a shape',
    (ag) => ag.matmul({ data: new Float32Array(4), shape: [-1, 2] }, I2),
    RangeError,
    ['matmul: A.shape[0] is -1; a dimension is a non-negative integer', 'got [-1, 2]'],
    ['zero-length'],
  ],
  [
    'a NaN dimension in a shape',
    (ag) => ag.softmax({ data: [1, 2], shape: [2, NaN] }),
    RangeError,
    ['softmax: x.shape[1] is NaN; a dimension is a non-negative integer'],
  ],
  [
    'a string dimension in a shape',
    (ag) => ag.exp({ data: [1, 2], shape: ['2'] }),
    TypeError,
    ['exp: x.shape[0] is the string "2"; a shape is a list of non-negative integers', 'got ["2"]'],
  ],
  [
    'a hole in a shape',
    (ag) => ag.matmul({ data: new Float32Array(4), shape: [2, , 2] }, I2),
    TypeError,
    [
      'matmul: A.shape[1] is empty (a hole in the array); a shape is a list of non-negative integers',
      'got [2, empty, 2]',
      '[..., M, K]',
    ],
    ['a undefined'],
  ],
  [
    'undefined in a shape',
    (ag) => ag.matmul({ data: new Float32Array(4), shape: [2, undefined] }, I2),
    TypeError,
    ['matmul: A.shape[1] is undefined; a shape is a list of non-negative integers', 'got [2, undefined]'],
  ],
  [
    'a shape that is not an array',
    (ag) => ag.exp({ data: [1, 2], shape: '2' }),
    TypeError,
    ['exp: x.shape must be an array of non-negative integers, for x of shape [...]', 'got the string "2"'],
  ],
  [
    'a shape entry of the wrong kind before a zero',
    (ag) => ag.exp({ data: [], shape: [0, null] }),
    TypeError,
    ['exp: x.shape[1] is null'],
    ['zero-length'],
  ],
  // masks of a kind that is not accepted: what was given, and what is accepted
  [
    'an Int8Array as a mask',
    (ag) => ag.softmax(v3, { mask: new Int8Array([0, 1, 0]) }),
    TypeError,
    [
      'softmax: mask must be a boolean mask',
      'a Uint8Array of 0 and 1',
      'a Float32Array or a Float64Array',
      'of a shape that broadcasts to x [3]',
      'got an Int8Array of length 3',
    ],
    ['of shape a shape'],
  ],
  [
    'an Int32Array as attention mask',
    (ag) => ag.attention(I2, I2, I2, { mask: new Int32Array([0, 1]) }),
    TypeError,
    [
      'attention: mask must be a boolean mask',
      'of a shape that broadcasts to [B, h, Tq, Tk] = [1, 1, 2, 2]',
      'got an Int32Array of length 2',
    ],
    ['of shape a shape'],
  ],
  [
    'an Int8Array as mask data',
    (ag) => ag.softmax(v3, { mask: { data: new Int8Array([0, 1, 0]), shape: [3] } }),
    TypeError,
    [
      'softmax: mask.data must be an array of booleans or numbers, a Uint8Array (1 = true), a Float32Array or a Float64Array, for mask of a shape that broadcasts to x [3]',
      'got an Int8Array of length 3',
    ],
    ['of shape a shape'],
  ],
  [
    'a DataView as mask data',
    (ag) => ag.softmax(v3, { mask: { data: new DataView(new ArrayBuffer(3)), shape: [3] } }),
    TypeError,
    ['softmax: mask.data must be', 'got a DataView of byte length 3'],
  ],
  // an options key the method does not read: a misspelling would otherwise do nothing
  [
    'attention: unknown option key',
    (ag) => ag.attention(I2, I2, I2, { returnWeight: true }),
    TypeError,
    ['attention', "unknown key 'returnWeight'", 'returnWeights, returnScores'],
  ],
  [
    'softmax: unknown option key',
    (ag) => ag.softmax(v3, { temp: 2 }),
    TypeError,
    ['softmax', "unknown key 'temp'", 'temperature, mask'],
  ],
  [
    'matmul: unknown option key',
    (ag) => ag.matmul(I2, I2, { transpose: true }),
    TypeError,
    ['matmul', "unknown key 'transpose'", 'transposeB'],
  ],
  [
    'multiHeadAttention: unknown option key',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2, heads: 2 }),
    TypeError,
    ['multiHeadAttention', "unknown key 'heads'", 'numHeads'],
  ],
  [
    'multiHeadAttention: unknown input key',
    (ag) => ag.multiHeadAttention({ query: X8, keys: X8 }, mhaW, { numHeads: 2 }),
    TypeError,
    ['multiHeadAttention', "unknown key 'keys'", 'query, key, value'],
  ],
  [
    'multiHeadAttention: unknown weight key',
    (ag) => ag.multiHeadAttention({ query: X8 }, { ...mhaW, bq: [0] }, { numHeads: 2 }),
    TypeError,
    ['multiHeadAttention', "unknown key 'bq'", 'bQ'],
  ],
  [
    'random.normal: unknown option key',
    (ag) => ag.random.normal({ n: 4, sead: 1 }),
    TypeError,
    ['random.normal', "unknown key 'sead'", 'seed, counter, n'],
  ],
  [
    'randomDotExperiment: unknown option key',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, metric: 'cosine' }),
    TypeError,
    ['randomDotExperiment', "unknown key 'metric'", 'measure'],
  ],
  [
    'greedyPacking: unknown option key',
    (ag) => ag.greedyPacking({ d: 4, candidates: 4, epsilon: 0.5, eps: 0.5 }),
    TypeError,
    ['greedyPacking', "unknown key 'eps'", 'epsilon'],
  ],
  ['string temperature', (ag) => ag.softmax(v3, { temperature: '2' }), TypeError, ['softmax', 'temperature']],
  [
    'missing weight',
    (ag) => ag.multiHeadAttention({ query: X8 }, { wQ: W8, wK: W8, wV: W8 }, { numHeads: 2 }),
    TypeError,
    ['multiHeadAttention', 'wO', '[8, 8]'],
  ],
  [
    'missing numHeads',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, {}),
    TypeError,
    ['multiHeadAttention', 'numHeads'],
  ],
  ['string seed', (ag) => ag.random.uniform({ seed: 'x', n: 4 }), TypeError, ['random.uniform', 'seed']],
  [
    'unknown measure',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, measure: 'angle' }),
    TypeError,
    ['randomDotExperiment', 'measure'],
  ],
  // mismatched shapes
  ['vectors of different lengths', (ag) => ag.dot([1, 2], v3), RangeError, ['dot', 'b', '[3]', '[2]']],
  [
    'matmul inner dimensions',
    (ag) => ag.matmul({ data: new Float32Array(6), shape: [2, 3] }, I2),
    RangeError,
    ['matmul', 'B', '[2, 2]', 'K = 3'],
  ],
  ['matmul of a vector', (ag) => ag.matmul(v3, I2), RangeError, ['matmul', 'A', '[3]', '[..., M, K]']],
  [
    'matmul batch dimensions',
    (ag) =>
      ag.matmul({ data: new Float32Array(8), shape: [2, 2, 2] }, { data: new Float32Array(12), shape: [3, 2, 2] }),
    RangeError,
    ['matmul', '[3, 2, 2]'],
  ],
  [
    'tensor data shorter than its shape',
    (ag) => ag.exp({ data: [1, 2, 3], shape: [2, 2] }),
    RangeError,
    ['exp', 'x', '[2, 2]', '3 elements'],
  ],
  [
    'attention d_k mismatch',
    (ag) => ag.attention(I2, [[1, 2, 3]], I2),
    RangeError,
    ['attention', 'K', '[1, 3]', 'd_k = 2'],
  ],
  ['attention V rows', (ag) => ag.attention(I2, I2, [[1, 2]]), RangeError, ['attention', 'V', '[1, 2]', 'Tk = 2']],
  ['attention rank 1', (ag) => ag.attention([1, 2], I2, I2), RangeError, ['attention', 'Q', '[2]', '[..., Tq, d_k]']],
  [
    'attention batch mismatch',
    (ag) =>
      ag.attention(
        { data: new Float32Array(8), shape: [2, 2, 2] },
        { data: new Float32Array(12), shape: [3, 2, 2] },
        I2,
      ),
    RangeError,
    ['attention', 'K', '[3, 2, 2]'],
  ],
  [
    'attention: h_kv that does not divide h_q',
    (ag) =>
      ag.attention(
        { data: new Float32Array(16), shape: [1, 4, 2, 2] },
        { data: new Float32Array(12), shape: [1, 3, 2, 2] },
        { data: new Float32Array(12), shape: [1, 3, 2, 2] },
      ),
    RangeError,
    ['attention', 'K and V have h_kv = 3', 'h_q = 4', 'K [1, 3, 2, 2]', 'must divide h_q'],
  ],
  [
    'attention softcap 0',
    (ag) => ag.attention(I2, I2, I2, { softcap: 0 }),
    RangeError,
    ['attention', 'options.softcap', '> 0'],
  ],
  [
    'attention softcap not a number',
    (ag) => ag.attention(I2, I2, I2, { softcap: '2' }),
    TypeError,
    ['attention', 'options.softcap', 'must be a number'],
  ],
  [
    'attention softcap: q.k whose products of both signs overflow (a NaN before the cap)',
    (ag) =>
      ag.attention(
        { data: Float32Array.of(1e20, 1e19), shape: [1, 2] },
        { data: Float32Array.of(3e19, 1e20, 1e20, -1e20), shape: [2, 2] },
        [[0], [1]],
        { softcap: 3 },
      ),
    RangeError,
    // With the default scale 1/sqrt(2) the products cannot overflow: q . k itself did (1e20 * 1e20 - 1e39 ...).
    ['attention', 'the dot products Q K^T[0, 1] overflowed float32', 'this is before the soft cap;'],
    ['scale * Q K^T['],
  ],
  [
    'attention softcap with ALiBi: a capped score plus the bias overflows (q . k = 1), both causes named',
    (ag) => ag.attention([[1]], [[1], [1], [1]], [[1], [2], [3]], { scale: 1, softcap: 1, alibi: [3e38] }),
    RangeError,
    // The bias of key 3 for query 1 is -2 * 3e38 = -6e38: beyond float32 on its own, after the cap.
    [
      'attention',
      'the scores softcap(scale * Q K^T) + ALiBi bias[0, 2] overflowed float32',
      'or a capped score + ALiBi bias after it',
    ],
    ['the dot products Q K^T['],
  ],
  [
    'attention softcap with a mask: a finite q . k capped, plus a mask entry near -FLT_MAX, overflows',
    (ag) =>
      ag.attention(
        [[1e19, 1e19]],
        [
          [1, 1],
          [-1e19, -1e19],
        ],
        [[1], [2]],
        { scale: 1, softcap: 3e38, mask: new Float32Array([0, -3e38]) },
      ),
    RangeError,
    // q . k = -2e38 is finite; capped it is about -1.75e38, and -3e38 more is beyond float32.
    [
      'attention',
      'the scores softcap(scale * Q K^T) + mask[0, 1] overflowed float32',
      'or a capped score + mask after it',
    ],
    ['the dot products Q K^T['],
  ],
  [
    "attention softcap: a q.k beyond float32 is capped, but its 'raw' score cannot be returned",
    (ag) =>
      ag.attention(
        [[1e20, 1e20]],
        [
          [1e20, 1e20],
          [1, 1],
        ],
        [[1], [2]],
        { softcap: 5, returnScores: 'raw' },
      ),
    RangeError,
    // q . k = 2e40 is beyond float32 before the scale 1/sqrt(2) multiplies it.
    [
      'attention',
      'the dot products Q K^T[0, 0] overflowed float32',
      "not the 'raw' ones asked for by options.returnScores",
    ],
    ['scale * Q K^T['],
  ],
  [
    'attention: pastKey without pastValue',
    (ag) => ag.attention(I2, I2, I2, { pastKey: I2 }),
    TypeError,
    ['attention', 'options.pastKey and options.pastValue go together', 'got only options.pastKey'],
  ],
  [
    'attention: pastKey of another width than K',
    (ag) => ag.attention(I2, I2, I2, { pastKey: [[1, 2, 3]], pastValue: [[1, 2]] }),
    RangeError,
    ['attention', 'options.pastKey', '[1, 3]', '[P, 2]'],
  ],
  [
    'attention: pastValue with another P than pastKey',
    (ag) => ag.attention(I2, I2, I2, { pastKey: [[1, 2]], pastValue: I2 }),
    RangeError,
    ['attention', 'options.pastValue', '[2, 2]', '1 row, as options.pastKey [1, 2]'],
  ],
  [
    'attention: a NaN in pastValue',
    (ag) => ag.attention(I2, I2, I2, { pastKey: [[1, 2]], pastValue: [[NaN, 2]] }),
    RangeError,
    ['attention', 'options.pastValue[0, 0] is NaN'],
  ],
  [
    // A Float32Array cache is copied straight into the present rows and checked there, head by head.
    'attention: a NaN in the second head of a Float32Array pastKey',
    (ag) => {
      const past = new Float32Array(8).fill(0.5);
      past[5] = NaN;
      const kv = { data: new Float32Array(4).fill(0.5), shape: [2, 1, 2] };
      const pastKey = { data: past, shape: [2, 2, 2] };
      return ag.attention(kv, kv, kv, { pastKey, pastValue: { data: new Float32Array(8), shape: [2, 2, 2] } });
    },
    RangeError,
    ['attention', 'options.pastKey[1, 0, 1] is NaN'],
  ],
  // A decoding step (Tq = Tk = 1 after a cache, causal, 4 query heads on 2 key/value heads, with and
  // without rope), Float32Array inputs: the kernel vouches for Q, K and the past key through its
  // scores, and the output for V and the past value; a non-finite entry, NaN or infinite, is still
  // named, and of two, the first argument's.
  ...[false, true].flatMap((rope) =>
    [
      [{ Q: [[0, 2, 0, 3], NaN] }, 'Q[0, 2, 0, 3] is NaN'],
      [{ K: [[0, 1, 0, 0], Infinity] }, 'K[0, 1, 0, 0] is Infinity'],
      [{ V: [[0, 0, 0, 0], -Infinity] }, 'V[0, 0, 0, 0] is -Infinity'],
      [{ V: [[0, 1, 0, 3], NaN] }, 'V[0, 1, 0, 3] is NaN'],
      [{ pastKey: [[0, 1, 2, 1], Infinity] }, 'options.pastKey[0, 1, 2, 1] is Infinity'],
      [{ pastValue: [[0, 0, 2, 3], Infinity] }, 'options.pastValue[0, 0, 2, 3] is Infinity'],
      [{ pastValue: [[0, 1, 0, 0], -Infinity] }, 'options.pastValue[0, 1, 0, 0] is -Infinity'],
      [{ V: [[0, 1, 0, 1], NaN], pastKey: [[0, 1, 0, 0], NaN] }, 'V[0, 1, 0, 1] is NaN'],
      [{ Q: [[0, 3, 0, 0], Infinity], pastValue: [[0, 0, 0, 0], NaN] }, 'Q[0, 3, 0, 0] is Infinity'],
      [{ pastKey: [[0, 1, 0, 0], NaN], pastValue: [[0, 0, 0, 0], NaN] }, 'options.pastKey[0, 1, 0, 0] is NaN'],
    ].map(([bad, message]) => [
      `attention: a decoding step${rope ? ' with rope' : ''}, ${message}`,
      (ag) => {
        const shapes = {
          Q: [1, 4, 1, 4],
          K: [1, 2, 1, 4],
          V: [1, 2, 1, 4],
          pastKey: [1, 2, 3, 4],
          pastValue: [1, 2, 3, 4],
        };
        const t = {};
        for (const [name, shape] of Object.entries(shapes)) {
          const data = Float32Array.from({ length: shape.reduce((x, y) => x * y) }, (_, i) => ((i % 7) - 3) / 4);
          if (bad[name]) data[bad[name][0].reduce((flat, x, axis) => flat * shape[axis] + x, 0)] = bad[name][1];
          t[name] = { data, shape };
        }
        return ag.attention(t.Q, t.K, t.V, { causal: true, pastKey: t.pastKey, pastValue: t.pastValue, rope });
      },
      RangeError,
      ['attention', message],
    ]),
  ),
  [
    'attention: kvSeqLen not an array',
    (ag) => ag.attention(I2, I2, I2, { kvSeqLen: 2 }),
    TypeError,
    ['attention', 'options.kvSeqLen must be an array of B = 1 integers'],
  ],
  [
    'attention: kvSeqLen past the keys',
    (ag) => ag.attention(I2, I2, I2, { kvSeqLen: [3] }),
    RangeError,
    ['attention', 'options.kvSeqLen[0] = 3', 'from 0 to the 2 keys'],
  ],
  [
    'attention: kvSeqLen of another length than B',
    (ag) => ag.attention(I2, I2, I2, { kvSeqLen: [1, 2] }),
    RangeError,
    ['attention', 'options.kvSeqLen has 2 entries but B = 1'],
  ],
  ['rope with an odd d', (ag) => ag.rope([[1, 2, 3]]), RangeError, ['rope', 'x', '[1, 3]', 'd = 3 is odd']],
  [
    'rope positions of another length',
    (ag) => ag.rope([[1, 2]], { positions: [0, 1] }),
    RangeError,
    ['rope', 'options.positions has 2 entries', 'T = 1'],
  ],
  [
    'rope positions: one for two tokens',
    (ag) =>
      ag.rope(
        [
          [1, 2],
          [3, 4],
        ],
        { positions: [0] },
      ),
    RangeError,
    ['rope', 'options.positions has 1 entry but T = 2'],
  ],
  [
    'rope position beyond 2^24',
    (ag) => ag.rope([[1, 2]], { positions: [2 ** 25] }),
    RangeError,
    ['rope', 'options.positions[0] = 33554432', '2^24'],
  ],
  [
    'rope position NaN',
    (ag) => ag.rope([[1, 2]], { positions: [NaN] }),
    RangeError,
    ['rope', 'options.positions[0] = NaN', 'finite'],
  ],
  [
    'rope positions not an array',
    (ag) => ag.rope([[1, 2]], { positions: 3 }),
    TypeError,
    ['rope', 'options.positions', 'array of T = 1 positions'],
  ],
  ['rope base below 1', (ag) => ag.rope([[1, 2]], { base: 0.5 }), RangeError, ['rope', 'options.base = 0.5', '>= 1']],
  [
    'rope interleaved not a boolean',
    (ag) => ag.rope([[1, 2]], { interleaved: 1 }),
    TypeError,
    ['rope', 'options.interleaved', 'true or false'],
  ],
  [
    'attention rope with an odd d_k',
    (ag) => ag.attention([[1, 2, 3]], [[1, 2, 3]], [[1]], { rope: true }),
    RangeError,
    ['attention', 'Q', '[1, 3]', 'd = 3 is odd', 'options.rope'],
  ],
  [
    'attention rope with kvSeqLen',
    (ag) => ag.attention([[[1, 2]]], [[[1, 2]]], [[[1]]], { rope: true, kvSeqLen: [1] }),
    RangeError,
    ['attention', 'options.rope with options.kvSeqLen', 'rope(x, { positions })'],
  ],
  [
    'attention rope not a boolean or an object',
    (ag) => ag.attention(I2, I2, I2, { rope: 1 }),
    TypeError,
    ['attention', 'options.rope', 'true, false or { base, interleaved, start }'],
  ],
  [
    'attention rope with an unknown setting',
    (ag) => ag.attention(I2, I2, I2, { rope: { theta: 2 } }),
    TypeError,
    ['attention', 'options.rope', 'theta'],
  ],
  [
    'attention returnScores of an unknown stage',
    (ag) => ag.attention(I2, I2, I2, { returnScores: 'final' }),
    TypeError,
    ['attention', 'options.returnScores', "'capped' or 'raw'", '"final"'],
  ],
  [
    'options given as a Map',
    (ag) => ag.rope([[1, 2]], new Map([['base', 2]])),
    TypeError,
    ['rope', 'options must be a plain object', 'Map'],
  ],
  [
    'attention rope start beyond 2^24',
    (ag) => ag.attention([[1, 2]], [[1, 2]], [[1]], { rope: { start: 2 ** 24 + 1 } }),
    RangeError,
    ['attention', 'options.rope puts the queries and new keys at positions 16777217', '2^24'],
  ],
  [
    'attention kvSeqLen with a rank-3 Q: the leading axis is h',
    (ag) => ag.attention([[[1, 2]], [[3, 4]]], [[[1, 2]], [[3, 4]]], [[[1]], [[2]]], { kvSeqLen: [1, 1] }),
    RangeError,
    ['attention', 'options.kvSeqLen has 2 entries but B = 1', 'rank-3 Q [2, 1, 2]', '[B, 1, Tq, d_k]'],
  ],
  [
    'attention kvSeqLen entry not a number',
    (ag) => ag.attention(I2, I2, I2, { kvSeqLen: ['2'] }),
    TypeError,
    ['attention', 'options.kvSeqLen[0] must be a number', '"2"'],
  ],
  [
    'attention window 0',
    (ag) => ag.attention(I2, I2, I2, { window: 0 }),
    RangeError,
    ['attention', 'options.window', 'between 1 and'],
  ],
  [
    'attention window not an integer',
    (ag) => ag.attention(I2, I2, I2, { window: 1.5 }),
    TypeError,
    ['attention', 'options.window', 'integer', '1.5'],
  ],
  [
    'attention window with causal false',
    (ag) => ag.attention(I2, I2, I2, { window: 2, causal: false }),
    RangeError,
    ['attention', 'options.window = 2', 'causal', 'options.causal is false'],
  ],
  [
    'attention alibi of the wrong length',
    (ag) => ag.attention({ data: new Float32Array(8), shape: [2, 2, 2] }, I2, I2, { alibi: [0.5] }),
    RangeError,
    ['attention', 'options.alibi has 1 slope but', 'h_q = 2'],
  ],
  [
    // Q's head axis is 1 and broadcast against K's and V's 4: the heads counted are the 4.
    'attention alibi of the wrong length with Q broadcast over the heads',
    (ag) =>
      ag.attention(
        { data: new Float32Array(8), shape: [1, 2, 4] },
        { data: new Float32Array(48), shape: [4, 3, 4] },
        { data: new Float32Array(24), shape: [4, 3, 2] },
        { alibi: [1] },
      ),
    RangeError,
    ['attention', 'options.alibi has 1 slope but', 'h_q = 4 query heads', "K's and V's when Q's is 1"],
  ],
  [
    "attention alibi: true beyond alibiSlopes' head count",
    (ag) => ag.attention({ data: new Float32Array(70000), shape: [70000, 1, 1] }, [[1]], [[1]], { alibi: true }),
    RangeError,
    ['attention', 'options.alibi: true', 'h_q = 70000', 'at most 65536'],
  ],
  [
    'attention alibi not an array',
    (ag) => ag.attention(I2, I2, I2, { alibi: 0.5 }),
    TypeError,
    ['attention', 'options.alibi', 'true, false or an array of h_q = 1 slopes'],
  ],
  [
    'attention alibi slope not finite',
    (ag) => ag.attention(I2, I2, I2, { alibi: [Infinity] }),
    RangeError,
    ['attention', 'options.alibi[0] = Infinity', 'finite'],
  ],
  [
    'attention alibi slope not a number',
    (ag) => ag.attention(I2, I2, I2, { alibi: ['0.5'] }),
    TypeError,
    ['attention', 'options.alibi[0] must be a number', '"0.5"'],
  ],
  [
    'attention alibi bias beyond float32',
    (ag) =>
      ag.attention(
        [[1, 0]],
        [
          [1, 0],
          [0, 1],
          [1, 1],
        ],
        [[1], [2], [3]],
        { alibi: [3e38] },
      ),
    RangeError,
    ['attention', 'ALiBi bias', 'overflowed float32', "options.alibi's slopes down"],
  ],
  ['alibiSlopes of 0 heads', (ag) => ag.alibiSlopes(0), RangeError, ['alibiSlopes', 'h', 'between 1 and 65536']],
  ['alibiSlopes of a string', (ag) => ag.alibiSlopes('8'), TypeError, ['alibiSlopes', 'h must be an integer']],
  [
    'multiHeadAttention kvHeads not dividing numHeads',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 4, kvHeads: 3 }),
    RangeError,
    ['multiHeadAttention', 'options.kvHeads = 3 does not divide options.numHeads = 4'],
  ],
  [
    'multiHeadAttention wK not matching kvHeads',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 4, kvHeads: 2 }),
    RangeError,
    ['multiHeadAttention', 'wK', '[8, 8]', '[d_model, kvHeads d_k] = [8, 4]', 'kvHeads = 2'],
  ],
  [
    'multiHeadAttention kvHeads 0',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2, kvHeads: 0 }),
    RangeError,
    ['multiHeadAttention', 'options.kvHeads', 'between 1 and'],
  ],
  [
    'multiHeadAttention rope with an odd d_k',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 8, rope: true }),
    RangeError,
    ['multiHeadAttention', 'options.rope', 'd_k = d_model / numHeads = 1', 'even'],
  ],
  [
    'multiHeadAttention rope not an object',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2, rope: 'yes' }),
    TypeError,
    ['multiHeadAttention', 'options.rope', 'true, false or { base, interleaved }'],
  ],
  [
    'attention softcap 0 in float32',
    (ag) => ag.attention(I2, I2, I2, { softcap: 1e-50 }),
    RangeError,
    ['attention', 'options.softcap', '0 in float32'],
  ],
  [
    'mask that does not broadcast',
    (ag) => ag.attention(I2, I2, I2, { mask: [[true, true, true]] }),
    RangeError,
    ['attention', 'mask', '[1, 3]', '[B, h, Tq, Tk] = [1, 1, 2, 2]'],
  ],
  [
    'softmax mask that does not broadcast',
    (ag) => ag.softmax(v3, { mask: [0, -Infinity] }),
    RangeError,
    ['softmax', 'mask', '[2]', '[3]'],
  ],
  [
    'weightedSum rows',
    (ag) => ag.weightedSum([0.5, 0.5], [[1, 2]]),
    RangeError,
    ['weightedSum', 'V', '[1, 2]', 'T = 2'],
  ],
  [
    'MHA weight shape',
    (ag) => ag.multiHeadAttention({ query: X8 }, { ...mhaW, wK: I2 }, { numHeads: 2 }),
    RangeError,
    // wK's rows are judged against query (d_model = 8); its columns only once options.numHeads is read.
    ['multiHeadAttention: wK has shape [2, 2]', '[d_model, kvHeads d_k] with d_model = 8'],
  ],
  [
    'MHA bias shape',
    (ag) => ag.multiHeadAttention({ query: X8 }, { ...mhaW, bV: v3 }, { numHeads: 2 }),
    RangeError,
    ['multiHeadAttention', 'bV', '[3]', '[8]'],
  ],
  [
    'MHA key d_model',
    (ag) => ag.multiHeadAttention({ query: X8, key: I2 }, mhaW, { numHeads: 2 }),
    RangeError,
    ['multiHeadAttention', 'key', '[2, 2]', 'd_model = 8'],
  ],
  [
    'MHA keyPaddingMask length',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2, keyPaddingMask: [true, false] }),
    RangeError,
    ['multiHeadAttention', 'keyPaddingMask', '[2]', '[Tk] = [3]'],
  ],
  // zero length
  ['empty vectors', (ag) => ag.dot([], []), RangeError, ['dot', 'a', '[0]']],
  ['empty Float32Array', (ag) => ag.norm(new Float32Array(0)), RangeError, ['norm', 'a', '[0]']],
  [
    'zero dimension in a shape',
    (ag) => ag.softmax({ data: [], shape: [2, 0] }),
    RangeError,
    ['softmax', 'x', '[2, 0]'],
  ],
  ['zero random count', (ag) => ag.random.normal({ seed: 1, n: 0 }), RangeError, ['random.normal', 'n']],
  // non-finite values (the message names the first bad index)
  ['NaN in a vector', (ag) => ag.dot([1, NaN, 3], [NaN, 2, 3]), RangeError, ['dot', 'a[1]', 'NaN', 'finite']],
  [
    'Infinity in a matrix',
    (ag) =>
      ag.attention(
        [
          [1, 2],
          [3, Infinity],
        ],
        I2,
        I2,
      ),
    RangeError,
    ['attention', 'Q[1, 1]', 'Infinity'],
  ],
  ['beyond float32', (ag) => ag.norm([1, 1e39]), RangeError, ['norm', 'a[1]', 'float32']],
  // A vector of zeros and a NaN, which a norm scaled by its largest finite entry could take for the zero
  // vector: refused before the kernel (which itself gives NaN: tests/cpp/vector_test.cc), in either form.
  ['NaN among zeros', (ag) => ag.norm([0, 0, NaN]), RangeError, ['norm', 'a[2]', 'NaN', 'finite']],
  [
    'NaN among zeros in a Float32Array',
    (ag) => ag.norm(Float32Array.of(0, NaN, 0)),
    RangeError,
    ['norm', 'a[1]', 'NaN'],
  ],
  [
    'Infinity in a Float32Array',
    (ag) => ag.squaredNorm(Float32Array.of(1, 2, -Infinity)),
    RangeError,
    ['squaredNorm', 'a[2]'],
  ],
  [
    '+Infinity in an additive mask',
    (ag) =>
      ag.attention(I2, I2, I2, {
        mask: [
          [0, Infinity],
          [0, 0],
        ],
      }),
    RangeError,
    ['attention', 'mask[0, 1]', '-Infinity only'],
  ],
  ['NaN in a softmax mask', (ag) => ag.softmax(v3, { mask: [0, NaN, 0] }), RangeError, ['softmax', 'mask[1]']],
  [
    'a softmax mask entry beyond float32',
    (ag) => ag.softmax(v3, { mask: [0, 1e39, 0] }),
    RangeError,
    [
      'softmax',
      'mask[1]',
      '1e+39',
      'finite float32 values (|x| <= 3.4028234663852886e38, the largest float32, once rounded to float32)',
    ],
  ],
  // softmax checks a Float32Array x in its own max pass (registry.inc): the same errors, with and
  // without a temperature or a mask, in a row long enough for the vector loop and its tail
  [
    'NaN in a softmax Float32Array',
    (ag) => ag.softmax({ data: Float32Array.from({ length: 42 }, (_, i) => (i === 25 ? NaN : i / 7)), shape: [2, 21] }),
    RangeError,
    ['softmax', 'x[1, 4]', 'NaN', 'finite'],
  ],
  [
    'Infinity in a softmax Float32Array',
    (ag) =>
      ag.softmax({
        data: Float32Array.from({ length: 42 }, (_, i) => (i === 20 ? Infinity : i === 30 ? NaN : 1)),
        shape: [2, 21],
      }),
    RangeError,
    ['softmax', 'x[0, 20]', 'Infinity'],
  ],
  [
    '-Infinity in a softmax Float32Array',
    (ag) => ag.softmax({ data: Float32Array.of(1, -Infinity, 3), shape: [3] }),
    RangeError,
    ['softmax', 'x[1]', 'Infinity'],
  ],
  [
    'NaN in a softmax Float32Array with a temperature',
    (ag) => ag.softmax(Float32Array.of(1, 2, NaN, 4, 5), { temperature: 2 }),
    RangeError,
    ['softmax', 'x[2]', 'NaN'],
  ],
  [
    'Infinity in a softmax Float32Array with a mask',
    (ag) => ag.softmax(Float32Array.of(1, 2, 3, Infinity, 5), { mask: [0, -Infinity, 0, 0, 0] }),
    RangeError,
    ['softmax', 'x[3]', 'Infinity'],
  ],
  [
    'NaN in an MHA weight',
    (ag) =>
      ag.multiHeadAttention(
        { query: X8 },
        { ...mhaW, wV: { data: Float32Array.from({ length: 64 }, (_, i) => (i === 9 ? NaN : 0)), shape: [8, 8] } },
        { numHeads: 2 },
      ),
    RangeError,
    ['multiHeadAttention', 'wV[1, 1]'],
  ],
  ['negative probability', (ag) => ag.entropy([0.5, -0.25, 0.75]), RangeError, ['entropy', 'p[1]']],
  [
    'entropy of a vector that does not sum to 1',
    (ag) => ag.entropy([0.5, 0.7]),
    RangeError,
    ['entropy: p [2] must be a distribution', 'sum to 1.19999', 'expected 1 within'],
  ],
  ['entropy of a vector summing to 0', (ag) => ag.entropy([0, 0, 0]), RangeError, ['entropy', 'sum to 0']],
  // zero vectors where a direction is needed
  ['cosine of a zero vector', (ag) => ag.cosine([0, 0], [1, 2]), RangeError, ['cosine', 'a', 'zero vector', '[2]']],
  ['angle with a zero vector', (ag) => ag.angle([1, 2], [0, 0]), RangeError, ['angle', 'b', 'zero vector']],
  [
    'scalar projection onto zero',
    (ag) => ag.scalarProjection([1, 2], [0, 0]),
    RangeError,
    ['scalarProjection', 'b', 'zero vector'],
  ],
  [
    'vector projection onto zero',
    (ag) => ag.vectorProjection([1, 2], [0, 0]),
    RangeError,
    ['vectorProjection', 'b', 'zero vector'],
  ],
  ['normalize zero', (ag) => ag.normalize([0, 0, 0]), RangeError, ['normalize', 'a', 'zero vector']],
  // options out of range
  [
    'numHeads not dividing d_model',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 3 }),
    RangeError,
    ['multiHeadAttention', 'numHeads = 3', 'd_model = 8', '[3, 8]'],
  ],
  [
    'numHeads zero',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 0 }),
    RangeError,
    ['numHeads = 0', 'must be >= 1'],
  ],
  [
    'numHeads not an integer',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2.5 }),
    TypeError,
    ['numHeads', 'integer', 'got 2.5'],
  ],
  ['temperature zero', (ag) => ag.softmax(v3, { temperature: 0 }), RangeError, ['softmax', 'temperature']],
  ['temperature negative', (ag) => ag.softmax(v3, { temperature: -1 }), RangeError, ['softmax', 'temperature']],
  ['temperature infinite', (ag) => ag.softmax(v3, { temperature: Infinity }), RangeError, ['softmax', 'temperature']],
  ['temperature NaN', (ag) => ag.softmax(v3, { temperature: NaN }), RangeError, ['softmax', 'temperature']],
  ['scale NaN', (ag) => ag.attention(I2, I2, I2, { scale: NaN }), RangeError, ['attention', 'scale']],
  ['negative seed', (ag) => ag.random.uniform({ seed: -1, n: 4 }), RangeError, ['random.uniform', 'seed']],
  ['unsafe seed', (ag) => ag.random.uniform({ seed: 2 ** 60, n: 4 }), RangeError, ['random.uniform', 'seed', 'BigInt']],
  [
    'BigInt seed beyond 64 bits',
    (ag) => ag.random.uniform({ seed: 1n << 64n, n: 4 }),
    RangeError,
    ['random.uniform', 'seed'],
  ],
  [
    'fractional counter',
    (ag) => ag.random.normal({ seed: 1, counter: 0.5, n: 4 }),
    RangeError,
    ['random.normal', 'counter'],
  ],
  [
    'empty histogram range',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [1, 1] }),
    RangeError,
    ['randomDotExperiment', 'range'],
  ],
  // ends that differ but are one float32 (its spacing at 1 is 2^-23, at 0.1 2^-27; 0.1 is 13421773 * 2^-27 in
  // float32): said to be equal once rounded, with that float32, not as if lo < hi failed as given
  [
    'a histogram range whose ends round to one float32',
    (ag) => ag.randomDotExperiment({ d: 8, trials: 100, range: [1, 1 + 1e-12] }),
    RangeError,
    [
      'randomDotExperiment: range [lo, hi] needs lo < hi after rounding to float32 (both are 1); got [1, 1.000000000001]',
    ],
  ],
  [
    'a histogram range whose ends round to one float32 that is not an integer',
    (ag) => ag.randomDotExperiment({ d: 8, trials: 100, range: [0.1, 0.1 + 1e-10] }),
    RangeError,
    [`after rounding to float32 (both are ${13421773 * 2 ** -27}); got [0.1, 0.1000000001]`],
  ],
  [
    'a histogram range with lo > hi',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [2, 1] }),
    RangeError,
    ['randomDotExperiment: range [lo, hi] needs lo < hi; got [2, 1]'],
    ['float32'],
  ],
  // an entry of the range that is not a number: named with range's shape and what it must be, as an entry of
  // an array argument is, not as an option that was not given
  [
    'a histogram range without its lo',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [undefined, 1] }),
    TypeError,
    ['randomDotExperiment: range[0] must be a finite number (range has shape [2]; [lo, hi], lo < hi); got undefined'],
    ['is required'],
  ],
  [
    'a histogram range with a hole for its lo',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [, 1] }),
    TypeError,
    ['randomDotExperiment: range[0] must be a finite number', 'got an empty slot (a hole in the array)'],
    ['is required'],
  ],
  [
    'a histogram range with a string for its hi',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [0, '1'] }),
    TypeError,
    ['randomDotExperiment: range[1] must be a finite number (range has shape [2]', 'got the string "1"'],
  ],
  [
    'a histogram range that is a number',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: 4 }),
    TypeError,
    ['randomDotExperiment: range must be an array [lo, hi] of two finite numbers, lo < hi; got number 4'],
  ],
  [
    'a histogram range of three numbers',
    (ag) => ag.randomDotExperiment({ d: 4, trials: 4, range: [0, 1, 2] }),
    TypeError,
    ['randomDotExperiment: range must be an array [lo, hi]', 'got an array of length 3'],
  ],
  [
    'zero dimension experiment',
    (ag) => ag.randomDotExperiment({ d: 0, trials: 4 }),
    RangeError,
    ['randomDotExperiment', 'd'],
  ],
  [
    'temperature that underflows float32',
    (ag) => ag.softmax([1, 2], { temperature: 1e-300 }),
    RangeError,
    ['softmax', 'temperature', 'float32'],
  ],
  [
    'experiment too long for one call',
    (ag) => ag.randomDotExperiment({ d: 1e6, trials: 1e6 }),
    RangeError,
    ['randomDotExperiment', 'd * trials', '2^26'],
  ],
  // rank and raggedness
  [
    'softmax of a rank-0 tensor',
    (ag) => ag.softmax({ data: [1], shape: [] }),
    RangeError,
    ['softmax', 'x', '[] (scalar)', '[..., n]'],
  ],
  [
    'naive softmax of a rank-0 tensor',
    (ag) => ag.softmaxNaive({ data: [7], shape: [] }),
    RangeError,
    ['softmaxNaive', 'x', '[..., n]'],
  ],
  [
    'logSumExp of a rank-0 tensor',
    (ag) => ag.logSumExp({ data: [7], shape: [] }),
    RangeError,
    ['logSumExp', 'x', '[..., n]'],
  ],
  [
    'an empty slot of a sparse array',
    (ag) => ag.normalize({ data: [1, , 3], shape: [3] }),
    TypeError,
    ['normalize', 'a[1] must be a number', 'a has shape [3]', 'an empty slot'],
  ],
  [
    'an empty slot of a nested sparse array',
    (ag) => ag.matmul([[1, , 3]], [[1], [2], [3]]),
    TypeError,
    ['matmul', 'A[0, 1] must be a number', 'an empty slot'],
  ],
  [
    'data shorter than its shape',
    (ag) => ag.matmul({ data: new Float32Array(1), shape: [1, 2] }, [[1], [2]]),
    RangeError,
    ['matmul: A.data has 1 element but A.shape [1, 2] holds 2'],
  ],
  [
    'a null in a boolean mask',
    (ag) => ag.softmax([1, 2, 3], { mask: [true, null, true] }),
    TypeError,
    ['softmax', 'mask[1] must be a boolean', 'got null'],
  ],
  [
    'an empty slot in a boolean mask',
    (ag) => ag.softmax([1, 2, 3], { mask: [true, , true] }),
    TypeError,
    ['softmax', 'mask[1] must be a boolean', 'an empty slot'],
  ],
  [
    'a number in a boolean mask',
    (ag) => ag.softmax([1, 2, 3], { mask: [true, 0, true] }),
    TypeError,
    ['softmax', 'mask[1] must be a boolean', 'all booleans or all numbers', 'got number 0'],
  ],
  [
    'a string among numbers',
    (ag) => ag.dot([1, 2, 3], [1, 'x', 3]),
    TypeError,
    ['dot: b[1] must be a number (b has shape [3]); got the string "x"'],
  ],
  [
    'null in a nested array',
    (ag) => ag.matmul([[1, null, 3]], [[1], [2], [3]]),
    TypeError,
    ['matmul', 'A[0, 1] must be a number', 'A has shape [1, 3]', 'got null'],
  ],
  [
    'a shape whose size passes 2^53',
    (ag) => ag.softmax({ data: new Float32Array(4), shape: [2 ** 31, 2 ** 31] }),
    RangeError,
    ['softmax', 'x.shape [2147483648, 2147483648] holds 4611686018427387904'],
  ],
  [
    'a mask dimension that must be 1',
    (ag) =>
      ag.attention(
        [[1, 0]],
        [
          [1, 0],
          [0, 1],
        ],
        [[1], [2]],
        { mask: [[[0, -Infinity]], [[0, -Infinity]]] },
      ),
    RangeError,
    ['attention', 'mask', 'is 2, not 1'],
  ],
  [
    'an array where a number belongs',
    (ag) =>
      ag.exp([
        [1, 2],
        [3, [4]],
      ]),
    TypeError,
    ['exp: x[1, 1] must be a number (x has shape [2, 2]); got an array'],
    ['of shape [...]'],
  ],
  [
    'an array where a number belongs (matmul)',
    (ag) =>
      ag.matmul(
        [
          [1, [2]],
          [3, 4],
        ],
        I2,
      ),
    TypeError,
    ['matmul: A[0, 1] must be a number (A has shape [2, 2]); got an array'],
    ['[..., M, K]'],
  ],
  [
    'an empty slot where a row belongs',
    (ag) => ag.matmul([[1, 2], , [3, 4]], I2),
    TypeError,
    ['matmul: A[1] must be an array of length 2 (A has shape [3, 2]); got an empty slot (a hole in the array)'],
    ['not an array'],
  ],
  [
    'an empty slot as the first row',
    (ag) => ag.matmul([, [1, 2], [3, 4]], I2),
    TypeError,
    [
      'matmul: A[0] must be an array of length 2, as A[1] is (A has shape [3, 2]); got an empty slot (a hole in the array)',
    ],
    ['must be a number'],
  ],
  [
    'null as the first row',
    (ag) => ag.matmul([null, [1, 2]], I2),
    TypeError,
    ['matmul: A[0] must be an array of length 2, as A[1] is (A has shape [2, 2]); got null'],
    ['must be a number'],
  ],
  [
    'null as the first row of a mask',
    (ag) =>
      ag.softmax(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        { mask: [null, [true, false, true]] },
      ),
    TypeError,
    ['softmax: mask[0] must be an array of length 3, as mask[1] is (mask has shape [2, 3]); got null'],
    ['must be a number'],
  ],
  [
    'the first bad entry in flat order is named, before a ragged row after it',
    (ag) => ag.matmul([[1, 'a'], [1]], I2),
    TypeError,
    ['matmul: A[0, 1] must be a number (A has shape [2, 2]); got the string "a"'],
    ['rectangular'],
  ],
  [
    'an empty first row named from the first row after the empty ones',
    (ag) => ag.matmul([, null, [1, 2]], I2),
    TypeError,
    ['matmul: A[0] must be an array of length 2, as A[2] is (A has shape [3, 2]); got an empty slot'],
    ['must be a number'],
  ],
  [
    'an option of the wrong kind is described like an argument',
    (ag) => ag.softmax([1, 2], { temperature: '2' }),
    TypeError,
    ['softmax: options.temperature must be a number; got the string "2"'],
  ],
  [
    'numHeads of the wrong kind is described like an argument',
    (ag) => ag.multiHeadAttention({ query: [[1, 2]] }, { wQ: I2, wK: I2, wV: I2, wO: I2 }, { numHeads: '2' }),
    TypeError,
    ['options.numHeads (h) must be an integer >= 1 that divides d_model = 2; got the string "2"'],
  ],
  [
    'a nested array that contains itself',
    (ag) => {
      const a = [1];
      a[0] = a;
      return ag.dot(a, [1]);
    },
    TypeError,
    ['dot: a[0] is a itself: an array that contains itself has no shape'],
  ],
  [
    'a mask that contains itself',
    (ag) => {
      const m = [[true]];
      m[0][0] = m;
      return ag.softmax([1], { mask: m });
    },
    TypeError,
    ['softmax: mask[0, 0] is mask itself'],
  ],
  [
    'arrays nested deeper than 1000',
    (ag) => {
      let d = [1];
      for (let i = 0; i < 5000; i++) d = [d];
      return ag.dot(d, [1]);
    },
    RangeError,
    ['dot: a is nested more than 1000 arrays deep; pass {data, shape}'],
    ['call stack'],
  ],
  [
    'shape entries of several kinds',
    (ag) => ag.dot({ data: [1, 2], shape: [[2], true] }, [1, 2]),
    TypeError,
    ['dot: a.shape[0] is an array', 'got [array, true]'],
    ['object'],
  ],
  [
    'a shape with an astronomical size',
    (ag) => ag.dot({ data: [1, 2], shape: [1e300, 2] }, [1, 2]),
    RangeError,
    ['a.shape [1e+300, 2] holds about 2.000e+300'],
  ],
  [
    'an object with a long key',
    (ag) => ag.dot({ ['k'.repeat(300)]: 1, b: 1, c: 1, d: 1, e: 1, f: 1 }, [1]),
    TypeError,
    [`{${'k'.repeat(40)}..., b, c, d, e, ... (6 keys)}`, 'a Float32Array or a Float64Array'],
    ['k'.repeat(41)],
  ],
  [
    'an empty slot where a block belongs',
    (ag) => ag.exp([[[1], [2]], , [[5], [6]]]),
    TypeError,
    ['exp: x[1] must be an array of length 2 (x has shape [3, 2, 1]); got an empty slot (a hole in the array)'],
  ],
  [
    'a number where a row belongs',
    (ag) => ag.matmul([[1, 2], 3], I2),
    TypeError,
    ['matmul: A[1] must be an array of length 2 (A has shape [2, 2]); got number 3'],
  ],
  [
    'a long string is cut',
    (ag) => ag.dot('x'.repeat(100), v3),
    TypeError,
    [`got the string "${'x'.repeat(40)}..." (100 characters)`],
  ],
  // the kind of a mask array is that of its first boolean or number: a null or an empty slot before it is named as such
  [
    'a null first in a boolean mask',
    (ag) => ag.softmax(v3, { mask: [null, true, false] }),
    TypeError,
    [
      'softmax: mask[0] must be a boolean, as mask[1] is (mask has shape [3]; a mask is all booleans or all numbers); got null',
    ],
  ],
  [
    'an empty slot first in a boolean mask',
    (ag) => ag.softmax(v3, { mask: { data: [, true, false], shape: [3] } }),
    TypeError,
    ['softmax: mask[0] must be a boolean, as mask[1] is', 'got an empty slot (a hole in the array)'],
  ],
  [
    'an empty slot first in a nested boolean mask',
    (ag) =>
      ag.attention(I2, I2, I2, {
        mask: [
          [, true],
          [true, true],
        ],
      }),
    TypeError,
    ['attention: mask[0, 0] must be a boolean, as mask[0, 1] is', 'mask has shape [2, 2]', 'got an empty slot'],
  ],
  [
    'a null first in an additive mask',
    (ag) => ag.softmax(v3, { mask: [null, 0, -Infinity] }),
    TypeError,
    ['softmax: mask[0] must be a number, as mask[1] is', 'got null'],
  ],
  [
    'a boolean in an additive mask',
    (ag) => ag.softmax(v3, { mask: [0, true, 0] }),
    TypeError,
    ['softmax: mask[1] must be a number, as mask[0] is', 'all booleans or all numbers', 'got boolean true'],
  ],
  [
    'a mask of nulls only',
    (ag) => ag.softmax(v3, { mask: [null, null, null] }),
    TypeError,
    ['softmax: mask[0] must be a boolean or a number (mask has shape [3]); got null'],
  ],
  [
    'a keyPaddingMask with an empty slot first',
    (ag) => ag.multiHeadAttention({ query: X8 }, mhaW, { numHeads: 2, keyPaddingMask: [, false, true] }),
    TypeError,
    ['multiHeadAttention: keyPaddingMask[0] must be a boolean, as keyPaddingMask[1] is', 'got an empty slot'],
  ],
  // finite inputs whose intermediate values overflow float32: a RangeError, never NaN or zeros
  [
    'scores overflowing to +Infinity',
    (ag) =>
      ag.attention(
        [[1e20, 0]],
        [
          [1e20, 0],
          [1e19, 0],
        ],
        [[1], [2]],
        { scale: 1 },
      ),
    RangeError,
    ['attention', 'scores', '[0, 0]', 'overflowed float32'],
  ],
  [
    'scores overflowing to -Infinity (not a masked row)',
    (ag) =>
      ag.attention(
        [[1e20, 0]],
        [
          [-1e20, 0],
          [-1e19, 0],
        ],
        [[1], [2]],
        { scale: 1 },
      ),
    RangeError,
    ['attention', 'scores', 'overflowed float32'],
  ],
  // What overflowed: q . k (1e20 * 1e20 = 1e40 > FLT_MAX) is formed before the scale multiplies it, so
  // with |scale| <= 1 the dot products are named; a scale above 1 can overflow a finite q . k (3e38).
  [
    'scores of scale 0 from a q.k beyond float32 (0 times Infinity is NaN)',
    (ag) => ag.attention(Q40, K40, [[1], [2]], { scale: 0 }),
    RangeError,
    ['attention: the dot products Q K^T[0, 0] overflowed float32', 'scale = 0 times an infinite q . k is NaN'],
    ['scale * Q K^T['],
  ],
  [
    'scores of scale 0 with a mask: 0 + a mask entry cannot overflow, q.k did',
    (ag) => ag.attention(Q40, K40, [[1], [2]], { scale: 0, mask: [-3e38, 3e38] }),
    RangeError,
    ['attention: the dot products Q K^T[0, 0] overflowed float32'],
    ['scale * Q K^T[', '+ mask['],
  ],
  [
    'scores of a scale that is 0 in float32',
    (ag) => ag.attention(Q40, K40, [[1], [2]], { scale: 1e-50 }),
    RangeError,
    ['attention: the dot products Q K^T[0, 0] overflowed float32', 'scale = 1e-50 (0 in float32)'],
    ['scale * Q K^T['],
  ],
  [
    'scores of scale 0.5 from a q.k beyond float32, materialized',
    (ag) => ag.attention(Q40, K40, [[1], [2]], { scale: 0.5, returnWeights: true }),
    RangeError,
    ['attention: the dot products Q K^T[0, 0] overflowed float32', 'scale = 0.5 (|scale| <= 1)'],
    ['scale * Q K^T['],
  ],
  [
    'scores of scale 2 overflowing from a finite q.k: the product is named',
    (ag) => ag.attention([[1e38]], [[3], [3]], [[1], [2]], { scale: 2 }),
    RangeError,
    ['attention: the scores scale * Q K^T[0, 0] overflowed float32'],
    ['dot products'],
  ],
  [
    'attentionBackward scores of scale 0 from a q.k beyond float32',
    (ag) => ag.attentionBackward(Q40, [K40[0]], [[1]], [[1]], { scale: 0 }),
    RangeError,
    ['attentionBackward: the dot products Q K^T[0, 0] overflowed float32'],
    ['scale * Q K^T['],
  ],
  [
    'attentionTrace scores of scale 0 from a q.k beyond float32',
    (ag) => ag.attentionTrace(Q40, [K40[0]], [[1]], { scale: 0 }),
    RangeError,
    ['attentionTrace: the dot products Q K^T[0, 0] overflowed float32'],
    ['scale * Q K^T['],
  ],
  [
    'scores overflowing only once the mask is added',
    (ag) => ag.attention([[1e38]], [[3], [3]], [[1], [2]], { scale: 1, mask: [3e38, 0] }),
    RangeError,
    ['attention: the scores scale * Q K^T + mask[0, 0] overflowed float32'],
  ],
  [
    'softmax logits overflowing through the temperature',
    (ag) => ag.softmax([1e38, 3e38], { temperature: 0.5 }),
    RangeError,
    ['softmax: x[1] / temperature overflowed', 'raise options.temperature, or scale x down'],
  ],
  [
    'softmax logits plus mask below -FLT_MAX',
    (ag) => ag.softmax([-3e38, -3e38], { mask: [-3e38, -3e38] }),
    RangeError,
    ['softmax: x[0] / temperature + mask overflowed', 'raise options.temperature, or scale x or the mask down'],
  ],
  [
    'a partial sum overflowing (exact result 0)',
    (ag) =>
      ag.dot([3e38, 3e38, -3e38, -3e38], [1, 1, 1, 1]).toString() + ag.dot([3e38, -3e38, 3e38, -3e38], [1, 1, 1, 1]),
    RangeError,
    ['dot', 'overflowed float32'],
  ],
  // ... in a projection of multi-head attention: the projection is named, not the scores or the output it spoils
  // (1e20 * 1e20 = 1e40 > FLT_MAX ~ 3.4e38; I2 is the identity)
  [
    'MHA query projection overflowing',
    (ag) =>
      ag.multiHeadAttention(
        {
          query: [
            [1e20, 1],
            [2, 1e20],
          ],
        },
        {
          wQ: [
            [1e20, 0],
            [0, 1e20],
          ],
          wK: I2,
          wV: I2,
          wO: I2,
        },
        { numHeads: 1 },
      ),
    RangeError,
    ['multiHeadAttention: Q[0, 0] overflowed float32', 'the projection Q = query\u00b7wQ,', 'scale query or wQ down'],
  ],
  [
    'MHA key projection overflowing (cross-attention)',
    (ag) =>
      ag.multiHeadAttention(
        {
          query: I2,
          key: [
            [1, 1],
            [1e20, 1],
          ],
        },
        {
          wQ: I2,
          wK: [
            [1e20, 0],
            [0, 1],
          ],
          wV: I2,
          wO: I2,
        },
        { numHeads: 1 },
      ),
    RangeError,
    ['multiHeadAttention: K[1, 0] overflowed float32', 'the projection K = key\u00b7wK,', 'scale key or wK down'],
  ],
  [
    'MHA value projection with a bias overflowing (batched self-attention)',
    (ag) =>
      ag.multiHeadAttention(
        {
          query: [
            [
              [0, 0],
              [0, 0],
            ],
            [
              [1e20, 0],
              [0, 0],
            ],
          ],
        },
        {
          wQ: [
            [0, 0],
            [0, 0],
          ],
          wK: [
            [0, 0],
            [0, 0],
          ],
          wV: [
            [1e20, 0],
            [0, 1],
          ],
          wO: I2,
          bV: [1, 1],
        },
        { numHeads: 1 },
      ),
    RangeError,
    [
      'multiHeadAttention: V[1, 0, 0] overflowed float32',
      'the projection V = query\u00b7wV + bV,',
      'shape [2, 2, 2]',
      'scale query, wV or bV down',
    ],
  ],
  [
    'MHA output projection overflowing into NaN',
    (ag) =>
      ag.multiHeadAttention(
        { query: [[3e38, -3e38]] },
        {
          wQ: [
            [0, 0],
            [0, 0],
          ],
          wK: [
            [0, 0],
            [0, 0],
          ],
          wV: I2,
          wO: [
            [2, 1],
            [2, 1],
          ],
        },
        { numHeads: 1 },
      ),
    RangeError,
    [
      'multiHeadAttention: output[0, 0] overflowed float32',
      'the output projection concat(heads)\u00b7wO,',
      'scale wO or the inputs down',
    ],
  ],
  // sizes beyond the 1 GiB heap: refused before allocating (C would be 10 GB) ...
  [
    'output beyond the heap limit',
    (ag) =>
      ag.matmul(
        { data: new Float32Array(50000), shape: [50000, 1] },
        { data: new Float32Array(50000), shape: [1, 50000] },
      ),
    RangeError,
    ['matmul', 'C', '1 GiB'],
  ],
  // ... and a request under the limit that malloc cannot satisfy (1020 MiB on top of what the heap holds): malloc returns 0.
  [
    'malloc failure',
    (ag) =>
      ag.matmul(
        { data: new Float32Array(16320), shape: [16320, 1] },
        { data: new Float32Array(16384), shape: [1, 16384] },
      ),
    RangeError,
    ['matmul', 'could not allocate', 'C'],
  ],
  // createTransformer: bad configs, and bad batches of a model (disposed after the call)
  [
    'transformer heads not dividing dModel',
    (ag) => ag.createTransformer({ vocab: 5, T: 4, dModel: 8, heads: 3 }),
    RangeError,
    ['createTransformer', 'config.heads must divide config.dModel', 'heads 3 for dModel 8'],
  ],
  [
    'transformer config of null',
    (ag) => ag.createTransformer(null),
    TypeError,
    ['createTransformer', 'config must be an object', 'null'],
  ],
  [
    'transformer batch of null',
    (ag) => withModel(ag, (m) => m.evaluate(null)),
    TypeError,
    ['transformer.evaluate', 'batch must be an object', 'null'],
  ],
  [
    'transformer gradients with an option it does not take',
    (ag) => withModel(ag, (m) => m.gradients({ tokens: [0, 1, 2, 3], targets: [1, 2, 3, -1] }, { lr: 0.1 })),
    TypeError,
    ['transformer.gradients', "options has an unknown key 'lr'", 'it takes no key'],
  ],
  [
    'transformer T of 0',
    (ag) => ag.createTransformer({ vocab: 5, T: 0, dModel: 8, heads: 2 }),
    RangeError,
    ['config.T'],
  ],
  [
    'transformer sizes beyond the heap',
    (ag) => ag.createTransformer({ vocab: 65536, T: 4096, dModel: 4096, heads: 8, layers: 64 }),
    RangeError,
    ['createTransformer', '512 MiB', '1 GiB'],
  ],
  [
    'transformer batch with a token out of range',
    (ag) => withModel(ag, (m) => m.step({ tokens: [0, 1, 2, 7], targets: [1, 2, 3, -1] }, { lr: 0.1 })),
    RangeError,
    ['transformer.step', 'batch.tokens', '0..4', 'got number 7 at [0, 3]'],
  ],
  [
    'transformer batch of the wrong length',
    (ag) => withModel(ag, (m) => m.evaluate({ tokens: [0, 1, 2], targets: [1, 2, 3] })),
    RangeError,
    ['transformer.evaluate', 'batch.tokens', 'multiple of T = 4', 'got 3 tokens'],
  ],
  [
    'transformer batch rows shorter than T: the length received is named',
    (ag) => withModel(ag, (m) => m.step({ tokens: [[1, 2]], targets: [[1, 2]] }, { lr: 0.01 })),
    RangeError,
    ['transformer.step', 'batch.tokens[0] must be an array of T = 4 tokens', 'got an array of 2'],
  ],
  [
    'transformer headMask row of the wrong length: the length received is named',
    (ag) => withModel(ag, (m) => m.evaluate({ tokens: [0, 1, 2, 3], targets: [1, 2, 3, -1] }, { headMask: [[1]] })),
    RangeError,
    ['transformer.evaluate', 'options.headMask[0] must be an array of heads = 2 numbers', 'got an array of 1'],
  ],
  [
    'transformer step with options of null: lr is required',
    (ag) => withModel(ag, (m) => m.step({ tokens: [0, 1, 2, 3], targets: [1, 2, 3, -1] }, null)),
    TypeError,
    ['transformer.step', 'options.lr (the learning rate) is required', 'a number > 0'],
    ['got undefined'],
  ],
  [
    'transformer batch without targets: batch.targets is required',
    (ag) => withModel(ag, (m) => m.evaluate({ tokens: [0, 1, 2, 3] })),
    TypeError,
    ['transformer.evaluate', 'batch.targets is required'],
    ['got undefined'],
  ],
  [
    'transformer config without vocab: config.vocab is required',
    (ag) => ag.createTransformer({ T: 4, dModel: 8, heads: 2 }),
    TypeError,
    ['createTransformer', 'config.vocab is required', 'an integer from 1'],
    ['got undefined'],
  ],
  [
    'a task without T: T is required',
    (ag) => ag.tasks.reverse(null),
    TypeError,
    ['tasks.reverse', 'T is required', 'an integer from 1 to 4096'],
    ['got undefined'],
  ],
  [
    'random.uniform without n: n is required',
    (ag) => ag.random.uniform({ seed: 1 }),
    TypeError,
    ['random.uniform', 'n is required'],
    ['got undefined'],
  ],
  [
    'greedyPacking without epsilon: epsilon is required',
    (ag) => ag.greedyPacking({ d: 4, candidates: 8 }),
    TypeError,
    ['greedyPacking', 'epsilon is required', 'a number > 0'],
    ['got undefined'],
  ],
  // gradients: softmaxBackward and attentionBackward
  [
    'softmaxBackward dWeights of another shape',
    (ag) => ag.softmaxBackward([0.5, 0.5], [1, 2, 3]),
    RangeError,
    ['softmaxBackward', 'dWeights', '[3]', 'the shape of weights [2]'],
  ],
  [
    'softmaxBackward negative weight',
    (ag) => ag.softmaxBackward([1.5, -0.5], [1, 2]),
    RangeError,
    ['softmaxBackward', 'weights[1]', '-0.5', 'softmax outputs'],
  ],
  [
    'softmaxBackward row not summing to 1',
    (ag) =>
      ag.softmaxBackward(
        [
          [0.5, 0.5],
          [0.25, 0.25],
        ],
        I2,
      ),
    RangeError,
    ['softmaxBackward', 'row 1 of weights [2, 2]', 'sums to 0.5'],
  ],
  [
    'softmaxBackward NaN in dWeights',
    (ag) => ag.softmaxBackward([0.5, 0.5], [1, NaN]),
    RangeError,
    ['softmaxBackward', 'dWeights'],
  ],
  [
    'attentionBackward without dOutput',
    (ag) => ag.attentionBackward(I2, I2, I2),
    TypeError,
    ['attentionBackward', 'dOutput'],
  ],
  [
    'attentionBackward dOutput of another shape',
    (ag) => ag.attentionBackward(I2, I2, [[1], [2]], I2),
    RangeError,
    ['attentionBackward', 'dOutput', '[2, 2]', "the shape of attention's output [2, 1]"],
  ],
  [
    'attentionBackward K with another d_k',
    (ag) => ag.attentionBackward(I2, [[1, 2, 3]], [[1, 2]], I2),
    RangeError,
    ['attentionBackward', 'K', '[1, 3]', 'd_k = 2'],
  ],
  ...['softcap', 'alibi', 'rope', 'kvSeqLen', 'returnWeights', 'streaming'].map((name) => [
    `attentionBackward options.${name} refused`,
    (ag) => ag.attentionBackward(I2, I2, I2, I2, { [name]: name === 'kvSeqLen' ? [2] : name === 'softcap' ? 5 : true }),
    RangeError,
    ['attentionBackward', `options.${name}`, 'not supported'],
  ]),
  [
    'attentionBackward options.pastKey refused',
    (ag) => ag.attentionBackward(I2, I2, I2, I2, { pastKey: I2, pastValue: I2 }),
    RangeError,
    ['attentionBackward', 'options.pastKey', 'not supported'],
  ],
  [
    'attentionBackward unknown option',
    (ag) => ag.attentionBackward(I2, I2, I2, I2, { casual: true }),
    TypeError,
    ['attentionBackward', "unknown key 'casual'", 'the known keys are scale, causal, window, mask, maskKind'],
    ['softcap', 'pastKey'],
  ],
  [
    'attentionBackward NaN in Q',
    (ag) => ag.attentionBackward([[1, NaN]], I2, I2, [[1, 1]]),
    RangeError,
    ['attentionBackward', 'Q'],
  ],
  [
    'attentionBackward window without causal',
    (ag) => ag.attentionBackward(I2, I2, I2, I2, { window: 1, causal: false }),
    RangeError,
    ['attentionBackward', 'options.window', 'causal'],
  ],
  [
    'attentionBackward scores overflowing float32',
    (ag) => ag.attentionBackward([[1e20, 0]], [[1e20, 0]], [[1]], [[1]], { scale: 1 }),
    RangeError,
    ['attentionBackward', 'overflowed float32', 'scale * Q K^T'],
  ],
  // the layers family and matmul's transposeA
  [
    'matmul transposeA and transposeB together',
    (ag) => ag.matmul(I2, I2, { transposeA: true, transposeB: true }),
    RangeError,
    ['matmul', 'options.transposeA and options.transposeB'],
  ],
  [
    'matmul transposeA with the inner dimensions apart',
    (ag) => ag.matmul([[1, 2, 3]], I2, { transposeA: true }),
    RangeError,
    ['matmul', 'B', '[2, 2]', '[..., K, N] with K = 1'],
  ],
  [
    'layerNorm gamma of the wrong length',
    (ag) => ag.layerNorm(I2, { gamma: v3 }),
    RangeError,
    ['layerNorm', 'options.gamma', '[3]', '[2] (n = 2'],
  ],
  // gamma scales feature i of every row: a vector [n], never a [1, n] or [rows, n] tensor of n values.
  [
    'layerNorm gamma [1, n]',
    (ag) => ag.layerNorm(I2, { gamma: [[1, 2]] }),
    RangeError,
    ['layerNorm: options.gamma has shape [1, 2] but [2] (n = 2, the last axis of x) was expected'],
  ],
  [
    'layerNormBackward gamma [n, 1]',
    (ag) => ag.layerNormBackward(I2, I2, { gamma: { data: [1, 2], shape: [2, 1] } }),
    RangeError,
    ['layerNormBackward: options.gamma has shape [2, 1] but [2]'],
  ],
  ['layerNorm eps 0', (ag) => ag.layerNorm(I2, { eps: 0 }), RangeError, ['layerNorm', 'options.eps', '> 0']],
  [
    'layerNorm eps 0 in float32',
    (ag) => ag.layerNorm(I2, { eps: 1e-50 }),
    RangeError,
    ['layerNorm', 'options.eps', '0 in float32'],
  ],
  ['layerNorm NaN in x', (ag) => ag.layerNorm([1, NaN]), RangeError, ['layerNorm', 'x[1]']],
  ['layerNorm unknown option', (ag) => ag.layerNorm(I2, { epsilon: 1 }), TypeError, ['layerNorm', "'epsilon'"]],
  [
    'layerNorm rows that overflow float32',
    (ag) => ag.layerNorm([3e38, -3e38, 3e38]),
    RangeError,
    ['layerNorm', 'overflowed float32'],
  ],
  [
    'layerNorm a variance that overflows float32 (the mean does not)',
    (ag) => ag.layerNorm([1e30, -1e30]),
    RangeError,
    ['layerNorm', 'the variance of x[0] overflowed float32'],
  ],
  [
    'layerNormBackward x of another shape than dy',
    (ag) => ag.layerNormBackward([1, 2, 3], I2),
    RangeError,
    // x is judged against dy, the argument before it.
    ['layerNormBackward: x has shape [2, 2] but [3] (the shape of dy) was expected'],
  ],
  [
    'layerNormBackward mean without rstd',
    (ag) => ag.layerNormBackward(I2, I2, { mean: [0.5, 0.5] }),
    RangeError,
    ['layerNormBackward', 'options.mean and options.rstd'],
  ],
  [
    'layerNormBackward rstd with one value too few',
    (ag) => ag.layerNormBackward(I2, I2, { mean: [0.5, 0.5], rstd: [2] }),
    RangeError,
    ['layerNormBackward', 'options.rstd', '[1]', '2 elements'],
  ],
  [
    'layerNormBackward rstd with one value too many for one row',
    (ag) => ag.layerNormBackward([[1, 2]], [[1, 2]], { mean: [1.5], rstd: [2, 2] }),
    RangeError,
    ['layerNormBackward', 'options.rstd', '[2]', '1 element was expected'],
  ],
  [
    'layerNormBackward rstd 0',
    (ag) => ag.layerNormBackward(I2, I2, { mean: [0.5, 0.5], rstd: [2, 0] }),
    RangeError,
    ['layerNormBackward', 'options.rstd[1] is 0'],
  ],
  [
    'crossEntropy target out of range',
    (ag) => ag.crossEntropy(I2, [0, 2]),
    RangeError,
    ['crossEntropy', 'targets[1] is 2', '[0, 2)', 'or -1'],
  ],
  [
    'crossEntropy target not an integer',
    (ag) => ag.crossEntropy(I2, [0, 0.5]),
    RangeError,
    ['crossEntropy', 'targets[1] is 0.5'],
  ],
  ['crossEntropy target -2', (ag) => ag.crossEntropy(I2, [-2, 0]), RangeError, ['crossEntropy', 'targets[0] is -2']],
  [
    'crossEntropy target a string',
    (ag) => ag.crossEntropy(I2, ['1', 0]),
    TypeError,
    ['crossEntropy', 'targets[0] must be an integer', 'the string "1"'],
  ],
  [
    'crossEntropy targets of another length',
    (ag) => ag.crossEntropy(I2, [0]),
    RangeError,
    ['crossEntropy', 'targets', '[1]', '[2] (one target per row of logits)'],
  ],
  [
    'crossEntropy targets a Float32Array',
    (ag) => ag.crossEntropy(I2, new Float32Array([0, 1])),
    TypeError,
    ['crossEntropy', 'targets must be an Int32Array or an array of integers', 'got a Float32Array'],
  ],
  [
    'crossEntropy logits spread beyond float32',
    (ag) => ag.crossEntropy([[3e38, -3e38]], [1]),
    RangeError,
    ['crossEntropy', 'overflowed float32'],
  ],
  [
    'crossEntropy Infinity in logits',
    (ag) => ag.crossEntropy([[0, Infinity]], [1]),
    RangeError,
    ['crossEntropy', 'logits[0, 1]'],
  ],
  [
    'adamUpdate grad of another shape',
    (ag) => ag.adamUpdate(v3, [1, 2], null, { lr: 0.1, step: 1 }),
    RangeError,
    ['adamUpdate', 'grad', '[2]', '[3] (the shape of param)'],
  ],
  [
    'adamUpdate step 0',
    (ag) => ag.adamUpdate(v3, v3, null, { lr: 0.1, step: 0 }),
    RangeError,
    ['adamUpdate', 'options.step', 'got 0'],
  ],
  [
    'adamUpdate step not an integer',
    (ag) => ag.adamUpdate(v3, v3, null, { lr: 0.1, step: 1.5 }),
    TypeError,
    ['adamUpdate', 'options.step', 'integer'],
  ],
  [
    'adamUpdate no lr',
    (ag) => ag.adamUpdate(v3, v3, null, { step: 1 }),
    TypeError,
    ['adamUpdate', 'options.lr (the learning rate) is required'],
    ['got undefined'],
  ],
  [
    'adamUpdate options of null: lr is required',
    (ag) => ag.adamUpdate(v3, v3, null, null),
    TypeError,
    ['adamUpdate', 'options.lr (the learning rate) is required'],
    ['got undefined'],
  ],
  [
    'adamUpdate no step',
    (ag) => ag.adamUpdate(v3, v3, null, { lr: 0.1 }),
    TypeError,
    ['adamUpdate', 'options.step (the 1-based step count) is required'],
    ['got undefined'],
  ],
  [
    'adamUpdate eps 0',
    (ag) => ag.adamUpdate(v3, v3, null, { lr: 0.1, step: 1, eps: 0 }),
    RangeError,
    ['adamUpdate', 'options.eps'],
  ],
  [
    'adamUpdate beta2 1',
    (ag) => ag.adamUpdate(v3, v3, null, { lr: 0.1, step: 1, beta2: 1 }),
    RangeError,
    ['adamUpdate', 'options.beta2', '[0, 1)'],
  ],
  [
    'adamUpdate negative v',
    (ag) => ag.adamUpdate(v3, v3, { m: [0, 0, 0], v: [0, -1, 0] }, { lr: 0.1, step: 1 }),
    RangeError,
    ['adamUpdate', 'state.v[1] is -1'],
  ],
  [
    'adamUpdate m without v',
    (ag) => ag.adamUpdate(v3, v3, { m: [0, 0, 0] }, { lr: 0.1, step: 1 }),
    RangeError,
    ['adamUpdate', 'state.m and state.v'],
  ],
  [
    'adamUpdate a step size that overflows float32',
    (ag) => ag.adamUpdate([1, 2], [1, 1], null, { lr: 3e38, step: 1 }),
    RangeError,
    ['adamUpdate', 'param[0] overflowed float32'],
  ],
  [
    'adamUpdate a gradient whose square overflows float32',
    (ag) => ag.adamUpdate(v3, [1, 1e20, 1], null, { lr: 0.1, step: 1 }),
    RangeError,
    ['adamUpdate', 'overflowed float32'],
  ],
];

/** Runs `body` on a small transformer of `ag` and disposes it, whatever happens. */
function withModel(ag, body) {
  const model = ag.createTransformer({ vocab: 5, T: 4, dModel: 8, heads: 2 });
  try {
    return body(model);
  } finally {
    model.dispose();
  }
}

describe.each(CONFIGS)('bad input: $label', (cfg) => {
  let ag;
  let heapBefore;
  beforeAll(async () => {
    ({ ag, heapBefore } = await warmInstance(cfg, (a) => a.dot([1], [1])));
  });

  test.each(CASES)('%s', (title, call, ErrorClass, mustContain, mustNotContain = []) => {
    let thrown;
    try {
      call(ag);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ErrorClass);
    for (const s of mustContain) expect(thrown.message).toContain(s);
    for (const s of mustNotContain) expect(thrown.message).not.toContain(s);
    // The module is still usable and right, and nothing was left allocated.
    expect(ag.dot([3, 4], [4, 3])).toBe(24);
    expect(Array.from(ag.softmax([0, 0]).data)).toEqual([0.5, 0.5]);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });

  test('valid edge values are accepted: -Infinity in additive masks, a fully masked row', () => {
    const r = ag.attention(
      I2,
      I2,
      [
        [1, 2],
        [3, 4],
      ],
      {
        mask: [
          [-Infinity, -Infinity],
          [0, -Infinity],
        ],
        returnWeights: true,
      },
    );
    expect(Array.from(r.output.data)).toEqual([0, 0, 1, 2]);
    expect(Array.from(r.weights.data)).toEqual([0, 0, 1, 0]);
    expect(ag.heapAllocatedBytes()).toBe(heapBefore);
  });
});

test('init rejects bad options with a TypeError naming the option', async () => {
  await expect(init({ simd: 'yes' })).rejects.toThrow(TypeError);
  await expect(init({ simd: 'yes' })).rejects.toThrow(/options\.simd/);
  await expect(init({ variant: 'avx' })).rejects.toThrow(/options\.variant/);
  await expect(init({ simd: false, variant: 'simd128' })).rejects.toThrow(RangeError);
  await expect(init('simd')).rejects.toThrow(/options must be an object; got string/);
  await expect(init({ locateFile: 5 })).rejects.toThrow(/options\.locateFile must be a function/);
  await expect(init({ logCalls: 'yes' })).rejects.toThrow(/options\.logCalls must be true or false/);
  await expect(init({ wasmUrl: 5 })).rejects.toThrow(/options\.wasmUrl must be a non-empty string or a URL/);
  // An empty string would resolve to the working directory (a directory, not a file).
  await expect(init({ wasmUrl: '' })).rejects.toThrow(
    'options.wasmUrl must be a non-empty string or a URL, or {simd, scalar} of those; got the string ""',
  );
  await expect(init({ simd: false, wasmUrl: { scalar: '' } })).rejects.toThrow(
    'options.wasmUrl.scalar must be a non-empty string or a URL; got the string ""',
  );
  await expect(init({ simd: false, locateFile: () => '' })).rejects.toThrow(
    'options.locateFile(\'ag-scalar.wasm\') must return a non-empty string or a URL; got the string ""',
  );
  await expect(init({ wasmUrl: { simd: 42 } })).rejects.toThrow(TypeError);
  await expect(init({ wasmUrl: { simd: 42 } })).rejects.toThrow(
    'options.wasmUrl.simd must be a non-empty string or a URL; got number 42',
  );
  await expect(init({ wasmUrl: { smid: 'a.wasm' } })).rejects.toThrow("options.wasmUrl has an unknown key 'smid'");
  await expect(init({ wasmBinary: { scalar: 'bytes' } })).rejects.toThrow(
    'options.wasmBinary.scalar must be an ArrayBuffer, a SharedArrayBuffer or a typed array',
  );
  await expect(init({ simd: false, locateFile: () => 7 })).rejects.toThrow(
    "options.locateFile('ag-scalar.wasm') must return a non-empty string or a URL; got number 7",
  );
});

test('init rejects an unknown option key with a TypeError naming it and the known ones', async () => {
  await expect(init({ wasmURL: 'x.wasm' })).rejects.toThrow(TypeError);
  await expect(init({ wasmURL: 'x.wasm' })).rejects.toThrow(
    "init: unknown option 'wasmURL'; the known options are simd, variant, locateFile, wasmUrl, wasmBinary, logCalls, onKernelCall",
  );
});

test('a subclass of Float32Array is a Float32Array; a non-boolean returnSamples is a TypeError', async () => {
  const ag = await init();
  class F extends Float32Array {}
  // It used to reach the buffer code as an unknown array type: "needs NaN bytes ... more than the 1 GiB limit".
  expect(ag.dot(new F([1, 2]), new F([3, 4]))).toBe(11);
  const x = new F([0, Math.log(3)]);
  expect(Array.from(ag.softmax({ data: x, shape: [1, 2] }).data)).toEqual(
    Array.from(ag.softmax({ data: new Float32Array(x), shape: [1, 2] }).data),
  );
  expect(() => ag.dot(new F([1, NaN]), [1, 2])).toThrow(RangeError);
  expect(ag.heapAllocatedBytes()).toBe(0);
  expect(() => ag.randomDotExperiment({ d: 4, trials: 10, returnSamples: 'no' })).toThrow(
    'randomDotExperiment: options.returnSamples must be true or false; got the string "no"',
  );
});
