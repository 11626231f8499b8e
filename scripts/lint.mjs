// Checks the project's code style and common mistakes, and changes nothing:
//   ESLint    every JS module (eslint.config.mjs: correctness rules)
//   Prettier  the layout of JS and CSS (HTML is left as written: scripts read it) (.prettierrc.json, .prettierignore)
//   clang-format  the layout of the C++ sources (.clang-format), as a dry run
// `npm run lint` runs it; `npm test` runs it first. `node scripts/lint.mjs --fix`
// rewrites the files instead (eslint --fix, prettier --write, clang-format -i).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fix = process.argv.includes('--fix');
const bin = (name) => join(root, 'node_modules/.bin', name);

/** The C++ files under the folders that hold our C++ (src/, tests/cpp, tests/fuzz). */
function cppFiles() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(cc|h)$/.test(e.name)) out.push(relative(root, p));
    }
  };
  for (const dir of ['src', 'tests/cpp', 'tests/fuzz']) walk(join(root, dir));
  return out.sort();
}

const checks = [
  ['eslint', bin('eslint'), fix ? ['--fix', '.'] : ['.']],
  ['prettier', bin('prettier'), [fix ? '--write' : '--check', '--log-level=warn', '**/*.{js,mjs,cjs,ts,css}']],
  ['clang-format', 'clang-format', fix ? ['-i', ...cppFiles()] : ['--dry-run', '--Werror', ...cppFiles()]],
];

let failed = 0;
for (const [name, cmd, args] of checks) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  const ok = r.status === 0;
  if (!ok) failed++;
  if (r.error) console.error(`lint: ${name} could not run: ${r.error.message} (npm run setup installs it)`);
  console.log(`lint: ${name} ${ok ? 'passed' : 'FAILED'}`);
}
if (failed && !fix) console.log('lint: `node scripts/lint.mjs --fix` rewrites what the formatters own');
process.exit(failed ? 1 : 0);
