// Family "attention", simd128 variant: scaled dot-product attention and
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
// The orchestration is attention_impl.h, shared with the scalar variant. What
// this variant changes: the inner kernels are the simd128 ones (dot, matmul,
// the softmax row with the vectorised exp), and the value mixture below runs
// four channels per f32x4 lane group. The scores and weights may differ from
// the scalar variant's in the last bits (different summation orders and exp).
#include <stddef.h>
#include <stdint.h>

#include "attention_impl.h"
#include "kernels.h"
#include "simd.h"

namespace {

// y_c = sum_{j < n} alpha_j v[j * v_st + c] for c < d_v: the scalar variant's
// cascade summation (blocks of 8 keys summed left to right, block sums
// combined in a binary tree through a stack) with four channels per vector.
// Every lane performs exactly the scalar variant's operations, so
//   |error| <= (ceil(log2 n) + 5) u sum_j alpha_j |v_jc|,
// and the leftover channels (d_v not a multiple of 4) use the scalar
// variant's ag::scalar::mix_channel itself.
v128_t mix4(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st) {
  v128_t stack[32];
  int32_t top = 0;
  uint32_t block = 0;
  for (int32_t j0 = 0; j0 < n; j0 += 8, ++block) {
    const int32_t j1 = j0 + 8 < n ? j0 + 8 : n;
    v128_t s = wasm_f32x4_mul(ag::simd::splat(alpha[j0]), ag::simd::load(v + j0 * v_st));
    for (int32_t j = j0 + 1; j < j1; ++j)
      s = wasm_f32x4_add(s, wasm_f32x4_mul(ag::simd::splat(alpha[j]), ag::simd::load(v + j * v_st)));
    for (uint32_t m = block; m & 1u; m >>= 1) s = wasm_f32x4_add(stack[--top], s);
    stack[top++] = s;
  }
  v128_t total = stack[--top];
  while (top > 0) total = wasm_f32x4_add(stack[--top], total);
  return total;
}

struct Simd128Kernels {
  static float dot(const float* a, const float* b, int32_t n) { return ag_dot__simd128(a, b, n); }
  static void matmul(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
    ag_matmul__simd128(A, B, M, K, N, C);
  }
  static bool softmax_row(const float* z, int32_t n, float* y) { return ag::simd128::softmax_row(z, n, y); }
  static void mix_values(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st, int32_t d_v,
                         float* y) {
    int32_t c = 0;
    for (; c + 4 <= d_v; c += 4) ag::simd::store(y + c, mix4(alpha, n, v + c, v_st));
    for (; c < d_v; ++c) y[c] = ag::scalar::mix_channel(alpha, n, v + c, v_st);
  }
};

}  // namespace

extern "C" {

int32_t ag_attention__simd128(const float* q, const float* k, const float* v, const float* mask,
                           const float* key_bias, float scale, const ag_attention_dims* dims, float* out,
                           float* weights, float* scores, float* work) {
  return ag::attention_detail::attention<Simd128Kernels>(q, k, v, mask, key_bias, scale, dims, out, weights, scores,
                                                  work);
}

int32_t ag_multi_head_attention__simd128(const float* xq, const float* xk, const float* xv, const float* wq,
                                      const float* wk, const float* wv, const float* wo, const float* bq,
                                      const float* bk, const float* bv, const float* bo, const float* mask,
                                      const float* key_bias, float scale, const ag_mha_dims* dims,
                                      float* out, float* weights, float* work) {
  return ag::attention_detail::multi_head_attention<Simd128Kernels>(xq, xk, xv, wq, wk, wv, wo, bq, bk, bv, bo,
                                                             mask, key_bias, scale, dims, out, weights,
                                                             work);
}

}  // extern "C"
