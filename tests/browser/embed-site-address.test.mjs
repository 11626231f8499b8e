// The Embed control's site address: served from a loopback address (as after
// `npm start`), the panel warns that the snippets work on this computer only;
// a published address typed in is used by both snippets and remembered across
// reloads; text that is not a web address is refused with a message and
// changes nothing.
import { expect, test } from '@jest/globals';
import { useEnv, withChapter } from './helpers.mjs';

const TAG = 'ag-two-definitions';
const env = useEnv();

const snippets = (widget) =>
  Promise.all(['iframe', 'element'].map((k) => widget.locator(`textarea[data-snippet="${k}"]`).inputValue()));

test('loopback warning, a published site address used by both snippets and remembered, a bad one refused', async () => {
  await withChapter(env, 'dot-product', TAG, async ({ page, context }) => {
    const widget = page.locator(TAG);
    await widget.locator('details.embed summary').click();
    const warning = widget.locator('[data-role="embed-local"]');
    const origin = new URL(env.server.url).origin;
    expect(new URL(origin).hostname).toBe('127.0.0.1');
    await expect(warning.isVisible()).resolves.toBe(true);
    expect(await warning.textContent()).toContain(`${origin} is an address of this computer only`);
    let [iframe] = await snippets(widget);
    expect(iframe).toContain(`src="${origin}/embed.html?w=${TAG}`);
    // The embedding guide is a page of the site, made from EMBEDDING.md.
    const guide = widget.locator('a[data-role="embed-guide"]');
    expect(await guide.getAttribute('href')).toBe(`${origin}/embedding.html`);
    const guidePage = await context.request.get(`${origin}/embedding.html`);
    expect(guidePage.status()).toBe(200);
    expect(await guidePage.text()).toMatch(/<h1>Embedding the widgets in course material<\/h1>/);

    // A page address of the published site stands for its folder.
    const site = widget.locator('input.embed-site');
    await site.fill('https://course.example.org/attention/index.html');
    await site.press('Enter');
    await site.blur();
    const [published, element] = await snippets(widget);
    expect(published).toContain(`src="https://course.example.org/attention/embed.html?w=${TAG}&amp;s=`);
    expect(element).toContain('<script type="module" src="https://course.example.org/attention/widgets.js"></script>');
    await expect(warning.isVisible()).resolves.toBe(false);
    expect(await guide.getAttribute('href')).toBe('https://course.example.org/attention/embedding.html');

    // Remembered on this browser.
    await page.reload();
    await page.locator(`${TAG}[data-status="ready"]`).waitFor();
    await widget.locator('details.embed summary').click();
    expect(await site.inputValue()).toBe('https://course.example.org/attention/');
    [iframe] = await snippets(widget);
    expect(iframe).toContain('src="https://course.example.org/attention/embed.html?');

    // Not a web address: refused, named in the status line, nothing changed.
    await site.fill('ftp://files.example.org/');
    await site.blur();
    expect(await widget.locator('.embed-status').textContent()).toMatch(
      /ftp:\/\/files\.example\.org\/.*is not a web address.*still load from https:\/\/course\.example\.org\/attention\//,
    );
    expect(await site.inputValue()).toBe('https://course.example.org/attention/');
    expect((await snippets(widget))[0]).toBe(iframe);
  });
});
