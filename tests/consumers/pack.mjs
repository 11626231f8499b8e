// `npm pack` for the consumer tests (helpers.mjs) and for the package stage's one pack
// (stage-tarball.mjs, run by Jest outside any test file: so no Jest import here).
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `npm pack` of the repository (dist/ must be built) into `dir`; returns the
 * tarball's path. Its "prepack" script runs (scripts/check-dist.mjs, which
 * only checks that dist/ is complete). In the package stage the tarball is
 * packed once for every file (stage-tarball.mjs): then that one's path.
 */
export function pack(dir) {
  if (process.env.AG_STAGE_TARBALL) return process.env.AG_STAGE_TARBALL;
  const out = execFileSync('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [{ filename }] = JSON.parse(out);
  return join(dir, filename);
}
