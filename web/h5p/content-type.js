// The H5P content type H5P.AttentionGeometry: one chapter's widget (its
// title, introduction and "things to try" too, unless the author turned them
// off) in the container H5P gives, graded by the chapter's prediction.
// It keeps H5P's question contract (https://h5p.org/documentation/developers/contracts):
//   getScore       predictions whose FIRST answer was right (one point each)
//   getMaxScore    the predictions of the widget asked (one per chapter; 0 with ask "none")
//   getAnswerGiven whether any prediction was answered
//   showSolutions  marks each prediction's answer, computed by the wasm as on the page
//   resetTask      forgets the answers, reopens the questions, puts the start state back
//   getXAPIData    { statement }: the "answered" statement (statement.js)
// and triggers that statement as an xAPI event when the learner first answers.
// Where the platform saves the learner's state, getCurrentState gives the widget's state and the
// first answers, and a later visit (extras.previousState) starts from them: the score line shows
// the score kept, and answering again does not change it.
import { h } from '../widget/dom.js';
import { embedTurnedOff } from '../widget/embed-control.js';
import { renderEmbed } from '../shell/embed-view.js';
import { CHOOSABLE, readParams } from './semantics.js';
import { answeredEvent, readPrediction } from './statement.js';
import { readAsk } from '../widget/studio-options.js';

/** The number of predictions an ask option names ("none": 0). */
const askedCount = (text) => readAsk(text).ask?.length ?? 1;

const fill = (text, values) => text.replace(/@(\w+)/g, (m, k) => (Object.hasOwn(values, k) ? String(values[k]) : m));

/**
 * The learner's saved state as getCurrentState wrote it; anything else (none, another shape) is
 * an empty one: a content starts afresh rather than fail on what it cannot read.
 */
export function readSavedState(saved) {
  const empty = { state: null, answers: {} };
  if (!saved || typeof saved !== 'object') return empty;
  const answers = {};
  for (const [id, a] of Object.entries(saved.answers ?? {})) {
    if (a && typeof a.choice === 'string' && typeof a.answer === 'string' && typeof a.correct === 'boolean')
      answers[id] = { choice: a.choice, answer: a.answer, correct: a.correct };
  }
  return { state: typeof saved.state === 'string' ? saved.state : null, answers };
}

/** The content type's class for `H5P` (the H5P core object of the page that runs it). */
export function defineContentType(H5P) {
  return class AttentionGeometry extends H5P.EventDispatcher {
    #params;
    #chapter;
    #widget = null;
    #root = null;
    #status = null;
    #startText = null;
    /** prediction id -> { choice, answer, correct }: the first answer to each. */
    #answers = new Map();
    #solutionsShown = false;
    /** The learner's state from an earlier visit: { state: string|null, answers: { id: answer } }. */
    #saved;

    /** @param {{ chapter?: string, state?: string, showIntro?: boolean, l10n?: object }} params content.json */
    constructor(params, contentId, extras = {}) {
      super();
      this.#params = readParams(params);
      this.#chapter = CHOOSABLE.find((c) => c.id === this.#params.chapter) ?? null;
      this.contentId = contentId;
      this.extras = extras;
      this.#saved = readSavedState(extras.previousState);
      for (const [id, given] of Object.entries(this.#saved.answers)) this.#answers.set(id, given);
    }

    /** Renders into `$container` (a jQuery object); a second attach moves the same widget there. */
    attach($container) {
      const container = $container.get(0);
      container.classList.add('h5p-attention-geometry');
      if (!this.#root) this.#build(container.ownerDocument);
      container.replaceChildren(this.#root);
      this.#widget?.start();
    }

    #build(doc) {
      // Inside a platform's H5P frame the widget has no address another page could load it from:
      // its Embed control says so instead of giving snippets (embedTurnedOff, web/widget/embed-control.js).
      if (!embedTurnedOff(doc)) doc.head.append(h('meta', { name: 'attention-geometry-embed', content: 'off' }));
      const main = doc.createElement('div');
      this.#status = h('p', { class: 'h5p-ag-status', role: 'status', hidden: true });
      this.#root = h('div', { class: 'h5p-ag-content' }, main, this.#status);
      if (!this.#chapter) {
        main.replaceChildren(
          h('p', { class: 'h5p-ag-error', role: 'alert' }, fill(this.#params.l10n.unknownChapter, this.#params)),
        );
        return;
      }
      const chapter = this.#params.showIntro ? this.#chapter : null;
      const widget = renderEmbed(main, { tag: this.#chapter.tag, chapter });
      // The widget's own codec checks the state and notes, inside the widget, what it ignored.
      if (this.#params.state) widget.stateText = this.#params.state;
      // The studio's options: the widget leaves out those control groups and the predictions not asked.
      if (this.#params.hide) widget.setAttribute('hide', this.#params.hide);
      if (this.#params.ask) widget.setAttribute('ask', this.#params.ask);
      this.#startText = widget.stateText;
      if (this.#saved.state !== null) widget.stateText = this.#saved.state;
      if (this.#answers.size > 0) {
        this.#showScore();
        widget.answerShown?.('restored'); // text held until the answer (after-answer.js) shows at once
      }
      widget.addEventListener('ag-predict', (event) => this.#onPredict(event.detail));
      widget.addEventListener('ag-statechange', () => this.trigger('resize'));
      new ResizeObserver(() => this.trigger('resize')).observe(this.#root);
      this.#widget = widget;
      widget.ready?.then(() => this.trigger('resize'));
    }

    /** The prediction blocks of the widget that are asked (none before it is built). */
    #blocks() {
      const all = [...(this.#widget?.shadowRoot?.querySelectorAll('[data-predict]') ?? [])];
      return all.filter((b) => this.#widget.asks(b.dataset.predict));
    }

    #onPredict({ id, choice, answer, correct }) {
      if (this.#solutionsShown || this.#answers.has(id)) return;
      this.#answers.set(id, { choice, answer, correct });
      this.#showScore();
      this.trigger(this.#statement(id));
    }

    #showScore() {
      this.#status.textContent = fill(this.#params.l10n.scoreText, {
        score: this.getScore(),
        total: this.getMaxScore(),
      });
      this.#status.hidden = false;
    }

    /** The "answered" event of prediction `id` (the first one when null) with the content's score. */
    #statement(id = null) {
      const block = this.#blocks().find((b) => id === null || b.dataset.predict === id);
      const prediction = block
        ? readPrediction(block)
        : { id: id ?? 'prediction', question: this.#chapter?.title ?? '', choices: [] };
      const given = this.#answers.get(prediction.id) ?? null;
      return answeredEvent(this, {
        prediction,
        answer: given?.answer ?? null,
        response: given?.choice ?? null,
        score: this.getScore(),
        maxScore: this.getMaxScore(),
      });
    }

    getScore() {
      let score = 0;
      for (const { correct } of this.#answers.values()) if (correct) score += 1;
      return score;
    }

    getMaxScore() {
      // Each chapter has one prediction; before the widget is built its block is not there to count.
      // With the ask option, the predictions asked (none: 0).
      if (this.#params.ask)
        return this.#widget?.predictions.length ? this.#blocks().length : askedCount(this.#params.ask);
      return Math.max(1, this.#blocks().length);
    }

    getAnswerGiven() {
      return this.#answers.size > 0;
    }

    getTitle() {
      return H5P.createTitle?.(this.#chapter?.title ?? 'Attention Geometry') ?? 'Attention Geometry';
    }

    async showSolutions() {
      this.#solutionsShown = true;
      this.#status.textContent = this.#params.l10n.solutionText;
      this.#status.hidden = false;
      for (const block of this.#blocks()) if (!block.dataset.result) await block.showAnswer();
      this.trigger('resize');
    }

    resetTask() {
      this.#answers.clear();
      this.#solutionsShown = false;
      this.#status.hidden = true;
      this.#status.textContent = '';
      for (const block of this.#blocks()) block.askAgain();
      if (this.#widget && this.#startText !== null) this.#widget.stateText = this.#startText;
      this.trigger('resize');
    }

    /** The state to save (H5P's contract), or undefined while nothing differs from the start. */
    getCurrentState() {
      const state = this.#widget?.stateText ?? this.#saved.state;
      const moved = state !== null && state !== undefined && state !== this.#startText;
      if (this.#answers.size === 0 && !moved) return undefined;
      return { state: moved ? state : null, answers: Object.fromEntries(this.#answers) };
    }

    getXAPIData() {
      return { statement: this.#statement().data.statement };
    }
  };
}
