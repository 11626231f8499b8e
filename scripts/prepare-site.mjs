// What `npm run scorm` and `npm run h5p` do once their options are checked
// (they pass --build first): scripts/setup.sh (installs what is missing,
// quietly when all is there), then scripts/build.mjs (rebuilds what is not
// current), so that a mistyped option is refused before any of that runs.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The flag the npm scripts pass first: set up and build before packaging. */
export const BUILD_FLAG = '--build';

/**
 * `args` without a leading BUILD_FLAG, and whether it was there.
 * @returns {{ build: boolean, args: string[] }}
 */
export const buildFlag = (args) =>
  args[0] === BUILD_FLAG ? { build: true, args: args.slice(1) } : { build: false, args };

/** Runs setup.sh and build.mjs in the project's folder; an Error naming the step that failed. */
export function prepareSite() {
  for (const [command, ...args] of [
    ['bash', 'scripts/setup.sh'],
    [process.execPath, 'scripts/build.mjs'],
  ]) {
    const run = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${args[0]} failed (exit ${run.status ?? run.signal})`);
  }
}
