#!/usr/bin/env python3
"""Reference gradients of attention and softmax from PyTorch, as JSON cases.

Writes tests/data/torch-gradients/attention_*.json and softmax_*.json (the format of
tests/data/torch/README.md; see tests/data/torch-gradients/README.md). Inputs are fixed
pseudo-random float32 values; the expected gradients are computed by torch.autograd in
float64 from those float32 inputs, then rounded to float32:

  attention: Y = softmax(scale Q K^T + mask) V (Vaswani et al. 2017, eq. 1), the loss
             sum(Y * dOutput), and its gradients dQ, dK, dV (shared key/value heads by
             repeat_interleave, so that autograd sums the heads of a group);
  softmax:   torch._softmax_backward_data(dWeights, weights) on the float32 weights given.

npm test does not need PyTorch: the JSON is committed. Run with Debian's python3-torch:
  /usr/bin/python3 scripts/torch-attention-gradients.py
"""
import json
import math
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'data', 'torch-gradients')
SOURCE = f'PyTorch {torch.__version__} float64 autograd (scripts/torch-attention-gradients.py)'


def number(x):
    """The shortest decimal of a float32 value; -Infinity as a string."""
    x = float(np.float32(x))
    if math.isinf(x):
        return '-Infinity' if x < 0 else 'Infinity'
    return float(np.format_float_positional(np.float32(x), unique=True, trim='-'))


def tensor_json(name, t, dtype='float32'):
    flat = t.reshape(-1).tolist()
    data = [bool(v) for v in flat] if dtype == 'bool' else [number(v) for v in flat]
    return {'name': name, 'shape': list(t.shape), 'dtype': dtype, 'data': data}


def f32(rng, shape, lo=-1.0, hi=1.0):
    return torch.from_numpy(rng.uniform(lo, hi, size=shape).astype(np.float32))


def attention_case(name, description, B, H, Hkv, T, S, dk, dv, seed, scale=None, causal=False, mask=None):
    """mask: None, 'additive' (random, some -Infinity, every row keeps a key) or 'padding' (bool [B, 1, 1, S])."""
    rng = np.random.default_rng(seed)
    q, k, v = f32(rng, (B, H, T, dk)), f32(rng, (B, Hkv, S, dk)), f32(rng, (B, Hkv, S, dv), -2, 2)
    dout = f32(rng, (B, H, T, dv))
    scale32 = float(np.float32(1 / math.sqrt(dk) if scale is None else scale))
    m = torch.zeros(B, H, T, S, dtype=torch.float64)
    attributes = {'scale': scale32, 'causal': causal}
    inputs = [tensor_json('Q', q), tensor_json('K', k), tensor_json('V', v), tensor_json('dOutput', dout)]
    if mask == 'additive':
        add = f32(rng, (B, H, T, S), -2, 2)
        hide = torch.from_numpy(rng.uniform(size=(B, H, T, S)) < 0.3)
        hide[..., 0] = False  # every row keeps key 0
        add[hide] = -math.inf
        m = m + add.double()
        inputs.append(tensor_json('mask', add))
        attributes['mask'] = 'additive'
    elif mask == 'padding':
        keep = torch.ones(B, 1, 1, S, dtype=torch.bool)
        keep[-1, ..., S // 2:] = False  # the last batch ignores its second half of keys
        m = m.masked_fill(~keep, -math.inf)
        inputs.append(tensor_json('mask', keep, 'bool'))
        attributes['mask'] = 'boolean'
        attributes['bool_mask_true_means'] = 'attend'
    if causal:
        m = m.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), -math.inf)
    q64, k64, v64 = (x.double().requires_grad_() for x in (q, k, v))
    group = H // Hkv
    kk, vv = (x.repeat_interleave(group, dim=1) for x in (k64, v64))
    p = torch.softmax(scale32 * q64 @ kk.transpose(-1, -2) + m, dim=-1)
    y = p @ vv
    (y * dout.double()).sum().backward()
    case = {
        'source': f'{SOURCE}, case {name}',
        'op': 'AttentionBackward',
        'description': description,
        'attributes': attributes,
        'inputs': inputs,
        'outputs': [tensor_json('dQ', q64.grad), tensor_json('dK', k64.grad), tensor_json('dV', v64.grad)],
    }
    write(name, case)


def softmax_case(name, description, rows, n, seed, spread=4.0):
    rng = np.random.default_rng(seed)
    x = f32(rng, (rows, n), -spread, spread)
    weights = torch.softmax(x.double(), dim=-1).float()  # the float32 weights a forward pass hands on
    dweights = f32(rng, (rows, n), -2, 2)
    dlogits = torch._softmax_backward_data(dweights.double(), weights.double(), -1, torch.float64)
    case = {
        'source': f'{SOURCE}, case {name}',
        'op': 'SoftmaxBackward',
        'description': description,
        'attributes': {'axis': -1},
        'inputs': [tensor_json('weights', weights), tensor_json('dWeights', dweights)],
        'outputs': [tensor_json('dLogits', dlogits)],
    }
    write(name, case)


def write(name, case):
    with open(os.path.join(OUT, f'{name}.json'), 'w') as f:
        json.dump(case, f, separators=(',', ':'))
        f.write('\n')


def main():
    os.makedirs(OUT, exist_ok=True)
    attention_case('attention_self_T8_d16', 'one head, no mask, scale 1/sqrt(d_k)', 1, 1, 1, 8, 8, 16, 16, 1)
    attention_case('attention_causal_T12_d8', 'one head, causal', 1, 1, 1, 12, 12, 8, 8, 2, causal=True)
    attention_case('attention_cross_T5_S9_d4_dv6_additive', 'cross-attention, additive mask with -Infinity entries',
                   1, 1, 1, 5, 9, 4, 6, 3, mask='additive')
    attention_case('attention_batched_B2_H3_T6_d4_padding', 'two batches of three heads, a boolean key-padding mask',
                   2, 3, 3, 6, 6, 4, 4, 4, mask='padding')
    attention_case('attention_scale_2_T7_d4', 'scale 2 (large scores)', 1, 2, 2, 7, 7, 4, 3, 5, scale=2.0)
    attention_case('attention_gqa_H4_kv2_T6_d8_causal', 'four query heads sharing two key/value heads, causal',
                   1, 4, 2, 6, 6, 8, 8, 6, causal=True)
    attention_case('attention_long_T70_S300_d8', 'past one block of 64 queries and one tile of 256 keys',
                   1, 1, 1, 70, 300, 8, 4, 7)
    softmax_case('softmax_backward_n5', 'one row of 5', 1, 5, 11)
    softmax_case('softmax_backward_rows3_n17', 'three rows of 17', 3, 17, 12)
    softmax_case('softmax_backward_n1000', 'one row of 1000, logits in [-8, 8]', 1, 1000, 13, spread=8.0)


if __name__ == '__main__':
    main()
