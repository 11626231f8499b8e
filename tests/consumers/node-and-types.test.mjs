// The packed package in Node 20 and TypeScript: `import` and `require` of the
// main and inline entries compute the worked example, `require` and `import`
// of the widgets throw an Error that says how to load them (while esbuild
// bundling for browsers gets the widgets themselves); a TypeScript project
// type-checks with moduleResolution node16 and bundler under --strict,
// expect-type proves that results are typed (not any, and weights/scores are
// present when asked for; a KV cache object with pastKey is refused), the
// code of the README and docs/package.md compiles as it is; publint and
// @arethetypeswrong/cli find no problem at all in the tarball.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  ROOT,
  cleanup,
  expectShownWeights,
  expectWorkedExample,
  makeConsumer,
  pack,
  runNode,
  runTool,
  tempDir,
  workedExampleSource,
} from './helpers.mjs';

let work;
let tarball;

beforeAll(() => {
  work = tempDir('node-consumers');
  tarball = pack(work);
}, 60000);

afterAll(() => cleanup(work));

const printResult =
  'workedExample(init).then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); });\n';

describe('Node 20', () => {
  test('import and require, main and inline entries: the worked example, with the .wasm read from the installed package', () => {
    const dir = makeConsumer(work, 'node', tarball, {
      files: {
        'esm.mjs': `import { init } from 'attention-geometry';\n${workedExampleSource()}${printResult}`,
        'esm-inline.mjs': `import init from 'attention-geometry/inline';\n${workedExampleSource()}${printResult}`,
        'cjs.cjs': `const { init } = require('attention-geometry');\n${workedExampleSource()}${printResult}`,
        'cjs-inline.cjs': `const { init } = require('attention-geometry/inline');\n${workedExampleSource()}${printResult}`,
        'baseline.mjs': `import { init as initAny } from 'attention-geometry';\nconst init = () => initAny({ simd: false });\n${workedExampleSource()}${printResult}`,
        'cjs-widgets.cjs':
          "try { require('attention-geometry/widgets'); console.log('{}'); } catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })); }\n",
        'esm-widgets.mjs':
          "import('attention-geometry/widgets').then(() => console.log('{}'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));\n",
        // A named import must link (the names exist) to reach the Error.
        'esm-widgets-named.mjs':
          "import('./named-widgets.mjs').then(() => console.log('{}'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));\n",
        'named-widgets.mjs':
          "import { AgWorkedExample, defineWidget } from 'attention-geometry/widgets';\nconsole.log(AgWorkedExample, defineWidget);\n",
      },
    });
    for (const file of ['esm.mjs', 'esm-inline.mjs', 'cjs.cjs', 'cjs-inline.cjs']) {
      const r = runNode(dir, file);
      expectWorkedExample(r, file);
      expect(r.backend).toBe('wasm-simd128'); // Node 20 has SIMD
    }
    const baseline = runNode(dir, 'baseline.mjs');
    expectWorkedExample(baseline, 'baseline.mjs');
    expect(baseline.backend).toBe('wasm-scalar');
    // The widgets are an ES module for browsers: require() says so and how to load them.
    const widgets = runNode(dir, 'cjs-widgets.cjs');
    expect(widgets.name).toBe('Error');
    expect(widgets.message).toContain(
      'attention-geometry/widgets is an ES module for browsers and cannot be loaded with require()',
    );
    expect(widgets.message).toContain('<script type="module"');
    expect(widgets.message).toContain('a bundler must not take it into a bundle (docs/package.md, "In a bundled app")');
    // import() and a named import: the widgets need a DOM, which Node has not; the Error says what to import.
    for (const file of ['esm-widgets.mjs', 'esm-widgets-named.mjs']) {
      const r = runNode(dir, file);
      expect(r.name).toBe('Error');
      expect(r.message).toContain('attention-geometry/widgets needs a browser');
      expect(r.message).toContain('HTMLElement, and Node has no DOM');
      expect(r.message).toContain('<script type="module"');
      expect(r.message).toContain('a bundler must not take it into a bundle (docs/package.md, "In a bundled app")');
      expect(r.message).toContain('In Node, import the kernels API instead: import { init } from "attention-geometry"');
    }
  }, 60000);

  test.each([
    ['browser', 'dist/widgets/widgets.js'],
    ['node', 'dist/widgets-node.js'],
  ])(
    'esbuild --platform=%s resolves attention-geometry/widgets to %s',
    (platform, file) => {
      const dir = makeConsumer(work, `widgets-${platform}`, tarball, {
        files: {
          'main.js': "import { AgWorkedExample } from 'attention-geometry/widgets';\nconsole.log(AgWorkedExample);\n",
        },
      });
      const r = runTool(dir, 'esbuild', [
        'main.js',
        '--bundle',
        '--format=esm',
        `--platform=${platform}`,
        '--outdir=out',
        '--metafile=meta.json',
        '--log-level=error',
      ]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const inputs = Object.keys(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')).inputs);
      const entry = ['dist/widgets/widgets.js', 'dist/widgets-node.js'].filter((f) =>
        inputs.includes(`node_modules/attention-geometry/${f}`),
      );
      expect(entry).toEqual([file]);
    },
    60000,
  );

  test.each(['worked-example.mjs', 'worked-example.cjs'])(
    'examples/node/%s runs as it is and prints the weights',
    (file) => {
      const dir = join(work, 'node');
      writeFileSync(join(dir, file), readFileSync(join(ROOT, 'examples/node', file), 'utf8'));
      const r = spawnSync(process.execPath, [file], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      expect(r.status).toBe(0);
      const line = r.stdout.split('\n').find((l) => l.startsWith('weights: '));
      expectShownWeights(line.slice('weights: '.length).split(', ').map(Number), `examples/node/${file}`);
    },
    30000,
  );

  test('a missing .wasm rejects with an error naming the URL (the consumer fails, it does not hang)', () => {
    const dir = makeConsumer(work, 'node-missing', tarball, {
      files: {
        'missing.mjs':
          "import { init } from 'attention-geometry';\n" +
          "init({ locateFile: (name) => new URL('./nowhere/' + name, import.meta.url).href }).then(() => console.log('{\"loaded\":true}'), (e) => console.log(JSON.stringify({ message: e.message })));\n",
      },
    });
    const r = runNode(dir, 'missing.mjs');
    expect(r.message).toContain('nowhere/ag-simd.wasm');
  }, 60000);
});

describe('TypeScript', () => {
  const source = `import { init, type AttentionGeometry, type AttentionOptions, type Tensor } from 'attention-geometry';
import initInline from 'attention-geometry/inline';
import type { AgWorkedExample } from 'attention-geometry/widgets';
import { expectTypeOf } from 'expect-type';

export async function check(): Promise<void> {
  const ag = await init({ simd: 'auto', locateFile: (name) => '/static/' + name });
  expectTypeOf(ag).toEqualTypeOf<AttentionGeometry>();
  expectTypeOf(ag).not.toBeAny();
  expectTypeOf(ag.dot([3, 4], [4, 3])).toEqualTypeOf<number>();
  const r = ag.attention([[1, 2, 0, 1]], [[1, 2, 1, 0]], [[1, 2, 1, 0]], { scale: 1, returnWeights: true });
  expectTypeOf(r.output).toEqualTypeOf<Tensor>();
  expectTypeOf(r.output.data).toEqualTypeOf<Float32Array>();
  // Asked-for results are present (not optional); the others may be undefined.
  expectTypeOf(r.weights).toEqualTypeOf<Tensor>();
  expectTypeOf(r.scores).toEqualTypeOf<Tensor | undefined>();
  const both = ag.attention([[1, 0]], [[1, 0]], [[1]], { returnWeights: true, returnScores: true });
  expectTypeOf(both.weights).toEqualTypeOf<Tensor>();
  expectTypeOf(both.scores).toEqualTypeOf<Tensor>();
  expectTypeOf(ag.attention([[1, 0]], [[1, 0]], [[1]]).weights).toEqualTypeOf<Tensor | undefined>();
  const maybe: AttentionOptions = { returnWeights: Math.random() < 0.5 };
  expectTypeOf(ag.attention([[1, 0]], [[1, 0]], [[1]], maybe).weights).toEqualTypeOf<Tensor | undefined>();
  const W = [[1, 0], [0, 1]];
  const mha = ag.multiHeadAttention({ query: W }, { wQ: W, wK: W, wV: W, wO: W }, { numHeads: 2, returnWeights: true });
  expectTypeOf(mha.weights).toEqualTypeOf<Tensor>();
  expectTypeOf(ag.multiHeadAttention({ query: W }, { wQ: W, wK: W, wV: W, wO: W }, { numHeads: 2 }).weights).toEqualTypeOf<Tensor | undefined>();
  // logSumExp: a vector gives a number, nested arrays of rank 2 or more a tensor.
  expectTypeOf(ag.logSumExp([1, 2, 3])).toEqualTypeOf<number>();
  expectTypeOf(ag.logSumExp(new Float32Array(3))).toEqualTypeOf<number>();
  expectTypeOf(ag.logSumExp([[1, 2], [3, 4]])).toEqualTypeOf<Tensor>();
  expectTypeOf(ag.logSumExp({ data: [1, 2], shape: [2] })).toEqualTypeOf<number | Tensor>();
  // @ts-expect-error a misspelt option key
  ag.attention([[1, 0]], [[1, 0]], [[1]], { returnWeight: true });
  // @ts-expect-error a misspelt option key beside a valid one
  ag.attention([[1, 0]], [[1, 0]], [[1]], { scale: 1, returnWeight: true });
  // One kind of KV cache: the cache object, or pastKey and pastValue (whose present rows are then returned).
  const kv = ag.createKvCache({ kvHeads: 1, capacity: 4, dK: 2 });
  expectTypeOf(ag.attention([[1, 0]], [[1, 0]], [[1]], { cache: kv }).presentKey).toEqualTypeOf<Tensor | undefined>();
  expectTypeOf(ag.attention([[1, 0]], [[1, 0]], [[1]], { pastKey: [[0, 1]], pastValue: [[1]] }).presentKey).toEqualTypeOf<Tensor>();
  // @ts-expect-error the cache object together with pastKey and pastValue (a TypeError at run time)
  ag.attention([[1, 0]], [[1, 0]], [[1]], { cache: kv, pastKey: [[0, 1]], pastValue: [[1]] });
  // @ts-expect-error a misspelt option key of multi-head attention
  ag.multiHeadAttention({ query: W }, { wQ: W, wK: W, wV: W, wO: W }, { numHeads: 2, kvHead: 1 });
  expectTypeOf(initInline).toEqualTypeOf(init);
  expectTypeOf<HTMLElementTagNameMap['ag-worked-example']>().toEqualTypeOf<AgWorkedExample>();
  // @ts-expect-error a string is not a vector
  ag.dot('3,4', [4, 3]);
}
`;
  const tsconfig = (options) =>
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        lib: ['es2022', 'dom'],
        skipLibCheck: false,
        types: [],
        ...options,
      },
      files: ['src/check.ts', ...Object.keys(docSnippets)],
    });

  // The code of the README and of docs/package.md as it is, one module per
  // section (it uses top-level await).
  const firstJsBlock = (file, heading) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const at = text.indexOf(`\n## ${heading}\n`);
    if (at < 0) throw new Error(`${file}: no section ${heading}`);
    const m = /```js\n([\s\S]*?)```/.exec(text.slice(at));
    if (!m) throw new Error(`${file}: no js block in the section ${heading}`);
    return `// ${file}, section "${heading}", as it is.\n${m[1]}`;
  };
  const docSnippets = {
    'src/readme-api-in-ten-lines.ts': firstJsBlock('README.md', 'The API in ten lines'),
    'src/docs-package-install-and-import.ts': firstJsBlock('docs/package.md', 'Install and import'),
  };

  test.each([
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])(
    'moduleResolution %s: type-checks, and results are typed',
    (name, options) => {
      const dir = makeConsumer(work, `ts-${name}`, tarball, {
        files: { 'tsconfig.json': tsconfig(options), 'src/check.ts': source, ...docSnippets },
        links: ['expect-type'],
      });
      const r = runTool(dir, 'tsc', ['-p', 'tsconfig.json']);
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
      // The same check with a wrong type fails: the assertions have teeth.
      writeFileSync(join(dir, 'src/check.ts'), source.replace('toEqualTypeOf<number>()', 'toEqualTypeOf<string>()'));
      const bad = runTool(dir, 'tsc', ['-p', 'tsconfig.json']);
      expect(bad.status).not.toBe(0);
      expect(bad.stdout).toContain('src/check.ts');
    },
    90000,
  );
});

describe('package checks', () => {
  test('publint reports no problem (errors, warnings or suggestions)', () => {
    const dir = makeConsumer(work, 'publint', tarball);
    const r = runTool(dir, 'publint', ['run', join(dir, 'node_modules/attention-geometry'), '--level', 'suggestion']);
    expect(r.stdout + r.stderr).not.toMatch(/Errors:|Warnings:|Suggestions:/);
    expect(r.status).toBe(0);
  }, 60000);

  test('@arethetypeswrong/cli finds no problem in the tarball, for every entry and resolution mode', () => {
    // No rule is ignored. require() of the widgets resolves to a small CommonJS
    // module (with its .d.cts) that throws an Error saying how to load them;
    // import in Node (node16-esm) to a small ES module that does the same.
    const r = runTool(work, 'attw', [tarball, '--format', 'json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    const problems = Object.values(report.problems ?? {}).flat();
    expect(problems).toEqual([]);
    expect(Object.keys(report.analysis.entrypoints)).toEqual(expect.arrayContaining(['.', './inline', './widgets']));
    for (const entry of ['.', './inline', './widgets']) {
      const cjs = report.analysis.entrypoints[entry].resolutions['node16-cjs'];
      expect(cjs.resolution.fileName).toMatch(/\.d\.cts$/);
      expect(cjs.implementationResolution.fileName).toMatch(/\.cjs$/);
    }
  }, 60000);

  test('the tarball holds what users need and nothing else', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    for (const needed of [
      'package/package.json',
      'package/LICENSE',
      'package/README.md',
      'package/CHANGELOG.md',
      'package/dist/THIRD_PARTY_NOTICES.txt',
      'package/dist/index.js',
      'package/dist/index.cjs',
      'package/dist/index.d.ts',
      'package/dist/index.d.cts',
      'package/dist/inline.js',
      'package/dist/wasm/ag-simd.wasm',
      'package/dist/wasm/ag-scalar.wasm',
      'package/dist/wasm/ag-simd-inline.mjs',
      'package/dist/widgets/widgets.js',
      'package/dist/widgets/wasm/ag-simd.wasm',
      'package/dist/widgets/vendor/katex/katex.min.css',
      'package/dist/widgets/THIRD_PARTY_NOTICES.txt',
      'package/dist/widgets-require.cjs',
      'package/dist/widgets-require.d.cts',
      'package/dist/widgets-node.js',
    ]) {
      expect(files).toContain(needed);
    }
    const outside = files.filter(
      (f) => !/^package\/(dist\/|package\.json$|LICENSE$|README\.md$|CHANGELOG\.md$)/.test(f),
    );
    expect(outside).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(work, 'node/node_modules/attention-geometry/package.json'), 'utf8'));
    expect(pkg.license).toBe('MIT');
    // The widgets folder, which users copy as it is, carries the same licence notices.
    const installed = join(work, 'node/node_modules/attention-geometry/dist');
    expect(readFileSync(join(installed, 'widgets/THIRD_PARTY_NOTICES.txt'), 'utf8')).toBe(
      readFileSync(join(installed, 'THIRD_PARTY_NOTICES.txt'), 'utf8'),
    );
    // Of the package's files, only the widgets modules act on import (they define elements, or in
    // Node throw). (./web/** is listed for this repository's own site build.)
    expect(pkg.sideEffects.filter((p) => p.startsWith('./dist/'))).toEqual([
      './dist/widgets/*.js',
      './dist/widgets-node.js',
    ]);
  });
});
