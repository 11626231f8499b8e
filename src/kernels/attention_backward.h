// The gradients of scaled dot-product attention (registry.inc:
// attention_backward), written once and instantiated by attention_scalar.cc
// and attention_simd128.cc with that variant's kernels (the Kernels of
// attention_impl.h), so that the backward pass recomputes the scores, the
// exps and the forward output with the very operations of the forward pass.
//
// Maths, per (batch, head) slice (Vaswani et al. 2017, §3.2.1; the backward
// of Dao et al. 2022, FlashAttention, Algorithm 4, and Dao 2023,
// FlashAttention-2, Algorithm 2):
//   S = scale Q K^T + mask,  P = softmax(S) row-wise,  Y = P V;  given dY:
//   dV = P^T dY                              [Tk, d_v]
//   dP = dY V^T                              [Tq, Tk], never stored whole
//   D_i = sum_j P_ij dP_ij = dY_i . Y_i      [Tq]
//   dS = P * (dP - D 1^T)                    (the softmax's backward, row-wise)
//   dQ = scale dS K,  dK = scale dS^T Q      [Tq, d_k], [Tk, d_k]
// Streaming recompute, O(T d) memory: no [Tq, Tk] grid. First the forward
// streaming path of attention (attention_impl.h, streaming_slice) runs over
// the slice, writing Y into work and, through a recorder, each row's final
// max m_i and sum l_i; D_i = dY_i . Y_i. Then for each block of kBlockQ
// query rows and each tile of kTileK keys (the keys the block sees, as in
// the forward):
//   S_t = scale Q_blk K_t^T + mask,  P = exp(S_t - m) / l,  dP = dY_blk V_t^T,
//   dV_t += P^T dY_blk,  dS = scale P (dP - D),  dQ_blk += dS K_t,
//   dK_t += dS^T Q_blk.
// The products with a transposed factor go through a transpose of the tile
// into work ([kTileK, kBlockQ]) and the variant's accumulate (O += P V).
// dQ, dK and dV are zeroed first and then accumulated; with shared key/value
// heads (kv_group > 1) the heads of a group add into the same dK and dV.
// A row with no visible key has P = 0, hence zero gradients (never NaN).
#ifndef AG_KERNELS_ATTENTION_BACKWARD_H_
#define AG_KERNELS_ATTENTION_BACKWARD_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "attention_impl.h"
#include "kernels.h"

namespace ag::attention_backward {

using attention_detail::kBlockQ;
using attention_detail::kTileK;
using attention_detail::Slice;

// The forward pass's final statistics of each row: m_i (the row's max
// score, -Infinity for a row with no visible key) and l_i = sum_j exp(s_ij -
// m_i), recorded as streaming_slice finishes each row.
struct RowStats {
  float* m;
  float* l;
  void tile(int32_t, int32_t, int32_t, int32_t, float, float, float, float, float, int32_t) {}
  void tile_done(const float*, ptrdiff_t, int32_t, int32_t) {}
  void output(int32_t i, float mi, float li, const float*, int32_t) {
    m[i] = mi;
    l[i] = li;
  }
};

// The workspace (ag_attention_backward_workspace_floats, attention_workspace.cc):
//   the forward's work [AG_ATTENTION_STREAMING_WORK_FLOATS] (its score tile
//   is then the tile of S and P) | dP, then dS [kBlockQ, kTileK] |
//   a transposed tile [kTileK, kBlockQ] | Y [Tq, d_v] | m, l, D [Tq] each.
struct Workspace {
  float *forward, *dP, *tr, *y, *m, *l, *D;
  Workspace(float* work, int32_t Tq, int32_t d_v) {
    forward = work;
    dP = forward + AG_ATTENTION_STREAMING_WORK_FLOATS;
    tr = dP + static_cast<size_t>(kBlockQ) * kTileK;
    y = tr + static_cast<size_t>(kTileK) * kBlockQ;
    m = y + static_cast<size_t>(Tq) * d_v;
    l = m + Tq;
    D = l + Tq;
  }
};

// T [cols, rows] (row stride ldt) = A^T for A [rows, cols] (row stride lda).
inline void transpose(const float* A, ptrdiff_t lda, int32_t rows, int32_t cols, float* T, ptrdiff_t ldt) {
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t j = 0; j < cols; ++j) T[j * ldt + r] = A[r * lda + j];
}

// X [T, d] at row stride st: zeroed.
inline void zero_rows(float* x, int32_t T, int32_t d, ptrdiff_t st) {
  for (int32_t t = 0; t < T; ++t)
    for (int32_t c = 0; c < d; ++c) x[t * st + c] = 0.0f;
}

// The gradients of one slice, accumulated into dq, dk, dv (at the strides of
// q, k, v); dy at the output's strides (sl.o is the workspace's Y). Returns
// the forward's status for the slice (attention_impl.h: note_overflow), else
// -(1 + the flat index) of the first entry of the scores' gradient
// dS = scale P (dP - D) that is not finite (an intermediate that overflowed
// float32, although dQ and dK may be finite in exact arithmetic), else 0.
template <class Kernels>
int32_t slice_backward(const Slice& sl, const float* dy, ptrdiff_t dy_st, float* dq, float* dk, float* dv,
                       const Workspace& w, size_t flat0) {
  const int32_t Tq = sl.Tq, dk_ = sl.d_k, dv_ = sl.d_v;
  const int32_t status = attention_detail::streaming_slice<Kernels, attention_detail::ProductionTile, RowStats>(
      sl, w.forward, flat0, attention_detail::ProductionTile(), RowStats{w.m, w.l});
  int32_t ds_status = 0;  // 1 + the flat index of the first dS entry that is not finite
  // D_i = dY_i . Y_i, in the order of this variant's scores (dot or GEMM).
  for (int32_t i = 0; i < Tq; ++i)
    Kernels::scores(dy + i * dy_st, dy_st, w.y + static_cast<ptrdiff_t>(i) * dv_, dv_, 1, 1, dv_, w.D + i, 1);
  float* S = w.forward;  // the forward's score tile, [kBlockQ, kTileK]
  for (int32_t i0 = 0; i0 < Tq; i0 += kBlockQ) {
    const int32_t nq = Tq - i0 < kBlockQ ? Tq - i0 : kBlockQ;
    const float* q_blk = sl.q + i0 * sl.q_st;
    const float* dy_blk = dy + i0 * dy_st;
    float* dq_blk = dq + i0 * sl.q_st;
    const int32_t kend = attention_detail::visible_keys(sl, i0 + nq - 1);
    for (int32_t j0 = attention_detail::first_key(sl, i0); j0 < kend; j0 += kTileK) {
      const int32_t nk = kend - j0 < kTileK ? kend - j0 : kTileK;
      const int32_t padded = (nk + 3) & ~3;
      const float* k_t = sl.k + j0 * sl.k_st;
      const float* v_t = sl.v + j0 * sl.v_st;
      // P = exp(S - m) / l, the scores finished exactly as the forward's.
      Kernels::scores(q_blk, sl.q_st, k_t, sl.k_st, nq, nk, dk_, S, kTileK);
      for (int32_t r = 0; r < nq; ++r) {
        const int32_t i = i0 + r;
        float* s = S + static_cast<size_t>(r) * kTileK;
        if (w.m[i] == -INFINITY) {  // no visible key in the whole row: P = 0
          for (int32_t j = 0; j < padded; ++j) s[j] = 0.0f;
          continue;
        }
        for (int32_t j = nk; j < padded; ++j) s[j] = -INFINITY;
        int32_t visible = nk;
        if (sl.causal) {
          const int32_t past = attention_detail::visible_keys(sl, i) - j0;
          visible = past < nk ? (past > 0 ? past : 0) : nk;
        }
        const int32_t first = attention_detail::first_key(sl, i) - j0;
        const int32_t skip = first <= 0 ? 0 : (first < visible ? first : visible);
        const float* mi = sl.mask != nullptr ? sl.mask + i * sl.m_si + (j0 + skip) * sl.m_sj : nullptr;
        int32_t bad;  // reported by the forward pass
        Kernels::finish_scores(s + skip, nk - skip, visible - skip, sl.scale, 0.0f, mi, sl.m_sj, nullptr,
                               attention_detail::Alibi{0.0f, 0}, &bad);
        attention_detail::hide_before(s, skip);
        Kernels::exp_row(s, nk, w.m[i]);
        Kernels::divide_row(s, nk, w.l[i]);
      }
      // dV_t += P^T dY_blk.
      transpose(S, kTileK, nq, nk, w.tr, kBlockQ);
      Kernels::accumulate(w.tr, kBlockQ, dy_blk, dy_st, nk, nq, dv_, dv + j0 * sl.v_st, sl.v_st);
      // dP = dY_blk V_t^T, then dS = scale P (dP - D) in its place.
      Kernels::scores(dy_blk, dy_st, v_t, sl.v_st, nq, nk, dv_, w.dP, kTileK);
      for (int32_t r = 0; r < nq; ++r) {
        const float Di = w.D[i0 + r];
        const float* p = S + static_cast<size_t>(r) * kTileK;
        float* ds = w.dP + static_cast<size_t>(r) * kTileK;
        // A hidden key (P = 0) adds nothing, even where dP overflowed: never 0 * Infinity.
        for (int32_t j = 0; j < nk; ++j) ds[j] = p[j] != 0.0f ? sl.scale * (p[j] * (ds[j] - Di)) : 0.0f;
        for (int32_t j = 0; j < nk; ++j) {
          if (isfinite(ds[j])) continue;
          attention_detail::note_overflow(&ds_status, flat0 + static_cast<size_t>(i0 + r) * sl.Tk + j0 + j);
          break;
        }
      }
      // dQ_blk += dS K_t; dK_t += dS^T Q_blk.
      Kernels::accumulate(w.dP, kTileK, k_t, sl.k_st, nq, nk, dk_, dq_blk, sl.q_st);
      transpose(w.dP, kTileK, nq, nk, w.tr, kBlockQ);
      Kernels::accumulate(w.tr, kBlockQ, q_blk, sl.q_st, nk, nq, dk_, dk + j0 * sl.k_st, sl.k_st);
    }
  }
  return status != 0 ? status : -ds_status;
}

// The gradients over the B x H slices of *d (registry.inc: attention_backward).
template <class Kernels>
int32_t run(const float* q, const float* k, const float* v, const float* mask, float scale, const ag_attention_dims* d,
            const float* d_out, float* dq, float* dk, float* dv, float* work) {
  const int32_t group = d->kv_group > 1 ? d->kv_group : 1;
  const Workspace w(work, d->Tq, d->d_v);
  // Written, not accumulated: zero every element first (heads of a group add
  // into the same dK and dV).
  auto at = [](int32_t b, int32_t h, int32_t sb, int32_t sh) {
    return static_cast<ptrdiff_t>(b) * sb + static_cast<ptrdiff_t>(h) * sh;
  };
  for (int32_t b = 0; b < d->B; ++b) {
    for (int32_t h = 0; h < d->H; ++h) {
      zero_rows(dq + at(b, h, d->q_sb, d->q_sh), d->Tq, d->d_k, d->q_st);
      if (h % group != 0) continue;
      zero_rows(dk + at(b, h / group, d->k_sb, d->k_sh), d->Tk, d->d_k, d->k_st);
      zero_rows(dv + at(b, h / group, d->v_sb, d->v_sh), d->Tk, d->d_v, d->v_st);
    }
  }
  int32_t status = 0;
  for (int32_t b = 0; b < d->B; ++b) {
    for (int32_t h = 0; h < d->H; ++h) {
      const ptrdiff_t qo = at(b, h, d->q_sb, d->q_sh);
      const ptrdiff_t ko = at(b, h / group, d->k_sb, d->k_sh);
      const ptrdiff_t vo = at(b, h / group, d->v_sb, d->v_sh);
      Slice sl{};
      sl.q = q + qo, sl.k = k + ko, sl.v = v + vo, sl.o = w.y;
      sl.mask = mask != nullptr ? mask + at(b, h, d->m_sb, d->m_sh) : nullptr;
      sl.q_st = d->q_st, sl.k_st = d->k_st, sl.v_st = d->v_st, sl.o_st = d->d_v;
      sl.m_si = d->m_si, sl.m_sj = d->m_sj;
      sl.Tq = d->Tq, sl.Tk = d->Tk, sl.d_k = d->d_k, sl.d_v = d->d_v;
      sl.causal = d->causal != 0, sl.causal_offset = d->causal_offset, sl.window = d->window;
      sl.scale = scale;
      const float* dy = d_out + at(b, h, d->o_sb, d->o_sh);
      const size_t flat0 = (static_cast<size_t>(b) * d->H + static_cast<size_t>(h)) * d->Tq * d->Tk;
      const int32_t st = slice_backward<Kernels>(sl, dy, d->o_st, dq + qo, dk + ko, dv + vo, w, flat0);
      if (status == 0) status = st;  // slices run in flat order
    }
  }
  return status;
}

}  // namespace ag::attention_backward

namespace ag::scalar {
// attention_backward::run with the scalar variant's kernels (attention_scalar.cc).
int32_t attention_backward_run(const float* q, const float* k, const float* v, const float* mask, float scale,
                               const ag_attention_dims* dims, const float* d_out, float* dq, float* dk, float* dv,
                               float* work);
}  // namespace ag::scalar
namespace ag::simd128 {
// attention_backward::run with the simd128 variant's kernels (attention_simd128.cc).
int32_t attention_backward_run(const float* q, const float* k, const float* v, const float* mask, float scale,
                               const ag_attention_dims* dims, const float* d_out, float* dq, float* dk, float* dv,
                               float* work);
}  // namespace ag::simd128

#endif  // AG_KERNELS_ATTENTION_BACKWARD_H_
