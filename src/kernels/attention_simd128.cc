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
// this variant changes: the scores come from the register-tiled GEMM
// (gemm_simd128.h: gemm_nt for Q K^T, on the whole grid or on one tile of the
// streaming path), the streaming path's P V is gemm_nn accumulating into the
// output rows, its exps are exp4 (exp_simd128.h, the softmax kernels' exp),
// the materialized path's softmax row is the simd128 softmax kernel's, and its
// value mixture below runs four channels per f32x4 lane group. The scores
// and weights may differ from the scalar variant's in the last bits
// (different summation orders and exp).
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "attention_backward.h"
#include "attention_impl.h"
#include "attention_trace.h"
#include "exp_simd128.h"
#include "gemm_simd128.h"
#include "kernels.h"
#include "pairwise_simd128.h"
#include "simd.h"

namespace {

// y_c = sum_{j < n} alpha_j v[j * v_st + c] for c < d_v: the scalar variant's
// cascade summation (blocks of 8 keys summed left to right, block sums
// combined in a binary tree: pairwise_simd128.h's Cascade4, the Cascade of
// pairwise_scalar.h on f32x4) with four channels per vector.
// Every lane performs exactly the scalar variant's operations, so
//   |error| <= (ceil(log2 n) + 5) u sum_j alpha_j |v_jc|,
// and the leftover channels (d_v not a multiple of 4) use the scalar
// variant's ag::scalar::mix_channel itself.
v128_t mix4(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st) {
  ag::pairwise::Cascade4 cascade;
  for (int32_t j0 = 0; j0 < n; j0 += 8) {
    const int32_t j1 = j0 + 8 < n ? j0 + 8 : n;
    v128_t s = wasm_f32x4_mul(ag::simd::splat(alpha[j0]), ag::simd::load(v + j0 * v_st));
    for (int32_t j = j0 + 1; j < j1; ++j)
      s = wasm_f32x4_add(s, wasm_f32x4_mul(ag::simd::splat(alpha[j]), ag::simd::load(v + j * v_st)));
    cascade.push(s);
  }
  return cascade.total();
}

// finish_scores (attention_impl.h) four keys at a time, for rows whose mask
// (if any) is contiguous along the keys. A lane is good when overflowed()
// (overflow.h) would say no: |raw| finite, z below +Infinity and not NaN, and
// z above -Infinity unless the mask or the key bias hides the key.
float finish_scores4(float* s, int32_t n, int32_t visible, float scale, const float* mrow, const float* kb,
                     ag::attention_detail::Alibi alibi, int32_t* bad) {
  using ag::simd::load;
  using ag::simd::splat;
  const v128_t sc = splat(scale), inf = splat(INFINITY), ninf = splat(-INFINITY);
  v128_t vmax = ninf;
  *bad = -1;
  int32_t j = 0;
  if (mrow == nullptr && kb == nullptr && alibi.m == 0.0f) {
    // No mask and no bias (the common case): z = raw, and a score overflowed
    // exactly when it is not finite. The lanes' verdicts are gathered and
    // looked at once, after the loop; the first bad score, if any, is then
    // found again from the stored z = raw.
    v128_t ok = wasm_i32x4_splat(-1);
    for (; j + 4 <= visible; j += 4) {
      const v128_t z = wasm_f32x4_mul(load(s + j), sc);
      ag::simd::store(s + j, z);
      vmax = wasm_f32x4_pmax(vmax, z);
      ok = wasm_v128_and(ok, wasm_f32x4_lt(wasm_f32x4_abs(z), inf));
    }
    if (!wasm_i32x4_all_true(ok)) {
      for (int32_t x = 0; x < j; ++x)
        if (!isfinite(s[x])) {
          *bad = x;
          break;
        }
    }
  }
  // ALiBi: the distances n0 - j of four keys, exact small integers, one f32x4
  // add of -4 per group (|n0 - j| <= 2^24), and the bias (-m) |n0 - j|.
  const v128_t neg_m = splat(-alibi.m), step = splat(-4.0f);
  v128_t dist = wasm_f32x4_add(splat(static_cast<float>(alibi.n0 - j)), wasm_f32x4_make(0.0f, -1.0f, -2.0f, -3.0f));
  for (; j + 4 <= visible; j += 4, dist = wasm_f32x4_add(dist, step)) {
    const v128_t raw = wasm_f32x4_mul(load(s + j), sc);
    v128_t z = raw;
    if (alibi.m != 0.0f) z = wasm_f32x4_add(z, wasm_f32x4_mul(neg_m, wasm_f32x4_abs(dist)));
    v128_t hidden = wasm_i32x4_splat(0);
    if (mrow != nullptr) {
      const v128_t m = load(mrow + j);
      hidden = wasm_f32x4_eq(m, ninf);
      z = wasm_f32x4_add(z, m);
    }
    if (kb != nullptr) {
      const v128_t b = load(kb + j);
      hidden = wasm_v128_or(hidden, wasm_f32x4_eq(b, ninf));
      z = wasm_f32x4_add(z, b);
    }
    const v128_t good = wasm_v128_and(wasm_v128_and(wasm_f32x4_lt(wasm_f32x4_abs(raw), inf), wasm_f32x4_lt(z, inf)),
                                      wasm_v128_or(wasm_f32x4_gt(z, ninf), hidden));
    const uint32_t good_lanes = wasm_i32x4_bitmask(good);
    if (good_lanes != 0xFu && *bad < 0) *bad = j + __builtin_ctz(~good_lanes & 0xFu);
    ag::simd::store(s + j, z);
    vmax = wasm_f32x4_pmax(vmax, z);
  }
  float mx = ag::simd::max_lanes(vmax);
  if (j < visible) {
    int32_t tail_bad;
    const float tail_max = ag::attention_detail::finish_scores_loop(
        s + j, visible - j, visible - j, scale, 0.0f, mrow != nullptr ? mrow + j : nullptr, 1,
        kb != nullptr ? kb + j : nullptr, ag::attention_detail::Alibi{alibi.m, alibi.n0 - j}, &tail_bad);
    if (tail_bad >= 0 && *bad < 0) *bad = j + tail_bad;
    mx = tail_max > mx ? tail_max : mx;
  }
  for (j = visible; j + 4 <= n; j += 4) ag::simd::store(s + j, ninf);
  for (; j < n; ++j) s[j] = -INFINITY;
  return mx;
}

struct Simd128Kernels {
  static void matmul(const float* A, const float* B, int32_t M, int32_t K, int32_t N, float* C) {
    ag_matmul__simd128(A, B, M, K, N, C);
  }
  // S = Q K^T for `rows` queries and `cols` keys: the GEMM's order and bound.
  static void scores(const float* q, ptrdiff_t q_st, const float* k, ptrdiff_t k_st, int32_t rows, int32_t cols,
                     int32_t d_k, float* S, ptrdiff_t lds) {
    ag::simd128::gemm_nt(rows, cols, d_k, q, q_st, k, k_st, 0.0f, S, lds);
  }
  static float finish_scores(float* s, int32_t n, int32_t visible, float scale, float softcap, const float* mrow,
                             ptrdiff_t m_sj, const float* kb, ag::attention_detail::Alibi alibi, int32_t* bad) {
    // A soft cap is one tanhf per score (as in the scalar variant): the plain loop.
    if (softcap > 0.0f || (mrow != nullptr && m_sj != 1)) {
      return ag::attention_detail::finish_scores_loop(s, n, visible, scale, softcap, mrow, m_sj, kb, alibi, bad);
    }
    return finish_scores4(s, n, visible, scale, mrow, kb, alibi, bad);
  }
  static void rope_row(const float* x, const float* C, const float* S, int32_t d, bool interleaved, float* out) {
    ag::rope::simd128::rope_row(x, C, S, d, interleaved, out);
  }
  static bool softmax_row(const float* z, int32_t n, float* y) { return ag::simd128::softmax_row(z, n, y); }
  static void mix_values(const float* alpha, int32_t n, const float* v, ptrdiff_t v_st, int32_t d_v, float* y) {
    int32_t c = 0;
    for (; c + 4 <= d_v; c += 4) ag::simd::store(y + c, mix4(alpha, n, v + c, v_st));
    for (; c < d_v; ++c) y[c] = ag::scalar::mix_channel(alpha, n, v + c, v_st);
  }
  static float exp1(float x) { return wasm_f32x4_extract_lane(ag::simd128::exp4(ag::simd::splat(x)), 0); }
  // s_j = exp(s_j - m) four at a time, over the padding too (-Infinity gives
  // 0); the sum in four lane sums combined as (l0 + l2) + (l1 + l3).
  static float exp_row(float* s, int32_t n, float m) {
    const v128_t mv = ag::simd::splat(m);
    v128_t acc = ag::simd::zero();
    for (int32_t j = 0; j < n; j += 4) {
      const v128_t p = ag::simd128::exp4(wasm_f32x4_sub(ag::simd::load(s + j), mv));
      ag::simd::store(s + j, p);
      acc = wasm_f32x4_add(acc, p);
    }
    return ag::simd::sum_lanes(acc);
  }
  static void scale_row(float* o, int32_t n, float c) {
    const v128_t cv = ag::simd::splat(c);
    int32_t x = 0;
    for (; x + 4 <= n; x += 4) ag::simd::store(o + x, wasm_f32x4_mul(ag::simd::load(o + x), cv));
    for (; x < n; ++x) o[x] *= c;
  }
  static void divide_row(float* o, int32_t n, float l) {
    const v128_t lv = ag::simd::splat(l);
    int32_t x = 0;
    for (; x + 4 <= n; x += 4) ag::simd::store(o + x, wasm_f32x4_div(ag::simd::load(o + x), lv));
    for (; x < n; ++x) o[x] /= l;
  }
  // O += P V on one tile: the GEMM with beta = 1, C being the output rows.
  static void accumulate(const float* P, ptrdiff_t ldp, const float* v, ptrdiff_t v_st, int32_t rows, int32_t cols,
                         int32_t d_v, float* O, ptrdiff_t o_st) {
    ag::simd128::gemm_nn(rows, d_v, cols, P, ldp, v, v_st, 1.0f, O, o_st);
  }
};

}  // namespace

namespace ag::simd128 {

// The trace (attention_trace_simd128.cc) runs this variant's streaming path itself.
int32_t attention_trace_run(const attention_detail::Slice& sl, float* work, int32_t tile_keys,
                            attention_trace::TraceWriter* w) {
  return attention_trace::run<Simd128Kernels>(sl, work, tile_keys, w);
}

// The gradients (attention_backward_simd128.cc) run this variant's kernels.
int32_t attention_backward_run(const float* q, const float* k, const float* v, const float* mask, float scale,
                               const ag_attention_dims* dims, const float* d_out, float* dq, float* dk, float* dv,
                               float* work) {
  return attention_backward::run<Simd128Kernels>(q, k, v, mask, scale, dims, d_out, dq, dk, dv, work);
}

}  // namespace ag::simd128

extern "C" {

int32_t ag_attention__simd128(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
                              const float* alibi_slopes, float scale, float softcap, const ag_attention_dims* dims,
                              float* out, float* weights, float* scores, float* work) {
  return ag::attention_detail::attention<Simd128Kernels>(q, k, v, mask, key_bias, alibi_slopes, scale, softcap, dims,
                                                         out, weights, scores, work);
}

int32_t ag_multi_head_attention__simd128(const float* xq, const float* xk, const float* xv, const float* wq,
                                         const float* wk, const float* wv, const float* wo, const float* bq,
                                         const float* bk, const float* bv, const float* bo, const float* mask,
                                         const float* key_bias, float scale, double rope_base, const ag_mha_dims* dims,
                                         float* out, float* weights, float* work) {
  return ag::attention_detail::multi_head_attention<Simd128Kernels>(
      xq, xk, xv, wq, wk, wv, wo, bq, bk, bv, bo, mask, key_bias, scale, rope_base, dims, out, weights, work);
}

}  // extern "C"
