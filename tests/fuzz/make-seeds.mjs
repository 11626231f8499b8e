// Writes the seed inputs of tests/fuzz/corpus/<family>/: a handful of small
// inputs per fuzz target, deterministic (SHA-256 in counter mode of the
// family's name), so that running this again gives the same files.
// The targets read their sizes and choices from the end of an input and
// their values from the rest (fuzz_input.h), so bytes of several lengths,
// all zeros and all ones already reach different shapes, value styles and
// branches; libFuzzer grows the corpus from there (npm run fuzz).
//   node tests/fuzz/make-seeds.mjs
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES } from '../../scripts/fuzz.mjs';

const corpus = join(dirname(fileURLToPath(import.meta.url)), 'corpus');

function bytes(label, length) {
  const out = Buffer.alloc(length);
  for (let block = 0; block * 32 < length; block++) {
    createHash('sha256')
      .update(`${label}:${block}`)
      .digest()
      .copy(out, block * 32);
  }
  return out;
}

for (const family of FAMILIES) {
  const dir = join(corpus, family);
  mkdirSync(dir, { recursive: true });
  for (const length of [16, 64, 256, 1024, 4096])
    writeFileSync(join(dir, `seed-${length}`), bytes(`${family}:${length}`, length));
  writeFileSync(join(dir, 'seed-zeros-256'), Buffer.alloc(256, 0x00));
  writeFileSync(join(dir, 'seed-ones-256'), Buffer.alloc(256, 0xff));
}
console.log(`wrote 7 seeds for each of ${FAMILIES.join(', ')} in ${corpus}`);
