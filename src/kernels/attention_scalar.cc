// Family "attention", scalar variant: scaled dot-product attention and
// multi-head attention (Vaswani et al. 2017, §3.2.1 and §3.2.2).
//
// Maths, per (batch b, head h) slice:
//   S = scale * Q K^T + mask + key_bias     scores,  [Tq, Tk]
//   A = softmax(S) row-wise                 weights, [Tq, Tk], row-stochastic
//   Y = A V                                 output,  [Tq, d_v]
// with Q [Tq, d_k], K [Tk, d_k], V [Tk, d_v] read in place through the strides
// of ag_attention_dims (kernels.h). Multi-head attention projects
// Q = Xq W_Q + b_Q (likewise K, V; W [d_model, d_model] in the row-vector
// convention), attends per head on column slices of width d_k = d_model / h,
// and projects the concatenated heads with W_O and b_O.
// Preconditions: see registry.inc (finite inputs except masks, which may hold
// -Infinity; h divides d_model; work as stated there).
//
// The orchestration is attention_impl.h, shared with the simd128 variant; this
// file supplies the scalar inner kernels: the vector family's dot for each
// score q_i . k_j (for the whole grid, or for one tile of the streaming path),
// the matrix family's matmul for the projections, this variant's softmax row
// and the C library's expf (as in softmax_scalar.cc), and the value mixture
// below, all compiled with the auto-vectoriser off.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "attention_backward.h"
#include "attention_impl.h"
#include "attention_trace.h"
#include "kernels.h"
#include "pairwise_scalar.h"

namespace ag::scalar {

// y_c = sum_{j < n} alpha_j v[j * v_st + c] for c < d_v.
//
// The value rows are strided (a head of a [B, T, h*d] tensor), which
// weighted_sum (contiguous V [T, d]) does not take. Per channel, the products
// are summed left to right in blocks of 8 keys and the block sums combined in
// a binary tree with a small stack (cascade summation), so that
//   |error| <= (ceil(log2 n) + 5) u sum_j alpha_j |v_jc|      (alpha_j >= 0).
// The simd128 variant does exactly the same operations per channel, so the
// two variants give identical outputs for identical weights.
float mix_channel(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st) {
  ag::pairwise::Cascade cascade;
  for (int32_t j0 = 0; j0 < n; j0 += 8) {
    const int32_t j1 = j0 + 8 < n ? j0 + 8 : n;
    float s = alpha[j0] * v[j0 * v_st];
    for (int32_t j = j0 + 1; j < j1; ++j) s += alpha[j] * v[j * v_st];
    cascade.push(s);
  }
  return cascade.total();
}

}  // namespace ag::scalar

namespace {

struct ScalarKernels {
  static void matmul(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
    ag_matmul__scalar(A, B, M, K, N, C);
  }
  // S[r][j] = q_r . k_j, each the scalar dot (its pairwise order and bound).
  static void scores(const float* q, ptrdiff_t q_st, const float* k, ptrdiff_t k_st, int32_t rows, int32_t cols,
                     int32_t d_k, float* S, ptrdiff_t lds) {
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t j = 0; j < cols; ++j) S[r * lds + j] = ag_dot__scalar(q + r * q_st, k + j * k_st, d_k);
  }
  static float finish_scores(float* s, int32_t n, int32_t visible, float scale, float softcap, const float* mrow,
                             ptrdiff_t m_sj, const float* kb, ag::attention_detail::Alibi alibi, int32_t* bad) {
    return ag::attention_detail::finish_scores_loop(s, n, visible, scale, softcap, mrow, m_sj, kb, alibi, bad);
  }
  static void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out) {
    ag::rope::scalar::rope_row(x, C, S, d, interleaved, out);
  }
  static bool softmax_row(const float* z, int32_t n, float* y) { return ag::scalar::softmax_row(z, n, y); }
  static void mix_values(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st, int32_t d_v, float* y) {
    for (int32_t c = 0; c < d_v; ++c) y[c] = ag::scalar::mix_channel(alpha, n, v + c, v_st);
  }
  static float exp1(float x) { return expf(x); }
  // s_j = exp(s_j - m); the sum in four interleaved partial sums (s_j joins
  // sum j % 4) combined as (s0 + s2) + (s1 + s3): the simd128 variant's
  // lane order.
  static float exp_row(float* s, int32_t n, float m) {
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int32_t j = 0; j < n; ++j) {
      s[j] = expf(s[j] - m);
      acc[j & 3] += s[j];
    }
    return (acc[0] + acc[2]) + (acc[1] + acc[3]);
  }
  static void scale_row(float* o, int32_t n, float c) {
    for (int32_t x = 0; x < n; ++x) o[x] *= c;
  }
  static void divide_row(float* o, int32_t n, float l) {
    for (int32_t x = 0; x < n; ++x) o[x] /= l;
  }
  // O[r] += sum_j P[r][j] v_j, per channel the cascade of mix_channel over
  // the tile, then one addition.
  static void accumulate(const float* P, ptrdiff_t ldp, const float* v, ptrdiff_t v_st, int32_t rows, int32_t cols,
                         int32_t d_v, float* O, ptrdiff_t o_st) {
    for (int32_t r = 0; r < rows; ++r) {
      float* orow = O + r * o_st;
      for (int32_t c = 0; c < d_v; ++c) orow[c] += ag::scalar::mix_channel(P + r * ldp, cols, v + c, v_st);
    }
  }
};

}  // namespace

namespace ag::scalar {

// The trace (attention_trace_scalar.cc) runs this variant's streaming path itself.
int32_t attention_trace_run(const attention_detail::Slice& sl, float* work, int32_t tile_keys,
                            attention_trace::TraceWriter* w) {
  return attention_trace::run<ScalarKernels>(sl, work, tile_keys, w);
}

// The gradients (attention_backward_scalar.cc) run this variant's kernels.
int32_t attention_backward_run(const float* q, const float* k, const float* v, const float* mask, float scale,
                               const ag_attention_dims* dims, const float* d_out, float* dq, float* dk, float* dv,
                               float* work) {
  return attention_backward::run<ScalarKernels>(q, k, v, mask, scale, dims, d_out, dq, dk, dv, work);
}

}  // namespace ag::scalar

extern "C" {

int32_t ag_attention__scalar(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
                             const float* alibi_slopes, float scale, float softcap, const ag_attention_dims* dims,
                             float* out, float* weights, float* scores, float* work) {
  return ag::attention_detail::attention<ScalarKernels>(q, k, v, mask, key_bias, alibi_slopes, scale, softcap, dims,
                                                        out, weights, scores, work);
}

int32_t ag_multi_head_attention__scalar(const float* xq, const float* xk, const float* xv, const float* wq,
                                        const float* wk, const float* wv, const float* wo, const float* bq,
                                        const float* bk, const float* bv, const float* bo, const float* mask,
                                        const float* key_bias, float scale, double rope_base, const ag_mha_dims* dims,
                                        float* out, float* weights, float* work) {
  return ag::attention_detail::multi_head_attention<ScalarKernels>(
      xq, xk, xv, wq, wk, wv, wo, bq, bk, bv, bo, mask, key_bias, scale, rope_base, dims, out, weights, work);
}

}  // extern "C"
