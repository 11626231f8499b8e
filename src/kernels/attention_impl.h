// Scaled dot-product and multi-head attention, written once and instantiated
// by attention_scalar.cc and attention_simd128.cc with that variant's kernels.
//
// Maths (Vaswani et al. 2017):
//   §3.2.1  Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, here with a
//           general scale and an additive mask and key bias:
//             S = scale * Q K^T + mask + key_bias,  A = softmax(S) row-wise,
//             Y = A V.
//   §3.2.2  MultiHead(Xq, Xk, Xv) = concat(head_1, ..., head_h) W_O + b_O,
//           head_i = Attention(Q_i, K_i, V_i), Q = Xq W_Q + b_Q (likewise K, V)
//           in the row-vector convention (W [in, out] = [d_model, d_model]),
//           Q_i the columns i*d_k .. (i+1)*d_k - 1 of Q, d_k = d_v = d_model/h.
//
// Shapes, strides and preconditions are those of registry.inc and
// ag_attention_dims / ag_mha_dims in kernels.h. Heads are read and written in
// place through the strides: splitting into heads and concatenating them
// back are no copies, only different strides over the same [B, T, d_model]
// buffers.
//
// A Kernels type supplies the variant's inner loops:
//   float dot(const float* a, const float* b, int32_t n);            ag_dot__<v>
//   void matmul(const float* A, const float* B, int32_t M, int32_t K,
//               int32_t N, float* C);                                 ag_matmul__<v>
//   bool softmax_row(const float* z, int32_t n, float* y);            softmax_<v>.cc
//   void mix_values(const float* alpha, int32_t n, const float* v,
//                   ptrdiff_t v_st, int32_t d_v, float* y);           y = sum_j alpha_j v_j
#ifndef AG_ATTENTION_IMPL_H_
#define AG_ATTENTION_IMPL_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "overflow.h"

namespace ag {

// The stable softmax of one row z [n] into y [n] (y may equal z). Returns
// false, with y all +0, when every z_i is -Infinity (a row with no visible
// key). Defined in softmax_scalar.cc and softmax_simd128.cc; shared with the
// attention kernels so that attention's weights are exactly what the softmax
// kernel of the same variant gives for the same scores.
namespace scalar {
bool softmax_row(const float* z, int32_t n, float* y);
// y = sum_{j < n} alpha_j v[j * v_st] for one channel of strided value rows,
// in cascade order (blocks of 8 keys, block sums in a binary tree). Defined in
// attention_scalar.cc; the simd128 variant runs the same order four channels
// at a time and calls this for the leftover channels.
float mix_channel(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st);
}
namespace simd128 {
bool softmax_row(const float* z, int32_t n, float* y);
}

namespace attention_detail {

// Scaled dot-product attention over the B x H slices of *d (§3.2.1).
// Returns 0, or 1 + the flat [B, H, Tq, Tk] index of the first score that
// overflowed float32 (overflow.h).
template <class Kernels>
int32_t attention(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
               float scale, const ag_attention_dims* d, float* out, float* weights, float* scores,
               float* work) {
  const int32_t Tq = d->Tq, Tk = d->Tk;
  int32_t status = 0;
  for (int32_t b = 0; b < d->B; ++b) {
    for (int32_t h = 0; h < d->H; ++h) {
      const float* qbh = q + static_cast<ptrdiff_t>(b) * d->q_sb + static_cast<ptrdiff_t>(h) * d->q_sh;
      const float* kbh = k + static_cast<ptrdiff_t>(b) * d->k_sb + static_cast<ptrdiff_t>(h) * d->k_sh;
      const float* vbh = v + static_cast<ptrdiff_t>(b) * d->v_sb + static_cast<ptrdiff_t>(h) * d->v_sh;
      float* obh = out + static_cast<ptrdiff_t>(b) * d->o_sb + static_cast<ptrdiff_t>(h) * d->o_sh;
      const float* mbh = mask != nullptr
                             ? mask + static_cast<ptrdiff_t>(b) * d->m_sb + static_cast<ptrdiff_t>(h) * d->m_sh
                             : nullptr;
      const float* kb = key_bias != nullptr ? key_bias + static_cast<ptrdiff_t>(b) * d->kb_sb : nullptr;
      // Offset of this slice's rows in the contiguous [B, H, Tq, Tk] outputs.
      const size_t slice = (static_cast<size_t>(b) * d->H + static_cast<size_t>(h)) * Tq * Tk;

      for (int32_t i = 0; i < Tq; ++i) {
        const float* qi = qbh + static_cast<ptrdiff_t>(i) * d->q_st;
        // Causal, top-left aligned: query i sees keys 0..i, all of them once
        // i >= Tk - 1. Hidden keys get a score of -Infinity, exactly as if the
        // mask held -Infinity there, and are skipped when mixing values.
        const int32_t visible = d->causal ? (i + 1 < Tk ? i + 1 : Tk) : Tk;
        // The scores row goes straight into `scores` when asked for, and the
        // weights into `weights`; otherwise both live in work [Tk], the
        // softmax running in place.
        float* s = scores != nullptr ? scores + slice + static_cast<size_t>(i) * Tk : work;
        float* a = weights != nullptr ? weights + slice + static_cast<size_t>(i) * Tk : work;
        const float* mi = mbh != nullptr ? mbh + static_cast<ptrdiff_t>(i) * d->m_si : nullptr;
        for (int32_t j = 0; j < visible; ++j) {
          const float raw = scale * Kernels::dot(qi, kbh + static_cast<ptrdiff_t>(j) * d->k_st, d->d_k);
          float sij = raw;
          bool masked_out = false;
          if (mi != nullptr) {
            const float m = mi[static_cast<ptrdiff_t>(j) * d->m_sj];
            masked_out = m == -INFINITY;
            sij += m;
          }
          if (kb != nullptr) {
            masked_out = masked_out || kb[j] == -INFINITY;
            sij += kb[j];
          }
          if (status == 0 && overflowed(raw, sij, masked_out)) {
            status = static_cast<int32_t>(1 + slice + static_cast<size_t>(i) * Tk + j);
          }
          s[j] = sij;
        }
        for (int32_t j = visible; j < Tk; ++j) s[j] = -INFINITY;

        float* yi = obh + static_cast<ptrdiff_t>(i) * d->o_st;
        if (Kernels::softmax_row(s, Tk, a)) {
          Kernels::mix_values(a, visible, vbh, d->v_st, d->d_v, yi);
        } else {
          // No visible key (all masked): zero weights (set by softmax_row)
          // and a zero output, +0 rather than 0 * v, which could be -0.
          for (int32_t c = 0; c < d->d_v; ++c) yi[c] = 0.0f;
        }
      }
    }
  }
  return status;
}

// rows x n matrix Y += broadcast bias [n] (no-op for a null bias).
inline void add_bias(float* Y, const float* bias, int32_t rows, int32_t n) {
  if (bias == nullptr) return;
  for (int32_t r = 0; r < rows; ++r) {
    float* yr = Y + static_cast<ptrdiff_t>(r) * n;
    for (int32_t c = 0; c < n; ++c) yr[c] += bias[c];
  }
}

// Multi-head attention (§3.2.2). work is laid out as in
// ag_mha_workspace_floats (common_attention.cc). Returns attention's status
// for the per-head scores ([B, h, Tq, Tk] index).
template <class Kernels>
int32_t multi_head_attention(const float* xq, const float* xk, const float* xv, const float* wq,
                          const float* wk, const float* wv, const float* wo, const float* bq,
                          const float* bk, const float* bv, const float* bo, const float* mask,
                          const float* key_bias, float scale, const ag_mha_dims* d, float* out,
                          float* weights, float* work) {
  const int32_t B = d->B, Tq = d->Tq, Tk = d->Tk, dm = d->d_model, h = d->h;
  const int32_t dk = dm / h;
  const size_t nq = static_cast<size_t>(B) * Tq * dm, nk = static_cast<size_t>(B) * Tk * dm;
  float* Q = work;         // [B, Tq, d_model]
  float* K = Q + nq;       // [B, Tk, d_model]
  float* V = K + nk;       // [B, Tk, d_model]
  float* heads = V + nk;   // [B, Tq, d_model]: head i in columns i*d_k ..
  float* row = heads + nq;  // [Tk]: one row of scores

  // The projections treat [B, T, d_model] as [B*T, d_model] row vectors.
  Kernels::matmul(xq, wq, B * Tq, dm, dm, Q);
  add_bias(Q, bq, B * Tq, dm);
  Kernels::matmul(xk, wk, B * Tk, dm, dm, K);
  add_bias(K, bk, B * Tk, dm);
  Kernels::matmul(xv, wv, B * Tk, dm, dm, V);
  add_bias(V, bv, B * Tk, dm);

  // Head i of Q is the [Tq, d_k] slice starting at column i*d_k with row
  // stride d_model: split and concat are strides, not copies.
  ag_attention_dims ad;
  ad.B = B;
  ad.H = h;
  ad.Tq = Tq;
  ad.Tk = Tk;
  ad.d_k = dk;
  ad.d_v = dk;
  ad.q_sb = Tq * dm, ad.q_sh = dk, ad.q_st = dm;
  ad.k_sb = Tk * dm, ad.k_sh = dk, ad.k_st = dm;
  ad.v_sb = Tk * dm, ad.v_sh = dk, ad.v_st = dm;
  ad.o_sb = Tq * dm, ad.o_sh = dk, ad.o_st = dm;
  ad.m_sb = d->m_sb, ad.m_sh = d->m_sh, ad.m_si = d->m_si, ad.m_sj = d->m_sj;
  ad.kb_sb = d->kb_sb;
  ad.causal = d->causal;
  const int32_t status = attention<Kernels>(Q, K, V, mask, key_bias, scale, &ad, heads, weights, nullptr, row);

  Kernels::matmul(heads, wo, B * Tq, dm, dm, out);
  add_bias(out, bo, B * Tq, dm);
  return status;
}

}  // namespace attention_detail
}  // namespace ag

#endif  // AG_ATTENTION_IMPL_H_
