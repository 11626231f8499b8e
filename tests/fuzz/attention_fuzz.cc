// Fuzz target for the family "attention" (registry.inc): attention (both
// paths) and multi_head_attention, both variants. Each input is one of the
// two (its first choice).
//
// attention. Input: B, H, Tq, Tk, d_k, d_v (Tq past one query block of 64 or
// Tk past one key tile of 64 now and then), the layout ([B, H, T, d] or heads
// interleaved [B, T, H*d], rows padded by 0..3 floats), finite q, k, v, an
// optional mask with any of its four axes broadcast (stride 0), an optional
// key bias ([B, Tk] or broadcast over batches), mask and bias entries possibly
// -Infinity, a scale (1/sqrt(d_k) or any finite float), causal, a window,
// and one time in three ALiBi slopes per head (the paper's, 0, or any finite
// float; with or without causal, with a query offset). Each
// variant runs the materialized path with weights and scores, again with
// some of them left out, with the scores before the mask (scores_stage 1 or
// 2), and the streaming path; work buffers hold exactly the floats
// registry.inc asks for.
// Asserted, besides no sanitizer report:
//  - the status is the same on all three runs; it is 0 when no score can
//    overflow (magnitudes below kSafe);
//  - with status 0: a score that is not hidden is finite; each score within
//    its variant's bound of the float64 reference of tests/cpp (scores_c of
//    tests/cpp/attention_test.cc) where magnitudes allow; hidden keys (causal,
//    or a -Infinity mask or bias) have score -Infinity and weight +0; each
//    weights row is this variant's softmax kernel of its scores row, bit for
//    bit (registry.inc), and passes fuzz_softmax_row.h; each output is within
//    (ceil(log2 Tk) + 5) u sum_j a_ij |v_jc| of sum_j a_ij v_jc in double with
//    the kernel's own weights; a row with no visible key outputs +0;
//  - the output does not depend on which of weights and scores are asked
//    for, bit for bit, and neither do the weights and scores themselves;
//  - with scores_stage 1 or 2, the output and weights are stage 0's and the
//    scores those of the call with no mask, bias, ALiBi, causal or window
//    (and no cap for 2), bit for bit; the status is the first of both;
//  - streaming: within registry.inc's streaming bound (expm1 of it, with D_i
//    = u max_j |s_ij - max_j s_ij| on the float scores) of the attention of
//    the materialized path's float scores in double;
//  - nothing is written outside the output's strided elements.
//
// multi_head_attention. Input: B, Tq, Tk, h, d_k (d_model = h d_k), h_kv (a
// divisor of h: shared key/value heads), rope (none, interleaved or
// half-split, two bases; even d_k), finite inputs and projection weights,
// optional biases, mask and key bias as above over [B, h, Tq, Tk], scale,
// causal, streaming, weights asked for or not.
// Asserted: the output, the weights and the status are, bit for bit, what
// registry.inc says the kernel is made of: this variant's matmul plus the bias
// for each projection, this variant's rope on each head of q and k (token t at
// position t), this variant's attention over the heads read in place ([B, T,
// h*d_k] strides, key/value head i / (h / h_kv)), the output projection likewise; the status is 0
// and the output finite when magnitudes cannot overflow.
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "attention_trace.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "fuzz_softmax_row.h"
#include "kernels.h"
#include "reference_attention.h"
#include "reference_rope.h"

namespace ag::fuzz {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Floats spanned by a strided [B, H, T, d] tensor: the last element's index + 1.
size_t span(int32_t B, int32_t H, int32_t T, int32_t d, int32_t sb, int32_t sh, int32_t st) {
  return static_cast<size_t>(B - 1) * sb + static_cast<size_t>(H - 1) * sh + static_cast<size_t>(T - 1) * st +
         static_cast<size_t>(d);
}
size_t at(int32_t b, int32_t h, int32_t t, int32_t c, int32_t sb, int32_t sh, int32_t st) {
  return static_cast<size_t>(b) * sb + static_cast<size_t>(h) * sh + static_cast<size_t>(t) * st + c;
}

// Strides of one tensor: [B, H, T, d] contiguous, or [B, T, H*d] with heads
// interleaved; each row padded by pad floats.
void strides(bool interleaved, int32_t H, int32_t T, int32_t d, int32_t pad, int32_t* sb, int32_t* sh, int32_t* st) {
  if (interleaved) {
    *st = H * d + pad, *sh = d, *sb = T * *st;
  } else {
    *st = d + pad, *sh = T * *st, *sb = H * *sh;
  }
}

// A mask over [B, H, Tq, Tk] with each axis dense or broadcast; sets the
// strides in *d and returns the number of floats.
size_t mask_floats(Input& in, int32_t B, int32_t H, int32_t Tq, int32_t Tk, int32_t* m_sb, int32_t* m_sh, int32_t* m_si,
                   int32_t* m_sj) {
  const bool bb = in.flag(), bh = in.flag(), bi = in.flag(), bj = in.flag();
  const int32_t nj = bj ? 1 : Tk, ni = bi ? 1 : Tq, nh = bh ? 1 : H, nb = bb ? 1 : B;
  *m_sj = bj ? 0 : 1;
  *m_si = bi ? 0 : nj;
  *m_sh = bh ? 0 : ni * nj;
  *m_sb = bb ? 0 : nh * ni * nj;
  return static_cast<size_t>(nb) * nh * ni * nj;
}

// Dims for B, H, Tq, Tk, d_k, d_v from the input: the layout ([B, H, T, d] or
// heads interleaved, rows padded by 0..3 floats), shared key/value heads (all
// H query heads reading one, or each its own), causal, and with causal now
// and then a query offset (a KV cache of that many keys, or, negative, fewer
// valid keys than queries).
ag_attention_dims random_layout(Input& in, int32_t B, int32_t H, int32_t Tq, int32_t Tk, int32_t dk, int32_t dv) {
  const bool interleaved = in.flag();
  const int32_t g = H > 1 && in.flag() ? H : 1, Hkv = H / g;
  ag_attention_dims d{};
  d.B = B, d.H = H, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv, d.kv_group = g;
  strides(interleaved, H, Tq, dk, in.size(0, 3), &d.q_sb, &d.q_sh, &d.q_st);
  strides(interleaved, Hkv, Tk, dk, in.size(0, 3), &d.k_sb, &d.k_sh, &d.k_st);
  strides(interleaved, Hkv, Tk, dv, in.size(0, 3), &d.v_sb, &d.v_sh, &d.v_st);
  strides(interleaved, H, Tq, dv, in.size(0, 3), &d.o_sb, &d.o_sh, &d.o_st);
  d.causal = in.flag() ? 1 : 0;
  d.causal_offset = d.causal && in.flag() ? in.size(0, Tk + Tq) - Tq : 0;
  return d;
}

// ---------------------------------------------------------------------------
// attention
// ---------------------------------------------------------------------------

struct Problem {
  ag_attention_dims d{};
  Buffer q, k, v, mask, kb;
  bool has_mask = false, has_kb = false;
  float scale = 1.0f;
  float softcap = 0.0f;       // > 0: scores capped to softcap tanh(x / softcap) before the mask
  std::vector<float> slopes;  // ALiBi's m_h [H], or empty
  const float* slopes_ptr() const { return slopes.empty() ? nullptr : slopes.data(); }
  // |m_h (i + P - j)|: the ALiBi bias's magnitude.
  double alibi_abs(int32_t h, int32_t i, int32_t j) const {
    return slopes.empty() ? 0.0
                          : std::fabs(static_cast<double>(slopes[h]) * (static_cast<double>(i) + d.causal_offset - j));
  }
  Problem(Buffer q_, Buffer k_, Buffer v_, Buffer mask_, Buffer kb_)
      : q(std::move(q_)), k(std::move(k_)), v(std::move(v_)), mask(std::move(mask_)), kb(std::move(kb_)) {}
  const float* mask_ptr() const { return has_mask ? mask.data() : nullptr; }
  const float* kb_ptr() const { return has_kb ? kb.data() : nullptr; }
  float mask_at(int32_t b, int32_t h, int32_t i, int32_t j) const {
    return has_mask ? mask[static_cast<size_t>(b) * d.m_sb + static_cast<size_t>(h) * d.m_sh +
                           static_cast<size_t>(i) * d.m_si + static_cast<size_t>(j) * d.m_sj]
                    : 0.0f;
  }
  float kb_at(int32_t b, int32_t j) const { return has_kb ? kb[static_cast<size_t>(b) * d.kb_sb + j] : 0.0f; }
  bool hidden(int32_t b, int32_t h, int32_t i, int32_t j) const {
    const bool outside = d.causal && (j > i + d.causal_offset || (d.window > 0 && j <= i + d.causal_offset - d.window));
    return outside || mask_at(b, h, i, j) == -kInf || kb_at(b, j) == -kInf;
  }
};

struct Run {
  int32_t status;
  Buffer out, weights, scores;
};

// One call: weights and scores as asked, the work buffer as registry.inc
// sizes it, the scores at dims scores_stage `stage`. plain 1 or 2: the call
// with no mask, key bias, ALiBi, causal or window (and no cap for 2), whose
// scores are what stages 1 and 2 keep.
Run run(Variant v, const Problem& p, bool streaming, bool want_weights, bool want_scores, Input& in, int32_t stage = 0,
        int32_t plain = 0) {
  ag_attention_dims d = p.d;
  d.streaming = streaming ? 1 : 0;
  d.scores_stage = stage;
  if (plain != 0) d.causal = 0, d.causal_offset = 0, d.window = 0;
  const size_t grid = static_cast<size_t>(d.B) * d.H * d.Tq * d.Tk;
  Run r{0, in.output(span(d.B, d.H, d.Tq, d.d_v, d.o_sb, d.o_sh, d.o_st)), in.output(want_weights ? grid : 0),
        in.output(want_scores ? grid : 0)};
  const size_t work_floats = streaming                       ? AG_ATTENTION_STREAMING_WORK_FLOATS
                             : (want_weights || want_scores) ? static_cast<size_t>(d.Tk)
                                                             : static_cast<size_t>(d.Tq) * d.Tk;
  Buffer work = in.output(work_floats);
  r.status = AG_FUZZ_VARIANT(attention, v)(
      p.q.data(), p.k.data(), p.v.data(), plain ? nullptr : p.mask_ptr(), plain ? nullptr : p.kb_ptr(),
      plain ? nullptr : p.slopes_ptr(), p.scale, plain == 2 ? 0.0f : p.softcap, &d, r.out.data(),
      want_weights ? r.weights.data() : nullptr, want_scores ? r.scores.data() : nullptr, work.data());
  return r;
}

// Every output element the strides address, and nothing else, was written.
void check_untouched(Variant v, const Problem& p, const Run& r, const char* what) {
  const ag_attention_dims& d = p.d;
  std::vector<char> addressed(r.out.size(), 0);
  for (int32_t b = 0; b < d.B; ++b)
    for (int32_t h = 0; h < d.H; ++h)
      for (int32_t i = 0; i < d.Tq; ++i)
        for (int32_t c = 0; c < d.d_v; ++c) addressed[at(b, h, i, c, d.o_sb, d.o_sh, d.o_st)] = 1;
  for (size_t q = 0; q < addressed.size(); ++q)
    if (!addressed[q])
      AG_FUZZ_CHECK(std::isnan(r.out[q]), "%s attention %s: wrote %.9g at float %zu, between the output's rows",
                    name(v), what, r.out[q], q);
}

void check_same(Variant v, const Buffer& a, const Buffer& b, const char* what) {
  for (size_t q = 0; q < a.size() && q < b.size(); ++q)
    AG_FUZZ_CHECK(same(a[q], b[q]), "%s attention: %s float %zu differs: %.9g and %.9g", name(v), what, q, a[q], b[q]);
}

// scores_stage 1 or 2 (the scores before the mask, in the same pass): the
// output and the weights are those of stage 0 bit for bit, the scores those
// of the plain call bit for bit (the same finish of the same q.k row), and
// the status the first overflow of either.
void check_stages(Variant v, const Problem& p, Input& in) {
  const int32_t stage = in.size(1, 2);
  const bool want_weights = in.flag();
  const Run full = run(v, p, false, true, true, in);
  const Run plain = run(v, p, false, false, true, in, 0, stage);
  const Run staged = run(v, p, false, want_weights, true, in, stage);
  const int32_t first =
      full.status == 0 || plain.status == 0 ? std::max(full.status, plain.status) : std::min(full.status, plain.status);
  AG_FUZZ_CHECK(staged.status == first, "%s attention scores_stage %d: status %d, %d and %d without the stage", name(v),
                stage, staged.status, full.status, plain.status);
  check_untouched(v, p, staged, "materialized, scores before the mask");
  check_same(v, full.out, staged.out, "the output with scores before the mask:");
  if (want_weights) check_same(v, full.weights, staged.weights, "the weights with scores before the mask:");
  check_same(v, plain.scores, staged.scores, "the scores before the mask and those of the plain call:");
}

void check_attention(Variant v, const Problem& p, const reference::AttentionResult& ref,
                     const std::vector<double>& raw_abs, bool safe, Input& in) {
  const ag_attention_dims& d = p.d;
  const Run full = run(v, p, false, true, true, in);
  const int mode = in.size(0, 2);  // weights only, scores only, neither
  const Run part = run(v, p, false, mode == 0, mode == 1, in);
  const Run stream = run(v, p, true, false, false, in);
  AG_FUZZ_CHECK(full.status == part.status && full.status == stream.status,
                "%s attention: status %d with weights and scores, %d with some left out, %d streaming", name(v),
                full.status, part.status, stream.status);
  if (safe) AG_FUZZ_CHECK(full.status == 0, "%s attention: status %d, yet no score can overflow", name(v), full.status);
  check_untouched(v, p, full, "materialized");
  check_untouched(v, p, part, "materialized, some outputs left out");
  check_untouched(v, p, stream, "streaming");
  check_same(v, full.out, part.out, "the output with and without weights and scores:");
  if (mode == 0) check_same(v, full.weights, part.weights, "the weights with and without scores:");
  if (mode == 1) check_same(v, full.scores, part.scores, "the scores with and without weights:");
  if (full.status != 0) return;  // the JS layer throws a RangeError

  const double dc = dot_c(v, d.d_k);
  const double u_mix = (ceil_log2(d.Tk) + 5.0) * kU;
  const double n_t = (d.Tk + AG_ATTENTION_TILE_K - 1) / AG_ATTENTION_TILE_K;
  const double g = v == Variant::kScalar ? ceil_log2(AG_ATTENTION_TILE_K) + 6.0 : AG_ATTENTION_TILE_K + 2.0;
  Buffer zeros(d.Tk, in.offset(), 0.0f), softmax(d.Tk, in.offset(), 0.0f);
  for (int32_t b = 0; b < d.B; ++b) {
    for (int32_t h = 0; h < d.H; ++h) {
      for (int32_t i = 0; i < d.Tq; ++i) {
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        const float* s = full.scores.data() + row * d.Tk;
        const float* a = full.weights.data() + row * d.Tk;
        // Scores.
        float m = -kInf;
        for (int32_t j = 0; j < d.Tk; ++j) {
          const size_t q = row * d.Tk + j;
          if (p.hidden(b, h, i, j)) {
            AG_FUZZ_CHECK(s[j] == -kInf, "%s attention: hidden key (%d,%d,%d,%d) has score %.9g", name(v), b, h, i, j,
                          s[j]);
            continue;
          }
          AG_FUZZ_CHECK(std::isfinite(s[j]), "%s attention: status 0, yet score (%d,%d,%d,%d) is %.9g", name(v), b, h,
                        i, j, s[j]);
          m = std::max(m, s[j]);
          const double sa = ref.score_abs[q], ma = std::fabs(p.mask_at(b, h, i, j)), ka = std::fabs(p.kb_at(b, j));
          const double ba = p.alibi_abs(h, i, j);
          if (raw_abs[q] <= kSafe && sa + ma + ka + ba <= kSafe) {
            // A soft cap passes the error on at most and adds at most 6 c u; ALiBi its product's
            // rounding and one more addition (registry.inc).
            const double adds = p.slopes.empty() ? 3.0 : 4.0;
            const double tol = 1.01 * (dc * sa + adds * kU * (sa + ma + ka + ba) + kU * ba + 6.0 * p.softcap * kU) +
                               double_slack(d.d_k, sa) + (d.d_k * std::fabs(p.scale) + 4.0) * kTiny;
            AG_FUZZ_CHECK(near(s[j], ref.scores[q], tol),
                          "%s attention score (%d,%d,%d,%d): %.9g, reference %.17g tol %.3g", name(v), b, h, i, j, s[j],
                          ref.scores[q], tol);
          }
        }
        // Weights: this variant's softmax of the scores row (as an additive
        // mask over zero logits: z = 0 + s = s), bit for bit, and a softmax.
        AG_FUZZ_VARIANT(softmax, v)(zeros.data(), s, 1, d.Tk, 1.0f, softmax.data());
        for (int32_t j = 0; j < d.Tk; ++j)
          AG_FUZZ_CHECK(bits(a[j]) == bits(softmax[j]),
                        "%s attention weight (%d,%d,%d,%d): %.9g, the softmax kernel gives %.9g", name(v), b, h, i, j,
                        a[j], softmax[j]);
        check_softmax_row(v, "attention weights", s, a, d.Tk, static_cast<int64_t>(row));
        // Outputs.
        std::vector<double> star(d.Tk, 0.0);  // the softmax of the float scores, in double
        double D = 0.0;
        if (m != -kInf) {
          double total = 0.0;
          for (int32_t j = 0; j < d.Tk; ++j) total += (star[j] = std::exp(static_cast<double>(s[j] - m)));
          for (int32_t j = 0; j < d.Tk; ++j) {
            star[j] /= total;
            if (s[j] != -kInf) D = std::max(D, kU * std::fabs(static_cast<double>(s[j]) - m));
          }
        }
        const double stream_rel = std::expm1(
            1.01 * (2.0 * D + 2.0 * n_t * exp_rel(v) + (g + AG_ATTENTION_TILE_K / 4 + 4.0 * n_t - 1.0) * kU));
        for (int32_t c = 0; c < d.d_v; ++c) {
          const size_t o = at(b, h, i, c, d.o_sb, d.o_sh, d.o_st);
          const float y = full.out[o], ys = stream.out[o];
          if (m == -kInf) {
            AG_FUZZ_CHECK(bits(y) == 0u && bits(ys) == 0u,
                          "%s attention: no visible key, yet outputs %.9g and %.9g (streaming)", name(v), y, ys);
            continue;
          }
          double want = 0.0, mag = 0.0, want_s = 0.0, mag_s = 0.0, vmax = 0.0;
          for (int32_t j = 0; j < d.Tk; ++j) {
            const double vj = p.v[at(b, h / std::max(d.kv_group, 1), j, c, d.v_sb, d.v_sh, d.v_st)];
            want += a[j] * vj;
            mag += a[j] * std::fabs(vj);
            want_s += star[j] * vj;
            mag_s += star[j] * std::fabs(vj);
            vmax = std::max(vmax, std::fabs(vj));
          }
          if (mag <= kSafe) {
            const double tol = 1.01 * u_mix * mag + double_slack(d.Tk, mag) + d.Tk * kTiny;
            AG_FUZZ_CHECK(near(y, want, tol), "%s attention output (%d,%d,%d,%d): %.9g, sum_j a_j v_j = %.17g tol %.3g",
                          name(v), b, h, i, c, y, want, tol);
          }
          if (mag_s <= kSafe) {
            // (A spread of scores near FLT_MAX makes stream_rel infinite: no
            // bound then, unless every value is 0.)
            const double rel_part = mag_s > 0.0 ? stream_rel * mag_s : 0.0;
            const double tol = rel_part + double_slack(d.Tk, mag_s) + 4.0 * d.Tk * n_t * kTinyAbs * (vmax + 1.0);
            AG_FUZZ_CHECK(near(ys, want_s, tol),
                          "%s streaming attention output (%d,%d,%d,%d) Tq=%d Tk=%d: %.9g, the softmax of the scores "
                          "mixed in double %.17g tol %.3g (materialized %.9g)",
                          name(v), b, h, i, c, d.Tq, d.Tk, ys, want_s, tol, y);
          }
        }
      }
    }
  }
}

void fuzz_attention(Input& in) {
  int32_t B = in.size(1, 2), H = in.size(1, 3), Tq = in.size(1, 12), Tk = in.size(1, 12);
  if (in.chance(48))
    Tk = in.size(60, 140), Tq = in.size(1, 8);
  else if (in.chance(48))
    Tq = in.size(60, 70), Tk = in.size(1, 80);
  if (static_cast<int64_t>(B) * H * Tq * Tk > 6000) B = 1, H = 1;
  const int32_t dk = in.size(1, 20), dv = in.size(1, 20);
  ag_attention_dims d = random_layout(in, B, H, Tq, Tk, dk, dv);
  const int32_t g = d.kv_group, Hkv = H / g;
  const bool has_mask = in.flag();
  const size_t nm = has_mask ? mask_floats(in, B, H, Tq, Tk, &d.m_sb, &d.m_sh, &d.m_si, &d.m_sj) : 0;
  const bool has_kb = in.flag();
  d.kb_sb = has_kb && in.flag() ? Tk : 0;
  const int hide = in.size(0, 255);
  Problem p(in.values(span(B, H, Tq, dk, d.q_sb, d.q_sh, d.q_st)),
            in.values(span(B, Hkv, Tk, dk, d.k_sb, d.k_sh, d.k_st)),
            in.values(span(B, Hkv, Tk, dv, d.v_sb, d.v_sh, d.v_st)), in.values_or_neg_inf(nm, hide),
            in.values_or_neg_inf(has_kb ? (d.kb_sb ? static_cast<size_t>(B) * Tk : Tk) : 0, hide / 2));
  p.d = d;
  p.has_mask = has_mask;
  p.has_kb = has_kb;
  p.scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(dk)) : in.finite();
  constexpr float kCaps[] = {0.0f, 0.5f, 4.0f, 50.0f};  // no cap, then hard to light
  p.softcap = kCaps[in.size(0, 3)];
  // With causal, one time in two a sliding window of 1 to Tk + 1 keys.
  if (d.causal && in.flag()) d.window = in.size(1, Tk + 1);
  // One time in three ALiBi: the paper's slopes 2^(-8 (h + 1) / H), or per head 0, 1/256, 1/2 or any finite
  // float; without causal, the queries at an offset one time in two.
  if (in.chance(85)) {
    const bool paper = in.flag();
    constexpr float kSlopes[] = {0.0f, 1.0f / 256.0f, 0.5f};
    for (int32_t h = 0; h < H; ++h)
      p.slopes.push_back(paper ? std::exp2(-8.0f * static_cast<float>(h + 1) / H)
                               : (in.flag() ? kSlopes[in.size(0, 2)] : in.finite()));
    if (!d.causal && in.flag()) d.causal_offset = in.size(0, Tk + Tq) - Tq;
  }
  p.d.window = d.window;
  p.d.causal_offset = d.causal_offset;

  const reference::AttentionResult ref = reference::attention(p.q.data(), p.k.data(), p.v.data(), p.mask_ptr(),
                                                              p.kb_ptr(), p.scale, d, p.softcap, p.slopes_ptr());
  // sum_c |q_ic k_jc| per score (bounds the dot's partial sums), and whether
  // any visible score could overflow.
  std::vector<double> raw_abs(static_cast<size_t>(B) * H * Tq * Tk, 0.0);
  bool safe = true;
  for (int32_t b = 0; b < B; ++b)
    for (int32_t h = 0; h < H; ++h)
      for (int32_t i = 0; i < Tq; ++i)
        for (int32_t j = 0; j < Tk; ++j) {
          const size_t q = ((static_cast<size_t>(b) * H + h) * Tq + i) * Tk + j;
          double s = 0.0;
          for (int32_t c = 0; c < dk; ++c)
            s += std::fabs(static_cast<double>(p.q[at(b, h, i, c, d.q_sb, d.q_sh, d.q_st)]) *
                           p.k[at(b, h / g, j, c, d.k_sb, d.k_sh, d.k_st)]);
          raw_abs[q] = s;
          if (d.causal && (j > i + d.causal_offset || (d.window > 0 && j <= i + d.causal_offset - d.window))) continue;
          const float mv = p.mask_at(b, h, i, j), kv = p.kb_at(b, j);
          const double extra =
              (std::isinf(mv) ? 0.0 : std::fabs(mv)) + (std::isinf(kv) ? 0.0 : std::fabs(kv)) + p.alibi_abs(h, i, j);
          if (s > kSafe || std::fabs(p.scale) * s + extra > kSafe) safe = false;
        }
  for (Variant v : kVariants) check_attention(v, p, ref, raw_abs, safe, in);
  for (Variant v : kVariants) check_stages(v, p, in);
}

// ---------------------------------------------------------------------------
// multi_head_attention
// ---------------------------------------------------------------------------

// Y [rows, n] = X W (+ b), X [rows, k] (k = n unless given): this variant's matmul, then the bias added.
std::vector<float> project(Variant v, const float* X, const Buffer& W, const float* bias, int32_t rows, int32_t n,
                           Input& in, int32_t k = 0) {
  Buffer Y = in.output(static_cast<size_t>(rows) * n);
  AG_FUZZ_VARIANT(matmul, v)(X, W.data(), rows, k > 0 ? k : n, n, Y.data());
  std::vector<float> y(Y.data(), Y.data() + Y.size());
  if (bias)
    for (int32_t r = 0; r < rows; ++r)
      for (int32_t c = 0; c < n; ++c) y[static_cast<size_t>(r) * n + c] += bias[c];
  return y;
}

// Largest |X W + b| per column over the rows, bounded in double; X [rows, k] (k = n unless given).
std::vector<double> abs_project(const std::vector<double>& X, const Buffer& W, const float* bias, int32_t rows,
                                int32_t n, int32_t k_in = 0) {
  const int32_t kin = k_in > 0 ? k_in : n;
  std::vector<double> Y(static_cast<size_t>(rows) * n);
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < n; ++c) {
      double s = bias ? std::fabs(bias[c]) : 0.0;
      for (int32_t k = 0; k < kin; ++k)
        s += X[static_cast<size_t>(r) * kin + k] * std::fabs(W[static_cast<size_t>(k) * n + c]);
      Y[static_cast<size_t>(r) * n + c] = s;
    }
  return Y;
}

std::vector<double> widen_abs(const Buffer& x) {
  std::vector<double> y(x.size());
  for (size_t q = 0; q < x.size(); ++q) y[q] = std::fabs(static_cast<double>(x[q]));
  return y;
}

// Turns, in place, each head of X [rows of T tokens, heads d_k] (token t at position t) with this variant's
// rope kernel: the heads gathered into [rows heads, T, d_k], rotated, scattered back.
void rope_heads(Variant v, std::vector<float>& X, int32_t rows, int32_t T, int32_t heads, int32_t dk, double base,
                bool interleaved) {
  const int32_t width = heads * dk;
  const size_t n = static_cast<size_t>(rows) * T * width;
  std::vector<float> g(n), r(n), work(2 * static_cast<size_t>(T) * dk);
  std::vector<double> pos(static_cast<size_t>(T));
  for (int32_t t = 0; t < T; ++t) pos[t] = t;
  auto at = [&](int32_t b, int32_t hh, int32_t t, int32_t c) {
    return (static_cast<size_t>(b) * heads + hh) * T * dk + static_cast<size_t>(t) * dk + c;
  };
  auto in_x = [&](int32_t b, int32_t hh, int32_t t, int32_t c) {
    return (static_cast<size_t>(b) * T + t) * width + static_cast<size_t>(hh) * dk + c;
  };
  for (int32_t b = 0; b < rows; ++b)
    for (int32_t hh = 0; hh < heads; ++hh)
      for (int32_t t = 0; t < T; ++t)
        for (int32_t c = 0; c < dk; ++c) g[at(b, hh, t, c)] = X[in_x(b, hh, t, c)];
  AG_FUZZ_VARIANT(rope, v)(g.data(), pos.data(), rows * heads, T, dk, base, interleaved ? 1 : 0, r.data(), work.data());
  for (int32_t b = 0; b < rows; ++b)
    for (int32_t hh = 0; hh < heads; ++hh)
      for (int32_t t = 0; t < T; ++t)
        for (int32_t c = 0; c < dk; ++c) X[in_x(b, hh, t, c)] = r[at(b, hh, t, c)];
}

void fuzz_mha(Input& in) {
  const int32_t B = in.size(1, 2), Tq = in.size(1, 20), h = in.size(1, 4), dk = in.size(1, 6);
  const int32_t Tk = in.chance(48) ? in.size(60, 70) : in.size(1, 20);
  const int32_t dm = h * dk;
  // Shared key/value heads (a divisor of h; 0 is "h") and rotary positions (even d_k).
  int32_t hkv = in.flag() ? in.size(1, h) : h;
  while (h % hkv != 0) --hkv;
  const int32_t dkv = hkv * dk;
  const int rope = dk % 2 == 0 ? in.size(0, 2) : 0;  // 0: none, 1: interleaved pairs, 2: half-split
  const double rope_base = in.flag() ? 10000.0 : 500000.0;
  ag_mha_dims d{};
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.d_model = dm, d.h = h;
  d.h_kv = hkv == h && in.flag() ? 0 : hkv;
  d.rope = rope != 0, d.rope_interleaved = rope == 1;
  d.causal = in.flag() ? 1 : 0;
  d.streaming = in.flag() ? 1 : 0;
  const bool want_weights = !d.streaming && in.flag();
  const bool has_mask = in.flag();
  const size_t nm = has_mask ? mask_floats(in, B, h, Tq, Tk, &d.m_sb, &d.m_sh, &d.m_si, &d.m_sj) : 0;
  const bool has_kb = in.flag();
  d.kb_sb = has_kb && in.flag() ? Tk : 0;
  const int hide = in.size(0, 255);
  const size_t nq = static_cast<size_t>(B) * Tq * dm, nk = static_cast<size_t>(B) * Tk * dm;
  const size_t nw = static_cast<size_t>(dm) * dm, nwkv = static_cast<size_t>(dm) * dkv;
  const Buffer xq = in.values(nq), xk = in.values(nk), xv = in.values(nk);
  const Buffer wq = in.values(nw), wk = in.values(nwkv), wv = in.values(nwkv), wo = in.values(nw);
  const bool biases[4] = {in.flag(), in.flag(), in.flag(), in.flag()};
  const Buffer bq = in.values(biases[0] ? dm : 0), bk = in.values(biases[1] ? dkv : 0);
  const Buffer bv = in.values(biases[2] ? dkv : 0), bo = in.values(biases[3] ? dm : 0);
  const Buffer mask = in.values_or_neg_inf(nm, hide);
  const Buffer kb = in.values_or_neg_inf(has_kb ? (d.kb_sb ? static_cast<size_t>(B) * Tk : Tk) : 0, hide / 2);
  const float scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(dk)) : in.finite();
  const float* bqp = biases[0] ? bq.data() : nullptr;
  const float* bkp = biases[1] ? bk.data() : nullptr;
  const float* bvp = biases[2] ? bv.data() : nullptr;
  const float* bop = biases[3] ? bo.data() : nullptr;
  const float* mp = has_mask ? mask.data() : nullptr;
  const float* kbp = has_kb ? kb.data() : nullptr;

  // Whether anything can overflow: the projections, the scores, the output.
  std::vector<double> aQ = abs_project(widen_abs(xq), wq, bqp, B * Tq, dm);
  std::vector<double> aK = abs_project(widen_abs(xk), wk, bkp, B * Tk, dkv, dm);
  const std::vector<double> aV = abs_project(widen_abs(xv), wv, bvp, B * Tk, dkv, dm);
  if (rope) {
    // A rotation mixes a pair: |x'_a| <= |x_a| + |x_b| (then each head's pairs bound each other); Q likewise.
    for (std::vector<double>* a : {&aQ, &aK}) {
      std::vector<double>& x = *a;
      for (size_t r = 0; r + dk <= x.size(); r += dk) {
        double m = 0.0;
        for (int32_t c = 0; c < dk; ++c) m = std::max(m, x[r + c]);
        for (int32_t c = 0; c < dk; ++c) x[r + c] = 2.0 * m;
      }
    }
  }
  bool scores_safe = true;
  for (double x : aQ) scores_safe = scores_safe && x <= kSafe;
  for (double x : aK) scores_safe = scores_safe && x <= kSafe;
  for (int32_t b = 0; b < B && scores_safe; ++b)
    for (int32_t hh = 0; hh < h; ++hh)
      for (int32_t i = 0; i < Tq; ++i)
        for (int32_t j = 0; j < Tk; ++j) {
          double s = 0.0;
          for (int32_t c = 0; c < dk; ++c)
            s += aQ[(static_cast<size_t>(b) * Tq + i) * dm + hh * dk + c] *
                 aK[(static_cast<size_t>(b) * Tk + j) * dkv + (hh / (h / hkv)) * dk + c];
          const float mv = mp ? mask[static_cast<size_t>(b) * d.m_sb + static_cast<size_t>(hh) * d.m_sh +
                                     static_cast<size_t>(i) * d.m_si + static_cast<size_t>(j) * d.m_sj]
                              : 0.0f;
          const float kv = kbp ? kb[static_cast<size_t>(b) * d.kb_sb + j] : 0.0f;
          const double extra = (std::isinf(mv) ? 0.0 : std::fabs(mv)) + (std::isinf(kv) ? 0.0 : std::fabs(kv));
          if (s > kSafe || std::fabs(scale) * s + extra > kSafe) scores_safe = false;
        }
  // Each head output is a convex mixture of V rows: at most max_j |V_jc|.
  std::vector<double> head_max(dm, 0.0);
  for (int32_t b = 0; b < B; ++b)
    for (int32_t j = 0; j < Tk; ++j)
      for (int32_t c = 0; c < dm; ++c)
        head_max[c] =
            std::max(head_max[c], aV[(static_cast<size_t>(b) * Tk + j) * dkv + (c / dk / (h / hkv)) * dk + c % dk]);
  bool out_safe = scores_safe;
  for (double x : head_max) out_safe = out_safe && x <= kSafe;
  for (int32_t n = 0; n < dm && out_safe; ++n) {
    double s = bop ? std::fabs(bo[n]) : 0.0;
    for (int32_t c = 0; c < dm; ++c) s += 1.001 * head_max[c] * std::fabs(wo[static_cast<size_t>(c) * dm + n]);
    out_safe = s <= kSafe;
  }

  for (Variant v : kVariants) {
    Buffer out = in.output(nq), weights = in.output(want_weights ? static_cast<size_t>(B) * h * Tq * Tk : 0);
    Buffer work = in.output(ag_mha_workspace_floats(&d));
    const int32_t status = AG_FUZZ_VARIANT(multi_head_attention, v)(
        xq.data(), xk.data(), xv.data(), wq.data(), wk.data(), wv.data(), wo.data(), bqp, bkp, bvp, bop, mp, kbp, scale,
        rope_base, &d, out.data(), want_weights ? weights.data() : nullptr, work.data());

    // The same from the parts registry.inc names: projections, rope on each head, attention on shared heads.
    std::vector<float> Q = project(v, xq.data(), wq, bqp, B * Tq, dm, in);
    std::vector<float> K = project(v, xk.data(), wk, bkp, B * Tk, dkv, in, dm);
    const std::vector<float> V = project(v, xv.data(), wv, bvp, B * Tk, dkv, in, dm);
    if (rope) {
      rope_heads(v, Q, B, Tq, h, dk, rope_base, rope == 1);
      rope_heads(v, K, B, Tk, hkv, dk, rope_base, rope == 1);
    }
    ag_attention_dims ad{};
    ad.B = B, ad.H = h, ad.Tq = Tq, ad.Tk = Tk, ad.d_k = dk, ad.d_v = dk;
    ad.q_sb = Tq * dm, ad.q_sh = dk, ad.q_st = dm;
    ad.k_sb = Tk * dkv, ad.k_sh = dk, ad.k_st = dkv;
    ad.v_sb = Tk * dkv, ad.v_sh = dk, ad.v_st = dkv;
    ad.kv_group = h / hkv;
    ad.o_sb = Tq * dm, ad.o_sh = dk, ad.o_st = dm;
    ad.m_sb = d.m_sb, ad.m_sh = d.m_sh, ad.m_si = d.m_si, ad.m_sj = d.m_sj;
    ad.kb_sb = d.kb_sb, ad.causal = d.causal, ad.streaming = d.streaming;
    Buffer heads = in.output(nq), weights2 = in.output(want_weights ? static_cast<size_t>(B) * h * Tq * Tk : 0);
    Buffer work2 = in.output(d.streaming ? AG_ATTENTION_STREAMING_WORK_FLOATS
                                         : (want_weights ? static_cast<size_t>(Tk) : static_cast<size_t>(Tq) * Tk));
    const int32_t status2 =
        AG_FUZZ_VARIANT(attention, v)(Q.data(), K.data(), V.data(), mp, kbp, nullptr, scale, 0.0f, &ad, heads.data(),
                                      want_weights ? weights2.data() : nullptr, nullptr, work2.data());
    const std::vector<float> out2 = project(v, heads.data(), wo, bop, B * Tq, dm, in);

    AG_FUZZ_CHECK(status == status2, "%s multi_head_attention: status %d, its parts give %d", name(v), status, status2);
    if (scores_safe)
      AG_FUZZ_CHECK(status == 0, "%s multi_head_attention: status %d, yet no score can overflow", name(v), status);
    for (size_t q = 0; q < nq; ++q) {
      AG_FUZZ_CHECK(same(out[q], out2[q]),
                    "%s multi_head_attention B=%d Tq=%d Tk=%d h=%d d_k=%d streaming=%d: output %zu "
                    "is %.9g, its parts give %.9g",
                    name(v), B, Tq, Tk, h, dk, d.streaming, q, out[q], out2[q]);
      if (out_safe && status == 0)
        AG_FUZZ_CHECK(std::isfinite(out[q]), "%s multi_head_attention: output %zu is %.9g", name(v), q, out[q]);
    }
    for (size_t q = 0; q < weights.size(); ++q)
      AG_FUZZ_CHECK(same(weights[q], weights2[q]), "%s multi_head_attention: weight %zu is %.9g, its parts give %.9g",
                    name(v), q, weights[q], weights2[q]);
  }
}

// ---------------------------------------------------------------------------
// rope
// ---------------------------------------------------------------------------

// Rotary positions on any finite x (the input's style: huge, tiny, integer),
// any even d, positions up to 2^24 and bases from 1 up: both variants within
// 4 u (|x_a| + |x_b|) + 3 2^-149 of the float64 rotation (+-Infinity only
// where the exact result is beyond FLT_MAX less that bound), and the same
// floats from both (no reduction). Nothing written outside the output.
void fuzz_rope(Input& in) {
  const int32_t rows = in.size(1, 3), T = in.size(1, 9), d = 2 * in.size(1, 70);
  const bool interleaved = in.flag();
  constexpr double kBases[] = {10000.0, 500000.0, 2.0, 1.0};
  const double base = in.flag() ? kBases[in.size(0, 3)] : 1.0 + in.positive() + 1.0 / in.size(1, 1000);
  std::vector<double> pos(static_cast<size_t>(T));
  // Whole positions up to 2^24, or with a fraction in steps of 1/1024 (below 2^24).
  for (double& m : pos) m = in.size(-(1 << 24) + 1, (1 << 24) - 1) + (in.flag() ? in.size(0, 1023) / 1024.0 : 0.0);
  const size_t n = static_cast<size_t>(rows) * T * d;
  const Buffer x = in.values(n);
  std::vector<float> work(2 * static_cast<size_t>(T) * d);
  std::vector<double> mag;
  const std::vector<double> want = reference::rope(x.data(), pos.data(), rows, T, d, base, interleaved, &mag);
  Buffer first(0, 0, 0.0f);
  for (Variant v : kVariants) {
    Buffer out(n + 4, in.offset(), std::numeric_limits<float>::quiet_NaN());
    AG_FUZZ_VARIANT(rope, v)(x.data(), pos.data(), rows, T, d, base, interleaved ? 1 : 0, out.data(), work.data());
    for (size_t j = n; j < n + 4; ++j)
      AG_FUZZ_CHECK(std::isnan(out[j]), "%s rope: wrote float %zu past the end", name(v), j);
    for (size_t j = 0; j < n; ++j) {
      const double tol = 4.0 * kU * mag[j] + 3.0 * kTiny;
      const float got = out[j];
      const bool ok = std::isinf(got) ? std::fabs(want[j]) >= FLT_MAX - tol && (got > 0) == (want[j] > 0)
                                      : std::fabs(got - want[j]) <= tol;
      AG_FUZZ_CHECK(ok, "%s rope: element %zu is %.9g, float64 %.17g (tol %.3g; rows=%d T=%d d=%d base=%.9g)", name(v),
                    j, got, want[j], tol, rows, T, d, base);
    }
    if (v == Variant::kScalar) {
      first = std::move(out);
    } else {
      for (size_t j = 0; j < n; ++j)
        AG_FUZZ_CHECK(std::memcmp(&first[j], &out[j], sizeof(float)) == 0,
                      "rope: the variants differ at %zu: %.9g, %.9g", j, first[j], out[j]);
    }
  }
}

// attention_trace: one head [Tq, d_k] x [Tk, d_k] (Tq up to one block of 64,
// Tk past one production tile now and then), causal or not, with a small
// tile and with the production tile. Asserted: the record count is what the
// kernel reports and the traced run never writes past its buffers; per row
// the tiles come in key order, m = max(m before, tile max) and a correction
// other than 1 only where m grew; the output records hold the output; with
// the production tile the output is attention's streaming output bit for
// bit (the same template runs), and with status 0 there, neither has a NaN.
void fuzz_attention_trace(Input& in) {
  const int32_t Tq = in.size(1, 64), Tk = in.chance(40) ? in.size(250, 600) : in.size(1, 40);
  const int32_t dk = in.size(1, 9), dv = in.size(1, 9);
  const bool causal = in.flag();
  constexpr int32_t kSmall[] = {2, 3, 4, 6, 8};
  const int32_t small = kSmall[in.size(0, 4)];
  const Buffer q = in.values(static_cast<size_t>(Tq) * dk), k = in.values(static_cast<size_t>(Tk) * dk),
               v = in.values(static_cast<size_t>(Tk) * dv);
  const float scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(dk)) : in.finite();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (Variant var : kVariants) {
    for (int32_t tile : {small, static_cast<int32_t>(AG_ATTENTION_TILE_K)}) {
      auto fn = AG_FUZZ_VARIANT(attention_trace, var);
      Buffer out(static_cast<size_t>(Tq) * dv, in.offset(), nan),
          work(AG_ATTENTION_STREAMING_WORK_FLOATS, in.offset(), nan);
      const int32_t n =
          fn(q.data(), k.data(), v.data(), Tq, Tk, dk, dv, scale, causal, tile, out.data(), nullptr, 0, work.data());
      const int32_t seen = causal ? std::min(Tq, Tk) : Tk;
      AG_FUZZ_CHECK(n == Tq * ((seen + tile - 1) / tile + 1), "%s attention_trace: %d records for Tq=%d Tk=%d tile %d",
                    name(var), n, Tq, Tk, tile);
      const size_t W = ag::attention_trace::kTraceHead + dv;
      Buffer trace(static_cast<size_t>(n) * W + 1, in.offset(), -7.0f);
      fn(q.data(), k.data(), v.data(), Tq, Tk, dk, dv, scale, causal, tile, out.data(), trace.data(), n, work.data());
      AG_FUZZ_CHECK(trace[static_cast<size_t>(n) * W] == -7.0f, "%s attention_trace: wrote past the trace", name(var));
      std::vector<float> m(Tq, -kInf);
      std::vector<int32_t> next(Tq, 0);
      for (int32_t r = 0; r < n; ++r) {
        const float* rec = &trace[static_cast<size_t>(r) * W];
        const int32_t i = static_cast<int32_t>(rec[ag::attention_trace::kFieldRow]);
        if (rec[ag::attention_trace::kFieldKind] == ag::attention_trace::kOutput) {
          for (int32_t c = 0; c < dv; ++c)
            AG_FUZZ_CHECK(same(rec[ag::attention_trace::kFieldO + c], out[static_cast<size_t>(i) * dv + c]),
                          "%s attention_trace: output record of row %d differs at %d", name(var), i, c);
          continue;
        }
        AG_FUZZ_CHECK(rec[ag::attention_trace::kFieldStart] == next[i], "%s attention_trace: row %d tile out of order",
                      name(var), i);
        next[i] += tile;
        const float tile_max = rec[ag::attention_trace::kFieldTileMax], mn = rec[ag::attention_trace::kFieldM];
        AG_FUZZ_CHECK(same(rec[ag::attention_trace::kFieldMPrev], m[i]) &&
                          (std::isnan(tile_max) || same(mn, std::max(m[i], tile_max))),
                      "%s attention_trace: row %d m %.9g -> %.9g with tile max %.9g", name(var), i, m[i], mn, tile_max);
        AG_FUZZ_CHECK(rec[ag::attention_trace::kFieldCorrection] == 1.0f || (m[i] != -kInf && mn != m[i]),
                      "%s attention_trace: row %d corrected without a new max", name(var), i);
        m[i] = mn;
      }
      if (tile != AG_ATTENTION_TILE_K) continue;
      ag_attention_dims d{};
      d.B = 1, d.H = 1, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv;
      d.q_sb = d.q_sh = Tq * dk, d.q_st = dk, d.k_sb = d.k_sh = Tk * dk, d.k_st = dk;
      d.v_sb = d.v_sh = Tk * dv, d.v_st = dv, d.o_sb = d.o_sh = Tq * dv, d.o_st = dv;
      d.causal = causal, d.streaming = 1;
      Buffer want(static_cast<size_t>(Tq) * dv, in.offset(), nan);
      const int32_t status =
          AG_FUZZ_VARIANT(attention, var)(q.data(), k.data(), v.data(), nullptr, nullptr, nullptr, scale, 0.0f, &d,
                                          want.data(), nullptr, nullptr, work.data());
      for (size_t x = 0; x < want.size(); ++x) {
        AG_FUZZ_CHECK(same(out[x], want[x]), "%s attention_trace: output %zu is %.9g, attention's %.9g", name(var), x,
                      out[x], want[x]);
        AG_FUZZ_CHECK(status != 0 || !std::isnan(out[x]), "%s attention_trace: NaN at %zu with status 0", name(var), x);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// attention_backward
// ---------------------------------------------------------------------------

// Input: the shapes, layouts, shared key/value heads, causal (with an offset
// and a window), mask and scale of fuzz_attention (no key bias, cap or
// ALiBi), and dY at the output's strides. Asserted, besides no sanitizer
// report (the work buffer exactly as kernels.h sizes it): the status is
// attention's streaming status on the same inputs when that is not 0, else 0
// or negative (an entry of dS that overflowed); nothing outside the
// strided dq, dk, dv is written; a row with no visible key gets dQ = +0; with
// status 0 and modest magnitudes (the scale, every value and the mask's
// finite entries at most 2^20, so that no product or sum can pass 2^100),
// every gradient is finite. (Its error bound is tests/cpp's.)
void fuzz_attention_backward(Input& in) {
  const int32_t B = in.size(1, 2), H = in.size(1, 3), Tq = in.size(1, in.chance(48) ? 70 : 10),
                Tk = in.size(1, in.chance(48) ? 270 : 12);
  const int32_t dk = in.size(1, 12), dv = in.size(1, 12);
  ag_attention_dims d = random_layout(in, B, H, Tq, Tk, dk, dv);
  const int32_t g = d.kv_group, Hkv = H / g;
  if (d.causal && in.flag()) d.window = in.size(1, Tk + 1);
  const bool has_mask = in.flag();
  const size_t nm = has_mask ? mask_floats(in, B, H, Tq, Tk, &d.m_sb, &d.m_sh, &d.m_si, &d.m_sj) : 0;
  const int hide = in.size(0, 255);
  Buffer q = in.values(span(B, H, Tq, dk, d.q_sb, d.q_sh, d.q_st));
  Buffer k = in.values(span(B, Hkv, Tk, dk, d.k_sb, d.k_sh, d.k_st));
  Buffer v = in.values(span(B, Hkv, Tk, dv, d.v_sb, d.v_sh, d.v_st));
  Problem p(std::move(q), std::move(k), std::move(v), in.values_or_neg_inf(nm, hide), in.values(0));
  p.d = d;
  p.has_mask = has_mask;
  p.scale = in.flag() ? 1.0f / std::sqrt(static_cast<float>(dk)) : in.finite();
  const Buffer dy = in.values(span(B, H, Tq, dv, d.o_sb, d.o_sh, d.o_st));
  constexpr double kModest = 0x1p20;
  bool small = std::fabs(p.scale) <= kModest;
  const Buffer* inputs[] = {&p.q, &p.k, &p.v, &dy};
  for (const Buffer* x : inputs)
    for (size_t e = 0; e < x->size(); ++e) small = small && std::fabs((*x)[e]) <= kModest;
  for (size_t e = 0; e < p.mask.size(); ++e)
    small = small && (std::isinf(p.mask[e]) || std::fabs(p.mask[e]) <= kModest);
  for (Variant var : kVariants) {
    ag_attention_dims fd = d;
    fd.streaming = 1;
    Buffer out = in.output(span(B, H, Tq, dv, d.o_sb, d.o_sh, d.o_st)),
           fwork = in.output(AG_ATTENTION_STREAMING_WORK_FLOATS);
    const int32_t forward =
        AG_FUZZ_VARIANT(attention, var)(p.q.data(), p.k.data(), p.v.data(), p.mask_ptr(), nullptr, nullptr, p.scale,
                                        0.0f, &fd, out.data(), nullptr, nullptr, fwork.data());
    Buffer dq = in.output(p.q.size()), dkb = in.output(p.k.size()), dvb = in.output(p.v.size());
    Buffer work = in.output(ag_attention_backward_workspace_floats(&d));
    const int32_t status =
        AG_FUZZ_VARIANT(attention_backward, var)(p.q.data(), p.k.data(), p.v.data(), p.mask_ptr(), p.scale, &d,
                                                 dy.data(), dq.data(), dkb.data(), dvb.data(), work.data());
    // The forward's status, else 0 or -(1 + the index) of an entry of dS that overflowed: the first [Tq, Tk]
    // slice in flat order with either decides (registry.inc), so a dS overflow in a slice before the forward's
    // overflowed score comes first.
    const int64_t slice = static_cast<int64_t>(Tq) * Tk;
    const bool ds_first =
        forward > 0 && status < 0 && (-static_cast<int64_t>(status) - 1) / slice < (forward - 1) / slice;
    AG_FUZZ_CHECK(forward != 0 ? status == forward || ds_first : status <= 0,
                  "%s attention_backward: status %d, attention's streaming status %d", name(var), status, forward);
    struct Tensor {
      const Buffer* grad;
      int32_t heads, T, width, sb, sh, st;
      const char* what;
    };
    for (const Tensor& t :
         {Tensor{&dq, H, Tq, dk, d.q_sb, d.q_sh, d.q_st, "dq"}, Tensor{&dkb, Hkv, Tk, dk, d.k_sb, d.k_sh, d.k_st, "dk"},
          Tensor{&dvb, Hkv, Tk, dv, d.v_sb, d.v_sh, d.v_st, "dv"}}) {
      std::vector<char> addressed(t.grad->size(), 0);
      for (int32_t b = 0; b < B; ++b)
        for (int32_t h = 0; h < t.heads; ++h)
          for (int32_t r = 0; r < t.T; ++r)
            for (int32_t c = 0; c < t.width; ++c) {
              const size_t e = at(b, h, r, c, t.sb, t.sh, t.st);
              addressed[e] = 1;
              if (status == 0 && small)
                AG_FUZZ_CHECK(std::isfinite((*t.grad)[e]), "%s attention_backward: %s (%d, %d, %d, %d) is %.9g",
                              name(var), t.what, b, h, r, c, (*t.grad)[e]);
            }
      for (size_t e = 0; e < addressed.size(); ++e)
        if (!addressed[e])
          AG_FUZZ_CHECK(std::isnan((*t.grad)[e]), "%s attention_backward: wrote %s float %zu, between its rows",
                        name(var), t.what, e);
    }
    for (int32_t b = 0; b < B; ++b)
      for (int32_t h = 0; h < H; ++h)
        for (int32_t i = 0; i < Tq; ++i) {
          bool blind = true;
          for (int32_t j = 0; j < Tk && blind; ++j) blind = p.hidden(b, h, i, j);
          for (int32_t c = 0; c < dk && blind; ++c)
            AG_FUZZ_CHECK(same(dq[at(b, h, i, c, d.q_sb, d.q_sh, d.q_st)], 0.0f),
                          "%s attention_backward: row %d of (%d, %d) sees no key, dq %.9g", name(var), i, b, h,
                          dq[at(b, h, i, c, d.q_sb, d.q_sh, d.q_st)]);
        }
  }
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ag::fuzz::Input in(data, size);
  if (in.flag()) {
    ag::fuzz::fuzz_mha(in);
  } else {
    ag::fuzz::fuzz_attention(in);
  }
  if (in.flag()) ag::fuzz::fuzz_rope(in);  // with what is left of the input
  if (in.flag()) ag::fuzz::fuzz_attention_trace(in);
  if (in.flag()) ag::fuzz::fuzz_attention_backward(in);
  return 0;
}
