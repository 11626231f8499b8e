// The parameter layout of the transformer (registry.inc, family
// "transformer"), shared by both variants, the initialisation and the
// bindings: one walk over the parameter tensors in buffer order, so that the
// names, offsets and shapes are written once.
//
// Order and shapes ([in, out] for weights, the row-vector convention x W):
//   embed.token [vocab, d_model]   embed.position [T, d_model]
//   per layer l, prefix layers.l.:
//     ln1.gamma, ln1.beta [d_model]            (norm only)
//     attn.wq, attn.wk, attn.wv, attn.wo [d_model, d_model]
//     ln2.gamma, ln2.beta [d_model]            (mlp and norm only)
//     mlp.w1 [d_model, 4 d_model], mlp.b1 [4 d_model],
//     mlp.w2 [4 d_model, d_model], mlp.b2 [d_model]   (mlp only)
//   lnf.gamma, lnf.beta [d_model]              (norm only)
//   unembed [d_model, vocab]                   (untied from embed.token)
// Each tensor starts at a multiple of 4 floats (16 bytes), so the Philox
// counter of its initial values is its offset / 4 and no two tensors share a
// block of four normals.
#ifndef AG_KERNELS_TRANSFORMER_LAYOUT_H_
#define AG_KERNELS_TRANSFORMER_LAYOUT_H_

#include <stdint.h>
#include <stdio.h>

#include "kernels.h"

namespace ag::transformer {

enum Role {
  kToken,
  kPosition,
  kLn1Gamma,
  kLn1Beta,
  kWq,
  kWk,
  kWv,
  kWo,
  kLn2Gamma,
  kLn2Beta,
  kW1,
  kB1,
  kW2,
  kB2,
  kLnfGamma,
  kLnfBeta,
  kUnembed,
};

struct Tensor {
  Role role;
  int32_t layer;  // -1 outside the layers
  int32_t rows, cols;
  uint32_t offset;  // floats from the start of the buffer
};

inline uint32_t round4(uint64_t n) { return static_cast<uint32_t>((n + 3) & ~static_cast<uint64_t>(3)); }

// Calls f(Tensor) for each parameter tensor in buffer order; returns the
// floats of the buffer. The offsets are right while that is below 2^32 (the
// JS layer allows at most 2^25).
template <class F>
uint64_t walk(const ag_transformer_dims& d, F&& f) {
  uint64_t at = 0;
  auto put = [&](Role role, int32_t layer, int32_t rows, int32_t cols) {
    f(Tensor{role, layer, rows, cols, static_cast<uint32_t>(at)});
    at = round4(at + static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols));
  };
  const int32_t dm = d.d_model;
  put(kToken, -1, d.vocab, dm);
  put(kPosition, -1, d.T, dm);
  for (int32_t l = 0; l < d.layers; ++l) {
    if (d.norm) put(kLn1Gamma, l, dm, 1), put(kLn1Beta, l, dm, 1);
    put(kWq, l, dm, dm), put(kWk, l, dm, dm), put(kWv, l, dm, dm), put(kWo, l, dm, dm);
    if (d.mlp) {
      if (d.norm) put(kLn2Gamma, l, dm, 1), put(kLn2Beta, l, dm, 1);
      put(kW1, l, dm, 4 * dm);
      put(kB1, l, 4 * dm, 1);
      put(kW2, l, 4 * dm, dm);
      put(kB2, l, dm, 1);
    }
  }
  if (d.norm) put(kLnfGamma, -1, dm, 1), put(kLnfBeta, -1, dm, 1);
  put(kUnembed, -1, dm, d.vocab);
  return at;
}

// The tensor's name, e.g. "layers.0.attn.wq", into name[AG_TRANSFORMER_NAME_CHARS].
inline void name_of(const Tensor& t, char* name) {
  static const char* const kNames[] = {"embed.token", "embed.position", "ln1.gamma", "ln1.beta", "attn.wq", "attn.wk",
                                       "attn.wv",     "attn.wo",        "ln2.gamma", "ln2.beta", "mlp.w1",  "mlp.b1",
                                       "mlp.w2",      "mlp.b2",         "lnf.gamma", "lnf.beta", "unembed"};
  if (t.layer < 0)
    snprintf(name, AG_TRANSFORMER_NAME_CHARS, "%s", kNames[t.role]);
  else
    snprintf(name, AG_TRANSFORMER_NAME_CHARS, "layers.%d.%s", static_cast<int>(t.layer), kNames[t.role]);
}

// The attention of every layer: B x heads slices of the [B, T, d_model]
// buffers Q, K, V and O, head j the columns j d_k .. (j + 1) d_k - 1, read in
// place through the strides; causal, no mask, the materialized path (the
// weights can be returned).
inline ag_attention_dims attention_dims(const ag_transformer_dims& d, int32_t B) {
  ag_attention_dims a = {};
  const int32_t dk = d.d_model / d.heads;
  a.B = B, a.H = d.heads, a.Tq = d.T, a.Tk = d.T, a.d_k = dk, a.d_v = dk;
  a.q_sb = a.k_sb = a.v_sb = a.o_sb = d.T * d.d_model;
  a.q_sh = a.k_sh = a.v_sh = a.o_sh = dk;
  a.q_st = a.k_st = a.v_st = a.o_st = d.d_model;
  a.kv_group = 1;
  a.causal = 1;
  return a;
}

// The workspace of transformer_forward and transformer_gradients for R = B T
// rows, in floats: per layer the activations that the backward pass reads
// (x_in the layer's input, a = LN1(x_in), mean1 and rstd1 its statistics, Q,
// K, V, O the attention's projections and output, x_mid = x_in + O Wo, c2 =
// LN2(x_mid), mean2, rstd2, h_pre = c2 W1 + b1 and h = ReLU(h_pre)), then
// x_out, fin = LNf(x_out) and its statistics, the logits, dlogits and the
// per-row losses, the backward pass's [R, d_model] buffers dx, dtmp, dq, dk,
// dv and its [R, 4 d_model] dh, and the attention's work (one head's score
// grid [T, T] forward, attention_backward's workspace backward).
struct Plan {
  uint64_t x_in, a, mean1, rstd1, q, k, v, o, x_mid, c2, mean2, rstd2, h_pre, h, per_layer;
  uint64_t x_out, fin, meanf, rstdf, logits, dlogits, losses, dx, dtmp, dq, dk, dv, dh, attn_work, total;
};

inline Plan plan(const ag_transformer_dims& d, int32_t B) {
  Plan p = {};
  const uint64_t R = static_cast<uint64_t>(B) * static_cast<uint64_t>(d.T);
  const uint64_t rd = R * static_cast<uint64_t>(d.d_model);
  const uint64_t rf = 4 * rd;
  uint64_t at = 0;
  auto take = [&at](uint64_t n) {
    const uint64_t here = at;
    at = round4(at + n);
    return here;
  };
  p.x_in = take(rd), p.a = take(rd), p.mean1 = take(R), p.rstd1 = take(R);
  p.q = take(rd), p.k = take(rd), p.v = take(rd), p.o = take(rd), p.x_mid = take(rd), p.c2 = take(rd);
  p.mean2 = take(R), p.rstd2 = take(R), p.h_pre = take(rf), p.h = take(rf);
  p.per_layer = at;
  at = p.per_layer * static_cast<uint64_t>(d.layers);
  const uint64_t rv = R * static_cast<uint64_t>(d.vocab);
  p.x_out = take(rd), p.fin = take(rd), p.meanf = take(R), p.rstdf = take(R);
  p.logits = take(rv), p.dlogits = take(rv), p.losses = take(R);
  p.dx = take(rd), p.dtmp = take(rd), p.dq = take(rd), p.dk = take(rd), p.dv = take(rd), p.dh = take(rf);
  const ag_attention_dims ad = attention_dims(d, B);
  const uint64_t grid = static_cast<uint64_t>(d.T) * static_cast<uint64_t>(d.T);
  const uint64_t back = ag_attention_backward_workspace_floats(&ad);
  p.attn_work = take(grid > back ? grid : back);
  p.total = at;
  return p;
}

}  // namespace ag::transformer

#endif  // AG_KERNELS_TRANSFORMER_LAYOUT_H_
