// The numbers and layouts that C++ and the JS layer share come from the
// bindings (src/bindings/bindings.cc), never retyped in src/js: the streaming
// attention's work size, the dims blocks of the attention kernels and the
// dot_trace and attention_trace records. Here each is read from the headers
// that define it (src/kernels/kernels.h, dot_trace.h, attention_trace.h) and compared with what the bindings
// give, in both builds; the bindings check the dims lists against the structs
// with static_assert.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { CONFIGS, init } from './helpers.mjs';

const header = (name) => readFileSync(new URL(`../../src/kernels/${name}`, import.meta.url), 'utf8');
const kernelsH = header('kernels.h');
const traceH = header('dot_trace.h');

/** The field names of `typedef struct name { ... } name;` in kernels.h, in order. */
function structFields(name) {
  const body = kernelsH.match(new RegExp(`typedef struct ${name} \\{([^}]*)\\}`))[1];
  return body
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, '').trim())
    .filter((line) => line.startsWith('int32_t '))
    .flatMap((line) => line.slice('int32_t '.length).replace(';', '').split(','))
    .map((f) => f.trim());
}
const define = (name) => Number(kernelsH.match(new RegExp(`#define ${name} (\\d+)`))[1]);
const traceConstant = (name, h = traceH) => Number(h.match(new RegExp(`${name} = (\\d+)`))[1]);
const attentionTraceH = header('attention_trace.h');

describe.each(CONFIGS)('$label: constants shared with C++', (cfg) => {
  let module;
  beforeAll(async () => {
    module = (await init(cfg.options))._rt.module;
  });

  test('the streaming work size is AG_ATTENTION_STREAMING_WORK_FLOATS of kernels.h', () => {
    const blockQ = define('AG_ATTENTION_BLOCK_Q');
    const tileK = define('AG_ATTENTION_TILE_K');
    expect(module.ATTENTION_BLOCK_Q).toBe(blockQ);
    expect(module.ATTENTION_TILE_K).toBe(tileK);
    expect(module.ATTENTION_STREAMING_WORK_FLOATS).toBe(blockQ * tileK + 2 * blockQ);
  });

  test('the dims fields are those of the structs of kernels.h, in order', () => {
    expect(module.attentionDimsFields().split(',')).toEqual(structFields('ag_attention_dims'));
    expect(module.mhaDimsFields().split(',')).toEqual(structFields('ag_mha_dims'));
  });

  test('the dot_trace layout is that of dot_trace.h', () => {
    const layout = JSON.parse(module.dotTraceLayout());
    expect(layout.floats).toBe(traceConstant('kTraceRecord'));
    const fields = { kind: 'kFieldKind', index: 'kFieldIndex', count: 'kFieldCount', x: 'kFieldX', y: 'kFieldY' };
    Object.assign(fields, { z: 'kFieldZ', w: 'kFieldW', value: 'kFieldValue' });
    for (const [key, name] of Object.entries(fields)) expect(layout[key]).toBe(traceConstant(name));
    const kinds = { mulAdd: 'kMulAdd', fold: 'kFold', swapAdd: 'kSwapAdd', laneSum: 'kLaneSum' };
    Object.assign(kinds, { merge: 'kMerge', total: 'kTotal', scalarBlock: 'kScalarBlock' });
    for (const [key, name] of Object.entries(kinds)) expect(layout.kinds[key]).toBe(traceConstant(name));
  });

  test('the attention_trace layout is that of attention_trace.h', () => {
    const layout = JSON.parse(module.attentionTraceLayout());
    const c = (name) => traceConstant(name, attentionTraceH);
    expect(layout.head).toBe(c('kFieldO'));
    const fields = { kind: 'kFieldKind', row: 'kFieldRow', start: 'kFieldStart', count: 'kFieldCount' };
    Object.assign(fields, { tileMax: 'kFieldTileMax', mPrev: 'kFieldMPrev', m: 'kFieldM', l: 'kFieldL' });
    Object.assign(fields, { correction: 'kFieldCorrection', overflow: 'kFieldOverflow', O: 'kFieldO' });
    for (const [key, name] of Object.entries(fields)) expect(layout[key]).toBe(c(name));
    expect(layout.kinds).toEqual({ tile: c('kTile'), output: c('kOutput') });
    const tiles = attentionTraceH.match(/kTileKeys\[\] = \{([^}]*)\}/)[1].split(',');
    expect(layout.tileKeys).toEqual(
      tiles.map((t) => (t.trim() === 'AG_ATTENTION_TILE_K' ? define('AG_ATTENTION_TILE_K') : Number(t))),
    );
  });
});
