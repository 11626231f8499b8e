// The worked example of the articles in Node 20 (ES module).
//   In this repository: npm run build, then node examples/node/worked-example.mjs. Elsewhere:
//   npm install attention-geometry (or the tarball of npm pack) && node worked-example.mjs
import { init } from 'attention-geometry';

const ag = await init(); // reads the .wasm from the installed package
const q = [[1, 2, 0, 1]];
const K = [
  [1, 2, 1, 0],
  [-1, -2, 0, 1],
  [0, 0, 1, 0],
];
const { scores, weights } = ag.attention(q, K, K, { scale: 1, returnScores: true, returnWeights: true });

console.log(`backend: ${ag.backend}`);
console.log(`scores:  ${Array.from(scores.data).join(', ')}`); // 5, -4, 0
console.log(`weights: ${Array.from(weights.data, (w) => w.toPrecision(5)).join(', ')}`); // 0.99319, 0.00012257, 0.0066920
