// TensorFlow.js with its WebAssembly backend (XNNPACK), the SIMD binary
// without threads, loaded from node_modules (nothing is fetched). Every call
// creates its input tensors from the Float32Arrays, runs the ops, reads the
// result back with dataSync() and disposes every tensor it made; model
// weights (multi-head attention) are tensors made once, as an app keeps them.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths, version_wasm as versionWasm } from '@tensorflow/tfjs-backend-wasm';
import { ropeAngles } from './decode.mjs';

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

/** Runs `body` (which returns several result tensors), reads them all, frees everything; the first one's data. */
function readAllAndFree(body) {
  const outs = tf.tidy(body);
  const data = outs.map((t) => t.dataSync());
  tf.dispose(outs);
  return data[0];
}

/**
 * One decoding step of grouped-query attention (decode.mjs): the new key and
 * value joined to the cache, the h_q / h_kv query heads of each key/value
 * head as the rows of one product, Q scaled first; with `dims.rope`, q and
 * the new key turned at position P first, x cos + swap(x) sin with the pairs
 * swapped by a reverse (the cos and signed sin of position P are tensors made
 * once, as a model keeps its tables). Returns the output, the present key and
 * the present value.
 */
function decodeCandidate(w) {
  const { inputs: x, dims } = w;
  const { P, hq, hkv, d } = dims;
  const g = hq / hkv;
  const scale = 1 / Math.sqrt(d);
  let tables = null;
  if (dims.rope) {
    const { cos, sin } = ropeAngles(P, d);
    const c = new Float32Array(d);
    const s = new Float32Array(d);
    for (let i = 0; i < d / 2; i++)
      [c[2 * i], c[2 * i + 1], s[2 * i], s[2 * i + 1]] = [cos[i], cos[i], -sin[i], sin[i]];
    tables = { cos: tf.tensor1d(c), sin: tf.tensor1d(s) };
  }
  const turn = (t, heads) => {
    const swapped = tf.reshape(tf.reverse(tf.reshape(t, [heads, d / 2, 2]), -1), [1, heads, 1, d]);
    return tf.add(tf.mul(t, tables.cos), tf.mul(swapped, tables.sin));
  };
  const run = () =>
    readAllAndFree(() => {
      let q = tf.tensor4d(x.q, [1, hq, 1, d]);
      let k = tf.tensor4d(x.k, [1, hkv, 1, d]);
      const v = tf.tensor4d(x.v, [1, hkv, 1, d]);
      if (tables) [q, k] = [turn(q, hq), turn(k, hkv)];
      const K = tf.concat([tf.tensor4d(x.pk, [1, hkv, P, d]), k], 2);
      const V = tf.concat([tf.tensor4d(x.pv, [1, hkv, P, d]), v], 2);
      const q3 = tf.reshape(tf.mul(q, scale), [hkv, g, d]);
      const scores = tf.matMul(q3, tf.reshape(K, [hkv, P + 1, d]), false, true); // [h_kv, g, P + 1]
      const o = tf.matMul(tf.softmax(scores), tf.reshape(V, [hkv, P + 1, d])); // [h_kv, g, d]
      return [tf.reshape(o, [1, hq, 1, d]), K, V];
    });
  const name = `${dims.rope ? 'mul, reverse, add (RoPE), ' : ''}concat, matMul, softmax, matMul (Q scaled)`;
  return { name, run, dispose: () => tables && tf.dispose(Object.values(tables)) };
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
    case 'decode':
      return [decodeCandidate(w)];
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
