// What the course author decides when building the SCORM package
// (`npm run scorm -- --completion=used --min-minutes=10 --score=none`), carried
// to the launch page in <meta name="attention-geometry-scorm" content="…">.
// A package is the whole course (scope 'course') or one chapter (scope
// 'chapter', `npm run scorm -- --chapter <id>`):
//   completion  course: 'used' (default): every chapter's widget was used,
//               i.e. the learner changed something in it or answered its
//               prediction; 'visited': every chapter was scrolled to (a weak
//               rule: a learner who scrolls through in seconds completes).
//               chapter: 'asked' (default): every prediction the package asks
//               was answered, or, when it asks none, the widget was used;
//               'used': the widget was used.
//   minMinutes  a floor on the time spent in the package, all sessions
//               together (cmi.core.total_time plus this session): 0 to 600,
//               default 0 (no floor).
//   score       'predictions' (default): cmi.core.score.raw is the share of
//               predictions answered right the first time, 0..100 (course:
//               of the chapters, one prediction each; chapter: of the
//               predictions asked): formative, it says what the learner
//               expected before the reveal, not what was learned; 'none': no
//               score is sent.

export const POLICY_META = 'attention-geometry-scorm';
export const DEFAULT_POLICY = Object.freeze({ completion: 'used', minMinutes: 0, score: 'predictions' });
/** The completions of each scope; the first is the default. */
export const COMPLETIONS = Object.freeze({ course: ['used', 'visited'], chapter: ['asked', 'used'] });
const SCORES = ['predictions', 'none'];
const MAX_MINUTES = 600;

/**
 * Checks and completes a policy given as an object (any of its three keys), for a package of `scope`
 * ('course' or 'chapter'). Throws a TypeError or RangeError naming the key, its value and what was expected.
 */
export function checkPolicy(given = {}, scope = 'course') {
  const completions = COMPLETIONS[scope];
  if (!completions) throw new TypeError(`SCORM policy: unknown scope ${JSON.stringify(scope)} (course, chapter)`);
  const policy = { ...DEFAULT_POLICY, completion: completions[0] };
  for (const [key, value] of Object.entries(given)) {
    if (key === 'completion' || key === 'score') {
      const allowed = key === 'completion' ? completions : SCORES;
      if (!allowed.includes(value)) {
        const of = key === 'completion' ? ` for a ${scope === 'chapter' ? 'one-chapter' : 'whole-course'} package` : '';
        throw new RangeError(`SCORM ${key}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}${of}`);
      }
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
export function policyText(policy, scope = 'course') {
  const p = checkPolicy(policy, scope);
  return `completion=${p.completion}; min-minutes=${p.minMinutes}; score=${p.score}`;
}

/** The policy in a meta content written by policyText; throws as checkPolicy does. */
export function parsePolicy(text, scope = 'course') {
  const given = {};
  for (const part of String(text).split(';')) {
    if (!part.trim()) continue;
    const [key, value = ''] = part.split('=').map((s) => s.trim());
    if (key === 'min-minutes') given.minMinutes = /^\d+$/.test(value) ? Number(value) : value;
    else if (key === 'completion' || key === 'score') given[key] = value;
    else throw new TypeError(`SCORM policy: unknown setting ${JSON.stringify(key)} (completion, min-minutes, score)`);
  }
  return checkPolicy(given, scope);
}

const minutesText = (n) => (n > 0 ? ` and spent at least ${n} minute${n === 1 ? '' : 's'} in it` : '');
const NOT_A_GRADE = 'it records what you expected before seeing the result, not a grade of what you learned.';

/**
 * One or two sentences for the learner: what completes the package and what the score counts.
 * `chapter`: for a one-chapter package, { asked } the number of predictions it asks; null for the course.
 */
export function describePolicy(policy, chapter = null) {
  const p = checkPolicy(policy, chapter ? 'chapter' : 'course');
  if (chapter) {
    const { asked } = chapter;
    const rule =
      p.completion === 'asked' && asked > 0
        ? `once you have answered ${asked === 1 ? 'its prediction' : `each of its ${asked} predictions`}`
        : 'once you have used its widget (changed something in it or answered its prediction)';
    const score =
      p.score === 'none' || asked === 0
        ? ' No score is reported.'
        : asked === 1
          ? ` The score is 100 if your first answer to its prediction is right, else 0: ${NOT_A_GRADE}`
          : ` The score is the share of its predictions you got right at the first answer: ${NOT_A_GRADE}`;
    return `This chapter is complete ${rule}${minutesText(p.minMinutes)}.${score}`;
  }
  const rule =
    p.completion === 'used'
      ? 'once you have used every chapter\u2019s widget'
      : 'once you have gone through every chapter';
  const score =
    p.score === 'predictions'
      ? ` The score is the share of chapters whose prediction you got right at the first answer: ${NOT_A_GRADE}`
      : ' No score is reported.';
  return `This course is complete ${rule}${minutesText(p.minMinutes)}.${score}`;
}
