// docs/sizes.md, the size table of the package (written by `npm run size`,
// scripts/size-report.mjs): it has a row for every code file the built
// package ships in dist/ and no row for a file it does not ship. The widgets'
// chunks are left out on both sides: named by the hash of their contents,
// their names change with any change to the widgets, and the table gives the
// sizes of one build. The sizes themselves are not compared either.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CODE = /\.(wasm|js|mjs|cjs)$/;
const CHUNK = /^dist\/widgets\/chunk-[A-Z0-9]+\.js$/;

/** Every file under `dir`, as a path relative to the repository with / separators. */
function filesUnder(dir) {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(ROOT, join(entry.parentPath ?? entry.path, entry.name))
        .split('\\')
        .join('/'),
    );
}

/** The files named in the first column of the table between the size-report markers. */
function rowsOfSizesDoc() {
  const text = readFileSync(join(ROOT, 'docs/sizes.md'), 'utf8');
  const table = text.slice(text.indexOf('<!-- size-report:start -->'), text.indexOf('<!-- size-report:end -->'));
  return [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
}

test('docs/sizes.md has a row for every code file of dist/ (hashed widget chunks aside), and no other (after adding one: npm run size)', () => {
  const shipped = filesUnder('dist')
    .filter((path) => CODE.test(path) && !CHUNK.test(path))
    .sort();
  const rows = rowsOfSizesDoc().filter((path) => !CHUNK.test(path));
  expect(shipped).toContain('dist/widgets-node.js');
  expect(rows).toEqual(shipped);
});
