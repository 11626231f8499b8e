// The two embed options the studio (widget/studio.js) writes into a snippet,
// read and checked here (no DOM):
//   hide="presets,tw-t"   the control groups (data-control-group, widget/controls.js) not shown
//   ask="perpendicular-sign" | ask="none"   the predictions asked (absent: every one)
// A widget takes them as attributes, embed.html as the parameters hide= and
// ask=, the H5P content as its fields hide and ask. A name that is not a name
// (wrong characters, too long) or that the widget does not have is a problem:
// { name, value, expected }, shown as text in a note and as a console warning,
// never a broken page; the rest of the list still applies.

/** A control group's or a prediction's name: letters, digits, "-", "_", "." (at most 40). */
const NAME = /^[A-Za-z0-9_.-]{1,40}$/;
/** Names read from one list at most; the rest are one problem. */
export const MAX_NAMES = 40;
/** `ask="none"`: no prediction is asked. */
export const ASK_NONE = 'none';

/**
 * The names of a comma-separated list (spaces around names ignored, empty items skipped, repeats kept once).
 * @param {string|null} text the attribute or parameter; null: not given
 * @param {'hide'|'ask'} option which option, named in the problems
 * @returns {{ names: string[]|null, problems: { name: string, value: string, expected: string }[] }}
 *   `names` null when `text` is null
 */
export function readNameList(text, option) {
  if (text === null || text === undefined) return { names: null, problems: [] };
  const problems = [];
  const items = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const names = [];
  for (const item of items.slice(0, MAX_NAMES)) {
    if (!NAME.test(item))
      problems.push({
        name: option,
        value: item.slice(0, 60),
        expected: `a name of up to 40 letters, digits, "-", "_" or "."`,
      });
    else if (!names.includes(item)) names.push(item);
  }
  if (items.length > MAX_NAMES)
    problems.push({
      name: option,
      value: `${items.length - MAX_NAMES} more names`,
      expected: `at most ${MAX_NAMES} names`,
    });
  return { names, problems };
}

/**
 * The hide option: the control groups to leave out, [] when not given.
 * @returns {{ hide: string[], problems: object[] }}
 */
export function readHide(text) {
  const { names, problems } = readNameList(text, 'hide');
  return { hide: names ?? [], problems };
}

/**
 * The ask option: null (not given: every prediction is asked), [] for "none", else the ids asked.
 * "none" together with ids is a problem; the ids are used.
 * @returns {{ ask: string[]|null, problems: object[] }}
 */
export function readAsk(text) {
  const { names, problems } = readNameList(text, 'ask');
  if (names === null) return { ask: null, problems };
  // An empty ask (e.g. `ask=` in a link) asks nothing, like "none", but is more likely a slip: it is noted.
  if (!names.length && !problems.length)
    problems.push({ name: 'ask', value: '', expected: '"none" or the ids of predictions (an empty ask asks none)' });
  const ids = names.filter((n) => n !== ASK_NONE);
  if (ids.length && ids.length !== names.length)
    problems.push({ name: 'ask', value: ASK_NONE, expected: 'either "none" or the ids of predictions, not both' });
  return { ask: ids, problems };
}

/**
 * The names of `given` that are not in `known`, as problems of `option`.
 * @param {string[]} given
 * @param {string[]} known the names the widget has
 * @param {'hide'|'ask'} option
 */
export function unknownNames(given, known, option) {
  const what = option === 'hide' ? 'a control group of this widget' : 'a prediction of this widget';
  const list = known.length ? known.join(', ') : 'none';
  return given
    .filter((n) => !known.includes(n))
    .map((n) => ({ name: option, value: n, expected: `${what} (it has: ${list})` }));
}

/**
 * The text of each option as a snippet writes it: `hide` only when a group is hidden, `ask` only when not every
 * prediction is asked ("none" for none). `predictions` is the widget's list, `asked` the ids asked.
 * @returns {{ hide?: string, ask?: string }}
 */
export function optionTexts({ hide = [], asked = null, predictions = [] }) {
  const texts = {};
  if (hide.length) texts.hide = hide.join(',');
  if (asked !== null && predictions.some((id) => !asked.includes(id)))
    texts.ask = asked.length ? asked.join(',') : ASK_NONE;
  return texts;
}
