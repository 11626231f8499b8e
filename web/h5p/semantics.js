// What an author chooses for one H5P content of Attention Geometry (the
// library's semantics.json, written by scripts/h5p.mjs) and the defaults the
// content type falls back on: the chapter (a select of the chapters that have
// a widget, web/chapters.js), the widget's start state (its state text, as in
// a link to the page), the control groups hidden and the predictions asked
// (the studio's options, web/widget/studio-options.js), whether the chapter's title, introduction and "things
// to try" are shown, and the strings of the content type's own text.
// Semantics format: https://h5p.org/semantics
import { CHAPTERS } from '../chapters.js';

/** The chapter a new content shows (and the package's default): the article's worked dot product. */
export const DEFAULT_CHAPTER = 'dot-product';

/** The content type's own strings; @score, @total and @chapter are replaced. */
export const DEFAULT_L10N = Object.freeze({
  scoreText: 'Score: @score of @total (the first answer to each prediction counts).',
  solutionText: 'The answer is shown; answers given from now on are not scored until the task is reset.',
  unknownChapter: 'This content names a chapter that this version of the library does not have: @chapter.',
});

const L10N_LABELS = {
  scoreText: 'Score line, shown after an answer (@score, @total)',
  solutionText: 'Note shown with the solutions',
  unknownChapter: 'Message for a chapter this library does not have (@chapter)',
};

/** The chapters an author can choose: those with a widget, in reading order. */
export const CHOOSABLE = CHAPTERS.filter((c) => c.tag);

/** The library's semantics: the fields of content/content.json. */
export function semantics() {
  return [
    {
      name: 'chapter',
      type: 'select',
      label: 'Chapter',
      description: 'The chapter whose widget the learner uses; each chapter has one prediction, worth one point.',
      options: CHOOSABLE.map((c) => ({ value: c.id, label: `${CHAPTERS.indexOf(c) + 1}. ${c.title}` })),
      default: DEFAULT_CHAPTER,
    },
    {
      name: 'state',
      type: 'text',
      label: 'Start state',
      description:
        'Optional: the widget\u2019s state text, as in a link to the page or the widget\u2019s Embed control (e.g. v=1&a=3,4&b=4,3). Empty: the chapter\u2019s own start.',
      optional: true,
      maxLength: 2000,
      default: '',
    },
    {
      name: 'hide',
      type: 'text',
      label: 'Controls to hide',
      description:
        'Optional: the names of the widget\u2019s control groups to leave out, comma-separated, as the studio (?studio=1 on the page) lists them (e.g. presets). Their state still applies.',
      optional: true,
      maxLength: 1000,
      default: '',
    },
    {
      name: 'ask',
      type: 'text',
      label: 'Predictions to ask',
      description:
        'Optional: the ids of the predictions asked, comma-separated, or none. Empty: every prediction. The maximum score counts the predictions asked.',
      optional: true,
      maxLength: 1000,
      default: '',
    },
    {
      name: 'showIntro',
      type: 'boolean',
      label: 'Show the chapter\u2019s title, introduction and things to try',
      default: true,
    },
    {
      name: 'l10n',
      type: 'group',
      label: 'Text of the content type',
      common: true,
      fields: Object.entries(DEFAULT_L10N).map(([name, text]) => ({
        name,
        type: 'text',
        label: L10N_LABELS[name],
        default: text,
      })),
    },
  ];
}

/**
 * The content's parameters with the defaults filled in. A chapter that is not
 * choosable is kept as given (the content type shows unknownChapter).
 */
export function readParams(params = {}) {
  return {
    chapter: typeof params.chapter === 'string' ? params.chapter : DEFAULT_CHAPTER,
    state: typeof params.state === 'string' ? params.state.trim() : '',
    hide: typeof params.hide === 'string' ? params.hide.trim() : '',
    ask: typeof params.ask === 'string' ? params.ask.trim() : '',
    showIntro: params.showIntro !== false,
    l10n: { ...DEFAULT_L10N, ...(params.l10n ?? {}) },
  };
}
