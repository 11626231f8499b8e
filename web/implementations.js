// The implementations the page can compute with, and the one computation the
// worked example needs. The list comes from the loaded module: its backend
// (ag.backend) and the kernel registry (ag.kernels), so the menu shows only
// what this browser can run.
import { D_K, KEY_COUNT } from './state.js';

/** The kernels the worked example calls: Q·Kᵀ for the scores, attention for the weights. */
const KERNELS_USED = ['matmul_nt', 'attention'];

const CHOICES = {
  simd128: { label: 'SIMD build, simd128 kernels', options: { simd: true, variant: 'simd128' } },
  scalar: { label: 'SIMD build, scalar kernels', options: { simd: true, variant: 'scalar' } },
  baseline: { label: 'Baseline build (no SIMD), scalar kernels', options: { simd: false } },
};

/** Variants that every kernel in KERNELS_USED offers in this module. */
function sharedVariants(ag) {
  const entries = ag.kernels.filter((k) => KERNELS_USED.includes(k.name));
  if (entries.length !== KERNELS_USED.length) return [];
  return entries[0].variants.filter((v) => entries.every((e) => e.variants.includes(v)));
}

/** The identity as the values V, so that the output row is the weights again. */
function identityValues() {
  return Array.from({ length: KEY_COUNT }, (_, i) => Array.from({ length: KEY_COUNT }, (_, j) => (i === j ? 1 : 0)));
}

function engine(id, ag) {
  return {
    id,
    label: `${CHOICES[id].label} (${ag.backend})`,
    /** Scores q·k_j, the scores as attention scales them, and the softmax weights. */
    computeWorkedExample(state) {
      const q = { data: Float32Array.from(state.q), shape: [1, D_K] };
      const k = { data: Float32Array.from(state.k.flat()), shape: [KEY_COUNT, D_K] };
      const scores = ag.matmul(q, k, { transposeB: true });
      // Unscaled means scale 1; otherwise the API's default scale, 1/√d_k.
      const options = { returnWeights: true, returnScores: true };
      if (state.scale === 'none') options.scale = 1;
      const attended = ag.attention(q, k, identityValues(), options);
      return {
        scores: Array.from(scores.data),
        scaledScores: Array.from(attended.scores.data),
        weights: Array.from(attended.weights.data),
      };
    },
  };
}

/**
 * Loads the default module (SIMD when this browser supports it) and returns
 * the menu of implementations and a loader for each, instances kept.
 * Rejects when no module can be loaded.
 */
export async function openImplementations() {
  // Imported here rather than at the top, so that a missing package is a
  // rejection the page can show rather than a module graph that never runs.
  const api = await import('./lib/index.js');
  const first = await api.init({ simd: 'auto' });
  const defaultId = first.backend === 'wasm-simd128' ? first.variant : 'baseline';
  // In the SIMD build, each kernel variant the registry lists for the kernels
  // used; the baseline build is always offered, as it runs on any engine.
  const variants = first.backend === 'wasm-simd128' ? sharedVariants(first) : [];
  const ids = ['simd128', 'scalar'].filter((v) => variants.includes(v));
  if (defaultId !== 'baseline' && !ids.includes(defaultId)) ids.unshift(defaultId);
  ids.push('baseline');
  const instances = new Map([[defaultId, Promise.resolve(first)]]);
  return {
    defaultId,
    choices: ids.map((id) => ({ id, label: CHOICES[id].label })),
    /** The engine for one implementation id (loads its module the first time). */
    async get(id) {
      if (!CHOICES[id]) throw new RangeError(`unknown implementation "${id}"`);
      if (!instances.has(id)) instances.set(id, api.init(CHOICES[id].options));
      try {
        return engine(id, await instances.get(id));
      } catch (err) {
        instances.delete(id);
        throw err;
      }
    },
  };
}
