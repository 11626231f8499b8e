// Keyboard and screen-reader use, and the heat maps' colours, on one page of the tour: Tab goes through every
// control of chapter 2 in order, each with a visible focus indicator in the light and dark scheme (an outline: not
// none, 2 px or more, 3:1 against the widget's background; on SVG points and cells the focus-coloured ring); the
// arrow keys move a point by the documented steps and the live region says the new value and dot product, as it
// does when a drag ends; a heat map is one Tab stop with arrow keys inside (roving tabindex), the focused or hovered
// cell's number in its aria-label and the readout; scores in PuOr, weights in cividis, every cell's number 4.5:1
// against its cell, the legends' colours apart under simulated protanopia, deuteranopia and tritanopia; a prediction
// answered by keyboard keeps the focus in its block; the learn-to-attend grid is ringed when a cell has the focus.
import { describe, expect, test } from '@jest/globals';
import {
  differenceEuclidean,
  filterDeficiencyDeuter,
  filterDeficiencyProt,
  filterDeficiencyTrit,
  formatHex,
  wcagContrast,
} from 'culori';
import { interpolateCividis, interpolatePuOr } from 'd3';
import { pressKeys, stateOf, useChapter, useEnv, waitReady } from './helpers.mjs';
import { dragPoint } from './pointer.mjs';
import { byRole, readNumbers } from './shown-numbers.mjs';

const env = useEnv();
const TWO = 'ag-two-definitions';
// One page of the tour for every test: chapter 2 first, then the heat maps' chapters further down.
const shared = useChapter(env, 'dot-product', TWO);

// Colour-vision deficiency simulation, Machado, Oliveira and Fernandes (2009), severity 1 (culori).
const CVD = {
  protanopia: filterDeficiencyProt(1),
  deuteranopia: filterDeficiencyDeuter(1),
  tritanopia: filterDeficiencyTrit(1),
};
/** CIE76 colour difference (ΔE in CIELAB, D50 white as d3's lab). */
const deltaE = differenceEuclidean('lab');

/**
 * In the page: every element of the widget `tag`'s shadow root that Tab should reach, in document order
 * (`tabbable`, by key), and the element with focus through shadow roots (`focused`: its key, widget, outline
 * or SVG ring, the focus colour and the background it sits on; null on the body). A key names the element,
 * its data-point or data-cell, its first class and the start of its text.
 */
function focusState([tag]) {
  const keyOf = (el) =>
    `${el.localName}${el.dataset.point ? `[data-point=${el.dataset.point}]` : ''}${el.dataset.cell ? `[data-cell=${el.dataset.cell}]` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}:${(el.textContent ?? '').trim().slice(0, 24)}`;
  const root = tag ? document.querySelector(tag).shadowRoot : null;
  const reached = (el) =>
    el.tabIndex >= 0 && !el.disabled && !el.closest('[inert]') && el.checkVisibility({ visibilityProperty: true });
  // Of a group of radio buttons with one checked, Tab reaches that one.
  const passed = (el) =>
    el.type === 'radio' && !el.checked && root.querySelector(`input[type=radio][name="${el.name}"]:checked`);
  const all = root ? [...root.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')] : [];
  const tabbable = all.filter((el) => reached(el) && !passed(el)).map(keyOf);
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return { tabbable, focused: null };
  const host = el.getRootNode().host ?? null;
  const style = getComputedStyle(el);
  // SVG rings: a point's .hit circle gets a stroke; a heat-map cell's .hm-focus group is displayed.
  const group = el.querySelector?.(':scope > .hm-focus') ?? null;
  const ring = el.querySelector?.(':scope > .hit') ?? group?.querySelector('.hm-focus-ring') ?? null;
  const ringStyle = ring ? getComputedStyle(ring) : null;
  const widget = host ? getComputedStyle(host.shadowRoot.querySelector('.widget')) : null;
  const focused = {
    host: host?.localName ?? null,
    key: keyOf(el),
    svg: el instanceof SVGElement,
    outline: { style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor },
    ring: ringStyle && {
      shown: group ? getComputedStyle(group).display !== 'none' : ringStyle.stroke !== 'none',
      stroke: ringStyle.stroke,
      width: parseFloat(ringStyle.strokeWidth),
    },
    focusColour: widget ? widget.getPropertyValue('--_focus').trim() : null,
    background: (widget ?? getComputedStyle(document.body)).backgroundColor,
  };
  return { tabbable, focused };
}
const focused = async (page) => (await page.evaluate(focusState, [null])).focused;
const tabbable = async (page, tag) => (await page.evaluate(focusState, [tag])).tabbable;

/** Expects a visible focus indicator on the focused element (see the file's header). */
function expectVisibleFocus(f, scheme) {
  const where = `${scheme}: ${f.key}`;
  if (f.svg) {
    // SVG points and heat-map cells draw their own ring in the theme's focus colour.
    expect({ where, shown: f.ring?.shown }).toEqual({ where, shown: true });
    expect(formatHex(f.ring.stroke)).toBe(formatHex(f.focusColour));
    expect(f.ring.width).toBeGreaterThanOrEqual(2);
    return;
  }
  expect({ where, style: f.outline.style }).not.toEqual({ where, style: 'none' });
  expect(f.outline.width).toBeGreaterThanOrEqual(2);
  const ratio = wcagContrast(f.outline.color, f.background);
  if (ratio < 3)
    throw new Error(`${where}: focus outline ${f.outline.color} on ${f.background} has contrast ${ratio.toFixed(2)}`);
}

/** The colours of the stops of a heat map's legend, in order. */
const legendStops = (grid) =>
  grid.locator('linearGradient stop').evaluateAll((l) => l.map((s) => s.getAttribute('stop-color')));

/** Each number of `numbers` (in a heat map's grid) has the fill `colourOf(value)`, and its text 4.5:1 or more on it. */
async function expectCellColours(grid, numbers, colourOf) {
  // Each cell's fill and the colour of its number, by data-cell.
  const fills = await grid.evaluate((svg) =>
    Object.fromEntries(
      [...svg.querySelectorAll('[role="gridcell"]')].map((g) => {
        const [rect, value] = [g.querySelector('.hm-rect'), g.querySelector('.hm-value')];
        return [g.dataset.cell, { fill: rect.getAttribute('fill'), ink: getComputedStyle(value).fill }];
      }),
    ),
  );
  for (const n of numbers) {
    expect(formatHex(fills[n.key].fill)).toBe(formatHex(colourOf(n.value)));
    expect(wcagContrast(fills[n.key].fill, fills[n.key].ink)).toBeGreaterThanOrEqual(4.5);
  }
}

describe('keyboard: chapter 2', () => {
  test.each(['light', 'dark'])(
    'Tab reaches every control of the widget in order, each with a visible focus indicator (%s)',
    async (scheme) => {
      const { page } = shared;
      // The page's colours are CSS only: the same page, switched.
      await page.emulateMedia({ colorScheme: scheme });
      const expected = await tabbable(page, TWO);
      expect(expected.length).toBeGreaterThan(5);
      expect(expected.filter((k) => k.includes('[data-point='))).toHaveLength(2);
      // Start just before the widget: click the chapter's intro (not focusable), then Tab.
      await page.locator('#ch-dot-product .intro').click();
      const reached = [];
      for (let i = 0; i < expected.length + 5; i += 1) {
        await page.keyboard.press('Tab');
        const f = await focused(page);
        if (f?.host !== TWO) break;
        expectVisibleFocus(f, scheme);
        reached.push(f.key);
      }
      expect(reached).toEqual(expected);
      await page.emulateMedia({ colorScheme: 'light' });
    },
  );

  test('arrow keys move b by 0.25 (Shift: 1); the live region reads the new b and a\u00b7b; a mouse drag is announced when it ends', async () => {
    const { page } = shared;
    const live = page.locator(`${TWO} [aria-live="polite"]`);
    expect(await live.count()).toBe(1);
    await page.locator('#ch-dot-product .intro').click();
    // Tab to point b (a comes first).
    for (let i = 0; i < 40 && !(await focused(page))?.key.startsWith('g[data-point=b]'); i += 1)
      await page.keyboard.press('Tab');
    expect((await focused(page)).key).toMatch(/^g\[data-point=b\]/);
    expect((await stateOf(page, TWO)).b).toEqual([4, 3]);
    await pressKeys(page, 'ArrowRight', 'ArrowRight', 'Shift+ArrowDown');
    // b = (4.5, 2); a = (3, 4): a.b = 13.5 + 8 = 21.5 (float64, exact).
    expect((await stateOf(page, TWO)).b).toEqual([4.5, 2]);
    await expect(page.locator(`${TWO} [data-point="b"]`).getAttribute('aria-valuetext')).resolves.toBe('b = (4.5, 2)');
    expect((await live.textContent()).trim()).toBe('b = (4.5, 2); a\u00b7b = 21.5');
    // The same key at the edge of the plane: the value stays and is read again (the text changes).
    const before = await live.textContent();
    await page.locator(TWO).evaluate((el) => el.setState({ b: [6, 2] }));
    await page.locator(`${TWO} [data-point="b"]`).focus();
    await page.keyboard.press('ArrowRight');
    expect((await stateOf(page, TWO)).b).toEqual([6, 2]);
    const atEdge = await live.textContent();
    expect(atEdge.trim()).toBe('b = (6, 2); a\u00b7b = 26');
    expect(atEdge).not.toBe(before);
    await page.keyboard.press('ArrowRight');
    expect((await live.textContent()).trim()).toBe(atEdge.trim());
    expect(await live.textContent()).not.toBe(atEdge);
    // A mouse drag of a to (-2, 3.5): announced once it ends. a.b = -12 + 7 = -5.
    await dragPoint(page, TWO, 'a', [-2, 3.5]);
    expect((await stateOf(page, TWO)).a).toEqual([-2, 3.5]);
    expect((await live.textContent()).trim()).toBe('a = (\u22122, 3.5); a\u00b7b = \u22125');
  });
});

describe('heat maps: keyboard, hover, colours', () => {
  const stops = {}; // the legend's colours, by scale

  test('scores (chapter 8): one Tab stop, arrows move the focus, the focused cell\u2019s number is read and ringed; PuOr colours with readable numbers', async () => {
    const TAG = 'ag-qkt-grid';
    const { page } = shared;
    await waitReady(page, TAG);
    const grid = page.locator(`${TAG} svg.heatmap`);
    expect(await grid.locator('[role="gridcell"]').count()).toBe(16);
    // Roving tabindex: exactly one cell is a Tab stop.
    const stop = grid.locator('[role="gridcell"][tabindex="0"]');
    expect(await stop.count()).toBe(1);
    // Tab into the grid from the control before it, then down one row.
    const [i0, j0] = (await stop.getAttribute('data-cell')).split('-').map(Number);
    await stop.focus();
    await pressKeys(page, 'Shift+Tab', 'Tab');
    expect((await focused(page)).key).toMatch(new RegExp(`^g\\[data-cell=${i0}-${j0}\\]`));
    await page.keyboard.press(i0 < 4 ? 'ArrowDown' : 'ArrowUp');
    const cell = `${i0 < 4 ? i0 + 1 : i0 - 1}-${j0}`;
    const f = await focused(page);
    expect(f.key).toMatch(new RegExp(`^g\\[data-cell=${cell}\\]`));
    expectVisibleFocus(f, 'light');
    expect(await stop.getAttribute('data-cell')).toBe(cell);
    const scores = byRole(await readNumbers(page, TAG), 'score');
    const shown = scores.find((n) => n.key === cell);
    expect(await grid.locator(`[data-cell="${cell}"]`).getAttribute('aria-label')).toContain(shown.text);
    // Colours: PuOr over [-m, m], m the largest |score|; the number black or white, 4.5:1 or more.
    const m = Math.max(...scores.map((n) => Math.abs(n.value)));
    await expectCellColours(grid, scores, (v) => interpolatePuOr((v / m + 1) / 2));
    stops.diverging = await legendStops(grid);
  });

  test('weights (chapter matrix-form): cividis on [0, 1], readable numbers, and the readout follows hover and keyboard focus', async () => {
    const TAG = 'ag-matrix-form';
    const { page } = shared;
    await waitReady(page, TAG);
    const grid = page.locator(`${TAG} svg.heatmap`);
    const readout = page.locator(`${TAG} .hm-readout`);
    const weights = byRole(await readNumbers(page, TAG), 'a');
    expect(weights.length).toBe(await grid.locator('[role="gridcell"]').count());
    await expectCellColours(grid, weights, interpolateCividis);
    // Hover: the readout names the cell and shows its number.
    await grid.locator('[data-cell="2-3"]').hover();
    expect(await readout.textContent()).toBe(`A23 = ${weights.find((n) => n.key === '2-3').text}`);
    // Keyboard: into the grid, then right; the readout follows the focus.
    await grid.locator('[role="gridcell"][tabindex="0"]').focus();
    const [, i, j0] = (await focused(page)).key.match(/data-cell=(\d+)-(\d+)/).map(Number);
    await page.keyboard.press('ArrowRight');
    const j = Math.min(j0 + 1, Number(await grid.getAttribute('data-cols')));
    expect(await readout.textContent()).toBe(`A${i}${j} = ${weights.find((n) => n.key === `${i}-${j}`).text}`);
    expectVisibleFocus(await focused(page), 'light');
    stops.sequential = await legendStops(grid);
  });

  test('the legend\u2019s colours (read by the two tests above) stay apart under simulated protanopia, deuteranopia and tritanopia', () => {
    expect(stops.diverging).toHaveLength(11);
    expect(stops.sequential).toHaveLength(11);
    for (const [name, simulate] of Object.entries(CVD)) {
      const [d, s] = [stops.diverging, stops.sequential].map((list) => list.map(simulate));
      // Neighbouring tenths of the scale differ (ΔE76 ≥ 5: a visible step).
      for (const [scale, c] of Object.entries({ diverging: d, sequential: s }))
        for (let k = 0; k < 10; k += 1)
          expect({ name, k, scale, ok: deltaE(c[k], c[k + 1]) >= 5 }).toEqual({ name, k, scale, ok: true });
      // A positive and a negative value of the same size (at least 20% of the range) look different.
      for (let k = 0; k <= 3; k += 1)
        expect({ name, k, ok: deltaE(d[k], d[10 - k]) >= 15 }).toEqual({ name, k, ok: true });
      // The ends of the sequential scale are far apart.
      expect(deltaE(s[0], s[10])).toBeGreaterThanOrEqual(50);
    }
  });
});

describe('keyboard: a prediction answered, and the learn-to-attend grid', () => {
  // [what, widget, the control focused, the keys pressed on it, the result line's start (its first 24 characters),
  // the focus after "Ask me again"]
  const [right, wrong] = [/^p\.predict-result:(Right|Not quite)\./, /^p\.predict-result:Not quite\. You (said|put y)/];
  const [first, point] = [/^button\.predict-choice:Positive/, /^g\[data-point=your y\]:/];
  test.each([
    ['chapter 2: a choice pressed with Enter', TWO, '.predict-choice[data-choice="positive"]', ['Enter'], right, first],
    ['chapter 2: a choice pressed with Space', TWO, '.predict-choice[data-choice="zero"]', ['Space'], right, first],
    ['sqrt-d: a number', 'ag-sqrt-d', 'input.predict-number', [...'4096', 'Enter'], wrong, /^input\.predict-number:/],
    ['convex-hull: a point', 'ag-convex-hull', '.handle-guess', ['ArrowRight', 'Shift+ArrowUp', 'Enter'], wrong, point],
  ])(
    '%s, committed: the focus on the result line, then "Ask me again", then the first choice or the input',
    async (_what, tag, control, keys, result, again) => {
      const { page } = shared;
      await waitReady(page, tag);
      await page.locator(`${tag} ${control}`).focus();
      await pressKeys(page, ...keys);
      await page.locator(`${tag} .predict[data-result]`).waitFor({ timeout: 60000 });
      // The choices are closed (disabled): the focus is on the result line, which says the answer, ringed.
      const f = await focused(page);
      expect([f?.host, f?.key]).toEqual([tag, expect.stringMatching(result)]);
      expectVisibleFocus(f, 'light');
      // Tab goes on to "Ask me again"; Enter there asks again, with the focus on the first choice or the input.
      await page.keyboard.press('Tab');
      expect((await focused(page)).key).toMatch(/^button\.predict-again:Ask me again/);
      await page.keyboard.press('Enter');
      expect((await focused(page)).key).toMatch(again);
    },
    120000,
  );

  test('learn-to-attend: a cell of the weights grid with keyboard focus rings the grid with the shared focus outline', async () => {
    const { page } = shared;
    const tag = 'ag-learn-to-attend';
    await waitReady(page, tag);
    const outline = () =>
      page.locator(`${tag} .grid-box svg.heatmap`).evaluate((svg) => {
        const [s, widget] = [svg, svg.getRootNode().querySelector('.widget')].map((el) => getComputedStyle(el));
        return {
          style: s.outlineStyle,
          width: parseFloat(s.outlineWidth),
          color: s.outlineColor,
          focus: widget.getPropertyValue('--_focus').trim(),
          background: widget.backgroundColor,
        };
      });
    expect((await outline()).style).toBe('none');
    // Tab from the Train button (the Restart and Cancel buttons wait disabled) into the grid.
    await page.locator(`${tag} [data-action="train"]`).focus();
    for (let i = 0; i < 5 && !(await focused(page))?.key.startsWith('g[data-cell='); i += 1)
      await page.keyboard.press('Tab');
    const f = await focused(page);
    expect(f.key).toMatch(/^g\[data-cell=/);
    expectVisibleFocus(f, 'light'); // the cell's own ring
    const ring = await outline();
    expect(ring.style).toBe('solid');
    expect(ring.width).toBeGreaterThanOrEqual(2);
    expect(formatHex(ring.color)).toBe(formatHex(ring.focus));
    expect(wcagContrast(ring.color, ring.background)).toBeGreaterThanOrEqual(3);
  });
});
