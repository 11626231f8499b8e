// "Cosine versus the raw dot product" (#ch-cosine, <ag-cosine-vs-dot>): raw scores and cosines, raw and
// normalised, against a float64 reference (drags, keys, links) and the article's numbers (seed file).
import { expect } from '@jest/globals';
import { cosine, dot, norm, normalize, sumAbsProd } from '../reference/float64.mjs';
import { chapterTests, expectClose, expectNumbers, expectSeed, expectTexts, one, U } from './chapter-tests.mjs';

const ARTICLE = { q: [1, 1], k1: [1, 1], k2: [5, 5], normalise: false };

/** float64 reference: lengths, raw scores and cosines, of the vectors as given or as unit vectors. */
function reference({ q, k1, k2, normalise }) {
  const use = (a) => (normalise ? normalize(a) : a);
  const uq = use(q);
  const keys = [k1, k2].map((k) => {
    const u = use(k);
    return { unit: normalize(k), norm: norm(u), raw: dot(uq, u), cos: cosine(q, k), magnitude: sumAbsProd(uq, u) };
  });
  return { qNorm: norm(uq), qUnit: normalize(q), keys };
}

function match(numbers, state) {
  const ref = reference(state);
  expectNumbers(numbers, [
    ['norm', 'q', ref.qNorm, 6 * U * ref.qNorm],
    ...ref.keys.flatMap((r, i) => [
      ['norm', i + 1, r.norm, 6 * U * r.norm],
      ['dot', i + 1, r.raw, 12 * U * Math.max(r.magnitude, 1)],
      ['cosine', i + 1, r.cos, 20 * U],
    ]),
  ]);
  ref.keys.forEach((r, i) => {
    const key = i + 1;
    const raw = one(numbers, 'dot', key);
    const units = numbers.filter((x) => x.role === 'unit' && x.key.startsWith(`${key}.`));
    if (state.normalise) {
      expect(units).toHaveLength(2);
      units.forEach((u, j) => expectClose(u.value, r.unit[j], 4 * U, `unit k${key}[${j}]`));
      // Normalised, the raw dot product is the cosine.
      expectClose(raw.value, r.cos, 20 * U, `normalised q.k${key} = cos`);
    } else expect(units).toHaveLength(0);
  });
  return ref;
}

/** The verdicts: [measure, winner, text] of each. */
const verdicts = (w) =>
  w.eval((el) =>
    [...el.shadowRoot.querySelectorAll('.verdict')].map((v) => [v.dataset.measure, v.dataset.winner, v.textContent]),
  );
const winners = async (w) => (await verdicts(w)).map((v) => v[1]);

const it = chapterTests({ ch: 'cosine', tag: 'ag-cosine-vs-dot', match });

it('opens on the article: raw 2 and 10, cosine 1 and 1; k2 wins the raw score, the cosine ties', async (w) => {
  const { numbers } = await w.matches(ARTICLE);
  expectTexts(numbers, { dot: ['2', '10'], cosine: ['1', '1'] });
  for (const key of [1, 2])
    for (const [id, role] of Object.entries({ dot: 'dot', cos: 'cosine' }))
      expectSeed(`cos-vs-dot-k${key}-${id}`, one(numbers, role, key).value, { a: ARTICLE.q, b: ARTICLE[`k${key}`] });
  const v = await verdicts(w);
  expect(v.map(([measure, winner]) => `${measure} ${winner}`)).toEqual(['raw k2', 'cosine tie']);
  expect(v[0][2]).toMatch(/k\u2082 wins/);
  expect(v[1][2]).toMatch(/tie/);
  expect(await w.katex()).toBeGreaterThan(0);
});

it('the normalise toggle replaces every vector by its unit vector: the raw score becomes the cosine, and the winner follows', async (w) => {
  const toggle = async (on) => {
    await w.at('#cd-normalise').setChecked(on);
    await w.page.waitForSelector(`${w.tag}[data-normalised="${on}"]`);
  };
  await toggle(true);
  const state = { ...ARTICLE, normalise: true };
  expect(await w.state()).toEqual(state);
  const { numbers } = await w.matches(state);
  expectTexts(numbers, { dot: ['1', '1'], norm: ['1', '1', '1'] });
  expect(await winners(w)).toEqual(['tie', 'tie']);
  expect((await w.url()).get('normalise')).toBe('1');
  await w.logged();
  // Normalising calls the module's normalize for q and both keys.
  expect((await w.kernels()).filter((k) => /normali[sz]e/.test(k)).length).toBeGreaterThanOrEqual(3);
  await toggle(false);
  await w.matches(ARTICLE);
  // A preset turns Normalise off: its point is the raw score against the cosine.
  await toggle(true);
  await w.at('[data-preset="long-off"]').click();
  await w.page.waitForSelector(`${w.tag}[data-normalised="false"]`);
  expect(await w.state()).toEqual({ q: [1, 1], k1: [1, 1.25], k2: [5.5, -1], normalise: false });
  await expect(w.at('#cd-normalise').isChecked()).resolves.toBe(false);
});

it('q and k1 start on one point: the centre of the stack takes q, its ring takes k1', async (w) => {
  const { page } = w;
  const dot = w.at('[data-point="q"] circle.dot');
  await dot.scrollIntoViewIfNeeded();
  const box = await dot.boundingBox();
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const ring = await w.at('[data-point="k1"] circle.dot').boundingBox();
  // Grab `from`, move by (dx, dy): the point named first moves, the other stays.
  const grab = async (from, dx, dy, moves, stays) => {
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + dx, from.y + dy, { steps: 6 });
    await page.mouse.up();
    const state = await w.state();
    expect(state[stays]).toEqual(ARTICLE[stays]);
    expect(state[moves]).not.toEqual(ARTICLE[moves]);
  };
  await grab(centre, 40, 60, 'q', 'k1');
  // Back on one point, grab the ring (outside q's dot, inside k1's ring): k1 moves and q stays.
  await w.eval((el, a) => el.setState({ q: a.q, k1: a.k1 }), ARTICLE);
  await grab({ x: centre.x + ring.width / 2 - 1.5, y: centre.y }, -60, -20, 'k1', 'q');
});

it.dragKeys({
  name: 'dragging k2 off the line and moving k1 with the keys: the raw score and the cosine disagree, as the reference says; the URL reopens it',
  from: ARTICLE,
  drag: ['k2', [5.5, 1]],
  key: ['k1', ['ArrowUp', 'ArrowLeft', 'Shift+ArrowUp'], [0.75, 2.25], 'k\u2081 = (0.75, 2.25)'],
  afterKeys: async (w, numbers, ref) => {
    // The reference decides the winners: k2 by raw score, k1 by cosine.
    expect(ref.keys[1].raw > ref.keys[0].raw).toBe(true);
    expect(ref.keys[0].cos > ref.keys[1].cos).toBe(true);
    expect(await winners(w)).toEqual(['k2', 'k1']);
  },
  announce: (numbers) => `k1: raw ${one(numbers, 'dot', 1).text}`,
  params: { k1: '0.75,2.25', k2: '5.5,1', normalise: '0' },
  reopen: async (w, state) => {
    const { q, k1, k2 } = Object.fromEntries(await w.url());
    await w.link(`q=${q}&k1=${k1}&k2=${k2}&normalise=1`, { ...state, normalise: true });
    expect(await winners(w)).toEqual(['k1', 'k1']);
  },
});

it('a URL with a zero key: no cosine and nothing to normalise, said in a note', async (w) => {
  await w.link('q=-2,3.5&k1=0,0&k2=4,-1.5&normalise=1', null, { own: true }, async (z, numbers) => {
    expect(one(numbers, 'dot', 1).value).toBe(0);
    expect(numbers.some((n) => n.role === 'cosine' && n.key === '1')).toBe(false);
    const r = reference({ q: [-2, 3.5], k1: [1, 0], k2: [4, -1.5], normalise: false }).keys[1];
    expectClose(one(numbers, 'dot', 2).value, r.raw, 12 * U * r.magnitude, 'q.k2');
    expectClose(one(numbers, 'cosine', 2).value, r.cos, 20 * U, 'cos k2');
    await expect(z.text('.note')).resolves.toMatch(/length zero/);
  });
});

it('predict, then reveal: by cosine, k1 and k2 tie', async (w) => {
  const says = /cos = 1 for k\u2081 and 1 for k\u2082/;
  await w.reveal({ wrong: 'k2', right: 'tie', says, state: ARTICLE });
}).at('k2=3,-2');
