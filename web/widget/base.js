// AgWidget: the base class of every <ag-...> element.
//
// - Open Shadow DOM; styles from linked stylesheets (styles/widget.css, the
//   KaTeX classes, the widget's own), themable through --ag-* custom
//   properties (THEMING.md).
// - State declared once (static stateDecl = defineState(...)); attributes set
//   the initial state (one attribute per field, or `state` with the whole text
//   form); the `state` and `stateText` properties read and write it; every
//   change fires `ag-statechange` (bubbles, composed) with { state, text }.
//   Bad values are ignored with a visible note. A widget never writes the URL.
// - Every attribute change re-reads all the attributes present, so their
//   order never matters: first `state`, then each field's own attribute over
//   it, then the cross-field check; the note lists the problems of the
//   attributes present until the learner's next change. Removing a field's
//   attribute gives that field the `state` attribute's value, or its default.
// - Lazy start: nothing heavy until the element comes near the viewport
//   (IntersectionObserver with the class's startMargin); then build(), load
//   the engine, render.
//   Before the page is printed, every widget still waiting starts (print.js),
//   and the engine loads when the page is idle, so that the printout is whole.
// - Every number shown goes through show(), which keeps the exact value in
//   data-value (the wasm result) and writes only its formatting as text.
// - Toolbar: "computed by" line, the export control (SVG, PNG, JSON, CSV)
//   and the embed control (HTML snippets for other pages).
// - Each render is timed as a User Timing measure 'ag-render' (detail: the
//   tag), for the page-update measurements (see markRender below).
// - Embed options (the studio's, widget/studio-options.js): `hide` leaves out
//   the control groups it names (data-control-group, widget/controls.js; the
//   state they set still applies), `ask` the predictions it does not name
//   ("none": all). Names the widget does not have are noted and warned about.
//
// A subclass implements build(body) and render(ag, state); see WIDGETS.md.
import { ANSWER_SHOWN_EVENT, afterAnswer, heldTargets, isHeld, showAfterAnswer, whenAnswered } from './after-answer.js';
import { announceIn, liveRegion } from './announce.js';
import { h, setAttr, setFlag, setText } from './dom.js';
import { assetUrl } from './assets.js';
import { describe, getEngine, onEngineChange } from './engine.js';
import { describeLoadFailure, describeStyleFailure, failureText, STYLE_FAILURE_EVENT } from './load-failure.js';
import { embedControl } from './embed-control.js';
import { csvBlob, download, exportControl, jsonBlob, pngBlob, svgBlob } from './export.js';
import './d3-changes-only.js'; // d3 writes only what changes
import { formatNumber } from './format.js';
import { notDefined, signedText } from './controls.js';
import { ensureKatexFonts, KATEX_CSS } from './math.js';
import { pageRecord, predictBlock } from './predict.js';
import { unwatchForPrint, watchForPrint } from './print.js';
import { watchScrollers } from './scroll-focus.js';
import {
  checkState,
  checkValue,
  copyValue,
  decodeState,
  defaultState,
  encodeState,
  readFields,
  readStateValue,
} from './state.js';
import { readAsk, readHide, unknownNames } from './studio-options.js';
import { answeredStatement, XAPI_EVENT } from './xapi.js';
import { CHAPTERS } from '../chapters.js';

/** How far outside the viewport a widget starts (CSS margin syntax). */
export const START_MARGIN = '400px 0px';

/**
 * What a failure says apart from its advice (`err.summary`, else its message) and the advice it carries apart
 * (`err.advice`: worker-client.js's WorkerStartError), or null.
 */
const failureParts = (err) => ({
  summary: err?.summary ?? (err?.message ? String(err.message) : String(err)),
  advice: typeof err?.advice === 'string' ? err.advice : null,
});

const shorten = (text) => (text.length > 60 ? `${text.slice(0, 60)}\u2026` : text);

export class AgWidget extends HTMLElement {
  /** @type {ReturnType<import('./state.js').defineState>} set by each subclass */
  static stateDecl;
  /** Extra stylesheets of the subclass, paths in the site build (e.g. 'styles/two-definitions.css'). */
  static styles = [];
  /** A short title, used in exports and notes. */
  static title = 'Widget';
  /** The selector of the figure to export (an <svg>; the first match), or null for none. */
  static figureSelector = 'svg.plane';
  /** How far outside the viewport this widget starts (CSS margin syntax). */
  static startMargin = START_MARGIN;

  static get observedAttributes() {
    return ['state', ...EMBED_OPTIONS, ...Object.keys(this.stateDecl.fields)];
  }

  #state;
  #started = false;
  #built = false; // build() has returned: syncControls and render may use what it made
  #ag = null;
  #observer = null;
  #unsubscribe = null;
  #parts = null;
  #shown = new Map(); // name -> last value shown (for exports)
  #shownIn = new Map(); // name -> the element that shows it (a held one leaves the exports until the answer)
  #problems = [];
  #where = 'link';
  #scrollers = null; // keeps boxes that scroll sideways reachable by Tab (scroll-focus.js)
  #answerShown = false; // the chapter's answer is on show: text held until then is shown (after-answer.js)
  #unwatchAnswer = null;
  #hide = []; // control groups left out (the hide attribute)
  #hiding = false; // some control group is marked data-studio-hidden
  #ask = null; // prediction ids asked (the ask attribute); null: every one
  #predictions = new Map(); // prediction id -> its block
  #revealed = new Map(); // predict block -> the stateText of the example its reveal showed
  #failedStyles = []; // the URLs of the frame's stylesheets that did not load, in that order
  #noteAdvice = null; // { advice, place }: the advice a failure in the note carries, and the element it goes in
  #stylesOnPage = false; // the page's stylesheet message (shell/page-styles.js) names the frame's failed sheets

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    this.#state = defaultState(this.constructor.stateDecl);
  }

  // ------------------------------------------------------------ state

  /** A copy of the current state. */
  get state() {
    return copyValue(this.#state);
  }

  /** Sets the whole state from JS. Fields that do not fit are ignored (default kept) with a note. */
  set state(value) {
    const { state, problems } = readStateValue(this.constructor.stateDecl, value);
    this.showProblems(problems, 'value');
    this.#commit(state, 'property');
  }

  /** The state in its versioned text form, e.g. "v=1&a=3,4&b=4,3". */
  get stateText() {
    return encodeState(this.constructor.stateDecl, this.#state);
  }

  set stateText(text) {
    this.readStateText(text);
  }

  /**
   * Sets the state from a state text, as the stateText setter; the note names `where` the text came from
   * ('link', or 'package': the start state an author set for a SCORM package, whose learners have no link).
   */
  readStateText(text, where = 'link') {
    const { state, problems } = decodeState(this.constructor.stateDecl, String(text));
    this.showProblems(problems, where);
    this.#commit(state, 'text');
  }

  /** Reads state from URL parameters (the page shell uses this). @returns the problems found */
  applyParams(params) {
    const { state, problems } = decodeState(this.constructor.stateDecl, params);
    this.showProblems(problems, 'link');
    this.#commit(state, 'text');
    return problems;
  }

  /** For the widget's own controls: merge `patch` (already valid values) and recompute. */
  setState(patch) {
    const next = { ...copyValue(this.#state), ...copyValue(patch) };
    for (const [name, spec] of Object.entries(this.constructor.stateDecl.fields)) {
      if (checkValue(spec, next[name])) throw new RangeError(`${this.localName}: ${name} does not fit its declaration`);
    }
    this.clearNote();
    this.#commit(next, 'user');
  }

  attributeChangedCallback(name, _old, text) {
    if (EMBED_OPTIONS.includes(name)) this.#readEmbedOptions();
    else this.#readAttributes(text === null ? name : null);
  }

  // ------------------------------------------------------------ embed options (hide, ask)

  /** The control groups of the built widget, in order: [{ name, label }] (label: what the learner reads). */
  get controlGroups() {
    const groups = new Map();
    for (const el of this.shadowRoot.querySelectorAll('[data-control-group]')) {
      const name = el.dataset.controlGroup;
      if (!groups.has(name)) groups.set(name, { name, label: groupLabel(el) });
    }
    return [...groups.values()];
  }

  /** The predictions of the built widget: [{ id, question }]. */
  get predictions() {
    return [...this.#predictions].map(([id, block]) => ({
      id,
      question: shorten(readText(block.querySelector('.predict-question')).replace(/^Predict first\.\s*/, '')),
    }));
  }

  /** Whether prediction `id` is asked (shown and scored), as the ask attribute says. */
  asks(id) {
    return this.#ask === null || this.#ask.includes(id);
  }

  /**
   * What the hide and ask attributes give that cannot be used: a name that is not a name, or that this widget
   * (once built) does not have. [{ name, value, expected }]
   */
  embedOptionProblems() {
    const hide = readHide(this.getAttribute('hide'));
    const ask = readAsk(this.getAttribute('ask'));
    const problems = [...hide.problems, ...ask.problems];
    if (!this.#built) return problems;
    const groups = this.controlGroups.map((g) => g.name);
    problems.push(
      ...unknownNames(hide.hide, groups, 'hide'),
      ...unknownNames(ask.ask ?? [], [...this.#predictions.keys()], 'ask'),
    );
    return problems;
  }

  #readEmbedOptions() {
    this.#hide = readHide(this.getAttribute('hide')).hide;
    this.#ask = readAsk(this.getAttribute('ask')).ask;
    this.#applyEmbedOptions();
    if (this.#built) this.#warnEmbedOptions();
  }

  /** Leaves out the hidden control groups and the predictions not asked (again after each render: rows may be new). */
  #applyEmbedOptions() {
    if (!this.#built) return;
    for (const [id, block] of this.#predictions) setFlag(block, 'hidden', !this.asks(id));
    // No prediction asked (ask="none"): nothing is left to give away, so text held for the answer is shown.
    if (this.#predictions.size && [...this.#predictions.keys()].every((id) => !this.asks(id)))
      this.answerShown('not-asked');
    // Nothing hidden now or before (the usual case, on every render): no query.
    if (!this.#hide.length && !this.#hiding) return;
    this.#hiding = this.#hide.length > 0;
    for (const el of this.shadowRoot.querySelectorAll('[data-studio-hidden]'))
      if (!this.#hide.includes(el.dataset.controlGroup)) el.removeAttribute('data-studio-hidden');
    for (const name of this.#hide)
      for (const el of this.shadowRoot.querySelectorAll(`[data-control-group="${CSS.escape(name)}"]`))
        setAttr(el, 'data-studio-hidden', '');
  }

  #warnEmbedOptions() {
    const problems = this.embedOptionProblems();
    if (!problems.length) return;
    const list = problems.map((p) => `${p.name}=${p.value} (expected ${p.expected})`).join('; ');
    console.warn(`${this.localName}: part of the hide and ask options could not be used: ${list}`);
  }

  /**
   * Reads every attribute present, whatever changed and in whatever order:
   * first `state` (the whole text form), then each field's own attribute,
   * which overrides that field; then the declaration's cross-field check.
   * Fields no attribute gives keep their value (a learner's change stays),
   * except that the `state` attribute gives every field, and a field whose
   * own attribute was just removed (`removed`) takes the value the
   * remaining attributes give: the `state` attribute's, or its default.
   * The note lists the problems of the attributes present now, so a value
   * replaced or removed leaves the note.
   */
  #readAttributes(removed) {
    const decl = this.constructor.stateDecl;
    let next = copyValue(this.#state);
    const problems = [];
    const stateText = this.getAttribute('state');
    if (stateText !== null) {
      const decoded = decodeState(decl, stateText);
      next = decoded.state;
      problems.push(...decoded.problems);
    } else if (removed === 'state') {
      next = defaultState(decl);
    } else if (removed !== null && Object.hasOwn(decl.fields, removed)) {
      next[removed] = copyValue(decl.fields[removed].default);
    }
    readFields(decl, (name) => this.getAttribute(name), next, problems);
    const checked = checkState(decl, next);
    problems.push(...checked.problems);
    this.showProblems(problems, 'attribute');
    this.#commit(checked.state, 'attribute');
  }

  #commit(next, source) {
    this.#state = next;
    this.stateChanged(source);
    this.#render();
    this.dispatchEvent(
      new CustomEvent('ag-statechange', {
        bubbles: true,
        composed: true,
        detail: changeDetail(this.constructor.stateDecl, next, source),
      }),
    );
  }

  // ------------------------------------------------------------ notes

  /** Shows what could not be used (as text, shortened), or hides the note when `problems` is empty. */
  showProblems(problems, where = 'link') {
    this.#problems = problems;
    this.#where = where;
    if (!this.#parts) return;
    const { note } = this.#parts;
    this.#noteAdvice = null;
    if (!problems.length) {
      if (!note.hidden) note.hidden = true;
      if (note.firstChild) note.replaceChildren();
      return;
    }
    const from =
      {
        link: 'this link',
        attribute: 'an attribute',
        value: 'the state given',
        package: 'the start state the author of this package set',
      }[where] ?? where;
    note.replaceChildren(
      h('strong', {}, `Part of ${from} could not be used.`),
      ' These values were ignored and the defaults used instead:',
      h(
        'ul',
        {},
        problems.map((p) =>
          h(
            'li',
            {},
            h('code', {}, `${shorten(String(p.name))}=${shorten(String(p.value))}`),
            ` \u2014 expected ${p.expected}.`,
          ),
        ),
      ),
    );
    note.hidden = false;
  }

  /** A short note in the widget (text only), e.g. for an entry that is not a number. */
  note(text) {
    if (!this.#parts) return;
    this.#noteAdvice = null;
    this.#parts.note.replaceChildren(text);
    this.#parts.note.hidden = false;
  }

  /**
   * A note of a failure: `${lead}: ` and what happened (`err.summary`, else `err.message`), then the advice that
   * `err.advice` carries apart (a worker's file that did not load: where the widgets' files must be,
   * worker-client.js's WorkerStartError). That advice is given once in the widget: while the stylesheet message
   * gives it (load-failure.js, describeStyleFailure), the note points to that message instead, whichever came
   * first.
   * @param {string} lead e.g. 'The training could not run'
   * @param {Error & { summary?: string, advice?: string | null }} err
   */
  noteFailure(lead, err) {
    const { summary, advice } = failureParts(err);
    if (!advice) return this.note(`${lead}: ${summary}`);
    if (!this.#parts) return;
    const place = h('span', { dataset: { role: 'advice' } });
    this.#parts.note.replaceChildren(`${lead}: ${summary} `, place);
    this.#noteAdvice = { advice, place };
    this.#placeAdvice();
    this.#parts.note.hidden = false;
  }

  /**
   * A failure in one line, for a status line: `${lead}: ` and what happened (`err.summary`, else `err.message`),
   * then the advice `err.advice` carries apart, or, when a stylesheet message already gives it, a pointer to that
   * message (as noteFailure).
   * @param {string} lead e.g. 'Training stopped'
   * @param {Error & { summary?: string, advice?: string | null }} err
   * @returns {string}
   */
  failureLine(lead, err) {
    const { summary, advice } = failureParts(err);
    return advice ? `${lead}: ${summary} ${this.#adviceOrPointer(advice)}` : `${lead}: ${summary}`;
  }

  clearNote() {
    this.#problems = [];
    if (!this.#parts) return;
    const { note } = this.#parts;
    // Nothing to clear (the usual case, on every change): no DOM write.
    if (note.hidden && !note.firstChild) return;
    this.#noteAdvice = null;
    note.hidden = true;
    note.replaceChildren();
  }

  /** Reads `text` to screen readers (the widget's polite live region, see announce.js). */
  announce(text) {
    if (this.#parts) announceIn(this.#parts.live, text);
  }

  // ------------------------------------------------------------ life cycle

  connectedCallback() {
    if (!this.#parts) this.#skeleton();
    watchForPrint(this); // a printout shows every widget, not its placeholder (print.js)
    // An answer of this chapter in the page's record (this visit, or restored from an earlier attempt).
    if (!this.#answerShown) this.#unwatchAnswer ??= whenAnswered(this.chapterId, (how) => this.answerShown(how));
    if (this.#started) {
      this.#subscribe();
      return;
    }
    if (typeof IntersectionObserver === 'undefined') {
      this.start();
      return;
    }
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) this.start();
      },
      { rootMargin: this.constructor.startMargin },
    );
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#observer = null;
    unwatchForPrint(this);
    this.#unwatchAnswer?.();
    this.#unwatchAnswer = null;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  /** Starts now (builds, loads the engine, renders). Safe to call more than once. */
  async start() {
    if (this.#started) return this.ready;
    this.#started = true;
    this.#observer?.disconnect();
    this.#observer = null;
    if (!this.#parts) this.#skeleton();
    this.dataset.status = 'loading';
    const { body } = this.#parts;
    body.replaceChildren();
    this.build(body);
    this.#built = true;
    if (this.#answerShown) showAfterAnswer(this.shadowRoot);
    this.#applyEmbedOptions();
    this.#warnEmbedOptions();
    // Only a started widget has boxes that may scroll: the frame of one still
    // waiting (placeholder, toolbar) has none to check on the opening page.
    this.#scrollers = watchScrollers(this.shadowRoot, this.#parts.frame);
    this.syncControls(this.#state);
    this.ready = (async () => {
      try {
        const ag = await getEngine();
        this.#ag = ag;
        this.#subscribe();
        this.#render();
      } catch (err) {
        this.#showLoadError(err);
      }
    })();
    return this.ready;
  }

  #subscribe() {
    if (this.#unsubscribe || !this.#ag) return;
    this.#unsubscribe = onEngineChange((ag) => {
      this.#ag = ag;
      this.#render();
    });
  }

  #skeleton() {
    ensureKatexFonts(this.ownerDocument);
    const sheets = [
      'styles/base.css',
      'styles/widget.css',
      'styles/embed-control.css',
      KATEX_CSS,
      'styles/chapter.css',
      ...this.constructor.styles,
    ].map((path) => {
      const link = h('link', { rel: 'stylesheet', href: assetUrl(path).href });
      link.addEventListener('error', () => this.#styleFailed(link.href), { once: true });
      return link;
    });
    const note = h('div', { class: 'note', id: 'widget-note', role: 'status', hidden: true });
    const error = h('div', { class: 'error', role: 'alert', hidden: true, dataset: { failure: 'module' } });
    // Apart from the module's error: a figure without its styles still computes. The messages are styled by
    // base.css (with the theme's colours), so that they stay readable when widget.css is the sheet that did not load.
    const styleError = h('div', { class: 'error', role: 'alert', hidden: true, dataset: { failure: 'styles' } });
    const body = h(
      'div',
      { class: 'body' },
      h('p', { class: 'placeholder' }, `${this.constructor.title}: starts when scrolled into view.`),
    );
    const computedBy = h('p', { class: 'computed-by' }, 'Waiting for the WebAssembly module\u2026');
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      computedBy,
      h(
        'div',
        { class: 'toolbar-actions' },
        exportControl({
          svg: () => this.#exportFigure('svg'),
          png: () => this.#exportFigure('png'),
          json: () => download(jsonBlob(this.exportData()), `${this.localName}.json`),
          csv: () => download(csvBlob(this.exportTable()), `${this.localName}.csv`),
          onError: (err) => this.note(`Export failed: ${err.message}`),
        }),
        embedControl(this),
      ),
    );
    const live = liveRegion();
    const frame = h('div', { class: 'widget', part: 'widget' }, note, styleError, error, body, toolbar, live);
    this.shadowRoot.replaceChildren(...sheets, frame);
    this.#parts = { note, error, styleError, body, computedBy, live, frame };
    if (this.#problems.length) this.showProblems(this.#problems, this.#where);
  }

  /**
   * A stylesheet of the frame did not load (its link fired `error`): names it, with the others that failed
   * before it, in the frame's style error (the last report wins: each is written once its fetch has told why).
   * Not shown once the module failed too: its message names the same folder to serve, and says more.
   */
  async #styleFailed(url) {
    this.#failedStyles.push(url);
    // A site page (shell/page-styles.js) takes the failure into its one message at its top (a sheet that fails in
    // one widget fails in all of them): the frame then has a one-line pointer to it, not a message of its own.
    const onPage = !this.dispatchEvent(
      new CustomEvent(STYLE_FAILURE_EVENT, { bubbles: true, composed: true, cancelable: true, detail: { url } }),
    );
    this.#stylesOnPage ||= onPage;
    const urls = [...this.#failedStyles];
    const failure = this.#stylesOnPage ? null : await describeStyleFailure(urls);
    if (urls.length !== this.#failedStyles.length || !this.#parts || this.dataset.status === 'error') return;
    const { styleError } = this.#parts;
    if (failure) {
      styleError.replaceChildren(...failureText(failure));
    } else {
      styleError.className = 'styles-pointer';
      styleError.removeAttribute('role');
      styleError.replaceChildren(
        'Some styles of this figure did not load: see the stylesheet message at the top of the page.',
      );
    }
    styleError.hidden = false;
    this.#placeAdvice();
  }

  /**
   * The advice of a failure in the note (noteFailure) in full, or, while the stylesheet message shows (it always
   * gives where the widgets' files must be, describeStyleFailure), a pointer to it: the advice once in the widget.
   */
  #placeAdvice() {
    if (!this.#noteAdvice) return;
    const { advice, place } = this.#noteAdvice;
    setText(place, this.#adviceOrPointer(advice));
  }

  /** `advice`, or a pointer to the stylesheet message that gives it (below, or at the top of the page). */
  #adviceOrPointer(advice) {
    if (this.#parts && !this.#parts.styleError.hidden)
      return this.#stylesOnPage
        ? 'Where the widgets\u2019 files must be: see the stylesheet message at the top of the page.'
        : 'Where the widgets\u2019 files must be: see the stylesheet message below.';
    return advice;
  }

  #showLoadError(err) {
    const { error, computedBy } = this.#parts;
    const detail = err?.message ? String(err.message) : String(err);
    const failure = describeLoadFailure(err);
    error.replaceChildren(...failureText(failure));
    error.hidden = false;
    this.#parts.styleError.hidden = true; // one message: the module's names the folder the stylesheets are in too
    this.#placeAdvice();
    computedBy.textContent = 'No numbers: the WebAssembly module did not load.';
    this.#parts.body.inert = true;
    this.#parts.body.classList.add('is-unavailable');
    this.dataset.status = 'error';
    this.dispatchEvent(new CustomEvent('ag-loaderror', { bubbles: true, composed: true, detail: { message: detail } }));
  }

  #render() {
    if (!this.#built || !this.#parts) return;
    const start = performance.now();
    this.syncControls(this.#state);
    if (!this.#ag) return;
    try {
      this.render(this.#ag, this.state);
      for (const [block, example] of this.#revealed)
        if (example !== this.stateText) {
          this.#revealed.delete(block);
          block.leaveExample();
        }
      this.#applyEmbedOptions();
      if (this.#parts.body.classList.contains('is-stale')) this.#parts.body.classList.remove('is-stale');
    } catch (err) {
      // Never left "loading": the figure shows older numbers (or none), and says so.
      this.note(`These inputs could not be computed: ${err.message}`);
      this.#parts.body.classList.add('is-stale');
      this.#parts.computedBy.textContent =
        'These inputs could not be computed: the numbers shown (if any) are not theirs.';
      this.dataset.status = 'stale';
      return;
    }
    const { id, label } = describe(this.#ag);
    // Written only when they change (a write costs style work even when the value is the same).
    setText(this.#parts.computedBy, `Computed in WebAssembly by: ${label}.`);
    if (this.dataset.computedBy !== id) this.dataset.computedBy = id;
    if (this.dataset.status !== 'ready') {
      this.dataset.status = 'ready';
      this.#scrollers.now(); // the first render: boxes that scroll are reachable by Tab from the start
    } else this.#scrollers.schedule();
    markRender(this.localName, start);
  }

  /** The current API instance (null before the engine loads). */
  get engine() {
    return this.#ag;
  }

  // ------------------------------------------------------------ showing numbers

  /**
   * Shows a number computed by the wasm module: `el` gets the formatted text
   * and data-value (the exact value); `name` (default el.dataset.role + key)
   * is its name in exports. `format` turns the value into text (formatting
   * only, e.g. radians to degrees for display).
   */
  show(el, value, { digits = 4, format, name } = {}) {
    // Only what changed is written: most numbers stay the same from one
    // update to the next, and each write costs style and layout work.
    // The slot of a signed term (signedTerm) shows |value| and flips its separator when value is negative.
    setText(el, signedText(el, format ? format(value) : formatNumber(value, digits)));
    setAttr(el, 'data-value', value);
    const key = name ?? shownName(el);
    if (key) {
      this.#shown.set(key, value);
      this.#shownIn.set(key, el);
    }
  }

  /**
   * Slots that show no number now (a quantity not defined here, or a slot this state leaves empty) get `text`
   * and lose their data-value, and their names leave the exports: a JSON or CSV holds only what is shown.
   */
  notShown(els, text = 'not defined') {
    notDefined(els, text);
    for (const el of els) {
      const key = shownName(el);
      if (key) {
        this.#shown.delete(key);
        this.#shownIn.delete(key);
      }
    }
  }

  /** show() for several slots of `ui` at once, in order: `this.showAll(ui, { normA: na, normB: nb }, options)`. */
  showAll(ui, values, options) {
    for (const [key, value] of Object.entries(values)) this.show(ui[key], value, options);
  }

  /** The numbers shown, [name, value] in order, but those held until the answer (after-answer.js). */
  #exportedNumbers() {
    return [...this.#shown].filter(([name]) => !isHeld(this.#shownIn.get(name)));
  }

  /**
   * Numbers for the JSON export: the state, its text form, and every number shown, but those held until the
   * answer (an export made before it holds nothing the screen holds back; a chapter's own export does the same).
   */
  exportData() {
    return {
      widget: this.localName,
      title: this.constructor.title,
      state: this.state,
      stateText: this.stateText,
      computedBy: this.#ag ? describe(this.#ag).label : null,
      numbers: Object.fromEntries(this.#exportedNumbers()),
    };
  }

  /** Numbers for the CSV export: { columns, rows }. Default: name, value of every number shown (but the held). */
  exportTable() {
    return { columns: ['name', 'value'], rows: this.#exportedNumbers() };
  }

  /**
   * What the SVG and PNG exports take: `figure()` without the figures held until the answer (one <svg>, a list,
   * or null); inside a figure, what is held is left out of the file (export.js).
   */
  figureToExport() {
    const figures = [this.figure()].flat().filter((fig) => fig && !isHeld(fig));
    return figures.length > 1 ? figures : (figures[0] ?? null);
  }

  async #exportFigure(kind) {
    const fig = this.figureToExport();
    if (!fig) {
      const held = [this.figure()].flat().some(Boolean);
      this.note(
        held
          ? 'This widget has no figure to export until the prediction is answered: answer it first. The numbers shown can be exported as JSON or CSV.'
          : 'This widget has no figure to export; its numbers can be exported as JSON or CSV.',
      );
      return;
    }
    const background = getComputedStyle(this.#parts.frame).backgroundColor;
    const blob = kind === 'svg' ? svgBlob(fig, { background }) : await pngBlob(fig, { background });
    download(blob, `${this.localName}.${kind}`);
  }

  /**
   * The chapter this widget belongs to: the tour's chapter whose section or embedded chapter holds it
   * (`[data-chapter]`), else the tour's chapter that shows this tag; the tag itself for a widget of no chapter.
   */
  get chapterId() {
    const held = this.closest('[data-chapter]')?.dataset.chapter;
    if (held && CHAPTERS.some((c) => c.id === held)) return held;
    const tag = this.localName;
    return CHAPTERS.find((c) => c.tag === tag || c.also?.includes(tag))?.id ?? tag;
  }

  /**
   * A predict-then-reveal block (see predict.js): choices, a number or a point. Each answer is recorded in the page's record under this
   * widget's chapter (the first answer counts; the block shows the chapter's score), then fired from this
   * element as `ag-predict` { widget, chapter, id, choice, answer, correct } and as `ag-xapi`
   * { statement, widget, chapter, prediction } (an xAPI "answered" statement, widget/xapi.js). Place the
   * returned element in build().
   */
  predict(options) {
    const block = predictBlock({
      ...options,
      reveal: async (choice) => {
        if (!this.#ag) await this.ready;
        if (!this.#ag) throw new Error('the WebAssembly module is not loaded');
        // The learner's own setup, to bring back if the reveal moves the widget to its example.
        const before = this.stateText;
        const mine = this.state;
        const outcome = await options.reveal(choice, this.#ag);
        this.#revealed.set(block, this.stateText);
        if (this.stateText === before) return outcome;
        return { ...outcome, restore: () => this.setState(mine) };
      },
      // How far a point answer is from the true point: |a \u2212 b|, computed by the module (a logged call).
      distance: (a, b) => this.#ag.norm(this.#ag.weightedSum([1, -1], [a, b]).data),
      onShown: () => this.answerShown('answer'),
      onResult: (result) => {
        const chapter = this.chapterId;
        const tries = pageRecord.record(chapter, result);
        const first = pageRecord.first(chapter);
        const widget = this.localName;
        const fire = (type, detail) =>
          this.dispatchEvent(new CustomEvent(type, { bubbles: true, composed: true, detail }));
        fire('ag-predict', { widget, chapter, ...result });
        const statement = answeredStatement({
          page: window.location.href,
          chapter,
          chapterTitle: CHAPTERS.find((c) => c.id === chapter)?.title,
          prediction: options,
          ...result,
          first,
          number: tries,
        });
        fire(XAPI_EVENT, { statement, widget, chapter, prediction: result.id });
        return { first, tries, ...pageRecord.score([chapter]) };
      },
    });
    // A prediction the ask option leaves out is not shown, so it is never answered, scored or reported.
    this.#predictions.set(options.id, block);
    block.hidden = !this.asks(options.id);
    return block;
  }

  /**
   * Marks `el` (built in build()) as text that states the answer of this chapter's prediction: it is hidden on
   * screen until the answer is on show (the learner answered, an answer was restored, or `answerShown()`), then
   * shown; it is printed in any case (after-answer.js). `el` may be a list of elements, or, with `selector`,
   * the box whose matches are held (`this.afterAnswer(table, '.c-weight')`: a column). @returns el
   */
  afterAnswer(el, selector) {
    if (!this.#answerShown) return afterAnswer(el, selector);
    for (const one of heldTargets(el, selector)) one.dataset.afterAnswer = 'shown';
    return el;
  }

  /** Whether the answer of this chapter's prediction is on show. */
  get answerIsShown() {
    return this.#answerShown;
  }

  /**
   * The answer of this chapter's prediction is on show: the widget's held text appears, the host gets
   * `data-answer-shown` (`how`), and `ag-answershown` { widget, chapter, how } is fired (bubbles, composed) so
   * that the chapter's held prose around the widget appears too. The predict block calls it after an answer;
   * a chapter whose own run shows the answer anyway calls it when the learner starts that run (Part 4: Train),
   * how = 'run'. Once is enough: later calls do nothing.
   */
  answerShown(how = 'run') {
    if (this.#answerShown) return;
    this.#answerShown = true;
    this.#unwatchAnswer?.();
    this.#unwatchAnswer = null;
    this.dataset.answerShown = how;
    if (this.#built) showAfterAnswer(this.shadowRoot);
    this.#render(); // what render writes as held (aria-labels, spoken lines) is written as shown
    const detail = { widget: this.localName, chapter: this.chapterId, how };
    this.dispatchEvent(new CustomEvent(ANSWER_SHOWN_EVENT, { bubbles: true, composed: true, detail }));
  }

  // ------------------------------------------------------------ hooks

  /** Builds the widget's DOM into `body` (once, when it starts). */
  build(_body) {}

  /** Puts the state into the widget's controls (inputs, radios). Called before every render. */
  syncControls(_state) {}

  /** Computes with `ag` (the API) and updates the DOM through show(). Throw to show a note. */
  render(_ag, _state) {}

  /**
   * The figure to export: an <svg>, a list of them (exported side by side in one file), or null; by default the
   * one `static figureSelector` names.
   */
  figure() {
    const selector = this.constructor.figureSelector;
    return selector ? this.shadowRoot.querySelector(selector) : null;
  }

  /** Called after every state change, before render (source: 'user' | 'attribute' | 'property' | 'text'). */
  stateChanged(_source) {}
}

/**
 * Times one render (syncControls and render, up to the ready status) as a
 * User Timing measure named 'ag-render' whose detail is the widget's tag, so
 * that a PerformanceObserver can see how long an update takes
 * (scripts/bench/page-updates.mjs). The previous measure is cleared first:
 * the timeline buffer keeps one entry, however long the page is used.
 */
function markRender(tag, start) {
  try {
    performance.clearMeasures('ag-render');
    performance.measure('ag-render', { start, detail: tag });
  } catch {
    // A browser without measure options: no timing, nothing else changes.
  }
}

/** The export name of a number's element: data-role and data-key (fixed when the element is made). */
const names = new WeakMap();
function shownName(el) {
  let name = names.get(el);
  if (name === undefined) {
    name = [el.dataset.role, el.dataset.key].filter(Boolean).join('.');
    names.set(el, name);
  }
  return name;
}

/**
 * The detail of `ag-statechange`: { state, text, source }. The state's copy
 * and text form are made when first read (most listeners read neither), from
 * the state committed then (a new object on every change, never changed).
 */
function changeDetail(decl, committed, source) {
  let state;
  let text;
  return {
    source,
    get state() {
      state ??= copyValue(committed);
      return state;
    },
    get text() {
      text ??= encodeState(decl, committed);
      return text;
    },
  };
}

/** The attributes of the embed options (widget/studio-options.js), read apart from the state. */
const EMBED_OPTIONS = ['hide', 'ask'];

/** The text of `el` as read, without KaTeX's MathML copy of each formula. */
const readText = (el) =>
  [...el.childNodes]
    .map((n) => (n.nodeType === 3 ? n.textContent : n.classList?.contains('katex-mathml') ? '' : readText(n)))
    .join('');

/**
 * What a control group says to the reader (shortened): its aria-label, legend or label, else its text; then
 * the labels of its buttons (a preset bar's presets, the Train, Restart and Cancel of a run).
 */
function groupLabel(el) {
  // A group whose buttons change their text (Train / Pause) names itself.
  if (el.dataset.groupLabel) return el.dataset.groupLabel;
  const named = el.getAttribute('aria-label') ?? el.querySelector('legend, label, span');
  const own = typeof named === 'string' ? named : named ? readText(named) : '';
  const buttons = [...el.querySelectorAll('button')].map((b) => readText(b).trim()).filter(Boolean);
  const text = [own.trim(), buttons.join(', ')].filter(Boolean).join(': ') || readText(el);
  return shorten(text.replace(/\s+/g, ' ').trim());
}

/** Defines `tag` once (a second load of the bundle does not throw). */
export function defineWidget(tag, cls) {
  if (!tag.startsWith('ag-')) throw new Error(`widget tags start with "ag-": ${tag}`);
  if (!customElements.get(tag)) customElements.define(tag, cls);
  return cls;
}
