// Reading a file: URL from disk under Node (package.json "imports", condition
// "node"): Node's fetch does not read file: URLs, and the glue cannot load a
// .wasm by path, so the loader reads the bytes itself.
import { readFile } from 'node:fs/promises';

/** The bytes of the file at a file: URL. */
export function readFileUrl(url) {
  return readFile(url);
}
