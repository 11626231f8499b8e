// Run by `npm pack` and `npm publish` (package.json "prepack"): checks, without
// building, that every file package.json points at (main, module, types,
// typesVersions, exports, imports) and both .wasm files are in dist/, so that
// a package is never packed from an unbuilt or half-built checkout.
//   node scripts/check-dist.mjs [package folder]   (default: this repository)
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WASM = [
  'dist/wasm/ag-simd.wasm',
  'dist/wasm/ag-scalar.wasm',
  'dist/widgets/wasm/ag-simd.wasm',
  'dist/widgets/wasm/ag-scalar.wasm',
];

/** Every relative file path inside a package.json value (strings, nested conditions, arrays). */
function targets(value, out = []) {
  if (typeof value === 'string') {
    if (value.startsWith('./')) out.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) targets(v, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) targets(v, out);
  }
  return out;
}

/** The files package.json names and the .wasm files that are missing from `root`. */
export function missingFiles(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const named = targets([pkg.main, pkg.module, pkg.types, pkg.typesVersions, pkg.exports, pkg.imports]).filter(
    (p) => !p.includes('*'),
  );
  const wanted = [...new Set([...named.map((p) => p.slice(2)), ...WASM])];
  return wanted.filter((file) => !existsSync(join(root, file)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '../..'));
  const missing = missingFiles(root);
  if (missing.length > 0) {
    console.error(
      `dist/ is missing or incomplete: run npm run build first (missing: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? `, and ${missing.length - 5} more` : ''})`,
    );
    process.exit(1);
  }
}
