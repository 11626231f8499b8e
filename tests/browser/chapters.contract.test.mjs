// The chapter contract: what every chapter of the tour (web/chapters.js) with
// a widget must do, on one page each. It opens with no console error, page
// error, dialog, CSP violation or foreign request; every number it shows is a
// result in the kernel-call log; a chapter that trains a model opens with it
// untrained, at step 0; it exports its figure (SVG, PNG) and its numbers
// (JSON, CSV); its prediction reveals an answer, takes it and counts in the
// table of contents; the link the shell writes reopens the same state and
// digits (trained once Train is pressed); it fits 1024, 375 and 320 px in
// light and 375 px in dark, every input has a label, its plane does not scroll
// on touch, and the labels of its figures do not overlap. What is special to
// a chapter is in <chapter id>.chapter.mjs: its cases run after the contract's
// test, in the chapter's block, on the page the contract opened. It takes no
// screenshot (nothing would compare it): scripts/screenshots.mjs captures the
// same views of every chapter, 1024 px light and 375 px dark, and compares two
// captures pixel by pixel.
import { readdirSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { CHAPTERS } from '../../web/chapters.js';
import { caseTests, chapterCases } from './chapter-tests.mjs';
import {
  chapterPath,
  cspViolations,
  exportFiles,
  expectClean,
  openChapter,
  overflow,
  respond,
  rowsOf,
  RUNS,
  runStatuses,
  settledUrl,
  SHORT_RUNS,
  trainWaiting,
  urlParams,
  useEnv,
  waitReady,
  waitRun,
} from './helpers.mjs';
import { expectAllLogged, expectClose, readNumbers } from './shown-numbers.mjs';
import { attentionSlice, dot, entropyBits, onlineSoftmax, rope, softcap, softmax } from '../reference/float64.mjs';
import { K as MASKS_K, Q as MASKS_Q, V as MASKS_V } from '../../web/models/masks.js';
import { K as SHARED_K, Q as SHARED_Q, V as SHARED_V } from '../../web/models/shared-keys.js';
import { K as KV_K, Q as KV_Q, V as KV_V } from '../../web/models/kv-cache.js';
import { K as ONLINE_K, V as ONLINE_V } from '../../web/models/online-softmax.js';

const WITH_WIDGET = CHAPTERS.filter((c) => c.tag);
/** Listed as "coming" (no widget yet): nothing to test. */
const COMING = CHAPTERS.filter((c) => !c.tag).map((c) => c.id);
/** Each chapter's own cases (<id>.chapter.mjs), by id. */
const CASES = new Map();
for (const { id } of WITH_WIDGET) CASES.set(id, await chapterCases(id));
/**
 * Chapters that train a model (Part 4): they open with each run waiting at step 0, untrained, until the learner
 * answers or presses Train; a link opens the same way (it holds the settings, never a trained model).
 */
const WAITS = new Set(['learn-to-attend', 'scale-in-training', 'heads-learn', 'your-task']);
/** The widths checked for overflow in each scheme. */
const WIDTHS = { light: [1024, 375, 320], dark: [375] };
/**
 * What a chapter's exports hold on its default state, beyond the contract:
 * the JSON's `state` (toEqual) or `statePart` (toMatchObject), `stateText`,
 * `numbers` (a value exactly, or [value, tolerance]); CSV lines it contains
 * (`csv`: a string is a whole line, a pattern matches the text), `csvNumbers`
 * (name: [value, tolerance]) and `csvRows` (rows that start with a digit);
 * patterns of the SVG (`svg`).
 */
const AB = { state: { a: [3, 4], b: [4, 3] }, stateText: 'v=1&a=3,4&b=4,3' };
const SOFTMAX_4 = softmax([1, 0.5, 0, -0.5].map(Math.fround), 1, 4);
const MASKS_CAUSAL = attentionSlice(MASKS_Q.flat(), MASKS_K.flat(), MASKS_V.flat(), 6, 6, 2, 2, {
  scale: Math.fround(Math.SQRT1_2),
  causal: true,
});
const ROPE_TURNED = [rope([3, 1], [2], 1, 1, 2).y, rope([1, 2], [5], 1, 1, 2).y].map((v) => Array.from(v));
const ROPE_DECAY_40 = rope(new Array(64).fill(1), [40], 1, 1, 64).y.reduce((a, b) => a + b);
// Query head 1 of multi-head attention over its own 5 keys, one decoding step.
const SHARED_HEAD_1 = attentionSlice(SHARED_Q[0], SHARED_K[0].flat(), SHARED_V[0].flat(), 1, 5, 2, 2, {
  scale: Math.fround(Math.SQRT1_2),
});
const KV_FIRST_4 = [KV_Q, KV_K, KV_V].map((rows) => rows.slice(0, 4).flat());
const KV_STEP_4 = attentionSlice(...KV_FIRST_4, 4, 4, 2, 2, { scale: Math.fround(Math.SQRT1_2), causal: true });
// Tile 1 of 4 keys of q = (2, 1) against the twelve keys (float64 online softmax); the bounds of the simd128
// variant, which hold the scalar one's for m and l too (the same score bound for d_k = 2, a larger exp bound).
const ONLINE_1 = onlineSoftmax([2, 1], ONLINE_K.flat(), ONLINE_V.flat(), 1, 12, 2, 2, {
  scale: Math.fround(Math.SQRT1_2),
  tileKeys: 4,
  variant: 'simd128',
}).steps[0];
const EXPORTED = {
  atom: {
    state: {
      q: rowsOf('0.5,0.5;1,2;2,0.5;-1,1.5'),
      k: rowsOf('0.5,-0.5;2,1.5;-1,1;2.5,-0.5'),
      cell: [3, 2],
    },
    // S₃₂ (the chosen cell) and S₂₃ are held until the answer, and left out of the exports.
    numbers: { 'score.2-2': 5, 'score.4-4': -3.25 },
    csv: ['score.2-2,5'],
    svg: [/linearGradient/],
  },
  'dot-product': { ...AB, numbers: { dot: 24 }, csv: ['dot,24'] },
  'why-agree': { ...AB, numbers: { side: 2, law: 2 }, csv: ['expand,2'], svg: [/marker-end="url\(#why-arrow-d\)"/] },
  // (a.b^) b^ = 4.8 (0.8, 0.6): 3.84 is 3.8399999... or 3.8400001... in float32, compared as a number.
  projection: {
    ...AB,
    numbers: { 'scalar-projection': [4.8, 1e-6] },
    csvNumbers: { 'vector-projection.1': [3.84, 1e-6] },
  },
  // The hatch pattern and its use.
  sign: {
    ...AB,
    numbers: { dot: 24, 'demo-score.long': 6 },
    csv: ['demo-score.short,6'],
    svg: [/sign-hatch[\s\S]*sign-hatch/],
  },
  length: { state: { d: [1, 1], t: 1 }, stateText: 'v=1&d=1,1&t=1', numbers: { 'score.1': 1 }, csv: ['score.1,1'] },
  cosine: {
    state: { q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false },
    stateText: 'v=1&q=1,1&k1=1,1&k2=5,5&normalise=0',
    numbers: { 'dot.2': 10 },
    csv: ['dot.1,2'],
  },
  qkt: {
    state: {
      x: rowsOf('1,0,1;0,2,1;2,1,0;-1,0,2'),
      wq: rowsOf('1,0;0,1;1,-1'),
      wk: rowsOf('0,1;1,0;1,1'),
      cell: [1, 2],
    },
    stateText: 'v=1&x=1,0,1;0,2,1;2,1,0;-1,0,2&wq=1,0;0,1;1,-1&wk=0,1;1,0;1,1&cell=1,2',
    numbers: { 'score.1-2': 5, 'q.1-1': 2 },
    csv: ['dot,5'],
  },
  orthogonality: {
    state: { q: [2, 1], k1: [1, 1], k2: [-1, 2], k3: [-1, -0.5] },
    stateText: 'v=1&q=2,1&k1=1,1&k2=-1,2&k3=-1,-0.5',
    numbers: { 'score.2': 0, 'gram.22': 1 },
    csv: ['score.1,3'],
  },
  values: {
    state: { values: rowsOf('1,5;5,1;-4,-3'), alpha: [0.5, 0.3, 0.2] },
    numbers: { 'y.2': [2.2, 1e-6] },
    csv: [/^name,value\r\n/, /\r\ny\.1,/],
  },
  'convex-hull': {
    state: { values: rowsOf('-4,-2;4,-3;1,4'), alpha: [0.2, 0.3, 0.5] },
    numbers: { 'y.1': [0.9, 1e-6] },
    csv: [/\r\nsum,/],
    svg: [/<path d="M256,232 L64,208(\.0+\d*)? L184,6[34][.\d]* Z"/], // the hull, closed
  },
  entropy: {
    state: { values: rowsOf('1,0;0,1;1,1'), logt: 0 },
    numbers: { entropy: [entropyBits(softmax([1, 0.5, 2], 1, 3)), 1e-5] },
    csv: [/\r\nentropy,/],
  },
  softmax: {
    state: { s: [2, 1, 0.5, -1] },
    stateText: 'v=1&s=2,1,0.5,-1',
    numbers: { 'stable-alpha.1': [softmax([2, 1, 0.5, -1].map(Math.fround), 1, 4)[0], 1e-6] },
    csv: [/stable-sum,/],
  },
  competition: {
    state: { s: [1, 0.5, 0, -0.5], j: 1, delta: 1 },
    // The Jacobian map is held until the answer (its signs answer it): no figure, no J in the exports.
    numbers: { 'alpha.1': [SOFTMAX_4[0], 1e-6] },
    csv: [/\r\nrow-sum\.1,/],
  },
  'matrix-form': {
    statePart: { causal: false },
    numbers: { 'row-sum.1': [1, 1e-6] },
    svg: [/^<svg[^>]*data-rows="4"/],
  },
  // Before the answer its scores and weights are held: the CSV lists the numbers shown (X, K, V).
  'content-to-weights': { statePart: { step: 5 }, csv: [/^name,value\r\n/, /\r\nx\.1-1,/] },
  // Before the answer the changes are held: the CSV has the weights alone.
  explain: { csv: [/^layer,query,key,key_word,weight\r\n/], csvRows: 6 },
  // Head 2's map ("same word") is held before the answer: heads 1 and 3 are exported.
  'multi-head': { csv: [/^head,query,query_word,key,key_word,weight\r\n/], csvRows: 2 * 25 },
  // Causal: q1 sees k1 alone (weight exactly 1), k2 is hidden (-Infinity, weight exactly 0); A21 within A21 eRow (the weights' relative bound).
  masks: {
    statePart: { kind: 'causal', fill: 'inf', row: 3 },
    numbers: {
      'weight.1-1': 1,
      'weight.1-2': 0,
      'mask.1-2': '-Infinity', // JSON has no -Infinity: written as the string, never null
      'weight.2-1': [MASKS_CAUSAL.A[6], MASKS_CAUSAL.A[6] * MASKS_CAUSAL.eRow[1]],
    },
    csv: [/^query,key,mask,score,masked_score,weight\r\n/, /\r\n1,2,-Infinity,[^,]+,-Infinity,0\r\n/],
    csvRows: 36,
    svg: [/^<svg[^>]*xmlns/, /<svg[^>]*data-rows="6"[^]*<svg[^>]*data-rows="6"/], // both heat maps, M and A
  },
  // q = (3, 1) at 2 and k = (1, 2) at 5 (float64 turns; each turned entry within 4u(|x_a| + |x_b|), the dot
  // within 12u|q|_1|k|_1); q0.k40 of the decay (d = 64 ones): 64 entries within 8u, summed within 63u each.
  rope: {
    state: { q: [3, 1], k: [1, 2], m: 2, n: 5, s: 0, base: '10000', r: 40 },
    stateText: 'v=1&q=3,1&k=1,2&m=2&n=5&s=0&base=10000&r=40',
    numbers: { 'plain-score': 5, 'decay.0': 64, score: [dot(...ROPE_TURNED), 12 * 12 * 2 ** -24] },
    csv: ['plain-score,5', 'curve.0,64'],
    csvNumbers: { 'curve.40': [ROPE_DECAY_40, (8 * 64 + 64 * 64) * 2 ** -24] },
  },
  // Multi-head: head 1's weights within A eRow (the weights' relative bound), y within attentionSlice's bound.
  'shared-keys': {
    state: { kv: '4', head: 1, q: SHARED_Q },
    stateText: 'v=1&kv=4&head=1&q=1.5,1;-1,1.5;0.5,-1.5;-1.5,-0.5',
    numbers: {
      'weight.1-1': [SHARED_HEAD_1.A[0], SHARED_HEAD_1.A[0] * SHARED_HEAD_1.eRow[0]],
      'weight.1-5': [SHARED_HEAD_1.A[4], SHARED_HEAD_1.A[4] * SHARED_HEAD_1.eRow[0]],
      'y.1': [SHARED_HEAD_1.Y[0], SHARED_HEAD_1.bound[0]],
    },
    csv: [/^query_head,kv_head,key,weight\r\n/, /\r\n4,4,5,[^,\r\n]+(\r\n|$)/],
    csvRows: 20,
    svg: [/^<svg[^>]*data-kv="4"/],
  },
  // Step 4: the cache holds k and v of tokens 1..4 exactly; y4 (row 4 of the causal float64 reference) within its
  // materialized bound; 4 scores with the cache, 4·5/2 = 10 recomputing, 4·5·6/6 = 20 over steps 1..4.
  'kv-cache': {
    state: { t: 4 },
    stateText: 'v=1&t=4',
    numbers: {
      'k.4-2': KV_K[3][1],
      'v.3-1': KV_V[2][0],
      'y.1': [KV_STEP_4.Y[6], KV_STEP_4.bound[6]],
      'scores-cached': 4,
      'scores-full': 10,
      'sum-full': 20,
    },
    csv: ['sum-cached,10', 'cached.8,8', 'recomputed.8,36'],
    csvNumbers: { 'y.2': [KV_STEP_4.Y[7], KV_STEP_4.bound[7]] },
  },
  // s1 = 20 and s6 = -1 exactly (q = 1, scale 1); capped within the cap's 6cu (registry.inc), c = 10; the curve
  // from -30 to 30 (129 scores), capped exactly 0 at s = 0.
  softcap: {
    state: { c: 10, s1: 20, masked: false },
    stateText: 'v=1&c=10&s1=20&masked=0',
    numbers: { 'score.1': 20, 'lead.plain': 21, 'capped.1': [softcap(20, 10), 60 * 2 ** -24] },
    csv: ['score.6,-1', 'curve.64,0'],
    csvNumbers: { 'curve.0': [softcap(-30, 10), 60 * 2 ** -24] },
    svg: [/>\+c = 10</, />k\u2081</, /(<circle [^>]*r="4"[^>]*\/>[\s\S]*){6}/], // the labels and the six keys' dots
  },
  // Tile 1: no correction (c = 1 exactly), m the tile's max, l within the bound of onlineSoftmax.
  'online-softmax': {
    state: { q: [2, 1], tile: '4', step: 1 },
    stateText: 'v=1&q=2,1&tile=4&step=1',
    numbers: { correction: 1, m: [ONLINE_1.m, ONLINE_1.mBound], l: [ONLINE_1.l, ONLINE_1.lBound * ONLINE_1.l] },
    csv: ['correction,1'],
  }, // Two seeded runs of 20 steps at step 0, one row: the loss and entropy of both models, no gradient yet.
  'scale-in-training': {
    state: { dk: 256, seed: 3, lr: 0.003, steps: 20 },
    stateText: 'v=1&dk=256&seed=3&lr=0.003&steps=20',
    csv: [
      'step,loss_scaled,entropy_scaled,grad_wq_scaled,loss_unscaled,entropy_unscaled,grad_wq_unscaled',
      // Step 0: both models untrained, the gradient of W_Q on the first batch included.
      /\r\n0(,[^,\r\n]+){6}\r\n/,
    ],
    csvRows: 1,
    // The three panels' titles, the legend, and the unscaled run's dashed curve.
    svg: [
      />loss \(nats\)</,
      />entropy \(bits\)</,
      />unscaled</,
      /<path d="M[^"]+" fill="none"[^>]*stroke-dasharray="5px, 3px"/,
    ],
  },
  // Step 0, the untrained model: query 1 sees key 1 alone (weight exactly 1), key 2 is hidden (exactly 0).
  'learn-to-attend': {
    state: { seed: 1, lr: '0.01', steps: '100', pos: 5 },
    stateText: 'v=2&seed=1&lr=0.01&steps=100&pos=5',
    numbers: { 'weight.1-1': 1, 'weight.1-2': 0 },
    csv: ['weight.1-2,0', /\r\naccuracy\.0,/, /\r\nq\.8-16,/],
    svg: [
      /aria-label="Training loss[^"]*"[^]*aria-label="Weights of the held-out[^]*aria-label="The query of the chosen/,
    ],
  },
  // Step 0 of 30 (SHORT_RUNS): the first query sees only key 1 (weight exactly 1), and no key after it (exactly 0).
  'heads-learn': {
    state: { seed: 1, steps: 30, mask: rowsOf('1,1;1,1'), head: '1-0' },
    stateText: 'v=1&seed=1&steps=30&mask=1,1;1,1&head=1-0',
    numbers: { 'weight.1-1': 1, 'weight.1-2': 0 },
    csv: ['weight.1-1,1', 'weight.1-16,0'],
    svg: [/aria-label="The attention weights of the four heads/, /aria-label="Attention weights of the chosen head/],
  },
  // The default run of 200 steps at step 0: one row of the curves, no gradient yet; query 1 of the causal example
  // sees key 1 alone (softmax of one score: weight exactly 1, key 2 exactly 0).
  'your-task': {
    statePart: { task: 'copyPrevious', t: 8, vocab: 8, d: 16, heads: 2, layers: 1, steps: 200, seed: 1 },
    numbers: { 'weight.1-1': 1, 'weight.1-2': 0 },
    csv: [/^step,loss,grad_norm,heldout_loss,heldout_accuracy\r\n/, /\r\n0,[^,\r\n]+,,[^,\r\n]+,[^,\r\n]+\r\n$/],
    csvRows: 1,
  },
};

/** The chapter's exports against its EXPORTED entry (json parsed, csv and svg as text). */
function expectExported(id, json, csv, svg) {
  const want = EXPORTED[id];
  if (!want) return;
  if (want.state) expect(json.state).toEqual(want.state);
  if (want.statePart) expect(json.state).toMatchObject(want.statePart);
  if (want.stateText) expect(json.stateText).toBe(want.stateText);
  for (const [name, v] of Object.entries(want.numbers ?? {}))
    if (Array.isArray(v)) expectClose(json.numbers[name], v[0], v[1], `exported ${name}`);
    else expect(json.numbers[name]).toBe(v);
  const lines = csv.split('\r\n');
  for (const line of want.csv ?? [])
    if (typeof line === 'string') expect(lines).toContain(line);
    else expect(csv).toMatch(line);
  for (const [name, [v, tol]] of Object.entries(want.csvNumbers ?? {})) {
    const row = lines.find((r) => r.startsWith(`${name},`));
    expect(row).toBeDefined();
    expectClose(Number(row.split(',')[1]), v, tol, `exported ${name} (CSV)`);
  }
  if (want.csvRows !== undefined) expect(lines.filter((l) => /^\d/.test(l)).length).toBe(want.csvRows);
  for (const pattern of want.svg ?? []) expect(svg).toMatch(pattern);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Waits for the end of the worker run of a chapter that has one (data-run on the host). */
const settle = (page, { id, tag }) => RUNS.has(id) && waitRun(page, tag, 180000);

/** The scheme's widths: no horizontal overflow; labelled inputs, a plane that keeps touches. */
async function expectFits(page, { tag }, scheme) {
  for (const width of WIDTHS[scheme]) {
    await page.setViewportSize({ width, height: 1000 });
    expect(await overflow(page)).toBeLessThanOrEqual(0);
  }
  const widget = await page.locator(tag).evaluate((el) => ({
    unlabelled: [...el.shadowRoot.querySelectorAll('input, select, textarea')]
      .filter((i) => i.labels.length === 0 && !i.getAttribute('aria-label') && !i.getAttribute('aria-labelledby'))
      .map((i) => i.outerHTML.slice(0, 80)),
    touch: [...el.shadowRoot.querySelectorAll('svg.plane')].map((svg) => getComputedStyle(svg).touchAction),
  }));
  expect(widget.unlabelled).toEqual([]);
  for (const touch of widget.touch) expect(touch).toBe('none');
}

/**
 * Pairs of labels of one layer of the chapter's figures (arrow and point names, the words beside the queries
 * and keys) whose boxes overlap by more than a pixel. A figure is an SVG scaled as a whole, so labels that
 * clear each other at one width clear each other at every width.
 */
const labelOverlaps = (page, { id, tag }) =>
  page
    .locator(`#ch-${id} ${tag}`)
    .first()
    .evaluate((host) => {
      const out = [];
      for (const layer of host.shadowRoot.querySelectorAll('.layer-labels, .layer-rows, .layer-qk')) {
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
    });

const env = useEnv();
describe('the chapter contract', () => {
  test('every chapter of the tour has a widget or is listed as coming', () => {
    expect(WITH_WIDGET.length + COMING.length).toBe(CHAPTERS.length);
    expect(WITH_WIDGET.length).toBeGreaterThan(0);
  });

  test('every <id>.chapter.mjs holds the cases of a chapter of the tour with a widget', () => {
    const files = readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.chapter.mjs'));
    expect(files.map((f) => f.slice(0, -'.chapter.mjs'.length)).filter((id) => !CASES.get(id))).toEqual([]);
  });

  describe.each(WITH_WIDGET.map((c) => [c.id, c]))('%s', (id, chapter) => {
    const { tag } = chapter;
    const search = SHORT_RUNS[id] ?? '';
    /** The page the chapter's cases start on: the contract's, once its checks passed. */
    const shared = {};

    test('opens clean, every number logged; exports; predicts; its link reopens it; fits in light and in dark; no two labels of a figure overlap', async () => {
      const opened = await openChapter(env, id, tag, { search, height: 1000 });
      const { page } = opened;
      try {
        await settle(page, chapter);
        await expectAllLogged(page, tag);
        if (WAITS.has(id))
          for (const status of await runStatuses(page, tag)) expect(status).toMatch(/^Ready: step 0 of \d+, untrained/);

        const kinds = await page.locator(`${tag} [data-export]`).evaluateAll((els) => els.map((e) => e.dataset.export));
        expect(kinds).toEqual(expect.arrayContaining(['svg', 'png', 'json', 'csv']));
        const { state, stateText, figure } = await page
          .locator(tag)
          .evaluate((el) => ({ state: el.state, stateText: el.stateText, figure: Boolean(el.figureToExport()) }));
        // The exports in one visit to the menu: the numbers (JSON, CSV), and the figure (SVG, PNG) if there is one.
        const files = await exportFiles(page, tag, figure ? ['json', 'csv', 'svg', 'png'] : ['json', 'csv']);
        const json = JSON.parse(files.json.bytes.toString('utf8'));
        expect([json.state, json.stateText]).toEqual([state, stateText]);
        const csv = files.csv.bytes.toString('utf8');
        expect(csv.split('\r\n').filter(Boolean).length).toBeGreaterThan(1);
        let svgText = '';
        if (figure) {
          expect(files.svg.name).toBe(`${tag}.svg`);
          svgText = files.svg.bytes.toString('utf8');
          expect(svgText).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
          expect([...files.png.bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
        } else {
          // A widget with no figure says so instead of downloading an empty one.
          await page.locator(`${tag} details.export summary`).click();
          await page.locator(`${tag} [data-export="svg"]`).click();
          await expect(page.locator(`${tag} .note`).first().textContent()).resolves.toMatch(/no figure to export/);
          await page.locator(`${tag} details.export summary`).click();
        }
        expectExported(id, json, csv, svgText);

        // Predict: any first choice is marked right or wrong, with the answer shown; the answer is then right.
        const predict = page.locator(`${tag} .predict`).first();
        // The result once the reveal has answered (a reveal may wait for the worker's model, as in Part 4).
        const result = async () => {
          const el = await predict.elementHandle();
          await page.waitForFunction((e) => e.dataset.result, el, { timeout: 60000 }); // a reveal may train first
          return el.getAttribute('data-result');
        };
        // The first choice, a number in range, or the point where the marker waits; then the answer shown.
        const firstResponse = {
          choice: () => predict.locator('.predict-choice').first().getAttribute('data-choice'),
          number: async () => '1',
          point: () => page.locator(`${tag} .handle-guess`).getAttribute('aria-valuetext'),
        }[await predict.getAttribute('data-kind')];
        await respond(page.locator(tag), await firstResponse());
        await expect(result()).resolves.toMatch(/^(right|wrong)$/);
        expect((await predict.locator('.predict-result').textContent()).length).toBeGreaterThan(10);
        const answer = await predict.getAttribute('data-answer');
        if (await predict.locator('.predict-choice').count())
          expect(await predict.locator('.predict-choice.is-answer').getAttribute('data-choice')).toBe(answer);
        await predict.locator('.predict-again').click();
        await respond(page.locator(tag), answer);
        await expect(result()).resolves.toBe('right');
        const progress = page.locator(`#toc li[data-chapter="${id}"] [data-role=progress]`);
        await expect(progress.textContent()).resolves.toMatch(/predicted/);
        await settle(page, chapter);
        await expectAllLogged(page, tag);

        // The link: the shell wrote the chapter and its state (reopened at the end, in this page).
        const params = await urlParams(page);
        expect(params.get('ch')).toBe(id);
        const after = await page.locator(tag).evaluate((el) => el.stateText);
        if (params.has('v')) expect(after).toContain(`v=${params.get('v')}`);
        const link = (await settledUrl(page)).search;

        await expectFits(page, chapter, 'light');
        // The digits the page shows on the state of the link (once a run the answer started has ended).
        await settle(page, chapter);
        const digits = async () => (await readNumbers(page, tag)).map((n) => n.text);
        const shown = await digits();
        // The dark scheme (the page's colours are CSS only: the same page, switched), on the state it opened with.
        await page.locator(tag).evaluate((el, text) => (el.stateText = text), stateText);
        await settle(page, chapter);
        await page.emulateMedia({ colorScheme: 'dark' });
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
        // The dark widths first (375 px), where the labels are checked too, then 1024 px: each width once.
        await expectFits(page, chapter, 'dark');
        expect(await labelOverlaps(page, chapter)).toEqual([]);
        await page.setViewportSize({ width: 1024, height: 1000 });
        expect(await labelOverlaps(page, chapter)).toEqual([]);

        // The link opened anew (a new document in this page, after its own CSP check) shows the same state and
        // digits, on a clean page, in light at the size the chapter's cases open at (1024 by 900 px).
        expect(await cspViolations(page)).toEqual([]);
        await page.goto('about:blank');
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 1024, height: 900 });
        await page.goto(new URL(chapterPath(id, link), env.server.url).href);
        await page.waitForSelector('body[data-state="ready"]', { timeout: 20000 });
        await waitReady(page, tag);
        await settle(page, chapter);
        if (WAITS.has(id)) await trainWaiting(page, tag, 180000); // the link's runs wait at step 0 for Train
        expect(await page.locator(tag).evaluate((el) => el.stateText)).toBe(after);
        expect(await digits()).toEqual(shown);
        await expectClean(opened);
        // The chapter's cases go on in this page, as in one they opened (1024 by 900 px).
        if (CASES.get(id)) shared.opened = opened;
      } finally {
        if (shared.opened !== opened) await opened.context.close();
      }
    }, 300000);

    if (CASES.get(id)) CASES.get(id).cases.forEach(caseTests(env, CASES.get(id).chapter, shared));
  });
});
