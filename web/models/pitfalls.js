// The four pitfalls of chapter 15 ("Pitfalls"): each a misreading of a score,
// its explanation, the chapter whose widget demonstrates it (and the state
// that does), and the numbers that show it, computed by the API `ag` passed
// in. Pure: no DOM.

import { argmax } from './tensor.js';

/**
 * The four pitfalls. `chapter` is a chapters.js id; `state` the text form
 * given to that chapter's widget (null: its own starting state).
 */
export const PITFALLS = [
  {
    id: 'raw-dot',
    title: 'Reading a raw dot product as similarity',
    text: 'A dot product grows with the lengths of both vectors as well as with their alignment. A long key can out-score a shorter key that points exactly the same way, so a large score alone does not say "more similar". The cosine divides the lengths out and keeps only the direction.',
    tex: 'q\\cdot k=|q|\\,|k|\\cos\\theta',
    chapter: 'cosine',
    state: 'v=1&q=1,1&k1=1,1&k2=5,5&normalise=0',
    action: 'Show q = (1, 1) against k\u2081 = (1, 1) and k\u2082 = (5, 5)',
    /** One number that shows the pitfall, from the module. */
    compute: (ag) => {
      const raw = [ag.dot([1, 1], [1, 1]), ag.dot([1, 1], [5, 5])];
      const cos = [ag.cosine([1, 1], [1, 1]), ag.cosine([1, 1], [5, 5])];
      return [
        ['raw', raw[0], 'q\u00b7k\u2081 = '],
        ['raw', raw[1], ', q\u00b7k\u2082 = '],
        ['cosine', cos[0], '; cosines: '],
        ['cosine', cos[1], ' and '],
      ];
    },
  },
  {
    id: 'scale',
    title: 'Forgetting the 1/\u221ad\u2096 scaling',
    text: 'The dot product of two random vectors with d\u2096 components has a spread of about \u221ad\u2096. Fed to softmax unscaled, such scores make one weight swallow nearly everything, and the gradient through softmax all but vanishes. Dividing by \u221ad\u2096 brings the spread back to about 1.',
    tex: '\\operatorname{softmax}\\!\\Big(\\frac{QK^{\\mathsf T}}{\\sqrt{d_k}}\\Big)',
    chapter: 'scale-fix',
    state: 'v=1&seed=7&tokens=16&dk=4096',
    action: 'Show a row of scores at d\u2096 = 4096, unscaled and scaled',
    compute: (ag) => {
      // 16 scores q·k_j with q, k_j standard normal in 4096 dimensions (as in chapter 11, seed 7).
      const q = ag.random.normal({ seed: 7, counter: 0, n: 4096 });
      const K = ag.random.normal({ seed: 7, counter: 1024, n: 16 * 4096 });
      const s = ag.matmul({ data: K.data, shape: [16, 4096] }, { data: q.data, shape: [4096, 1] }).data;
      const w = ag.softmax(s).data;
      const ws = ag.softmax(s, { temperature: Math.sqrt(4096) }).data;
      return [
        ['max-unscaled', w[argmax(w)], 'Largest of 16 weights at d\u2096 = 4096: '],
        ['max-scaled', ws[argmax(ws)], ' unscaled, '],
      ];
    },
    suffix: ' scaled.',
  },
  {
    id: 'zero',
    title: 'Reading a zero score as "dissimilar"',
    text: 'A score of zero means the two vectors are perpendicular: the key is unrelated to the query, neither for nor against it. "Dissimilar" in the sense of opposed is a negative score. In softmax a zero score sits between the two: it gets less weight than agreeing keys and more than opposing ones.',
    tex: 'q\\cdot k=0\\iff\\theta=90^\\circ',
    chapter: 'orthogonality',
    state: 'v=1&q=2,1&k1=1,1&k2=-1,2&k3=-1,-0.5',
    action: 'Show keys that agree, are perpendicular, and oppose',
    compute: (ag) => {
      const w = ag.softmax([3, 0, -2.5]).data;
      return [
        ['weight', w[0], 'softmax of the scores 3, 0, \u22122.5: '],
        ['weight', w[1], ', '],
        ['weight', w[2], ', '],
      ];
    },
  },
  {
    id: 'dimension',
    title: 'Trusting low-dimensional intuition',
    text: 'In the plane, two random directions are as likely to be close as far apart. With hundreds of dimensions, almost every pair of random directions is within a few degrees of perpendicular, so a cosine of 0.2 that would mean little in 2-D stands out clearly in 1000-D.',
    tex: '\\sqrt{\\mathbb E[\\cos^2\\theta]}=1/\\sqrt d',
    chapter: 'near-orthogonal',
    state: 'v=1&d=1000&pairs=10000&seed=1&eps=0.2&cand=20000',
    action: 'Show the cosines of random pairs as the dimension grows',
    compute: (ag) => {
      const [lo, hi] = [2, 1000].map((d) =>
        ag.randomDotExperiment({ d, trials: 2000, seed: 3, measure: 'cosine', bins: 1, returnSamples: false }),
      );
      return [
        ['rms-cos-2', lo.rms, 'Root mean square of cos \u03b8 over 2000 random pairs: '],
        ['rms-cos-1000', hi.rms, ' in 2-D, '],
      ];
    },
    suffix: ' in 1000-D.',
  },
];
