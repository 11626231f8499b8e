// The page shell: the tour (table of contents, anchors), old links, hostile
// links, the wasm-load error state and the wrong-MIME fallback.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { expectClean, openPage, overflow, settledUrl, startEnv, urlParams, waitReady } from './helpers.mjs';
import { byRole, expectAllLogged, expectClose, one, readNumbers } from './shown-numbers.mjs';

let env;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env?.close();
});

// A link made by the first page (state version 0, before chapters existed).
// It must keep opening the worked example with these inputs.
const OLD_LINK = '?q=0.5,-1,2,0.25&k=2,0.125,-3,1;-0.5,4,1.5,-2;7,7,-7,7&scale=sqrt-dk';

describe('the page shell', () => {
  test('lists the chapters with stable anchors; a chapter anchor starts its widget', async () => {
    const opened = await openPage(env, '?agtest=1');
    const { page } = opened;
    const anchors = await page.$$eval('#toc a', (els) => els.map((a) => a.getAttribute('href')));
    // One anchor per record of the tour (web/chapters.js), in its order.
    expect(anchors).toEqual(CHAPTERS.map((c) => `#ch-${c.id}`));
    expect(anchors.length).toBe(16 + 9); // part 1 (with the cost of attention) and part 2
    expect(anchors).toContain('#ch-dot-product');
    expect(anchors).toContain('#ch-worked-example');
    for (const href of anchors) expect(await page.locator(href).count()).toBe(1);
    // Lazy start: the worked example (far below) has not started.
    expect(await page.locator('ag-worked-example').getAttribute('data-status')).toBeNull();
    await page.locator('#toc a[href="#ch-worked-example"]').click();
    await waitReady(page, 'ag-worked-example');
    await expectClean(opened);
    await opened.context.close();
  });

  test('an old link (version 0: ?q=&k=&scale=) still opens the worked example with its values, migrated', async () => {
    const opened = await openPage(env, `${OLD_LINK}&agtest=1`);
    const { page } = opened;
    await waitReady(page, 'ag-worked-example');
    const state = await page.locator('ag-worked-example').evaluate((el) => el.state);
    expect(state.q).toEqual([0.5, -1, 2, 0.25]);
    expect(state.k).toEqual([
      [2, 0.125, -3, 1],
      [-0.5, 4, 1.5, -2],
      [7, 7, -7, 7],
    ]);
    expect(state.scaled).toBe(true);
    expect(state.step).toBe('output');
    // float64 reference of the scaled scores q.k_j / 2.
    const q = [0.5, -1, 2, 0.25];
    const ref = state.k.map((row) => row.reduce((s, x, i) => s + x * q[i], 0) / 2);
    byRole(await readNumbers(page, 'ag-worked-example'), 'scaled-score').forEach((s, j) =>
      expectClose(s.value, ref[j], 1e-5, `scaled score ${j + 1}`),
    );
    await expectAllLogged(page, 'ag-worked-example');
    await expect(page.locator('ag-worked-example .note').isHidden()).resolves.toBe(true);
    // The shell rewrites the link in the current format.
    const params = await urlParams(page);
    expect(params.get('ch')).toBe('worked-example');
    expect(params.get('v')).toBe('1');
    expect(params.get('scaled')).toBe('1');
    expect(params.get('scale')).toBeNull();
    expect((await settledUrl(page)).hash).toBe('#ch-worked-example');
    await expectClean(opened);
    await opened.context.close();
  });

  test('hostile link values (markup, script, NaN, huge sizes) are ignored with a visible text note; defaults shown; no freeze', async () => {
    const huge = Array.from({ length: 3000 }, () => '1').join(','); // 6 kB: over the 4 kB a value may have
    const search =
      `?ch=dot-product&v=1&a=${encodeURIComponent('<img src=x onerror=alert(1)>')}&b=NaN,3` +
      `&impl=${encodeURIComponent('<script>alert(2)</script>')}&agtest=1`;
    const started = Date.now();
    const opened = await openPage(env, `${search}#ch-dot-product`);
    const { page } = opened;
    await waitReady(page, 'ag-two-definitions');
    const note = page.locator('ag-two-definitions .note');
    await expect(note.isVisible()).resolves.toBe(true);
    const text = await note.textContent();
    expect(text).toContain('a=<img src=x onerror=alert(1)>');
    expect(text).toContain('b=NaN,3');
    await expect(page.locator('#url-note').textContent()).resolves.toContain('impl=<script>alert(2)</script>');
    expect(await page.locator('img, script:not([src])').count()).toBe(0);
    expect(await page.locator('ag-two-definitions').evaluate((el) => el.state)).toEqual({ a: [3, 4], b: [4, 3] });
    expect(one(await readNumbers(page, 'ag-two-definitions'), 'dot').text).toBe('24');
    await expectClean(opened);
    await opened.context.close();

    // A huge list and an unknown version: refused before parsing, quickly.
    const big = await openPage(env, `?ch=worked-example&v=99&q=${huge}&k=1;2;3;4;5;6;7;8&agtest=1#ch-worked-example`, {
      width: 320,
    });
    await waitReady(big.page, 'ag-worked-example');
    const bigNote = await big.page.locator('ag-worked-example .note').textContent();
    expect(bigNote).toContain('v=99');
    expect(bigNote).toContain('q=1,1,1');
    expect(bigNote).toContain('k=1;2;3');
    expect(await big.page.locator('ag-worked-example').evaluate((el) => el.state.q)).toEqual([1, 2, 0, 1]);
    expect(await overflow(big.page)).toBeLessThanOrEqual(0);
    expect(Date.now() - started).toBeLessThan(30000);
    await expectClean(big);
    await big.context.close();
  });

  test('shows a helpful error when the wasm cannot load, and no made-up numbers', async () => {
    const opened = await openPage(env, '?agtest=1#ch-dot-product', {
      waitFor: 'error',
      setup: (p) =>
        p.route('**/*.wasm', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' })),
    });
    const { page } = opened;
    const panel = page.locator('#load-error');
    await expect(panel.isVisible()).resolves.toBe(true);
    await expect(panel.textContent()).resolves.toMatch(/did not load/);
    await expect(panel.locator('[data-role=error-detail]').textContent()).resolves.not.toBe('');
    await page.waitForSelector('ag-two-definitions[data-status="error"]');
    await expect(page.locator('ag-two-definitions .error').textContent()).resolves.toMatch(/did not load/);
    expect(await readNumbers(page, 'ag-two-definitions')).toEqual([]);
    expect(opened.problems.foreign).toEqual([]);
    await opened.context.close();
  });

  test('still computes when the server sends .wasm with a wrong MIME type', async () => {
    const opened = await openPage(env, '?agtest=1#ch-dot-product', {
      setup: (p) =>
        p.route('**/*.wasm', async (route) => {
          const response = await route.fetch();
          await route.fulfill({
            response,
            headers: { ...response.headers(), 'content-type': 'application/octet-stream' },
          });
        }),
    });
    await waitReady(opened.page, 'ag-two-definitions');
    expect(one(await readNumbers(opened.page, 'ag-two-definitions'), 'dot').text).toBe('24');
    await opened.context.close();
  });
});
