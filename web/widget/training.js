// A training run of a Part 4 chapter: the model lives in the experiment worker (a 'train' job,
// models/training-chunk.js); the page asks for one chunk of steps at a time, so it never freezes
// and can pause, resume, cancel and restart (seeded: a restart gives the same numbers, bit for bit).
// After each chunk `onUpdate(u)` gets what the chapter asked to see; every number in it is the
// return value of a logged API call in the worker (test mode appends them to the page's call log).
// With `draw` (a paced draw, widget/paced-draw.js) the chapter keeps the numbers of each update in
// onUpdate and draws in `draw`: the next chunk is asked for once the update is drawn, so every chunk
// is shown, at most one draw per DRAW_GAP_MS (about one a second while the learner types or drags: input
// first), and the page stays free for the learner's input between draws; the last update of a run is
// drawn at once.
// `run.controls()`: Train / Pause / Resume, Restart, Cancel, a progress bar of the steps and a
// status line (a live region, written when the run changes state). The host carries
// `data-train` (the state) and `data-run` ('running', or 'done' once the steps asked for are
// reached, paused or done), which the tests wait on. `start(job, { until: 0 })` makes the model and shows its
// step 0 without training: the run then waits ("Ready"), and Train trains it on.
import { h, handOffFocus, setAttr, setFlag, setText } from './dom.js';
import { CancelledError, ExperimentClient, WorkerStartError } from './worker-client.js';

const ACTIONS = {
  idle: ['train', 'Train'],
  running: ['pause', 'Pause'],
  paused: ['resume', 'Resume'],
  done: ['train', 'Train again'],
  cancelled: ['train', 'Train'],
  error: ['train', 'Train'],
};

/** `${lead}: ` and why, its advice given once (AgWidget.failureLine of the widget, or of the one `el` is in). */
function failureLine(el, lead, err) {
  const host = el.failureLine ? el : el.getRootNode?.()?.host;
  return host?.failureLine ? host.failureLine(lead, err) : `${lead}: ${err.message}`;
}

/**
 * @param {HTMLElement} widget the chapter (gets data-train and data-run)
 * @param {object} o
 * @param {string} o.label what is trained, for the progress bar and the status ("the model")
 * @param {(u: object) => void} o.onUpdate told each chunk's update, in order
 * @param {{ request: () => Promise<void>, flush: () => void, cancel: () => void }} [o.draw] a paced draw (widget/paced-draw.js) that
 *   draws the chapter's latest update: asked for after each onUpdate, and the loop waits for it
 * @param {(u: object) => void} [o.onDone] told the last update of a run that reached its steps
 * @param {(err: Error) => void} [o.onError] told a failure (a bad config's RangeError); it is shown too, in
 *   the status line (a worker that did not start, worker-client.js's WorkerStartError: only that it did not,
 *   as onError is to show why above the controls)
 * @param {(err: Error) => void} [o.onStop] told that a run stopped short of the step it was to reach, and will
 *   not go on by itself: Cancel, a failure (after onError, the same error) or dispose; `err.message` says why
 *   (a reveal waiting for the run rejects with it)
 */
export function trainingRun(widget, { label, onUpdate, draw, onDone, onError, onStop }) {
  const client = new ExperimentClient();
  let state = 'idle';
  let job = null;
  let until = 0; // the step the run stops at (pauses when below job.steps)
  let step = 0; // the step of the model in the worker
  let token = 0; // the loop whose answers count
  let fresh = true; // the next chunk starts a new model
  let epoch = 0; // counts the new models asked for: an answer of an older one moves nothing
  let busy = null; // the chunk in the worker (a new loop waits for it: one job at a time keeps the model)
  let last = null; // the last update

  const main = h('button', { type: 'button', dataset: { action: 'train' } }, 'Train');
  const restart = h('button', { type: 'button', dataset: { action: 'restart' }, disabled: true }, 'Restart');
  const cancel = h('button', { type: 'button', dataset: { action: 'cancel' }, disabled: true }, 'Cancel');
  const progress = h('progress', { max: 1, value: 0, 'aria-label': `Training steps of ${label}` });
  const status = h('p', { class: 'status', role: 'status' }, '');

  const stepsText = () => `step ${step} of ${job?.steps ?? 0}`;
  // While a run trains, the status names where it goes (the progress bar shows where it is).
  const goingText = () =>
    until > step ? `Training ${label} from step ${step} to step ${until}.` : `Making ${label} at ${stepsText()}.`;
  function mark(next, text) {
    state = next;
    const [action, words] = next === 'paused' && step === 0 ? ACTIONS.idle : ACTIONS[next];
    main.dataset.action = action;
    setText(main, words);
    setFlag(restart, 'disabled', !job || next === 'idle');
    setFlag(cancel, 'disabled', next !== 'running');
    setAttr(widget, 'data-train', next);
    const settled = next === 'paused' || next === 'done' ? 'done' : next === 'idle' ? null : next;
    if (settled === null) widget.removeAttribute('data-run');
    else setAttr(widget, 'data-run', settled);
    if (text !== undefined) setText(status, text);
  }

  // Chunk after chunk up to `until`; `once`: one chunk even with no step to train (a new snapshot of this step).
  async function loop(t, once) {
    let need = once;
    while (t === token && (fresh || need || step < until)) {
      if (busy) await busy;
      if (t !== token) return;
      const to = fresh ? 0 : Math.min(step + job.chunk, until);
      need = false;
      const e = epoch;
      const sent = client.run({ kind: 'train', ...job, to, fresh });
      busy = sent.then(
        (u) => {
          if (e !== epoch) return;
          fresh = false;
          step = u.step;
        },
        () => {},
      );
      let u;
      try {
        u = await sent;
      } catch (err) {
        if (t !== token || err instanceof CancelledError) return;
        renew();
        // A worker that did not start is the chapter's message (onError), long and not about this run.
        const told = onError && err instanceof WorkerStartError;
        mark(
          'error',
          told
            ? 'Training stopped: the worker did not start; see the message above.'
            : failureLine(widget, 'Training stopped', err),
        );
        onError?.(err);
        onStop?.(err);
        return;
      }
      await busy;
      if (t !== token) {
        // A newer loop took over. When it goes on with this model (same epoch: start() with the same job),
        // this chunk's steps are part of the model's history: its update is told before the newer loop's
        // next one (which waits for the worker), so that the loss curve misses no step.
        if (e === epoch) {
          last = u;
          onUpdate(u);
        }
        return;
      }
      last = u;
      onUpdate(u);
      if (draw) {
        // Shown before the next chunk is asked for; the last one of the run (or one that came after a pause) at once.
        const drawn = draw.request();
        if (state === 'running' && step < until) await drawn;
        else draw.flush();
      }
      progress.value = job.steps ? step / job.steps : 1;
      if (t !== token) return;
      // Paused while the chunk ran: its update is shown and the loop ends, the status naming the step shown.
      if (state !== 'running') break;
    }
    if (t !== token) return;
    if (step >= job.steps) {
      mark('done', `Done: ${stepsText()}.`);
      onDone?.(last);
    } else if (step === 0) mark('paused', `Ready: ${stepsText()}, untrained. Train starts the run.`);
    else mark('paused', `Paused at ${stepsText()}.`);
  }

  function renew() {
    fresh = true;
    epoch += 1;
    step = 0;
  }

  /**
   * The run stopped at the current step (`why`: "was cancelled"): the model is dropped (the next start makes a new
   * one), then onStop is told, so that it may start the run again at once.
   */
  function stopped(why) {
    const err = new Error(`the training of ${label} ${why} at ${stepsText()}`);
    renew();
    onStop?.(err);
  }

  function go(text, once = false) {
    token += 1;
    mark('running', text);
    loop(token, once);
  }

  const run = {
    get state() {
      return state;
    },
    /** The step of the model the last update came from. */
    get step() {
      return step;
    },
    /** The step the run trains to (0: it waits at step 0; Train, Resume and Restart set job.steps). */
    get until() {
      return until;
    },
    /** The last update (null before the first). */
    get last() {
      return last;
    },
    /**
     * Trains `job` ({ config, task: { name, T, vocab, batch, seed }, steps, lr, clip?, chunk, evalEvery?,
     * heldOut?: { seed, batch }, snapshot?: { weights?, qk?, gradNorms?, tokens }, headMask? }) up to
     * `until` steps (default job.steps; below it the run pauses there). The same job (config, task, lr,
     * clip) goes on from the model in the worker when it has not passed `until`; another starts anew.
     */
    start(next, { until: to = next.steps } = {}) {
      const same = job && !fresh && sameRun(job, next) && step <= to;
      job = next;
      until = Math.min(to, next.steps);
      if (!same) renew();
      go(goingText(), true);
    },
    pause() {
      if (state !== 'running') return;
      mark('paused', `Paused at ${stepsText()}.`);
    },
    resume() {
      if (state !== 'paused' || !job) return;
      until = job.steps;
      go(goingText());
    },
    /** Stops at once: the worker and the model in it are gone (Train or Restart start from step 0). */
    cancel() {
      if (state !== 'running') return;
      token += 1;
      client.cancel();
      mark('cancelled', `Cancelled at ${stepsText()}. Train or Restart start again from step 0.`);
      stopped('was cancelled');
    },
    /** From step 0 again with the same job and seeds: the same numbers as the first time. */
    restart() {
      if (!job) return;
      token += 1;
      client.cancel();
      renew();
      until = job.steps;
      go(`Training ${label} again from step 0.`);
    },
    /** The buttons, the progress bar and the status line, in a `.training` box. */
    controls() {
      return h(
        'div',
        { class: 'training' },
        h(
          'div',
          { class: 'buttons', dataset: { controlGroup: 'train', groupLabel: 'Train, Restart, Cancel' } },
          main,
          restart,
          cancel,
        ),
        h('div', { class: 'run' }, progress, status),
      );
    },
    /** Stops the run and the worker (the chapter left the page). */
    dispose() {
      token += 1;
      client.dispose();
      draw?.cancel();
      if (state === 'running') {
        mark('cancelled', `Stopped at ${stepsText()}.`);
        stopped('stopped (the chapter left the page)');
      } else renew();
    },
  };

  main.addEventListener('click', () => {
    const action = main.dataset.action;
    if (action === 'pause') run.pause();
    else if (state === 'paused') run.resume();
    else if (state === 'done') run.restart();
    else if (job) run.start(job);
  });
  restart.addEventListener('click', () => run.restart());
  cancel.addEventListener(
    'click',
    handOffFocus(
      cancel,
      () => main,
      () => run.cancel(),
    ),
  );
  return run;
}

/** Whether two jobs train the same model on the same batches (a new snapshot or head mask trains nothing new). */
function sameRun(a, b) {
  const key = (j) => JSON.stringify([j.config, j.task, j.lr, j.clip ?? null, j.heldOut ?? null]);
  return key(a) === key(b);
}

export { lossChart } from './loss-chart.js';
