// Answering a prediction moves the widget to the example it asks about; the
// learner's own setup is not lost: the block says the figure shows the
// example and "Back to my setup" brings the learner's state back (chapter 1,
// with k2 moved by the learner first).
import { expect, test } from '@jest/globals';
import { useEnv, withChapter } from './helpers.mjs';

const TAG = 'ag-attention-atom';
const env = useEnv();

test('a prediction answered after the learner moved a vector: the example is shown, then the setup comes back', async () => {
  await withChapter(env, 'atom', TAG, async ({ page }) => {
    const widget = page.locator(TAG);
    // The learner's own setup: k2 moved somewhere no example uses.
    const mine = await widget.evaluate((el) => {
      const k = el.state.k.map((row, i) => (i === 1 ? [-1.25, 2.5] : row));
      el.setState({ k });
      return el.stateText;
    });
    await widget.locator('.predict-choice').first().click();
    await widget.locator('.predict-result').filter({ hasText: /\S/ }).waitFor();
    const example = await widget.evaluate((el) => el.stateText);
    expect(example).not.toBe(mine);
    expect(await widget.locator('.predict-result').textContent()).toMatch(/The figure now shows this example\.$/);
    const back = widget.locator('.predict-restore');
    await expect(back.isVisible()).resolves.toBe(true);
    await back.click();
    expect(await widget.evaluate((el) => el.stateText)).toBe(mine);
    await expect(back.isVisible()).resolves.toBe(false);
    // Asking again and answering from the example itself: nothing to bring back.
    await widget.locator('.predict-again').click();
    await widget.evaluate((el, text) => (el.stateText = text), example);
    await widget.locator('.predict-choice').first().click();
    await widget.locator('.predict-result').filter({ hasText: /\S/ }).waitFor();
    await expect(back.isVisible()).resolves.toBe(false);
  });
});
