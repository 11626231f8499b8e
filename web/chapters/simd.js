// <ag-simd>: chapter 14, "Why this is cheap on a CPU". One dot product step by step as the simd128 or the
// scalar kernel computes it (ag.dotTrace, whose last value is ag.dot bit for bit), and below it the kernel
// lab (kernel-lab.js), which times both variants in the experiment worker.
import { AgWidget, defineWidget } from '../widget/base.js';
import { h, setAttr, setValue, symbol, words } from '../widget/dom.js';
import { getImplementation } from '../widget/engine.js';
import { num, radioGroup, signedTerm } from '../widget/controls.js';
import { formatNumber } from '../widget/format.js';
import { display } from '../widget/math.js';
import { lastResult } from '../widget/memo.js';
import { choice, defineState, number, vector } from '../widget/state.js';
import { labelled, settingSelect } from '../widget/experiment.js';
import { stepper } from '../widget/stepper.js';
import { vectorInputs } from '../widget/vector-inputs.js';
import { KernelLab } from './kernel-lab.js';
import {
  LAB_DEFAULT_KERNEL,
  LAB_DEFAULT_SIZE,
  LAB_KERNEL_IDS,
  LAB_MAX_SIZE,
  LAB_MIN_SIZE,
  labProblems,
} from '../models/kernel-lab-presets.js';

const MAX_N = 16;
const MAX_ABS = 1000;
const DEFAULT_A = [1, 2, -1, 0.5, 3, -2, 1.5, 4, -0.5, 2, 1, -3];
const DEFAULT_B = [2, 0.5, 3, -4, 1, 1, -2, 0.25, 4, -1, 2, 0.5];
const VARIANTS = ['simd128', 'scalar'];

const fmt = (x) => formatNumber(x, 5);
const range = (i, c) => (c === 1 ? `${i}` : `${i}\u2013${i + c - 1}`);

const STEP_TEXT = {
  'multiply-add': (s) =>
    `Multiply elements ${range(s.index, s.count)} lane by lane (two f32x4.mul, four products each) and add them into the two accumulators (two f32x4.add).`,
  fold: () => 'Add the two accumulators lane by lane (one f32x4.add): four partial sums remain.',
  'swap-add': () =>
    'Swap the halves of the register and add (a shuffle and one f32x4.add): lane 0 holds l\u2080 + l\u2082, lane 1 holds l\u2081 + l\u2083.',
  'lane-sum': () => 'Add lanes 0 and 1 (two scalar extracts and one add): the sum of this block.',
  block: (s) =>
    `Multiply elements ${range(s.index, s.count)} one at a time and add them as a small tree: (p\u2080 + p\u2081) + (p\u2082 + p\u2083).`,
  merge: () => 'Combine two partial sums (a tree of block sums keeps rounding errors small).',
  total: () => 'The dot product: the same bits as ag.dot with this variant.',
};
const STEP_LABEL = {
  'multiply-add': 'multiply, accumulate',
  fold: 'fold the accumulators',
  'swap-add': 'swap halves and add',
  'lane-sum': 'horizontal sum',
  block: 'block of four',
  merge: 'combine partial sums',
  total: 'result',
};

/** a and b of two lengths (from a link): b goes back to its default, a too unless it fits the default b. */
export function lengthProblems(a, b) {
  if (a.length === b.length) return [];
  const problems = [{ name: 'b', value: b.join(','), expected: `as many numbers as a (${a.length})` }];
  if (a.length !== DEFAULT_B.length)
    problems.push({
      name: 'a',
      value: a.join(','),
      expected: `as many numbers as b (${b.length}); both go back to their defaults`,
    });
  return problems;
}

export class AgSimd extends AgWidget {
  static title = 'Why this is cheap on a CPU';
  static styles = ['styles/simd.css', 'styles/kernel-lab.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      a: vector({ minLength: 1, maxLength: MAX_N, min: -MAX_ABS, max: MAX_ABS, default: DEFAULT_A }),
      b: vector({ minLength: 1, maxLength: MAX_N, min: -MAX_ABS, max: MAX_ABS, default: DEFAULT_B }),
      variant: choice({ values: VARIANTS, default: 'simd128' }),
      step: number({ min: 0, max: 99, integer: true, default: 0 }),
      kernel: choice({ values: LAB_KERNEL_IDS, default: LAB_DEFAULT_KERNEL }),
      size: number({ min: LAB_MIN_SIZE, max: LAB_MAX_SIZE, integer: true, default: LAB_DEFAULT_SIZE }),
    },
    check: (state) => [...lengthProblems(state.a, state.b), ...labProblems(state.kernel, state.size)],
  });

  #ui = null;
  #lab = null;
  #impls = {}; // variant -> API instance of the SIMD build with that variant's kernels
  #traced = lastResult(); // the trace and the dot product of a and b: stepping through them reuses it
  #views = new Map(); // step -> its view { el, shown }, for the trace #viewsOf
  #viewsOf = null;
  #onScreen = null; // the view in the detail box: its numbers are the steps' numbers in the exports

  build(body) {
    const predict = this.predict({
      id: 'instructions-for-16',
      question:
        'With 128-bit SIMD, how many multiply instructions (f32x4.mul) does a dot product of two 16-element vectors need?',
      choices: ['16', '4', '1'].map((v) => ({ value: v, label: v })),
      misconceptions: {
        16: 'That counts one instruction per multiplication, as the scalar kernel works: one 128-bit f32x4.mul multiplies four pairs of lanes at once.',
        1: 'That expects one register to hold the whole vector: a 128-bit register holds four float32 numbers, so sixteen elements take several instructions.',
      },
      reveal: async (_choice) => {
        const a = Array.from({ length: 16 }, (_, i) => (i % 5) - 2);
        const b = Array.from({ length: 16 }, (_, i) => ((3 * i) % 7) - 3);
        this.setState({ a, b, variant: 'simd128', step: 0 });
        const ag = await getImplementation('simd128');
        const t = ag.dotTrace(a, b);
        const steps = t.steps.filter((s) => s.kind === 'multiply-add');
        // Each multiply-add step is two f32x4.mul (lanes 0-3 and 4-7): a count, not a computed number.
        const muls = String(2 * steps.length);
        return {
          answer: muls,
          explanation: `The simd128 kernel took ${steps.length} steps of eight elements, each two f32x4.mul of four lanes: ${muls} multiply instructions instead of 16, and its result ${fmt(t.value)} is the dot product.`,
        };
      },
    });

    // The pair: one row of inputs for a, one for b; length 1 to 16.
    const inputs = vectorInputs(this, { names: ['a', 'b'], max: MAX_ABS });
    const lengths = Array.from({ length: MAX_N }, (_, i) => i + 1);
    const setLength = (n) => {
      const fit = (v) => Array.from({ length: Number(n) }, (_, i) => v[i] ?? 1);
      this.setState({ a: fit(this.state.a), b: fit(this.state.b), step: 0 });
    };
    const lengthSelect = settingSelect('length', 'Length d of the vectors', lengths, setLength, { class: 'length' });
    const variants = radioGroup({
      name: 'variant',
      legend: 'Kernel variant',
      class: 'variants',
      itemClass: 'choice',
      span: true,
      options: [
        { value: 'simd128', label: 'simd128 (four lanes)' },
        { value: 'scalar', label: 'scalar (one at a time)' },
      ],
      onChange: (variant) => this.setState({ variant, step: 0 }),
    });
    const setup = h('div', { class: 'setup' }, labelled(['Length ', symbol('d'), ' '], lengthSelect), variants.element);
    // Stepping: a slider (drag or arrow keys), previous and next; a step past the end (from a link) shows the last.
    const steps = stepper({
      label: 'Step of the dot product',
      pick: (step) => this.setState({ step }),
      name: (s) => STEP_LABEL[s.kind],
      text: (s) =>
        `${STEP_LABEL[s.kind]}${s.kind === 'multiply-add' || s.kind === 'block' ? ` (${range(s.index, s.count)})` : ''}`,
    });
    const detail = h('div', { class: 'detail', 'aria-live': 'off' });
    const result = num('trace-result');
    const dot = num('dot');
    const summary = h(
      'p',
      { class: 'summary' },
      words`End of the trace: ${result}. ag.dot with the same kernels: ${dot}.`,
    );

    // The kernel lab: kernel and size in the state, timings in the worker.
    this.#lab = new KernelLab({ host: this, getState: () => this.state, setState: (patch) => this.setState(patch) });

    body.append(
      predict,
      h(
        'div',
        { class: 'formula' },
        display('a\\cdot b=\\sum_{i=1}^{d} a_i b_i\\quad(d\\text{ multiplications, } d-1\\text{ additions})'),
      ),
      setup,
      inputs.element,
      steps.bar,
      h('div', { class: 'layout stack-early' }, steps.list, h('div', { class: 'right' }, detail, summary)),
      this.#lab.node,
    );
    this.#ui = { inputs, lengthSelect, variants, steps, detail, result, dot };

    // Both variants of the SIMD build; the widget re-renders once they are here.
    for (const v of VARIANTS) {
      getImplementation(v)
        .then((ag) => {
          this.#impls[v] = ag;
          if (this.engine && v === this.state.variant) this.render(this.engine, this.state);
        })
        .catch(() => {
          this.#impls[v] = null;
          if (this.engine) this.render(this.engine, this.state);
        });
    }
  }

  syncControls(state) {
    const ui = this.#ui;
    this.#lab.sync(state);
    setValue(ui.lengthSelect, String(state.a.length));
    ui.variants.set(state.variant);
    ui.inputs.sync(state);
  }

  render(ag, state) {
    const ui = this.#ui;
    if (state.a.length !== state.b.length)
      throw new RangeError(`a has ${state.a.length} elements and b has ${state.b.length}; they need the same length`);
    let inst = this.#impls[state.variant];
    if (inst === undefined && ag.variant === state.variant && ag.backend === 'wasm-simd128') inst = ag;
    if (inst === undefined) {
      this.#leaveScreen();
      ui.detail.replaceChildren(h('p', { class: 'placeholder' }, `Loading the ${state.variant} kernels\u2026`));
      return;
    }
    if (inst === null) {
      // No SIMD build in this browser: only the scalar kernels of the baseline build.
      this.note('This browser runs the baseline build without SIMD, so only the scalar steps can be shown.');
      inst = ag;
    }
    // The trace depends on the vectors and the kernels, not on the step shown.
    const { t, dot } = this.#traced(inst, `${state.variant}|${state.a.join()}|${state.b.join()}`, () => ({
      t: inst.dotTrace(state.a, state.b),
      dot: inst.dot(state.a, state.b),
    }));
    const steps = t.steps;
    const k = Math.min(state.step, steps.length - 1);
    // The list of steps depends on the variant and the length only; moving through the steps marks it.
    ui.steps.sync(k, steps, `${t.variant}/${state.a.length}`);
    // Each step's view is made once per trace; a kept one shows its numbers again (the exports hold them).
    if (this.#viewsOf !== t) {
      this.#views.clear();
      this.#viewsOf = t;
    }
    let view = this.#views.get(k);
    if (view !== this.#onScreen) this.#leaveScreen();
    if (view) for (const [el, value, options] of view.shown) this.show(el, value, options);
    else {
      view = { shown: [] };
      view.el = this.#stepView(steps[k], state, view.shown);
      this.#views.set(k, view);
    }
    this.#onScreen = view;
    if (ui.detail.firstChild !== view.el || ui.detail.childNodes.length !== 1) ui.detail.replaceChildren(view.el);
    this.showAll(ui, { result: t.value, dot }, { digits: 7 });
    setAttr(this, 'data-trace', t.variant);
    setAttr(this, 'data-steps', String(steps.length));
  }

  /** The view shown until now leaves the detail box: its numbers leave the exports (kept to be shown again). */
  #leaveScreen() {
    const left = this.#onScreen?.shown.map(([el]) => el) ?? [];
    this.#onScreen = null;
    if (left.length) this.notShown(left, '');
  }

  /** The registers of one step: trace values through show() (each listed in `shown`), inputs as plain text. */
  #stepView(s, state, shown) {
    const show = (el, v) => {
      this.show(el, v, { digits: 5 });
      shown.push([el, v, { digits: 5 }]);
    };
    // A number of its own (block sum, total) has no key: its name in the exports is the role alone.
    const slot = (role, key) => h('span', { class: 'num lane', dataset: key === undefined ? { role } : { role, key } });
    const n = (v, role, key) => {
      const el = slot(role, key);
      show(el, v);
      return el;
    };
    /** " + x" for x ≥ 0, " − |x|" for x < 0 (signedTerm): never "+ −12". */
    const plus = (v, role, key) => {
      const el = slot(role, key);
      const term = signedTerm('+', el);
      show(el, v);
      return term;
    };
    const input = (v) => h('span', { class: 'lane input' }, fmt(v));
    const reg = (label, cells, cls = '') =>
      h('div', { class: `reg ${cls}` }, h('span', { class: 'reg-label' }, label), h('div', { class: 'lanes' }, cells));
    const pad = () => h('span', { class: 'lane pad' }, '0');
    const lanesOf = (arr, role, from = 0, count = 4) =>
      Array.from({ length: 4 }, (_, l) => (l < count ? n(arr[l], role, from + l) : pad()));
    const parts = [h('p', { class: 'step-explain' }, STEP_TEXT[s.kind](s))];
    // The a and b registers of elements from, from + 1, ...: inputs as plain text, zero padding from `end` on.
    const inputRegs = (from, end) =>
      ['a', 'b'].map((name) =>
        reg(
          name,
          Array.from({ length: 4 }, (_, l) => (from + l < end ? input(state[name][from + l]) : pad())),
        ),
      );
    if (s.kind === 'multiply-add') {
      for (const [half, prod, acc] of [
        [0, s.x, s.z],
        [1, s.y, s.w],
      ]) {
        const from = s.index + 4 * half;
        const real = Math.max(0, Math.min(4, s.count - 4 * half));
        parts.push(
          h(
            'div',
            { class: 'instr' },
            h(
              'p',
              { class: 'instr-name' },
              `f32x4.mul, lanes for elements ${from}\u2013${from + 3}${real < 4 ? ' (zero padding past the end)' : ''}`,
            ),
            ...inputRegs(from, state.a.length),
            reg('a\u00d7b', lanesOf(prod, 'product', from, real), 'products'),
            reg(`acc${half}`, lanesOf(acc, `acc${half}`, 0, 4), 'acc'),
          ),
        );
      }
    } else if (s.kind === 'fold' || s.kind === 'swap-add') {
      const labels = s.kind === 'fold' ? ['acc0', 'acc1', 'sum'] : ['v', 'swapped', 'v + swapped'];
      parts.push(
        reg(labels[0], lanesOf(s.x, 'x')),
        reg(labels[1], lanesOf(s.y, 'y')),
        reg(labels[2], lanesOf(s.z, 'z'), 'acc'),
      );
    } else if (s.kind === 'lane-sum') {
      parts.push(
        reg('register', lanesOf(s.x, 'x')),
        h('p', { class: 'scalar-line' }, 'lane 0 + lane 1 = ', n(s.value, 'block-sum')),
      );
    } else if (s.kind === 'block') {
      parts.push(
        ...inputRegs(s.index, s.index + s.count),
        reg('a\u00d7b', lanesOf(s.x, 'product', s.index, s.count), 'products'),
      );
      const pairs = [];
      if (s.count >= 2) pairs.push('p\u2080 + p\u2081 = ', n(s.y[0], 'pair', 0));
      if (s.count === 4) pairs.push(';  p\u2082 + p\u2083 = ', n(s.y[1], 'pair', 1));
      if (pairs.length) parts.push(h('p', { class: 'scalar-line' }, pairs));
      parts.push(h('p', { class: 'scalar-line' }, 'block sum = ', n(s.value, 'block-sum')));
    } else if (s.kind === 'merge') {
      parts.push(
        h('p', { class: 'scalar-line' }, n(s.x[0], 'left'), plus(s.x[1], 'right'), ' = ', n(s.value, 'merged')),
      );
    } else {
      parts.push(h('p', { class: 'scalar-line total' }, 'a\u00b7b = ', n(s.value, 'total')));
    }
    return h('div', { class: `step-view kind-${s.kind}` }, parts);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#lab?.dispose(); // stops a timing and frees its worker; a later run starts a new one
  }

  exportData() {
    const data = super.exportData();
    const lab = this.#lab?.result;
    if (lab) data.lab = lab;
    return data;
  }

  figure() {
    // The lab's bar chart once it has a run; the steps are registers and tables (JSON or CSV).
    return this.#lab?.result ? this.#lab.figure : null;
  }
}

defineWidget('ag-simd', AgSimd);
