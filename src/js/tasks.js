// The toy tasks that createTransformer is trained on (ag.tasks): each a seeded
// generator of batches { tokens, targets }, Int32Array [batch * T] row-major,
// targets[b * T + t] the token expected after position t (next-token
// prediction) or -1 where the position is not scored. The random choices come
// from the project's Philox generator (ag.random.uniform, one implementation in
// every build), so the same seed gives the same batches on every build; batch i
// is drawn from the counters i * blocks .. (i + 1) * blocks - 1, so any batch can
// be drawn again on its own (at(i)) without the ones before it.
import { countedFunctions } from './checks.js';
import { splitU64 } from './random.js';
import { integerIn, optionsObject, positiveInt } from './tensor.js';

const KNOWN = ['T', 'vocab', 'batch', 'seed'];

/** The largest batch * T a task draws per batch (the model's own limit on B * T is the same). */
export const MAX_TASK_TOKENS = 1 << 20;

function taskOptions(method, options, minT, minVocab) {
  const o = optionsObject(method, options, 'options', KNOWN);
  const T = positiveInt(method, 'T', o.T, 4096);
  const vocab = positiveInt(method, 'vocab', o.vocab, 65536);
  const batch = positiveInt(method, 'batch', o.batch ?? 1, MAX_TASK_TOKENS);
  if (T < minT) throw new RangeError(`${method}: T must be at least ${minT} for this task; got ${T}`);
  if (typeof minVocab === 'function') minVocab = minVocab(T);
  if (vocab < minVocab)
    throw new RangeError(`${method}: vocab must be at least ${minVocab} for this task; got ${vocab}`);
  if (batch * T > MAX_TASK_TOKENS)
    throw new RangeError(`${method}: batch * T = ${batch * T} is more than ${MAX_TASK_TOKENS} (2^20) tokens per batch`);
  splitU64(method, 'seed', o.seed ?? 0);
  return { T, vocab, batch, seed: o.seed ?? 0 };
}

// A generator over `row(u, T, vocab, tokens, targets)`, which fills one row from
// `perRow` uniforms u in [0, 1). Its methods refuse more arguments than they
// take (checks.js), as the API's do, named taskGenerator.next, .at, .reset.
function generator(ag, method, o, perRow, row) {
  const { T, batch, seed } = o;
  const n = batch * perRow;
  const blocks = Math.ceil(n / 4);
  // Batch i starts at the counter i * blocks, a safe integer (random.js splitU64).
  const lastIndex = Math.floor(Number.MAX_SAFE_INTEGER / blocks);
  const why = ` (batch i starts at the counter i * ${blocks}, a safe integer)`;
  let next = 0;
  const draw = (i) => {
    const u = ag.random.uniform({ seed, counter: i * blocks, n }).data;
    const tokens = new Int32Array(batch * T);
    const targets = new Int32Array(batch * T).fill(-1);
    for (let b = 0; b < batch; b++) {
      row(
        u.subarray(b * perRow, (b + 1) * perRow),
        tokens.subarray(b * T, (b + 1) * T),
        targets.subarray(b * T, (b + 1) * T),
      );
    }
    return { tokens, targets };
  };
  const methods = {
    /** The next batch (the first call gives batch 0). */
    next: () => draw(next++),
    /** Batch i, the same as the (i + 1)-th call of next() gives. */
    at: (i) => draw(integerIn('taskGenerator.at', 'i', i, 0, lastIndex, why)),
    /** Starts again from batch 0. */
    reset: () => {
      next = 0;
    },
  };
  return Object.freeze({
    options: Object.freeze({ ...o, task: method.replace('tasks.', '') }),
    ...countedFunctions('taskGenerator', methods),
  });
}

const pick = (u, k) => Math.floor(u * k); // u in [0, 1) a multiple of 2^-24: in 0 .. k - 1

// Distinct symbols: the first `count` of a random permutation of 0 .. k - 1 (Fisher-Yates).
function distinct(u, count, k) {
  const perm = Array.from({ length: k }, (_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + pick(u[i], k - i);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  return perm.slice(0, count);
}

// The layout of reverse and sort: L = floor(T / 2) symbols s in 0 .. vocab - 2,
// the separator vocab - 1, then the answer; targets at positions L .. 2L - 1.
function halves(T, vocab, u, tokens, targets, answer) {
  const L = Math.floor(T / 2);
  const s = Array.from({ length: L }, (_, i) => pick(u[i], vocab - 1));
  const seq = [...s, vocab - 1, ...answer(s)];
  for (let t = 0; t < T; t++) tokens[t] = seq[t];
  for (let t = L; t + 1 < seq.length && t < T; t++) targets[t] = seq[t + 1];
}

/** The repeat offsets of inductionCopy for T >= 4: L in lo .. hi, lo = max(2, ceil(T / 4)), hi = floor(T / 2). */
const inductionOffsets = (T) => ({ lo: Math.max(2, Math.ceil(T / 4)), hi: Math.floor(T / 2) });

/** ag.tasks: the task functions of `taskMakers`, each refusing more arguments than it takes (checks.js). */
export function makeTasks(ag) {
  return Object.freeze(countedFunctions('tasks', taskMakers(ag)));
}

function taskMakers(ag) {
  return {
    /**
     * Copy the previous token: tokens uniform in 0 .. vocab - 1; target at
     * position t >= 1 is tokens[t - 1], position 0 not scored. One attention
     * head that attends to the previous position solves it. T >= 2.
     */
    copyPrevious(options) {
      const o = taskOptions('tasks.copyPrevious', options, 2, 1);
      return generator(ag, 'tasks.copyPrevious', o, o.T, (u, tokens, targets) => {
        for (let t = 0; t < o.T; t++) tokens[t] = pick(u[t], o.vocab);
        for (let t = 1; t < o.T; t++) targets[t] = tokens[t - 1];
      });
    },
    /**
     * Reverse: L = floor(T / 2) symbols uniform in 0 .. vocab - 2, the
     * separator vocab - 1 at position L, then the symbols in reverse order
     * (cut at T). Positions L .. 2L - 1 are scored, each predicting the next
     * symbol of the reversed sequence (position L, the separator, predicts the
     * last symbol). T >= 2, vocab >= 2.
     */
    reverse(options) {
      const o = taskOptions('tasks.reverse', options, 2, 2);
      return generator(ag, 'tasks.reverse', o, Math.floor(o.T / 2), (u, tokens, targets) =>
        halves(o.T, o.vocab, u, tokens, targets, (s) => s.slice().reverse()),
      );
    },
    /**
     * Sort: the layout of reverse, with the symbols in ascending order after
     * the separator. T >= 2, vocab >= 2.
     */
    sort(options) {
      const o = taskOptions('tasks.sort', options, 2, 2);
      return generator(ag, 'tasks.sort', o, Math.floor(o.T / 2), (u, tokens, targets) =>
        halves(o.T, o.vocab, u, tokens, targets, (s) => s.slice().sort((a, b) => a - b)),
      );
    },
    /**
     * Induction copy with a random repeat offset: each row draws its own
     * offset L uniformly from Lmin = max(2, ceil(T / 4)) .. Lmax = floor(T / 2),
     * then L distinct symbols s_0 .. s_{L-1} (no symbol twice, so
     * vocab >= Lmax), and repeats them to the end of the row: tokens[t] =
     * s_{t mod L} for t = 0 .. T - 1. Positions L .. T - 2 are scored, each
     * predicting the next token, tokens[t + 1] = tokens[t + 1 - L]: the token
     * that followed the current token's earlier occurrence. The first copy is
     * not predictable and not scored (targets -1 at 0 .. L - 1 and T - 1).
     * Since L changes from row to row, no fixed offset finds the answer: the
     * model must match content, as an induction head does (it attends from the
     * current token to the position after the token's earlier occurrence,
     * found through a previous-token head in an earlier layer; Elhage et al.
     * 2021, "A Mathematical Framework for Transformer Circuits"; Olsson et
     * al. 2022, "In-context Learning and Induction Heads"). A row uses
     * 1 + Lmax uniforms: the first draws L, the next L the symbols
     * (Fisher-Yates). T >= 4.
     */
    inductionCopy(options) {
      const o = taskOptions('tasks.inductionCopy', options, 4, (T) => Math.floor(T / 2));
      const { lo, hi } = inductionOffsets(o.T);
      return generator(ag, 'tasks.inductionCopy', o, 1 + hi, (u, tokens, targets) => {
        const L = lo + pick(u[0], hi - lo + 1);
        const s = distinct(u.subarray(1), L, o.vocab);
        for (let t = 0; t < o.T; t++) tokens[t] = s[t % L];
        for (let t = L; t + 1 < o.T; t++) targets[t] = tokens[t + 1];
      });
    },
    /**
     * Bracket matching: tokens 0 '(' and 1 ')' (other symbols unused), a
     * random walk that never closes more brackets than it opened: at depth 0
     * the token is '(', else '(' or ')' with probability 1/2. The target at
     * every position is 1 when the brackets so far are balanced (depth 0 after
     * the token) and 0 otherwise; every position is scored. vocab >= 2.
     */
    bracketMatch(options) {
      const o = taskOptions('tasks.bracketMatch', options, 1, 2);
      return generator(ag, 'tasks.bracketMatch', o, o.T, (u, tokens, targets) => {
        let depth = 0;
        for (let t = 0; t < o.T; t++) {
          tokens[t] = depth === 0 || u[t] < 0.5 ? 0 : 1;
          depth += tokens[t] === 0 ? 1 : -1;
          targets[t] = depth === 0 ? 1 : 0;
        }
      });
    },
  };
}
