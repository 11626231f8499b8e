// TensorFlow.js with its WebAssembly backend (XNNPACK), the SIMD binary
// without threads, loaded from node_modules (nothing is fetched). Every call
// creates its input tensors from the Float32Arrays, runs the ops, reads the
// result back with dataSync() and disposes every tensor it made; model
// weights (multi-head attention) are tensors made once, as an app keeps them.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths, version_wasm as versionWasm } from '@tensorflow/tfjs-backend-wasm';

/**
 * Loads the backend single-threaded with SIMD. Throws if another binary
 * would be used (no SIMD, or threads).
 */
async function loadBackend() {
  const dir = dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  // The emscripten glue reads a local path with node:fs (without platform fetch).
  setWasmPaths(`${dir}/`);
  setThreadsCount(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialise');
  await tf.ready();
  if (!(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))) throw new Error('tfjs: no SIMD support detected');
  const threads = tf.backend().wasm.tfjs.getThreadsCount();
  if (threads !== 1) throw new Error(`tfjs: ${threads} threads instead of 1`);
  return 'tfjs-backend-wasm-simd.wasm, 1 thread';
}

/** Runs `body` (which makes tensors from inputs and returns the result tensor), reads the result, frees everything. */
function readAndFree(body) {
  const out = tf.tidy(body);
  const data = out.dataSync();
  out.dispose();
  return data;
}

/** The candidate calls of workload `w`: [{ name, run, dispose }]. */
function candidatesOf(w) {
  const { inputs: x, dims } = w;
  const none = () => {};
  switch (w.family) {
    case 'matmul':
      return [
        {
          name: 'matMul',
          run: () =>
            readAndFree(() => tf.matMul(tf.tensor2d(x.A, [dims.M, dims.K]), tf.tensor2d(x.B, [dims.K, dims.N]))),
          dispose: none,
        },
      ];
    case 'qkt': {
      const s = [dims.T, dims.d];
      return [
        {
          name: 'matMul transposeB',
          run: () => readAndFree(() => tf.matMul(tf.tensor2d(x.Q, s), tf.tensor2d(x.K, s), false, true)),
          dispose: none,
        },
      ];
    }
    case 'softmax':
      return [
        {
          name: 'softmax',
          run: () => readAndFree(() => tf.softmax(tf.tensor2d(x.X, [dims.rows, dims.cols]))),
          dispose: none,
        },
      ];
    case 'attention': {
      const s = [dims.T, dims.d];
      const scale = 1 / Math.sqrt(dims.d);
      const attend = (scaleFirst) => () =>
        readAndFree(() => {
          const q = tf.tensor2d(x.Q, s);
          const k = tf.tensor2d(x.K, s);
          const v = tf.tensor2d(x.V, s);
          const scores = scaleFirst
            ? tf.matMul(tf.mul(q, scale), k, false, true)
            : tf.mul(tf.matMul(q, k, false, true), scale);
          return tf.matMul(tf.softmax(scores), v);
        });
      return [
        { name: 'matMul, mul, softmax, matMul', run: attend(false), dispose: none },
        { name: 'mul (Q), matMul, softmax, matMul', run: attend(true), dispose: none },
      ];
    }
    case 'mha': {
      const { T, D, h } = dims;
      const dk = D / h;
      const scale = 1 / Math.sqrt(dk);
      const W = Object.fromEntries(Object.entries(w.weights).map(([k, v]) => [k, tf.tensor2d(v, [D, D])]));
      const heads = (m) => tf.transpose(tf.reshape(m, [T, h, dk]), [1, 0, 2]); // [h, T, dk]
      const run = () =>
        readAndFree(() => {
          const X = tf.tensor2d(x.X, [T, D]);
          const q = heads(tf.mul(tf.matMul(X, W.wQ), scale));
          const k = heads(tf.matMul(X, W.wK));
          const v = heads(tf.matMul(X, W.wV));
          const o = tf.matMul(tf.softmax(tf.matMul(q, k, false, true)), v); // [h, T, dk]
          return tf.matMul(tf.reshape(tf.transpose(o, [1, 0, 2]), [T, D]), W.wO);
        });
      return [
        { name: 'matMul, reshape, transpose, softmax (Q scaled)', run, dispose: () => tf.dispose(Object.values(W)) },
      ];
    }
    default:
      throw new Error(`tfjs: no call for family ${w.family}`);
  }
}

export async function tfjsImplementation() {
  const binary = await loadBackend();
  return {
    id: 'tfjs-wasm',
    label: 'tfjs-backend-wasm',
    kind: 'peer',
    version: `@tensorflow/tfjs-core ${tf.version_core}, @tensorflow/tfjs-backend-wasm ${versionWasm} (${binary})`,
    prepare: async (w) => candidatesOf(w).map((c) => ({ ...c, isAsync: false })),
    /** Tensors still alive (0 after every workload: nothing leaks between measurements). */
    liveTensors: () => tf.memory().numTensors,
  };
}
