// One experiment of a widget, run in the experiment worker
// (worker-client.js): its progress bar, its "Run again" and Cancel buttons,
// its status line, and the host's data attribute(s) saying where it stands
// (running, done, cancelled, error; tests and styles read them). The widget
// says when to run and what a result means; this keeps the controls in step.
// Given `keyOf` and `job`, a run belongs to the key of the state it is for:
// `want(state)` starts it unless that key is running or on show already.
import { AgWidget } from './base.js';
import { groupData, slider } from './controls.js';
import { h, handOffFocus, setAttr, setFlag, setText, setValue } from './dom.js';
import { CancelledError, ExperimentClient } from './worker-client.js';

export class ExperimentRun {
  #client = new ExperimentClient();
  #host;
  #attrs;
  #lockRun;
  #cancelled;
  #failed;
  #failInStatus;
  #keyOf;
  #job;
  #keepKey;
  /** The key of the run going on or shown (null: the next `want` runs). */
  key = null;
  #token = 0; // the run whose answers count; a newer run or a cancel makes older answers stale

  /**
   * @param {HTMLElement} host the widget (gets data-<attr> for each of `attrs`)
   * @param {object} o
   * @param {string[]} [o.attrs] data attributes of the host that carry the run's state
   * @param {string} o.progressLabel aria-label of the progress bar
   * @param {{ action?: string, label?: string, class?: string }} [o.run] the run button
   * @param {{ action?: string, class?: string }} [o.cancel] the cancel button
   * @param {string} [o.statusClass] class of the status line
   * @param {string} [o.progressClass] class of the progress bar
   * @param {() => void} [o.onRun] the run button was pressed
   * @param {() => void} [o.onCancel] the learner cancelled (after the worker stopped)
   * @param {string | ((reached: number) => string)} [o.cancelled] the status after a cancel, or
   *   a function of the share of the run done (0 to 1) that returns it (a chapter says what its
   *   figures still show)
   * @param {string} [o.failed] the words before a failure's message
   * @param {boolean} [o.failInStatus] a failure goes in the status line (else in the widget's note)
   * @param {boolean} [o.lockRun] disable the run button while a run goes on
   * @param {(state: object) => string|null} [o.keyOf] the key of the run a state wants (null: none yet)
   * @param {(state: object, key: string, o: object) => object|undefined} [o.job] the run of a state (see want)
   * @param {boolean} [o.keepKey] a cancel keeps the key (the same state does not run again until "Run again")
   */
  constructor(host, o) {
    this.#host = host;
    this.#attrs = o.attrs ?? ['run'];
    this.#lockRun = o.lockRun ?? false;
    this.#cancelled = o.cancelled ?? 'Cancelled. Change a setting or press \u201cRun again\u201d.';
    this.#failed = o.failed ?? 'The experiment could not run';
    this.#failInStatus = o.failInStatus ?? false;
    this.#keyOf = o.keyOf;
    this.#job = o.job;
    this.#keepKey = o.keepKey ?? false;
    const run = o.run ?? {};
    const cancel = o.cancel ?? {};
    this.runButton = h(
      'button',
      { type: 'button', class: run.class, dataset: { action: run.action ?? 'run' } },
      run.label ?? 'Run again',
    );
    this.cancelButton = h(
      'button',
      { type: 'button', class: cancel.class, dataset: { action: cancel.action ?? 'cancel' }, disabled: true },
      'Cancel',
    );
    this.progress = h('progress', { max: 1, value: 0, class: o.progressClass, 'aria-label': o.progressLabel });
    this.status = h('p', { class: o.statusClass ?? 'status', role: 'status' }, '');
    this.runButton.addEventListener('click', () => (o.onRun ? o.onRun() : this.again()));
    const stop = () => {
      this.cancel();
      if (!this.#keepKey) this.key = null;
      o.onCancel?.();
    };
    this.cancelButton.addEventListener(
      'click',
      handOffFocus(this.cancelButton, () => this.runButton, stop),
    );
  }

  /** The buttons in a `.buttons` box, after `before` (a "New seed" button). */
  buttons(...before) {
    return h('div', { class: 'buttons' }, ...before, this.runButton, this.cancelButton);
  }

  /** The progress bar and the status line in a `.run` box. */
  runBox() {
    return h('div', { class: 'run' }, this.progress, this.status);
  }

  /**
   * The `.controls` bar: the settings (elements, or [name, control] pairs, each then `labelled`), the
   * seed's box (`seed` from seedControls), the buttons, the run box.
   */
  controls(settings, seed) {
    const items = settings.map((s) => (Array.isArray(s) ? labelled(...s) : s));
    return h('div', { class: 'controls' }, items, seed?.label, this.buttons(seed?.next ?? []), this.runBox());
  }

  /** Whether the worker runs a job. */
  get busy() {
    return this.#client.busy;
  }

  /** The state now (one of running, done, cancelled, error, idle). */
  get state() {
    return this.#host.getAttribute(`data-${this.#attrs[0]}`) ?? 'idle';
  }

  /** Shows `state` (and `text` in the status line) without running anything. */
  mark(state, text) {
    setFlag(this.cancelButton, 'disabled', state !== 'running');
    if (this.#lockRun) setFlag(this.runButton, 'disabled', state === 'running');
    if (state === 'running') this.progress.value = 0;
    else if (state === 'done') this.progress.value = 1;
    if (text !== undefined) setText(this.status, text);
    for (const a of this.#attrs) setAttr(this.#host, `data-${a}`, state);
  }

  /**
   * Runs `job` in the worker (a timing with `time`), a running one stopping
   * first. `onResult(result)` returns the status text of the done run, or
   * null when the result no longer counts (the controls are left alone);
   * `onError(err)` is told of a failure before it is shown. While `live()`
   * says no (a job for a state the learner has left), its progress and
   * answers are not shown.
   */
  run(job, { time = false, text, live: wanted = () => true, onProgress, onResult, onError } = {}) {
    const token = ++this.#token;
    this.mark('running', text);
    const live = () => token === this.#token && wanted();
    const progress = (p) => {
      if (!live()) return;
      this.progress.value = p.done / p.total;
      onProgress?.(p);
    };
    return this.#client[time ? 'time' : 'run'](job, { onProgress: progress }).then(
      (result) => {
        if (!live()) return;
        const done = onResult(result);
        if (done !== null) this.mark('done', done);
      },
      (err) => {
        if (err instanceof CancelledError || !live()) return;
        onError?.(err);
        const text = this.#host.failureLine?.(this.#failed, err) ?? `${this.#failed}: ${err.message}`;
        this.mark('error', this.#failInStatus ? text : undefined);
        if (!this.#failInStatus) this.#host.noteFailure(this.#failed, err);
      },
    );
  }

  /**
   * Starts the run of `state` unless the run of its key is going on or shown; returns whether the key
   * is new. `job(state, key, { before, again })` gives the run (none: the widget runs it later with
   * `runKeyed`); `before` is the key before, `again` says "Run again" asked for it.
   */
  want(state, again = false) {
    const key = this.#keyOf(state);
    if (key === null || key === this.key) return false;
    const before = this.key;
    this.key = key;
    const spec = this.#job(state, key, { before, again });
    if (spec) this.runKeyed(key, spec);
    return true;
  }

  /** Runs `{ job, ...options of run() }` for `key`: its answers count while the key is wanted; a failure forgets it. */
  runKeyed(key, { job, live, onError, ...o }) {
    return this.run(job, {
      ...o,
      live: () => this.key === key && (live?.() ?? true),
      onError: (err) => {
        this.key = null;
        onError?.(err);
      },
    });
  }

  /** Runs the state's experiment anew ("Run again"). */
  again() {
    this.key = null;
    this.want(this.#host.state, true);
  }

  /** Stops the run now (the worker is terminated) and says so; the progress bar stays where the run stopped. */
  cancel() {
    const reached = this.progress.value / this.progress.max;
    this.stop();
    this.mark('cancelled', typeof this.#cancelled === 'function' ? this.#cancelled(reached) : this.#cancelled);
  }

  /** Stops the run without a word (a widget leaving the page, a run made stale). */
  stop() {
    this.#token += 1;
    this.#client.cancel();
  }

  /** Stops the run and forgets its key (the widget left the page: back on it, the state runs again). */
  dispose() {
    this.stop();
    this.key = null;
  }
}

/**
 * A chapter of worker experiments: each `experiment(o)` it makes (an ExperimentRun on it) stops
 * and forgets its key when the chapter leaves the page (back on it, its state runs again).
 */
export class ExperimentWidget extends AgWidget {
  /**
   * A run costs seconds of CPU: it starts once the widget is on screen, not while the learner passes a chapter
   * near it (a page opened on the next chapter would run it too).
   */
  static startMargin = '0px';

  #runs = [];

  /** A new ExperimentRun of this chapter (options as the constructor's). */
  experiment(o) {
    const run = new ExperimentRun(this, o);
    this.#runs.push(run);
    return run;
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    for (const run of this.#runs) run.dispose();
  }
}

/**
 * The seed of a seeded experiment: a number box (class "seed") in a
 * `label.ctl`, and a button that moves to the next seed. A box left with a
 * value out of range changes nothing (`bad`, when given, says so in the
 * widget's note). `sync(seed)` writes the state into the box unless the
 * learner is typing in it. The box and the button are the control group `o.group` ('seed'; none with
 * `control: false` unless `group` is given).
 * @returns {{ label: HTMLLabelElement, input: HTMLInputElement, next: HTMLButtonElement, sync: (seed: number) => void }}
 */
export function seedControls(widget, o = {}) {
  const max = o.max ?? 4294967295;
  const group = groupData(o.group ?? (o.control === false ? null : 'seed'));
  const input = h('input', {
    type: 'number',
    min: 0,
    max,
    step: 1,
    inputmode: 'numeric',
    class: 'seed',
    'aria-label': o.label ?? 'Seed',
    dataset: o.control === false ? undefined : { control: 'seed' },
  });
  input.addEventListener('change', () => {
    const v = Number(input.value);
    if (Number.isInteger(v) && v >= 0 && v <= max) widget.setState({ seed: v });
    else if (o.bad) widget.note(o.bad);
  });
  const next = h(
    'button',
    {
      type: 'button',
      class: o.nextClass,
      // The button changes the seed too: it belongs to the seed's control group (hidden with it).
      dataset: { ...(o.nextClass ? {} : { action: 'new-seed' }), ...group },
    },
    o.next ?? 'New seed',
  );
  next.addEventListener('click', () => widget.setState({ seed: (widget.state.seed + 1) % (max + 1) }));
  const sync = (seed) => widget.shadowRoot.activeElement !== input && setValue(input, String(seed));
  const label = h('label', { class: 'ctl', dataset: group }, h('span', {}, o.text ?? 'Seed'), input);
  return { label, input, next, sync };
}

/**
 * A setting of an experiment as a <select data-control=name> named `label`:
 * options are values or [value, text] pairs; a change calls onChange(value)
 * with the value as text.
 */
export function settingSelect(name, label, options, onChange, props = {}) {
  const items = options.map((o) => (Array.isArray(o) ? o : [o, String(o)]));
  const el = h(
    'select',
    { 'aria-label': label, dataset: { control: name, ...groupData(name) }, ...props },
    items.map(([value, text]) => h('option', { value }, text)),
  );
  el.addEventListener('change', () => onChange(el.value));
  return el;
}

/**
 * A control with its visible name: <label class="ctl"><span>name</span>control…</label>; the control group of
 * the first control's data-control (settingSelect), if any.
 */
export const labelled = (name, ...controls) =>
  h('label', { class: 'ctl', dataset: groupData(controls[0]?.dataset?.control) }, h('span', {}, name), ...controls);

/**
 * A setting on a slider: `<label class="ctl ctl-{name}"><span>name…</span>` the range input
 * (class `{name}-slider`, data-control, aria-label `label`) and its output (class `{name}-value`,
 * data-role `role` when given)`</label>`, as `label`; the rest as slider() gives it.
 */
export function settingSlider(name, label, text, { role, ...o }) {
  const s = slider({
    ...o,
    class: `${name}-slider`,
    dataset: { control: name },
    attrs: { 'aria-label': label },
    outClass: `${name}-value`,
    rowClass: null,
  });
  if (role) s.out.dataset.role = role;
  const group = groupData(name);
  return { ...s, label: h('label', { class: `ctl ctl-${name}`, dataset: group }, h('span', {}, text), s.input, s.out) };
}

/**
 * The measured value of each setting as an `<li>`: "name = x: " and the number in a
 * `span.num[data-role][data-key]` (the setting padded to `pad` digits) written by `show(el, value)`,
 * then `after(row)`; `cls(row)` is the item's class.
 */
export function measuredItems(rows, { name, role, pad, show, value, cls, after }) {
  return rows.map((row) => {
    const v = h('span', { class: 'num', dataset: { role, key: String(row.d).padStart(pad, '0') } });
    show(v, value(row));
    return h('li', { class: cls?.(row) }, `${name} = ${row.d}: `, v, after?.(row));
  });
}
