// What the course author decides when building the SCORM package
// (`npm run scorm -- --completion=used --min-minutes=10 --score=none`), carried
// to the launch page in <meta name="attention-geometry-scorm" content="…">:
//   completion  'used' (default): every chapter's widget was used, i.e. the
//               learner changed something in it or answered its prediction;
//               'visited': every chapter was scrolled to (a weak rule: a
//               learner who scrolls through in seconds completes).
//   minMinutes  a floor on the time spent in the course, all sessions
//               together (cmi.core.total_time plus this session): 0 to 600,
//               default 0 (no floor).
//   score       'predictions' (default): cmi.core.score.raw is the share of
//               chapters whose prediction was answered right the first time,
//               0..100: formative, it says what the learner expected before
//               the reveal, not what was learned; 'none': no score is sent.

export const POLICY_META = 'attention-geometry-scorm';
export const DEFAULT_POLICY = Object.freeze({ completion: 'used', minMinutes: 0, score: 'predictions' });
const COMPLETIONS = ['used', 'visited'];
const SCORES = ['predictions', 'none'];
const MAX_MINUTES = 600;

/**
 * Checks and completes a policy given as an object (any of its three keys).
 * Throws a TypeError or RangeError naming the key, its value and what was expected.
 */
export function checkPolicy(given = {}) {
  const policy = { ...DEFAULT_POLICY };
  for (const [key, value] of Object.entries(given)) {
    if (key === 'completion' || key === 'score') {
      const allowed = key === 'completion' ? COMPLETIONS : SCORES;
      if (!allowed.includes(value))
        throw new RangeError(`SCORM ${key}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
      policy[key] = value;
    } else if (key === 'minMinutes') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_MINUTES)
        throw new RangeError(
          `SCORM minMinutes: ${JSON.stringify(value)} is not a whole number from 0 to ${MAX_MINUTES}`,
        );
      policy.minMinutes = value;
    } else {
      throw new TypeError(`SCORM policy: unknown setting ${JSON.stringify(key)} (completion, minMinutes, score)`);
    }
  }
  return Object.freeze(policy);
}

/** The meta content for a policy: 'completion=used; min-minutes=0; score=predictions'. */
export function policyText(policy) {
  const p = checkPolicy(policy);
  return `completion=${p.completion}; min-minutes=${p.minMinutes}; score=${p.score}`;
}

/** The policy in a meta content written by policyText; throws as checkPolicy does. */
export function parsePolicy(text) {
  const given = {};
  for (const part of String(text).split(';')) {
    if (!part.trim()) continue;
    const [key, value = ''] = part.split('=').map((s) => s.trim());
    if (key === 'min-minutes') given.minMinutes = /^\d+$/.test(value) ? Number(value) : value;
    else if (key === 'completion' || key === 'score') given[key] = value;
    else throw new TypeError(`SCORM policy: unknown setting ${JSON.stringify(key)} (completion, min-minutes, score)`);
  }
  return checkPolicy(given);
}

/** One or two sentences for the learner: what completes the course and what the score counts. */
export function describePolicy(policy) {
  const p = checkPolicy(policy);
  const rule =
    p.completion === 'used'
      ? 'once you have used every chapter\u2019s widget'
      : 'once you have gone through every chapter';
  const time =
    p.minMinutes > 0 ? ` and spent at least ${p.minMinutes} minute${p.minMinutes === 1 ? '' : 's'} in it` : '';
  const score =
    p.score === 'predictions'
      ? ' The score is the share of chapters whose prediction you got right at the first answer: it records what you expected before seeing the result, not a grade of what you learned.'
      : ' No score is reported.';
  return `This course is complete ${rule}${time}.${score}`;
}
