// A heat map of a small matrix (scores S = QKᵀ, weights and the like), drawn
// with d3 as one SVG: row and column headers, one cell per entry with its
// number, and a legend (the colour bar with marks at the lowest and highest
// entry). Two colour-vision-deficiency-safe scales (see WIDGETS.md, "Heat
// maps", for how they were chosen):
// - 'diverging' (default), for signed values such as scores: ColorBrewer PuOr
//   (d3.interpolatePuOr), positive orange, negative purple, zero near white,
//   on a domain symmetric around 0 so that the middle always means 0;
// - 'sequential', for non-negative values such as weights: cividis
//   (d3.interpolateCividis), dark blue at the low end to yellow at the high
//   end, on `domain` (default [0, the largest entry]; weights pass [0, 1]).
// The number in each cell is black or white, whichever contrasts more with
// the cell's colour (at least 4.5:1 on any colour). The colours are data, the
// same in light and dark mode.
//
// Keyboard: the grid is one Tab stop (roving tabindex, ARIA grid pattern);
// arrow keys move between cells, Home/End go to the ends of the row, Enter
// or Space activates the cell. Every cell has an aria-label naming its row,
// its column and its value. Pointer: hovering selects, clicking activates.
// Under the grid a readout repeats the cell under the pointer or with focus
// in words and at the text size of the page (on a phone the cells are
// small); widgets with a readout of their own pass `readout: false`.
//
// The helper never computes a number: `update` receives the values (wasm
// results) and writes them through `show` (pass the widget's this.show, so
// each cell text carries data-value). Stylesheet: styles/heatmap.css (add it
// to the widget's static styles). See WIDGETS.md, "Heat maps".
import { interpolateCividis, interpolatePuOr, rgb, scaleDiverging, scaleSequential, select } from 'd3';
import { focusInPlace, setText } from './dom.js';
import { ownLayout } from './figure-layout.js';
import './d3-changes-only.js'; // d3 writes only what changes
import { formatNumber } from './format.js';

let counter = 0;

/** Row or column headers: `letter` with the subscripts 1..n, and each token's word as a note when `words` are given. */
export function headers(letter, n, words) {
  return Array.from({ length: n }, (_, i) => ({ label: letter, sub: String(i + 1), note: words?.[i] }));
}

/** The options of a heat map of attention weights (non-negative, each row summing to 1). */
export const WEIGHTS = { legendTitle: 'weight', scale: 'sequential', domain: [0, 1] };

/**
 * A heat map of the attention weights of a sentence (rows q_i, columns k_j,
 * with their words): `o` are heatmap's options; `describe` gets the two words.
 */
export function sentenceWeights(container, words, { describe, ...o }) {
  return heatmap(container, {
    rows: headers('q', words.length, words),
    cols: headers('k', words.length, words),
    ...WEIGHTS,
    cell: 46,
    format: (v) => v.toFixed(2),
    describe: (i, j, text) => describe(`\u201c${words[i]}\u201d looking at \u201c${words[j]}\u201d: ${text}`),
    ...o,
  });
}

/**
 * A heat map of a widget's queries (rows q_i, `queries` of them) against its keys (columns k_j, `keys` of them,
 * as many as the queries by default; each with its word when `words` are given), every cell written by the
 * widget's show(): `o` are heatmap's other options.
 */
export function queryKeyMap(widget, container, { queries, keys = queries, words, ...o }) {
  return heatmap(container, {
    rows: headers('q', queries, words),
    cols: headers('k', keys, words),
    show: (el, value, opts) => widget.show(el, value, opts),
    ...o,
  });
}

/** WCAG relative luminance of a CSS colour. */
function luminance(css) {
  const c = rgb(css);
  const lin = (u) => {
    const x = u / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** Whether a cell of colour `fill` takes white text (luminance(fill) < DARK_BELOW), remembered per colour. */
const darkFills = new Map();
function isDark(fill) {
  let dark = darkFills.get(fill);
  if (dark === undefined) {
    if (darkFills.size > 4096) darkFills.clear();
    dark = luminance(fill) < DARK_BELOW;
    darkFills.set(fill, dark);
  }
  return dark;
}

/**
 * Below this luminance white text contrasts more than black: the two ratios
 * (1.05 / (L + 0.05) and (L + 0.05) / 0.05) are equal where
 * (L + 0.05)² = 0.0525, and each is then above 4.58.
 */
const DARK_BELOW = Math.sqrt(0.0525) - 0.05;

/** The size of a cell's number, in px of the figure (heatmap.css, .hm-value), before fitting. */
const VALUE_PX = 12;

/**
 * The cell a key moves the focus to from row i, column j of a grid with m columns (ARIA grid pattern:
 * arrows one cell, Home and End the ends of the row), before it is clamped to the grid.
 */
const GRID_MOVES = {
  ArrowLeft: (i, j) => [i, j - 1],
  ArrowRight: (i, j) => [i, j + 1],
  ArrowUp: (i, j) => [i - 1, j],
  ArrowDown: (i, j) => [i + 1, j],
  Home: (i) => [i, 0],
  End: (i, j, m) => [i, m - 1],
};

/**
 * @param {HTMLElement} container  the heat map's <svg> is appended here
 * @param {{
 *   rows: { label: string, sub?: string, note?: string }[],   // header: label with subscript, a word under/after it
 *   cols: { label: string, sub?: string, note?: string }[],
 *   label: string,                                        // aria-label of the whole grid
 *   describe?: (i: number, j: number, text: string) => string, // aria-label of a cell (text = the value as shown)
 *   format?: (value: number) => string,                  // the text in a cell (default 3 significant digits)
 *   show?: (el: Element, value: number, options: object) => void, // writes a number (pass (el, v, o) => this.show(el, v, o))
 *   role?: string,                                       // data-role of the cell numbers (key "i-j", 1-based)
 *   legendTitle?: string,
 *   cell?: number,                                       // cell size in SVG units (default 52)
 *   scale?: 'diverging'|'sequential',                    // signed values (default) or non-negative ones
 *   domain?: [number, number],                           // sequential only: the values at the two ends
 *   readout?: boolean,                                   // the line under the grid (default true)
 *   onSelect?: (i: number, j: number, how: 'hover'|'focus'|'key') => void,
 *   onActivate?: (i: number, j: number, how: 'click'|'key') => void,
 * }} o
 * @returns {{ svg, node: SVGSVGElement, update: (values: ArrayLike<number>[], options?: { selected?: [number, number] }) => void, relabel: () => void,
 *             focus: (i: number, j: number) => void, cellNode: (i: number, j: number) => SVGGElement }}
 */
export function heatmap(
  container,
  {
    rows,
    cols,
    label,
    describe = (i, j, text) => `row ${i + 1}, column ${j + 1}: ${text}`,
    format = (v) => formatNumber(v, 3),
    show,
    role = 'cell',
    legendTitle = 'value',
    cell = 52,
    scale: kind = 'diverging',
    domain: fixedDomain = null,
    readout: withReadout = true,
    onSelect = () => {},
    onActivate = () => {},
  },
) {
  const id = `ag-heatmap-${(counter += 1)}`;
  const n = rows.length;
  const m = cols.length;
  const left = 64;
  const top = 44;
  const gridW = m * cell;
  const gridH = n * cell;
  const legendH = 84;
  const width = left + gridW + 12;
  const height = top + gridH + legendH;
  const write =
    show ??
    ((el, value) => {
      el.textContent = format(value);
    });

  const svg = select(container)
    .append('svg')
    .attr('class', 'heatmap')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('data-rows', n)
    .attr('data-cols', m);
  ownLayout(svg);
  const gridRoot = svg.append('g').attr('class', 'hm-grid').attr('role', 'grid').attr('aria-label', label);

  // A column's or a row's header (`axis` 'col' or 'row', `index` 1-based): its label with the
  // subscript at (x, y), and its note, if any, at (x, noteY).
  const headerCell = (parent, h, { axis, index, x, y, noteY, anchor }) => {
    const g = parent
      .append('g')
      .attr('role', axis === 'col' ? 'columnheader' : 'rowheader')
      .attr('class', `hm-${axis}head`)
      .attr(`data-${axis}`, index)
      .attr('aria-label', [h.label + (h.sub ?? ''), h.note].filter(Boolean).join(' '));
    const t = g
      .append('text')
      .attr('class', `hm-head hm-${axis}`)
      .attr('x', x)
      .attr('y', y)
      .attr('text-anchor', anchor);
    t.append('tspan').attr('class', 'hm-sym').text(h.label);
    if (h.sub !== undefined) t.append('tspan').attr('class', 'hm-sub').attr('dy', '0.3em').text(h.sub);
    if (h.note)
      g.append('text').attr('class', 'hm-note').attr('x', x).attr('y', noteY).attr('text-anchor', anchor).text(h.note);
    return g;
  };

  // Column headers: a row of columnheaders (for the grid's accessibility tree too).
  const headRow = gridRoot.append('g').attr('role', 'row');
  const colHeads = cols.map((c, j) =>
    headerCell(headRow, c, {
      axis: 'col',
      index: j + 1,
      x: left + j * cell + cell / 2,
      y: c.note ? top - 22 : top - 10,
      noteY: top - 6,
      anchor: 'middle',
    }),
  );

  // A rect `by` inside each edge of a cell.
  const insetRect = (parent, className, by) =>
    parent
      .append('rect')
      .attr('class', className)
      .attr('x', by)
      .attr('y', by)
      .attr('width', cell - 2 * by)
      .attr('height', cell - 2 * by);

  const cells = [];
  const rowHeads = [];
  for (let i = 0; i < n; i += 1) {
    const rowG = gridRoot.append('g').attr('role', 'row');
    const r = rows[i];
    const y = top + i * cell + cell / 2;
    const rh = headerCell(rowG, r, {
      axis: 'row',
      index: i + 1,
      x: left - 8,
      y: r.note ? y - 3 : y + 5,
      noteY: y + 13,
      anchor: 'end',
    });
    rowHeads.push(rh);
    const row = [];
    for (let j = 0; j < m; j += 1) {
      const g = rowG
        .append('g')
        .attr('class', 'hm-cell')
        .attr('role', 'gridcell')
        .attr('tabindex', i === 0 && j === 0 ? 0 : -1)
        .attr('data-cell', `${i + 1}-${j + 1}`)
        .attr('transform', `translate(${left + j * cell},${top + i * cell})`);
      // No colour until update() gives the cell a value (an SVG rect is black by default).
      g.append('rect').attr('class', 'hm-rect').attr('width', cell).attr('height', cell).attr('fill', 'none');
      const text = g
        .append('text')
        .attr('class', 'hm-value')
        .attr('x', cell / 2)
        .attr('y', cell / 2 + 5)
        .attr('text-anchor', 'middle')
        .attr('aria-hidden', 'true');
      text.attr('data-role', role).attr('data-key', `${i + 1}-${j + 1}`);
      // The focus ring (shown on :focus-visible): a band of the background colour
      // along the cell's edge, then a ring of the focus colour inside it, so the
      // ring contrasts with the band whatever the cell's colour.
      const ring = g.append('g').attr('class', 'hm-focus').attr('aria-hidden', 'true');
      insetRect(ring, 'hm-focus-band', 2);
      insetRect(ring, 'hm-focus-ring', 5.5);
      g.on('pointerenter', (event) => {
        showReadout(i, j);
        if (event.pointerType === 'mouse') onSelect(i, j, 'hover');
      });
      g.on('click', () => {
        focusCell(i, j);
        onActivate(i, j, 'click');
      });
      g.on('focus', () => {
        showReadout(i, j);
        onSelect(i, j, 'focus');
      });
      g.on('keydown', (event) => keydown(event, i, j));
      // `last`: what was last written to the cell, so that update() writes only what changed.
      row.push({
        g,
        rect: g.select('rect'),
        text,
        gNode: g.node(),
        rectNode: g.select('rect').node(),
        textNode: text.node(),
        last: {
          value: undefined,
          domain: null,
          fill: undefined,
          tone: undefined,
          label: undefined,
          selected: undefined,
        },
      });
    }
    cells.push(row);
  }
  gridRoot
    .append('rect')
    .attr('class', 'hm-frame')
    .attr('x', left)
    .attr('y', top)
    .attr('width', gridW)
    .attr('height', gridH)
    .attr('aria-hidden', 'true');
  // The selected cell: a light and a dark ring, visible on every colour of the scale and in both themes.
  const outline = gridRoot
    .append('g')
    .attr('class', 'hm-outline')
    .attr('aria-hidden', 'true')
    .attr('visibility', 'hidden');
  outline
    .append('rect')
    .attr('class', 'hm-outline-outer')
    .attr('width', cell - 2)
    .attr('height', cell - 2);
  outline
    .append('rect')
    .attr('class', 'hm-outline-inner')
    .attr('width', cell - 2)
    .attr('height', cell - 2);

  // Legend: a gradient bar over the scale's domain, with the ends or the
  // middle (0 of a diverging scale) labelled, and marks at the lowest and
  // highest entry.
  const barX = left;
  const barW = Math.max(gridW, 120);
  const barY = top + gridH + 36;
  const legend = svg
    .append('g')
    .attr('class', 'hm-legend')
    .attr('role', 'group')
    .attr('aria-label', `Colour legend: ${legendTitle}`);
  const gradient = svg.insert('defs', ':first-child').append('linearGradient').attr('id', `${id}-grad`);
  for (let s = 0; s <= 10; s += 1)
    gradient
      .append('stop')
      .attr('offset', `${s * 10}%`)
      .attr('stop-color', colour(s / 10));
  legend
    .append('text')
    .attr('class', 'hm-legend-title')
    .attr('x', barX - 8)
    .attr('y', barY + 9)
    .attr('text-anchor', 'end')
    .text(legendTitle);
  legend
    .append('rect')
    .attr('class', 'hm-bar')
    .attr('x', barX)
    .attr('y', barY)
    .attr('width', barW)
    .attr('height', 10)
    .attr('fill', `url(#${id}-grad)`);
  const tick = (x, text, anchor = 'middle') => {
    legend
      .append('line')
      .attr('class', 'hm-zero')
      .attr('x1', x)
      .attr('x2', x)
      .attr('y1', barY - 3)
      .attr('y2', barY + 13);
    legend
      .append('text')
      .attr('class', 'hm-tick')
      .attr('x', x)
      .attr('y', barY + 24)
      .attr('text-anchor', anchor)
      .text(text);
  };
  if (kind === 'sequential') {
    // The ends of a given domain are the learner's inputs to the scale (e.g. 0 and 1 for weights), not results.
    if (fixedDomain) {
      tick(barX, formatNumber(fixedDomain[0], 3), 'start');
      tick(barX + barW, formatNumber(fixedDomain[1], 3), 'end');
    } else tick(barX, '0', 'start');
  } else tick(barX + barW / 2, '0');
  const mark = (cls, what) => {
    const g = legend.append('g').attr('class', `hm-mark ${cls}`);
    g.append('path').attr('d', cls === 'hm-min' ? 'M0,0 l-5,7 h10 z' : 'M0,0 l-5,-7 h10 z');
    const t = g.append('text').attr('class', 'hm-mark-label').attr('text-anchor', 'middle');
    t.append('tspan').text(`${what} `);
    const v = t.append('tspan').attr('class', 'hm-mark-value').attr('data-role', `${role}-${what}`);
    return { g, t, v };
  };
  const lowMark = mark('hm-min', 'lowest');
  const highMark = mark('hm-max', 'highest');

  let scale =
    kind === 'sequential'
      ? scaleSequential(colour).domain(fixedDomain ?? [0, 1])
      : scaleDiverging(colour).domain([-1, 0, 1]);
  let current = [0, 0];
  let shownValues = null; // the last values given to update()
  let readoutCell = null; // the cell under the pointer or with focus, once there is one
  let selectedShown = null; // the selection the outline and headers show
  let shownDomain = null; // the domain of the colour scale, as text

  function colour(t) {
    return kind === 'sequential' ? interpolateCividis(t) : interpolatePuOr(t); // PuOr: 0 purple (negative), 1 orange (positive)
  }

  // The readout under the grid (HTML, so it keeps the page's text size when
  // the SVG is scaled down). aria-hidden: a focused cell's aria-label already
  // says the same to screen readers.
  // It shows the selected cell until the pointer or the focus reaches one.
  const readoutLine = withReadout
    ? select(container).append('p').attr('class', 'hm-readout').attr('aria-hidden', 'true')
    : null;
  function showReadout(i, j) {
    readoutCell = [i, j];
    writeReadout();
  }
  function writeReadout() {
    if (!readoutLine || !shownValues) return;
    const [i, j] = readoutCell ?? current;
    setText(readoutLine.node(), describe(i, j, cells[i][j].text.node().textContent));
  }

  // The one cell with tabindex 0 (roving tabindex).
  let tabStop = cells[0]?.[0] ?? null;
  function setTabStop(c) {
    if (c === tabStop) return;
    tabStop?.g.attr('tabindex', -1);
    c.g.attr('tabindex', 0);
    tabStop = c;
  }

  function focusCell(i, j) {
    focusInPlace(cells[i][j].g.node());
    setTabStop(cells[i][j]);
  }

  function keydown(event, i, j) {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onActivate(i, j, 'key');
      return;
    }
    if (!Object.hasOwn(GRID_MOVES, event.key)) return;
    event.preventDefault();
    const [ti, tj] = GRID_MOVES[event.key](i, j, m);
    const ni = Math.min(n - 1, Math.max(0, ti));
    const nj = Math.min(m - 1, Math.max(0, tj));
    if (ni === i && nj === j) return;
    focusCell(ni, nj); // fires focus -> onSelect(.., 'focus')
  }

  /** New values (rows of wasm results); `selected` ([i, j], 0-based) is outlined. */
  function update(values, { selected = current } = {}) {
    current = selected;
    shownValues = values;
    let low = null;
    let high = null;
    let extent = 0;
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < m; j += 1) {
        const v = values[i][j];
        if (low === null || v < low.v) low = { v };
        if (high === null || v > high.v) high = { v };
        if (Math.abs(v) > extent) extent = Math.abs(v);
      }
    }
    if (!(extent > 0) || !Number.isFinite(extent)) extent = 1;
    const [lo, hi] =
      kind === 'sequential'
        ? (fixedDomain ?? [0, Number.isFinite(high.v) && high.v > 0 ? high.v : 1])
        : [-extent, extent];
    const domainKey = `${lo},${hi}`;
    if (domainKey !== shownDomain) {
      scale =
        kind === 'sequential'
          ? scaleSequential(colour).domain([lo, hi]).clamp(true)
          : scaleDiverging(colour).domain([-extent, 0, extent]).clamp(true);
      shownDomain = domainKey;
    }
    // Only what changed is written (a query change leaves most cells as they were).
    for (let i = 0; i < n; i += 1) {
      for (let j = 0; j < m; j += 1) {
        const v = values[i][j];
        const c = cells[i][j];
        const { last } = c;
        const isSelected = i === selected[0] && j === selected[1];
        if (isSelected !== last.selected) {
          c.gNode.setAttribute('aria-selected', String(isSelected));
          last.selected = isSelected;
        }
        // The same value on the same scale: colour, number and label are as they were.
        if (Object.is(v, last.value) && last.domain === shownDomain) continue;
        last.value = v;
        last.domain = shownDomain;
        const fill = Number.isFinite(v) ? scale(v) : null;
        if (fill !== last.fill) {
          c.rectNode.setAttribute('fill', fill ?? 'none');
          // Black or white text, whichever contrasts more with the cell (no fill: the theme's text colour).
          const tone = fill === null ? null : isDark(fill) ? 'is-dark' : 'is-light';
          if (tone !== last.tone) {
            c.gNode.classList.toggle('is-dark', tone === 'is-dark');
            c.gNode.classList.toggle('is-light', tone === 'is-light');
            last.tone = tone;
          }
          last.fill = fill;
        }
        write(c.textNode, v, { format });
        // A number wider than its cell ("−0.00781") is set smaller to fit, never cut or run into the next
        // cell: a monospace character is about 0.6 em, and 3 units are kept free on each side.
        const fit = Math.min(1, (cell - 6) / (0.6 * VALUE_PX * c.textNode.textContent.length)).toFixed(2);
        if (fit !== last.fit) {
          c.textNode.style.setProperty('--_fit', fit);
          last.fit = fit;
        }
        const label = describe(i, j, c.textNode.textContent);
        if (label !== last.label) {
          c.gNode.setAttribute('aria-label', label);
          last.label = label;
        }
      }
    }
    // Legend marks at the lowest and the highest entry (the numbers are entries of `values`).
    const bx = (v) => barX + (((Number.isFinite(v) ? Math.max(lo, Math.min(hi, v)) : lo) - lo) / (hi - lo)) * barW;
    placeMark(lowMark, bx(low.v), barY + 12, barY + 40, low.v);
    placeMark(highMark, bx(high.v), barY - 2, barY - 12, high.v);
    // Outline and headers of the selected cell.
    const [si, sj] = selected;
    if (selectedShown?.[0] !== si || selectedShown?.[1] !== sj) {
      outline
        .attr('transform', `translate(${left + sj * cell + 1},${top + si * cell + 1})`)
        .attr('visibility', 'visible');
      rowHeads.forEach((g, i) => g.classed('is-selected', i === si));
      colHeads.forEach((g, j) => g.classed('is-selected', j === sj));
      selectedShown = [si, sj];
    }
    // The tab stop: the cell with focus, else the selected one.
    const active = svg.node().getRootNode().activeElement;
    const focused = active ? cells.flat().find((c) => c.g.node() === active) : null;
    setTabStop(focused ?? cells[si][sj]);
    writeReadout();
  }

  function placeMark(mk, x, y, textY, value) {
    const anchor = x < barX + 40 ? 'start' : x > barX + barW - 40 ? 'end' : 'middle';
    const at = `${x},${y},${textY},${anchor}`;
    if (mk.at !== at) {
      mk.g.attr('transform', `translate(${x},${y})`);
      const dx = anchor === 'start' ? -6 : anchor === 'end' ? 6 : 0;
      mk.t
        .attr('x', dx)
        .attr('y', textY - y)
        .attr('text-anchor', anchor);
      mk.at = at;
    }
    write(mk.v.node(), value, { format });
  }

  /** Writes every cell's aria-label again (for a `describe` whose words changed while the values did not). */
  function relabel() {
    for (let i = 0; i < n; i += 1)
      for (let j = 0; j < m; j += 1) {
        const c = cells[i][j];
        const label = describe(i, j, c.textNode.textContent);
        c.gNode.setAttribute('aria-label', label);
        c.last.label = label;
      }
    writeReadout();
  }

  return {
    svg,
    node: svg.node(),
    update,
    relabel,
    focus: focusCell,
    cellNode: (i, j) => cells[i][j].g.node(),
    colour: (v) => scale(v),
    readout: () => readoutLine?.node() ?? null,
  };
}
