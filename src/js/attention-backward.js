// The gradients of scaled dot-product attention (registry.inc:
// attention_backward; Vaswani et al. 2017, §3.2.1, differentiated as in
// FlashAttention's backward, Dao et al. 2022, Algorithm 4): dQ, dK, dV from
// Q, K, V and the gradient dOutput of the output, recomputing the forward's
// scores tile by tile (O(T d) memory). Q, K, V, the mask, the scale, causal
// and window are read and checked as attention reads them (attention.js:
// attentionInputs, attentionMask, packDims); the options attention has and
// the kernel cannot honour are RangeErrors naming the option. Shapes,
// options and errors: index.d.ts.
import {
  attentionDims,
  attentionInputs,
  attentionMask,
  headStrides,
  scoreOverflow,
  scoresOverflowCause,
  windowOption,
} from './attention.js';
import { formatShape, shapeError } from './errors.js';
import { refuseKvCacheOption } from './kv-cache.js';
import { booleanOption, checkKnownKeys, finiteNumber, optionsObject, tensorOf, toTensorRank } from './tensor.js';

/** Options of attention that change what is differentiated, and why the gradients do not take them. */
const REFUSED = {
  softcap: 'the soft cap',
  alibi: 'the ALiBi bias',
  rope: 'rotary positions (turn Q and K with rope() first and differentiate through it yourself)',
  pastKey: 'a KV cache (pass the whole key and value as K and V)',
  pastValue: 'a KV cache (pass the whole key and value as K and V)',
  kvSeqLen: 'key lengths (pass a key-padding mask of shape [B, 1, 1, Tk] instead)',
  returnWeights: 'returning the weights (call attention for them)',
  returnScores: 'returning the scores (call attention for them)',
  streaming: 'the choice of path (the gradients always stream)',
};

/** The options honoured; the refused ones (REFUSED) are a RangeError naming them, any other key a TypeError. */
const OPTIONS = ['scale', 'causal', 'window', 'mask', 'maskKind'];

export const attentionBackwardMethods = {
  /**
   * The gradients { dQ, dK, dV } of attention(q, k, v, options).output with
   * respect to Q, K and V, given dOutput (its shape). Shapes, options and
   * errors: index.d.ts.
   */
  attentionBackward(q, k, v, dOutput, options) {
    const m = 'attentionBackward';
    const { Q, K, V, Tq, dk, Tk, dv, group, lead, B, H } = attentionInputs(m, q, k, v);
    const outShape = [...lead, Tq, dv];
    const expected = `the shape of attention's output ${formatShape(outShape)} ([..., Tq, d_v] over the broadcast batch and head axes of Q, K and V)`;
    const dY = toTensorRank(m, 'dOutput', dOutput, [outShape.length], expected);
    if (dY.shape.join() !== outShape.join()) throw shapeError(m, 'dOutput', dY.shape, expected);
    // The options object comes last (argument order): its refused and unknown keys after the tensors.
    const o = optionsObject(m, options, 'options');
    refuseKvCacheOption(
      m,
      options,
      "the gradients take every key and value at once: pass them as K and V (a cache's keys() and values() copy its rows out)",
    );
    for (const [name, what] of Object.entries(REFUSED)) {
      if (o[name] !== undefined && o[name] !== false && o[name] !== null)
        throw new RangeError(`${m}: options.${name} is not supported: the gradients do not cover ${what}`);
    }
    // The keys as given (their names only: each member was read once, by optionsObject): a null member
    // is absent, but an unknown key is refused whatever its value.
    checkKnownKeys(m, 'options', options ?? {}, OPTIONS, Object.keys(REFUSED));
    const scale = o.scale === undefined ? Math.fround(1 / Math.sqrt(dk)) : finiteNumber(m, 'options.scale', o.scale);
    const causalGiven = booleanOption(m, 'options.causal', o.causal, false);
    const window = windowOption(m, o.window, o.causal);
    const causal = causalGiven || window > 0;
    const { mask, ms } = attentionMask(m, o, [B, H, Tq, Tk], 'Tk');
    const BHkv = [B, H / group];
    // The streaming path's dims (no key bias; the status is attention's streaming status).
    const dims = attentionDims(this._rt.module, {
      B,
      H,
      Tq,
      Tk,
      dk,
      dv,
      q: headStrides(m, Q, Tq, dk, [B, H]),
      k: headStrides(m, K, Tk, dk, BHkv),
      v: headStrides(m, V, Tk, dv, BHkv),
      ms,
      group,
      causal,
      window,
      streaming: true,
    });
    const r = this._buffers(m, { dims: { data: dims } }, ({ dims: pd }) => {
      const specs = {
        Q: { shape: Q.shape, data: Q.data },
        K: { shape: K.shape, data: K.data },
        V: { shape: V.shape, data: V.data },
        dOutput: { shape: dY.shape, data: dY.data },
        mask: mask && { data: mask.data },
        dQ: { shape: Q.shape, length: Q.data.length },
        dK: { shape: K.shape, length: K.data.length },
        dV: { shape: V.shape, length: V.data.length },
        work: { length: this._rt.module.attentionBackwardWorkspaceFloats(pd) },
      };
      return this._buffers(m, specs, (p) => {
        const status = this._kernel('attention_backward')(
          p.Q,
          p.K,
          p.V,
          p.mask,
          scale,
          pd,
          p.dOutput,
          p.dQ,
          p.dK,
          p.dV,
          p.work,
        );
        if (status < 0) {
          // An intermediate of the backward pass: dQ and dK can be finite in exact arithmetic.
          throw scoreOverflow(
            m,
            'dS[] = scale P (dP - D), the gradient of the scores,',
            [...lead, Tq, Tk],
            -status,
            'dQ and dK may be finite in exact arithmetic, but this intermediate is not in float32; ' +
              'scale dOutput or V down',
          );
        }
        if (status !== 0) {
          const { what, remedy } = scoresOverflowCause({ scale, mask });
          throw scoreOverflow(m, what, [...lead, Tq, Tk], status, remedy);
        }
        // A NaN in a gradient (a sum that overflowed) is a RangeError from _done.
        return {
          dQ: tensorOf(this._read(Float32Array, p.dQ, Q.data.length), Q.shape.slice()),
          dK: tensorOf(this._read(Float32Array, p.dK, K.data.length), K.shape.slice()),
          dV: tensorOf(this._read(Float32Array, p.dV, V.data.length), V.shape.slice()),
        };
      });
    });
    const args = { Q: Q.shape, K: K.shape, V: V.shape, dOutput: dY.shape };
    if (mask) args.mask = mask.shape;
    return this._done('attention_backward', args, r);
  },
};
