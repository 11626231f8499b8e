// Builds a SCORM 1.2 package from the static site build/site/ (run
// `node scripts/build.mjs` first; `npm run scorm` does both), deterministic
// (sorted entries and a fixed modification time, so two builds give the same
// bytes), with imsmanifest.xml at the root (one organization, one item, one
// SCO resource that lists every file). Two kinds:
//   the whole course, build/attention-geometry-scorm12.zip: every file of the
//     site, the launch page index.html the site's page with the SCORM adapter
//     (scorm.js) added;
//   one chapter (--chapter), build/attention-geometry-<id>-scorm12.zip: the
//     launch page index.html is embed.html showing that chapter, with the
//     studio's start state, hidden control groups and asked predictions
//     (--state, --hide, --ask: web/widget/studio-options.js, as the embed
//     and the H5P command read them) and the adapter; the site's files but
//     the course's own pages.
//   node scripts/scorm.mjs [--completion used|visited] [--min-minutes N] [--score predictions|none]
//   node scripts/scorm.mjs --chapter <id> [--state <text>] [--hide <groups>] [--ask <ids>|none]
//                          [--completion asked|used] [--min-minutes N] [--score predictions|none] [--out <file>]
// (--ch is --chapter; --name=value works too; --help prints the usage.) `npm run scorm` passes --build first:
// the options are checked, then scripts/setup.sh and scripts/build.mjs run (scripts/prepare-site.mjs). The policy options set what the package reports
// (web/scorm/policy.js): by default the course completes once every chapter's widget was used and a
// chapter once every prediction it asks was answered, with no time floor, and the score is the share
// of predictions right at the first answer. `npm run scorm -- --chapter length` passes them through npm.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLBuilder } from 'fast-xml-parser';
import { sortedZip } from './zip.mjs';
import { withoutFullPage } from './embed-without-full-page.mjs';
import { buildFlag, prepareSite } from './prepare-site.mjs';
import { askedIds, chapterOf, embedOptions, readArgs, usageText } from './chapter-options.mjs';
import { checkPolicy, DEFAULT_POLICY, POLICY_META, policyText } from '../web/scorm/policy.js';
import { LAUNCH_META } from '../web/shell/embed-params.js';
import { embedQuery, escapeAttribute } from '../web/widget/embed-control.js';
import { ASK_NONE } from '../web/widget/studio-options.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_SITE = join(root, 'build/site');
export const DEFAULT_OUT = join(root, 'build/attention-geometry-scorm12.zip');

export const TITLE = 'Attention Geometry';
export const LAUNCH = 'index.html';
export const MANIFEST = 'imsmanifest.xml';
/** The tag the launch page gets: the adapter, after the page shell's own module. */
export const ADAPTER_TAG = '<script type="module" src="scorm.js"></script>';
/**
 * With it, the widgets' Embed control shows a short text instead of snippets:
 * inside an LMS the page's addresses point into the package's folder, which
 * no other page can load from.
 */
export const EMBED_OFF_META = '<meta name="attention-geometry-embed" content="off">';

/** Every file under `dir`, as sorted '/'-separated relative paths. */
function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** The meta element that carries the author's policy to the launch page. */
export const policyMeta = (policy, scope = 'course') =>
  `<meta name="${POLICY_META}" content="${policyText(policy, scope)}">`;

/** The options of the command line, and what each takes. */
export const USAGE = {
  chapter: '<id>',
  ch: '<id>',
  state: '<text>',
  hide: '<groups>',
  ask: '<ids>|none',
  completion: 'used|visited (one chapter: asked|used)',
  'min-minutes': '<N>',
  score: 'predictions|none',
  out: '<file>',
};
/** The option of each policy setting, for the errors of checkPolicy. */
const OPTION_OF = { completion: '--completion', minMinutes: '--min-minutes', score: '--score' };

/**
 * The package the command line asks for: { chapter (a record of web/chapters.js, null for the whole course),
 * state, hide, ask (texts; '' when not given), policy, out (undefined: the default file) }. An unknown option,
 * one without a value, an unknown chapter, a name of --hide or --ask that is not a name, a studio option without
 * a chapter or a policy value not allowed for the package is a RangeError that names the option and what it
 * takes.
 */
export function optionsFromArgs(args) {
  const given = readArgs(args, USAGE);
  if (given.help) return { help: true };
  if (given.chapter !== undefined && given.ch !== undefined)
    throw new RangeError('--ch and --chapter are the same option: give one');
  const id = given.chapter ?? given.ch;
  const scope = id === undefined ? 'course' : 'chapter';
  if (scope === 'course')
    for (const name of ['state', 'hide', 'ask'])
      if (given[name] !== undefined)
        throw new RangeError(`--${name}: only with --chapter <id> (the whole course takes no studio options)`);
  const settings = {};
  if (given.completion !== undefined) settings.completion = given.completion;
  if (given.score !== undefined) settings.score = given.score;
  if (given['min-minutes'] !== undefined) {
    const text = given['min-minutes'];
    settings.minMinutes = /^\d+$/.test(text) ? Number(text) : text;
  }
  let policy;
  try {
    policy = checkPolicy(settings, scope);
  } catch (err) {
    throw new RangeError(
      err.message.replace(/^SCORM (\w+):/, (m, key) => `${OPTION_OF[key] ?? m}:`),
      {
        cause: err,
      },
    );
  }
  const chapter = id === undefined ? null : chapterOf(id, given.chapter !== undefined ? '--chapter' : '--ch');
  return {
    chapter,
    state: given.state ?? '',
    ...embedOptions({ hide: given.hide ?? '', ask: given.ask }, chapter?.id),
    policy,
    out: given.out,
  };
}

/**
 * `html` with `tags` inserted just before its one </head>, indented like the tags above it. The page must have
 * exactly one </head> and load the module `shell` (whose progress the adapter reads), and must not load the
 * adapter already; `name` names the page in the errors.
 */
function withTags(html, tags, { shell, name }) {
  const closes = html.match(/<\/head\s*>/gi) ?? [];
  if (closes.length !== 1) throw new Error(`the site's ${name} should have one </head>, found ${closes.length}`);
  if (!html.includes(`<script type="module" src="${shell}"></script>`))
    throw new Error(`the site's ${name} does not load ${shell}`);
  if (html.includes('src="scorm.js"')) throw new Error(`the site's ${name} already loads scorm.js`);
  const at = html.search(/<\/head\s*>/i);
  const lineStart = html.lastIndexOf('\n', at) + 1;
  // </head> on its own line: each tag goes on a line of its own, indented like the head's children.
  if (html.slice(lineStart, at).trim() === '')
    return `${html.slice(0, lineStart)}${tags.map((t) => `  ${t}\n`).join('')}${html.slice(lineStart)}`;
  return `${html.slice(0, at)}${tags.join('')}${html.slice(at)}`;
}

/**
 * The launch page of the whole course: the site's page with the embed-off meta, the policy meta and the
 * adapter's script tag inserted just before </head>. The page must load app.js (the adapter reads the shell's
 * progress).
 */
export const launchPage = (html, policy = DEFAULT_POLICY) =>
  withTags(html, [EMBED_OFF_META, policyMeta(policy), ADAPTER_TAG], { shell: 'app.js', name: LAUNCH });

/** The meta that gives embed.html its address in a one-chapter package (web/shell/embed-params.js). */
export const launchMeta = ({ chapter, state = '', hide = '', ask = '' }) => {
  const options = { hide: hide || undefined, ask: ask || undefined };
  const query = embedQuery({ tag: chapter.tag, stateText: state || null, chapter, options });
  return `<meta name="${LAUNCH_META}" content="${escapeAttribute(query)}">`;
};

/**
 * The launch page of a one-chapter package: the site's embed.html (which must load embed.js) titled with the
 * chapter, with the embed-off, launch and policy metas and the adapter's script tag, and without its full page
 * (the package holds none: the full-page-off meta, the link hidden, the note for an embed.js that did not load
 * naming no full page).
 */
export function chapterLaunchPage(html, { chapter, state = '', hide = '', ask = '', policy }) {
  const titled = html.replace(
    /<title>[^<]*<\/title>/,
    `<title>${escapeAttribute(`${TITLE}: ${chapter.title}`)}</title>`,
  );
  const tags = [
    EMBED_OFF_META,
    launchMeta({ chapter, state, hide, ask }),
    // With no prediction asked, the page completes once used and sends no score: the meta says what it does.
    policyMeta(askedIds(chapter.id, ask).length ? policy : { ...policy, completion: 'used', score: 'none' }, 'chapter'),
    ADAPTER_TAG,
  ];
  return withoutFullPage(
    withTags(titled, tags, { shell: 'embed.js', name: CHAPTER_PAGE }),
    `the site's ${CHAPTER_PAGE}`,
  );
}

/**
 * The rule of a one-chapter package in words, for its manifest: what completes it and what the score counts,
 * from the policy and the ask option ('' every prediction, 'none', or the ids): with no prediction asked (or none
 * in the chapter, web/chapter-options.json), completed once used, and no score.
 */
export function chapterRule({ chapter, policy, ask = '' }) {
  const none = askedIds(chapter.id, ask).length === 0;
  const which = ask === '' ? 'every prediction of the chapter' : `the predictions ${ask.split(',').join(', ')}`;
  const rule =
    policy.completion === 'asked' && !none
      ? `once the learner has answered ${which}`
      : 'once the learner has used the widget (changed something in it or answered a prediction)';
  const time = policy.minMinutes > 0 ? ` and spent at least ${policy.minMinutes} minutes in it` : '';
  const score =
    policy.score === 'none' || none
      ? 'No score is sent.'
      : 'cmi.core.score.raw (0 to 100) is the share of the predictions asked that were right at the first answer.';
  return `Completed ${rule}${time}. ${score}`;
}

/**
 * imsmanifest.xml for SCORM 1.2: `files` are the package's paths (the manifest itself excluded). With `chapter`
 * (a one-chapter package), its identifier and titles name the chapter, and its metadata (IMS LOM) states `rule`.
 */
export function manifestXml({ files, version, chapter = null, rule = '' }) {
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: true,
    suppressBooleanAttributes: false,
  });
  const title = chapter ? `${TITLE}: ${chapter.title}` : TITLE;
  const langstring = (text) => ({ 'imsmd:langstring': { '@_xml:lang': 'en', '#text': text } });
  const lom = chapter
    ? { 'imsmd:lom': { 'imsmd:general': { 'imsmd:title': langstring(title), 'imsmd:description': langstring(rule) } } }
    : {};
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    manifest: {
      '@_identifier': chapter ? `attention-geometry-${chapter.id}` : 'attention-geometry',
      '@_version': version,
      '@_xmlns': 'http://www.imsproject.org/xsd/imscp_rootv1p1p2',
      '@_xmlns:adlcp': 'http://www.adlnet.org/xsd/adlcp_rootv1p2',
      ...(chapter ? { '@_xmlns:imsmd': 'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1' } : {}),
      '@_xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      '@_xsi:schemaLocation':
        'http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd',
      metadata: { schema: 'ADL SCORM', schemaversion: '1.2', ...lom },
      organizations: {
        '@_default': 'attention-geometry-org',
        organization: {
          '@_identifier': 'attention-geometry-org',
          title,
          item: {
            '@_identifier': 'attention-geometry-item',
            '@_identifierref': 'attention-geometry-sco',
            '@_isvisible': 'true',
            title,
          },
        },
      },
      resources: {
        resource: {
          '@_identifier': 'attention-geometry-sco',
          '@_type': 'webcontent',
          '@_adlcp:scormtype': 'sco',
          '@_href': LAUNCH,
          file: files.map((f) => ({ '@_href': encodeURI(f) })),
        },
      },
    },
  };
  return builder.build(doc);
}

/** The site's page a one-chapter package's launch page is made from. */
export const CHAPTER_PAGE = 'embed.html';
/** The site's files of the whole course that a one-chapter package leaves out: its pages and their own bundle. */
export const COURSE_ONLY = Object.freeze([
  'index.html',
  'app.js',
  CHAPTER_PAGE,
  'attention-geometry-offline.html',
  'embedding.html',
  'guide.css',
  'style.css',
]);

/** The default file of a package: build/attention-geometry-scorm12.zip, or …-<chapter id>-scorm12.zip. */
export const defaultOut = (chapter = null) =>
  chapter ? join(root, `build/attention-geometry-${chapter.id}-scorm12.zip`) : DEFAULT_OUT;

/**
 * Writes the package. `site`: the built site (build/site); `out`: the zip; `policy`: what it reports (checked
 * for its scope); `chapter` (a record of web/chapters.js; null: the whole course), with `state`, `hide` and
 * `ask` (texts, as optionsFromArgs gives them).
 * @returns {{ out: string, bytes: number, files: string[] }}
 */
export function buildScorm({
  site = DEFAULT_SITE,
  chapter = null,
  out = defaultOut(chapter),
  policy = chapter ? checkPolicy({}, 'chapter') : DEFAULT_POLICY,
  state = '',
  hide = '',
  ask = '',
} = {}) {
  const page = chapter ? CHAPTER_PAGE : LAUNCH;
  if (!existsSync(join(site, page)) || !existsSync(join(site, 'scorm.js'))) {
    throw new Error(
      `no built site with ${page} and scorm.js in ${site}: run \`node scripts/build.mjs\` first (or \`npm run scorm\`, which builds too)`,
    );
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const html = readFileSync(join(site, page), 'utf8');
  const entries = {};
  for (const p of listFiles(site).filter((f) => f !== MANIFEST && !(chapter && COURSE_ONLY.includes(f))))
    entries[p] = readFileSync(join(site, p));
  const launch = chapter ? chapterLaunchPage(html, { chapter, state, hide, ask, policy }) : launchPage(html, policy);
  entries[LAUNCH] = new TextEncoder().encode(launch);
  const files = Object.keys(entries).sort();
  const rule = chapter ? chapterRule({ chapter, policy, ask }) : '';
  entries[MANIFEST] = new TextEncoder().encode(manifestXml({ files, version, chapter, rule }));
  const zip = sortedZip(entries);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, zip);
  return { out, bytes: zip.length, files: Object.keys(entries).sort() };
}

/**
 * What the package reports, in the command's summary: the policy as set, or, with no prediction asked in a
 * chapter, what the launch page does then (completion once used, no score).
 */
export function reportText({ chapter, policy, ask }) {
  if (!chapter) return policyText(policy, 'course');
  const asked = askedIds(chapter.id, ask);
  if (asked.length) return `chapter ${chapter.id}; asks ${ask || 'every prediction'}; ${policyText(policy, 'chapter')}`;
  const why = ask === ASK_NONE ? 'asks none' : 'no prediction in it';
  return `chapter ${chapter.id}; ${why}; completion=used; min-minutes=${policy.minMinutes}; score=none`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { build, args } = buildFlag(process.argv.slice(2));
    const { help, chapter, out, policy, ...options } = optionsFromArgs(args);
    if (help) {
      console.log(usageText('npm run scorm --', USAGE));
      process.exit(0);
    }
    if (build) prepareSite();
    const built = buildScorm({ chapter, policy, ...options, ...(out === undefined ? {} : { out }) });
    console.log(
      `${resolve(built.out)}: ${(built.bytes / 1024).toFixed(1)} KiB, ${built.files.length} files (SCORM 1.2; ${reportText({ chapter, policy, ask: options.ask })})`,
    );
  } catch (err) {
    console.error(`scorm: ${err.message}`);
    process.exit(1);
  }
}
