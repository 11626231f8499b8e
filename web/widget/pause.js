// Work that waits until the learner pauses: a trailing debounce. Each
// change calls poke(); `run` runs once, `delayMs` after the last poke. A
// poke during a drag costs one clock reading (no timer is cleared or set
// per change): the one timer, when it fires early, waits again for the
// time left.

/**
 * @param {() => void} run
 * @param {number} delayMs
 * @returns {{ poke: () => void, flush: () => void, cancel: () => void, pending: () => boolean }}
 *   poke: a change (run after the pause); flush: run now if a run waits;
 *   cancel: forget the waiting run; pending: whether a run waits
 */
export function afterPause(run, delayMs) {
  let due = 0; // when the waiting run is due (performance.now()); 0: none waits
  let timer = null;
  const fire = () => {
    timer = null;
    if (due === 0) return;
    const left = due - performance.now();
    if (left > 1) {
      timer = setTimeout(fire, left);
      return;
    }
    due = 0;
    run();
  };
  const cancel = () => {
    due = 0;
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  return {
    poke() {
      due = performance.now() + delayMs;
      if (timer === null) timer = setTimeout(fire, delayMs);
    },
    flush() {
      if (due === 0) return;
      cancel();
      run();
    },
    cancel,
    pending: () => due !== 0,
  };
}
