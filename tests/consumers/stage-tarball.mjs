// One `npm pack` for the whole package stage: scripts/test.mjs names this module as Jest's globalSetup and
// its globalTeardown. The first call packs the package into a temp dir and puts the tarball's path in
// AG_STAGE_TARBALL, which pack() returns instead of packing again in every test file; the second call
// removes the dir. A test file run alone packs its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pack } from './pack.mjs';

export default async function stageTarball() {
  const packed = process.env.AG_STAGE_TARBALL;
  if (packed) {
    delete process.env.AG_STAGE_TARBALL;
    rmSync(dirname(packed), { recursive: true, force: true });
    return;
  }
  process.env.AG_STAGE_TARBALL = pack(mkdtempSync(join(tmpdir(), 'attention-geometry-stage-')));
}
