// The page side: starts a module worker and shows what it sends back. The
// kernels run off the main thread, so a long computation never blocks the page.
const out = document.getElementById('result');
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = ({ data }) => {
  out.textContent = data.error
    ? `the worker could not compute: ${data.error}`
    : `weights ${data.weights.map((w) => w.toPrecision(5)).join(', ')} (${data.backend})`;
};
worker.postMessage({
  q: [[1, 2, 0, 1]],
  K: [
    [1, 2, 1, 0],
    [-1, -2, 0, 1],
    [0, 0, 1, 0],
  ],
  scale: 1,
});
