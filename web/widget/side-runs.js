// Runs of one model side by side (widget/training.js), made, trained, cancelled and waited for as a pair: the
// same parameters and batches, one setting apart (a Part 4 chapter that compares two ways of training). Each run
// has its box (`section.run.run-{id}` named by its label, its h4 and its controls), which carries its own
// data-train and data-run; the chapter's data-train is 'running' while either run trains (the page-update bench
// reads it), and its data-run says when both settled ('done', 'stopped'; 'pending' while the runs of a new state
// wait for the learner's pause; 'running').
// Both runs are made and shown at step 0, and nothing trains until the learner answers the prediction (`asked`:
// both train to the steps) or presses a run's Train (that run trains). Before then a new state makes the models of
// its settings at step 0 again; once either run has trained, a new state trains both again. Cancel stops the pair:
// a run cancelled while the other trains cancels it too. A Cancel while the answer waits for the runs puts both
// untrained models back, at step 0: the question is open again, so the page shows nothing that answers it.
// (Keeping it answered instead would record an answer the page never computed the right choice of.)
import { h, setAttr } from './dom.js';
import { pacedDraw } from './paced-draw.js';
import { afterPause } from './pause.js';
import { trainingRun } from './training.js';

/**
 * @param {HTMLElement} widget the chapter (its `engine` and `state`; gets data-train and data-run)
 * @param {{ id: string, label: string, model: string }[]} runs the runs: id, the box's name, what is trained
 * @param {object} o
 * @param {(state: object) => string} o.keyOf the key of a state's runs (a new key starts them again)
 * @param {(state: object, ag: object) => (r: object) => object} o.jobsOf the job of each run of a state
 * @param {(run: object, u: object, ag: object) => object|null} o.pointOf the point a chunk's update adds to
 *   `run.points` (null: none); it may keep what it needs in `run.rows` (reset with the points)
 * @param {() => void} o.draw draws the runs' points (one paced draw for both: updates that come close together
 *   are drawn once)
 * @param {() => void} o.onTrained told when a run changes state and both runs have trained past step 0
 * @param {number} o.pauseMs the pause after a change of the state before its runs start
 * @returns {{ boxes: HTMLElement[], of: (id: string) => object, asked: boolean, trains: boolean,
 *   start(until?: number): void, pending(state: object): boolean, wait(): Promise<void>, dispose(): void }}
 *   of(id): { box, run, points, rows }; start: both runs of the widget's state to the step `until` (the state's
 *   steps when `trains`, else 0) at once; pending(state): whether the runs shown are not the state's (they start
 *   after the pause); wait(): both runs of the state at once, and a promise settled once both stop (rejected when one stops short)
 */
export function sideRuns(widget, runs, { keyOf, jobsOf, pointOf, draw, onTrained, pauseMs }) {
  const of = {}; // per run id: { box, run, points, rows, key, model }
  let key = null; // the key of the runs started
  let done = null; // { promise, resolve, reject, over } of the current pair of runs
  let revealing = false; // a reveal waits for the pair
  const paced = pacedDraw(draw);
  const watch = new MutationObserver(() => {
    const trains = runs.map((r) => of[r.id].box.dataset.train);
    if (runs.every((r) => of[r.id].run.step > 0)) onTrained();
    setAttr(widget, 'data-train', trains.includes('running') ? 'running' : (trains[0] ?? 'idle'));
    settle();
  });
  for (const r of runs) {
    const box = h('section', { class: `run run-${r.id}`, 'aria-label': r.label }, h('h4', {}, r.label));
    const run = trainingRun(box, {
      label: r.model,
      onUpdate: (u) => update(r.id, u),
      draw: paced,
      onStop: (err) => stopped(r.id, err),
    });
    box.append(run.controls());
    watch.observe(box, { attributes: true, attributeFilter: ['data-run', 'data-train'] });
    of[r.id] = { box, run, points: [], rows: null };
  }

  /** A chunk of a run ended: its point, drawn by the runs' paced draw. */
  function update(id, u) {
    const ag = widget.engine;
    const run = of[id];
    if (!ag || run.key !== key) return;
    const point = pointOf(run, u, ag);
    if (!point) return;
    run.points = run.points.filter((p) => p.step < u.step); // a restart begins again at step 0
    run.points.push(point);
  }

  /** A run settled (done, paused, cancelled or failed): the pair has when neither runs. */
  function settle() {
    const states = runs.map((r) => of[r.id].box.dataset.run);
    // Runs of an older state that end while the new ones wait for the pause settle nothing.
    if (key !== keyOf(widget.state)) return;
    if (states.includes('running')) return setAttr(widget, 'data-run', 'running'); // a Train of one run too
    setAttr(widget, 'data-run', states.every((s) => s === 'done') ? 'done' : 'stopped');
    done?.resolve();
  }

  /**
   * A run of the pair on show stopped short (Cancel, a failure, the chapter left the page). A Cancel stops the
   * pair: the other run is cancelled too. A reveal waiting for the pair gets why; after a Cancel, the question is
   * open again, and both models are made again and shown at step 0.
   */
  function stopped(id, err) {
    if (of[id].key !== key) return;
    const cancelled = of[id].run.state === 'cancelled' && widget.isConnected;
    const back = cancelled && revealing;
    revealing = false;
    done?.reject(back ? new Error(`${err.message}; both models are shown untrained again, at step 0`) : err);
    if (cancelled) for (const r of runs) of[r.id].run.cancel(); // a run that does not train stays as it is
    if (!back) return;
    pair.asked = false;
    start(0);
  }

  /** Both runs of the widget's state, from the same parameters and batches, to the step `until`. */
  function start(until = pair.trains ? widget.state.steps : 0) {
    const ag = widget.engine;
    if (!ag) return;
    const state = widget.state;
    const next = keyOf(state);
    // Back to the runs on show before the pause ended, each running to `until` or stopped there.
    const onTrack = ({ run }) =>
      run.until === until && (run.state === 'running' || (run.step === until && /^(paused|done)$/.test(run.state)));
    const same = next === key;
    if (same && runs.every((r) => onTrack(of[r.id]))) {
      if (done?.over) done = pairDone(); // the runs are there: a new wait settles at once
      return settle();
    }
    key = next;
    const before = done;
    done = pairDone();
    before?.resolve(done.promise); // a reveal waiting for the runs of an older state waits for these
    setAttr(widget, 'data-run', 'running');
    const jobOf = jobsOf(state, ag);
    const model = keyOf({ ...state, steps: 0 });
    for (const r of runs) {
      const run = of[r.id];
      if (same && onTrack(run)) continue; // this run is where it should be (a snapshot would drop its gradient)
      // More steps of the same model: the run goes on from its last step (training.js), its points stay.
      if (run.model !== model || !(run.points.at(-1)?.step <= state.steps)) [run.points, run.rows] = [[], null];
      run.key = next;
      run.model = model;
      run.run.start(jobOf(r), { until });
    }
    widget.render(ag, state);
  }

  const later = afterPause(() => start(), pauseMs);
  const pair = {
    boxes: runs.map((r) => of[r.id].box),
    of: (id) => of[id],
    asked: false,
    get trains() {
      return pair.asked || runs.some((r) => of[r.id].run.until > 0);
    },
    start,
    pending(state) {
      if (keyOf(state) === key) return false;
      setAttr(widget, 'data-run', 'pending');
      later.poke();
      return true;
    },
    async wait() {
      later.cancel();
      start();
      revealing = true;
      try {
        await done.promise;
      } finally {
        revealing = false;
      }
    },
    dispose() {
      for (const r of runs) of[r.id].run.dispose();
      key = null; // back on the page, the runs start again
    },
  };
  return pair;
}

/** The wait for a pair of runs: { promise, resolve, reject, over } (`over` once settled; a rejection no reveal waits for is no error). */
function pairDone() {
  const done = { over: false };
  done.promise = new Promise((resolve, reject) => {
    done.resolve = (v) => {
      done.over = true;
      resolve(v);
    };
    done.reject = (err) => {
      done.over = true;
      reject(err);
    };
  });
  done.promise.catch(() => {});
  return done;
}
