// The concept check: ten multiple-choice questions on the ideas of the whole
// tour, asked before it (the pre-check) and again after it (the post-check).
// Each question has one right choice, which follows from the two articles or
// from what a chapter of the page measures (`chapter` names it), and wrong
// choices that are common misconceptions: `misconceptions` says, for each
// wrong choice, which wrong model of the maths it reveals; `why` explains the
// right one. The post-check shows both after the learner's answers.
//
// Ids are stable: they name the question in the stored answers, in the xAPI
// activity ids and in the SCORM interaction ids. A question whose meaning
// changes gets a new id; CHECK_VERSION changes when answers stored by an
// older set can no longer be read against this one.

/** The id of the check: its xAPI activities are `<page>#concept-check...`, its SCORM interactions `concept-check.…`. */
export const CHECK_ID = 'concept-check';
/** The version of the question set, kept with the stored answers. */
export const CHECK_VERSION = 1;
/** The two phases: before the tour and after it. */
export const PHASES = Object.freeze(['pre', 'post']);

const q = (id, chapter, question, choices, answer, why, misconceptions) =>
  Object.freeze({
    id,
    chapter,
    question,
    choices: Object.freeze(Object.entries(choices).map(([value, label]) => Object.freeze({ value, label }))),
    answer,
    why,
    misconceptions: Object.freeze(misconceptions),
  });

/** The ten questions, in the order asked. */
export const QUESTIONS = Object.freeze([
  q(
    'zero-score',
    'sign',
    'A query q and a key k, both non-zero, give the score q\u00b7k = 0. What does that say about k?',
    {
      opposed: 'k points against q: it is the least similar key there can be',
      perpendicular: 'k is at right angles to q: it neither supports nor opposes what q asks',
      empty: 'One of the two vectors must really be zero after all',
    },
    'perpendicular',
    'With |q| and |k| both above zero, q\u00b7k = |q||k| cos \u03b8 is zero only when cos \u03b8 is: the angle is 90\u00b0. An opposed key gives a negative score.',
    {
      opposed:
        'That reads a zero score as opposition. A key pointing against q has cos \u03b8 < 0 and gives a negative score; zero sits between the two.',
      empty:
        'That treats the dot product like a product of two numbers, which is zero only when a factor is. Two non-zero arrows at right angles give zero too.',
    },
  ),
  q(
    'key-length',
    'length',
    'Key k\u2082 points exactly the way key k\u2081 does but is three times as long, and q\u00b7k\u2081 is positive. How does q\u00b7k\u2082 compare with q\u00b7k\u2081?',
    {
      triple: 'Three times as large',
      same: 'The same: only the direction of a key counts',
      nine: 'Nine times as large',
    },
    'triple',
    'The score is linear in each vector: stretching k by a factor stretches q\u00b7k by the same factor. Length is a lever on the raw score.',
    {
      same: 'That is cosine similarity, which divides the lengths out. Attention uses the raw dot product, so a longer key scores higher.',
      nine: 'That treats the score as growing with the square of the key\u2019s length, as k\u00b7k does. Against a fixed q the score grows in proportion to the length.',
    },
  ),
  q(
    'score-spread',
    'sqrt-d',
    'The coordinates of q and k are independent, with mean 0 and variance 1. As the head width d\u2096 grows, what does the typical size (the standard deviation) of q\u00b7k do?',
    {
      constant: 'It stays about 1, since the terms average out',
      linear: 'It grows like d\u2096',
      sqrt: 'It grows like \u221ad\u2096',
    },
    'sqrt',
    'Each term q\u1d62k\u1d62 has mean 0 and variance 1; the variances of d\u2096 independent terms add up to d\u2096, so the spread is \u221ad\u2096.',
    {
      constant:
        'That confuses the mean with the spread. The mean stays 0, but a sum of more random terms strays further from it.',
      linear:
        'That adds the sizes of the terms as if they all had the same sign. Their signs are random and cancel in part: the variances add, not the sizes.',
    },
  ),
  q(
    'scale-purpose',
    'scale-fix',
    'Why are the scores divided by \u221ad\u2096 before the softmax?',
    {
      spread: 'To bring their spread back to about 1 at any d\u2096, so the softmax does not become one-hot',
      'sum-one': 'So that the weights add up to 1',
      cosine: 'To turn the dot products into cosines',
      cost: 'To make the computation cheaper',
    },
    'spread',
    'Raw scores spread like \u221ad\u2096; dividing by \u221ad\u2096 cancels that drift, so a wide head\u2019s softmax stays as soft as a narrow one\u2019s.',
    {
      'sum-one':
        'The softmax divides by its own sum, so its weights add up to 1 at any scale. The scale changes how peaked they are, not their sum.',
      cosine:
        'A cosine divides by |q||k|, which changes with every pair of vectors. \u221ad\u2096 is one constant for the whole head.',
      cost: 'It is one more multiplication per score, so it saves nothing. It changes what the softmax sees, not what the step costs.',
    },
  ),
  q(
    'softmax-shift',
    'softmax',
    'Add the same number, say 10, to every logit of a row before the softmax. What happens to the weights?',
    {
      sharper: 'They become sharper: the largest weight moves towards 1',
      flatter: 'They move towards equal weights',
      same: 'Nothing: they stay exactly as they were',
    },
    'same',
    'exp(s\u2c7c + c) = e\u1d9c exp(s\u2c7c): the common factor e\u1d9c cancels between each numerator and the sum. Only differences between logits matter, which is why a stable softmax may subtract the largest one.',
    {
      sharper:
        'That is what multiplying the logits by a number above 1 does (a lower temperature). Adding a number keeps every difference between them.',
      flatter:
        'That is what dividing the logits by a large number does (a higher temperature). Adding a number keeps every difference between them.',
    },
  ),
  q(
    'output-where',
    'convex-hull',
    'A query\u2019s output is y = \u03a3 \u03b1\u2c7c v\u2c7c with softmax weights \u03b1\u2c7c. Where can y lie?',
    {
      anywhere: 'Anywhere: the weights can scale the values to any size',
      hull: 'Inside the convex hull of the values (on its edge at most)',
      'on-value': 'Always exactly on one of the values',
      beyond: 'Further from the origin than every value, since the values are added up',
    },
    'hull',
    'Softmax weights are never negative and add up to 1, so y is a convex combination of the values: a weighted average that stays within their hull.',
    {
      anywhere:
        'That forgets the two rules of softmax weights: none is negative and they add up to 1. Weights without those rules can send y anywhere.',
      'on-value':
        'That is only the limit of one weight equal to 1, a hard pointer. In general the weights blend several values into a point between them.',
      beyond:
        'That reads the mixture as a plain sum. The weights add up to 1, so the output is an average of the values, never beyond the farthest one.',
    },
  ),
  q(
    'heads-width',
    'multi-head',
    'A multi-head layer has width d_model and h heads, laid out as in the Transformer. What does each head work with?',
    {
      full: 'All d_model columns of Q, K and V, so h heads cost h times as much as one',
      average: 'The same scores as every other head; the h outputs are averaged at the end',
      share: 'Its own d\u2096 = d_model/h columns of Q, K and V; the h outputs are put side by side and mixed by W_O',
    },
    'share',
    'The width is shared out: each head attends within its own d\u2096 = d_model/h columns, and the concatenation brings back d_model columns for W_O.',
    {
      full: 'In the usual layout the heads split d_model between them rather than each taking all of it; the total width, and the cost of the projections, stay those of one wide head.',
      average:
        'Each head has its own columns of the projections, so its own scores and weights: that is how the heads can look at different tokens. Their outputs are concatenated, not averaged.',
    },
  ),
  q(
    'mask-how',
    'masks',
    'A causal mask keeps a query from attending to later keys. How is a later key kept out of the weights?',
    {
      'minus-infinity': '\u2212\u221e is added to its score, so exp gives it a weight of exactly 0',
      'zero-score': 'Its score is set to 0 before the softmax',
      'zero-value': 'Its value vector is set to 0',
    },
    'minus-infinity',
    'A mask is added to the scores: 0 where a key may be seen, \u2212\u221e where it may not. exp(\u2212\u221e) = 0, so the hidden key gets no weight and the others share all of it.',
    {
      'zero-score':
        'A score of 0 is not \u201cno weight\u201d: exp(0) = 1, so the key still gets as much weight as any other key scoring 0.',
      'zero-value':
        'A zero value still takes its share of the weight, which then pulls the output towards 0; the visible keys would not share all the weight.',
    },
  ),
  q(
    'kv-cache-exact',
    'kv-cache',
    'A decoder with a KV cache writes token t from the keys and values it kept. Compared with causal attention recomputed over all t tokens, its output for token t is\u2026',
    {
      approximate: 'an approximation, a little off, traded for speed',
      stale: 'out of date: the earlier keys should have been updated by the new token',
      same: 'the same: the kept keys and values are exactly those a full pass would compute',
    },
    'same',
    'Under a causal mask an earlier token never sees a later one, so its key and value never change once made. Keeping them drops nothing; the page finds the same floats both ways.',
    {
      approximate:
        'The cache is reuse, not approximation: nothing is dropped or rounded differently, only not computed twice.',
      stale:
        'That forgets the causal mask: earlier tokens never attend to later ones, so nothing a new token brings can change their keys and values.',
    },
  ),
  q(
    'unscaled-training',
    'scale-in-training',
    'The one-head model of Part 4 with d\u2096 = 256 is trained with and without dividing its scores by \u221ad\u2096. Without the scale its attention rows start out sharp: most of each row\u2019s weight on one key. What slows its learning?',
    {
      'small-gradient': 'At the start, its gradient of W_Q is much smaller than the scaled model\u2019s',
      overflow: 'The scores overflow float32, so the loss turns into NaN',
      saturated:
        'The saturated softmax passes almost no gradient to the keys it gives nearly zero weight, so the right keys can hardly gain weight',
    },
    'saturated',
    'Sharp weights make the softmax\u2019s Jacobian diag(\u03b1) \u2212 \u03b1\u03b1\u1d40 nearly 0 for the keys with almost no weight: a key that should gain weight gets almost no push, and the loss lags behind the scaled run.',
    {
      'small-gradient':
        'The chapter measures the opposite at step 0: without the scale W_Q\u2019s gradient is larger, since nothing divides the scores by \u221ad\u2096. What stalls learning is the saturated softmax: the keys it gives almost no weight get almost no gradient.',
      overflow:
        'Scores of a few tens are far below float32\u2019s limit, and a stable softmax subtracts the largest one first. The run stays finite; it just learns slowly.',
    },
  ),
]);

/** The question with id `id`, or undefined. */
export const questionOf = (id) => QUESTIONS.find((question) => question.id === id);
