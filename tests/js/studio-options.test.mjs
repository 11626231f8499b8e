// The studio's embed options (web/widget/studio-options.js), read without a browser: the hide and ask lists
// (names, repeats, bad names, too many, "none"), the names a widget does not have, the texts a snippet
// writes; and the snippets themselves with the options (web/widget/embed-control.js), the H5P and SCORM
// commands the studio prints (web/widget/studio.js) and the options of scripts/h5p.mjs and scripts/scorm.mjs
// that take them.
import { describe, expect, test } from '@jest/globals';
import { embedOptions, optionsFromArgs } from '../../scripts/h5p.mjs';
import { elementSnippet, iframeSnippet } from '../../web/widget/embed-control.js';
import { optionsFromArgs as scormOptions } from '../../scripts/scorm.mjs';
import { h5pCommand, scormCommand } from '../../web/widget/studio.js';
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
    expect(
      scormCommand({ chapter: { id: 'length' }, stateText: 'v=1&t=2', options: { hide: 'll-t', ask: 'none' } }),
    ).toBe("npm run scorm -- --chapter length --state 'v=1&t=2' --hide ll-t --ask none");
  });
});

describe('scripts/scorm.mjs takes them', () => {
  test('the studio\u2019s command, read back: the chapter, its state and both options', () => {
    const args = ['--chapter', 'length', '--state', 'v=1&t=2', '--hide', 'll-t', '--ask', 'none'];
    const read = scormOptions(args);
    expect([read.chapter.id, read.state, read.hide, read.ask]).toEqual(['length', 'v=1&t=2', 'll-t', 'none']);
    // --ch is --chapter, and --name=value works as for the H5P command.
    expect(scormOptions(['--ch=length', '--ask=triple-length']).chapter.id).toBe('length');
    expect(scormOptions(['--ch=length', '--ask=triple-length']).ask).toBe('triple-length');
  });

  test('bad options are RangeErrors naming the option and what it takes', () => {
    expect(() => scormOptions(['--chapter', 'lenght'])).toThrow(
      /--chapter: no chapter "lenght" with a widget; known: atom,/,
    );
    expect(() => scormOptions(['--ch', 'lenght'])).toThrow(/^--ch: no chapter "lenght"/);
    expect(() => scormOptions(['--ch', 'length', '--hide', 'a b'])).toThrow(/--hide: a b: expected a name of up to 40/);
    expect(() => scormOptions(['--ch', 'length', '--ask', 'none,x'])).toThrow(/--ask: none: expected either "none"/);
    expect(() => scormOptions(['--hide', 'presets'])).toThrow(/--hide: only with --chapter <id>/);
    expect(() => scormOptions(['--ch', 'length', '--chapter', 'atom'])).toThrow(
      /--ch and --chapter are the same option/,
    );
    expect(() => scormOptions(['--ch', 'length', '--state'])).toThrow(/--state needs a value/);
    expect(() => scormOptions(['--chapters', 'length'])).toThrow(
      /unknown option --chapters: use --chapter <id>, --ch <id>,/,
    );
  });

  test('a name the chapter does not have is refused, naming the option, the name and the names it has', () => {
    expect(() => scormOptions(['--ch', 'length', '--ask', 'nope'])).toThrow(
      /^--ask: no prediction "nope" in chapter length; its predictions: triple-length$/,
    );
    expect(() => scormOptions(['--ch', 'length', '--hide', 'presets,seed'])).toThrow(
      /^--hide: no control group "seed" in chapter length; its control groups: presets, ll-t$/,
    );
    expect(() => scormOptions(['--ch', 'atom', '--hide', 'presets'])).toThrow(/its control groups: none$/);
  });

  test('an option followed by another option has no value; an empty --ask asks none', () => {
    expect(() => scormOptions(['--ch', 'length', '--state', '--score=none'])).toThrow(/^--state needs a value$/);
    expect(() => scormOptions(['--chapter', '--out', 'x.zip'])).toThrow(/^--chapter needs a value$/);
    // As embed.html reads ask= (with a note there): nothing is asked.
    expect(scormOptions(['--ch', 'length', '--ask', '']).ask).toBe('none');
    expect(scormOptions(['--ch', 'length', '--ask=']).ask).toBe('none');
    expect(scormOptions(['--ch', 'length']).ask).toBe('');
    expect(scormOptions(['--help'])).toEqual({ help: true });
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

  test('names the chapter does not have, an option as a value and an empty --ask, as for the SCORM command', () => {
    expect(() => optionsFromArgs(['--chapter', 'length', '--hide', 'nope'])).toThrow(
      /^--hide: no control group "nope" in chapter length; its control groups: presets, ll-t$/,
    );
    expect(() => optionsFromArgs(['--chapter', 'length', '--ask', 'nope'])).toThrow(
      /^--ask: no prediction "nope" in chapter length; its predictions: triple-length$/,
    );
    expect(() => optionsFromArgs(['--state', '--chapter', 'length'])).toThrow(/^--state needs a value$/);
    expect(optionsFromArgs(['--chapter', 'length', '--ask', ''])).toEqual({ chapter: 'length', ask: 'none' });
    expect(optionsFromArgs(['-h'])).toEqual({ help: true });
  });
});
