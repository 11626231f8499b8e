// Third-party notices for what the site ships: every npm package whose code
// esbuild bundled (read from the build's metafile, so the list cannot drift
// from the bundle) plus the files copied as they are (KaTeX's stylesheet and
// fonts). Each entry has the package's name, version, licence identifier and
// the full text of its licence file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const LICENCE_FILE = /^(licen[cs]e|copying)(\.(md|txt))?$/i;

/** The npm package a bundled input path belongs to ('node_modules/d3-array/src/x.js' -> 'd3-array'), or null. */
export function packageOf(inputPath) {
  const parts = inputPath.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length) return null;
  return parts[at + 1].startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1];
}

function readPackage(root, name, note) {
  const dir = join(root, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const licenceFile = readdirSync(dir).find((f) => LICENCE_FILE.test(f));
  if (!licenceFile)
    throw new Error(`notices: ${name} ships no licence file; add its licence text by hand before shipping it`);
  return {
    name,
    version: pkg.version,
    license: pkg.license ?? 'see text',
    note,
    text: readFileSync(join(dir, licenceFile), 'utf8').trim(),
  };
}

/**
 * @param {string} root the repository root
 * @param {object} metafile esbuild's metafile of the site build (metafile: true)
 * @returns {{ name, version, license, note, text }[]} sorted by name
 */
export function collectNotices(root, metafile) {
  // Only inputs that left bytes in some output: esbuild lists every file it
  // parsed, including re-exports that tree shaking dropped.
  const bundled = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      if (name && bytesInOutput > 0) bundled.add(name);
    }
  }
  const entries = [...bundled].map((name) => readPackage(root, name, 'bundled into the JavaScript modules'));
  if (!bundled.has('katex')) entries.push(readPackage(root, 'katex', 'its stylesheet and fonts are shipped'));
  else
    entries.find((e) => e.name === 'katex').note =
      'bundled into the JavaScript modules; its stylesheet and fonts (vendor/katex/) are shipped too';
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

/** The notices as one plain-text file. */
export function noticesText(entries) {
  const head = [
    'Third-party notices for Attention Geometry',
    '',
    'The page and its modules include the following software. Each entry gives the',
    'package, its version, its licence and the full licence text.',
    '',
  ];
  const body = entries.flatMap((e) => [
    '='.repeat(72),
    `${e.name} ${e.version} (${e.license}): ${e.note}`,
    '='.repeat(72),
    '',
    e.text,
    '',
  ]);
  return [...head, ...body].join('\n');
}

/** Whether the site build has the file (used by the offline and SCORM builds). */
export function hasNotices(site) {
  return existsSync(join(site, 'vendor/THIRD_PARTY_NOTICES.txt'));
}
