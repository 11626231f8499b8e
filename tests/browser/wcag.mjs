// The WCAG 2.1 A and AA audit of the browser tests: axe-core through
// @axe-core/playwright, run in the page itself (legacy mode: one call, no
// extra page; the pages audited have no frames from other origins). The page's
// context needs bypassCSP: axe adds its own inline styles while it measures.
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from '@jest/globals';

/** The axe-core tags of the WCAG 2.1 A and AA rules. */
export const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** axe-core with the WCAG 2.1 A and AA rules, in legacy mode, on the page; `configure(builder)` narrows it. */
export const axeWcag = (page, configure = (b) => b) =>
  configure(new AxeBuilder({ page }).withTags(WCAG).setLegacyMode(true)).analyze();

/**
 * Runs axeWcag on the parts `include` (selectors) of the page and expects no violation (each named with
 * `where`, its rule and its first node); returns the targets of the nodes it passed, as JSON.
 */
export async function expectNoViolation(page, include, where) {
  const results = await axeWcag(page, (b) => include.reduce((builder, sel) => builder.include(sel), b));
  const violations = results.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes[0].target)}`);
  expect([where, violations]).toEqual([where, []]);
  return results.passes.flatMap((r) => r.nodes).map((n) => JSON.stringify(n.target));
}
