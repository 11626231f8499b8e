// Debian's Chromium, as every script and test drives it (playwright-core):
// the executable and the flags for a headless run on a machine without a GPU
// or network access. The executable is Debian's chromium-headless-shell: the
// same Chromium build without the browser's window layer (Playwright's own
// headless default), which runs the browser tests in about a fifth less CPU
// time than the full `chromium` in its headless mode. CHROMIUM_PATH overrides
// it (e.g. /usr/bin/chromium).
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium-headless-shell';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
