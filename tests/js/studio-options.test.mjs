// The studio's embed options (web/widget/studio-options.js), read without a browser: the hide and ask lists
// (names, repeats, bad names, too many, "none"), the names a widget does not have, the texts a snippet
// writes; and the snippets themselves with the options (web/widget/embed-control.js), the H5P command the
// studio prints (web/widget/studio.js) and the options of scripts/h5p.mjs that take them.
import { describe, expect, test } from '@jest/globals';
import { embedOptions, optionsFromArgs } from '../../scripts/h5p.mjs';
import { elementSnippet, iframeSnippet } from '../../web/widget/embed-control.js';
import { h5pCommand } from '../../web/widget/studio.js';
import {
  MAX_NAMES,
  optionTexts,
  readAsk,
  readHide,
  readNameList,
  unknownNames,
} from '../../web/widget/studio-options.js';

const SITE = new URL('https://example.org/ag/');

describe('reading hide and ask', () => {
  test('a list of names: spaces and empty items skipped, each name once, in order', () => {
    expect(readNameList(' presets, ll-t ,,presets', 'hide')).toEqual({ names: ['presets', 'll-t'], problems: [] });
    expect(readNameList(null, 'hide')).toEqual({ names: null, problems: [] });
    expect(readNameList('', 'hide')).toEqual({ names: [], problems: [] });
  });

  test('a name that is not one, or too many names, is a problem naming the option; the rest still count', () => {
    const { names, problems } = readNameList('presets,<b>,x y,' + 'a'.repeat(41), 'hide');
    expect(names).toEqual(['presets']);
    expect(problems.map((p) => [p.name, p.value])).toEqual([
      ['hide', '<b>'],
      ['hide', 'x y'],
      ['hide', 'a'.repeat(41)],
    ]);
    expect(problems[0].expected).toMatch(/a name of up to 40 letters, digits/);
    const many = Array.from({ length: MAX_NAMES + 3 }, (_, i) => `g${i}`).join(',');
    const read = readNameList(many, 'ask');
    expect(read.names).toHaveLength(MAX_NAMES);
    expect(read.problems).toEqual([{ name: 'ask', value: '3 more names', expected: `at most ${MAX_NAMES} names` }]);
  });

  test('hide: [] when not given; ask: null (every prediction) when not given, [] for none', () => {
    expect(readHide(null)).toEqual({ hide: [], problems: [] });
    expect(readHide('seed,train').hide).toEqual(['seed', 'train']);
    expect(readAsk(null)).toEqual({ ask: null, problems: [] });
    expect(readAsk('none')).toEqual({ ask: [], problems: [] });
    // Empty: asks none, as "none" does, with a note (a slip more likely than a choice).
    expect(readAsk(' ')).toEqual({
      ask: [],
      problems: [{ name: 'ask', value: '', expected: '"none" or the ids of predictions (an empty ask asks none)' }],
    });
    expect(readAsk('a,b')).toEqual({ ask: ['a', 'b'], problems: [] });
    const both = readAsk('none,a');
    expect(both.ask).toEqual(['a']);
    expect(both.problems).toEqual([
      { name: 'ask', value: 'none', expected: 'either "none" or the ids of predictions, not both' },
    ]);
  });

  test('names the widget does not have are problems that list the names it has', () => {
    expect(unknownNames(['presets', 'nope'], ['presets', 'll-t'], 'hide')).toEqual([
      { name: 'hide', value: 'nope', expected: 'a control group of this widget (it has: presets, ll-t)' },
    ]);
    expect(unknownNames(['x'], [], 'ask')).toEqual([
      { name: 'ask', value: 'x', expected: 'a prediction of this widget (it has: none)' },
    ]);
  });
});

describe('what a snippet writes', () => {
  test('hide only when a group is hidden; ask only when a prediction is not asked ("none" for none)', () => {
    expect(optionTexts({ hide: [], asked: ['p'], predictions: ['p'] })).toEqual({});
    expect(optionTexts({ hide: ['presets', 'seed'], asked: null, predictions: ['p'] })).toEqual({
      hide: 'presets,seed',
    });
    expect(optionTexts({ asked: [], predictions: ['p'] })).toEqual({ ask: 'none' });
    expect(optionTexts({ asked: ['p'], predictions: ['p', 'q'] })).toEqual({ ask: 'p' });
    expect(optionTexts({ asked: [], predictions: [] })).toEqual({});
  });

  test('the iframe gets hide= and ask= (commas kept), the element the attributes, both escaped', () => {
    const options = { hide: 'presets,ll-t', ask: 'none' };
    const chapter = { id: 'length', title: 'Length as a lever' };
    const frame = iframeSnippet({
      tag: 'ag-length-lever',
      title: 'x',
      stateText: 'v=1&t=2',
      chapter,
      height: 500,
      site: SITE,
      options,
    });
    expect(frame).toContain(
      'src="https://example.org/ag/embed.html?ch=length&amp;s=v%3D1%26t%3D2&amp;hide=presets,ll-t&amp;ask=none"',
    );
    expect(elementSnippet({ tag: 'ag-length-lever', stateText: 'v=1&t=2', site: SITE, options })).toBe(
      '<script type="module" src="https://example.org/ag/widgets.js"></script>\n' +
        '<ag-length-lever state="v=1&amp;t=2" hide="presets,ll-t" ask="none"></ag-length-lever>',
    );
    expect(elementSnippet({ tag: 'ag-x', stateText: 'v=1', site: SITE })).toBe(
      '<script type="module" src="https://example.org/ag/widgets.js"></script>\n<ag-x state="v=1"></ag-x>',
    );
  });

  test('the H5P command carries the state in quotes and the options given', () => {
    expect(
      h5pCommand({ chapter: { id: 'length' }, stateText: 'v=1&t=2', options: { hide: 'll-t', ask: 'none' } }),
    ).toBe("npm run h5p -- --chapter length --state 'v=1&t=2' --hide ll-t --ask none");
    expect(h5pCommand({ chapter: { id: 'atom' }, stateText: 'v=1', options: {} })).toBe(
      "npm run h5p -- --chapter atom --state 'v=1'",
    );
  });
});

describe('scripts/h5p.mjs takes them', () => {
  test('--hide and --ask on the command line, as content.json keeps them', () => {
    expect(optionsFromArgs(['--chapter', 'length', '--hide', 'll-t,presets', '--ask=none'])).toEqual({
      chapter: 'length',
      hide: 'll-t,presets',
      ask: 'none',
    });
    expect(embedOptions({})).toEqual({ hide: '', ask: '' });
    expect(embedOptions({ hide: ' ll-t, presets ', ask: 'none' })).toEqual({ hide: 'll-t,presets', ask: 'none' });
    expect(embedOptions({ ask: 'triple-length' })).toEqual({ hide: '', ask: 'triple-length' });
  });

  test('a name that is not one is a RangeError naming the option', () => {
    expect(() => embedOptions({ hide: 'a b' })).toThrow(RangeError);
    expect(() => embedOptions({ hide: 'a b' })).toThrow(/--hide: a b: expected a name of up to 40 letters/);
    expect(() => embedOptions({ ask: 'none,x' })).toThrow(/--ask: none: expected either "none" or the ids/);
  });
});
