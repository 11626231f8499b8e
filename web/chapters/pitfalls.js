// <ag-pitfalls>: chapter 15, "Pitfalls". Four misreadings of a score, each
// with a short explanation, one number that shows it (computed by the wasm
// module) and a one-click demonstration: the button sets the state of the
// chapter widget above that shows it (through its `stateText`), scrolls to it
// and moves the focus there. The page shell notices the scroll and writes
// that chapter's state into the URL; this widget never touches the URL.
// A chapter whose widget is not on the page gets no button.
//
//   <ag-pitfalls open="scale"></ag-pitfalls>
import { CHAPTERS, anchorOf } from '../chapters.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { focusInPlace, h, setAttr, setText } from '../widget/dom.js';
import { formatNumber } from '../widget/format.js';
import { texElement } from '../widget/math.js';
import { keptResults } from '../widget/memo.js';
import { choice, defineState } from '../widget/state.js';

const fmt = (x) => formatNumber(x, 4);

/**
 * The four pitfalls. `chapter` is a chapters.js id; `state` the text form
 * given to that chapter's widget (null: its own starting state).
 */
export const PITFALLS = [
  {
    id: 'raw-dot',
    title: 'Reading a raw dot product as similarity',
    text: 'A dot product grows with the lengths of both vectors as well as with their alignment. A long key can out-score a shorter key that points exactly the same way, so a large score alone does not say "more similar". The cosine divides the lengths out and keeps only the direction.',
    tex: 'q\\cdot k=|q|\\,|k|\\cos\\theta',
    chapter: 'cosine',
    state: 'v=1&q=1,1&k1=1,1&k2=5,5&normalise=0',
    action: 'Show q = (1, 1) against k\u2081 = (1, 1) and k\u2082 = (5, 5)',
    /** One number that shows the pitfall, from the module. */
    compute: (ag) => {
      const raw = [ag.dot([1, 1], [1, 1]), ag.dot([1, 1], [5, 5])];
      const cos = [ag.cosine([1, 1], [1, 1]), ag.cosine([1, 1], [5, 5])];
      return [
        ['raw', raw[0], 'q\u00b7k\u2081 = '],
        ['raw', raw[1], ', q\u00b7k\u2082 = '],
        ['cosine', cos[0], '; cosines: '],
        ['cosine', cos[1], ' and '],
      ];
    },
  },
  {
    id: 'scale',
    title: 'Forgetting the 1/\u221ad\u2096 scaling',
    text: 'The dot product of two random vectors with d\u2096 components has a spread of about \u221ad\u2096. Fed to softmax unscaled, such scores make one weight swallow nearly everything, and the gradient through softmax all but vanishes. Dividing by \u221ad\u2096 brings the spread back to about 1.',
    tex: '\\operatorname{softmax}\\!\\Big(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\Big)',
    chapter: 'scale-fix',
    state: 'v=1&seed=7&tokens=16&dk=4096',
    action: 'Show a row of scores at d\u2096 = 4096, unscaled and scaled',
    compute: (ag) => {
      // 16 scores q·k_j with q, k_j standard normal in 4096 dimensions (as in chapter 11, seed 7).
      const q = ag.random.normal({ seed: 7, counter: 0, n: 4096 });
      const K = ag.random.normal({ seed: 7, counter: 1024, n: 16 * 4096 });
      const s = ag.matmul({ data: K.data, shape: [16, 4096] }, { data: q.data, shape: [4096, 1] }).data;
      const w = ag.softmax(s).data;
      let best = 0;
      for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
      const ws = ag.softmax(s, { temperature: Math.sqrt(4096) }).data;
      let bestS = 0;
      for (let j = 1; j < ws.length; j++) if (ws[j] > ws[bestS]) bestS = j;
      return [
        ['max-unscaled', w[best], 'Largest of 16 weights at d\u2096 = 4096: '],
        ['max-scaled', ws[bestS], ' unscaled, '],
      ];
    },
    suffix: ' scaled.',
  },
  {
    id: 'zero',
    title: 'Reading a zero score as "dissimilar"',
    text: 'A score of zero means the two vectors are perpendicular: the key is unrelated to the query, neither for nor against it. "Dissimilar" in the sense of opposed is a negative score. In softmax a zero score sits between the two: it gets less weight than agreeing keys and more than opposing ones.',
    tex: 'q\\cdot k=0\\iff\\theta=90^\\circ',
    chapter: 'orthogonality',
    state: 'v=1&q=2,1&k1=1,1&k2=-1,2&k3=-1,-0.5',
    action: 'Show keys that agree, are perpendicular, and oppose',
    compute: (ag) => {
      const w = ag.softmax([3, 0, -2.5]).data;
      return [
        ['weight', w[0], 'softmax of the scores 3, 0, \u22122.5: '],
        ['weight', w[1], ', '],
        ['weight', w[2], ', '],
      ];
    },
  },
  {
    id: 'dimension',
    title: 'Trusting low-dimensional intuition',
    text: 'In the plane, two random directions are as likely to be close as far apart. With hundreds of dimensions, almost every pair of random directions is within a few degrees of perpendicular, so a cosine of 0.2 that would mean little in 2-D stands out clearly in 1000-D.',
    tex: '\\sqrt{\\mathbb E[\\cos^2\\theta]}=1/\\sqrt d',
    chapter: 'near-orthogonal',
    state: 'v=1&d=1000&pairs=10000&seed=1&eps=0.2&cand=20000',
    action: 'Show the cosines of random pairs as the dimension grows',
    compute: (ag) => {
      const lo = ag.randomDotExperiment({
        d: 2,
        trials: 2000,
        seed: 3,
        measure: 'cosine',
        bins: 1,
        returnSamples: false,
      });
      const hi = ag.randomDotExperiment({
        d: 1000,
        trials: 2000,
        seed: 3,
        measure: 'cosine',
        bins: 1,
        returnSamples: false,
      });
      return [
        ['rms-cos-2', lo.rms, 'Root mean square of cos \u03b8 over 2000 random pairs: '],
        ['rms-cos-1000', hi.rms, ' in 2-D, '],
      ];
    },
    suffix: ' in 1000-D.',
  },
];

export class AgPitfalls extends AgWidget {
  static title = 'Pitfalls';
  static styles = ['styles/pitfalls.css'];
  static stateDecl = defineState({
    version: 1,
    fields: {
      open: choice({ values: PITFALLS.map((p) => p.id), default: 'raw-dot' }),
    },
  });

  #ui = null;
  #numbers = keptResults(); // each pitfall's numbers, per engine

  build(body) {
    const predict = this.predict({
      id: 'zero-versus-negative',
      question:
        'Three keys score 3, 0 and \u22122.5 against a query. Which gets more softmax weight: the key scoring 0 or the one scoring \u22122.5?',
      choices: [
        { value: 'zero', label: 'The 0 key' },
        { value: 'negative', label: 'The \u22122.5 key' },
        { value: 'same', label: 'Both get none' },
      ],
      reveal: (_choice, ag) => {
        this.setState({ open: 'zero' });
        const w = ag.softmax([3, 0, -2.5]).data;
        return {
          answer: w[1] > w[2] ? 'zero' : w[1] < w[2] ? 'negative' : 'same',
          explanation: `The module gives the weights ${fmt(w[0])}, ${fmt(w[1])} and ${fmt(w[2])}: a zero score is not "against"; it still takes more weight than an opposing key.`,
        };
      },
    });

    // Tabs: one per pitfall (arrow keys move between them), and one panel.
    const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Pitfalls' });
    const tabs = PITFALLS.map((p, i) => {
      const tab = h(
        'button',
        {
          type: 'button',
          role: 'tab',
          class: 'tab',
          id: `tab-${p.id}`,
          'aria-controls': `panel-${p.id}`,
          dataset: { pitfall: p.id },
        },
        h('span', { class: 'tab-number' }, `${i + 1}`),
        ' ',
        p.title,
      );
      tab.addEventListener('click', () => this.setState({ open: p.id }));
      return tab;
    });
    tablist.append(...tabs);
    tablist.addEventListener('keydown', (event) => {
      const i = PITFALLS.findIndex((p) => p.id === this.state.open);
      const to = {
        ArrowRight: i + 1,
        ArrowDown: i + 1,
        ArrowLeft: i - 1,
        ArrowUp: i - 1,
        Home: 0,
        End: PITFALLS.length - 1,
      }[event.key];
      if (to === undefined) return;
      event.preventDefault();
      const p = PITFALLS[(to + PITFALLS.length) % PITFALLS.length];
      focusInPlace(tabs.find((t) => t.dataset.pitfall === p.id));
      this.setState({ open: p.id });
      this.announce(`Pitfall: ${p.title}`);
    });

    const panels = PITFALLS.map((p) => {
      const numbers = h('p', { class: 'evidence' });
      const go = h('button', { type: 'button', class: 'go', dataset: { go: p.id } }, p.action);
      go.addEventListener('click', () => this.#demonstrate(p));
      const where = h('p', { class: 'where' });
      const panel = h(
        'div',
        {
          role: 'tabpanel',
          class: 'panel',
          id: `panel-${p.id}`,
          'aria-labelledby': `tab-${p.id}`,
          dataset: { pitfall: p.id },
        },
        h('h3', {}, p.title),
        h('p', {}, p.text),
        texElement(p.tex, { display: true }),
        numbers,
        h('div', { class: 'go-row' }, go, where),
      );
      return { p, panel, numbers, go, where };
    });
    body.append(
      predict,
      tablist,
      h(
        'div',
        { class: 'panels' },
        panels.map((x) => x.panel),
      ),
    );
    this.#ui = { tabs, panels };
  }

  /** The chapter record of a pitfall, its section and its widget when on this page. */
  #target(p) {
    const index = CHAPTERS.findIndex((c) => c.id === p.chapter);
    const chapter = CHAPTERS[index];
    if (!chapter || !chapter.tag) return { chapter, index, widget: null };
    const doc = this.ownerDocument;
    const section = doc.getElementById(anchorOf(chapter));
    const widget = section?.querySelector(chapter.tag) ?? doc.querySelector(chapter.tag);
    return { chapter, index, section, widget };
  }

  syncControls(state) {
    const ui = this.#ui;
    if (!ui) return;
    for (const t of ui.tabs) {
      const on = t.dataset.pitfall === state.open;
      setAttr(t, 'aria-selected', on);
      setAttr(t, 'tabindex', on ? 0 : -1);
    }
    for (const x of ui.panels) {
      const hidden = x.p.id !== state.open;
      if (x.panel.hidden !== hidden) x.panel.hidden = hidden;
      const { chapter, index, widget } = this.#target(x.p);
      if (x.go.hidden !== !widget) x.go.hidden = !widget;
      setText(
        x.where,
        widget
          ? `Opens chapter ${index + 1}, \u201c${chapter.title}\u201d.`
          : `Chapter ${index + 1}, \u201c${chapter?.title ?? x.p.chapter}\u201d, shows this once its figure is on the page.`,
      );
      setAttr(x.go, 'data-chapter', x.p.chapter);
    }
  }

  render(ag, state) {
    const x = this.#ui.panels.find((y) => y.p.id === state.open);
    const parts = [];
    // A pitfall's numbers depend on the pitfall alone: computed once per engine.
    for (const [role, value, before] of this.#numbers(ag, x.p.id, () => x.p.compute(ag))) {
      const el = h('span', { class: 'num', dataset: { role, key: `${x.p.id}-${parts.length}` } });
      this.show(el, value);
      parts.push(before, el);
    }
    if (x.p.suffix) parts.push(x.p.suffix);
    x.numbers.replaceChildren(...parts);
    // Only the open panel keeps numbers (the others are rebuilt when opened).
    for (const y of this.#ui.panels) if (y !== x && y.numbers.firstChild) y.numbers.replaceChildren();
  }

  /** Puts the target chapter's widget into the pitfall's state and brings it into view. */
  #demonstrate(p) {
    const { section, widget } = this.#target(p);
    if (!widget) return;
    if (p.state !== null) widget.stateText = p.state;
    widget.start?.();
    const target = section ?? widget;
    // An instant jump, not a smooth scroll: a smooth scroll across the page
    // would start every chapter it passes, and their growth would carry the
    // target away mid-flight. After the jump the browser's scroll anchoring
    // keeps the target in place while its neighbours start; once it has
    // rendered, land on it again in case it still moved.
    target.scrollIntoView({ block: 'start' });
    Promise.resolve(widget.ready).then(() =>
      requestAnimationFrame(() => {
        if (Math.abs(target.getBoundingClientRect().top) > 8) target.scrollIntoView({ block: 'start' });
      }),
    );
    const focusable = section?.querySelector('h2') ?? null;
    if (focusable) {
      if (!focusable.hasAttribute('tabindex')) focusable.setAttribute('tabindex', '-1');
      focusable.focus({ preventScroll: true });
    }
    this.dispatchEvent(
      new CustomEvent('ag-demonstrate', {
        bubbles: true,
        composed: true,
        detail: { pitfall: p.id, chapter: p.chapter, state: p.state },
      }),
    );
  }

  figure() {
    return null; // text and numbers: export them as JSON or CSV
  }
}

defineWidget('ag-pitfalls', AgPitfalls);
