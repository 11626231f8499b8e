// The page side of the experiment worker (experiment-worker.js): one worker
// per client, started lazily; run(job, { onProgress }) resolves with the
// job's result; cancel() terminates the worker at once (even in the middle of
// a kernel call) and the next run starts a fresh one. In test mode the
// worker's kernel calls are appended to window.__agCallLog, like the page's.
import { currentImplementation, testMode } from './engine.js';

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

export class ExperimentClient {
  #worker = null;
  #pending = null; // { id, resolve, reject, onProgress }
  #nextId = 1;

  #spawn() {
    // Relative to this module: in the site build every chunk and the worker
    // sit next to each other, so this works from any sub-path.
    const worker = new Worker(new URL('./experiment-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (event) => this.#receive(event.data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      this.#fail(new Error(`the experiment worker failed: ${event.message ?? 'could not start'}`));
    };
    return worker;
  }

  #receive(msg) {
    if (msg.type === 'log') {
      if (testMode && Array.isArray(window.__agCallLog)) {
        for (const entry of msg.entries) window.__agCallLog.push({ ...entry, impl: currentImplementation(), worker: true });
      }
      return;
    }
    const p = this.#pending;
    if (!p || msg.id !== p.id) return;
    if (msg.type === 'progress') p.onProgress?.(msg);
    else if (msg.type === 'result') {
      this.#pending = null;
      p.resolve(msg.result);
    } else if (msg.type === 'error') {
      this.#pending = null;
      p.reject(new Error(msg.message));
    }
  }

  #fail(err) {
    const p = this.#pending;
    this.#pending = null;
    this.#worker?.terminate();
    this.#worker = null;
    p?.reject(err);
  }

  /** Whether a job is running. */
  get busy() {
    return this.#pending !== null;
  }

  /**
   * Runs a job (see experiment-worker.js); a running job is cancelled first.
   * @returns {Promise<any>} rejects with CancelledError when cancelled
   */
  run(job, { onProgress } = {}) {
    if (this.#pending) this.cancel();
    if (!this.#worker) this.#worker = this.#spawn();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject, onProgress };
      this.#worker.postMessage({ type: 'run', id, job, impl: currentImplementation() ?? 'auto', testMode });
    });
  }

  /** Stops the running job now: terminates the worker (a new one starts on the next run). */
  cancel() {
    const p = this.#pending;
    this.#pending = null;
    if (this.#worker) {
      this.#worker.terminate();
      this.#worker = null;
    }
    p?.reject(new CancelledError());
  }

  /** Terminates the worker (for disconnectedCallback). */
  dispose() {
    this.cancel();
  }
}
