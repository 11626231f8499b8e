// The tour as data: one record per chapter, in reading order. The shell
// renders the table of contents and one <section id="ch-<id>"> per record
// from this list; reorder, retitle or translate here without touching the
// rendering. `tag` is the chapter's widget (defined in widgets.js); a chapter
// whose widget is not written yet is listed with `tag: null` and shown as
// "coming".
//
// Fields: id (stable: it is the anchor #ch-<id> and the ?ch= of links),
// title, tag, intro (one or two sentences of our own words, shown above the
// widget), after (optional list of "things to try" lines).
export const CHAPTERS = [
  {
    id: 'atom',
    title: 'The atom of attention',
    tag: null,
    intro: 'Every token sends out a query and a key; the grid of all their dot products, S = QK\u1d40, is where attention decides who looks at whom.',
  },
  {
    id: 'dot-product',
    title: 'Two definitions agree',
    tag: 'ag-two-definitions',
    intro:
      'A dot product can be computed two ways: multiply matching coordinates and add, or multiply the two lengths by the cosine of the angle between the arrows. Drag either arrow and watch both columns give the same number.',
    after: [
      'Swing b until the two arrows are perpendicular: both terms still exist, but they cancel, and cos \u03b8 is zero.',
      'Stretch b along its own direction: the angle stays, the score grows with the length.',
      'Point b against a: the cosine and the score turn negative together.',
    ],
  },
  { id: 'why-agree', title: 'Why they agree', tag: null, intro: 'The triangle a, b, a \u2212 b and the law of cosines, with the current numbers substituted line by line.' },
  { id: 'projection', title: 'Projection as a shadow', tag: null, intro: 'The dot product divided by |b| is the length of a\u2019s shadow on the line through b.' },
  { id: 'sign', title: 'Sign and size', tag: null, intro: 'Acute, right or obtuse: the three readings of a score.' },
  { id: 'length', title: 'Length as a lever', tag: null, intro: 'Scale a key without turning it, and every score it takes part in scales too.' },
  { id: 'cosine', title: 'Cosine versus the raw dot product', tag: null, intro: 'Direction alone, or direction and length: normalising changes which key wins.' },
  { id: 'qkt', title: 'QK\u1d40 as a grid', tag: null, intro: 'Small editable inputs and projections, and the heat map of every score at once.' },
  {
    id: 'worked-example',
    title: 'One query, three keys',
    tag: 'ag-worked-example',
    intro:
      'One attention head, small enough to follow by hand: a query meets three keys. Step from the raw scores through exp and their sum to the weights and the mixed output, with or without the 1/\u221ad\u2096 scale.',
    after: [
      'Make k3 a copy of q: its score rises to the top and takes weight from k1.',
      'Double every entry of q. The scores double, and the leading weight grows even closer to one.',
      'Choose the scaled version: with d\u2096 = 4 the scores are halved, and the weights spread out.',
    ],
  },
  { id: 'sqrt-d', title: 'Why scores grow like \u221ad', tag: null, intro: 'A seeded Monte Carlo experiment with random vectors of growing dimension.' },
  { id: 'scale-fix', title: 'The 1/\u221ad\u2096 fix', tag: null, intro: 'What scaling does to the largest weight, the entropy and the gradient.' },
  { id: 'orthogonality', title: 'Orthogonality', tag: null, intro: 'A zero score means perpendicular: such a key neither helps nor opposes.' },
  { id: 'near-orthogonal', title: 'Near-orthogonality in high dimension', tag: null, intro: 'Random directions in many dimensions are almost perpendicular.' },
  { id: 'simd', title: 'Why this is cheap on a CPU', tag: null, intro: 'One dot product, four lanes at a time.' },
  { id: 'pitfalls', title: 'Pitfalls', tag: null, intro: 'Four common misreadings, each with a one-click demonstration.' },
];

/** The anchor id of a chapter's section. */
export const anchorOf = (chapter) => `ch-${chapter.id}`;
