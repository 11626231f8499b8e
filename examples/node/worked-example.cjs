// The worked example of the articles in Node 20 (CommonJS).
//   In this repository: npm run build, then node examples/node/worked-example.cjs. Elsewhere:
//   npm install attention-geometry (or the tarball of npm pack) && node worked-example.cjs
const { init } = require('attention-geometry');

init().then((ag) => {
  const q = [[1, 2, 0, 1]];
  const K = [
    [1, 2, 1, 0],
    [-1, -2, 0, 1],
    [0, 0, 1, 0],
  ];
  const { weights } = ag.attention(q, K, K, { scale: 1, returnWeights: true });
  console.log(`weights: ${Array.from(weights.data, (w) => w.toPrecision(5)).join(', ')}`); // 0.99319, 0.00012257, 0.0066920
});
