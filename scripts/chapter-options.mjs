// The command line of the scripts that package one chapter (scripts/h5p.mjs,
// scripts/scorm.mjs --chapter): options as `--name value` or `--name=value`,
// the chapter by its id, and the studio's hide and ask options read as the
// embed reads them (web/widget/studio-options.js) and checked against the
// chapter's control groups and predictions (web/chapter-options.json).
import { readFileSync } from 'node:fs';
import { CHOOSABLE } from '../web/h5p/semantics.js';
import { ASK_NONE, readAsk, readHide } from '../web/widget/studio-options.js';

/**
 * Each chapter's control groups and prediction ids, as its built widget reports them (widget.controlGroups,
 * widget.predictions; tests/browser/studio.test.mjs checks that they agree): { <id>: { controlGroups, predictions } }.
 */
export const CATALOGUE = JSON.parse(readFileSync(new URL('../web/chapter-options.json', import.meta.url), 'utf8'));

/** The usage text of a command: its line and each option with what its value is. */
export const usageText = (command, usage) =>
  `usage: ${command} ${Object.keys(usage)
    .map((n) => `[--${n} ${usage[n]}]`)
    .join(' ')}\n(--name=value works too)`;

/**
 * The options of `args` as { name: value }. `usage` lists the options a command takes, in order, each with what
 * its value is ({ chapter: '<id>', … }); an option not in it, or one without a value (none follows, or the next
 * argument begins with "--": an option, not a value), is a RangeError that names it (and the options, for an
 * unknown one). `--help` gives { help: true }.
 */
export function readArgs(args, usage) {
  const names = Object.keys(usage);
  const options = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--help' || args[i] === '-h') return { help: true };
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(args[i]);
    if (!m || !names.includes(m[1]))
      throw new RangeError(`unknown option ${args[i]}: use ${names.map((n) => `--${n} ${usage[n]}`).join(', ')}`);
    let value = m[2];
    if (value === undefined) {
      value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new RangeError(`--${m[1]} needs a value`);
      i += 1;
    }
    options[m[1]] = value;
  }
  return options;
}

/** The chapter of `id` among those with a widget; a RangeError naming `option` and the known ids otherwise. */
export function chapterOf(id, option = '--chapter') {
  const chapter = CHOOSABLE.find((c) => c.id === id);
  if (!chapter)
    throw new RangeError(
      `${option}: no chapter "${id}" with a widget; known: ${CHOOSABLE.map((c) => c.id).join(', ')}`,
    );
  return chapter;
}

/** The names of `given` that `chapterId`'s widget does not have, as a RangeError of `option`. */
function checkKnown(given, known, option, chapterId) {
  const what = option === 'hide' ? 'control group' : 'prediction';
  const bad = given.filter((n) => !known.includes(n));
  if (bad.length)
    throw new RangeError(
      `--${option}: no ${what} ${bad.map((n) => `"${n}"`).join(', ')} in chapter ${chapterId}; ` +
        `its ${what}s: ${known.length ? known.join(', ') : 'none'}`,
    );
}

/**
 * The hide and ask options as texts: the names, comma-separated ('' for none given; ask 'none' for none asked,
 * as for an empty ask, which embed.html also reads as none). `ask` undefined: not given (every prediction).
 * A name that is not a name, or (with `chapter`, its id) one that the chapter's widget does not have
 * (CATALOGUE), is a RangeError that names the option, the name and the names allowed.
 */
export function embedOptions({ hide = '', ask }, chapter = null) {
  const read = { hide: readHide(hide), ask: readAsk(ask === undefined || ask === '' ? null : ask) };
  for (const [name, { problems }] of Object.entries(read))
    if (problems.length)
      throw new RangeError(`--${name}: ${problems.map((p) => `${p.value}: expected ${p.expected}`).join('; ')}`);
  const entry = chapter ? CATALOGUE[chapter] : null;
  if (chapter && !entry) throw new RangeError(`--chapter: chapter ${chapter} is not in web/chapter-options.json`);
  if (entry) {
    checkKnown(read.hide.hide, entry.controlGroups, 'hide', chapter);
    checkKnown(read.ask.ask ?? [], entry.predictions, 'ask', chapter);
  }
  const asked = ask === '' ? [] : read.ask.ask;
  const askText = asked === null ? '' : asked.join(',') || ASK_NONE;
  return { hide: read.hide.hide.join(','), ask: askText };
}

/** The ids of the predictions asked in chapter `chapter` (an id) for an ask text of embedOptions. */
export const askedIds = (chapter, ask) =>
  ask === ASK_NONE ? [] : ask ? ask.split(',') : (CATALOGUE[chapter]?.predictions ?? []);
