// The page side of the experiment worker (experiment-worker.js): one worker
// per client, started lazily; run(job, { onProgress }) resolves with the
// job's result, time(job, { onProgress }) with a timing's; cancel()
// terminates the worker at once (even in the middle of a kernel call) and the
// next run starts a fresh one. In test mode the
// worker's kernel calls are appended to window.__agCallLog, like the page's.
import { assetUrl, wasmUrls } from './assets.js';
import { currentImplementation, testMode } from './engine.js';
import { folderAdvice, whyUnreachable } from './load-failure.js';

const WORKER_FILE = 'experiment-worker.js';

/**
 * Starts the experiment worker, or throws an Error that says why it cannot.
 * - Same origin as the page (the normal site): the worker file beside the bundle.
 * - The single-file offline page: the worker's source is inlined as a data:
 *   URL. Chromium refuses blob: workers in a page opened from disk (their
 *   origin is "null"), but accepts data: workers (they get an opaque origin,
 *   which is enough: the wasm comes as a data: URL too).
 * - A bundle loaded from another origin (a host page that includes widgets.js
 *   from this site): browsers never start a worker from another origin's URL,
 *   so a tiny blob: module worker of the page's own origin imports it. A host
 *   page with a Content-Security-Policy must allow both in worker-src
 *   (`worker-src blob: https://this.site`: a module worker's imports are
 *   checked against worker-src), and this site must send CORS headers (a
 *   module import across origins is a CORS request).
 */
export function startWorker() {
  if (typeof Worker !== 'function') throw new Error('this browser has no Web Workers, which the experiments run in');
  const url = assetUrl(WORKER_FILE);
  if (url.protocol === 'file:') {
    throw new Error(
      'browsers do not start Web Workers in a page opened as a file from disk; open the page through a web server, or use the single-file offline copy (attention-geometry-offline.html)',
    );
  }
  try {
    return spawnWorker(url);
  } catch (err) {
    throw refused(url, err);
  }
}

/**
 * The Error of a worker that did not start (refused, or its file did not load): the run never began. Its parts
 * apart from the message, so that a widget shows the advice once: `summary`, what happened (the message without
 * the advice); `url`, the worker's file that the server did not deliver and `reason`, why ("the server answered
 * HTTP 404"), or null when it is not known; `advice`, where the widgets' files must be (load-failure.js,
 * folderAdvice) when the file did not load, else null. `message` is the summary, then the advice.
 */
export class WorkerStartError extends Error {
  constructor({ summary, url = null, reason = null, advice = null }) {
    super(advice ? `${summary} ${advice}` : summary);
    this.name = 'WorkerStartError';
    this.summary = summary;
    this.url = url;
    this.reason = reason;
    this.advice = advice;
  }
}

function spawnWorker(url) {
  if (url.protocol === 'data:' || url.origin === globalThis.location?.origin)
    return { worker: new Worker(url, { type: 'module' }), url };
  const source = `import ${JSON.stringify(url.href)};`;
  const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  try {
    return { worker: new Worker(blobUrl, { type: 'module' }), url, release: () => URL.revokeObjectURL(blobUrl) };
  } catch (err) {
    URL.revokeObjectURL(blobUrl);
    throw err;
  }
}

/**
 * The Error for a worker the browser refused to construct (it threw at once).
 * A page of origin "null" is most often a frame sandboxed without
 * allow-same-origin, whose module worker the browser will not load.
 */
function refused(url, err) {
  const where = url.protocol === 'data:' ? 'the worker inlined in this page' : url.href;
  const reason = (err && err.message ? err.message : String(err)).replace(/\.$/, '');
  // self.origin is the document's origin ("null" when opaque); location.origin is its address's.
  const hint =
    globalThis.origin === 'null'
      ? 'This page has no origin of its own ("null"), as in a frame sandboxed without allow-same-origin: add allow-same-origin to the frame\u2019s sandbox attribute (see EMBEDDING.md).'
      : 'A Content-Security-Policy without worker-src for it, or a browser setting, may forbid it.';
  return new WorkerStartError({ summary: `the experiment worker could not start (${where}): ${reason}. ${hint}` });
}

/**
 * The Error for a worker that reported an error event before any message (it did not start). A fetch of its
 * file tells when the server does not deliver it (an HTTP status): then that, and where the widgets' files
 * must be; else the usual causes.
 * @returns {Promise<WorkerStartError>}
 */
async function notStarted(url, event) {
  const unreachable = await whyUnreachable(url.href).catch(() => null);
  if (unreachable?.startsWith('the server answered'))
    return new WorkerStartError({
      summary: `the experiment worker could not start. For ${url.href} ${unreachable}.`,
      url: url.href,
      reason: unreachable,
      advice: folderAdvice(),
    });
  const where = url.protocol === 'data:' ? 'the worker inlined in this page' : url.href;
  const detail = event?.message ? `: ${event.message}` : '';
  const fetched = unreachable ? ` (a fetch of it: ${unreachable})` : '';
  return new WorkerStartError({
    summary:
      `the experiment worker could not start (${where})${detail}. The browser blocked or could not load it${fetched}: ` +
      'a Content-Security-Policy without worker-src for it, a missing file, or, from another origin, no CORS headers',
  });
}

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

  #started = false; // whether the current worker has sent a message yet
  #release = null; // frees the blob: URL of a cross-origin start, once the worker has loaded or is gone

  #spawn() {
    const { worker, url, release } = startWorker();
    this.#started = false;
    this.#release = release ?? null;
    worker.onmessage = (event) => {
      this.#started = true;
      this.#freeBlob();
      this.#receive(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (this.#started) {
        this.#fail(new Error(`the experiment worker failed: ${event.message ?? 'unknown error'}`));
        return;
      }
      // The job waits (busy, cancellable) while a fetch of the file finds why; a cancel or a new job in the
      // meantime has already settled it.
      const p = this.#pending;
      this.#stop();
      notStarted(url, event).then((err) => {
        if (this.#pending !== p) return;
        this.#pending = null;
        p?.reject(err);
      });
    };
    return worker;
  }

  #freeBlob() {
    this.#release?.();
    this.#release = null;
  }

  #receive(msg) {
    if (msg.type === 'log') {
      if (testMode && Array.isArray(window.__agCallLog)) {
        for (const entry of msg.entries)
          window.__agCallLog.push({ ...entry, impl: currentImplementation(), worker: true });
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
    this.#stop();
    p?.reject(err);
  }

  /** Terminates the worker, if any (the next job starts a new one). */
  #stop() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#freeBlob();
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
    return this.#send('run', job, onProgress);
  }

  /**
   * Runs a timing job (kind 'kernel-lab' or 'attention-cost', see
   * experiment-worker.js): the worker measures while the page stays free; a
   * running job is cancelled first.
   * @returns {Promise<any>} rejects with CancelledError when cancelled
   */
  time(job, { onProgress } = {}) {
    return this.#send('time', job, onProgress);
  }

  #send(type, job, onProgress) {
    if (this.#pending) this.cancel();
    try {
      if (!this.#worker) this.#worker = this.#spawn();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending = { id, resolve, reject, onProgress };
      // The worker locates the wasm files as the page does (assetUrl).
      this.#worker.postMessage({
        type,
        id,
        job,
        impl: currentImplementation() ?? 'auto',
        testMode,
        wasmUrl: wasmUrls(),
      });
    });
  }

  /** Stops the running job now: terminates the worker (a new one starts on the next run). */
  cancel() {
    const p = this.#pending;
    this.#pending = null;
    this.#stop();
    p?.reject(new CancelledError());
  }

  /** Terminates the worker (for disconnectedCallback). */
  dispose() {
    this.cancel();
  }
}
