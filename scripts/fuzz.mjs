// Runs the libFuzzer targets of tests/fuzz: one per kernel family, built by
// the CMake build preset native-fuzz (clang, ASan + UBSan, both kernel variants)
// in build/native-asan/fuzz/, from the kernel objects the GoogleTest binary links.
//   node scripts/fuzz.mjs --replay       every file of tests/fuzz/corpus/*/ and tests/fuzz/regressions/*/
//                                        through every target; fails on any crash or property failure
//   node scripts/fuzz.mjs --seconds=10   each target fuzzes 10 s in turn (one process at a time), starting
//                                        from its corpus; new inputs go to a temporary folder
//   node scripts/fuzz.mjs --runs=500     the same, but each target runs 500 inputs in all (its corpus
//                                        first): the same work on a quiet or a busy machine; the seed
//                                        is printed (libFuzzer's -seed= repeats the run)
//   npm run fuzz                         600 s per target (--seconds= overrides); new inputs that add
//                                        coverage are merged into tests/fuzz/corpus/<family>/, a crash input
//                                        is kept in tests/fuzz/regressions/<family>/
// Options: --keep / --no-keep (keep new inputs in the repository or not; the
// default keeps them only under `npm run fuzz`), --only=vector,softmax (some
// families), --no-build. --replay and --seconds (or --runs) may be given together
// (replay first). The preset is built first; CMake skips what is up to date.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPreset } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fuzzDir = join(root, 'tests/fuzz');
const binDir = join(root, 'build/native-asan/fuzz');
export const FAMILIES = [
  'vector',
  'matrix',
  'softmax',
  'attention',
  'dot_density',
  'random',
  'checks',
  'layers',
  'transformer',
];

const env = {
  ...process.env,
  ASAN_OPTIONS: process.env.ASAN_OPTIONS ?? 'detect_leaks=1:allocator_may_return_null=0',
  UBSAN_OPTIONS: process.env.UBSAN_OPTIONS ?? 'print_stacktrace=1:halt_on_error=1',
};

function parseArgs(argv) {
  const opts = {
    replay: false,
    seconds: null,
    runs: null,
    keep: process.env.npm_lifecycle_event === 'fuzz',
    only: FAMILIES,
    build: true,
  };
  for (const arg of argv) {
    if (arg === '--replay') opts.replay = true;
    else if (arg === '--keep') opts.keep = true;
    else if (arg === '--no-keep') opts.keep = false;
    else if (arg === '--no-build') opts.build = false;
    else if (arg.startsWith('--seconds=') || arg.startsWith('--runs=')) {
      const [name, text] = arg.slice(2).split('=');
      opts[name] = Number(text);
      if (!Number.isInteger(opts[name]) || opts[name] < 1)
        throw new Error(`--${name} needs a whole number >= 1; got ${arg}`);
    } else if (arg.startsWith('--only=')) {
      opts.only = arg.slice('--only='.length).split(',');
      const unknown = opts.only.filter((f) => !FAMILIES.includes(f));
      if (unknown.length)
        throw new Error(
          `unknown famil${unknown.length > 1 ? 'ies' : 'y'} ${unknown.join(', ')}; families: ${FAMILIES.join(', ')}`,
        );
    } else throw new Error(`unknown argument ${arg}; see the top of scripts/fuzz.mjs`);
  }
  if (opts.seconds !== null && opts.runs !== null) throw new Error('give --seconds=N or --runs=N, not both');
  if (!opts.replay && opts.seconds === null && opts.runs === null)
    throw new Error('nothing to do: give --replay and/or --seconds=N (or --runs=N)');
  return opts;
}

/** The regular files of a folder (none if it does not exist), dot files left out. */
function filesIn(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.') && name !== 'README.md')
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

/** Runs a target with its output in a log file; returns { ok, log, seconds }. */
function runTarget(family, args, logFile) {
  const fd = openSync(logFile, 'w');
  const start = performance.now();
  const result = spawnSync(join(binDir, `${family}_fuzz`), args, { cwd: root, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const seconds = (performance.now() - start) / 1000;
  if (result.error) throw result.error;
  return { ok: result.status === 0, log: readFileSync(logFile, 'utf8'), seconds };
}

function tail(text, lines = 60) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

// Runs the inputs through a target; a target stops at the first input that
// fails, so it runs again from the next one. Returns the inputs that failed.
function replayTarget(family, inputs, scratch) {
  const failed = [];
  let rest = inputs;
  for (let round = 0; rest.length > 0; round++) {
    const r = runTarget(family, rest, join(scratch, `replay-${family}-${round}.log`));
    if (r.ok) break;
    const running = [...r.log.matchAll(/^Running: (.+)$/gm)].map((m) => m[1]);
    const bad = running.at(-1);
    const at = rest.indexOf(bad);
    if (at < 0) {
      // Failed before running any input: report the log as it is.
      failed.push({ file: '(start-up)', log: r.log });
      break;
    }
    failed.push({ file: bad, log: r.log });
    rest = rest.slice(at + 1);
  }
  return failed;
}

function replay(families, scratch) {
  const inputs = [];
  for (const kind of ['corpus', 'regressions']) {
    for (const family of FAMILIES) inputs.push(...filesIn(join(fuzzDir, kind, family)));
  }
  if (inputs.length === 0) {
    // With no file arguments a target would fuzz instead of replaying.
    console.log('fuzz replay: no inputs in tests/fuzz/corpus or tests/fuzz/regressions');
    return true;
  }
  let ok = true;
  for (const family of families) {
    const start = performance.now();
    const failed = replayTarget(family, inputs, scratch);
    const seconds = ((performance.now() - start) / 1000).toFixed(1);
    console.log(
      `fuzz replay ${family.padEnd(9)} ${inputs.length} inputs  ${failed.length ? `${failed.length} FAILED` : 'ok'}  ${seconds} s`,
    );
    for (const f of failed) {
      ok = false;
      console.error(`\n${family}_fuzz failed on ${relative(root, f.file)}:`);
      console.error(tail(f.log, 30));
    }
  }
  return ok;
}

/** Fuzzes each family in turn for `budget`: { seconds } or { runs } (inputs in all, the corpus's included). */
function fuzz(families, budget, keep, scratch) {
  let ok = true;
  for (const family of families) {
    const corpus = join(fuzzDir, 'corpus', family);
    const regressions = join(fuzzDir, 'regressions', family);
    const fresh = join(scratch, 'new', family);
    const artifacts = keep ? regressions : join(scratch, 'crashes', family);
    for (const dir of [corpus, fresh, artifacts]) mkdirSync(dir, { recursive: true });
    const before = new Set(filesIn(artifacts));
    // New inputs go to the first folder; the corpus is only read. (The
    // regressions are replayed, not fuzzed from: one that still fails would
    // stop the run at its start.)
    const seeds = [fresh, corpus];
    const r = runTarget(
      family,
      // -len_control=0: inputs may use all of -max_len from the start (a target
      // reads its shapes from the end of an input, which a shortened input loses).
      [
        budget.runs ? `-runs=${budget.runs}` : `-max_total_time=${budget.seconds}`,
        '-max_len=4096',
        '-len_control=0',
        '-timeout=30',
        '-rss_limit_mb=2048',
        '-print_final_stats=1',
        `-artifact_prefix=${artifacts}/`,
        ...seeds,
      ],
      join(scratch, `fuzz-${family}.log`),
    );
    const runs = /stat::number_of_executed_units:\s*(\d+)/.exec(r.log)?.[1] ?? '?';
    const seed = /^INFO: Seed: (\d+)$/m.exec(r.log)?.[1] ?? '?';
    const found = filesIn(fresh).length;
    console.log(
      `fuzz ${family.padEnd(9)} ${r.ok ? 'ok' : 'FAILED'}  ${runs} runs (seed ${seed}), ${found} new inputs  ${r.seconds.toFixed(1)} s`,
    );
    if (!r.ok) {
      ok = false;
      console.error(tail(r.log));
      for (const file of filesIn(artifacts).filter((f) => !before.has(f))) {
        if (keep) {
          console.error(
            `\nThe input is kept as ${relative(root, file)}: add a line to tests/fuzz/README.md saying what it caught and how it was fixed.`,
          );
        } else {
          const bytes = readFileSync(file);
          console.error(`\nThe input is ${file} (${bytes.length} bytes); keep it as a regression case with`);
          console.error(`  cp ${file} tests/fuzz/regressions/${family}/`);
          if (bytes.length <= 4096) console.error(`or from its base64: ${bytes.toString('base64')}`);
        }
      }
    }
    if (keep && found > 0) {
      // Only the new inputs that add coverage join the repository's corpus.
      const count = filesIn(corpus).length;
      const merged = runTarget(family, ['-merge=1', corpus, fresh], join(scratch, `merge-${family}.log`));
      if (!merged.ok) console.error(tail(merged.log));
      console.log(
        `fuzz ${family.padEnd(9)} ${filesIn(corpus).length - count} inputs added to ${relative(root, corpus)}`,
      );
    }
  }
  return ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.build) buildPreset('native-fuzz');
  const scratch = mkdtempSync(join(tmpdir(), 'ag-fuzz-'));
  let ok = true;
  if (opts.replay) ok = replay(opts.only, scratch) && ok;
  if (opts.seconds !== null || opts.runs !== null)
    ok = fuzz(opts.only, { seconds: opts.seconds, runs: opts.runs }, opts.keep, scratch) && ok;
  if (ok) {
    rmSync(scratch, { recursive: true, force: true });
  } else {
    console.error(`\nfuzz: FAILED (logs and inputs in ${scratch})`);
  }
  process.exit(ok ? 0 : 1);
}
