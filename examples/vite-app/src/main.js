// Vite finds the .wasm through the package's `new URL('./wasm/...', import.meta.url)`
// and emits it with the app: no configuration needed.
import { init } from 'attention-geometry';

const out = document.getElementById('result');
try {
  const ag = await init();
  const q = [[1, 2, 0, 1]];
  const K = [
    [1, 2, 1, 0],
    [-1, -2, 0, 1],
    [0, 0, 1, 0],
  ];
  const { scores, weights } = ag.attention(q, K, K, { scale: 1, returnScores: true, returnWeights: true });
  out.textContent =
    `scores ${Array.from(scores.data).join(', ')}; ` +
    `weights ${Array.from(weights.data, (w) => w.toPrecision(5)).join(', ')} (${ag.backend})`;
} catch (error) {
  out.textContent = `could not load the kernels: ${error.message}`;
}
