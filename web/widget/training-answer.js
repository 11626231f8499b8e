// The training run of a Part 4 chapter whose prediction waits for it (widget/training.js). The chapter opens
// with the model of its settings made and shown at step 0, and nothing trains until the learner answers the
// prediction (`asked`) or presses Train, Resume or Restart (the run's `until` passes 0); from then on, new
// settings train to their steps (`open(job)`). A reveal waits for the update it needs (`reach(ready)`), which
// is drawn first. A Cancel while a reveal waits puts the untrained model back, at step 0 (`back`): the question
// is open again, so the page shows nothing that answers it. (Keeping it answered instead would record an answer
// the page never computed the right choice of.) Any other stop short (a failure, the chapter left the page)
// rejects the waiting reveal with training.js's error.
import { pacedDraw } from './paced-draw.js';
import { trainingRun } from './training.js';

/**
 * @param {HTMLElement} widget the chapter (gets data-train and data-run)
 * @param {object} o trainingRun's `label`, `onUpdate`, `onDone` and `onError`, and:
 * @param {() => void} o.draw draws the latest update (paced: widget/paced-draw.js)
 * @param {() => void} o.back makes the model of the state again at step 0 (after a Cancel while a reveal waited)
 * @returns trainingRun's run, with `asked` (the learner answered: set by the reveal), `trains` (asked, or the run
 *   was asked to train past step 0), `open(job)` (trains to job.steps when `trains`, else makes and shows step 0)
 *   and `reach(ready, now)` (a promise of `now` when given and ready(now), else of the first update drawn from then
 *   on that ready(u) accepts; it rejects when the run stops short)
 */
export function answerRun(widget, { draw, back, ...o }) {
  let waiting = []; // { ready, resolve, reject }
  const run = Object.create(
    trainingRun(widget, {
      ...o,
      draw: pacedDraw(() => {
        draw();
        const u = run.last;
        const done = waiting.filter((w) => w.ready(u));
        waiting = waiting.filter((w) => !done.includes(w));
        for (const w of done) w.resolve(u);
      }),
      onStop: (err) => {
        const stopped = waiting;
        waiting = [];
        const again = stopped.length > 0 && run.state === 'cancelled' && widget.isConnected;
        const why = again ? new Error(`${err.message}; the model is shown untrained again, at step 0`) : err;
        for (const w of stopped) w.reject(why);
        if (!again) return;
        run.asked = false;
        back();
      },
    }),
  );
  run.asked = false;
  Object.defineProperty(run, 'trains', { get: () => run.asked || run.until > 0 });
  run.open = (job) => run.start(job, { until: run.trains ? job.steps : 0 });
  run.reach = (ready, now) =>
    now && ready(now)
      ? Promise.resolve(now)
      : new Promise((resolve, reject) => waiting.push({ ready, resolve, reject }));
  return run;
}
