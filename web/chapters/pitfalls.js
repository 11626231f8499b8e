// <ag-pitfalls>: chapter 15, "Pitfalls". Four misreadings of a score, each with numbers from the module
// (models/pitfalls.js) and a button that puts the chapter widget above that shows it into the right state
// (its `stateText`), scrolls to it and moves the focus there; the shell writes the URL.
import { CHAPTERS, anchorOf } from '../chapters.js';
import { AgWidget, defineWidget } from '../widget/base.js';
import { button, choiceGroup } from '../widget/controls.js';
import { h, setAttr, setText } from '../widget/dom.js';
import { fmt } from '../widget/format.js';
import { display } from '../widget/math.js';
import { keptResults } from '../widget/memo.js';
import { choice, defineState } from '../widget/state.js';
import { choices } from '../widget/predict.js';
import { PITFALLS } from '../models/pitfalls.js';

export class AgPitfalls extends AgWidget {
  static title = 'Pitfalls';
  static styles = ['styles/pitfalls.css'];
  static figureSelector = null; // text and numbers: export them as JSON or CSV
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
      choices: choices({ zero: 'The 0 key', negative: 'The \u22122.5 key', same: 'Both get none' }),
      misconceptions: {
        negative:
          'That reads a zero score as \u201copposed\u201d: zero means perpendicular, neither for nor against; an opposed key has a negative score and gets less weight.',
        same: 'That reads scores of zero and below as vetoes: the softmax gives every finite score a positive weight, and a higher score always gets more.',
      },
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
    const tabs = choiceGroup({
      role: 'tablist',
      label: 'Pitfalls',
      class: 'tabs',
      items: PITFALLS,
      item: (p, i) => [
        { class: 'tab', id: `tab-${p.id}`, 'aria-controls': `panel-${p.id}`, dataset: { pitfall: p.id } },
        [h('span', { class: 'tab-number' }, `${i + 1}`), ' ', p.title],
      ],
      index: () => PITFALLS.findIndex((p) => p.id === this.state.open),
      wrap: true,
      pick: (k) => this.setState({ open: PITFALLS[k].id }),
      say: (k) => this.announce(`Pitfall: ${PITFALLS[k].title}`),
    });

    const panels = PITFALLS.map((p) => {
      const numbers = h('p', { class: 'evidence' });
      const go = button({ class: 'go', dataset: { go: p.id } }, p.action, () => this.#demonstrate(p));
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
        display(p.tex),
        numbers,
        h('div', { class: 'go-row' }, go, where),
      );
      return { p, panel, numbers, go, where };
    });
    body.append(
      predict,
      tabs.element,
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
    ui.tabs.set(PITFALLS.findIndex((p) => p.id === state.open));
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
    // An instant jump (a smooth scroll would start every chapter it passes, and their growth would carry
    // the target away); once the target has rendered, land on it again in case it still moved.
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
}

defineWidget('ag-pitfalls', AgPitfalls);
