// Answered predictions report: each answer of a prediction in an embedded widget is one xAPI "answered"
// statement, posted to the page around an iframe of embed.html (another origin, sandboxed) and fired as the DOM
// event `ag-xapi` by the custom element on a host page (choices, a number and a point). The statement's answer is
// checked against the chapter's reveal computed here in float64; a wrong answer shows the misconception it
// reveals, and the block shows the chapter's score, which the first answer sets, and the score line says only the
// first answer counts (a later statement carries its number, a retry, in result.extensions); axe finds no WCAG 2.1
// A or AA violation in the answered block, in light and dark.
import { describe, expect, test } from '@jest/globals';
import { dot, scalarProjection } from '../reference/float64.mjs';
import * as h from './helpers.mjs';
import { expectNoViolation } from './wcag.mjs';

const env = h.useEnv();
const host = h.useHost(env);

const ANSWERED = 'http://adlnet.gov/expapi/verbs/answered';
const INTERACTION = 'http://adlnet.gov/expapi/activities/cmi.interaction';
const MODULE = 'http://adlnet.gov/expapi/activities/module';
const NUMBER = 'urn:attention-geometry:xapi:answer-number';
const sign = (x) => (x > 0 ? 'positive' : x < 0 ? 'negative' : 'zero');
const wrongOf = (c) => c.choices.find((x) => x !== c.answer);

// The chapters' reveals, in float64. Chapter 2: a = (3, 4), b = (-4, 3); the sign of a·b.
const TWO = {
  tag: 'ag-two-definitions',
  chapter: 'dot-product',
  prediction: 'perpendicular-sign',
  choices: ['positive', 'zero', 'negative'],
  answer: sign(dot([3, 4], [-4, 3])),
};
// Chapter 4: a = (3, 4), b = (-4, -1); the shadow a·b/|b| falls along b, nowhere, or against b.
const SHADOW = {
  tag: 'ag-projection',
  chapter: 'projection',
  prediction: 'backward-shadow',
  choices: ['along', 'none', 'against'],
  answer: { positive: 'along', zero: 'none', negative: 'against' }[sign(scalarProjection([3, 4], [-4, -1]))],
};

/**
 * The block's feedback after an answer that was `right` or not, in a chapter whose first answer was
 * `firstRight`: the result, the misconception only after a wrong answer, and the chapter's score line, which
 * says whether this answer (the `number`th) is the one scored.
 */
async function expectFeedback(scope, right, firstRight, number = 1) {
  const shown = await scope.locator('.predict').evaluate((block) => {
    const [said, misconception, score] = ['result', 'misconception', 'score']
      .map((k) => block.querySelector(`.predict-${k}`))
      .map((p) => (p.hidden ? null : p.textContent));
    return { result: block.dataset.result, said, misconception, score };
  });
  const scored =
    number === 1 ? 'Scored (only the first answer counts): ' : 'Not scored: only the first answer counts, and it was ';
  expect(shown).toEqual({
    result: right ? 'right' : 'wrong',
    said: expect.stringMatching(right ? /^Right\. / : /^Not quite\. /),
    misconception: right ? null : expect.stringMatching(/^That .{40,}/),
    score: `${scored}${firstRight ? 'right' : 'wrong'} \u2014 chapter score ${firstRight ? 1 : 0} / 1`,
  });
}

/** The statement's fields that depend on the chapter and the answer, for `page` (the page's address). */
function expectStatement(statement, c, { page, choice, firstRight, before, number = 1 }) {
  const described = (id) => ({ id, description: { en: expect.stringMatching(/\S/) } });
  const parent = {
    id: `${page}#${c.chapter}`,
    objectType: 'Activity',
    definition: { type: MODULE, name: { en: expect.any(String) } },
  };
  expect(statement).toEqual({
    verb: { id: ANSWERED, display: { en: 'answered' } },
    object: {
      objectType: 'Activity',
      id: `${page}#${c.chapter}/predict/${c.prediction}`,
      definition: {
        type: INTERACTION,
        name: { en: expect.stringMatching(/\S/) },
        interactionType: 'choice',
        choices: c.choices.map(described),
        correctResponsesPattern: [c.answer],
      },
    },
    result: {
      success: choice === c.answer,
      response: choice,
      score: { raw: firstRight ? 1 : 0, min: 0, max: 1, scaled: firstRight ? 1 : 0 },
      extensions: { [NUMBER]: number }, // which answer to the chapter's prediction: 1 is scored, 2 and more retries
    },
    context: { contextActivities: { parent: [parent] } },
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  });
  const at = Date.parse(statement.timestamp);
  expect(at).toBeGreaterThanOrEqual(before);
  expect(at).toBeLessThanOrEqual(Date.now());
}

describe('xAPI statements of answered predictions', () => {
  test('iframe of embed.html on another origin: one message per answer, with the statement of that answer', async () => {
    const c = TWO;
    const site = new URL(env.server.url).origin;
    const src = new URL(`embed.html?ch=${c.chapter}&id=fig-2&agtest=1`, env.server.url).href;
    const body = `<iframe src="${src}" title="t" width="100%" height="900" sandbox="allow-scripts allow-same-origin"></iframe>
<script>
  window.__statements = [];
  window.addEventListener('message', function (event) {
    var frame = document.querySelector('iframe');
    if (event.source !== frame.contentWindow || event.origin !== ${JSON.stringify(site)}) return;
    if (event.data && event.data.type === 'attention-geometry:xapi') window.__statements.push(event.data);
  });
</script>`;
    await h.withPage(env, host.add('xapi-frame.html', h.hostPage(body)), async ({ page }) => {
      const frame = await h.frameOf(page);
      await h.waitReady(frame, c.tag);
      const widget = frame.locator(c.tag);
      const messages = () => page.evaluate(() => window.__statements);
      expect(await messages()).toEqual([]);
      const page0 = new URL('embed.html', env.server.url).href;

      // A wrong first answer: one message; the misconception and the score line are shown.
      let before = Date.now();
      await h.predictChoice(frame, c.tag, wrongOf(c), 'wrong');
      const [first] = await h.until(async () => ((await messages()).length ? messages() : null), 'a statement');
      await expectFeedback(widget, false, false);
      // The block's own right answer is the one computed here.
      expect(await widget.locator('.predict-choice.is-answer').getAttribute('data-choice')).toBe(c.answer);
      expect(Object.keys(first).sort()).toEqual(['chapter', 'id', 'statement', 'type', 'widget']);
      expect(first).toMatchObject({ type: 'attention-geometry:xapi', widget: c.tag, chapter: c.chapter, id: 'fig-2' });
      expectStatement(first.statement, c, { page: page0, choice: wrongOf(c), firstRight: false, before });
      await page.waitForTimeout(300); // nothing more arrives for this answer
      expect(await messages()).toHaveLength(1);

      // Asked again and answered right: a second message; the score stays the first answer's.
      before = Date.now();
      await h.predictChoice(frame, c.tag, c.answer, 'right');
      await h.until(async () => (await messages()).length === 2, 'a second statement');
      const second = (await messages())[1];
      expectStatement(second.statement, c, { page: page0, choice: c.answer, firstRight: false, before, number: 2 });
      await expectFeedback(widget, true, false, 2);
      await page.waitForTimeout(300);
      expect(await messages()).toHaveLength(2);
    });
  });

  test('custom elements on a host page: one ag-xapi event (bubbling, composed) per answer, with ag-predict; a number and a point give numeric and other statements', async () => {
    const c = SHADOW;
    const body = `<main><${c.tag}></${c.tag}><ag-sqrt-d pairs="1000"></ag-sqrt-d><ag-convex-hull></ag-convex-hull></main>`;
    const setup = (p) =>
      p.addInitScript(() => {
        window.__events = [];
        for (const type of ['ag-xapi', 'ag-predict'])
          document.addEventListener(type, (e) =>
            window.__events.push({ type, composed: e.composed, target: e.target.localName, detail: e.detail }),
          );
      });
    const url = `${host.add('xapi-element.html', h.hostPage(body, h.widgetsScript(env)))}?course=7`;
    await h.withPage(env, url, { setup }, async ({ page }) => {
      await h.waitReady(page, c.tag);
      const widget = page.locator(c.tag);
      let before = Date.now();
      await h.predictChoice(page, c.tag, c.answer, 'right');
      const seen = () => page.evaluate(() => window.__events);
      const events = await h.until(async () => ((await seen()).length >= 2 ? seen() : null), 'the events');
      expect(events.map((e) => [e.type, e.composed, e.target])).toEqual([
        ['ag-predict', true, c.tag],
        ['ag-xapi', true, c.tag],
      ]);
      const predicted = { widget: c.tag, chapter: c.chapter, id: c.prediction, choice: c.answer, answer: c.answer };
      expect(events[0].detail).toEqual({ ...predicted, correct: true });
      const { statement, ...names } = events[1].detail;
      expect(names).toEqual({ widget: c.tag, chapter: c.chapter, prediction: c.prediction });
      // The page's address without its query.
      const hostPageUrl = new URL('xapi-element.html', host.url).href;
      expectStatement(statement, c, { page: hostPageUrl, choice: c.answer, firstRight: true, before });
      await expectFeedback(widget, true, true);
      await page.waitForTimeout(300);
      expect((await seen()).length).toBe(2);

      // A number and a point, each answered wrong: their statements field by field. y of the weights
      // (-0.5, 0.75, 0.75) and the default triangle, in float64; a wrong point inside the hull.
      const values = [[-4, -2], [4, -3], [1, 4]]; // prettier-ignore
      const y = [0, 1].map((i) => values.reduce((s, v, j) => s + [-0.5, 0.75, 0.75][j] * v[i], 0));
      const six = (x) => Number(x.toPrecision(6));
      const en = expect.stringMatching(
        /^The response is a point "x,y" on the figure, in the figure's units; a point within 0\.75 /,
      );
      const point = () => ({ interactionType: 'other', correctResponsesPattern: [y.join(',')], description: { en } });
      // Right within 15 % of the measured std, which is within 4 standard errors of sqrt(4096) = 64.
      const range = (m) => `${six(0.85 * m)}[:]${six(1.15 * m)}`;
      const numeric = (m) => ({ interactionType: 'numeric', correctResponsesPattern: [range(m)] });
      const named = { type: INTERACTION, name: { en: expect.stringMatching(/\S/) } };
      const statements = async () => (await seen()).filter((e) => e.type === 'ag-xapi').map((e) => e.detail.statement);
      // [widget, a wrong answer, its statement's definition, its statement's index on the page]
      for (const [tag, wrong, definition, n] of [
        ['ag-sqrt-d', '4096', numeric, 1],
        ['ag-convex-hull', '1,0.5', point, 2],
      ]) {
        await h.waitReady(page, tag);
        before = Date.now();
        await h.predictChoice(page, tag, wrong, 'wrong');
        const revealed = Number((await page.locator(`${tag} .predict`).getAttribute('data-answer')).split(',')[0]);
        if (tag === 'ag-sqrt-d') expect(Math.abs(revealed - 64)).toBeLessThanOrEqual((4 * 64) / Math.sqrt(800));
        const { object, result, timestamp } = await h.until(async () => (await statements())[n], 'a statement');
        expect(object.definition).toEqual({ ...named, ...definition(revealed) });
        const score = { raw: 0, min: 0, max: 1, scaled: 0 };
        expect(result).toEqual({ success: false, response: wrong, score, extensions: { [NUMBER]: 1 } });
        expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before);
      }
    });
  });

  test('the answered block (misconception, score line) passes axe, WCAG 2.1 A and AA, in light and dark', async () => {
    const c = TWO;
    const options = { width: 375, height: 800, bypassCSP: true, clean: false };
    await h.withEmbed(env, `ch=${c.chapter}`, c.tag, options, async ({ page }) => {
      await h.predictChoice(page, c.tag, wrongOf(c), 'wrong');
      await expectFeedback(page.locator(c.tag), false, false);
      for (const colorScheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme });
        const checked = await expectNoViolation(page, [c.tag], colorScheme);
        expect(checked.some((t) => t.includes('.predict-misconception'))).toBe(true);
      }
    });
  }, 120000); // axe twice over the chapter, as a11y.test.mjs allows each address
});
