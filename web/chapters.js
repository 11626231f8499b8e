// The tour as data: one record per chapter, in reading order. The shell
// renders the table of contents and one <section id="ch-<id>"> per record
// from this list; reorder, retitle or translate here without touching the
// rendering. `tag` is the chapter's widget (defined in widgets.js); a chapter
// whose widget is not written yet is listed with `tag: null` and shown as
// "coming".
//
// Fields: id (stable: it is the anchor #ch-<id> and the ?ch= of links),
// title, tag, also (optional: more widgets shown under the first; the
// fields they share stay equal), intro (one or two sentences of our own
// words, shown above the widget), after (optional list of "things to try"
// lines; a line written answered('...') states what the chapter's prediction
// asks, and is shown only once the learner has seen the answer:
// shell/chapter-prose.js, widget/after-answer.js).

/** A "things to try" line held back until the chapter's prediction is answered. */
const answered = (text) => ({ text, afterAnswer: true });

export const CHAPTERS = [
  {
    id: 'atom',
    title: 'The atom of attention',
    tag: 'ag-attention-atom',
    intro:
      'Each token of \u201cthe cat ate fish\u201d sends out two small vectors: a query q, what it is looking for, and a key k, what it offers to others. The grid S = QK\u1d40 holds one dot product for every query\u2013key pair, N \u00d7 N numbers in all. Point at a cell to see which two arrows it compares and how their coordinates multiply and add up.',
    after: [
      'Drag k\u2082 (\u201ccat\u201d) around the origin and watch its whole column in the grid change colour, while the other columns stay put.',
      'Move a query until it is perpendicular to a key: that cell turns white, a score of zero.',
      answered(
        'Compare S\u2083\u2082 with S\u2082\u2083, or any cell with its mirror across the diagonal: the grid is not symmetric, because a token asks with one vector and answers with another.',
      ),
      'Use the keyboard: Tab into the grid, move with the arrow keys; Tab on to the points and move them with the arrows (Shift for bigger steps).',
    ],
  },
  {
    id: 'dot-product',
    title: 'Two definitions agree',
    tag: 'ag-two-definitions',
    intro:
      'A dot product can be computed two ways: multiply matching coordinates and add, or multiply the two lengths by the cosine of the angle between the arrows. Drag either arrow and watch both columns give the same number.',
    after: [
      answered(
        'Swing b until the two arrows are perpendicular: both terms still exist, but they cancel, and cos \u03b8 is zero.',
      ),
      'Stretch b along its own direction: the angle stays, the score grows with the length.',
      'Point b against a: the cosine and the score turn negative together.',
    ],
  },
  {
    id: 'why-agree',
    title: 'Why they agree',
    tag: 'ag-why-agree',
    intro:
      'Join the tips of a and b and you get a triangle whose third side is a \u2212 b. Its squared length can be worked out twice: from the two lengths and the angle (the law of cosines), or by expanding (a \u2212 b)\u00b7(a \u2212 b) in coordinates. Both give the same number, and comparing them leaves only one possibility for a\u00b7b.',
    after: [
      answered('Make the angle a right angle: the cosine term drops out and the law of cosines is just Pythagoras.'),
      'Open the angle past 90\u00b0: \u22122|a||b| cos \u03b8 turns positive, and the third side grows longer than Pythagoras would allow.',
      'Drag b onto a: the third side shrinks to nothing, and |a|\u00b2 + |b|\u00b2 is used up exactly by 2a\u00b7b.',
    ],
  },
  {
    id: 'projection',
    title: 'Projection as a shadow',
    tag: 'ag-projection',
    intro:
      'Shine light straight down onto the line through b, and a casts a shadow on it. The signed length of that shadow is a\u00b7b/|b|, which is the same as |a| cos \u03b8; stretched along b it becomes the vector projection. The score itself is the shadow times the length of b.',
    after: [
      'Lengthen b without turning it: the shadow stays exactly where it is, while a\u00b7b grows with |b|.',
      'Turn b until it is perpendicular to a: the shadow collapses onto the origin.',
      answered('Keep turning: the shadow reappears behind the origin and its length becomes negative.'),
    ],
  },
  {
    id: 'sign',
    title: 'Sign and size',
    tag: 'ag-sign-and-size',
    intro:
      'Every score can be read in one of three ways. The line through the origin at right angles to b splits the plane: on b\u2019s side the angle is acute and the score positive, on the line it is a right angle and the score zero, on the far side it is obtuse and the score negative. The size of the score is another matter: it mixes alignment with length.',
    after: [
      'Drag a across the dashed line and watch the reading flip while the score passes through zero.',
      'Turn b: the two half-planes turn with it, so the same a can change sides without moving.',
      'Load the two same-score pairs: one wins by alignment, the other by sheer length, and the score cannot tell them apart.',
    ],
  },
  {
    id: 'length',
    title: 'Length as a lever',
    tag: 'ag-length-lever',
    intro:
      'A score mixes two things: how well a key lines up with a query, and how long the key is. Here the key is a direction d stretched by a factor t. Turn d by dragging it, stretch it with the slider, and watch four fixed queries score against it.',
    after: [
      answered(
        'Move the slider from 1 to 3 with d = (1, 1): the key goes from v = (1, 1) to w = (3, 3), and every score in the table triples, including the negative one.',
      ),
      'Watch the last column while you stretch: the score per unit of length stays put, because the direction did not change.',
      'Turn d until q\u2084 = (1, \u22121) scores 0, then stretch as much as you like: zero times any length is still zero.',
      'Slide t to 0: a key with no length scores nothing against anyone.',
    ],
  },
  {
    id: 'cosine',
    title: 'Cosine versus the raw dot product',
    tag: 'ag-cosine-vs-dot',
    intro:
      'The raw dot product rewards both alignment and length; the cosine keeps only the alignment. Put the two side by side for one query and two keys, and see which key each measure prefers.',
    after: [
      answered(
        'With the starting vectors, k\u2082 = (5, 5) wins the raw score five to one, yet the cosines tie: same direction, different lengths.',
      ),
      'Tick \u201cNormalise\u201d: every vector shrinks onto the unit circle, and the raw column becomes the cosine column.',
      'Drag k\u2082 a little off q\u2019s direction but keep it long: the raw score can still prefer it while the cosine already prefers k\u2081.',
    ],
  },
  {
    id: 'qkt',
    title: 'QK\u1d40 as a grid',
    tag: 'ag-qkt-grid',
    intro:
      'Queries and keys are not given: each token\u2019s embedding x (a row of X) is multiplied by two learned matrices, q = x W_Q and k = x W_K. With four tokens, d_model = 3 and d_k = 2, X [4, 3] times W_Q [3, 2] gives Q [4, 2], likewise K, and S = QK\u1d40 is [4, 4]. Edit any entry and every score is recomputed; click a cell (or press Enter on it) to open its dot product.',
    after: [
      'Set a row of W_Q to zeros: that embedding coordinate no longer reaches any query, and the grid changes everywhere it mattered.',
      'Multiply one column of W_K by \u22121: the corresponding term of every score flips sign.',
      'Make two rows of X equal: their two rows of S and their two columns become equal too, since the same embedding gives the same query and key.',
      'Use the arrow keys in an input to step its value by one and watch the heat map follow.',
    ],
  },
  {
    id: 'worked-example',
    title: 'One query, three keys',
    tag: 'ag-worked-example',
    intro:
      'One attention head, small enough to follow by hand: a query meets three keys. Step from the raw scores through exp and their sum to the weights and the mixed output, with or without the 1/\u221ad\u2096 scale.',
    after: [
      answered('Make k3 a copy of q: its score rises to the top and takes weight from k1.'),
      'Double every entry of q. The scores double, and the leading weight grows even closer to one.',
      'Choose the scaled version: with d\u2096 = 4 the scores are halved, and the weights spread out.',
    ],
  },
  {
    id: 'sqrt-d',
    title: 'Why scores grow like \u221ad',
    tag: 'ag-sqrt-d',
    intro:
      'Draw q and k with independent standard-normal entries and look at q\u00b7k. Each of the d\u2096 terms q\u1d62k\u1d62 has mean 0 and variance 1, and they are independent. How does the size of their sum grow with d\u2096? The experiment below runs in a background worker with a fixed seed, so the same settings always give the same numbers. The curve over the histogram is the exact density of q\u00b7k, not a normal approximation: at d\u2096 = 2 it is the sharp Laplace peak e^(\u2212|x|)/2, and it rounds into a bell as d\u2096 grows.',
    after: [
      'Slide d\u2096 down to 2: the histogram has a sharp peak at 0 and heavy tails, and the exact curve follows it; a normal curve would not.',
      answered(
        'Slide d\u2096 from 2 up to 4096 and watch the axis labels: the spread grows to \u221a4096 = 64, about 45 times its value at 2 (\u221a2048), not two thousand times.',
      ),
      answered(
        'The variances of independent terms add: q\u00b7k has variance d\u2096 and a typical size of \u221ad\u2096, and its bell is that of N(0, d\u2096).',
      ),
      answered(
        'On the log-log plot every dot sits on a line of slope \u00bd: that is what \u201cgrows like \u221ad\u2096\u201d means, and why attention divides the scores by \u221ad\u2096.',
      ),
      'Change the seed: the dots wobble, typically by about a percent at 5000 pairs, and the slope does not. Raise the pairs to 100 000 to shrink the wobble to under a quarter of that: every pair runs, streamed through the kernel in chunks at large d\u2096, so the run takes a while (press Cancel if it takes too long).',
    ],
  },
  {
    id: 'scale-fix',
    title: 'The 1/\u221ad\u2096 fix',
    tag: 'ag-scale-fix',
    intro:
      'For each d\u2096 from 2 to 4096, draw 256 rows of random scores q\u00b7k\u2c7c (each row with its own query and its own T keys) and feed every row to softmax twice: as it is, and divided by \u221ad\u2096. The lines in the three panels are means over the 256 rows, and the shaded bands run from the 10th to the 90th percentile of the rows: the largest weight, the entropy of a row (how spread out the attention is) and the size of the softmax Jacobian (how much gradient can still flow back). The table beside them follows one sample row. Drag across the panels, or use the arrow keys, to read any d\u2096.',
    after: [
      answered(
        'At the defaults (T = 16, seed 7), unscaled, the mean largest weight climbs step by step from about 0.3 at d\u2096 = 2 to about 0.97 at 4096, the mean entropy falls from about 3.1 bits (of a possible 4) to below 0.1, and the mean Jacobian norm shrinks from about 0.31 to below 0.04. Scaled, the three lines stay flat: the largest weight near 0.25, the entropy near 3.4 bits, the Jacobian norm near 0.3.',
      ),
      'Press \u201cNew seed\u201d a few times: the sample row changes completely and the band edges move a little, but the means tell the same story.',
      answered(
        'Unscaled, the mean largest weight is above 0.95 by d\u2096 = 1024; scaled, it stays close to 0.25 all the way.',
      ),
      answered(
        'Lower the number of keys T to 2: the entropy can reach at most one bit. Unscaled, the mean largest weight still climbs, to about 0.99 at d\u2096 = 4096, and the entropy drops to a few hundredths of a bit; scaled, the largest weight stays near 0.7 and the entropy near 0.8 bits.',
      ),
    ],
  },
  {
    id: 'orthogonality',
    title: 'Orthogonality: a zero score means unrelated',
    tag: 'ag-orthogonality',
    intro:
      'A score of exactly zero has a geometric meaning: the two arrows stand at a right angle, so cos \u03b8 = 0 and \u03b8 = 90\u00b0. Such a key is off-topic for the query. What weight does the softmax give it, beside keys that agree with the query and keys that disagree?',
    after: [
      'Press \u201cSnap k\u2082 perpendicular to q\u201d after moving things around: its score returns to 0, and a right-angle mark appears.',
      'Drag q: the dashed line is every direction a key could point and still score 0 against it.',
      answered(
        'Make k\u2081 and k\u2083 both perpendicular to q: all three scores are 0 and the weights are one third each.',
      ),
      answered(
        'A perpendicular key neither pulls attention towards itself nor pushes it away: the softmax places its weight between those of the keys that agree and the keys that disagree.',
      ),
      'In the basis table, only the diagonal is non-zero: each axis scores 1 with itself and 0 with the others.',
    ],
  },
  {
    id: 'near-orthogonal',
    title: 'Near-orthogonality in high dimension',
    tag: 'ag-near-orthogonal',
    also: ['ag-greedy-packing'],
    intro:
      'In the plane, a random pair of directions can make any angle. What becomes of that angle as dimensions are added? The first experiment draws random pairs from d = 2 to d = 1000 and measures their cosines two ways, by the root mean square and by the mean of |cos \u03b8| (both are sometimes called the \u201ctypical\u201d cosine; here each keeps its own name). Only d directions can be exactly perpendicular; how many can be nearly so is what the second experiment counts.',
    after: [
      answered(
        'Step through the five histograms with the arrow keys: from d = 2 to d = 1000 the spread shrinks by a factor of about \u221a500 \u2248 22.',
      ),
      answered(
        'Add dimensions and the cosine between two random directions crowds in around zero: its root mean square is exactly 1/\u221ad, and the mean of |cos \u03b8| is a little smaller, close to 0.80/\u221ad.',
      ),
      'Compare the two lines in the close-up: the mean |cos| always sits inside the root mean square, because squaring weights the rare large cosines more.',
      answered(
        'In the table of all five, read the columns \u201crms \u00d7 \u221ad\u201d and \u201cmean |cos| \u00d7 \u221ad\u201d: the first stays near 1 at every d, the second settles near 0.80 once d is large.',
      ),
      'Drag \u03b5 down to 0.1: the count stays below d for longer. Push it to 0.3 and a hundred dimensions already hold over a thousand nearly perpendicular directions.',
      'Start a long run and press Cancel: the page stays responsive, and the experiment runs anew when you change a setting.',
    ],
  },
  {
    id: 'simd',
    title: 'Why this is cheap on a CPU',
    tag: 'ag-simd',
    intro:
      'A dot product of length d is d multiplications and d \u2212 1 additions, all independent until the final sum. A 128-bit SIMD register holds four float32 numbers, so one instruction multiplies four pairs at once. Step through the dot product of a small pair as each kernel of this page computes it; then, in the kernel lab, time the simd128 and the scalar kernels on the pieces attention is made of, in your own browser.',
    after: [
      'Step through the simd128 trace: the accumulators hold four (here eight) running sums, and only at the end are the lanes added together.',
      'Switch to the scalar kernel: it multiplies one pair at a time and adds in small blocks of four. Both end with the same number here, though in general the two orders may differ in the last bit.',
      'Set the length to 5: the second half of the first register is padded with zeros, which add nothing.',
      'In the kernel lab, run matmul at n = 512 and then at n = 64: the smaller problem spends a larger share of each call getting its numbers in and out of WebAssembly.',
      'Time the dot product at n = 1 048 576: every call copies 8 MiB into the module, and moving the data, not multiplying it, sets the pace, so the two variants come closer.',
      'Put QK\u1d40 and attention side by side at the same T: attention does twice the multiply-adds plus a softmax for every score.',
    ],
  },
  {
    id: 'cost',
    title: 'The cost of attention',
    tag: 'ag-attention-cost',
    intro:
      'Every query meets every key, so T tokens make T\u00b2 scores. Held all at once in float32, that grid takes 4 bytes a score, for one head alone. Streaming attention visits the keys a tile at a time and keeps, for each query, only a running maximum, a running sum and a running mixture of values, so its memory grows like T\u00b7d\u2096. A background worker measures both below, in bytes taken from the module\u2019s heap and in milliseconds per call.',
    after: [
      'Follow the memory plot to the right: the plain dots bend up towards slope two, the streaming dots stay on a line of slope one.',
      answered(
        'At 4T\u00b2 bytes the grid takes 16 MiB at T = 2048 and 64 MiB at T = 4096: twice the tokens, four times the memory.',
      ),
      'Now look at the time plot: both paths climb with slope two. Streaming takes the grid out of memory, but every score is still computed.',
      'Switch d\u2096 to 128: at large T the streaming memory almost doubles, while the plain memory hardly moves, because there the grid outweighs Q, K and V.',
      'Move the \u201cRead at T\u201d slider with the arrow keys to read off the grid\u2019s size and both measurements at each T.',
      'Choose 4096 as the largest T and press Cancel if the wait is too long: the page stays responsive while the worker measures.',
    ],
  },
  {
    id: 'pitfalls',
    title: 'Pitfalls',
    tag: 'ag-pitfalls',
    intro:
      'Four ways a score is commonly misread. Each comes with a number computed here and a button that opens the chapter above that shows it, set up to make the point.',
    after: [
      'Open the first pitfall and follow its button: the chapter on cosines opens with a long key that wins on raw score but ties on direction.',
      'Use the arrow keys on the tabs to move between the four pitfalls.',
    ],
  },
  // Part 2: values as a convex mixture, softmax, and multi-head attention.
  {
    id: 'values',
    part: 2,
    title: 'Values do the work',
    tag: 'ag-value-mix',
    intro:
      'Forget queries and keys for a moment and simply choose the weights yourself. Each position j holds a value vector v\u2c7c, and the output is y = \u03a3 \u03b1\u2c7cv\u2c7c: scale every value by its weight and add them up. The weights only decide how much of each value goes in; what y is made of comes from the values.',
    after: [
      'Push one weight to 1 and every other to 0: y lands exactly on that value.',
      answered('Keep the weights and drag a value: y follows it, at the pace of that value\u2019s weight.'),
      'Set a weight to 0 and drag its value anywhere: y does not move at all.',
      'Add values up to T = 8 and press \u201cEqual weights\u201d: y sits at their average.',
      'Raise every weight at once: the sum of the weights passes 1 and y is pushed away from the origin (the next chapter is about why attention keeps that sum at 1).',
    ],
  },
  {
    id: 'convex-hull',
    part: 2,
    title: 'A convex combination stays in the hull',
    tag: 'ag-convex-hull',
    intro:
      'Attention\u2019s weights obey two rules: none is negative, and together they add up to one. A mixture under both rules is a convex combination, and it can only land inside the convex hull of the values: the smallest convex shape around them, the polygon you get by stretching a rubber band around the points. Break one rule at a time and watch what the output does.',
    after: [
      'With three values, drag the point in the weight triangle: y sweeps out the value triangle, corner for corner, and never leaves it.',
      answered(
        'Press \u201cA negative weight\u201d: the sum is still 1, yet y jumps out of the hull, away from the value whose weight went negative.',
      ),
      'Press \u201cSum 2\u201d: every weight doubles, the proportions stay, and y slides twice as far from the origin as the convex mixture (the hollow dot).',
      'Drag a value inside the hull of the others: it stops being a corner, and no convex weights can take y beyond the remaining corners.',
      'Remove values down to T = 2: the hull is a segment, and convex weights slide y along it.',
    ],
  },
  {
    id: 'entropy',
    part: 2,
    title: 'Entropy of the weights',
    tag: 'ag-weight-entropy',
    intro:
      'The logits here stay fixed; only a temperature \u03c4 divides them before the softmax. Near zero the weights become one-hot and the output simply copies one value: a hard pointer. Very large, the weights flatten to 1/T each and the output is the plain average of the values: mean pooling. The entropy, in bits, measures where between these two ends the weights are.',
    after: [
      'Press \u201cHard pointer\u201d: one weight is exactly 1, the entropy is 0 and y sits on v\u2083, the value with the largest logit.',
      answered(
        'Press \u201cUniform\u201d: the entropy reaches its ceiling log\u2082T and y lands on the ring that marks the centroid.',
      ),
      'Sweep the slider slowly: y follows the dashed curve from v\u2083 to the centroid and never leaves the hull.',
      answered(
        'Add values: the ceiling log\u2082T rises (2 bits for T = 4, 3 bits for T = 8), and the centroid moves.',
      ),
      'Drag the values at a middle temperature: the weights do not change, only where they send y.',
    ],
  },
  {
    id: 'softmax',
    part: 2,
    title: 'Softmax turns logits into weights',
    tag: 'ag-softmax',
    intro:
      'Scores can be any real numbers, positive or negative, large or small; weights must be non-negative and add up to one. Softmax gets there in two moves: exponentiate every logit (the result is always positive), then divide each by the total. Written out literally in float32, the first move can blow up; subtracting the largest logit before exponentiating changes nothing mathematically and keeps every number in range. Both versions run side by side below.',
    after: [
      answered(
        'Slide s\u2081 up slowly past 88.7: at 88.7 the textbook column still works, one step later exp(s\u2081) is \u221e and \u03b1\u2081 turns into NaN, while the stable column does not notice.',
      ),
      answered(
        'Load \u201cFour logits near 88\u201d: every exponential is finite, but their total is not, so the textbook weights all come out 0 and no longer add up to one.',
      ),
      answered(
        'Load \u201cAll large\u201d: every textbook weight is NaN, while the stable ones are exactly those of the logits 3, 2, 1, 0.',
      ),
      'Try \u201cAll very negative\u201d: now every exponential underflows to 0, and the textbook column divides 0 by 0.',
      'Add the same number to every logit: the stable weights do not move, because only the differences s\u2c7c \u2212 m reach the exponentials.',
    ],
  },
  {
    id: 'competition',
    part: 2,
    title: 'Competition through the shared denominator',
    tag: 'ag-competition',
    intro:
      'All the weights share one denominator, the sum of every exponential. Push one logit up and its own numerator grows, but so does that shared sum: what does that do to the weights whose numerators stayed put? The Jacobian J\u1d62\u2c7c = \u2202\u03b1\u1d62/\u2202s\u2c7c = \u03b1\u1d62(\u03b4\u1d62\u2c7c \u2212 \u03b1\u2c7c) records the trade for every pair.',
    after: [
      answered(
        'Pick a logit to raise and watch the change column: one entry goes up, all the others go down, and together they cancel.',
      ),
      answered(
        'Every weight whose numerator stayed put gives ground to the one pushed up: the Jacobian is positive on its diagonal and negative everywhere else.',
      ),
      'Compare the change column with J\u1d62\u2c7c\u00b7\u03b4: for a small \u03b4 the Jacobian column predicts the changes almost exactly; for a large one the curve bends away from the straight line.',
      'Make one logit dominate: its weight nears 1 and the whole matrix fades towards zero. A saturated softmax hardly responds to its inputs.',
      'Set all four logits equal: the diagonal is 1/4 \u00b7 3/4 and every off-diagonal entry \u22121/16, the most even competition there is.',
    ],
  },
  {
    id: 'matrix-form',
    part: 2,
    title: 'The matrix form',
    tag: 'ag-matrix-form',
    intro:
      'For one query, the weights form a row \u03b1 of length T and the values are the rows of V, so the whole mixture is one product \u03b1V: [1, T] times [T, d\u1d65] gives [1, d\u1d65]. In self-attention every token asks, so the rows stack into a T \u00d7 T matrix A, each row a softmax and summing to one, and Y = AV computes every output at once. A causal mask hides the keys that come later, which empties the upper triangle.',
    after: [
      'Drag a logit of the selected row: only that row of A, and only that row of Y, changes.',
      answered(
        'Switch the causal mask on: the first row becomes (1, 0, 0, 0), so y\u2081 is exactly v\u2081; the last row is untouched.',
      ),
      answered(
        'The mask leaves the hidden keys out before the softmax, so each row is normalised over the keys it may see and still sums to one.',
      ),
      'Click another row of the heat map (or press Enter on it) and compare \u03b1V with that row of Y.',
      'Give one row four equal logits: its output is the plain average of the value rows it can see.',
    ],
  },
  {
    id: 'content-to-weights',
    part: 2,
    title: 'From content to weights',
    tag: 'ag-content-to-weights',
    intro:
      'Until now the weights were handed to us. Here they are made from the tokens themselves: every word carries an embedding, three matrices turn it into a query, a key and a value, query\u2013key dot products scaled by 1/\u221ad\u2096 become the logits, softmax turns each row of logits into weights, and the weights mix the values. Step through the five tensors from X to Y and watch each shape.',
    after: [
      'Step back to 1 and forward again with the arrow keys on the step buttons: every tensor keeps T rows, and only the number of columns changes.',
      'Drag one row of W_K far out: that embedding coordinate now dominates the keys, and whole columns of the weight matrix light up together.',
      answered(
        'Edit the sentence so that a word appears twice: its two rows of weights are the same, since nothing in X says where a word stands.',
      ),
      'Check the row sums under the weights: every row adds up to 1, whatever you drag.',
    ],
  },
  {
    id: 'multi-head',
    part: 2,
    title: 'Multi-head attention',
    tag: 'ag-multi-head',
    intro:
      'One attention pattern per layer is a tight budget. Multi-head attention cuts the d_model columns of Q, K and V into h slices of d_k = d_model/h columns, lets each slice run its own attention, then glues the h outputs side by side and mixes them with W_O. With the named preset, the three heads have been built by hand to look at the previous token, at the same word, and at the first token.',
    after: [
      'Read the shapes down the page: [B, T, d_model] becomes [B, h, T, d_k], the scores are [B, h, T, T], and the concatenation brings back [B, T, d_model].',
      'Switch to h = 1 and then h = 6 with d_model = 12: the total width never changes, only how it is shared out.',
      answered(
        'Type a sentence with a repeated word: the \u201csame word\u201d head splits its weight between the copies.',
      ),
      'Pick the random weights: the heads lose their names, and the patterns become hard to describe in words.',
    ],
  },
  {
    id: 'explain',
    part: 2,
    title: 'What weights do and do not explain',
    tag: 'ag-weights-explain',
    intro:
      'A weight says how much of a value vector one layer mixed in, not how much the final answer depends on it. Here a tiny two-layer stack with residual connections processes a sentence; for one query, each key\u2019s weight sits beside the change in the final output when that key is hidden. Do the two rankings agree?',
    after: [
      answered(
        'Press \u201cFind the next query with both kinds\u201d and read the marked rows: a large blue bar over a short orange one, and the other way round.',
      ),
      answered(
        'The two rankings often disagree: a heavily weighted key can carry a value close to what the others already supply, and a lightly weighted one can carry a value that pushes the output far.',
      ),
      'Switch between layer 1 and layer 2: hiding a key in layer 1 changes every position before layer 2 mixes them again.',
      'Try other seeds of the random weights: the disagreements move, but they rarely vanish.',
    ],
  },
  // Part 3: attention as today's models run it.
  {
    id: 'masks',
    part: 3,
    title: 'Masks are added to the scores',
    tag: 'ag-masks',
    intro:
      'A mask decides which keys a query may look at, and it does so by addition: a matrix M is added to the scores before the softmax, 0 where a key may be seen and \u2212\u221e where it may not, so that exp gives exactly 0 there. Causal masks, padding and sliding windows are all such an M; ALiBi adds a penalty \u2212m|i \u2212 j| that grows with distance instead, a soft mask that hides nothing outright. Why \u2212\u221e and not a large negative number such as \u22121e9? The two agree, until a query has no key left to see.',
    after: [
      'Switch from Causal to Sliding window and lower w: each row keeps its last w keys, and the weights of the others move onto them.',
      'Pick Padding and slide L down: whole columns turn hidden, for every query at once.',
      'Pick ALiBi and step through the heads: head 1 (m = 1/2) fades distant keys fast, head 8 (m = 1/256) hardly at all; no weight ever becomes exactly 0.',
      answered(
        'Press \u201cRow 3 sees nothing\u201d, then switch between \u2212\u221e and \u22121e9: row 3 flips between all zeros and 1/6 on every key, while every other row stays the same.',
      ),
      answered(
        'Press \u201cPadding, L = 0\u201d with \u22121e9: every query now averages the values of padding, and the API\u2019s own kvSeqLen disagrees in every row.',
      ),
      'Click any cell of M (or press Enter on it) to hide or show that key, and read the row below: S, plus M, gives what the softmax reads.',
    ],
  },
  {
    id: 'rope',
    part: 3,
    title: 'Rotary positions as rotations',
    tag: 'ag-rope',
    intro:
      'Attention by itself does not know where a token stands. RoPE tells it by turning: each pair of coordinates of a query or key at position m is rotated by m\u00b7\u03b8. In two dimensions there is one pair and \u03b8 = 1 radian, so q at m and k at n are turned by m and n radians. In d dimensions the pairs turn at frequencies base^(\u22122i/d), from one radian per position down to very slow, and the score between equal vectors falls off, with ripples, as they move apart.',
    after: [
      answered(
        'Drag s, the shift of both positions: q and k spin together, the arc between them keeps its size, and the score stays; what changes is at most the last float32 bit or two of each turn.',
      ),
      answered(
        'Turning both arrows by the same extra amount keeps the angle between them, so the score q\u2098\u00b7k\u2099 depends only on the offset n \u2212 m, not on where the pair sits.',
      ),
      'Move only n: the offset n \u2212 m changes and so does the score, exactly as q\u00b7R((n \u2212 m)\u03b8)k says.',
      'Set m = n: both arrows turn by the same angle, and the score is the plain q\u00b7k of the dashed arrows.',
      'In the decay chart, switch the base from 10,000 to 100: the slow pairs turn faster and the score falls off sooner; 500,000 stretches it out.',
      'Use the keyboard: Tab to the chart, then the arrow keys (Page Up and Page Down for three, Home and End) to read one offset.',
    ],
  },
  {
    id: 'shared-keys',
    part: 3,
    title: 'Sharing keys: MHA, GQA, MQA',
    tag: 'ag-shared-keys',
    intro:
      'When a model writes text one token at a time, it keeps the keys and values of every earlier token, in every layer, for every head: that cache grows with every token, and reading it all back at every step is what makes decoding slow (Shazeer 2019). Multi-query attention keeps one key/value head for all query heads; grouped-query attention keeps h_kv of them, each shared by a group of h_q/h_kv query heads. The queries stay one per head. Here four query heads of d_k = 2 take one decoding step over five tokens, and a switch turns their four key/value heads into two or one by averaging the heads of each group, as a multi-head model is turned into a grouped-query one.',
    after: [
      'Switch from 4 to 2 to 1 and watch the plane: the keys of a group become one set of arrows, and more query arrows share them.',
      answered(
        'With h_kv = 1, drag one query: only its row of weights changes, although every head reads the same keys.',
      ),
      answered('Drag q\u2082 onto q\u2081 with h_kv = 2: the two rows of weights become equal, and only then.'),
      'Read the cache line: the step returns presentKey and presentValue, and their size falls with h_kv while every output keeps its shape.',
      'Use the keyboard: Tab to a query tip and move it with the arrow keys (Shift for bigger steps); Tab into the weights and press Enter on a row to show its head.',
    ],
  },
  {
    id: 'kv-cache',
    part: 3,
    title: 'The KV cache',
    tag: 'ag-kv-cache',
    intro:
      'A decoder writes one token at a time, and token t attends to the keys of tokens 1..t. Those keys and values never change once made, so a decoder keeps them: the KV cache. Each step computes the new token\u2019s q, k and v only, appends k and v to the cache and attends from q over it. Is that the same as running causal attention over the whole text again at every step? And what does it save?',
    after: [
      'Press Next token and watch the cache grow by one row: the earlier rows keep their numbers, only the weights of the new query change.',
      answered(
        'Compare the two outputs at every step: the cached step and the last row of a full causal pass are the same floats, not just the same digits.',
      ),
      'Go to step 8: with the cache the whole sentence took 36 scores; recomputing every query at every step took 120, and the gap grows with the cube of the length.',
      'Use the keyboard: Tab to the step slider and use the arrow keys, or press Next token with Enter.',
    ],
  },
  {
    id: 'online-softmax',
    part: 3,
    title: 'Online softmax, tile by tile',
    tag: 'ag-online-softmax',
    intro:
      'The streaming kernel never forms a row of weights. It reads the keys a tile at a time and keeps three things per query: the largest score so far m, the sum l of exp(s\u2c7c \u2212 m) and the output O, the same terms times v\u2c7c, not yet divided by l. When a tile brings a score above m, every term already counted was shifted by the old m, and the new ones are shifted by the new m. At the end, O / l is softmax(s)\u00b7V. One tile of scores per row is all the memory it needs: O(T\u00b7d), never the T\u00d7T grid. Here the kernel itself runs on tiles of a few keys, and every number of every step is its own.',
    after: [
      answered(
        'Step from tile 1 to tile 3: m jumps to the largest score of tile 3 (q\u00b7k\u2081\u2080/\u221a2), c falls well below 1, and the outlined bars show the old terms shrinking onto the new scale.',
      ),
      answered(
        'Multiplying l and O by c = exp(m_old \u2212 m_new) turns every term counted so far into a term shifted by the new m; then the tile is added on top.',
      ),
      'Step through tile 2: its largest score is below m, so c = 1 and l only grows.',
      'Press \u201cThe max grows twice\u201d: tiles 2 and 3 both rescale.',
      'Change the keys per tile: the steps change, the final y does not, up to a few u.',
      'Press \u201cq = 0\u201d: every score is 0, every p is exactly 1, and l counts the keys seen.',
    ],
  },
  {
    id: 'softcap',
    part: 3,
    title: 'Softcap: tanh bends the large scores',
    tag: 'ag-softcap',
    intro:
      'One score far above the rest makes the softmax saturate: that key takes all the weight, and a small change of any score changes nothing. Some models cap the scores softly instead: each score s becomes c\u00b7tanh(s/c). Near 0 that is s itself, since tanh x \u2248 x for small x; far from 0 it bends towards \u00b1c and never reaches it. So no score can lead another by 2c or more, and no weight can be more than e\u00b2\u1d9c times another. Gemma 2 caps its attention scores at c = 50. The cap comes after the scale and before the mask, so a masked key stays at \u2212\u221e.',
    after: [
      'Slide s\u2081 up with c = 10: the capped score of key 1 climbs ever more slowly towards 10, and the slope of the cap falls towards 0.',
      'Press \u201cA tight cap, c = 1\u201d: every score is squeezed into (\u22121, 1), key 1 cannot lead by more than 2, and the weight spreads over all six keys.',
      'Press \u201cGemma 2: c = 50, s\u2081 = 40\u201d: a cap of 50 hardly touches a score of 40 (its capped value is about 33), and key 1 keeps almost all the weight.',
      'Tick the mask: keys 5 and 6 keep their finite capped scores on the curve (open dots), yet their weights are exactly 0, with or without the cap.',
      'Slide s\u2081 down to 0: key 1 joins the others near 0, where the curve and y = s coincide and the cap changes almost nothing.',
    ],
  },
  {
    id: 'learn-to-attend',
    part: 4,
    title: 'Training tunes the projections',
    tag: 'ag-learn-to-attend',
    intro:
      'Until now every query and key was placed by hand. In a model nobody places them: each is a token\u2019s vector times a learned matrix, q = x W_Q and k = x W_K, and training moves W_Q and W_K, and with them every score. Part 4 trains tiny transformers in this page, on the project\u2019s own kernels, in a worker, so the page stays free while the steps run. Here a model of one layer and one head (d_k = 16) learns copyPrevious: the answer at position t is the token at t \u2212 1. Before training its attention is spread out; watch what the loss, the weights of one held-out sequence and the query and keys of one position do as it learns.',
    after: [
      answered(
        'Press Train and watch the three figures together: as the loss falls, row after row of the grid moves its weight onto the cell left of the diagonal, and k of the previous position turns towards q in the fan.',
      ),
      answered(
        'Press Enter on another row of the grid: every query from 2 to 8 ends with its highest score on the key just before it, whatever the tokens (positions 2 and 4 hold the same 1, yet attend to different places).',
      ),
      'Pause halfway, then resume: the run goes on from the same model. Restart: the same seed gives the same losses, bit for bit.',
      'Try another seed or a learning rate of 0.003: the story is the same, its pace is not. At 0.03 the loss drops within a few chunks.',
      answered(
        'Pick query 2 after training: its cosine with k\u2081 may even be negative. A key does not have to line up with q; its tip only has to lie further along q than the other keys\u2019 tips (the higher score), and the softmax does the rest.',
      ),
    ],
  },
  {
    id: 'scale-in-training',
    part: 4,
    title: 'Why 1/\u221ad\u2096 keeps learning alive',
    tag: 'ag-scale-in-training',
    intro:
      'Chapters 10 and 11 showed that q\u00b7k grows like \u221ad\u2096: at d\u2096 = 256 the scores of a fresh model spread over about \u00b116, and a softmax of such scores gives one key nearly all the weight. Its Jacobian diag(a) \u2212 a a\u1d40 is then nearly 0. What does such a start do to training? Here it is measured: the same one-layer, one-head model learns to copy the previous token twice, from the same parameters on the same batches, with its scores divided by \u221ad\u2096 and without. The three panels follow, step by step, the loss, the entropy of the attention rows and the gradient norm of the query projection W_Q.',
    after: [
      'Watch the entropy panel at d\u2096 = 256: the unscaled rows start near 0 bits, each on whichever key won by chance; the scaled ones start spread over several keys and sharpen only as they learn the previous token.',
      answered(
        'The scaled loss falls within a few chunks; the unscaled one lags far behind. A nearly one-hot row passes almost no gradient to the keys it gives about 0 weight, so the key of the previous token is hardly pushed up: the two articles this tour follows warn that large d\u2096 would break training without the scale.',
      ),
      answered(
        'Read the gradient panel: without the scale, W_Q\u2019s gradient is not smaller here but larger, since nothing divides it by 16. Adam divides each gradient by its own running size (Kingma and Ba 2015), so that size is evened out; what stalls learning is the saturated softmax: a key it gives almost no weight gets almost no gradient, so the previous token\u2019s score is hardly pushed up.',
      ),
      'Slide d\u2096 down to 16: \u221ad\u2096 is only 4 and the unscaled scores spread less. How close do the two runs come?',
      'Try another seed or a larger learning rate at d\u2096 = 256 and compare the two runs again; each run is seeded, so the same link gives the same curves.',
      'Use the keyboard: Tab to a slider and use the arrow keys; each run has its own Pause, Resume, Restart and Cancel.',
    ],
  },
  {
    id: 'heads-learn',
    part: 4,
    title: 'What heads learn',
    tag: 'ag-heads-learn',
    intro:
      'A model with two layers of two heads each learns inductionCopy: each row holds L distinct tokens repeated to its end, with L drawn anew for every row between 4 and 8, and from position L on the model must predict the next token. The token that comes next is the one that followed the current token the time before; it sits L \u2212 1 positions back, and since L changes from row to row, no head that looks a fixed distance back finds it. Elhage et al. and Olsson et al. studied how the heads of such a model share this work: could one head find the copy alone, or does a head need what another head wrote before it? The grids show the attention of each head on one held-out sequence as it trains, and the switches turn a head off: its output is set to 0 before W_O, so it adds nothing to the residual stream, and the held-out accuracy is measured again. Read from the grids what each head does, then switch heads off to see which ones the accuracy needs.',
    after: [
      answered(
        'What they found: two heads in sequence. A previous-token head writes into each position which token came before it; an induction head in the next layer looks from the current token for the position whose previous token matches it, the position after the earlier occurrence, and copies its token.',
      ),
      'Watch the grids of layer 0 while the loss falls: look for the head whose queries of the first copy put their weight on the token just before them, the diagonal just below the main one. The first copy is where the later tokens look for their earlier occurrence.',
      'Then the grids of layer 1: from each repeated token, look for the weight on the position after its earlier occurrence, L \u2212 1 positions back. When the held-out sequence holds more than two copies, a token finds several earlier occurrences, and its weight spreads over parallel diagonals or settles on one of them.',
      'Switch off one head of layer 1, then both: compare the held-out accuracy each time. Do the same with layer 0.',
      'Try seeds 1, 2 and 3: which head of layer 0 looks at the previous token changes with the seed, and in layer 1 both heads may look for the earlier occurrence.',
      'Choose 30 steps: the loss has only begun to fall, the grids are still spread, and the held-out accuracy is far from 100 %.',
    ],
  },
  {
    id: 'your-task',
    part: 4,
    title: 'Your own task',
    tag: 'ag-your-task',
    intro:
      'Now pose a task yourself. Pick one of the five toy tasks, each a next-token prediction: copy the previous token, reverse or sort a row of symbols, copy a repeated row (induction), or say where a row of brackets balances. Choose the model: positions T, symbols, d_model, heads (d_k = d_model / h), layers, the MLP block, layer norm, the 1/\u221ad\u2096 scale, Adam\u2019s learning rate, the steps and the seed. It trains in a background worker on the module\u2019s kernels; you watch the training loss and the accuracy on a held-out batch (another seed, never trained on), and the attention of one held-out example in each layer and head. The sizes are capped (T and vocab up to 16, d_model up to 64, 4 heads, 3 layers, 1000 steps), so the largest run takes about a minute. Sizes that do not fit together, such as 3 heads for d_model = 16, are refused with the API\u2019s own message. The link holds the whole config and the seed: opened again on the same build, it trains the same losses, bit for bit.',
    after: [
      'Train the default (copy the previous token, one layer, two heads), then switch between the heads in the heat map and find the one that puts each query on the key just before it.',
      'Choose induction copy with T = 12 and one head and train it; then set layers to 2 and train again. Pick layer 1 and layer 2 in the heat map: which head looks one position back, which looks at the token after the current token\u2019s earlier occurrence?',
      answered(
        'With one layer, induction copy stays well below 100 % after 200 steps; the copy is found by matching each token\u2019s predecessor, which takes a head in an earlier layer.',
      ),
      'Untick the scale with d_model = 64 and one head (d_k = 64): compare the loss curve with the scaled run of the same seed: the unscaled loss falls more slowly (chapter 33 measures why).',
      'Set heads to 3 with d_model = 16: the page shows the API\u2019s RangeError and keeps working; set heads to 4 and it trains.',
      'Copy the link, open it in another tab and train: the CSV of the curves is the same to the last digit. Change only the seed: the curves change, the end result mostly does not.',
      'Export the JSON: its run.config goes straight into ag.createTransformer, its run.task into ag.tasks[name].',
    ],
  },
];

/** The anchor id of a chapter's section. */
export const anchorOf = (chapter) => `ch-${chapter.id}`;
