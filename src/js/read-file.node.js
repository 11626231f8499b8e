// Reading a file: URL from disk under Node (package.json "imports", condition
// "node"): Node's fetch does not read file: URLs, and the glue cannot load a
// .wasm by path, so the loader reads the bytes itself.
import { readFile } from 'node:fs/promises';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The bytes of the file at a file: URL. */
export function readFileUrl(url) {
  return readFile(url);
}

/** The current working directory as a file: URL ending in '/': the base of relative .wasm URLs in Node. */
export function cwdUrl() {
  return pathToFileURL(process.cwd() + sep).href;
}
