// Labels of the figures do not cover one another. The whole page (every
// chapter at its defaults) is opened once, and in each figure the boxes of
// the labels of one layer (arrow names, point names, the words beside the
// queries and keys) are compared pairwise. Once is enough: a figure is an SVG
// with a viewBox, drawn in its own units and scaled as a whole, so labels
// that clear each other at one width clear each other at every width.
import { describe, expect, test } from '@jest/globals';
import { openPage, useEnv, waitReady } from './helpers.mjs';
import { CHAPTERS } from '../../web/chapters.js';

const env = useEnv();
/** Layers that hold the labels of a figure's points and arrows. */
const LAYERS = '.layer-labels, .layer-rows, .layer-qk';

/** Pairs of labels (chapter, layer, texts) whose boxes overlap by more than a pixel. */
async function overlaps(page) {
  const found = [];
  for (const { id, tag } of CHAPTERS.filter((c) => c.tag)) {
    const el = page.locator(`#ch-${id} ${tag}`).first();
    await el.scrollIntoViewIfNeeded();
    await waitReady(page, tag);
    const pairs = await el.evaluate((host, layers) => {
      const out = [];
      for (const layer of host.shadowRoot.querySelectorAll(layers)) {
        const boxes = [...layer.querySelectorAll(':scope > text')]
          .filter((t) => t.getAttribute('visibility') !== 'hidden' && t.textContent.trim() !== '')
          .map((t) => ({ text: t.textContent, box: t.getBoundingClientRect() }))
          .filter(({ box }) => box.width > 0);
        for (let i = 0; i < boxes.length; i += 1) {
          for (let j = 0; j < i; j += 1) {
            const [a, b] = [boxes[i].box, boxes[j].box];
            const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (w > 1 && h > 1) out.push(`${layer.getAttribute('class')}: "${boxes[j].text}" and "${boxes[i].text}"`);
          }
        }
      }
      return out;
    }, LAYERS);
    found.push(...pairs.map((p) => `${id} ${p}`));
  }
  return found;
}

describe('figure labels', () => {
  test.each([
    [1024, 'desktop'],
    [375, 'phone'],
  ])(
    'no two labels of a figure overlap at %i px (%s), every chapter at its defaults',
    async (width) => {
      const { page, context } = await openPage(env, '', { width, height: 900 });
      try {
        expect(await overlaps(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    240000,
  );
});
