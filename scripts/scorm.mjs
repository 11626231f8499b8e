// Builds the SCORM 1.2 package build/attention-geometry-scorm12.zip from the
// static site build/site/ (run `node scripts/build.mjs` first; `npm run
// scorm` does both): every file of the site, a launch page index.html that is
// the site's page with the SCORM adapter (scorm.js) added, and
// imsmanifest.xml at the root (one organization, one item, one SCO resource
// that lists every file). The zip is deterministic: sorted entries and a
// fixed modification time, so two builds give the same bytes.
//   node scripts/scorm.mjs [--completion=used|visited] [--min-minutes=N] [--score=predictions|none]
// The options set what the package reports (web/scorm/policy.js): by default
// the course completes once every chapter's widget was used, with no time
// floor, and the score is the share of predictions right at the first answer.
// `npm run scorm -- --completion=visited` passes them through npm.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLBuilder } from 'fast-xml-parser';
import { sortedZip } from './zip.mjs';
import { checkPolicy, DEFAULT_POLICY, POLICY_META, policyText } from '../web/scorm/policy.js';

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
export const policyMeta = (policy) => `<meta name="${POLICY_META}" content="${policyText(policy)}">`;

/**
 * The policy of the command line: --completion=used|visited, --min-minutes=N,
 * --score=predictions|none. Throws a RangeError naming an unknown or bad option.
 */
export function policyFromArgs(args) {
  const given = {};
  for (const arg of args) {
    const m = /^--(completion|min-minutes|score)=(.*)$/.exec(arg);
    if (!m)
      throw new RangeError(
        `unknown option ${arg}: use --completion=used|visited, --min-minutes=N, --score=predictions|none`,
      );
    if (m[1] === 'min-minutes') given.minMinutes = /^\d+$/.test(m[2]) ? Number(m[2]) : m[2];
    else given[m[1]] = m[2];
  }
  return checkPolicy(given);
}

/**
 * The launch page: the site's page with the embed-off meta, the policy meta and the adapter's
 * script tag inserted just before </head>, indented like the tags above it. The page must have
 * exactly one </head> and load app.js (the adapter reads the shell's
 * progress), and must not load the adapter already.
 */
export function launchPage(html, policy = DEFAULT_POLICY) {
  const closes = html.match(/<\/head\s*>/gi) ?? [];
  if (closes.length !== 1) throw new Error(`the site's ${LAUNCH} should have one </head>, found ${closes.length}`);
  if (!/<script type="module" src="app\.js"><\/script>/.test(html))
    throw new Error(`the site's ${LAUNCH} does not load app.js`);
  if (html.includes('src="scorm.js"')) throw new Error(`the site's ${LAUNCH} already loads scorm.js`);
  const at = html.search(/<\/head\s*>/i);
  const lineStart = html.lastIndexOf('\n', at) + 1;
  // </head> on its own line: the tag goes on a line of its own, indented like the head's children.
  if (html.slice(lineStart, at).trim() === '')
    return `${html.slice(0, lineStart)}  ${EMBED_OFF_META}\n  ${policyMeta(policy)}\n  ${ADAPTER_TAG}\n${html.slice(lineStart)}`;
  return `${html.slice(0, at)}${EMBED_OFF_META}${policyMeta(policy)}${ADAPTER_TAG}${html.slice(at)}`;
}

/** imsmanifest.xml for SCORM 1.2: `files` are the package's paths (the manifest itself excluded). */
export function manifestXml({ files, version }) {
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: true,
    suppressBooleanAttributes: false,
  });
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    manifest: {
      '@_identifier': 'attention-geometry',
      '@_version': version,
      '@_xmlns': 'http://www.imsproject.org/xsd/imscp_rootv1p1p2',
      '@_xmlns:adlcp': 'http://www.adlnet.org/xsd/adlcp_rootv1p2',
      '@_xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      '@_xsi:schemaLocation':
        'http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd',
      metadata: { schema: 'ADL SCORM', schemaversion: '1.2' },
      organizations: {
        '@_default': 'attention-geometry-org',
        organization: {
          '@_identifier': 'attention-geometry-org',
          title: TITLE,
          item: {
            '@_identifier': 'attention-geometry-item',
            '@_identifierref': 'attention-geometry-sco',
            '@_isvisible': 'true',
            title: TITLE,
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

/**
 * Writes the package. `site`: the built site (build/site); `out`: the zip.
 * @returns {{ out: string, bytes: number, files: string[] }}
 */
export function buildScorm({ site = DEFAULT_SITE, out = DEFAULT_OUT, policy = DEFAULT_POLICY } = {}) {
  if (!existsSync(join(site, LAUNCH)) || !existsSync(join(site, 'scorm.js'))) {
    throw new Error(
      `no built site with ${LAUNCH} and scorm.js in ${site}: run \`node scripts/build.mjs\` first (or \`npm run scorm\`, which builds too)`,
    );
  }
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const paths = listFiles(site).filter((p) => p !== MANIFEST);
  const entries = {};
  for (const p of paths) entries[p] = readFileSync(join(site, p));
  entries[LAUNCH] = new TextEncoder().encode(launchPage(readFileSync(join(site, LAUNCH), 'utf8'), policy));
  entries[MANIFEST] = new TextEncoder().encode(manifestXml({ files: paths, version }));
  const zip = sortedZip(entries);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, zip);
  return { out, bytes: zip.length, files: Object.keys(entries).sort() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const policy = policyFromArgs(process.argv.slice(2));
    const { out, bytes, files } = buildScorm({ policy });
    console.log(
      `${relative(process.cwd(), out) || out}: ${(bytes / 1024).toFixed(1)} KiB, ${files.length} files (SCORM 1.2; ${policyText(policy)})`,
    );
  } catch (err) {
    console.error(`scorm: ${err.message}`);
    process.exit(1);
  }
}
