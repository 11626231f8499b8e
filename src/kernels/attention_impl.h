// Scaled dot-product and multi-head attention, written once and instantiated
// by attention_scalar.cc and attention_simd128.cc with that variant's kernels.
//
// Maths (Vaswani et al. 2017):
//   §3.2.1  Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, here with a
//           general scale and an additive mask and key bias:
//             S = scale * Q K^T + mask + key_bias,  A = softmax(S) row-wise,
//             Y = A V,
//           and optionally a soft cap c > 0 on the scores before the mask
//           (Gemma 2; ONNX Attention, opset 23): S = c tanh(scale Q K^T / c)
//           + mask + key_bias; and optionally ALiBi (Press et al. 2022, §3):
//           head h adds -m_h |i + P - j| where the mask is added, P the
//           queries' position offset (causal_offset).
//   §3.2.2  MultiHead(Xq, Xk, Xv) = concat(head_1, ..., head_h) W_O + b_O,
//           head_i = Attention(Q_i, K_i, V_i), Q = Xq W_Q + b_Q (likewise K, V)
//           in the row-vector convention (W [in, out] = [d_model, d_model]),
//           Q_i the columns i*d_k .. (i+1)*d_k - 1 of Q, d_k = d_v = d_model/h.
//
// Two ways to compute one (batch, head) slice:
//   materialized  the whole score grid S [Tq, Tk] is formed (in the caller's
//                 scores or weights, or in work), each row is softmaxed by the
//                 softmax kernel's row function and mixed with the values.
//                 Memory O(Tq Tk); the weights are available.
//   streaming     (Milakov & Gimelshein 2018, "Online normalizer calculation
//                 for softmax"; Dao et al. 2022, FlashAttention, Algorithm 1)
//                 for each block of query rows, the keys and values are read
//                 one tile at a time. Per row i the kernel keeps the running
//                 max m_i, the running sum l_i = sum_j exp(s_ij - m_i) and the
//                 unnormalised output O_i = sum_j exp(s_ij - m_i) v_j (in the
//                 output row itself). A tile with scores s_ij, j in the tile:
//                   m' = max(m, max_j s_ij),  c = exp(m - m'),
//                   p_ij = exp(s_ij - m'),    l' = c l + sum_j p_ij,
//                   O' = c O + sum_j p_ij v_j,
//                 and at the end y_i = O_i / l_i. Since c multiplies the old
//                 terms by exp(m - m'), every term ends up as exp(s_ij - M_i)
//                 with M_i the row's max: the softmax, never formed as a grid.
//                 Memory: one tile of scores and two numbers per row. (A row
//                 whose unnormalised O overflows float32 is computed again
//                 with normalised terms: renormalized_row.)
// Both give a row with no visible key (all masked or causally hidden) a
// zero output, +0.
//
// Shapes, strides and preconditions are those of registry.inc and
// ag_attention_dims / ag_mha_dims in kernels.h. Heads are read and written in
// place through the strides: splitting into heads and concatenating them
// back are no copies, only different strides over the same [B, T, d_model]
// buffers.
//
// A Kernels type supplies the variant's inner loops:
//   scores(q, q_st, k, k_st, rows, cols, d_k, S, lds)   S[r][j] = q_r . k_j
//   finish_scores(s, n, visible, scale, softcap, mrow, m_sj, kb, alibi, &bad) -> row max
//       s_j = ((cap(scale * s_j) + b_j) + mask_j) + kb_j for j < visible,
//       -Infinity after, cap(x) = softcap tanh(x / softcap) when softcap > 0,
//       else x; b_j = (-m) |n0 - j| the ALiBi bias of alibi = {m, n0}, left
//       out when m = 0; bad = the first j whose score overflowed
//       (overflow.h), or -1
//   softmax_row(z, n, y) -> false if every z is -Infinity   softmax_<v>.cc
//   mix_values(alpha, n, v, v_st, d_v, y)                y = sum_j alpha_j v_j
//   exp1(x), exp_row(s, n, m) -> sum_j of s_j = exp(s_j - m) (in place; s has
//       room up to a multiple of 4, the padding holding -Infinity)
//   scale_row(o, n, c), divide_row(o, n, l)              o *= c, o /= l
//   accumulate(P, ldp, v, v_st, rows, cols, d_v, O, o_st) O += P V
//   matmul(A, B, M, K, N, C)                              ag_matmul__<v>
#ifndef AG_ATTENTION_IMPL_H_
#define AG_ATTENTION_IMPL_H_

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "overflow.h"
#include "rope.h"

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
}  // namespace scalar
namespace simd128 {
bool softmax_row(const float* z, int32_t n, float* y);
}

namespace attention_detail {

constexpr int32_t kBlockQ = AG_ATTENTION_BLOCK_Q;
constexpr int32_t kTileK = AG_ATTENTION_TILE_K;
static_assert(kTileK % 4 == 0, "a score row of the tile is padded to whole f32x4 groups");

// One (batch, head) slice: its tensors and strides (elements).
struct Slice {
  const float *q, *k, *v;
  float* o;
  const float* mask;  // element (i, j) at mask[i * m_si + j * m_sj], or null
  const float* kb;    // key bias [Tk], or null
  ptrdiff_t q_st, k_st, v_st, o_st, m_si, m_sj;
  int32_t Tq, Tk, d_k, d_v;
  bool causal;
  int32_t causal_offset;  // with causal, query i sees keys 0..i + causal_offset
  int32_t window;         // with causal, > 0: only the last `window` of those keys; 0: all of them
  float scale;
  float softcap;         // > 0: scores capped to softcap * tanh(score / softcap) before the mask; 0: none
  float slope;           // ALiBi: -slope |i + causal_offset - j| added to score (i, j); 0: none
  int32_t scores_stage;  // ag_attention_dims::scores_stage: 0 masked, 1 capped, 2 raw
  // The rows are the query heads of one query (Tq = 1) that share this K and V, one head per row (q_st,
  // o_st and m_si being the heads' strides): every row is at query position 0. False: row i is query i.
  bool heads_as_rows;
};

// The query position of row i of a slice (causal, window, ALiBi).
inline int32_t position(const Slice& sl, int32_t i) { return sl.heads_as_rows ? 0 : i; }

// The ALiBi bias of one run of scores (Press et al. 2022, §3): score j of
// the run gets b_j = (-m) |n0 - j|, n0 the distance i + P - j of the run's
// first key. m = 0 is no bias. |n0 - j| <= 2^24 (the JS layer checks), so
// the distance is an exact float and b_j one rounding of an exact product.
struct Alibi {
  float m;
  int32_t n0;
};

// The bias for row i of a slice from key j0 on.
inline Alibi alibi_at(const Slice& sl, int32_t i, int32_t j0) {
  if (sl.slope == 0.0f) return Alibi{0.0f, 0};
  return Alibi{sl.slope, static_cast<int32_t>(static_cast<int64_t>(position(sl, i)) + sl.causal_offset - j0)};
}

// Causal: query i sees keys 0..i + causal_offset (top-left aligned when the
// offset is 0; a KV cache of P keys puts query i at position P + i), all of
// them once i + causal_offset >= Tk - 1, none while i + causal_offset < 0.
inline int32_t visible_keys(const Slice& sl, int32_t i) {
  const int64_t n = static_cast<int64_t>(position(sl, i)) + 1 + sl.causal_offset;
  if (!sl.causal) return sl.Tk;
  return n <= 0 ? 0 : (n < sl.Tk ? static_cast<int32_t>(n) : sl.Tk);
}

// Sliding window (Beltagy et al. 2020; Jiang et al. 2023, Mistral): with
// causal and window w > 0, query i sees keys i + causal_offset - w + 1 ..
// i + causal_offset (those that exist): the first visible key, never past
// visible_keys(sl, i). 0 without a window.
inline int32_t first_key(const Slice& sl, int32_t i) {
  if (!sl.causal || sl.window <= 0) return 0;
  const int64_t lo = static_cast<int64_t>(position(sl, i)) + 1 + sl.causal_offset - sl.window;
  const int32_t end = visible_keys(sl, i);
  return lo <= 0 ? 0 : (lo < end ? static_cast<int32_t>(lo) : end);
}

// Keys before `lo` (outside a sliding window) are hidden: -Infinity, as if
// masked.
inline void hide_before(float* s, int32_t lo) {
  for (int32_t j = 0; j < lo; ++j) s[j] = -INFINITY;
}

// The plain loop behind finish_scores (see the file comment): the scalar
// variant's, and the simd128 variant's for masks that are not contiguous
// along the keys.
inline float finish_scores_loop(float* s, int32_t n, int32_t visible, float scale, float softcap, const float* mrow,
                                ptrdiff_t m_sj, const float* kb, Alibi alibi, int32_t* bad) {
  float mx = -INFINITY;
  *bad = -1;
  for (int32_t j = 0; j < visible; ++j) {
    // Capped, an infinite scale * q.k is +-softcap: no overflow (only a NaN is).
    const float raw = softcap > 0.0f ? softcap * tanhf(scale * s[j] / softcap) : scale * s[j];
    float sij = raw;
    // An ALiBi bias that overflows (m |n| > FLT_MAX) leaves z infinite, not masked: an overflow.
    if (alibi.m != 0.0f) sij += -alibi.m * fabsf(static_cast<float>(alibi.n0 - j));
    bool masked_out = false;
    if (mrow != nullptr) {
      const float m = mrow[static_cast<ptrdiff_t>(j) * m_sj];
      masked_out = m == -INFINITY;
      sij += m;
    }
    if (kb != nullptr) {
      masked_out = masked_out || kb[j] == -INFINITY;
      sij += kb[j];
    }
    if (*bad < 0 && overflowed(raw, sij, masked_out)) *bad = j;
    s[j] = sij;
    mx = sij > mx ? sij : mx;
  }
  // Hidden keys get a score of -Infinity, exactly as if the mask held
  // -Infinity there.
  for (int32_t j = visible; j < n; ++j) s[j] = -INFINITY;
  return mx;
}

// Records overflow at flat index `at` if it comes before the one recorded:
// status is 0 or 1 + the smallest flat index seen. The streaming path takes
// grids of more than 2^31 scores (it never stores them); an index that does
// not fit saturates at INT32_MAX, which the JS layer reports as such.
inline void note_overflow(int32_t* status, size_t at) {
  const int32_t code = at < static_cast<size_t>(INT32_MAX) ? static_cast<int32_t>(1 + at) : INT32_MAX;
  if (*status == 0 || code < *status) *status = code;
}

// The materialized path for one slice. S [Tq, Tk] (row stride Tk) receives
// the scores; the weights go to W [Tq, Tk] when not null, else to row [Tk]
// when not null, else over the scores in S. flat0: the slice's offset in the
// flat [B, H, Tq, Tk] index of the status.
template <class Kernels>
int32_t materialized_slice(const Slice& sl, float* S, float* W, float* row, size_t flat0) {
  const int32_t Tq = sl.Tq, Tk = sl.Tk;
  int32_t status = 0;
  Kernels::scores(sl.q, sl.q_st, sl.k, sl.k_st, Tq, Tk, sl.d_k, S, Tk);
  for (int32_t i = 0; i < Tq; ++i) {
    const int32_t visible = visible_keys(sl, i);
    const int32_t lo = first_key(sl, i);  // keys lo..visible - 1 are visible
    float* a =
        W != nullptr ? W + static_cast<size_t>(i) * Tk : (row != nullptr ? row : S + static_cast<size_t>(i) * Tk);
    // s: the row the softmax reads. With scores_stage 1 or 2 the grid keeps
    // an earlier stage of every key, so the row of q.k is copied to a (the
    // weights' row, or the work row) and finished there; the grid's row gets
    // the same finish_scores with no mask, bias, ALiBi or hidden key (and no
    // cap for stage 2), in the same pass.
    float* s = S + static_cast<size_t>(i) * Tk;
    if (sl.scores_stage != 0) {
      for (int32_t j = 0; j < Tk; ++j) a[j] = s[j];
      int32_t plain_bad;
      Kernels::finish_scores(s, Tk, Tk, sl.scale, sl.scores_stage == 1 ? sl.softcap : 0.0f, nullptr, 0, nullptr,
                             Alibi{0.0f, 0}, &plain_bad);
      if (plain_bad >= 0) note_overflow(&status, flat0 + static_cast<size_t>(i) * Tk + plain_bad);
      s = a;
    }
    const float* mi = sl.mask != nullptr ? sl.mask + static_cast<ptrdiff_t>(i) * sl.m_si + lo * sl.m_sj : nullptr;
    int32_t bad;
    Kernels::finish_scores(s + lo, Tk - lo, visible - lo, sl.scale, sl.softcap, mi, sl.m_sj,
                           sl.kb != nullptr ? sl.kb + lo : nullptr, alibi_at(sl, i, lo), &bad);
    hide_before(s, lo);
    if (bad >= 0) note_overflow(&status, flat0 + static_cast<size_t>(i) * Tk + lo + bad);
    float* yi = sl.o + static_cast<ptrdiff_t>(i) * sl.o_st;
    if (Kernels::softmax_row(s, Tk, a)) {
      Kernels::mix_values(a + lo, visible - lo, sl.v + static_cast<ptrdiff_t>(lo) * sl.v_st, sl.v_st, sl.d_v, yi);
    } else {
      // No visible key (all masked): zero weights (set by softmax_row)
      // and a zero output, +0 rather than 0 * v, which could be -0.
      for (int32_t c = 0; c < sl.d_v; ++c) yi[c] = 0.0f;
    }
  }
  return status;
}

// O = sum_j exp(s_ij - m) v_j is not normalised: with huge values (|v| near
// FLT_MAX / Tk) it can overflow although the output y = O / l, a convex
// combination of the v_j, is well within float32. Such a row is computed
// again in one more pass over the keys with the final max M and sum l known:
// y = sum_j (exp(s_ij - M) / l) v_j, normalised term by term, whose partial
// sums stay within max_j |v_j| (times the rounding). The scores are formed
// as in the first pass; s [kTileK] is scratch; yi is the output row.
template <class Kernels>
void renormalized_row(const Slice& sl, int32_t i, float M, float l, float* s, float* yi) {
  for (int32_t x = 0; x < sl.d_v; ++x) yi[x] = 0.0f;
  const int32_t kend = visible_keys(sl, i);
  const float* qi = sl.q + static_cast<ptrdiff_t>(i) * sl.q_st;
  for (int32_t j0 = first_key(sl, i); j0 < kend; j0 += kTileK) {
    const int32_t nk = kend - j0 < kTileK ? kend - j0 : kTileK;
    Kernels::scores(qi, sl.q_st, sl.k + static_cast<ptrdiff_t>(j0) * sl.k_st, sl.k_st, 1, nk, sl.d_k, s, kTileK);
    for (int32_t j = nk; j < ((nk + 3) & ~3); ++j) s[j] = -INFINITY;
    const float* mi = sl.mask != nullptr
                          ? sl.mask + static_cast<ptrdiff_t>(i) * sl.m_si + static_cast<ptrdiff_t>(j0) * sl.m_sj
                          : nullptr;
    int32_t bad;  // already reported by the first pass
    Kernels::finish_scores(s, nk, nk, sl.scale, sl.softcap, mi, sl.m_sj, sl.kb != nullptr ? sl.kb + j0 : nullptr,
                           alibi_at(sl, i, j0), &bad);
    Kernels::exp_row(s, nk, M);
    Kernels::divide_row(s, nk, l);
    Kernels::accumulate(s, kTileK, sl.v + static_cast<ptrdiff_t>(j0) * sl.v_st, sl.v_st, 1, nk, sl.d_v, yi, sl.o_st);
  }
}

// What the streaming path reports as it goes: nothing, in production (every
// call compiles away). The trace (attention_trace.h) records each step.
//   tile(r, i, start, count, tile_max, m_prev, m, c, l, bad)  row i (row r of
//     the block) after the tile's keys start..start + count - 1: the tile's
//     max, m before and after, the correction c applied to l and O (1 where
//     none was), l after, the first overflowed key of the tile (or -1)
//   tile_done(O, o_st, nq, d_v)   O += P V done for the block's nq rows
//   output(i, m, l, y, d_v)       row i finished: y = O / l
struct NoRecorder {
  void tile(int32_t, int32_t, int32_t, int32_t, float, float, float, float, float, int32_t) {}
  void tile_done(const float*, ptrdiff_t, int32_t, int32_t) {}
  void output(int32_t, float, float, const float*, int32_t) {}
};

// The keys per tile of the streaming path: kTileK, a constant, in
// production; any width from 1 to kTileK, known at run time, for the trace
// (the same operations in the same order either way).
struct ProductionTile {
  static constexpr int32_t keys = kTileK;
};
struct RuntimeTile {
  int32_t keys;
};

// The streaming path for one slice (see the file comment), on tiles of
// tile.keys keys. work holds AG_ATTENTION_STREAMING_WORK_FLOATS floats: the
// score tile [kBlockQ, tile.keys rounded up to a multiple of 4] (later its
// exp, P), then per row of the block m and l.
template <class Kernels, class Tile = ProductionTile, class Recorder = NoRecorder>
int32_t streaming_slice(const Slice& sl, float* work, size_t flat0, Tile tile = Tile(), Recorder rec = Recorder()) {
  const int32_t tile_k = tile.keys;
  const int32_t lds = (tile_k + 3) & ~3;  // a score row padded to whole f32x4 groups
  const int32_t Tq = sl.Tq, Tk = sl.Tk, dv = sl.d_v;
  float* S = work;
  float* m = S + static_cast<size_t>(kBlockQ) * kTileK;
  float* l = m + kBlockQ;
  int32_t status = 0;
  for (int32_t i0 = 0; i0 < Tq; i0 += kBlockQ) {
    const int32_t nq = Tq - i0 < kBlockQ ? Tq - i0 : kBlockQ;
    float* O = sl.o + static_cast<ptrdiff_t>(i0) * sl.o_st;
    for (int32_t r = 0; r < nq; ++r) {
      m[r] = -INFINITY;
      l[r] = 0.0f;
      float* orow = O + static_cast<ptrdiff_t>(r) * sl.o_st;
      for (int32_t x = 0; x < dv; ++x) orow[x] = 0.0f;
    }
    // With causal masking no row of this block sees a key past its last row's.
    const int32_t kend = visible_keys(sl, i0 + nq - 1);
    // With a sliding window no row of this block sees a key before its first row's first key.
    for (int32_t j0 = first_key(sl, i0); j0 < kend; j0 += tile_k) {
      const int32_t nk = kend - j0 < tile_k ? kend - j0 : tile_k;
      const int32_t padded = (nk + 3) & ~3;
      Kernels::scores(sl.q + static_cast<ptrdiff_t>(i0) * sl.q_st, sl.q_st, sl.k + static_cast<ptrdiff_t>(j0) * sl.k_st,
                      sl.k_st, nq, nk, sl.d_k, S, lds);
      for (int32_t r = 0; r < nq; ++r) {
        const int32_t i = i0 + r;
        float* s = S + static_cast<size_t>(r) * lds;
        for (int32_t j = nk; j < padded; ++j) s[j] = -INFINITY;
        int32_t visible = nk;
        if (sl.causal) {
          const int32_t past = visible_keys(sl, i) - j0;  // keys of this tile that row i sees
          visible = past < nk ? (past > 0 ? past : 0) : nk;
        }
        // Keys of this tile before row i's window: 0 without one.
        const int32_t first = first_key(sl, i) - j0;
        const int32_t skip = first <= 0 ? 0 : (first < visible ? first : visible);
        const int32_t jf = j0 + skip;
        const float* mi = sl.mask != nullptr
                              ? sl.mask + static_cast<ptrdiff_t>(i) * sl.m_si + static_cast<ptrdiff_t>(jf) * sl.m_sj
                              : nullptr;
        int32_t bad;
        const float tile_max =
            Kernels::finish_scores(s + skip, nk - skip, visible - skip, sl.scale, sl.softcap, mi, sl.m_sj,
                                   sl.kb != nullptr ? sl.kb + jf : nullptr, alibi_at(sl, i, jf), &bad);
        hide_before(s, skip);
        if (bad >= 0) note_overflow(&status, flat0 + static_cast<size_t>(i) * Tk + jf + bad);
        const float m_new = tile_max > m[r] ? tile_max : m[r];
        if (m_new == -INFINITY) {
          // Nothing visible to this row yet: the tile adds nothing (P = 0).
          for (int32_t j = 0; j < nk; ++j) s[j] = 0.0f;
          rec.tile(r, i, jf, visible - skip, tile_max, m[r], m_new, 1.0f, l[r], bad);
          continue;
        }
        const float tile_sum = Kernels::exp_row(s, nk, m_new);
        float c = 1.0f;
        if (m[r] == -INFINITY) {
          l[r] = tile_sum;  // the first visible tile: O holds only zeros so far
        } else if (m_new != m[r]) {
          // A larger max: the old terms shrink by c = exp(m - m') < 1. (An
          // unchanged max needs nothing: exp(0) would be exactly 1.)
          c = Kernels::exp1(m[r] - m_new);
          l[r] = l[r] * c + tile_sum;
          Kernels::scale_row(O + static_cast<ptrdiff_t>(r) * sl.o_st, dv, c);
        } else {
          l[r] += tile_sum;
        }
        rec.tile(r, i, jf, visible - skip, tile_max, m[r], m_new, c, l[r], bad);
        m[r] = m_new;
      }
      Kernels::accumulate(S, lds, sl.v + static_cast<ptrdiff_t>(j0) * sl.v_st, sl.v_st, nq, nk, dv, O, sl.o_st);
      rec.tile_done(O, sl.o_st, nq, dv);
    }
    for (int32_t r = 0; r < nq; ++r) {
      float* orow = O + static_cast<ptrdiff_t>(r) * sl.o_st;
      if (m[r] == -INFINITY) {
        for (int32_t x = 0; x < dv; ++x) orow[x] = 0.0f;  // no visible key: +0, never 0/0
        rec.output(i0 + r, m[r], l[r], orow, dv);
        continue;
      }
      Kernels::divide_row(orow, dv, l[r]);  // l >= 1: the max's own term is exp(0) = 1
      bool finite = true;
      for (int32_t x = 0; x < dv; ++x) finite = finite && isfinite(orow[x]);
      if (!finite) renormalized_row<Kernels>(sl, i0 + r, m[r], l[r], S, orow);
      rec.output(i0 + r, m[r], l[r], orow, dv);
    }
  }
  return status;
}

// Scaled dot-product attention over the B x H slices of *d (§3.2.1).
// slopes: ALiBi's m_h per query head [H], or null. Returns 0, or 1 + the
// flat [B, H, Tq, Tk] index of the first score that overflowed float32
// (overflow.h).
template <class Kernels>
int32_t attention(const float* q, const float* k, const float* v, const float* mask, const float* key_bias,
                  const float* slopes, float scale, float softcap, const ag_attention_dims* d, float* out,
                  float* weights, float* scores, float* work) {
  const int32_t Tq = d->Tq, Tk = d->Tk;
  const int32_t group = d->kv_group > 1 ? d->kv_group : 1;  // query heads per key/value head
  // With one query per head (Tq = 1, a decoding step) on the streaming path, the query heads that read the
  // same K and V (the `group` of a key/value head, or every head when K and V broadcast over the heads) are
  // the rows of one slice (heads_as_rows): each K and V row is then read once for them all, and the
  // simd128 GEMMs get that many rows instead of one. Row by row, every operation and its order are those
  // of a slice per head, so the results are the same bit for bit. ALiBi (a slope per head) keeps a slice
  // per head.
  const bool kv_broadcast = d->k_sh == 0 && d->v_sh == 0;
  const int32_t rows = d->streaming != 0 && Tq == 1 && slopes == nullptr
                           ? (group > 1 ? group : (kv_broadcast ? d->H : 1))
                           : 1;  // query heads per slice
  int32_t status = 0;
  for (int32_t b = 0; b < d->B; ++b) {
    for (int32_t h = 0; h < d->H; h += rows) {
      const int32_t hkv = h / group;  // the key/value head this query head reads (shared, not copied)
      Slice sl;
      sl.q = q + static_cast<ptrdiff_t>(b) * d->q_sb + static_cast<ptrdiff_t>(h) * d->q_sh;
      sl.k = k + static_cast<ptrdiff_t>(b) * d->k_sb + static_cast<ptrdiff_t>(hkv) * d->k_sh;
      sl.v = v + static_cast<ptrdiff_t>(b) * d->v_sb + static_cast<ptrdiff_t>(hkv) * d->v_sh;
      sl.o = out + static_cast<ptrdiff_t>(b) * d->o_sb + static_cast<ptrdiff_t>(h) * d->o_sh;
      sl.mask =
          mask != nullptr ? mask + static_cast<ptrdiff_t>(b) * d->m_sb + static_cast<ptrdiff_t>(h) * d->m_sh : nullptr;
      sl.kb = key_bias != nullptr ? key_bias + static_cast<ptrdiff_t>(b) * d->kb_sb : nullptr;
      sl.q_st = d->q_st, sl.k_st = d->k_st, sl.v_st = d->v_st, sl.o_st = d->o_st;
      sl.m_si = d->m_si, sl.m_sj = d->m_sj;
      sl.Tq = Tq, sl.Tk = Tk, sl.d_k = d->d_k, sl.d_v = d->d_v;
      sl.heads_as_rows = rows > 1;
      if (sl.heads_as_rows) {
        // Row r is query head h + r: its rows of Q, the output and the mask are a head apart.
        sl.q_st = d->q_sh, sl.o_st = d->o_sh, sl.m_si = d->m_sh;
        sl.Tq = rows;
      }
      sl.causal = d->causal != 0;
      sl.causal_offset = d->causal_offset;
      sl.window = d->window;
      sl.scale = scale;
      sl.softcap = softcap > 0.0f ? softcap : 0.0f;
      sl.slope = slopes != nullptr ? slopes[h] : 0.0f;
      sl.scores_stage = scores != nullptr && !d->streaming ? d->scores_stage : 0;
      // Offset of this slice's rows in the contiguous [B, H, Tq, Tk] outputs
      // and in the status's flat index (with heads as rows, Tq = 1: row r at
      // flat0 + r Tk, as head h + r's own slice would say).
      const size_t flat0 = (static_cast<size_t>(b) * d->H + static_cast<size_t>(h)) * Tq * Tk;
      int32_t st;
      if (d->streaming) {
        st = streaming_slice<Kernels>(sl, work, flat0);
      } else {
        // The grid lives in scores when asked for, else in weights, else in
        // work; the weights go to weights, or to a row of work when only the
        // scores are kept, or over the grid.
        float* S = scores != nullptr ? scores + flat0 : (weights != nullptr ? weights + flat0 : work);
        float* W = weights != nullptr ? weights + flat0 : nullptr;
        float* row = scores != nullptr && weights == nullptr ? work : nullptr;
        st = materialized_slice<Kernels>(sl, S, W, row, flat0);
      }
      // Slices run in flat order: an earlier slice's overflow comes first.
      if (status == 0) status = st;
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

// Rotates, in place, the heads of X [rows of T tokens, heads * d_k] (row
// stride `stride`) by the table C, S [T, d_k] of rope.h: each head's d_k
// channels of token t as one rope row (Su et al. 2021), through tmp [d_k].
template <class Kernels>
void rotate_heads(float* X, int32_t rows, int32_t T, int32_t heads, int32_t dk, ptrdiff_t stride, const float* C,
                  const float* S, bool interleaved, float* tmp) {
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t t = 0; t < T; ++t)
      for (int32_t hh = 0; hh < heads; ++hh) {
        float* x = X + (static_cast<ptrdiff_t>(r) * T + t) * stride + static_cast<ptrdiff_t>(hh) * dk;
        const size_t trow = static_cast<size_t>(t) * dk;
        Kernels::rope_row(x, C + trow, S + trow, dk, interleaved, tmp);
        for (int32_t c = 0; c < dk; ++c) x[c] = tmp[c];
      }
}

// Multi-head attention (§3.2.2). work is laid out as in
// ag_mha_workspace_floats (attention_workspace.cc). Returns attention's status
// for the per-head scores ([B, h, Tq, Tk] index).
template <class Kernels>
int32_t multi_head_attention(const float* xq, const float* xk, const float* xv, const float* wq, const float* wk,
                             const float* wv, const float* wo, const float* bq, const float* bk, const float* bv,
                             const float* bo, const float* mask, const float* key_bias, float scale, double rope_base,
                             const ag_mha_dims* d, float* out, float* weights, float* work) {
  const int32_t B = d->B, Tq = d->Tq, Tk = d->Tk, dm = d->d_model, h = d->h;
  const int32_t dk = dm / h;
  const int32_t hkv = d->h_kv > 0 ? d->h_kv : h;  // key/value heads (grouped-query attention when < h)
  const int32_t dkv = hkv * dk;                   // the columns of K and V
  const size_t nq = static_cast<size_t>(B) * Tq * dm, nk = static_cast<size_t>(B) * Tk * dkv;
  float* Q = work;           // [B, Tq, d_model]
  float* K = Q + nq;         // [B, Tk, h_kv d_k]
  float* V = K + nk;         // [B, Tk, h_kv d_k]
  float* heads = V + nk;     // [B, Tq, d_model]: head i in columns i*d_k ..
  float* rest = heads + nq;  // with rope: the table [2, max(Tq, Tk), d_k] and a row [d_k]; then
                             // the attention's work (ag_mha_workspace_floats)
  const int32_t Tr = Tq > Tk ? Tq : Tk;
  float* attn_work = d->rope ? rest + 2 * static_cast<size_t>(Tr) * dk + dk : rest;

  // The projections treat [B, T, d_model] as [B*T, d_model] row vectors.
  Kernels::matmul(xq, wq, B * Tq, dm, dm, Q);
  add_bias(Q, bq, B * Tq, dm);
  Kernels::matmul(xk, wk, B * Tk, dm, dkv, K);
  add_bias(K, bk, B * Tk, dkv);
  Kernels::matmul(xv, wv, B * Tk, dm, dkv, V);
  add_bias(V, bv, B * Tk, dkv);

  if (d->rope) {
    // Token t of the queries and of the keys at position t: one table for both.
    rope::table(nullptr, Tr, dk, rope_base, d->rope_interleaved != 0, rest);
    const float* C = rest;
    const float* S = rest + static_cast<size_t>(Tr) * dk;
    float* tmp = rest + 2 * static_cast<size_t>(Tr) * dk;
    rotate_heads<Kernels>(Q, B, Tq, h, dk, dm, C, S, d->rope_interleaved != 0, tmp);
    rotate_heads<Kernels>(K, B, Tk, hkv, dk, dkv, C, S, d->rope_interleaved != 0, tmp);
  }

  // Head i of Q is the [Tq, d_k] slice starting at column i*d_k with row
  // stride d_model: split and concat are strides, not copies. Query head i
  // reads key/value head i / (h / h_kv).
  ag_attention_dims ad;
  ad.B = B;
  ad.H = h;
  ad.Tq = Tq;
  ad.Tk = Tk;
  ad.d_k = dk;
  ad.d_v = dk;
  ad.q_sb = Tq * dm, ad.q_sh = dk, ad.q_st = dm;
  ad.k_sb = Tk * dkv, ad.k_sh = dk, ad.k_st = dkv;
  ad.v_sb = Tk * dkv, ad.v_sh = dk, ad.v_st = dkv;
  ad.o_sb = Tq * dm, ad.o_sh = dk, ad.o_st = dm;
  ad.m_sb = d->m_sb, ad.m_sh = d->m_sh, ad.m_si = d->m_si, ad.m_sj = d->m_sj;
  ad.kb_sb = d->kb_sb;
  ad.kv_group = h / hkv;
  ad.causal = d->causal;
  ad.causal_offset = 0;
  ad.window = 0;
  ad.streaming = d->streaming;
  ad.scores_stage = 0;
  const int32_t status =
      attention<Kernels>(Q, K, V, mask, key_bias, nullptr, scale, 0.0f, &ad, heads, weights, nullptr, attn_work);

  Kernels::matmul(heads, wo, B * Tq, dm, dm, out);
  add_bias(out, bo, B * Tq, dm);
  return status;
}

}  // namespace attention_detail
}  // namespace ag

#endif  // AG_ATTENTION_IMPL_H_
