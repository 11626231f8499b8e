// The SCORM 1.2 adapter, loaded only by the launch page of a SCORM package
// (scripts/scorm.mjs), after the page shell (app.js; in a one-chapter
// package, embed.js), whose progress (window.agProgress, `ag-progress`
// events) it reports to the LMS:
//   start   find the LMS's API, LMSInitialize, resume (chapters gone through,
//           predictions, the chapter the learner was at), lesson_status
//           'incomplete' on a first launch;
//   change  lesson_location, suspend_data, score, and 'completed' once the
//           author's rule is met (scorm/policy.js: by default every
//           chapter's widget used); each answer of a prediction, and of
//           the concept check, as an interaction (scorm/interactions.js,
//           from its xAPI statement);
//           LMSCommit at most every 2 s;
//   leave   session_time, exit ('suspend' until completed), LMSCommit and
//           LMSFinish, once.
// cmi.core.lesson_mode (SCORM 1.2 run-time environment): in 'review' the learner looks
// back at an attempt: the saved progress is shown and nothing is written,
// only LMSInitialize and LMSFinish are called. In 'browse' (a preview) a
// first launch is 'browsed' rather than 'incomplete', and only the place
// (lesson_location) is kept: no suspend data, score, interactions,
// completion, session time or exit, so that
// a preview's answers never count in the graded attempt, which starts as
// 'incomplete' after a preview as after nothing.
// Without an LMS the page works as usual and says that nothing is reported.
import { anchorOf } from './chapters.js';
import { h } from './widget/dom.js';
import { findApi } from './scorm/find-api.js';
import { interactionValues } from './scorm/interactions.js';
import { Lms } from './scorm/lms.js';
import { checkPolicy, describePolicy, parsePolicy, POLICY_META } from './scorm/policy.js';
import { cmiValues, FINAL_STATUSES } from './scorm/report.js';
import { decodeSuspendData } from './scorm/suspend-data.js';
import { formatTimespan, parseTimespan } from './scorm/timespan.js';
import { ANSWERED, XAPI_EVENT } from './widget/xapi.js';

const COMMIT_EVERY_MS = 2000;
// Statuses of a course not started for credit ('browsed': only previewed).
const NOT_STARTED = new Set(['', 'not attempted', 'browsed']);

/** A short visible text note at the top of the page (never an alert). */
function statusNote() {
  const note = h('p', { class: 'note scorm-status', role: 'status', dataset: { role: 'scorm-status' }, hidden: true });
  const anchor = document.querySelector('.site-header .lede');
  if (anchor) anchor.after(note);
  else document.body.prepend(note);
  return (text) => {
    note.textContent = text;
    note.hidden = false;
  };
}

/**
 * The author's policy from the launch page's meta, for a package of `scope` ('course' or 'chapter'); the
 * scope's default, with a note, when it is unreadable.
 */
function readPolicy(say, scope) {
  const meta = document.querySelector(`meta[name="${POLICY_META}"]`);
  if (!meta) return checkPolicy({}, scope);
  try {
    return parsePolicy(meta.getAttribute('content') ?? '', scope);
  } catch (err) {
    say(`The package's reporting rule could not be read (${err.message}); the default rule is used.`);
    return checkPolicy({}, scope);
  }
}

/**
 * A line under the page's lede that tells the learner what completes the package and what the score counts;
 * `chapter`: { asked } in a one-chapter package.
 */
function showPolicy(policy, chapter) {
  const line = h(
    'p',
    { class: 'note scorm-policy', dataset: { role: 'scorm-policy' } },
    describePolicy(policy, chapter),
  );
  const anchor = document.querySelector('[data-role=scorm-status]') ?? document.querySelector('.site-header .lede');
  if (anchor) anchor.after(line);
  else document.body.prepend(line);
}

function scrollToChapter(progress, id) {
  if (!progress.chapters.includes(id)) return;
  // A link that names a chapter wins over the saved location.
  const params = new URLSearchParams(window.location.search);
  if (params.has('ch') || window.location.hash) return;
  document.getElementById(anchorOf({ id }))?.scrollIntoView({ block: 'start' });
}

function start(progress, api, say, policy) {
  const lms = new Lms(api, ({ call, detail }) =>
    say(`Progress may not be fully reported: the LMS refused ${call} (${detail}).`),
  );
  if (!lms.initialize()) {
    say('Progress is not being reported: the LMS did not start the attempt.');
    return;
  }
  const startedAt = performance.now();
  const mode = lms.get('cmi.core.lesson_mode') || 'normal';
  // Time of earlier sessions (unreadable or missing: none), for the policy's time floor.
  const before = parseTimespan(lms.get('cmi.core.total_time')) ?? 0;
  const minutes = () => (before + performance.now() - startedAt) / 60000;
  let status = lms.get('cmi.core.lesson_status');
  const saved = decodeSuspendData(lms.get('cmi.suspend_data'));
  const location = lms.get('cmi.core.lesson_location');
  if (saved.problem) say(`Starting afresh: ${saved.problem}.`);
  else progress.restore(saved);
  if (mode === 'review') {
    say('Review: the progress of your attempt is shown; nothing you do now is recorded.');
    window.addEventListener('pagehide', () => lms.finish(), { once: true });
    if (location) scrollToChapter(progress, location);
    return;
  }
  if (mode === 'browse')
    say('Browsing: your place is kept, but no progress, answers, score or completion are recorded.');
  else showPolicy(policy, progress.asked ? { asked: progress.asked.length } : null);
  const startStatus = mode === 'browse' ? 'browsed' : 'incomplete';
  if (NOT_STARTED.has(status) && status !== startStatus && lms.set('cmi.core.lesson_status', startStatus))
    status = startStatus;

  // Writes only what changed since the last write.
  const written = new Map();
  let dirty = true; // the status above
  let finished = false;
  let timer = null;
  let lastCommit = -Infinity;

  const commitNow = () => {
    clearTimeout(timer);
    timer = null;
    if (!dirty || finished) return;
    dirty = false;
    lastCommit = performance.now();
    lms.commit();
  };
  const scheduleCommit = () => {
    if (timer || finished) return;
    timer = setTimeout(commitNow, Math.max(0, lastCommit + COMMIT_EVERY_MS - performance.now()));
  };
  const report = (snapshot) => {
    if (finished) return;
    let values;
    try {
      values = cmiValues({ ...snapshot, minutes: minutes() }, status, mode, policy);
    } catch (err) {
      say(`Progress may not be fully reported: ${err.message}.`);
      return;
    }
    for (const [element, value] of values) {
      if (written.get(element) === value) continue;
      if (!lms.set(element, value)) continue;
      written.set(element, value);
      if (element === 'cmi.core.lesson_status') status = value;
      dirty = true;
    }
    if (dirty) scheduleCommit();
  };
  const leave = () => {
    if (finished) return;
    report(progress.snapshot());
    // A preview leaves no time and no exit: 'suspend' would make the LMS resume it as an attempt.
    if (mode !== 'browse') {
      lms.set('cmi.core.session_time', formatTimespan(performance.now() - startedAt));
      lms.set('cmi.core.exit', FINAL_STATUSES.has(status) ? '' : 'suspend');
    }
    dirty = true;
    commitNow();
    finished = true;
    lms.finish();
  };

  // Every answer as an interaction, after those of earlier sessions; none in a preview.
  let interactions = Number.parseInt(lms.get('cmi.interactions._count'), 10) || 0;
  const answered = ({ detail }) => {
    // Answers only: the concept check's "completed" statements hold no interaction.
    if (finished || mode !== 'normal' || detail?.statement?.verb?.id !== ANSWERED.id) return;
    let values;
    try {
      values = interactionValues(detail.statement, detail, interactions);
    } catch (err) {
      say(`An answer could not be reported: ${err.message}.`);
      return;
    }
    interactions += 1;
    for (const [element, value] of values) if (!lms.set(element, value)) break;
    dirty = true;
    scheduleCommit();
  };

  document.addEventListener('ag-progress', (event) => report(event.detail));
  document.addEventListener(XAPI_EVENT, answered);
  window.addEventListener('pagehide', leave);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') commitNow();
  });
  report(progress.snapshot());
  // With a time floor, the course can become complete while nothing happens on the page.
  if (policy.minMinutes > 0 && mode === 'normal') {
    const left = policy.minMinutes * 60000 - (before + performance.now() - startedAt);
    setTimeout(() => report(progress.snapshot()), Math.max(0, left) + 1000);
  }
  if (location) scrollToChapter(progress, location);
}

function main() {
  const say = statusNote();
  const progress = window.agProgress;
  if (!progress) {
    say('Progress is not being reported: the page did not start.');
    return;
  }
  const api = findApi(window);
  if (!api) {
    say('Progress is not being reported: no LMS was found');
    return;
  }
  // A one-chapter package's progress (shell/chapter-progress.js) lists the predictions it asks.
  start(progress, api, say, readPolicy(say, progress.asked ? 'chapter' : 'course'));
}

main();
