// The transformer of registry.inc (family "transformer"), written once and
// instantiated by transformer_scalar.cc and transformer_simd128.cc with that
// variant's registry kernels.
//
// Forward (GPT-2 style pre-norm decoder; Radford et al. 2019, §2.3; Vaswani
// et al. 2017, §3), R = B T rows, d = d_model, f = 4 d:
//   x = E[token] + P[t]                           gather (a loop)
//   a = LN1(x)                                    layer_norm (or a = x)
//   Q = a Wq, K = a Wk, V = a Wv                  matmul
//   O = attention(Q, K, V), causal, heads in place  attention (materialized)
//   O[:, head j] = 0 where head_mask[l, j] = 0     a loop (forward only: a head switched off)
//   x_mid = x + O Wo                              matmul, residual add (a loop)
//   mlp: h = ReLU(LN2(x_mid) W1 + b1)             layer_norm, matmul, loops
//        x' = x_mid + h W2 + b2                   matmul, loops
//   logits = LNf(x) Wu                            layer_norm, matmul
//   losses, dlogits = cross_entropy(logits)       cross_entropy (scale 1/scored)
// Backward, in reverse, with G the gradient of the loss:
//   G(Wu) = fin^T G(logits)                       matmul_tn
//   G(fin) = G(logits) Wu^T                       matmul_nt
//   G(x) from G(LN(x))                            layer_norm_backward (with G(gamma), G(beta))
//   mlp: G(b2) = column sums of G(x'), G(W2) = h^T G(x'), G(h) = G(x') W2^T,
//        G(h_pre) = G(h) [h_pre > 0], G(b1), G(W1) = c2^T G(h_pre),
//        G(x_mid) = G(x') + LN2'(G(h_pre) W1^T)
//   G(Wo) = O^T G(x_mid), G(O) = G(x_mid) Wo^T
//   G(Q), G(K), G(V) = attention_backward(G(O))
//   G(Wq) = a^T G(Q) (likewise K, V), G(a) = G(Q) Wq^T + G(K) Wk^T + G(V) Wv^T
//   G(x) = G(x_mid) + LN1'(G(a))
//   G(E[token_r]) += G(x)_r, G(P[t_r]) += G(x)_r   scatter-add (a loop, rows in order)
// The activations the backward pass reads are kept in the workspace
// (transformer_layout.h: Plan), one block per layer.
//
// A Kernels type names the variant's registry kernels (matmul, matmul_nt,
// matmul_tn, layer_norm, layer_norm_backward, attention, attention_backward,
// cross_entropy, adam_update, norm) and supplies
//   sum(p, n)                    sum_i p_i in the variant's pairwise order
//   column_sums(X, rows, n, s)   s_j = sum_r X[r n + j], the scalar pairwise order
#ifndef AG_KERNELS_TRANSFORMER_IMPL_H_
#define AG_KERNELS_TRANSFORMER_IMPL_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "transformer_layout.h"

namespace ag::transformer {

constexpr float kLayerNormEps = 1e-5f;

// Pointers to one layer's parameters (or gradients): null where the
// configuration has none.
struct LayerParams {
  float *ln1_g, *ln1_b, *wq, *wk, *wv, *wo, *ln2_g, *ln2_b, *w1, *b1, *w2, *b2;
};

// The tensors of buffer `base` by role, for layer l or the model.
class Pointers {
 public:
  Pointers(const ag_transformer_dims& d, const float* base) : d_(d), base_(const_cast<float*>(base)) {}
  float* at(Role role, int32_t layer) const {
    float* found = nullptr;
    walk(d_, [&](const Tensor& t) {
      if (t.role == role && t.layer == layer) found = base_ + t.offset;
    });
    return found;
  }
  LayerParams layer(int32_t l) const {
    return {at(kLn1Gamma, l), at(kLn1Beta, l), at(kWq, l), at(kWk, l), at(kWv, l), at(kWo, l),
            at(kLn2Gamma, l), at(kLn2Beta, l), at(kW1, l), at(kB1, l), at(kW2, l), at(kB2, l)};
  }

 private:
  const ag_transformer_dims& d_;
  float* base_;
};

inline float scale_of(const ag_transformer_dims& d) {
  return d.scale_scores ? static_cast<float>(1.0 / sqrt(static_cast<double>(d.d_model / d.heads))) : 1.0f;
}

// y = a + b elementwise (n floats); y may be a.
inline void add_into(float* y, const float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
// Y [rows, n] += bias [n] on every row.
inline void add_rows(float* Y, const float* bias, int32_t rows, int32_t n) {
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t j = 0; j < n; ++j) Y[static_cast<size_t>(r) * n + j] += bias[j];
}

// The block of layer l's activations in the workspace.
struct Acts {
  float *x_in, *a, *mean1, *rstd1, *q, *k, *v, *o, *x_mid, *c2, *mean2, *rstd2, *h_pre, *h;
};
inline Acts acts_of(const Plan& p, float* work, int32_t l, bool norm) {
  float* b = work + p.per_layer * static_cast<uint64_t>(l);
  Acts A = {b + p.x_in, b + p.a,     b + p.mean1, b + p.rstd1, b + p.q,     b + p.k,     b + p.v,
            b + p.o,    b + p.x_mid, b + p.c2,    b + p.mean2, b + p.rstd2, b + p.h_pre, b + p.h};
  if (!norm) A.a = A.x_in, A.c2 = A.x_mid;  // without layer norm the blocks read their input as it is
  return A;
}

// O [R, dm]: the columns of each head j whose mask[j] is 0 set to 0 (the
// head's output, before W_O); a head with mask 1 is left as it is.
inline void switch_off_heads(const float* mask, int32_t heads, int32_t dm, int32_t R, float* O) {
  const int32_t dk = dm / heads;
  for (int32_t j = 0; j < heads; ++j) {
    if (mask[j] != 0.0f) continue;
    for (int32_t r = 0; r < R; ++r)
      memset(O + static_cast<size_t>(r) * dm + static_cast<size_t>(j) * dk, 0, dk * sizeof(float));
  }
}

// Counts the scored rows, and the rows whose first largest logit is the target.
inline void count_rows(const float* logits, const int32_t* targets, int32_t rows, int32_t vocab, int32_t* scored,
                       int32_t* correct) {
  *scored = 0, *correct = 0;
  for (int32_t r = 0; r < rows; ++r) {
    if (targets[r] < 0) continue;
    ++*scored;
    const float* z = logits + static_cast<size_t>(r) * vocab;
    int32_t arg = 0;
    for (int32_t i = 1; i < vocab; ++i)
      if (z[i] > z[arg]) arg = i;
    if (arg == targets[r]) ++*correct;
  }
}

// The status of a layer norm whose variance overflowed float32 on some row:
// from finite x, the sum of the squared centred values (or the sum of x for
// the mean) can pass FLT_MAX, and then rstd = 1 / sqrt(var + eps) is 0 (NaN
// when the mean overflowed too) and the row's output would be beta, a wrong
// answer given without a sign. Reads only the R values of rstd that
// layer_norm wrote (no second pass over x). Returns -(1 + slot R + r) for
// the first such row r (slot 2 l for layer l's LN1, 2 l + 1 for its LN2,
// 2 layers for LNf), or 0.
inline int32_t variance_overflow(const float* rstd, int32_t R, int32_t slot) {
  for (int32_t r = 0; r < R; ++r)
    if (!(rstd[r] > 0.0f)) return -(1 + slot * R + r);
  return 0;
}

// The forward pass into the workspace; the loss (and dlogits, when asked) too
// when targets is not null. Returns the first error in the order the pass
// meets them: an attention status (> 0, see registry.inc), or a layer norm's
// variance_overflow (< 0), which ends the pass; 0 when there is none.
template <class K>
int32_t forward(const ag_transformer_dims& d, const float* params, const int32_t* tokens, const int32_t* targets,
                int32_t B, const float* head_mask, float* weights, float* qk, float* stats, bool want_dlogits,
                float* work) {
  const Plan p = plan(d, B);
  const Pointers P(d, params);
  const int32_t R = B * d.T, dm = d.d_model, f = 4 * dm;
  const size_t rd = static_cast<size_t>(R) * dm;
  const bool norm = d.norm != 0;
  const ag_attention_dims ad = attention_dims(d, B);
  const float scale = scale_of(d);
  int32_t status = 0;
  {
    float* x = acts_of(p, work, 0, norm).x_in;
    const float* E = P.at(kToken, -1);
    const float* Pos = P.at(kPosition, -1);
    for (int32_t r = 0; r < R; ++r)
      add_into(x + static_cast<size_t>(r) * dm, E + static_cast<size_t>(tokens[r]) * dm,
               Pos + static_cast<size_t>(r % d.T) * dm, dm);
  }
  float* dtmp = work + p.dtmp;
  for (int32_t l = 0; l < d.layers; ++l) {
    const Acts A = acts_of(p, work, l, norm);
    const LayerParams W = P.layer(l);
    float* next = l + 1 < d.layers ? acts_of(p, work, l + 1, norm).x_in : work + p.x_out;
    if (norm) {
      K::layer_norm(A.x_in, W.ln1_g, W.ln1_b, R, dm, kLayerNormEps, A.a, A.mean1, A.rstd1);
      const int32_t ln = variance_overflow(A.rstd1, R, 2 * l);
      if (ln != 0) return status != 0 ? status : ln;
    }
    K::matmul(A.a, W.wq, R, dm, dm, A.q);
    K::matmul(A.a, W.wk, R, dm, dm, A.k);
    K::matmul(A.a, W.wv, R, dm, dm, A.v);
    float* wl = weights != nullptr ? weights + static_cast<size_t>(l) * B * d.heads * d.T * d.T : nullptr;
    const int32_t st =
        K::attention(A.q, A.k, A.v, nullptr, nullptr, nullptr, scale, 0.0f, &ad, A.o, wl, nullptr, work + p.attn_work);
    if (status == 0) status = st;
    if (qk != nullptr) {
      memcpy(qk + (2 * static_cast<size_t>(l)) * rd, A.q, rd * sizeof(float));
      memcpy(qk + (2 * static_cast<size_t>(l) + 1) * rd, A.k, rd * sizeof(float));
    }
    if (head_mask != nullptr) switch_off_heads(head_mask + static_cast<size_t>(l) * d.heads, d.heads, dm, R, A.o);
    K::matmul(A.o, W.wo, R, dm, dm, dtmp);
    add_into(A.x_mid, A.x_in, dtmp, rd);
    if (d.mlp) {
      if (norm) {
        K::layer_norm(A.x_mid, W.ln2_g, W.ln2_b, R, dm, kLayerNormEps, A.c2, A.mean2, A.rstd2);
        const int32_t ln = variance_overflow(A.rstd2, R, 2 * l + 1);
        if (ln != 0) return status != 0 ? status : ln;
      }
      K::matmul(A.c2, W.w1, R, dm, f, A.h_pre);
      add_rows(A.h_pre, W.b1, R, f);
      for (size_t i = 0; i < 4 * rd; ++i) A.h[i] = A.h_pre[i] > 0.0f ? A.h_pre[i] : 0.0f;
      K::matmul(A.h, W.w2, R, f, dm, dtmp);
      add_into(next, A.x_mid, dtmp, rd);
      add_rows(next, W.b2, R, dm);
    } else {
      memcpy(next, A.x_mid, rd * sizeof(float));
    }
  }
  float* fin = norm ? work + p.fin : work + p.x_out;
  if (norm) {
    K::layer_norm(work + p.x_out, P.at(kLnfGamma, -1), P.at(kLnfBeta, -1), R, dm, kLayerNormEps, fin, work + p.meanf,
                  work + p.rstdf);
    const int32_t ln = variance_overflow(work + p.rstdf, R, 2 * d.layers);
    if (ln != 0) return status != 0 ? status : ln;
  }
  float* logits = work + p.logits;
  K::matmul(fin, P.at(kUnembed, -1), R, dm, d.vocab, logits);
  if (targets != nullptr) {
    int32_t scored, correct;
    count_rows(logits, targets, R, d.vocab, &scored, &correct);
    float* losses = work + p.losses;
    const float grad_scale = scored > 0 ? 1.0f / static_cast<float>(scored) : 0.0f;
    K::cross_entropy(logits, targets, R, d.vocab, grad_scale, losses, want_dlogits ? work + p.dlogits : nullptr);
    stats[0] = scored > 0 ? K::sum(losses, R) / static_cast<float>(scored) : 0.0f;
    stats[1] = scored > 0 ? static_cast<float>(static_cast<double>(correct) / scored) : 0.0f;
    stats[2] = static_cast<float>(scored);
  }
  return status;
}

// Whether every entry of g [n] is finite: an exponent field of all ones marks
// Infinity and NaN; OR-ing the tests of the bits (no branch, no float
// comparison) keeps the loop one pass a compiler can vectorise.
inline bool all_finite_entries(const float* g, int32_t n) {
  uint32_t special = 0;
  for (int32_t i = 0; i < n; ++i) {
    uint32_t bits;
    memcpy(&bits, g + i, sizeof bits);
    special |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return special == 0;
}

// dx [rd] += dy; or, with layer norm, dx += LN'(dy) through layer_norm_backward
// (its dgamma/dbeta written), `tmp` holding the LN's input gradient.
template <class K>
void add_norm_backward(bool norm, const float* dy, const float* x, const float* gamma, const float* mean,
                       const float* rstd, int32_t R, int32_t dm, float* dgamma, float* dbeta, float* tmp, float* dx) {
  const size_t rd = static_cast<size_t>(R) * dm;
  if (!norm) {
    add_into(dx, dx, dy, rd);
    return;
  }
  K::layer_norm_backward(dy, x, gamma, mean, rstd, R, dm, tmp, dgamma, dbeta);
  add_into(dx, dx, tmp, rd);
}

template <class K>
int32_t gradients(const ag_transformer_dims& d, const float* params, const int32_t* tokens, const int32_t* targets,
                  int32_t B, float* grads, float* stats, float* work) {
  const Plan p = plan(d, B);
  const uint64_t total = walk(d, [](const Tensor&) {});
  memset(grads, 0, static_cast<size_t>(total) * sizeof(float));
  const int32_t status = forward<K>(d, params, tokens, targets, B, nullptr, nullptr, nullptr, stats, true, work);
  if (status != 0) return status;
  const Pointers P(d, params), G(d, grads);
  const int32_t R = B * d.T, dm = d.d_model, f = 4 * dm;
  const size_t rd = static_cast<size_t>(R) * dm;
  const bool norm = d.norm != 0;
  const ag_attention_dims ad = attention_dims(d, B);
  const float scale = scale_of(d);
  float *dx = work + p.dx, *dtmp = work + p.dtmp, *dq = work + p.dq, *dk = work + p.dk, *dv = work + p.dv,
        *dh = work + p.dh;
  const float* dlogits = work + p.dlogits;
  const float* fin = norm ? work + p.fin : work + p.x_out;
  K::matmul_tn(fin, dlogits, dm, R, d.vocab, G.at(kUnembed, -1));
  K::matmul_nt(dlogits, P.at(kUnembed, -1), R, d.vocab, dm, dtmp);
  memset(dx, 0, rd * sizeof(float));
  add_norm_backward<K>(norm, dtmp, work + p.x_out, P.at(kLnfGamma, -1), work + p.meanf, work + p.rstdf, R, dm,
                       G.at(kLnfGamma, -1), G.at(kLnfBeta, -1), dq, dx);
  for (int32_t l = d.layers - 1; l >= 0; --l) {
    const Acts A = acts_of(p, work, l, norm);
    const LayerParams W = P.layer(l), GW = G.layer(l);
    if (d.mlp) {
      K::column_sums(dx, R, dm, GW.b2);
      K::matmul_tn(A.h, dx, f, R, dm, GW.w2);
      K::matmul_nt(dx, W.w2, R, dm, f, dh);
      for (size_t i = 0; i < 4 * rd; ++i) dh[i] = A.h_pre[i] > 0.0f ? dh[i] : 0.0f;
      K::column_sums(dh, R, f, GW.b1);
      K::matmul_tn(A.c2, dh, dm, R, f, GW.w1);
      K::matmul_nt(dh, W.w1, R, f, dm, dtmp);
      add_norm_backward<K>(norm, dtmp, A.x_mid, W.ln2_g, A.mean2, A.rstd2, R, dm, GW.ln2_g, GW.ln2_b, dq, dx);
    }
    K::matmul_tn(A.o, dx, dm, R, dm, GW.wo);
    K::matmul_nt(dx, W.wo, R, dm, dm, dtmp);
    K::attention_backward(A.q, A.k, A.v, nullptr, scale, &ad, dtmp, dq, dk, dv, work + p.attn_work);
    K::matmul_tn(A.a, dq, dm, R, dm, GW.wq);
    K::matmul_tn(A.a, dk, dm, R, dm, GW.wk);
    K::matmul_tn(A.a, dv, dm, R, dm, GW.wv);
    K::matmul_nt(dq, W.wq, R, dm, dm, dtmp);
    K::matmul_nt(dk, W.wk, R, dm, dm, dh);
    add_into(dtmp, dtmp, dh, rd);
    K::matmul_nt(dv, W.wv, R, dm, dm, dh);
    add_into(dtmp, dtmp, dh, rd);
    add_norm_backward<K>(norm, dtmp, A.x_in, W.ln1_g, A.mean1, A.rstd1, R, dm, GW.ln1_g, GW.ln1_b, dq, dx);
  }
  float* gE = G.at(kToken, -1);
  float* gP = G.at(kPosition, -1);
  for (int32_t r = 0; r < R; ++r) {
    const float* g = dx + static_cast<size_t>(r) * dm;
    add_into(gE + static_cast<size_t>(tokens[r]) * dm, gE + static_cast<size_t>(tokens[r]) * dm, g, dm);
    add_into(gP + static_cast<size_t>(r % d.T) * dm, gP + static_cast<size_t>(r % d.T) * dm, g, dm);
  }
  // A finite forward pass can still give a backward one whose intermediates overflow float32 (layer
  // norm's dx = rstd (...) with rstd up to 1 / sqrt(eps), a sum of a gradient's terms): the gradient
  // then holds Infinity or NaN, whose norm is +Infinity or NaN. Such a tensor's norm, and the global norm,
  // are NaN in both cases, so that the caller refuses the gradient and names the first such tensor
  // (tests/cpp/transformer_test.cc drives an overflow to a known tensor).
  int32_t n = 0;
  bool all_finite = true;
  walk(d, [&](const Tensor& t) {
    const float* g = grads + t.offset;
    const int32_t len = t.rows * t.cols;
    const bool finite = all_finite_entries(g, len);
    stats[4 + n++] = finite ? K::norm(g, len) : NAN;
    all_finite = all_finite && finite;
  });
  stats[3] = all_finite ? K::norm(stats + 4, n) : NAN;
  return 0;
}

// One Adam step, all or nothing: a first pass runs the update on copies of each chunk of
// kAdamChunk entries and checks that every new parameter, m and v is finite, writing nothing;
// only then the second pass runs the same update in place. adam_update is elementwise, and a
// chunk starts at a multiple of kAdamChunk (a multiple of the SIMD width), so both passes give
// every entry the same operations: the values checked are the values written, bit for bit.
// Returns 0, or 1 + the index of the first entry whose update is not finite (nothing changed).
constexpr int32_t kAdamChunk = 256;

template <class K>
int32_t adam(const ag_transformer_dims& d, float* params, const float* grads, float* m, float* v, const float* stats,
             float lr, float beta1, float beta2, float eps, float clip, int32_t step) {
  const float g = stats[3];
  const float c = clip > 0.0f && g > clip ? clip / g : 1.0f;
  const int32_t n = static_cast<int32_t>(walk(d, [](const Tensor&) {}));
  alignas(16) float p1[kAdamChunk], m1[kAdamChunk], v1[kAdamChunk];
  for (int32_t at = 0; at < n; at += kAdamChunk) {
    const int32_t len = n - at < kAdamChunk ? n - at : kAdamChunk;
    memcpy(p1, params + at, static_cast<size_t>(len) * sizeof(float));
    memcpy(m1, m + at, static_cast<size_t>(len) * sizeof(float));
    memcpy(v1, v + at, static_cast<size_t>(len) * sizeof(float));
    K::adam_update(p1, grads + at, m1, v1, len, lr, beta1, beta2, eps, c, step);
    for (int32_t i = 0; i < len; ++i)
      if (!isfinite(p1[i]) || !isfinite(m1[i]) || !isfinite(v1[i])) return 1 + at + i;
  }
  K::adam_update(params, grads, m, v, n, lr, beta1, beta2, eps, c, step);
  return 0;
}

}  // namespace ag::transformer

// The registry kernels of variant V, as the members of its Kernels type.
#define AG_TRANSFORMER_REGISTRY_KERNELS(V)                                  \
  static constexpr auto matmul = &ag_matmul__##V;                           \
  static constexpr auto matmul_nt = &ag_matmul_nt__##V;                     \
  static constexpr auto matmul_tn = &ag_matmul_tn__##V;                     \
  static constexpr auto layer_norm = &ag_layer_norm__##V;                   \
  static constexpr auto layer_norm_backward = &ag_layer_norm_backward__##V; \
  static constexpr auto attention = &ag_attention__##V;                     \
  static constexpr auto attention_backward = &ag_attention_backward__##V;   \
  static constexpr auto cross_entropy = &ag_cross_entropy__##V;             \
  static constexpr auto adam_update = &ag_adam_update__##V;                 \
  static constexpr auto norm = &ag_norm__##V;

// The registry entries of a variant V, given its Kernels type.
#define AG_TRANSFORMER_ENTRIES(V, Kernels)                                                                             \
  extern "C" int32_t ag_transformer_forward__##V(                                                                      \
      const ag_transformer_dims* d, const float* params, const int32_t* tokens, const int32_t* targets, int32_t B,     \
      const float* head_mask, float* logits, float* weights, float* qk, float* stats, float* work) {                   \
    const int32_t st =                                                                                                 \
        ag::transformer::forward<Kernels>(*d, params, tokens, targets, B, head_mask, weights, qk, stats, false, work); \
    if (logits != nullptr)                                                                                             \
      memcpy(logits, work + ag::transformer::plan(*d, B).logits,                                                       \
             static_cast<size_t>(B) * d->T * d->vocab * sizeof(float));                                                \
    return st;                                                                                                         \
  }                                                                                                                    \
  extern "C" int32_t ag_transformer_gradients__##V(const ag_transformer_dims* d, const float* params,                  \
                                                   const int32_t* tokens, const int32_t* targets, int32_t B,           \
                                                   float* grads, float* stats, float* work) {                          \
    return ag::transformer::gradients<Kernels>(*d, params, tokens, targets, B, grads, stats, work);                    \
  }                                                                                                                    \
  extern "C" int32_t ag_transformer_adam__##V(const ag_transformer_dims* d, float* params, const float* grads,         \
                                              float* m, float* v, const float* stats, float lr, float beta1,           \
                                              float beta2, float eps, float clip, int32_t step) {                      \
    return ag::transformer::adam<Kernels>(*d, params, grads, m, v, stats, lr, beta1, beta2, eps, clip, step);          \
  }

#endif  // AG_KERNELS_TRANSFORMER_IMPL_H_
