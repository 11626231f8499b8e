// Debian's Chromium, as every script and test drives it (playwright-core):
// the executable and the flags for a headless run on a machine without a GPU
// or network access. CHROMIUM_PATH overrides the executable.
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
