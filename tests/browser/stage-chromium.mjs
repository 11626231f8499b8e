// One Chromium for the whole browser stage: scripts/test.mjs names this module as Jest's globalSetup and its
// globalTeardown. The first call launches Chromium as a server (the shared arguments of scripts/chromium.mjs)
// and puts its address in AG_CHROMIUM_WS, where startEnv connects instead of launching one per test file; the
// second call closes it. A test file run alone launches its own.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/chromium.mjs';

export default async function stageChromium() {
  const running = globalThis.agStageChromium;
  if (running) {
    delete globalThis.agStageChromium;
    delete process.env.AG_CHROMIUM_WS;
    await running.close();
    return;
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  globalThis.agStageChromium = server;
  process.env.AG_CHROMIUM_WS = server.wsEndpoint();
}
