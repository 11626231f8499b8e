// Jest runs the JS tests (tests/js: the API on both wasm builds) and the
// browser tests (tests/browser: Playwright in Debian's Chromium). The wasm
// glue is an ES module, so Jest runs with NODE_OPTIONS=--experimental-vm-modules
// (scripts/test.mjs sets it).
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/**/*.test.mjs'],
  transform: {},
  testTimeout: 60000,
};
