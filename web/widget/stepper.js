// Stepping through the steps of a computation, one shown at a time (simd: one dot product as a kernel
// computes it): a bar to move along the steps and the list of all of them.
//
//   const steps = stepper({ label: 'Step of the dot product', pick: (step) => this.setState({ step }),
//                           name: (s) => LABEL[s.kind], text: (s) => LABEL[s.kind] });
//   body.append(steps.bar, steps.list);
//   render: const k = steps.sync(Math.min(state.step, trace.steps.length - 1), trace.steps, key);
import { button, slider } from './controls.js';
import { h, setAttr, setFlag, setOrRemove, setText, setValue } from './dom.js';

/**
 * `bar`: `div.stepper` of "← Previous" (`button.prev`), a slider of the steps (`input.step-slider`, named
 * `label`), "Next →" (`button.next`) and "Step k of n" (`span.step-text`); `list`: `ol.steps`, an
 * `li[data-step][data-kind]` per step with its `button.step-button` (text `text(step)`), the step shown
 * `is-current` (its button aria-current="step"), those before it `is-done`. Each of them calls `pick(k)` with
 * the step to show (Previous and Next held at the ends). `sync(k, steps, key)` shows step k of `steps` (each
 * `{ kind }`): the slider (its aria-valuetext "step k of n: name(step)"), the buttons and the text, and the
 * list, made again only when `key` (the steps' shape) changes; writes only what changes.
 *
 * @param {{ label: string, pick: (k: number) => void, name: (step: object) => string,
 *           text: (step: object) => string }} o
 */
export function stepper({ label, pick, name, text }) {
  let at = 0;
  let count = 0;
  const go = (d) => pick(Math.max(0, Math.min(count - 1, at + d)));
  const input = slider({
    min: 0,
    max: 0,
    step: 1,
    value: 0,
    class: 'step-slider',
    attrs: { 'aria-label': label },
    outClass: null,
    rowClass: null,
    onInput: (k) => pick(k),
  }).input;
  const prev = button({ class: 'prev' }, '\u2190 Previous', () => go(-1));
  const next = button({ class: 'next' }, 'Next \u2192', () => go(1));
  const stepText = h('span', { class: 'step-text' });
  const bar = h('div', { class: 'stepper' }, prev, input, next, stepText);
  const list = h('ol', { class: 'steps' });
  list.addEventListener('click', (event) => {
    const li = event.target.closest?.('li[data-step]');
    if (li) pick(Number(li.dataset.step));
  });
  function sync(k, steps, key) {
    [at, count] = [k, steps.length];
    setAttr(input, 'max', count - 1);
    setValue(input, String(k));
    setAttr(input, 'aria-valuetext', `step ${k + 1} of ${count}: ${name(steps[k])}`);
    setFlag(prev, 'disabled', k === 0);
    setFlag(next, 'disabled', k === count - 1);
    setText(stepText, `Step ${k + 1} of ${count}`);
    if (list.dataset.key !== key) {
      const item = (s, i) => h('li', { dataset: { step: i, kind: s.kind } }, button({ class: 'step-button' }, text(s)));
      list.replaceChildren(...steps.map(item));
      setAttr(list, 'data-key', key);
    }
    [...list.children].forEach((li, i) => {
      const cls = i === k ? 'is-current' : i < k ? 'is-done' : '';
      if (li.className !== cls) li.className = cls;
      setOrRemove(li.firstElementChild, 'aria-current', i === k ? 'step' : null);
    });
  }
  return { bar, list, sync };
}
