// A number as the answer to a prediction (widget/predict.js): the learner types
// a number (its label and unit beside the field) and commits it with Enter or
// the Commit button. Empty text, text that is not a number and a number out of
// the stated range are refused with a message under the field, and nothing is
// scored. The reveal measures the value; the answer is right within the
// tolerance the chapter states, absolute ({ absolute: 2 }) or relative
// ({ percent: 15 }), and the feedback says which. A wrong answer that falls in
// one of the chapter's ranges ({ from, to, text }: from <= x < to) names the
// misconception of that range.
import { h } from './dom.js';
import { fmt, formatNumber } from './format.js';

const isNumber = (x) => typeof x === 'number' && !Number.isNaN(x);
/** A number the learner typed (or a bound of the range), as written back to them: 100,000 or \u22123.5. */
const typed = (x) => (x + 0).toLocaleString('en-US', { maximumFractionDigits: 6 }).replace('-', '\u2212');

/**
 * Checks the `number` option of a prediction: { label, unit?, min, max, tolerance: { absolute } | { percent } }.
 * @returns the option
 * @throws {TypeError} naming the field and what was expected
 */
export function checkNumberSpec(spec) {
  const bad = (what, expected) => {
    throw new TypeError(`predict number.${what}: expected ${expected}, got ${JSON.stringify(spec?.[what])}`);
  };
  if (!spec || typeof spec !== 'object') throw new TypeError('predict number: expected { label, min, max, tolerance }');
  if (typeof spec.label !== 'string' || !spec.label.trim()) bad('label', 'the text of the field\u2019s label');
  if (spec.unit !== undefined && typeof spec.unit !== 'string') bad('unit', 'a string');
  if (!isNumber(spec.min) || !isNumber(spec.max) || !(spec.min < spec.max)) bad('max', `a number above min`);
  const { absolute, percent } = spec.tolerance ?? {};
  const one = (absolute === undefined) !== (percent === undefined);
  if (!one || !((absolute ?? percent) > 0)) bad('tolerance', '{ absolute: x } or { percent: p } with x, p > 0');
  return spec;
}

/**
 * Checks the misconceptions of a number prediction: [{ from, to, text }], from < to (either may be infinite).
 * @throws {TypeError} naming the entry and what was expected
 */
export function checkRanges(ranges) {
  if (ranges === undefined) return [];
  if (!Array.isArray(ranges))
    throw new TypeError(`predict misconceptions: expected [{ from, to, text }], got ${JSON.stringify(ranges)}`);
  ranges.forEach((r, i) => {
    if (!(isNumber(r?.from) && isNumber(r?.to) && r.from < r.to) || typeof r.text !== 'string' || !r.text.trim())
      throw new TypeError(`predict misconceptions[${i}]: expected { from, to, text } with from < to and a text`);
  });
  return ranges;
}

/**
 * The answers counted right around `value`: [lo, hi], each to 6 significant digits (the numbers the xAPI
 * pattern "lo[:]hi" gives, so that the page and the report agree on every answer).
 */
export function toleranceRange(value, { absolute, percent }) {
  const half = absolute ?? (Math.abs(value) * percent) / 100;
  const six = (x) => Number(x.toPrecision(6));
  return [six(value - half), six(value + half)];
}

/**
 * The tolerance in words, with the range it gives (toleranceRange, judged as written):
 * "from 56.848 to 76.912, within 15 % of 66.88" or "from 61.87 to 65.87, within 2 of 63.87", with the unit.
 */
export function toleranceText(tolerance, value, unit = '') {
  const u = unit ? `\u2009${unit}` : '';
  const [lo, hi] = toleranceRange(value, tolerance);
  const within =
    tolerance.percent === undefined
      ? `${formatNumber(tolerance.absolute)}${u}`
      : `${formatNumber(tolerance.percent)} %`;
  return `from ${typed(lo)} to ${typed(hi)}${u}, within ${within} of ${fmt(value)}${u}`;
}

/**
 * Reads the learner's text as a number in [min, max]: { value } or { problem } (a sentence to show). A
 * typographic minus is read as -. A comma before groups of exactly three digits separates thousands (4,096 and
 * 100,000, as the page writes numbers); any other comma is a decimal comma (64,0 and 0,5).
 */
export function readNumber(text, { min, max }) {
  const quoted = `\u201c${String(text).trim()}\u201d`;
  const t = String(text)
    .trim()
    .replace(/\u2212/g, '-')
    .replace(/^[-+]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?$/, (n) => n.replace(/,/g, ''))
    .replace(/^([-+]?\d*),(\d+)$/, '$1.$2');
  if (t === '') return { problem: 'Type a number first.' };
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t))
    return { problem: `${quoted} is not a number: type digits, such as 12.5.` };
  const value = Number(t);
  if (!(value >= min && value <= max))
    return { problem: `${quoted} is out of range: type a number from ${typed(min)} to ${typed(max)}.` };
  return { value: value + 0 };
}

/**
 * The field of a number prediction. `commit(value, text)` is called with a number that passed readNumber.
 * @returns {{ element, focusTarget, disable(on), reset(), judge(value, outcome), mark(), answerText(outcome) }}
 */
export function numberAnswer({ id, spec, ranges, commit }) {
  const fieldId = `predict-${id}-number`;
  const problemId = `${fieldId}-problem`;
  const hintId = `${fieldId}-hint`;
  const input = h('input', {
    type: 'text',
    inputmode: 'decimal',
    autocomplete: 'off',
    id: fieldId,
    class: 'predict-number',
    'aria-describedby': `${hintId} ${problemId}`,
  });
  const hint = h(
    'span',
    { class: 'predict-hint', id: hintId },
    ' A comma before three digits separates thousands (4,096); any other comma is a decimal comma (0,5).',
  );
  const problem = h('p', { class: 'predict-problem', id: problemId, role: 'alert', hidden: true });
  const submit = h('button', { type: 'button', class: 'predict-commit' }, 'Commit');
  // No <form>: an embed sandboxed without allow-forms blocks form submission (EMBEDDING.md's minimum sandbox).
  const element = h(
    'div',
    { class: 'predict-answer' },
    h('label', { for: fieldId }, spec.label, ' '),
    input,
    spec.unit ? h('span', { class: 'predict-unit' }, ` ${spec.unit}`) : null,
    ' ',
    submit,
    hint,
    problem,
  );
  const say = (text) => {
    problem.textContent = text;
    problem.hidden = !text;
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  };
  const send = () => {
    const read = readNumber(input.value, spec);
    if (read.problem) {
      say(read.problem);
      return;
    }
    say('');
    commit(read.value, String(read.value));
  };
  submit.addEventListener('click', send);
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    send();
  });
  const unit = spec.unit ? `\u2009${spec.unit}` : '';
  return {
    element,
    focusTarget: input,
    disable(on) {
      input.disabled = on;
      submit.disabled = on;
    },
    reset() {
      input.value = '';
      say('');
    },
    /** Right within the tolerance of the measured `outcome.value`; the range's misconception when wrong. */
    judge(value, outcome) {
      const [lo, hi] = toleranceRange(outcome.value, spec.tolerance);
      const correct = value >= lo && value <= hi;
      const range = correct ? null : ranges.find((r) => value >= r.from && value < r.to);
      return {
        correct,
        answer: String(outcome.value),
        said: `You said ${typed(value)}${unit}; an answer counts as right ${toleranceText(spec.tolerance, outcome.value, spec.unit)}. `,
        misconception: range?.text ?? null,
      };
    },
    /** Nothing to mark: the result line says the measured value. */
    mark: () => {},
    answerText: (outcome) =>
      `${fmt(outcome.value)}${unit} (an answer counts as right ${toleranceText(spec.tolerance, outcome.value, spec.unit)})`,
  };
}
