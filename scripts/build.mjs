// Builds what is stale: the two wasm modules (CMake presets wasm-simd and
// wasm-scalar; CMake itself skips up-to-date targets), the package folder
// dist/ (the JS API from src/js next to dist/wasm), and the static site
// build/site/ (web/ plus the package under lib/), which `npm start` serves.
//   node scripts/build.mjs            all of the above
//   node scripts/build.mjs --native   also the native ASan/UBSan test build
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
const jobs = ['-j', '2'];

function run(cmd, args) {
  execFileSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

export function buildPreset(preset) {
  if (!existsSync(join(root, 'build', preset, 'CMakeCache.txt'))) {
    run('cmake', ['--preset', preset, '--log-level=WARNING']);
  }
  run('cmake', ['--build', '--preset', preset, ...jobs, '--', '--no-print-directory', '-s']);
}

export function buildPackage() {
  buildPreset('wasm-simd');
  buildPreset('wasm-scalar');
  cpSync(join(root, 'src/js'), join(root, 'dist'), { recursive: true });
}

export function buildSite() {
  const site = join(root, 'build/site');
  rmSync(site, { recursive: true, force: true });
  mkdirSync(site, { recursive: true });
  cpSync(join(root, 'web'), site, { recursive: true });
  cpSync(join(root, 'dist'), join(site, 'lib'), { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  buildPackage();
  buildSite();
  if (process.argv.includes('--native')) buildPreset('native-asan');
}
