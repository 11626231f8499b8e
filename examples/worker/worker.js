// The worker side: loads the kernels once (the .wasm is fetched relative to
// the package's module, as on a page) and answers each message.
import { init } from '../node_modules/attention-geometry/dist/index.js';

const ready = init();

self.onmessage = async ({ data }) => {
  try {
    const ag = await ready;
    const { weights } = ag.attention(data.q, data.K, data.K, { scale: data.scale, returnWeights: true });
    self.postMessage({ weights: Array.from(weights.data), backend: ag.backend });
  } catch (error) {
    self.postMessage({ error: error.message });
  }
};
