// State given from JS (the `state` property) and names a page does not read:
// a value of the wrong type ("2" for a number), a name that is not a field,
// a state that is not an object, and embed.html parameters that are not its
// own are each ignored with a visible note; the widget keeps computing.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { expectClean, openPage, startEnv, waitReady } from './helpers.mjs';

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

const noteOf = (page, tag) =>
  page.locator(tag).evaluate((el) => {
    const n = el.shadowRoot.querySelector('.note');
    return n && !n.hidden ? n.textContent : '';
  });

test.each([
  ['a number as text', { t: '2' }, 't=2'],
  ['a number in an array', { t: [2] }, 't=[2]'],
  ['a name that is not a field', { T: 2 }, 'T=2'],
  ['a number instead of an object', 5, 'state=5'],
])('ag-length-lever, el.state = %s: default kept, a note names it, still computing', async (_what, value, shown) => {
  const opened = await openPage(env, '?agtest=1#ch-length', { height: 1200 });
  const { page } = opened;
  const tag = 'ag-length-lever';
  await waitReady(page, tag);
  const before = await page.locator(tag).evaluate((el) => el.state);
  await page.locator(tag).evaluate((el, v) => {
    el.state = v;
  }, value);
  const after = await page.locator(tag).evaluate((el) => ({ state: el.state, status: el.dataset.status }));
  expect(after.state).toEqual(before);
  expect(typeof after.state.t).toBe('number');
  expect(after.status).toBe('ready');
  expect(await noteOf(page, tag)).toContain(shown);
  await expectClean(opened);
  await opened.context.close();
});

test('embed.html with a field outside s= (a=5,5): a note names it, the widget shows its state from s=', async () => {
  const opened = await openPage(env, 'embed.html?w=ag-two-definitions&s=v%3D1%26a%3D3%2C4%26b%3D4%2C3&a=5,5&agtest=1');
  const { page } = opened;
  await waitReady(page, 'ag-two-definitions');
  expect(await page.locator('#embed-note').textContent()).toContain('a=5,5');
  expect(await page.locator('ag-two-definitions').evaluate((el) => el.state.a)).toEqual([3, 4]);
  await expectClean(opened);
  await opened.context.close();
});
