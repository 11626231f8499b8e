// The command line of the scripts that package one chapter (scripts/h5p.mjs,
// scripts/scorm.mjs --chapter): options as `--name value` or `--name=value`,
// the chapter by its id, and the studio's hide and ask options read as the
// embed reads them (web/widget/studio-options.js).
import { CHOOSABLE } from '../web/h5p/semantics.js';
import { ASK_NONE, readAsk, readHide } from '../web/widget/studio-options.js';

/**
 * The options of `args` as { name: value }. `usage` lists the options a command takes, in order, each with what
 * its value is ({ chapter: '<id>', … }); an option not in it, or one without a value, is a RangeError that names
 * it (and the options, for an unknown one).
 */
export function readArgs(args, usage) {
  const names = Object.keys(usage);
  const options = {};
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(args[i]);
    if (!m || !names.includes(m[1]))
      throw new RangeError(`unknown option ${args[i]}: use ${names.map((n) => `--${n} ${usage[n]}`).join(', ')}`);
    const value = m[2] ?? args[++i];
    if (value === undefined) throw new RangeError(`--${m[1]} needs a value`);
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

/**
 * The hide and ask options as texts: the names, comma-separated ('' for none given; ask 'none' for none asked).
 * A name that is not a name is a RangeError that names the option (whether the chapter's widget has it is
 * checked when the chapter runs, which notes a name it does not have).
 */
export function embedOptions({ hide = '', ask = '' }) {
  const read = { hide: readHide(hide), ask: readAsk(ask === '' ? null : ask) };
  for (const [name, { problems }] of Object.entries(read))
    if (problems.length)
      throw new RangeError(`--${name}: ${problems.map((p) => `${p.value}: expected ${p.expected}`).join('; ')}`);
  const asked = read.ask.ask;
  return { hide: read.hide.hide.join(','), ask: asked === null ? '' : asked.join(',') || ASK_NONE };
}
