// The size report of the npm package as a Markdown table: the packed tarball
// (what `npm install` downloads) and every .wasm and JavaScript file in it,
// raw and gzipped (level 9, as a server or CDN would send it). Written into
// docs/sizes.md, between its size-report markers, and printed. Needs the
// built dist/ (npm run build).
//   node scripts/size-report.mjs            (or: npm run size) writes and prints
//   node scripts/size-report.mjs --stdout   only prints
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** What each shipped code file is for, by its path in the package. */
function role(path) {
  if (path.startsWith('dist/widgets/'))
    return path.endsWith('.wasm') ? "WebAssembly module (the widgets' copy)" : 'widgets bundle';
  if (path.endsWith('-inline.mjs')) return 'glue with the .wasm inside (inline entry)';
  if (path.endsWith('.wasm')) return 'WebAssembly module';
  if (path.startsWith('dist/wasm/')) return 'Emscripten glue';
  if (path.endsWith('widgets-require.cjs')) return 'require() stub: throws, the widgets are an ES module';
  if (path.endsWith('widgets-node.js')) return 'Node stub of the widgets: throws, they need a DOM';
  if (path.endsWith('.cjs')) return 'CommonJS build (require)';
  return 'ES module';
}

export function sizeReport() {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  )[0];
  const rows = filesUnder(join(root, 'dist'))
    .map((path) => relative(root, path))
    .filter((path) => /\.(wasm|js|mjs|cjs)$/.test(path))
    .sort()
    .map((path) => {
      const bytes = readFileSync(join(root, path));
      return `| \`${path}\` | ${role(path)} | ${kib(bytes.length)} | ${kib(gzipSync(bytes, { level: 9 }).length)} |`;
    });
  return [
    `Packed package \`${packed.filename}\`: ${kib(packed.size)} to download, ${kib(packed.unpackedSize)} unpacked, ${packed.entryCount} files.`,
    '',
    '| file | what | raw | gzip -9 |',
    '| --- | --- | ---: | ---: |',
    ...rows,
  ].join('\n');
}

export const SIZES_FILE = 'docs/sizes.md';
const START = '<!-- size-report:start -->';
const END = '<!-- size-report:end -->';

/** `text` (the Markdown of a docs file) with the part between the markers replaced by `report`. */
export function withReport(text, report) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${SIZES_FILE}: the markers ${START} and ${END} are missing`);
  return `${text.slice(0, start + START.length)}\n${report}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== '--stdout');
  if (unknown.length) throw new Error(`size-report: unknown argument ${unknown[0]}; use --stdout to print only`);
  const report = sizeReport();
  if (!args.includes('--stdout')) {
    const file = join(root, SIZES_FILE);
    writeFileSync(file, withReport(readFileSync(file, 'utf8'), report));
    console.error(`size-report: wrote ${SIZES_FILE}`);
  }
  console.log(report);
}
