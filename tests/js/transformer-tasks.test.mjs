// The training tasks (ag.tasks, src/js/tasks.js): each task's layout checked
// on its own batches, the same seed giving the same batches in both builds and
// on a second draw (at(i) = the (i+1)-th next()), and bad options as named errors.
import { beforeAll, describe, expect, test } from '@jest/globals';
import { init } from './helpers.mjs';
import { taskRow } from '../reference/float64.mjs';

let simd;
let baseline;
beforeAll(async () => {
  simd = await init({ simd: true });
  baseline = await init({ simd: false });
});

const rows = (batch, T) => Array.from({ length: batch.tokens.length / T }, (_, b) => [b * T, (b + 1) * T]);

describe('tasks', () => {
  const opts = { T: 9, vocab: 7, batch: 5, seed: 42 };

  test.each(['copyPrevious', 'reverse', 'sort', 'inductionCopy', 'bracketMatch'])(
    '%s: same seed, same batches, in both builds; at(i) is the (i+1)-th batch',
    (task) => {
      const a = simd.tasks[task](opts);
      const b = baseline.tasks[task](opts);
      const first = [a.next(), a.next(), a.next()];
      for (const batch of first) {
        expect(batch.tokens).toBeInstanceOf(Int32Array);
        expect(batch.tokens.length).toBe(opts.batch * opts.T);
        expect(batch.targets.length).toBe(opts.batch * opts.T);
        for (const t of batch.tokens) expect(t >= 0 && t < opts.vocab).toBe(true);
        for (const t of batch.targets) expect(t >= -1 && t < opts.vocab).toBe(true);
        expect(batch.targets.some((t) => t !== -1)).toBe(true);
      }
      expect(b.next()).toEqual(first[0]);
      expect(a.at(2)).toEqual(first[2]);
      expect(first[1]).not.toEqual(first[0]);
      a.reset();
      expect(a.next()).toEqual(first[0]);
      expect(simd.tasks[task]({ ...opts, seed: 43 }).next()).not.toEqual(first[0]);
      expect(a.options).toEqual({ ...opts, task });
    },
  );

  test('copyPrevious: target t is token t - 1, position 0 not scored', () => {
    const batch = simd.tasks.copyPrevious(opts).next();
    for (const [s, e] of rows(batch, opts.T)) {
      expect(batch.targets[s]).toBe(-1);
      for (let t = s + 1; t < e; t++) expect(batch.targets[t]).toBe(batch.tokens[t - 1]);
    }
  });

  test('reverse and sort: symbols, separator, then the answer; only the answer scored', () => {
    const L = Math.floor(opts.T / 2);
    for (const [task, answer] of [
      ['reverse', (s) => s.slice().reverse()],
      ['sort', (s) => s.slice().sort((x, y) => x - y)],
    ]) {
      const batch = simd.tasks[task](opts).next();
      for (const [s] of rows(batch, opts.T)) {
        const sym = Array.from(batch.tokens.subarray(s, s + L));
        for (const v of sym) expect(v).toBeLessThan(opts.vocab - 1);
        expect(batch.tokens[s + L]).toBe(opts.vocab - 1);
        const want = answer(sym);
        for (let t = 0; t < opts.T; t++) {
          const scored = t >= L && t < 2 * L;
          expect(batch.targets[s + t]).toBe(scored ? want[t - L] : -1);
          if (t > L) expect(batch.tokens[s + t]).toBe(want[t - L - 1]);
        }
      }
    }
  });

  // The repeat offset of a row, read from its tokens alone: the first position whose token came before.
  const offsetOf = (row) => row.findIndex((v, t) => row.indexOf(v) < t);

  test.each([
    [4, 2, 2],
    [5, 2, 2],
    [9, 3, 4],
    [16, 4, 8],
  ])(
    'inductionCopy, T = %i: an offset L in %i..%i, L distinct symbols repeated with period L; L..T-2 scored',
    (T, lo, hi) => {
      const o = { T, vocab: hi, batch: 400, seed: 1 };
      const batch = simd.tasks.inductionCopy(o).next();
      const seen = new Set();
      for (const [s, e] of rows(batch, T)) {
        const row = Array.from(batch.tokens.subarray(s, e));
        const L = offsetOf(row);
        seen.add(L);
        expect(L).toBeGreaterThanOrEqual(lo);
        expect(L).toBeLessThanOrEqual(hi);
        for (let t = 0; t < T; t++) {
          if (t >= L) expect(row[t]).toBe(row[t - L]);
          expect(batch.targets[s + t]).toBe(t >= L && t + 1 < T ? row[t + 1] : -1);
        }
      }
      expect(seen.size).toBe(hi - lo + 1); // 400 rows: every offset appears
    },
  );

  test('inductionCopy: rows equal the float64 draw of the layout (tests/reference/float64.mjs)', () => {
    const o = { T: 16, vocab: 16, batch: 8, seed: 999 };
    const batch = baseline.tasks.inductionCopy(o).next();
    for (const [b, [s, e]] of rows(batch, o.T).entries()) {
      const ref = taskRow('inductionCopy', o, b);
      expect(Array.from(batch.tokens.subarray(s, e))).toEqual(ref.tokens);
      expect(Array.from(batch.targets.subarray(s, e))).toEqual(ref.targets);
    }
  });

  test('inductionCopy: offsets uniform; no fixed offset predicts as many as half the scored tokens', () => {
    const T = 16;
    const batch = simd.tasks.inductionCopy({ T, vocab: 16, batch: 2000, seed: 7 }).next();
    const count = new Map();
    const hits = new Array(T).fill(0); // hits[d]: scored targets equal to the token d - 1 positions back
    let scored = 0;
    for (const [s, e] of rows(batch, T)) {
      const row = Array.from(batch.tokens.subarray(s, e));
      const L = offsetOf(row);
      count.set(L, (count.get(L) ?? 0) + 1);
      for (let t = 0; t < T; t++) {
        const want = batch.targets[s + t];
        if (want === -1) continue;
        scored++;
        for (let d = 1; d <= t + 1; d++) hits[d] += want === row[t + 1 - d];
      }
    }
    // L uniform on 4..8: each of the 5 offsets in 2000 rows is Binomial(2000, 1/5), mean 400, sd 17.9; 5 sd: 90.
    expect([...count.keys()].sort()).toEqual([4, 5, 6, 7, 8]);
    for (const n of count.values()) expect(Math.abs(n - 400)).toBeLessThan(90);
    // Looking d - 1 positions back is right in a row only when L divides d; of 4..8 at most two offsets divide a
    // d below 16 (4 and 8 divide 8, 4 and 6 divide 12), so at most about 2/5 of the rows.
    for (let d = 1; d < T; d++) expect(hits[d] / scored).toBeLessThan(0.5);
  });

  test('bracketMatch: never closes an unopened bracket; target 1 exactly where balanced', () => {
    const batch = simd.tasks.bracketMatch({ T: 12, vocab: 2, batch: 8, seed: 3 }).next();
    let balancedSeen = 0;
    for (const [s, e] of rows(batch, 12)) {
      let depth = 0;
      for (let t = s; t < e; t++) {
        depth += batch.tokens[t] === 0 ? 1 : -1;
        expect(depth).toBeGreaterThanOrEqual(0);
        expect(batch.targets[t]).toBe(depth === 0 ? 1 : 0);
        balancedSeen += depth === 0;
      }
    }
    expect(balancedSeen).toBeGreaterThan(0);
  });

  test('bad options: named TypeError/RangeError', () => {
    expect(() => simd.tasks.copyPrevious({ T: 0, vocab: 4 })).toThrow(/tasks.copyPrevious: T must be between 1/);
    expect(() => simd.tasks.copyPrevious({ T: 1, vocab: 4 })).toThrow(/T must be at least 2/);
    expect(() => simd.tasks.copyPrevious({ T: 1.5, vocab: 4 })).toThrow(TypeError);
    expect(() => simd.tasks.reverse({ T: 4, vocab: 1 })).toThrow(/vocab must be at least 2/);
    expect(() => simd.tasks.inductionCopy({ T: 10, vocab: 4 })).toThrow(/vocab must be at least 5/);
    expect(() => simd.tasks.sort({ T: 4, vocab: 4, batch: 2 ** 20 })).toThrow(RangeError);
    expect(() => simd.tasks.sort({ T: 4, vocab: 4, seed: -1 })).toThrow(/seed/);
    expect(() => simd.tasks.sort({ T: 4, vocab: 4, steps: 3 })).toThrow(/unknown key 'steps'/);
    expect(() => simd.tasks.sort({ T: 4, vocab: 4 }).at(-1)).toThrow(RangeError);
    expect(simd.tasks.sort({ T: 4, vocab: 4 }).next().tokens.length).toBe(4);
  });

  test('at(i): i a non-negative safe integer up to the last batch whose first counter is safe, else named errors', () => {
    // copyPrevious with T = 8 and 3 rows draws 24 uniforms a batch: 6 Philox blocks of four, so batch i
    // starts at the counter 6 i, a safe integer up to i = floor((2^53 - 1) / 6) = 1501199875790165.
    const last = 1501199875790165;
    const g = simd.tasks.copyPrevious({ T: 8, vocab: 5, batch: 3, seed: 2 });
    const range = 'between 0 and 1501199875790165 (batch i starts at the counter i * 6, a safe integer)';
    const cases = [
      [
        undefined,
        TypeError,
        `taskGenerator.at: i is required and was not given; expected an integer from 0 to ${last}`,
      ],
      ['1', TypeError, 'taskGenerator.at: i must be an integer; got the string "1"'],
      [1.5, TypeError, 'taskGenerator.at: i must be an integer; got 1.5'],
      [NaN, TypeError, 'taskGenerator.at: i must be an integer; got NaN'],
      [Infinity, TypeError, 'taskGenerator.at: i must be an integer; got Infinity'],
      [null, TypeError, 'taskGenerator.at: i must be an integer; got null'],
      [1n, TypeError, 'taskGenerator.at: i must be an integer; got bigint 1'],
      [-1, RangeError, `taskGenerator.at: i must be ${range}; got -1`],
      [last + 1, RangeError, `taskGenerator.at: i must be ${range}; got ${last + 1}`],
      [2 ** 53, RangeError, 'got 9007199254740992'],
    ];
    for (const [i, ErrorClass, message] of cases) {
      let thrown = null;
      try {
        g.at(i);
      } catch (e) {
        thrown = e;
      }
      expect([i, thrown?.constructor]).toEqual([i, ErrorClass]);
      expect(thrown.message).toContain(message);
    }
    expect(g.at(last).tokens).toHaveLength(24);
    expect(g.at(-0)).toEqual(g.at(0));
    // None of them moved next() on.
    expect(g.next()).toEqual(g.at(0));
  });
});
