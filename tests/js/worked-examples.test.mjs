// Every case of tests/data/seeds/worked-examples.json (the numeric claims of
// the two seed articles) that names a kernel, on every configuration, within
// the case's own absolute tolerance. Theory ops are checked with the Monte
// Carlo experiment within its sampling error; ops that are not computations
// of the API are listed as skipped.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, expectClose, init, readJson, reportSkipped } from './helpers.mjs';

const { cases } = readJson('seeds/worked-examples.json');

// op name in the data -> how the API computes it (angles converted to degrees here, in the test).
const OPS = {
  dot: (ag, i) => ag.dot(i.a, i.b),
  norm: (ag, i) => ag.norm(i.a),
  cosine: (ag, i) => ag.cosine(i.a, i.b),
  angle_degrees: (ag, i) => (ag.angle(i.a, i.b) * 180) / Math.PI,
  scalar_projection: (ag, i) => ag.scalarProjection(i.a, i.b),
  vector_projection: (ag, i) => ag.vectorProjection(i.a, i.b).data,
  squared_distance: (ag, i) => ag.squaredDistance(i.a, i.b),
  scores: (ag, i) => ag.matmul([i.q], i.K, { transposeB: true }).data,
  softmax: (ag, i) => ag.softmax(i.x).data,
  exp: (ag, i) => ag.exp(i.x).data,
  weighted_sum: (ag, i) => ag.weightedSum(i.alpha, i.V).data,
  matmul: (ag, i) => ag.matmul(i.A, i.B).data,
  // The angle whose cosine is `cos`: the angle between (1, 0) and (cos, sqrt(1 - cos^2)).
  angle_from_cos_degrees: (ag, i) => (ag.angle([1, 0], [i.cos, Math.sqrt(1 - i.cos * i.cos)]) * 180) / Math.PI,
};

// Theory ops: closed forms that the Monte Carlo experiment approaches.
const TRIALS = 20000;
const THEORY = {
  // std of a.b for independent standard-normal a, b of dimension d is sqrt(d).
  // The sample std of N values has standard error about std * sqrt((kurtosis - 1) / (4N));
  // a.b has kurtosis 3 + 6/d <= 9, so the error is below std * sqrt(2 / N); allow 5 of those.
  dot_std_theory: (ag, i) => {
    const r = ag.randomDotExperiment({ d: i.d, trials: TRIALS, seed: 2017, measure: 'dot' });
    return { got: r.std, tol: 5 * i.d ** 0.5 * Math.sqrt(2 / TRIALS) };
  },
  // The typical |cos| of random directions in d dimensions is 1/sqrt(d): the
  // root mean square of the cosine is exactly 1/sqrt(d); its sample estimate
  // has a relative standard error below sqrt(2 / N); allow 5 of those.
  cos_typical_theory: (ag, i) => {
    const r = ag.randomDotExperiment({ d: i.d, trials: TRIALS, seed: 2017, measure: 'cosine' });
    return { got: r.rms, tol: 5 * i.d ** -0.5 * Math.sqrt(2 / TRIALS) };
  },
};

const SKIPPED = {
  head_dim:
    'not a kernel: d_k = d_model / h is arithmetic on shapes (multiHeadAttention checks that h divides d_model)',
};

describe.each(CONFIGS)('worked examples of the articles: $label', (cfg) => {
  let ag;
  beforeAll(async () => {
    ag = await init(cfg.options);
  });

  for (const c of cases) {
    if (OPS[c.op]) {
      test(`${c.id} (${c.op}): ${c.claim}`, () => {
        const want = Array.isArray(c.expected) ? c.expected.flat(Infinity) : c.expected;
        expectClose(OPS[c.op](ag, c.inputs), want, c.tolerance);
      });
    } else if (THEORY[c.op]) {
      test(`${c.id} (${c.op}, Monte Carlo): ${c.claim}`, () => {
        const { got, tol } = THEORY[c.op](ag, c.inputs);
        expect(Math.abs(got - c.expected)).toBeLessThanOrEqual(tol);
      });
    } else {
      test.skip(`${c.id} (${c.op}) skipped: ${SKIPPED[c.op] ?? 'no kernel for this op'}`, () => {});
    }
  }
});

test('every op of the worked examples is either computed or listed as skipped with a reason', () => {
  for (const c of cases) expect(Boolean(OPS[c.op] || THEORY[c.op] || SKIPPED[c.op])).toBe(true);
});

afterAll(() => {
  reportSkipped(
    'worked-examples.json',
    cases.filter((c) => !OPS[c.op] && !THEORY[c.op]).map((c) => [c.id, SKIPPED[c.op] ?? 'no kernel for this op']),
  );
});
