// What an update writes (see scripts/bench/page-updates.mjs for its timing):
// - a render whose inputs did not change writes nothing to the page: no
//   attribute set to the value it has, no text replaced by the same text
//   (d3's writes go through widget/d3-changes-only.js, the widgets' own
//   through widget/dom.js setText/setAttr), for figures (planes, heat maps,
//   a bar chart) and tables;
// - the shell writes the address once the learner pauses
//   (shell/url-writer.js): during a burst of changes it waits, then the
//   address holds the last state; leaving the page writes at once.
import { describe, expect, test } from '@jest/globals';
import { settledUrl, useEnv, waitReady, withChapter } from './helpers.mjs';

const env = useEnv();

/**
 * The mutations of `tag`'s shadow root (and host), as text, while the page
 * makes `change`: 'same' sets the widget's state to itself (a render with
 * the same inputs); 'move-k2' moves the atom's key k2 right by 0.25.
 */
function mutationsDuring(page, tag, change) {
  return page.locator(tag).evaluate((el, kind) => {
    const records = [];
    const observer = new MutationObserver((list) => records.push(...list));
    const all = { subtree: true, attributes: true, characterData: true, childList: true };
    observer.observe(el.shadowRoot, { ...all, attributeOldValue: true, characterDataOldValue: true });
    observer.observe(el, { attributes: true, attributeOldValue: true });
    if (kind === 'same') el.stateText = String(el.stateText);
    else el.setState({ k: el.state.k.map((r, i) => (i === 1 ? [r[0] + 0.25, r[1]] : r)) });
    records.push(...observer.takeRecords());
    observer.disconnect();
    const name = (n) =>
      n.nodeType === 3
        ? `text in <${n.parentNode?.localName}>`
        : `<${n.localName} class="${n.getAttribute('class') ?? ''}">`;
    return records.map((m) =>
      m.type === 'attributes'
        ? `${m.attributeName} on ${name(m.target)}${m.target.getAttribute(m.attributeName) === m.oldValue ? ' (same value)' : ''}`
        : m.type === 'characterData'
          ? `${name(m.target)}${m.target.nodeValue === m.oldValue ? ' (same text)' : ''}`
          : `children of ${name(m.target)}`,
    );
  }, change);
}

describe('what an update writes', () => {
  test('a render with unchanged inputs writes nothing; a change writes what changed', async () => {
    await withChapter(env, 'atom', 'ag-attention-atom', { clean: false }, async (opened) => {
      const { page } = opened;
      // Figures of several kinds on one page: a plane and a heat map (atom),
      // tables and heat maps (multi-head), a bar chart and a plane (entropy).
      const others = ['ag-multi-head', 'ag-weight-entropy'];
      for (const tag of others) await page.locator(tag).evaluate((el) => el.start());
      for (const tag of others) await waitReady(page, tag);
      for (const tag of ['ag-attention-atom', ...others]) {
        expect({ tag, writes: await mutationsDuring(page, tag, 'same') }).toEqual({ tag, writes: [] });
      }
      // A real change: the moved key's handle and the numbers it changes are written, never a value onto itself.
      const moved = await mutationsDuring(page, 'ag-attention-atom', 'move-k2');
      expect(moved.length).toBeGreaterThan(0);
      expect(moved.filter((m) => m.includes('(same'))).toEqual([]);
      expect(moved.some((m) => m.startsWith('transform on <g class="handle'))).toBe(true);
    });
  }, 60000);

  test('the address is written once the learner pauses, with the last state; leaving the page writes it at once', async () => {
    await withChapter(env, 'dot-product', 'ag-two-definitions', { clean: false }, async (opened) => {
      const { page } = opened;
      const before = await settledUrl(page);
      expect(before.searchParams.get('b')).toBe('4,3');
      // A burst of five key steps of 0.25 on b, dispatched in one task so that
      // no pause can fall inside it however slow the machine: while it lasts,
      // the address waits.
      await page.locator('ag-two-definitions [data-point="b"]').focus();
      const during = await page.locator('ag-two-definitions').evaluate((el) => {
        const handle = el.shadowRoot.querySelector('[data-point="b"]');
        for (let i = 0; i < 5; i++)
          handle.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
        return { url: document.body.dataset.url, b: new URLSearchParams(window.location.search).get('b') };
      });
      expect(during).toEqual({ url: 'pending', b: '4,3' });
      // After the pause: the last state, 4 + 5 * 0.25 = 5.25.
      expect((await settledUrl(page)).searchParams.get('b')).toBe('5.25,3');
      // One more step, then the page is left: written in that same task, not after the pause.
      await page.keyboard.press('ArrowUp');
      const left = await page.evaluate(() => {
        window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
        return { url: document.body.dataset.url, b: new URLSearchParams(window.location.search).get('b') };
      });
      expect(left).toEqual({ url: 'current', b: '5.25,3.25' });
    });
  }, 60000);
});
