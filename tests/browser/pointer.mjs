// Moving a widget's draggable points (data-point, in a d3 plane): by mouse,
// by finger (touch events) and by keyboard.
import { expect } from '@jest/globals';
import { stateOf } from './helpers.mjs';

/** Screen position of plot coordinates (x, y) in the widget's d3 plane. */
async function planePoint(page, tag, [x, y]) {
  return page.locator(`${tag} >> nth=0`).evaluate(
    (el, [px, py]) => {
      const svg = el.shadowRoot.querySelector('svg.plane');
      const extent = Number(svg.dataset.extent);
      const margin = Number(svg.dataset.margin);
      const box = svg.viewBox.baseVal;
      const vx = margin + ((px + extent) / (2 * extent)) * (box.width - 2 * margin);
      const vy = box.height - margin - ((py + extent) / (2 * extent)) * (box.height - 2 * margin);
      const p = svg.createSVGPoint();
      p.x = vx;
      p.y = vy;
      const s = p.matrixTransform(svg.getScreenCTM());
      return { x: s.x, y: s.y };
    },
    [x, y],
  );
}

/** Drags the point `name` (data-point) to plot coordinates `to` with the mouse. */
export async function dragPoint(page, tag, name, to) {
  const handle = page.locator(`${tag} [data-point="${name}"]`);
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.locator('circle.dot').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  const target = await planePoint(page, tag, to);
  await page.mouse.move((box.x + target.x) / 2, (box.y + target.y) / 2, { steps: 4 });
  await page.mouse.move(target.x, target.y, { steps: 4 });
  await page.mouse.up();
}

/**
 * Drags the point `name` to plot coordinates `to` with the mouse and checks
 * that the page did not scroll and, where the widget's state has a field
 * `name`, that it now holds `to`.
 */
export async function dragTo(page, tag, name, to) {
  const scrollBefore = await page.evaluate(() => window.scrollY);
  await dragPoint(page, tag, name, to);
  expect(await page.evaluate(() => window.scrollY)).toBe(scrollBefore);
  const field = await page.locator(`${tag} >> nth=0`).evaluate((el, n) => el.state[n] ?? null, name);
  if (field !== null) expect(field).toEqual(to);
}

/**
 * Drags the point `name` to plane coordinates `to` with a finger: real touch
 * events through the DevTools protocol (the context needs hasTouch: true).
 */
export async function touchDragPoint(page, tag, name, to) {
  const handle = page.locator(`${tag} [data-point="${name}"]`);
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.locator('circle.dot').boundingBox();
  const from = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const target = await planePoint(page, tag, to);
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, p) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: p ? [{ x: p.x, y: p.y }] : [] });
  await touch('touchStart', from);
  for (let i = 1; i <= 8; i++)
    await touch('touchMove', { x: from.x + ((target.x - from.x) * i) / 8, y: from.y + ((target.y - from.y) * i) / 8 });
  await touch('touchEnd');
  await cdp.detach();
}

/** Focuses the point `name` with Tab order intact and presses `keys` (e.g. ['ArrowRight', 'Shift+ArrowUp']). */
export async function keyPoint(page, tag, name, keys) {
  await page.locator(`${tag} [data-point="${name}"]`).focus();
  for (const key of keys) await page.keyboard.press(key);
}

/**
 * Moves the point `name` with `keys` (keyPoint) and checks that the widget's state field `name` is then `to`
 * and, given `valuetext`, that the handle says so (aria-valuetext).
 */
export async function keyTo(page, tag, name, keys, to, valuetext) {
  await keyPoint(page, tag, name, keys);
  expect((await stateOf(page, tag))[name]).toEqual(to);
  if (valuetext !== undefined)
    await expect(page.locator(`${tag} [data-point="${name}"]`).getAttribute('aria-valuetext')).resolves.toBe(valuetext);
}

/**
 * Drags the range input `selector` of the widget with the mouse, from `from` to `to`
 * (shares of its width: 0 the left end, 1 the right end, beyond 1 past it).
 */
export async function dragSlider(page, tag, selector, from, to) {
  const slider = page.locator(`${tag} ${selector}`);
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * from, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to, y, { steps: 6 });
  await page.mouse.up();
}

/** Focuses the control `selector` of the widget and presses `key` `times` times (a list of keys, with times 1). */
export async function pressOn(page, tag, selector, key, times = 1) {
  await page.locator(`${tag} ${selector}`).focus();
  for (const k of Array.isArray(key) ? key : Array(times).fill(key)) await page.keyboard.press(k);
}
