// The package as users load it: the self-reference through package.json
// "exports", init's options (build choice, variants, where the .wasm is),
// independent instances, the test-mode call log, and results that are
// JS-owned copies.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from '@jest/globals';
import { init } from './helpers.mjs';

test("import('attention-geometry') then (await init()).dot([3,4],[4,3]) === 24", async () => {
  const pkg = await import('attention-geometry');
  const ag = await pkg.init();
  expect(ag.dot([3, 4], [4, 3]) === 24).toBe(true);
  expect(['wasm-simd128', 'wasm-scalar']).toContain(ag.backend);
});

test("simd: 'auto' picks the SIMD build on an engine with SIMD (Node 20), variant simd128 by default", async () => {
  const ag = await init();
  expect(ag.backend).toBe('wasm-simd128');
  expect(ag.variant).toBe('simd128');
  const names = ag.kernels.map((k) => k.name);
  expect(names).toContain('attention');
  expect(names).toContain('multi_head_attention');
});

test('simd: false gives the baseline build with only the scalar variant', async () => {
  const ag = await init({ simd: false });
  expect(ag.backend).toBe('wasm-scalar');
  expect(ag.variant).toBe('scalar');
  for (const k of ag.kernels) expect(k.variants).not.toContain('simd128');
});

test('two init calls give independent instances', async () => {
  const [a, b] = await Promise.all([init({ logCalls: true }), init({ logCalls: true })]);
  expect(a).not.toBe(b);
  a.dot([1, 2], [3, 4]);
  expect(a.callLog.length).toBe(1);
  expect(b.callLog.length).toBe(0);
  // A large call on one instance grows only its own heap.
  const before = b.heapAllocatedBytes();
  a.matmul(
    { data: new Float32Array(1 << 20).fill(1), shape: [1024, 1024] },
    { data: new Float32Array(1024).fill(1), shape: [1024, 1] },
  );
  expect(b.heapAllocatedBytes()).toBe(before);
  expect(b.dot([3, 4], [4, 3])).toBe(24);
});

describe('locating the .wasm', () => {
  const wasmUrl = new URL('../../dist/wasm/ag-simd.wasm', import.meta.url);
  test('options.wasmBinary (bytes) and options.wasmUrl and options.locateFile are honoured', async () => {
    const bytes = readFileSync(wasmUrl);
    expect((await init({ simd: true, wasmBinary: bytes })).dot([3, 4], [4, 3])).toBe(24);
    expect((await init({ simd: true, wasmUrl })).dot([3, 4], [4, 3])).toBe(24);
    const asked = [];
    const ag = await init({
      simd: false,
      locateFile: (name) => {
        asked.push(name);
        return new URL(`../../dist/wasm/${name}`, import.meta.url).href;
      },
    });
    expect(asked).toEqual(['ag-scalar.wasm']);
    expect(ag.dot([3, 4], [4, 3])).toBe(24);
  });
  test("the other build's .wasm is refused by init with a message naming both files, not at the first call", async () => {
    const scalarBytes = readFileSync(new URL('../../dist/wasm/ag-scalar.wasm', import.meta.url));
    await expect(init({ simd: true, wasmBinary: scalarBytes })).rejects.toThrow(
      'init: options.simd = true asks for ag-simd.wasm (the SIMD build), but the module given by options.wasmBinary for it is ag-scalar.wasm; give ag-simd.wasm there instead',
    );
    await expect(init({ simd: false, wasmBinary: readFileSync(wasmUrl) })).rejects.toThrow(
      'asks for ag-scalar.wasm (the baseline build), but the module given',
    );
    // Swapped per-build entries under 'auto': the SIMD entry, read first, is named.
    await expect(init({ wasmBinary: { simd: scalarBytes, scalar: readFileSync(wasmUrl) } })).rejects.toThrow(
      "init: options.simd = 'auto' chose the SIMD build, ag-simd.wasm (this engine supports SIMD), but the module given by options.wasmBinary.simd for it is ag-scalar.wasm; give ag-simd.wasm there instead",
    );
    // One SIMD file given for both builds where the engine falls back: named as the baseline build's file.
    await expect(init({ simd: false, wasmBinary: readFileSync(wasmUrl) })).rejects.toThrow(
      'asks for ag-scalar.wasm (the baseline build), but the module given by options.wasmBinary for it is ag-simd.wasm',
    );
    // A module that compiles but is not one of the package's (the 8-byte empty module) rejects instead of hanging.
    await expect(init({ simd: true, wasmBinary: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) })).rejects.toThrow(
      "it is not one of this package's modules",
    );
    // Bytes as a DataView are bytes like any other view.
    const simdBytes = readFileSync(wasmUrl);
    const view = new DataView(simdBytes.buffer, simdBytes.byteOffset, simdBytes.byteLength);
    expect((await init({ simd: true, wasmBinary: view })).dot([3, 4], [4, 3])).toBe(24);
    // A SharedArrayBuffer is bytes too (not an object of per-build entries, which would be ignored).
    const shared = new SharedArrayBuffer(simdBytes.byteLength);
    new Uint8Array(shared).set(simdBytes);
    expect((await init({ simd: true, wasmBinary: shared })).dot([3, 4], [4, 3])).toBe(24);
    expect((await init({ simd: true, wasmBinary: { simd: new Uint8Array(shared) } })).dot([3, 4], [4, 3])).toBe(24);
    await expect(init({ simd: true, wasmBinary: new SharedArrayBuffer(8) })).rejects.toThrow(
      'could not load the WebAssembly module ag-simd.wasm from options.wasmBinary',
    );
    // So is a buffer made in another realm (an iframe, node:vm), which instanceof does not recognise;
    // the garbage one shows that these bytes, not the default file, are what is loaded.
    const foreign = runInNewContext('new ArrayBuffer(n)', { n: simdBytes.byteLength });
    new Uint8Array(foreign).set(simdBytes);
    expect((await init({ simd: true, wasmBinary: foreign })).dot([3, 4], [4, 3])).toBe(24);
    // A DataView from another realm too (WebAssembly.instantiate takes no DataView: it becomes a Uint8Array).
    expect(
      (await init({ simd: true, wasmBinary: runInNewContext('new DataView(b)', { b: foreign }) })).dot([3, 4], [4, 3]),
    ).toBe(24);
    // Objects that only look like buffers are neither bytes nor {simd, scalar}: a TypeError, not the default file.
    for (const [fake, made] of [
      [new Proxy(new ArrayBuffer(8), {}), 'ArrayBuffer'],
      [Object.create(ArrayBuffer.prototype), 'ArrayBuffer'],
      [new Map(), 'Map'],
    ]) {
      await expect(init({ simd: true, wasmBinary: fake })).rejects.toThrow(
        `options.wasmBinary must be an ArrayBuffer, a SharedArrayBuffer or a typed array (the bytes of the .wasm), or {simd, scalar} of those; got`,
      );
      await expect(init({ simd: true, wasmBinary: fake })).rejects.toThrow(`(made from ${made}.prototype)`);
    }
    // Each option is read once: a getter that would answer differently the second time loads what was checked.
    let reads = 0;
    expect(
      (
        await init({
          simd: true,
          wasmBinary: {
            get simd() {
              reads += 1;
              return reads > 1 ? 'oops' : simdBytes;
            },
          },
        })
      ).dot([3, 4], [4, 3]),
    ).toBe(24);
    expect(reads).toBe(1);
    // locateFile is still called as a method of the options given.
    const wasmDir = new URL('../../dist/wasm/', import.meta.url);
    const asMethod = Object.assign(Object.create({ dir: wasmDir }), {
      locateFile(name) {
        return new URL(name, this.dir);
      },
    });
    expect((await init(asMethod)).dot([3, 4], [4, 3])).toBe(24);
    // A getter or Proxy trap that throws is named, with the original error as cause.
    const simdThrows = (thrown) => ({
      wasmBinary: {
        get simd() {
          throw thrown;
        },
      },
    });
    const boom = new Error('boom');
    await expect(init(simdThrows(boom))).rejects.toMatchObject({
      name: 'TypeError',
      message: 'init: reading options.wasmBinary.simd threw: boom',
      cause: boom,
    });
    await expect(
      init({
        get wasmUrl() {
          throw boom;
        },
      }),
    ).rejects.toThrow('init: reading options.wasmUrl threw: boom');
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    await expect(init({ wasmBinary: revoked.proxy })).rejects.toThrow(/^init: reading options\.wasmBinary threw: /);
    // Whatever is thrown, even an object String() cannot convert, is named and kept as cause.
    const odd = Object.create(null);
    await expect(init(simdThrows(odd))).rejects.toMatchObject({
      message: 'init: reading options.wasmBinary.simd threw: a value that is not an Error',
      cause: odd,
    });
    const trap = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    await expect(init({ wasmUrl: trap })).rejects.toThrow('init: reading options.wasmUrl threw: trap');
    await expect(init({ wasmUrl: { simd: trap } })).rejects.toThrow(
      'init: options.wasmUrl.simd must be a non-empty string or a URL; got an object with keys {}',
    );
    // A URL is recognised by its internal slots: imitations are refused when checked, not when loaded.
    for (const fake of [Object.create(URL.prototype), new Proxy(new URL('file:///x.wasm'), {})]) {
      await expect(init({ wasmUrl: fake })).rejects.toThrow(
        /^init: options\.wasmUrl must be a non-empty string or a URL, or \{simd, scalar\} of those; got .*\(made from URL\.prototype\)$/,
      );
    }
    // An entry read by name counts even when it is not enumerable: that file is loaded, not the default one.
    const hidden = {};
    Object.defineProperty(hidden, 'simd', { value: 'file:///nonexistent/ag-simd.wasm' });
    await expect(init({ simd: true, wasmUrl: hidden })).rejects.toThrow('file:///nonexistent/ag-simd.wasm');
    // An object whose prototype is another object is not {simd, scalar}, and is told so.
    await expect(init({ wasmBinary: Object.create({ simd: simdBytes }) })).rejects.toThrow(
      '(its prototype is not Object.prototype)',
    );
    // {simd, scalar} made in another realm is still that object.
    expect(
      (await init({ simd: true, wasmBinary: runInNewContext('({ simd: b })', { b: foreign }) })).dot([3, 4], [4, 3]),
    ).toBe(24);
    await expect(init({ simd: true, wasmBinary: runInNewContext('new ArrayBuffer(8)') })).rejects.toThrow(
      'could not load the WebAssembly module ag-simd.wasm from options.wasmBinary',
    );
    // With simd on 'auto' the baseline bytes are simply the baseline build.
    const ag = await init({ wasmBinary: scalarBytes });
    expect([ag.backend, ag.dot([3, 4], [4, 3])]).toEqual(['wasm-scalar', 24]);
    // ...but the baseline file given for the SIMD build itself is refused, not replaced by the baseline build from elsewhere.
    const scalarUrl = new URL('../../dist/wasm/ag-scalar.wasm', import.meta.url);
    await expect(init({ wasmUrl: { simd: scalarUrl } })).rejects.toThrow(
      "init: options.simd = 'auto' chose the SIMD build, ag-simd.wasm (this engine supports SIMD), but the module given by options.wasmUrl.simd for it is ag-scalar.wasm; give ag-simd.wasm there instead, or pass simd: false",
    );
    await expect(init({ wasmBinary: { simd: scalarBytes } })).rejects.toThrow(
      'the module given by options.wasmBinary.simd for it is ag-scalar.wasm',
    );
    await expect(init({ locateFile: () => scalarUrl.href })).rejects.toThrow(
      "the module given by options.locateFile('ag-simd.wasm') for it is ag-scalar.wasm",
    );
    // The baseline build's own entry is named the same way (the entry it was loaded from, not the option in general).
    await expect(init({ simd: false, wasmBinary: { scalar: simdBytes } })).rejects.toThrow(
      'the module given by options.wasmBinary.scalar for it is ag-simd.wasm',
    );
    await expect(init({ simd: false, wasmBinary: { simd: simdBytes }, wasmUrl: { scalar: wasmUrl } })).rejects.toThrow(
      'the module given by options.wasmUrl.scalar for it is ag-simd.wasm',
    );
    await expect(
      init({ simd: false, wasmBinary: { simd: simdBytes }, locateFile: () => wasmUrl.href }),
    ).rejects.toThrow("the module given by options.locateFile('ag-scalar.wasm') for it is ag-simd.wasm");
  });
  test('a locateFile that throws rejects with an Error naming it, its argument and the error', async () => {
    const boom = new Error('boom');
    let error;
    try {
      await init({
        simd: true,
        locateFile: () => {
          throw boom;
        },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe("init: options.locateFile('ag-simd.wasm') threw: boom");
    expect(error.cause).toBe(boom);
  });
  test('a .wasm that cannot be found rejects with an Error naming the URL tried and the options that fix it', async () => {
    const wrong = new URL('./no-such-dir/ag-simd.wasm', import.meta.url);
    let error;
    try {
      await init({ simd: true, locateFile: () => wrong.href });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain(wrong.href);
    expect(error.message).toContain('locateFile');
    expect(error.message).toContain('wasmBinary');
    // What the read threw is kept as the cause (Node's error for a file that does not exist).
    expect(error.cause?.syscall).toBe('open');
    expect(error.cause.code).toBe('ENOENT');
  });
  test('a .wasm fetched over HTTP and not delivered: the cause holds the URL and the HTTP status', async () => {
    // A server that answers 404 to every request, and a port where nothing listens (no response at all).
    const listening = async (server) => {
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server.address().port;
    };
    const closed = async (server) => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    const rejection = async (options) => {
      try {
        await init(options);
      } catch (e) {
        return e;
      }
      return null;
    };
    const server = createServer((request, response) => {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('gone');
    });
    const missing = `http://127.0.0.1:${await listening(server)}/wasm/ag-simd.wasm`;
    const quiet = createServer();
    const nowhere = `http://127.0.0.1:${await listening(quiet)}/wasm/ag-simd.wasm`;
    await closed(quiet);
    try {
      const notFound = await rejection({ simd: true, wasmUrl: missing });
      expect(notFound.message).toContain(`from ${missing} (located by options.wasmUrl): HTTP 404 Not Found.`);
      expect([notFound.cause.url, notFound.cause.status, notFound.cause.message]).toEqual([
        missing,
        404,
        'HTTP 404 Not Found',
      ]);
    } finally {
      await closed(server);
    }
    // No response: the status is null, and the fetch's own error is the cause's cause, its message kept.
    const refused = await rejection({ simd: true, wasmUrl: nowhere });
    expect(refused.message).toContain(`from ${nowhere} (located by options.wasmUrl): `);
    expect([refused.cause.url, refused.cause.status]).toEqual([nowhere, null]);
    expect(refused.cause.cause.name).toBe('TypeError');
    expect(refused.cause.message).toBe(refused.cause.cause.message);
  });
});

test('results are fresh JS-owned copies, never views into wasm memory', async () => {
  const ag = await init();
  const r1 = ag.softmax([1, 2, 3]);
  const r2 = ag.softmax([3, 2, 1]);
  expect(r1.data).toBeInstanceOf(Float32Array);
  expect(r1.data.buffer).not.toBe(r2.data.buffer);
  expect(r1.data.buffer.byteLength).toBe(12);
  const saved = Array.from(r1.data);
  // Grow the heap (a 64 MiB output) and check the earlier result is intact.
  ag.matmul(
    { data: new Float32Array(4096).fill(1), shape: [4096, 1] },
    { data: new Float32Array(4096).fill(1), shape: [1, 4096] },
  );
  expect(Array.from(r1.data)).toEqual(saved);
  expect('delete' in r1).toBe(false);
  // Inputs are not modified or aliased.
  const x = Float32Array.of(1, 2, 3);
  const y = ag.exp(x);
  y.data[0] = 99;
  expect(Array.from(x)).toEqual([1, 2, 3]);
});

describe('test mode: every kernel call is logged', () => {
  test('options.logCalls records kernel, variant, argument shapes and the result', async () => {
    const ag = await init({ simd: true, variant: 'scalar', logCalls: true });
    const s = ag.attention(
      [[1, 2, 0, 1]],
      [
        [1, 2, 1, 0],
        [-1, -2, 0, 1],
        [0, 0, 1, 0],
      ],
      [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
      { scale: 1, returnWeights: true, returnScores: true },
    );
    const d = ag.dot([3, 4], [4, 3]);
    expect(ag.callLog.length).toBe(2);
    const [att, dot] = ag.callLog;
    expect(att).toMatchObject({ kernel: 'attention', variant: 'scalar', args: { Q: [1, 4], K: [3, 4], V: [3, 2] } });
    expect(Array.from(att.result.scores.data)).toEqual(Array.from(s.scores.data));
    expect(Array.from(att.result.weights.data)).toEqual(Array.from(s.weights.data));
    expect(dot).toMatchObject({ kernel: 'dot', variant: 'scalar', args: { a: [2], b: [2] }, result: d });
    const u = ag.random.uniform({ seed: 1, n: 3 });
    expect(ag.callLog[2]).toMatchObject({ kernel: 'philox_uniform', variant: 'shared' });
    expect(Array.from(ag.callLog[2].result.data)).toEqual(Array.from(u.data));
  });
  test('options.onKernelCall receives each call; a failed (invalid) call is not logged', async () => {
    const seen = [];
    const ag = await init({ onKernelCall: (e) => seen.push(e) });
    ag.softmax(
      [
        [1, 2],
        [3, 4],
      ],
      { temperature: 2 },
    );
    expect(() => ag.softmax([1, NaN])).toThrow(RangeError);
    expect(seen.length).toBe(1);
    expect(seen[0]).toMatchObject({ kernel: 'softmax', variant: 'simd128', args: { x: [2, 2] } });
    expect(seen[0].result.shape).toEqual([2, 2]);
    expect(ag.callLog).toBeUndefined();
  });
});
