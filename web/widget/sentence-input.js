// The sentence field of the part-2 chapters: a text input of 2 to 6 words
// (web/models/sentence.js reads it). A pause in typing applies a good
// sentence; Enter or leaving the field applies what is there: a good sentence
// becomes the state `words` (the query stays inside it), a bad one is named in
// the widget's note, which then describes the field (aria-describedby), and
// marks the field invalid. (A pause never reports a sentence half typed.)
import { h, setAttr } from './dom.js';
import { afterPause } from './pause.js';
import { number, vector } from './state.js';
import {
  MAX_CODE,
  MAX_WORDS,
  MIN_WORDS,
  packSentence,
  parseSentence,
  queryProblems,
  unpackSentence,
  unreadableWords,
} from '../models/sentence.js';

/** How long after the last key press a good sentence is applied (ms). */
const TYPING_PAUSE_MS = 400;

/** The state fields `words` (packed, 2 to 6) and `query` (1-based) of a chapter on a sentence. */
export function sentenceFields(words, query) {
  return {
    words: vector({
      minLength: MIN_WORDS,
      maxLength: MAX_WORDS,
      min: 1,
      max: MAX_CODE,
      integer: true,
      default: packSentence(words),
    }),
    query: number({ min: 1, max: MAX_WORDS, integer: true, default: query }),
  };
}

/** The problems of those fields together: unreadable words, a query past the sentence's end. */
export const sentenceProblems = (state, query) => [
  ...unreadableWords(state.words),
  ...queryProblems(state.words, state.query, query),
];

/** The words of the state; words a link gave that cannot be read stop the render (the widget says so). */
export function sentenceWords(state) {
  const words = unpackSentence(state.words);
  if (words.some((w) => w === '')) throw new Error('The sentence in the link is not readable.');
  return words;
}

/**
 * @param {AgWidget} widget  the chapter (its state has `words` and `query`)
 * @param {{ hint?: string }} o  a hint after the field
 * @returns {{ element: HTMLElement, input: HTMLInputElement, sync: (words: number[]) => void }}
 */
export function sentenceInput(widget, { hint } = {}) {
  const input = h('input', {
    type: 'text',
    class: 'sentence-input',
    'aria-label': 'Sentence (2 to 6 words of letters a to z)',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const apply = () => {
    const read = parseSentence(input.value);
    if (read.error) {
      // The message is in the widget's note; the field points to it, so that it is read with the field.
      widget.note(read.error);
      setAttr(input, 'aria-invalid', 'true');
      setAttr(input, 'aria-describedby', 'widget-note');
      return;
    }
    input.removeAttribute('aria-invalid');
    input.removeAttribute('aria-describedby');
    widget.setState({ words: packSentence(read.words), query: Math.min(widget.state.query, read.words.length) });
  };
  const typed = afterPause(() => parseSentence(input.value).error || apply(), TYPING_PAUSE_MS);
  input.addEventListener('input', typed.poke);
  input.addEventListener('change', () => (typed.cancel(), apply()));
  input.addEventListener('keydown', (e) => e.key === 'Enter' && (typed.cancel(), apply()));
  const element = h(
    'div',
    { class: 'sentence' },
    h('label', { class: 'sentence-label' }, 'Sentence ', input),
    hint && h('span', { class: 'hint' }, hint),
  );
  /** Writes the state's words into the field, unless the learner is typing there. */
  const sync = (words) => {
    if (widget.shadowRoot.activeElement === input) return;
    const text = unpackSentence(words).join(' ');
    if (input.value !== text) input.value = text;
  };
  return { element, input, sync };
}
