// The paced draw of a training run (web/widget/paced-draw.js): at most one draw per gap, and input first: while
// the learner presses keys or drags, a waiting draw runs once the input has rested INPUT_QUIET_MS, or once it has
// waited INPUT_WAIT_MAX_MS. Jest's fake timers drive setTimeout and performance.now; the window is an EventTarget
// that gets the learner's events.
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';

let paced;
beforeAll(async () => {
  jest.useFakeTimers();
  globalThis.window = new EventTarget();
  paced = await import('../../web/widget/paced-draw.js');
});
afterAll(() => {
  delete globalThis.window;
  jest.useRealTimers();
});

/** A paced draw that records when (performance.now()) each draw ran. */
function recorder(o) {
  const times = [];
  return { times, draw: paced.pacedDraw(() => times.push(performance.now()), o) };
}
const press = (type = 'keydown', init = {}) => window.dispatchEvent(Object.assign(new Event(type), init));
/** Advances the clock to `t` ms after `from`, pressing a key every `every` ms on the way when given. */
function advance(ms, every = 0) {
  if (!every) return jest.advanceTimersByTime(ms);
  for (let t = 0; t < ms; t += every) {
    press();
    jest.advanceTimersByTime(Math.min(every, ms - t));
  }
}

describe('pacedDraw', () => {
  test('with no input, a draw runs at once and the next one DRAW_GAP_MS after it', () => {
    jest.advanceTimersByTime(10 * paced.INPUT_WAIT_MAX_MS); // clear of any earlier input
    const { times, draw } = recorder();
    const t0 = performance.now();
    draw.request();
    jest.advanceTimersByTime(0);
    draw.request();
    jest.advanceTimersByTime(paced.DRAW_GAP_MS - 1);
    expect(times).toEqual([t0]);
    jest.advanceTimersByTime(1);
    expect(times).toEqual([t0, t0 + paced.DRAW_GAP_MS]);
  });

  test('a draw asked for just after a key waits until the input has rested INPUT_QUIET_MS', () => {
    jest.advanceTimersByTime(10 * paced.INPUT_WAIT_MAX_MS);
    const { times, draw } = recorder();
    press();
    const key = performance.now();
    jest.advanceTimersByTime(20);
    draw.request();
    jest.advanceTimersByTime(paced.INPUT_QUIET_MS - 21);
    expect(times).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(times).toEqual([key + paced.INPUT_QUIET_MS]);
  });

  test('keys held down (one every 30 ms) hold a draw back INPUT_WAIT_MAX_MS from when it was asked for, no longer', () => {
    jest.advanceTimersByTime(10 * paced.INPUT_WAIT_MAX_MS);
    const { times, draw } = recorder();
    press();
    const asked = performance.now();
    draw.request();
    advance(paced.INPUT_WAIT_MAX_MS - 10, 30);
    expect(times).toEqual([]);
    advance(60, 30);
    expect(times).toEqual([asked + paced.INPUT_WAIT_MAX_MS]);
  });

  test('a pointer moving with no button down is not a drag and holds nothing back; a drag does', () => {
    jest.advanceTimersByTime(10 * paced.INPUT_WAIT_MAX_MS);
    const { times, draw } = recorder();
    press('pointermove', { buttons: 0 });
    const t0 = performance.now();
    draw.request();
    jest.advanceTimersByTime(0);
    expect(times).toEqual([t0]);
    press('pointermove', { buttons: 1 });
    draw.request();
    jest.advanceTimersByTime(paced.INPUT_QUIET_MS - 1);
    expect(times).toEqual([t0]);
    jest.advanceTimersByTime(1);
    expect(times).toEqual([t0, t0 + paced.INPUT_QUIET_MS]);
  });

  test('flush draws a waiting draw at once, whatever the input; cancel forgets it', async () => {
    jest.advanceTimersByTime(10 * paced.INPUT_WAIT_MAX_MS);
    const { times, draw } = recorder();
    press();
    const asked = draw.request();
    draw.flush();
    expect(times).toEqual([performance.now()]);
    await expect(asked).resolves.toBeUndefined();
    press();
    const forgotten = draw.request();
    expect(draw.pending()).toBe(true);
    draw.cancel();
    expect(draw.pending()).toBe(false);
    jest.advanceTimersByTime(paced.INPUT_WAIT_MAX_MS);
    expect(times.length).toBe(1);
    await expect(forgotten).resolves.toBeUndefined();
  });
});
