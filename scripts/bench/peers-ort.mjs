// onnxruntime-web with its WebAssembly execution provider, single-threaded,
// SIMD on, loaded from node_modules (nothing is fetched). Every call wraps
// the input Float32Arrays in ort.Tensor, awaits run() (which copies
// them into the wasm heap) and reads the output's data back; the models
// (onnx-models.mjs) are made once per workload, with all graph optimisations.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';
import { attentionModels, decodeModels, matmulModel, mhaModels, qktModels, softmaxModels } from './onnx-models.mjs';

function configure() {
  const dir = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = `${pathToFileURL(dir).href}/`;
  ort.env.logLevel = 'error';
}

// eslint-disable-next-line no-unused-vars -- the outputs read but not returned
let sink = null;

/** The candidate models of workload `w`, each with the shapes its inputs are fed with. */
function modelsOf(w) {
  const { dims } = w;
  switch (w.family) {
    case 'matmul':
      return { shapes: { A: [dims.M, dims.K], B: [dims.K, dims.N] }, models: matmulModel(dims.M, dims.K, dims.N) };
    case 'qkt':
      return { shapes: { Q: [dims.T, dims.d], K: [dims.T, dims.d] }, models: qktModels(dims.T, dims.T, dims.d) };
    case 'softmax':
      return { shapes: { X: [dims.rows, dims.cols] }, models: softmaxModels(dims.rows, dims.cols) };
    case 'attention': {
      const s = [dims.T, dims.d];
      return { shapes: { Q: s, K: s, V: s }, models: attentionModels(dims.T, dims.d, dims.d) };
    }
    case 'mha':
      return { shapes: { X: [dims.T, dims.D] }, models: mhaModels(dims.T, dims.D, dims.h, w.weights) };
    case 'decode': {
      const { P, hq, hkv, d, rope } = dims;
      const kv = [1, hkv, 1, d];
      return {
        shapes: { q: [1, hq, 1, d], k: kv, v: kv, pk: [1, hkv, P, d], pv: [1, hkv, P, d] },
        models: decodeModels(P, hq, hkv, d, rope),
      };
    }
    default:
      throw new Error(`onnxruntime: no model for family ${w.family}`);
  }
}

/**
 * Loaded models for the candidates of `w` that onnxruntime accepts; a model it
 * rejects (an operator its wasm build lacks) is listed with the reason.
 */
async function candidatesOf(w) {
  const { shapes, models } = modelsOf(w);
  const out = [];
  for (const m of models) {
    let runner;
    try {
      runner = await ort.InferenceSession.create(m.bytes, {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
    } catch (e) {
      out.push({
        name: m.name,
        failed: `not loaded: ${String(e.message ?? e)
          .split('\n')[0]
          .slice(0, 160)}`,
      });
      continue;
    }
    const names = runner.inputNames;
    const output = runner.outputNames[0];
    const run = async () => {
      const feeds = {};
      for (const n of names) feeds[n] = new ort.Tensor('float32', w.inputs[n], m.dims?.(n) ?? shapes[n]);
      const result = await runner.run(feeds);
      // Every output is read (a decoding step's present key and value too); the first is checked.
      for (const n of runner.outputNames) sink = result[n].data;
      return result[output].data;
    };
    out.push({ name: m.name, run, isAsync: true, dispose: () => runner.release() });
  }
  return out;
}

export async function ortImplementation() {
  configure();
  const version = ort.env.versions?.web ?? 'unknown';
  return {
    id: 'ort-wasm',
    label: 'onnxruntime-web',
    kind: 'peer',
    version: `onnxruntime-web ${version} (wasm execution provider, 1 thread, SIMD)`,
    prepare: candidatesOf,
  };
}
