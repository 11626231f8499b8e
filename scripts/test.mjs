// Runs every test stage in order and prints the time of each:
//   lint     ESLint, Prettier and clang-format, checking only (scripts/lint.mjs)
//   native   GoogleTest on the native SIMDe build under ASan + UBSan (ctest)
//   fuzz     libFuzzer on the native ASan + UBSan build (build preset native-fuzz: only the
//            fuzz targets, linked with the native stage's kernel objects), one target per
//            kernel family: every corpus and regression input replayed, then 500 inputs per
//            target (a fixed amount of work: 0.4-6.5 s of CPU each), new inputs to a
//            temporary folder (scripts/fuzz.mjs)
//   js       Jest: the JS API on both wasm builds (tests/js)
//   browser  Jest + Playwright in Debian's Chromium: the page, its embeds, the offline
//            file and the SCORM package (tests/browser)
//   package  Jest: npm pack, then the tarball in fresh Node, TypeScript, Vite, webpack,
//            esbuild, plain-page and Worker consumers, and a Docusaurus site following
//            EMBEDDING.md (tests/consumers; needs the npm registry)
// `node scripts/test.mjs js browser` runs only the named stages.
// Expects `node scripts/build.mjs` to have run (npm test does both).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPreset } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const jest = join(root, 'node_modules/jest/bin/jest.js');
const jestEnv = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules`.trim() };

const stages = {
  lint: () => run(process.execPath, [join(root, 'scripts/lint.mjs')]),
  native: () => {
    buildPreset('native-asan');
    return run('ctest', ['--preset', 'native-asan', '-j', '2', '--timeout', '300']);
  },
  fuzz: () => run(process.execPath, [join(root, 'scripts/fuzz.mjs'), '--replay', '--runs=500']),
  // Two workers: Jest's default on two cores is one (cores - 1), and the js files are CPU-bound wasm and JS with
  // nothing else running in this stage (measured on a quiet machine: 97 s with one, 67 s with two).
  js: () => run(process.execPath, [jest, '--ci', '--maxWorkers=2', 'tests/js'], jestEnv),
  // Two test files at a time, the chapter contract first (tests/browser/sequencer.mjs), all connected to one
  // Chromium (tests/browser/stage-chromium.mjs: a launch and a close each cost 1-3 s). A page open waits on its
  // requests, its fonts and the wasm compile between bursts of CPU work, so one file leaves the second core
  // partly idle: the whole stage took 1,417 s one file at a time and 1,030 s two at a time, in two runs back to
  // back on the same busy machine (load 5-8), all 340 tests passing in both.
  browser: () => {
    const chromium = '<rootDir>/tests/browser/stage-chromium.mjs';
    const shared = ['--globalSetup', chromium, '--globalTeardown', chromium];
    const order = ['--testSequencer', '<rootDir>/tests/browser/sequencer.mjs'];
    return run(process.execPath, [jest, '--ci', '--maxWorkers=2', ...shared, ...order, 'tests/browser'], jestEnv);
  },
  // One `npm pack` for every file (tests/consumers/stage-tarball.mjs).
  package: () => {
    const tarball = '<rootDir>/tests/consumers/stage-tarball.mjs';
    const shared = ['--globalSetup', tarball, '--globalTeardown', tarball];
    return run(process.execPath, [jest, '--ci', '--runInBand', ...shared, 'tests/consumers'], jestEnv);
  },
};

function run(cmd, args, env = process.env) {
  return spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' }).status === 0;
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(stages);
const results = [];
for (const name of wanted) {
  if (!stages[name]) throw new Error(`unknown stage ${name}; stages: ${Object.keys(stages).join(', ')}`);
  const start = performance.now();
  console.log(`\n=== stage ${name}`);
  let ok;
  try {
    ok = stages[name]();
  } catch (e) {
    console.error(e.message);
    ok = false;
  }
  const seconds = ((performance.now() - start) / 1000).toFixed(1);
  results.push({ name, ok, seconds });
  console.log(`=== stage ${name}: ${ok ? 'passed' : 'FAILED'} in ${seconds} s`);
}
console.log('\nstage times:');
for (const r of results) console.log(`  ${r.name.padEnd(8)} ${r.ok ? 'passed' : 'FAILED'}  ${r.seconds} s`);
const failed = results.filter((r) => !r.ok).length;
console.log(`stages: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
