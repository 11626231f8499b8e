// State given from JS (the `state` property) and names a page does not read:
// a value of the wrong type ("2" for a number), a name that is not a field,
// a state that is not an object, and embed.html parameters that are not its
// own are each ignored with a visible note; the widget keeps computing.
import { expect, test } from '@jest/globals';
import { noteOf, stateOf, useEnv, withChapter, withEmbed } from './helpers.mjs';

const env = useEnv();
const TAG = 'ag-length-lever';

test.each([
  ['a number as text', { t: '2' }, 't=2'],
  ['a number in an array', { t: [2] }, 't=[2]'],
  ['a name that is not a field', { T: 2 }, 'T=2'],
  ['a number instead of an object', 5, 'state=5'],
])('ag-length-lever, el.state = %s: default kept, a note names it, still computing', async (_what, value, shown) => {
  await withChapter(env, 'length', TAG, { height: 1200 }, async ({ page }) => {
    const before = await stateOf(page, TAG);
    await page.locator(TAG).evaluate((el, v) => {
      el.state = v;
    }, value);
    const after = await page.locator(TAG).evaluate((el) => ({ state: el.state, status: el.dataset.status }));
    expect(after.state).toEqual(before);
    expect(typeof after.state.t).toBe('number');
    expect(after.status).toBe('ready');
    expect(await noteOf(page.locator(TAG))).toContain(shown);
  });
});

test('embed.html with a field outside s= (a=5,5): a note names it, the widget shows its state from s=', async () => {
  await withEmbed(
    env,
    'w=ag-two-definitions&s=v%3D1%26a%3D3%2C4%26b%3D4%2C3&a=5,5',
    'ag-two-definitions',
    async ({ page }) => {
      expect(await page.locator('#embed-note').textContent()).toContain('a=5,5');
      expect((await stateOf(page, 'ag-two-definitions')).a).toEqual([3, 4]);
    },
  );
});
