// Tests of the attention family (attention, multi_head_attention), both
// variants and both paths (materialized and streaming), against the float64
// reference in reference_attention.cc.
//
// Tolerances are a first-order forward error analysis, evaluated per element
// with magnitudes from the reference (sums of |terms|), never picked from what
// passed:
//   scores   s_ij = fl(fl(scale * q.k) + mask) + key_bias, q.k in the
//            variant's order: the scalar dot's pairwise bound
//            (2 ceil(log2 d_k) + 1) u sum|q k|, or the simd128 GEMM's
//            (gemm_simd128.h) (min(d_k, 256) + ceil(d_k / 256)) u sum|q k|;
//            times scale, plus one u of each intermediate magnitude per
//            rounding (scale, mask, bias); ALiBi's bias b = (-m) |n| adds its
//            product's rounding u |b| and one more addition (registry.inc).
//   weights  with D_i the largest score error of row i plus u |s_ij - max|
//            (the subtraction in softmax), a_ij / ref_ij - 1 is at most
//            2 D_i + 2 e + (2 ceil(log2 Tk) + 2) u, e the variant's exp bound
//            (as for the softmax kernel, softmax_test.cc).
//   output   materialized: sum_j |da_ij| |v_jc| plus the value mixture's own
//            bound, (ceil(log2 Tk) + 5) u sum_j a_ij |v_jc|
//            (attention_scalar.cc).
//            streaming: a different order, so a different bound (registry.inc,
//            attention): the weights are never formed; each term
//            exp(s_ij - M_i) v_jc reaches the output through its own exp, the
//            rescalings exp(m - m') of the tiles after its own (at most
//            n_t - 1 of them, n_t = ceil(Tk / t) tiles of t = 256 keys) and
//            the sums of O and of l, then O / l. The errors common to a term's
//            share of O and of l cancel in the ratio to first order, which
//            leaves
//              (2 D_i + 2 n_t e + (g + t/4 + 4 n_t - 1) u) sum_j a_ij |v_jc|
//            with g the tile's value sum: the simd128 GEMM's (t + 2) u with
//            beta = 1, the scalar cascade's (ceil(log2 t) + 6) u; t/4 is the
//            sum of a tile's P in four lanes.
// Multi-head attention adds the projections' errors, the variant's matmul
// bound (scalar: (2 ceil(log2 d_model) + 1) u sum|x w|; simd128: the GEMM's
// bound, which also covers the pairwise order) plus u |b| for the bias, and
// carries them through the same steps. Products of two u-sized errors are
// second order; a 1% margin and a few extra u cover them.
//
// The two variants differ in their dot, matmul and exp (different summation
// orders, a polynomial exp against the C library's), and the two paths in
// their order of operations, so each is checked against the reference
// within its own bound, not against the other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "kernels.h"
#include "reference_attention.h"
#include "test_util.h"

namespace ag::test {
namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();

// exp's relative error bound per variant: 1 ulp (C library) and the simd128
// bound of registry.inc (2 ulp); an ulp is at most 2u of the value.
double exp_rel(Variant v) { return 2.0 * (v == Variant::kScalar ? 1.0 : 2.0) * kU; }
// Subnormal weights round to multiples of 2^-149 (see softmax_test.cc).
constexpr double kTinyAbs = 0x1p-147;

// The relative bound of a score's q.k in the variant's order (file comment).
double scores_c(Variant v, int32_t dk) {
  if (v == Variant::kScalar) return (2.0 * ceil_log2(dk) + 1.0) * kU;
  return (std::min(dk, 256) + (dk + 255) / 256) * kU;
}

// The relative bound of the variant's matmul over n products, plus one u for
// the bias added after it.
double projection_c(Variant v, int32_t n) {
  if (v == Variant::kScalar) return (2.0 * ceil_log2(n) + 2.0) * kU;
  return (std::min(n, 256) + (n + 255) / 256 + 1.0) * kU;
}

// The streaming path's output bound per unit of sum_j a_ij |v_jc| (file
// comment), for a row whose largest score error plus u |s - max| is D.
double streaming_c(Variant v, double D, int32_t Tk) {
  const int32_t tile = AG_ATTENTION_TILE_K;
  const double nt = (Tk + tile - 1) / tile;
  const double g = v == Variant::kScalar ? ceil_log2(tile) + 6.0 : tile + 2.0;
  return 2.0 * D + 2.0 * nt * exp_rel(v) + (g + tile / 4 + 4.0 * nt - 1.0) * kU;
}

// The largest |error| / bound seen per variant and quantity, printed once at
// the end of the run, so that a log shows how much of each bound is used.
struct Usage {
  const char* name;
  double worst[2] = {0.0, 0.0};
};
Usage g_scores{"attention scores"}, g_weights{"attention weights"}, g_out{"attention output"},
    g_stream{"streaming output"}, g_mha_weights{"mha weights"}, g_mha_out{"mha output"}, g_mha_stream{"mha streaming"};
void note(Usage& u, Variant v, double err, double bound) {
  if (bound > 0.0)
    u.worst[v == Variant::kScalar ? 0 : 1] = std::max(u.worst[v == Variant::kScalar ? 0 : 1], err / bound);
}
class UsageReport : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const Usage* u : {&g_scores, &g_weights, &g_out, &g_stream, &g_mha_weights, &g_mha_out, &g_mha_stream})
      std::printf("[ bound usage ] %-18s scalar %.3f  simd128 %.3f (max |error| / bound)\n", u->name, u->worst[0],
                  u->worst[1]);
  }
};
const ::testing::Environment* const g_usage_report = ::testing::AddGlobalTestEnvironment(new UsageReport);

// Dims for B x H slices stored as [B, T, H*d] (heads interleaved, read in
// place), the layout multi-head attention uses.
ag_attention_dims interleaved_dims(int32_t B, int32_t H, int32_t Tq, int32_t Tk, int32_t dk, int32_t dv) {
  ag_attention_dims d{};
  d.B = B, d.H = H, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv;
  d.q_sb = Tq * H * dk, d.q_sh = dk, d.q_st = H * dk;
  d.k_sb = Tk * H * dk, d.k_sh = dk, d.k_st = H * dk;
  d.v_sb = Tk * H * dv, d.v_sh = dv, d.v_st = H * dv;
  d.o_sb = Tq * H * dv, d.o_sh = dv, d.o_st = H * dv;
  return d;
}

// Dims for contiguous [B, H, T, d] tensors.
ag_attention_dims contiguous_dims(int32_t B, int32_t H, int32_t Tq, int32_t Tk, int32_t dk, int32_t dv) {
  ag_attention_dims d{};
  d.B = B, d.H = H, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv;
  d.q_sb = H * Tq * dk, d.q_sh = Tq * dk, d.q_st = dk;
  d.k_sb = H * Tk * dk, d.k_sh = Tk * dk, d.k_st = dk;
  d.v_sb = H * Tk * dv, d.v_sh = Tk * dv, d.v_st = dv;
  d.o_sb = H * Tq * dv, d.o_sh = Tq * dv, d.o_st = dv;
  return d;
}

// Floats spanned by a strided tensor: the last element's index + 1.
size_t span(int32_t B, int32_t H, int32_t T, int32_t d, int32_t sb, int32_t sh, int32_t st) {
  return static_cast<size_t>(B - 1) * sb + static_cast<size_t>(H - 1) * sh + static_cast<size_t>(T - 1) * st +
         static_cast<size_t>(d);
}

struct AttentionInputs {
  ag_attention_dims d;
  std::vector<float> q, k, v, mask, key_bias;
  bool has_mask = false, has_key_bias = false;
  float scale = 0.0f;
  float softcap = 0.0f;       // > 0: scores capped before the mask
  std::vector<float> slopes;  // ALiBi's m_h per query head [H]; empty: none
};

AttentionInputs make_inputs(const ag_attention_dims& d, uint32_t seed) {
  AttentionInputs in;
  in.d = d;
  const int32_t Hkv = d.kv_group > 1 ? d.H / d.kv_group : d.H;  // K and V hold the shared heads only
  in.q = random_floats(span(d.B, d.H, d.Tq, d.d_k, d.q_sb, d.q_sh, d.q_st), -1.0f, 1.0f, seed);
  in.k = random_floats(span(d.B, Hkv, d.Tk, d.d_k, d.k_sb, d.k_sh, d.k_st), -1.0f, 1.0f, seed + 1);
  in.v = random_floats(span(d.B, Hkv, d.Tk, d.d_v, d.v_sb, d.v_sh, d.v_st), -2.0f, 2.0f, seed + 2);
  in.scale = 1.0f / std::sqrt(static_cast<float>(d.d_k));
  return in;
}

// The index of mask element (b, h, i, j), for building and reading masks.
size_t mask_at(const ag_attention_dims& d, int32_t b, int32_t h, int32_t i, int32_t j) {
  return static_cast<size_t>(b) * d.m_sb + static_cast<size_t>(h) * d.m_sh + static_cast<size_t>(i) * d.m_si +
         static_cast<size_t>(j) * d.m_sj;
}

struct RunOptions {
  bool want_weights = true, want_scores = true;
  int offset = 0;
  bool streaming = false;  // then want_weights and want_scores are false
};

// The work floats registry.inc asks for: the streaming tile and row
// statistics; a row of Tk when weights or scores hold the grid; else the
// grid [Tq, Tk].
size_t work_floats(const ag_attention_dims& d, const RunOptions& opt) {
  if (opt.streaming) return AG_ATTENTION_STREAMING_WORK_FLOATS;
  if (opt.want_weights || opt.want_scores) return static_cast<size_t>(d.Tk);
  return static_cast<size_t>(d.Tq) * d.Tk;
}

struct AttentionOutputs {
  std::vector<float> out, weights, scores;
};

AttentionOutputs run_attention(Variant v, const AttentionInputs& in, const RunOptions& opt) {
  ag_attention_dims d = in.d;
  d.streaming = opt.streaming ? 1 : 0;
  const int o = opt.offset;
  OffsetBuffer q(in.q, o), k(in.k, o), vv(in.v, o);
  std::unique_ptr<OffsetBuffer> mask, kb, slopes;
  if (in.has_mask) mask = std::make_unique<OffsetBuffer>(in.mask, o);
  if (!in.slopes.empty()) slopes = std::make_unique<OffsetBuffer>(in.slopes, o);
  if (in.has_key_bias) kb = std::make_unique<OffsetBuffer>(in.key_bias, o);
  // The output is filled with NaN so that an element the kernel forgets to
  // write fails every comparison.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OffsetBuffer out(span(d.B, d.H, d.Tq, d.d_v, d.o_sb, d.o_sh, d.o_st), o, nan);
  const size_t nw = static_cast<size_t>(d.B) * d.H * d.Tq * d.Tk;
  OffsetBuffer weights(opt.want_weights ? nw : 0, o, nan), scores(opt.want_scores ? nw : 0, o, nan);
  OffsetBuffer work(work_floats(d, opt), o, nan);  // exactly as documented: ASan sees any overrun
  AG_VARIANT(attention, v)
  (q.data(), k.data(), vv.data(), mask ? mask->data() : nullptr, kb ? kb->data() : nullptr,
   slopes ? slopes->data() : nullptr, in.scale, in.softcap, &d, out.data(), opt.want_weights ? weights.data() : nullptr,
   opt.want_scores ? scores.data() : nullptr, work.data());
  return {out.values(), weights.values(), scores.values()};
}

// Checks one run against the reference with the bounds of the file comment.
void check_attention(Variant v, const AttentionInputs& in, const RunOptions& opt) {
  const ag_attention_dims& d = in.d;
  const AttentionOutputs got = run_attention(v, in, opt);
  const reference::AttentionResult ref =
      reference::attention(in.q.data(), in.k.data(), in.v.data(), in.has_mask ? in.mask.data() : nullptr,
                           in.has_key_bias ? in.key_bias.data() : nullptr, in.scale, d, in.softcap,
                           in.slopes.empty() ? nullptr : in.slopes.data());
  const double dot_c = scores_c(v, d.d_k);
  const double mix_c = (ceil_log2(d.Tk) + 5.0) * kU;
  for (int32_t b = 0; b < d.B; ++b) {
    for (int32_t h = 0; h < d.H; ++h) {
      for (int32_t i = 0; i < d.Tq; ++i) {
        SCOPED_TRACE(::testing::Message() << "b=" << b << " h=" << h << " i=" << i);
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        // Score errors, and the row's max for the softmax's subtraction.
        std::vector<double> es(d.Tk, 0.0);
        double m = -INFINITY;
        for (int32_t j = 0; j < d.Tk; ++j) m = std::max(m, ref.scores[row * d.Tk + j]);
        double D = 0.0;
        for (int32_t j = 0; j < d.Tk; ++j) {
          const double s = ref.scores[row * d.Tk + j];
          if (std::isinf(s)) continue;
          const double sa = ref.score_abs[row * d.Tk + j];
          const double ma = in.has_mask ? std::fabs(in.mask[mask_at(d, b, h, i, j)]) : 0.0;
          const double ka = in.has_key_bias ? std::fabs(in.key_bias[static_cast<size_t>(b) * d.kb_sb + j]) : 0.0;
          // A soft cap c tanh(x / c) passes x's error on at most (tanh' <= 1) and adds the
          // division, tanhf (3 u) and the product: at most 6 c u (registry.inc).
          const double cap = in.softcap > 0.0f ? 6.0 * in.softcap * kU : 0.0;
          // ALiBi: |b| = m |i + P - j|, its product's rounding and one more addition.
          const double ba =
              in.slopes.empty() ? 0.0 : std::fabs(in.slopes[h] * (static_cast<double>(i) + d.causal_offset - j));
          const double adds = in.slopes.empty() ? 3.0 : 4.0;
          es[j] = 1.01 * (dot_c * sa + adds * kU * (sa + ma + ka + ba) + kU * ba + cap);
          D = std::max(D, es[j] + kU * std::fabs(s - m) * 1.01);
        }
        const double rel =
            1.01 * (2.0 * D + 2.0 * exp_rel(v) + (2.0 * ceil_log2(d.Tk) + 3.0 + normalize_roundings(v)) * kU);
        double row_sum = 0.0;
        for (int32_t j = 0; j < d.Tk; ++j) {
          const double s = ref.scores[row * d.Tk + j], a = ref.weights[row * d.Tk + j];
          if (opt.want_scores) {
            const float gs = got.scores[row * d.Tk + j];
            if (std::isinf(s)) {
              ASSERT_EQ(gs, -kInfF) << "j=" << j;
            } else {
              const double bound = es[j] + reference_slack(d.d_k, ref.score_abs[row * d.Tk + j]);
              note(g_scores, v, std::fabs(gs - s), bound);
              ASSERT_LE(std::fabs(gs - s), bound) << "score j=" << j;
            }
          }
          if (opt.want_weights) {
            const float ga = got.weights[row * d.Tk + j];
            note(g_weights, v, std::fabs(ga - a), rel * a + kTinyAbs);
            ASSERT_LE(std::fabs(ga - a), rel * a + kTinyAbs) << "weight j=" << j << " got " << ga << " ref " << a;
            if (a == 0.0) ASSERT_EQ(bits(ga), bits(0.0f)) << "a hidden key gets an exact +0 weight, j=" << j;
            row_sum += ga;
          }
        }
        const bool none_visible = m == -INFINITY;
        if (opt.want_weights && !none_visible)
          EXPECT_LE(std::fabs(row_sum - 1.0), (2.0 * ceil_log2(d.Tk) + 5.0 + normalize_roundings(v)) * kU);
        for (int32_t c = 0; c < d.d_v; ++c) {
          const size_t at =
              static_cast<size_t>(b) * d.o_sb + static_cast<size_t>(h) * d.o_sh + static_cast<size_t>(i) * d.o_st + c;
          const float y = got.out[at];
          const double yr = ref.out[row * d.d_v + c], ya = ref.out_abs[row * d.d_v + c];
          if (none_visible) {
            ASSERT_EQ(bits(y), bits(0.0f)) << "a row with no visible key gives a +0 output, c=" << c;
            continue;
          }
          // sum_j |da_j| |v_jc| <= rel * sum_j a_j |v_jc| + kTinyAbs * sum_j |v_jc|;
          // |v| <= 2 here, so the last term is at most 2 Tk kTinyAbs. The
          // streaming path may round a subnormal term once per tile it
          // crosses: n_t times that.
          const double coeff = opt.streaming ? streaming_c(v, D, d.Tk) : rel + mix_c * (1.0 + rel);
          const double tiles = opt.streaming ? (d.Tk + AG_ATTENTION_TILE_K - 1) / AG_ATTENTION_TILE_K : 1;
          const double tol = 1.01 * coeff * ya + 2.0 * d.Tk * tiles * kTinyAbs + reference_slack(d.Tk, ya);
          note(opt.streaming ? g_stream : g_out, v, std::fabs(y - yr), tol);
          ASSERT_LE(std::fabs(y - yr), tol) << "out c=" << c << " got " << y << " ref " << yr;
        }
      }
    }
  }
}

// Both variants, the materialized path as asked and the streaming path.
void check_both(const AttentionInputs& in, const RunOptions& opt = {}) {
  for_each_variant([&](Variant v) {
    check_attention(v, in, opt);
    check_attention(v, in, RunOptions{false, false, opt.offset, true});
  });
}

// ----------------------------------------------------------------------------

TEST(Attention, WorkedExampleOfTheFirstArticle) {
  // One query, three keys with q . k = 5, -4, 0 at scale 1; values pick out
  // the weights: y = weights.
  const float q[2] = {1.0f, 0.0f};
  const float k[6] = {5.0f, 1.0f, -4.0f, 2.0f, 0.0f, 3.0f};
  const float vals[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double expected[3] = {0.9931854005948175, 0.00012256881570915675, 0.0066920305894733485};
  ag_attention_dims d = contiguous_dims(1, 1, 1, 3, 2, 3);
  for_each_variant([&](Variant v) {
    float out[3], weights[3], scores[3], work[3];
    AG_VARIANT(attention, v)(q, k, vals, nullptr, nullptr, nullptr, 1.0f, 0.0f, &d, out, weights, scores, work);
    EXPECT_EQ(scores[0], 5.0f);
    EXPECT_EQ(scores[1], -4.0f);
    EXPECT_EQ(scores[2], 0.0f);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(weights[j], expected[j], 16 * kU * expected[j]);
      EXPECT_NEAR(out[j], expected[j], 16 * kU * expected[j]);
    }
  });
}

TEST(Attention, SingleSliceAllLengthsAndOffsets) {
  // Tk over every length (the softmax and the value mixture), Tq over every
  // length with few keys (the query loop), d_k and d_v cycling through
  // widths around multiples of 4 (the simd128 channel tails).
  const int32_t widths[] = {1, 3, 4, 5, 8, 17, 64};
  int w = 0;
  for (int32_t n : kLengths) {
    for (int offset = 0; offset <= kMaxOffset; ++offset, ++w) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " offset=" << offset);
      const int32_t dk = widths[w % 7], dv = widths[(w + 3) % 7];
      check_both(make_inputs(contiguous_dims(1, 1, std::min(n, 5), n, dk, dv), 100 + n),
                 RunOptions{true, true, offset});
      if (n <= 1000)
        check_both(make_inputs(contiguous_dims(1, 1, n, 3, dk, dv), 200 + n), RunOptions{true, true, offset});
    }
  }
}

TEST(Attention, LargeLogitsNeedTheMax) {
  // Scores of about 90 .. 100 would overflow exp without the max subtracted.
  AttentionInputs in = make_inputs(contiguous_dims(1, 1, 4, 33, 4, 5), 7);
  for (float& x : in.q) x = x * 5.0f + 5.0f * (x > 0 ? 1.0f : -1.0f);
  for (float& x : in.k) x = x * 5.0f;
  in.scale = 1.0f;
  in.has_mask = true;
  in.d.m_si = 33, in.d.m_sj = 1;
  in.mask = random_floats(4 * 33, 90.0f, 100.0f, 9);
  check_both(in);
}

TEST(Attention, BatchesAndHeadsReadInPlace) {
  for (int32_t H : {1, 2, 3, 8}) {
    for (int32_t B : {1, 2, 3}) {
      SCOPED_TRACE(::testing::Message() << "B=" << B << " H=" << H);
      check_both(make_inputs(interleaved_dims(B, H, 5, 7, 4, 3), 300 + B * 10 + H));
      check_both(make_inputs(interleaved_dims(B, H, 9, 4, 5, 8), 400 + B * 10 + H), RunOptions{true, true, 1});
      check_both(make_inputs(contiguous_dims(B, H, 6, 6, 3, 5), 500 + B * 10 + H), RunOptions{true, true, 3});
    }
  }
}

// Grouped-query attention (Ainslie et al. 2023): H query heads share H / g
// key/value heads, read in place (K and V are allocated with H / g heads
// only, so ASan sees any read of a head that is not there); g = H is
// multi-query attention. Both paths, contiguous and interleaved layouts,
// with a per-head mask and causal.
TEST(Attention, SharedKeyValueHeads) {
  const int32_t H = 6, Tq = 5, Tk = 7, dk = 4, dv = 3;
  for (int32_t g : {2, 3, 6}) {
    for (int32_t B : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "B=" << B << " H=" << H << " g=" << g);
      const int32_t Hkv = H / g;
      ag_attention_dims c = contiguous_dims(B, H, Tq, Tk, dk, dv);
      c.k_sb = Hkv * Tk * dk, c.v_sb = Hkv * Tk * dv, c.kv_group = g;
      check_both(make_inputs(c, 700 + g * 10 + B));
      ag_attention_dims i = interleaved_dims(B, H, Tq, Tk, dk, dv);
      i.k_sb = Tk * Hkv * dk, i.k_st = Hkv * dk, i.v_sb = Tk * Hkv * dv, i.v_st = Hkv * dv, i.kv_group = g;
      AttentionInputs in = make_inputs(i, 800 + g * 10 + B);
      in.d.causal = 1;
      in.has_mask = true;
      in.d.m_sb = H * Tq * Tk, in.d.m_sh = Tq * Tk, in.d.m_si = Tk, in.d.m_sj = 1;
      in.mask = random_floats(static_cast<size_t>(B) * H * Tq * Tk, -2.0f, 2.0f, 801);
      check_both(in, RunOptions{true, true, 1});
    }
  }
}

// Soft cap (Gemma 2; ONNX Attention, opset 23): S = c tanh(scale q.k / c) +
// mask, the cap before the mask, so that -Infinity in the mask still hides a
// key (its weight an exact +0, checked by check_attention). Logits of up to
// about 30 against caps of 0.5, 5 and 50: fully, partly and hardly capped.
TEST(Attention, SoftcapBeforeTheMask) {
  for (float c : {0.5f, 5.0f, 50.0f}) {
    SCOPED_TRACE(::testing::Message() << "softcap=" << c);
    AttentionInputs in = make_inputs(interleaved_dims(2, 3, 6, 9, 8, 4), 900);
    for (float& x : in.q) x *= 6.0f;
    in.softcap = c;
    check_both(in);
    in.d.causal = 1;
    in.has_mask = true;
    in.d.m_si = 9, in.d.m_sj = 1;  // [Tq, Tk], broadcast over batches and heads
    in.mask = random_floats(6 * 9, -2.0f, 2.0f, 901);
    for (size_t i = 0; i < in.mask.size(); i += 5) in.mask[i] = -kInfF;
    check_both(in, RunOptions{true, true, 1});
  }
  // scale * q.k = +Infinity is capped to c, the limit of c tanh(x / c): no overflow status.
  const float q[2] = {1e20f, 1e20f}, k[2] = {1e20f, 1e20f}, vals[1] = {3.0f};
  ag_attention_dims d = contiguous_dims(1, 1, 1, 1, 2, 1);
  for_each_variant([&](Variant v) {
    float out[1], scores[1], weights[1], work[1];
    ASSERT_EQ(
        AG_VARIANT(attention, v)(q, k, vals, nullptr, nullptr, nullptr, 1.0f, 2.0f, &d, out, weights, scores, work), 0);
    EXPECT_EQ(scores[0], 2.0f);
    EXPECT_EQ(out[0], 3.0f);
  });
}

// Causal with an offset P (a KV cache of P keys before this call's): query i
// sees keys 0..P + i. P = Tk - Tq aligns the last query with the last key
// (decoding); P = 0 is top-left; P past Tk shows every key; a negative P
// (ONNX: fewer valid keys than queries) leaves the first rows with none, a
// +0 output. Both paths, with several query blocks and key tiles.
TEST(Attention, CausalWithAnOffset) {
  struct Case {
    int32_t Tq, Tk, P;
  };
  for (const Case c : {Case{1, 9, 8}, Case{3, 9, 6}, Case{4, 9, 2}, Case{5, 9, 0}, Case{5, 9, 20}, Case{70, 600, 530},
                       Case{130, 300, 100}, Case{6, 9, -3}, Case{70, 300, -100}}) {
    SCOPED_TRACE(::testing::Message() << "Tq=" << c.Tq << " Tk=" << c.Tk << " P=" << c.P);
    AttentionInputs in = make_inputs(contiguous_dims(1, 2, c.Tq, c.Tk, 4, 3), 950 + c.P);
    in.d.causal = 1;
    in.d.causal_offset = c.P;
    check_both(in);
  }
}

// Sliding window: query i sees keys i + P - w + 1 .. i + P. Windows shorter
// and longer than a tile, with offsets (a KV cache), on both paths, with a
// mask on top; and the zero pattern of the weights checked
// directly, independently of the reference.
TEST(Attention, SlidingWindow) {
  struct Case {
    int32_t Tq, Tk, P, w;
  };
  for (const Case c : {Case{9, 9, 0, 1}, Case{9, 9, 0, 3}, Case{9, 9, 0, 20}, Case{5, 9, 4, 2}, Case{1, 300, 299, 7},
                       Case{70, 600, 530, 300}, Case{130, 300, 100, 257}, Case{6, 9, -3, 2}, Case{200, 200, 0, 64}}) {
    SCOPED_TRACE(::testing::Message() << "Tq=" << c.Tq << " Tk=" << c.Tk << " P=" << c.P << " w=" << c.w);
    AttentionInputs in = make_inputs(contiguous_dims(1, 2, c.Tq, c.Tk, 5, 3), 1300 + c.w);
    in.d.causal = 1;
    in.d.causal_offset = c.P;
    in.d.window = c.w;
    check_both(in);
    check_both(in, RunOptions{false, false, 1});
    for_each_variant([&](Variant v) {
      const AttentionOutputs got = run_attention(v, in, {});
      for (int32_t r = 0; r < 2 * c.Tq; ++r) {
        const int32_t i = r % c.Tq;
        for (int32_t j = 0; j < c.Tk; ++j) {
          const bool seen = j <= i + c.P && j > i + c.P - c.w;
          const float a = got.weights[static_cast<size_t>(r) * c.Tk + j];
          if (!seen) {
            ASSERT_EQ(bits(a), bits(0.0f)) << "i=" << i << " j=" << j;
          } else {
            ASSERT_GT(a, 0.0f) << "i=" << i << " j=" << j;
          }
        }
      }
    });
  }
  // A mask ([Tq, Tk], some keys -Infinity) on top of the window.
  AttentionInputs in = make_inputs(contiguous_dims(2, 2, 70, 300, 4, 4), 1390);
  in.d.causal = 1, in.d.causal_offset = 230, in.d.window = 100;
  in.has_mask = true;
  in.d.m_sb = 0, in.d.m_sh = 0, in.d.m_si = 300, in.d.m_sj = 1;
  in.mask = random_floats(70 * 300, -2.0f, 2.0f, 1391);
  for (size_t x = 0; x < in.mask.size(); x += 5) in.mask[x] = -kInfF;
  check_both(in);
  check_both(in, RunOptions{false, false, 2});
}

// ALiBi (Press et al. 2022, §3): query head h adds -m_h |i + P - j| to its
// scores, P the queries' offset: without causal the symmetric form (keys
// after the query too), with causal and a cache offset, with a window, with
// shared key/value heads, a mask and a soft cap; lengths around the f32x4
// groups and the key tiles, buffers misaligned by 1..3 floats.
TEST(Attention, Alibi) {
  struct Case {
    int32_t H, g, Tq, Tk, P;
    bool causal;
    int32_t w;
  };
  for (const Case c :
       {Case{8, 1, 5, 9, 0, false, 0}, Case{8, 1, 7, 13, 0, true, 0}, Case{4, 2, 3, 11, 8, true, 0},
        Case{2, 2, 70, 600, 530, true, 300}, Case{3, 1, 130, 300, -5, false, 0}, Case{1, 1, 1, 4099, 4098, true, 0},
        Case{2, 1, 9, 9, 0, true, 3}, Case{6, 3, 66, 261, 7, false, 0}}) {
    SCOPED_TRACE(::testing::Message() << "H=" << c.H << " g=" << c.g << " Tq=" << c.Tq << " Tk=" << c.Tk << " P=" << c.P
                                      << " causal=" << c.causal << " w=" << c.w);
    const int32_t dk = 5, dv = 3, Hkv = c.H / c.g;
    ag_attention_dims d = contiguous_dims(2, c.H, c.Tq, c.Tk, dk, dv);
    d.k_sb = Hkv * c.Tk * dk, d.v_sb = Hkv * c.Tk * dv, d.kv_group = c.g;
    AttentionInputs in = make_inputs(d, 2100 + c.Tk + c.H);
    in.d.causal = c.causal, in.d.causal_offset = c.P, in.d.window = c.w;
    // The geometric slopes of the paper, 2^(-8 (h + 1) / H), and 0.3 for the last head.
    for (int32_t h = 0; h < c.H; ++h) in.slopes.push_back(std::exp2(-8.0f * static_cast<float>(h + 1) / c.H));
    if (c.H > 1) in.slopes.back() = 0.3f;
    check_both(in);
    check_both(in, RunOptions{true, true, 1});
    check_both(in, RunOptions{false, false, 3});
    // A mask with -Infinity entries and a soft cap on top.
    in.has_mask = true;
    in.d.m_si = c.Tk, in.d.m_sj = 1;
    in.mask = random_floats(static_cast<size_t>(c.Tq) * c.Tk, -2.0f, 2.0f, 2199);
    for (size_t x = 0; x < in.mask.size(); x += 7) in.mask[x] = -kInfF;
    in.softcap = 5.0f;
    check_both(in, RunOptions{true, true, 2});
  }
  // q = 0: each score is the bias alone, (-m) |i + P - j| rounded once, the
  // same float in both variants and on both sides of the diagonal.
  const int32_t Tq = 6, Tk = 23, P = 4;
  AttentionInputs in = make_inputs(contiguous_dims(1, 3, Tq, Tk, 4, 2), 2190);
  for (float& x : in.q) x = 0.0f;
  in.d.causal_offset = P;
  in.slopes = {0.5f, 1.0f / 256.0f, 0.3f};
  for_each_variant([&](Variant v) {
    const AttentionOutputs got = run_attention(v, in, {});
    for (int32_t h = 0; h < 3; ++h)
      for (int32_t i = 0; i < Tq; ++i)
        for (int32_t j = 0; j < Tk; ++j) {
          const double n = std::fabs(static_cast<double>(i + P - j));
          const float want = static_cast<float>(-static_cast<double>(in.slopes[h]) * n);  // exact in double
          ASSERT_EQ(got.scores[(static_cast<size_t>(h) * Tq + i) * Tk + j], want)
              << "h=" << h << " i=" << i << " j=" << j;
        }
  });
}

TEST(Attention, BroadcastMasks) {
  const int32_t B = 2, H = 3, Tq = 5, Tk = 9;
  struct Shape {
    const char* name;
    int32_t sb, sh, si, sj;
    size_t size;
  };
  const Shape shapes[] = {
      {"[Tq,Tk]", 0, 0, Tk, 1, static_cast<size_t>(Tq) * Tk},
      {"[B,1,Tq,Tk]", Tq * Tk, 0, Tk, 1, static_cast<size_t>(B) * Tq * Tk},
      {"[B,H,Tq,Tk]", H * Tq * Tk, Tq * Tk, Tk, 1, static_cast<size_t>(B) * H * Tq * Tk},
      {"[Tk]", 0, 0, 0, 1, static_cast<size_t>(Tk)},
      {"[Tq,1]", 0, 0, 1, 0, static_cast<size_t>(Tq)},
      {"[1,H,1,Tk]", 0, Tk, 0, 1, static_cast<size_t>(H) * Tk},
  };
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.name);
    AttentionInputs in = make_inputs(interleaved_dims(B, H, Tq, Tk, 4, 4), 600);
    in.has_mask = true;
    in.d.m_sb = s.sb, in.d.m_sh = s.sh, in.d.m_si = s.si, in.d.m_sj = s.sj;
    in.mask = random_floats(s.size, -2.0f, 2.0f, 601);
    for (size_t i = 0; i < s.size; i += 4) in.mask[i] = -kInfF;  // some keys hidden
    check_both(in);
    check_both(in, RunOptions{true, true, 2});
  }
}

TEST(Attention, CausalTopLeftWithTqNotTk) {
  for (const auto& shape : {std::pair{5, 3}, std::pair{3, 7}, std::pair{6, 6}, std::pair{1, 4}, std::pair{65, 17},
                            std::pair{200, 70}, std::pair{70, 200}, std::pair{130, 130}}) {
    const int32_t Tq = shape.first, Tk = shape.second;  // named, so that the lambda below can capture them
    SCOPED_TRACE(::testing::Message() << "Tq=" << Tq << " Tk=" << Tk);
    AttentionInputs in = make_inputs(interleaved_dims(2, 2, Tq, Tk, 5, 4), 700 + Tq * 31 + Tk);
    in.d.causal = 1;
    check_both(in);
    check_both(in, RunOptions{false, false, 1});
    // Query i sees keys 0..i, whatever Tq and Tk: check the weights' zero
    // pattern directly, independently of the reference.
    for_each_variant([&](Variant v) {
      const AttentionOutputs got = run_attention(v, in, {});
      for (int32_t r = 0; r < 4 * Tq; ++r) {
        const int32_t i = r % Tq;
        for (int32_t j = 0; j < Tk; ++j) {
          const float a = got.weights[static_cast<size_t>(r) * Tk + j];
          if (j > i) {
            ASSERT_EQ(bits(a), bits(0.0f)) << "i=" << i << " j=" << j;
          } else {
            ASSERT_GT(a, 0.0f) << "i=" << i << " j=" << j;
          }
        }
      }
    });
  }
}

TEST(Attention, KeyBias) {
  for (int32_t kb_sb : {9, 0}) {  // [B, Tk], and one row broadcast over batches
    SCOPED_TRACE(::testing::Message() << "kb_sb=" << kb_sb);
    AttentionInputs in = make_inputs(interleaved_dims(2, 2, 4, 9, 4, 4), 800 + kb_sb);
    in.has_key_bias = true;
    in.d.kb_sb = kb_sb;
    in.key_bias = random_floats(kb_sb ? 18 : 9, -1.0f, 1.0f, 801);
    in.key_bias[2] = -kInfF;  // key padding: batch 0's key 2 (and every batch's when broadcast)
    in.key_bias[8] = -kInfF;
    check_both(in);
    // Key bias together with a mask and causal.
    in.has_mask = true;
    in.d.m_si = 9, in.d.m_sj = 1;
    in.mask = random_floats(36, -1.0f, 1.0f, 802);
    in.d.causal = 1;
    check_both(in, RunOptions{true, true, 3});
  }
}

// scores_stage 1 and 2 (ONNX qk_matmul_output_mode 1 and 0): the scores
// grid holds cap(scale q.k), resp. scale q.k, for every key, with no bias,
// mask or hidden key; the weights and the output are those of stage 0 bit
// for bit (the same finish_scores and softmax on a copy of the row). The
// expected stage is the float64 reference run on the same q and k with no
// mask, bias, ALiBi, causal or window (and no cap for stage 2); its bound is
// check_attention's score bound with those terms at 0. Tails of the GEMM's
// tiles (Tk 1, 7, 33, 300), odd d_k, shared heads and misaligned buffers.
TEST(Attention, ScoresAtEachStageInTheSamePass) {
  for (const int32_t Tk : {1, 7, 33, 300}) {
    const int32_t H = 4, g = 2, Tq = 5, dk = 5, dv = 3;
    ag_attention_dims d = contiguous_dims(2, H, Tq, Tk, dk, dv);
    d.k_sb = (H / g) * Tk * dk, d.v_sb = (H / g) * Tk * dv, d.kv_group = g;
    AttentionInputs in = make_inputs(d, 3300 + Tk);
    for (float& x : in.q) x *= 4.0f;
    in.softcap = 2.0f;
    in.slopes = {0.5f, 0.25f, 0.125f, 0.0f};
    in.d.causal = 1, in.d.causal_offset = Tk - Tq, in.d.window = 4;
    in.has_mask = true;
    in.d.m_si = Tk, in.d.m_sj = 1;
    in.mask = random_floats(static_cast<size_t>(Tq) * Tk, -1.0f, 1.0f, 3390);
    for (size_t x = 0; x < in.mask.size(); x += 3) in.mask[x] = -kInfF;
    in.has_key_bias = true;
    in.key_bias = random_floats(Tk, -1.0f, 1.0f, 3391);  // kb_sb 0: one row for both batches
    for (const int32_t stage : {1, 2}) {
      SCOPED_TRACE(::testing::Message() << "Tk=" << Tk << " stage=" << stage);
      ag_attention_dims plain = in.d;
      plain.causal = 0, plain.causal_offset = 0, plain.window = 0;
      const reference::AttentionResult ref = reference::attention(in.q.data(), in.k.data(), in.v.data(), nullptr,
                                                                  nullptr, in.scale, plain, stage == 1 ? 2.0 : 0.0);
      for_each_variant([&](Variant v) {
        for (const bool want_weights : {true, false}) {
          const AttentionOutputs base = run_attention(v, in, RunOptions{want_weights, true, 0});
          AttentionInputs staged = in;
          staged.d.scores_stage = stage;
          const AttentionOutputs got = run_attention(v, staged, RunOptions{want_weights, true, 1});
          for (size_t x = 0; x < base.out.size(); ++x) ASSERT_EQ(bits(got.out[x]), bits(base.out[x])) << "out " << x;
          for (size_t x = 0; x < base.weights.size(); ++x)
            ASSERT_EQ(bits(got.weights[x]), bits(base.weights[x])) << "weight " << x;
          const double dot_c = scores_c(v, dk), cap = stage == 1 ? 6.0 * 2.0 * kU : 0.0;
          for (size_t x = 0; x < got.scores.size(); ++x) {
            const double sa = ref.score_abs[x];
            const double bound = 1.01 * (dot_c * sa + 3.0 * kU * sa + cap) + reference_slack(dk, sa);
            ASSERT_LE(std::fabs(got.scores[x] - ref.scores[x]), bound) << "score " << x;
          }
        }
      });
    }
  }
}

TEST(Attention, FullyMaskedRowsGiveZerosNeverNaN) {
  // Row 1 of the mask is all -Infinity; with causal and key 0 padded, query 0
  // sees no key either. Both rows get zero weights and a zero output.
  const int32_t Tq = 4, Tk = 6;
  AttentionInputs in = make_inputs(interleaved_dims(2, 2, Tq, Tk, 4, 5), 900);
  in.has_mask = true;
  in.d.m_si = Tk, in.d.m_sj = 1;
  in.mask.assign(static_cast<size_t>(Tq) * Tk, 0.0f);
  for (int32_t j = 0; j < Tk; ++j) in.mask[Tk + j] = -kInfF;
  in.has_key_bias = true;
  in.d.kb_sb = Tk;
  in.key_bias.assign(2 * Tk, 0.0f);
  in.key_bias[0] = in.key_bias[Tk] = -kInfF;
  in.d.causal = 1;
  check_both(in);  // asserts +0 weights and outputs for rows with no visible key
  for_each_variant([&](Variant v) {
    for (int mode = 0; mode < 3; ++mode) {
      const bool want = mode == 0;
      const AttentionOutputs got = run_attention(v, in, RunOptions{want, want, 0, mode == 2});
      for (float y : got.out) ASSERT_FALSE(std::isnan(y));
      for (float a : got.weights) ASSERT_FALSE(std::isnan(a));
      // (b, h, i=0) and (b, h, i=1): the 5 output channels are +0.
      for (int32_t b = 0; b < 2; ++b)
        for (int32_t h = 0; h < 2; ++h)
          for (int32_t i = 0; i < 2; ++i)
            for (int32_t c = 0; c < 5; ++c)
              ASSERT_EQ(bits(got.out[static_cast<size_t>(b) * in.d.o_sb + h * in.d.o_sh + i * in.d.o_st + c]),
                        bits(0.0f));
    }
  });
}

TEST(Attention, WeightsAndScoresAreOptional) {
  AttentionInputs in = make_inputs(interleaved_dims(2, 3, 7, 5, 4, 6), 1000);
  for_each_variant([&](Variant v) {
    const AttentionOutputs all = run_attention(v, in, RunOptions{true, true, 0});
    // The same output, bit for bit, whichever of weights and scores is asked
    // for: they are only where the row lives, not how it is computed.
    for (auto [w, s] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
      const AttentionOutputs some = run_attention(v, in, RunOptions{w, s, 1});
      ASSERT_EQ(some.out.size(), all.out.size());
      for (size_t i = 0; i < all.out.size(); ++i) ASSERT_EQ(bits(some.out[i]), bits(all.out[i]));
      check_attention(v, in, RunOptions{w, s, 2});
    }
  });
}

TEST(Attention, ScaleOverride) {
  AttentionInputs in = make_inputs(contiguous_dims(1, 2, 4, 6, 8, 3), 1100);
  for (float scale : {0.3f, 2.0f, 1.0f}) {
    in.scale = scale;
    check_both(in);
  }
  // Scale 0: every visible key is equally likely, the output is the mean of V.
  in.scale = 0.0f;
  check_both(in);
  for_each_variant([&](Variant v) {
    const AttentionOutputs got = run_attention(v, in, {});
    for (float a : got.weights) EXPECT_NEAR(a, 1.0 / 6.0, 4 * kU);
  });
}

// Exact cases, where every rounding is exact and both variants must match the
// reference bit for bit:
//  - Q and K multiples of 1/64 in [-2, 2), d_k <= 64, scale 1: every product
//    is a multiple of 2^-12 below 4 and every partial sum of the dot a
//    multiple of 2^-12 below 2^8, which float32 holds exactly: the scores are
//    exact in any order.
//  - scale 0 and Tk a power of two: every weight is exp(0) / Tk = 1/Tk
//    exactly; with V multiples of 1/64 in [-2, 2), every a_j v_jc is a
//    multiple of 2^-6 / Tk and every partial sum is below 2 in magnitude, so
//    at most 2^7 Tk <= 2^17 units: the outputs are exact in any order.
//  - one visible key (all others masked with -Infinity): its weight is
//    exactly 1 and the output is exactly that key's value row.
TEST(Attention, ExactCasesAgreeBitForBit) {
  for (int32_t Tk : {1, 2, 4, 8, 16, 64, 128, 1024}) {
    SCOPED_TRACE(::testing::Message() << "Tk=" << Tk);
    for (float scale : {1.0f, 0.0f}) {
      ag_attention_dims d = interleaved_dims(2, 2, 3, Tk, 64, 5);
      AttentionInputs in;
      in.d = d;
      in.q = random_sixty_fourths(span(2, 2, 3, 64, d.q_sb, d.q_sh, d.q_st), 1200 + Tk);
      in.k = random_sixty_fourths(span(2, 2, Tk, 64, d.k_sb, d.k_sh, d.k_st), 1300 + Tk);
      in.v = random_sixty_fourths(span(2, 2, Tk, 5, d.v_sb, d.v_sh, d.v_st), 1400 + Tk);
      in.scale = scale;
      const reference::AttentionResult ref =
          reference::attention(in.q.data(), in.k.data(), in.v.data(), nullptr, nullptr, scale, d);
      for_each_variant([&](Variant v) {
        const AttentionOutputs got = run_attention(v, in, {});
        for (size_t i = 0; i < ref.scores.size(); ++i)
          ASSERT_EQ(bits(got.scores[i]), bits(static_cast<float>(ref.scores[i]))) << "score " << i;
        if (scale != 0.0f) return;
        for (size_t i = 0; i < ref.weights.size(); ++i)
          ASSERT_EQ(bits(got.weights[i]), bits(1.0f / static_cast<float>(Tk))) << "weight " << i;
        // Streaming: every p is exp(0) = 1, l counts the keys exactly and O is
        // the exact sum, so O / l is exact too.
        const AttentionOutputs streamed = run_attention(v, in, RunOptions{false, false, 0, true});
        for (int32_t r = 0; r < 2 * 2 * 3; ++r)
          for (int32_t c = 0; c < 5; ++c) {
            const int32_t b = r / 6, h = (r / 3) % 2, i = r % 3;
            const size_t at = static_cast<size_t>(b) * d.o_sb + h * d.o_sh + i * d.o_st + c;
            const uint32_t want = bits(static_cast<float>(ref.out[static_cast<size_t>(r) * 5 + c]));
            ASSERT_EQ(bits(got.out[at]), want) << "out row " << r << " c " << c;
            ASSERT_EQ(bits(streamed.out[at]), want) << "streaming out row " << r << " c " << c;
          }
      });
    }
    // One visible key per query: key (i * 7) % Tk.
    AttentionInputs in = make_inputs(contiguous_dims(1, 1, 3, Tk, 4, 7), 1500 + Tk);
    in.has_mask = true;
    in.d.m_si = Tk, in.d.m_sj = 1;
    in.mask.assign(static_cast<size_t>(3) * Tk, -kInfF);
    for (int32_t i = 0; i < 3; ++i) in.mask[static_cast<size_t>(i) * Tk + (i * 7) % Tk] = 0.0f;
    for_each_variant([&](Variant v) {
      const AttentionOutputs got = run_attention(v, in, {});
      // Streaming: p = 1 for the visible key and 0 elsewhere, in whichever
      // tile it is; l = 1.
      const AttentionOutputs streamed = run_attention(v, in, RunOptions{false, false, 0, true});
      for (int32_t i = 0; i < 3; ++i) {
        const int32_t j = (i * 7) % Tk;
        ASSERT_EQ(bits(got.weights[static_cast<size_t>(i) * Tk + j]), bits(1.0f));
        for (int32_t c = 0; c < 7; ++c) {
          ASSERT_EQ(bits(got.out[static_cast<size_t>(i) * 7 + c]), bits(in.v[static_cast<size_t>(j) * 7 + c]));
          ASSERT_EQ(bits(streamed.out[static_cast<size_t>(i) * 7 + c]), bits(in.v[static_cast<size_t>(j) * 7 + c]));
        }
      }
    });
  }
}

// ----------------------------------------------------------------------------
// The streaming path (online softmax over key tiles). check_both runs it on
// every case above; these cases aim at what only it has: several query
// blocks and key tiles, a running max that changes, tiles that a row does not
// see at all.
// ----------------------------------------------------------------------------

TEST(AttentionStreaming, SeveralBlocksAndTilesNotMultiplesOfTheTile) {
  // Blocks of 64 queries, tiles of 256 keys (kernels.h).
  static_assert(AG_ATTENTION_BLOCK_Q == 64 && AG_ATTENTION_TILE_K == 256, "the shapes below straddle these");
  const std::pair<int32_t, int32_t> shapes[] = {{1, 4099}, {3, 1000},  {130, 600}, {64, 256},
                                                {65, 257}, {127, 255}, {2, 513},   {129, 1}};
  uint32_t seed = 1600;
  for (auto [Tq, Tk] : shapes) {
    SCOPED_TRACE(::testing::Message() << "Tq=" << Tq << " Tk=" << Tk);
    check_both(make_inputs(contiguous_dims(1, 1, Tq, Tk, 17, 9), seed++), RunOptions{false, false, 1});
    if (Tq * Tk <= 80000) check_both(make_inputs(interleaved_dims(2, 3, Tq, Tk, 8, 5), seed++));
  }
}

TEST(AttentionStreaming, TheMaxRisesOrFallsFromTileToTile) {
  // q . k_j grows (or shrinks) with j, so every new tile raises the running
  // max (every tile rescales O and l) or none does. A spread of about 90
  // makes the first tiles' terms underflow once rescaled.
  for (float spread : {3.0f, 90.0f}) {
    for (bool rising : {true, false}) {
      SCOPED_TRACE(::testing::Message() << "spread=" << spread << " rising=" << rising);
      const int32_t Tq = 3, Tk = 3 * AG_ATTENTION_TILE_K + 50;
      AttentionInputs in = make_inputs(contiguous_dims(1, 1, Tq, Tk, 4, 6), 1700);
      for (int32_t i = 0; i < Tq; ++i) {
        in.q[static_cast<size_t>(i) * 4] = 1.0f;
        in.q[static_cast<size_t>(i) * 4 + 1] = 0.25f * static_cast<float>(i);
      }
      for (int32_t j = 0; j < Tk; ++j) {
        const float t = static_cast<float>(rising ? j : Tk - 1 - j) / static_cast<float>(Tk - 1);
        in.k[static_cast<size_t>(j) * 4] = spread * t + 0.01f * in.k[static_cast<size_t>(j) * 4];
      }
      in.scale = 1.0f;
      check_both(in);
    }
  }
}

TEST(AttentionStreaming, RowsThatSeeNothingInWholeTiles) {
  // Tk = 3 tiles and a short one (0-255, 256-511, 512-767, 768-799). Row r
  // of the mask hides: r % 5 == 0: every key (a zero output); 1: the first
  // two tiles; 2: all but the last key (in the short last tile); 3: every
  // other tile; 4: nothing.
  const int32_t Tq = 70, Tk = 3 * AG_ATTENTION_TILE_K + 32;
  AttentionInputs in = make_inputs(interleaved_dims(1, 2, Tq, Tk, 8, 7), 1800);
  in.has_mask = true;
  in.d.m_si = Tk, in.d.m_sj = 1;
  in.mask = random_floats(static_cast<size_t>(Tq) * Tk, -1.0f, 1.0f, 1801);
  for (int32_t i = 0; i < Tq; ++i)
    for (int32_t j = 0; j < Tk; ++j) {
      const int32_t kind = i % 5, tile = j / AG_ATTENTION_TILE_K;
      const bool hide =
          kind == 0 || (kind == 1 && tile < 2) || (kind == 2 && j != Tk - 1) || (kind == 3 && tile % 2 == 1);
      if (hide) in.mask[static_cast<size_t>(i) * Tk + j] = -kInfF;
    }
  check_both(in);
  in.d.causal = 1;  // and causal on top: every row sees only part of the first tile
  check_both(in, RunOptions{true, true, 2});
  // Causal with Tq > Tk: the later query blocks see every tile.
  AttentionInputs tall = make_inputs(interleaved_dims(1, 1, 600, 530, 4, 3), 1802);
  tall.d.causal = 1;
  check_both(tall);
}

TEST(AttentionStreaming, HugeValuesWhoseUnnormalisedSumOverflows) {
  // v_j in [1e36, 3e36): O = sum_j exp(s_ij - m) v_j passes FLT_MAX (about
  // 3.4e38) after a few hundred keys, while the output, a convex combination
  // of the v_j, stays below 3e36. Such rows are computed again with
  // normalised terms and must meet the same bound (and be finite).
  for (int32_t Tk : {1000, 4099}) {
    SCOPED_TRACE(::testing::Message() << "Tk=" << Tk);
    AttentionInputs in = make_inputs(contiguous_dims(1, 2, 5, Tk, 8, 6), 1950 + Tk);
    in.v = random_floats(in.v.size(), 1e36f, 3e36f, 1951);
    in.d.causal = 1;  // rows 0..4 see 1..5 keys: no overflow there, only in the
    check_both(in);   // non-causal run below
    in.d.causal = 0;
    check_both(in);
    for_each_variant([&](Variant v) {
      const AttentionOutputs got = run_attention(v, in, RunOptions{false, false, 0, true});
      for (float y : got.out) ASSERT_TRUE(std::isfinite(y) && y > 9e35f) << y;
    });
  }
}

TEST(AttentionStreaming, OverflowIsTheFirstInFlatOrder) {
  // Row 0 overflows at key 300 (the second tile), row 1 at key 3 (the first
  // tile, which the streaming path reaches first): the status names the first
  // in the flat [B, H, Tq, Tk] order, key 300 of row 0, as the materialized
  // path does.
  const int32_t Tq = 2, Tk = 330;
  AttentionInputs in = make_inputs(contiguous_dims(1, 1, Tq, Tk, 2, 1), 1900);
  in.q = {1e20f, 0.0f, 0.0f, -1e20f};
  for (float& x : in.k) x = 1e-30f;
  in.k[300 * 2] = 1e20f;    // row 0 . key 300 = +1e40
  in.k[3 * 2 + 1] = 1e20f;  // row 1 . key 3 = -1e40
  in.scale = 1.0f;
  // The same with a contiguous mask and a key bias (the four-lane path with
  // masks): hiding other keys changes nothing, and hiding the overflowing
  // key does not hide its overflow (scale * q.k itself is not finite).
  std::vector<float> mask(static_cast<size_t>(Tq) * Tk, 0.0f), key_bias(Tk, 0.5f);
  mask[5] = -kInfF;
  key_bias[7] = -kInfF;
  std::vector<float> mask_hiding = mask;
  mask_hiding[300] = -kInfF;
  for_each_variant([&](Variant v) {
    for (bool streaming : {false, true}) {
      for (int with : {0, 1, 2}) {
        SCOPED_TRACE(::testing::Message() << "streaming=" << streaming << " masks=" << with);
        ag_attention_dims d = in.d;
        d.streaming = streaming;
        d.m_si = Tk, d.m_sj = 1;
        const float* m = with == 0 ? nullptr : (with == 1 ? mask.data() : mask_hiding.data());
        const float* kb = with == 0 ? nullptr : key_bias.data();
        std::vector<float> out(Tq), work(streaming ? AG_ATTENTION_STREAMING_WORK_FLOATS : Tq * Tk);
        EXPECT_EQ(AG_VARIANT(attention, v)(in.q.data(), in.k.data(), in.v.data(), m, kb, nullptr, in.scale, in.softcap,
                                           &d, out.data(), nullptr, nullptr, work.data()),
                  1 + 300);
      }
    }
  });
}

// A decoding step (Tq = 1) whose query heads share key/value heads: the heads
// that read one K and V are the rows of one streaming slice
// (attention_impl.h, heads_as_rows). Against the reference within the
// streaming bound, and bit for bit against each head run as a call of its
// own: h_q = 4 h_kv, 8 and 70 heads on one (more than a block of 64 rows),
// multi-query attention by broadcasting K and V over the heads, caches of
// 4098 and 256 keys and a first step of one key (tiles and f32x4 groups
// with tails), d_k = 7 and d_v = 5 (channel tails), causal at the cache's
// offset, a window, a per-head mask with -Infinity entries, misaligned
// buffers.
TEST(AttentionStreaming, DecodeStepRunsTheHeadsOfAGroupTogether) {
  struct Case {
    int32_t B, Hkv, g, Tk, w;
    bool mask, broadcast;  // broadcast: K and V have one head, read by every query head (kv_group 1)
  };
  const int32_t dk = 7, dv = 5;
  for (const Case c :
       {Case{1, 2, 4, 4099, 0, false, false}, Case{2, 2, 4, 257, 0, true, false}, Case{1, 1, 8, 255, 100, false, false},
        Case{1, 3, 4, 1, 0, false, false}, Case{1, 1, 70, 513, 0, true, false}, Case{2, 1, 6, 300, 0, true, true}}) {
    SCOPED_TRACE(::testing::Message() << "B=" << c.B << " Hkv=" << c.Hkv << " g=" << c.g << " Tk=" << c.Tk
                                      << " w=" << c.w << " mask=" << c.mask << " broadcast=" << c.broadcast);
    const int32_t H = c.Hkv * c.g;
    ag_attention_dims d = contiguous_dims(c.B, H, 1, c.Tk, dk, dv);
    d.k_sb = c.Hkv * c.Tk * dk, d.v_sb = c.Hkv * c.Tk * dv;
    if (c.broadcast)
      d.k_sh = 0, d.v_sh = 0;
    else
      d.kv_group = c.g;
    d.causal = 1, d.causal_offset = c.Tk - 1, d.window = c.w;
    AttentionInputs in = make_inputs(d, 3000 + c.Tk + H);
    if (c.mask) {
      in.has_mask = true;
      in.d.m_sb = H * c.Tk, in.d.m_sh = c.Tk, in.d.m_si = c.Tk, in.d.m_sj = 1;
      in.mask = random_floats(static_cast<size_t>(c.B) * H * c.Tk, -2.0f, 2.0f, 3001);
      for (size_t x = 0; x < in.mask.size(); x += 5) in.mask[x] = -kInfF;
    }
    for_each_variant([&](Variant v) {
      const RunOptions streaming{false, false, 1, true};
      check_attention(v, in, streaming);
      const AttentionOutputs got = run_attention(v, in, streaming);
      for (int32_t b = 0; b < c.B; ++b) {
        for (int32_t h = 0; h < H; ++h) {
          // Head h of batch b alone: one query, one head, its own K and V rows.
          AttentionInputs one;
          one.d = contiguous_dims(1, 1, 1, c.Tk, dk, dv);
          one.d.causal = 1, one.d.causal_offset = c.Tk - 1, one.d.window = c.w;
          one.scale = in.scale;
          const auto part = [](const std::vector<float>& x, size_t at, size_t n) {
            return std::vector<float>(x.begin() + static_cast<ptrdiff_t>(at),
                                      x.begin() + static_cast<ptrdiff_t>(at + n));
          };
          const int32_t hkv = c.broadcast ? 0 : h / c.g;
          one.q = part(in.q, static_cast<size_t>(b) * d.q_sb + static_cast<size_t>(h) * d.q_sh, dk);
          one.k = part(in.k, static_cast<size_t>(b) * d.k_sb + static_cast<size_t>(hkv) * d.k_sh,
                       static_cast<size_t>(c.Tk) * dk);
          one.v = part(in.v, static_cast<size_t>(b) * d.v_sb + static_cast<size_t>(hkv) * d.v_sh,
                       static_cast<size_t>(c.Tk) * dv);
          if (c.mask) {
            one.has_mask = true;
            one.d.m_sj = 1;
            one.mask = part(in.mask, mask_at(in.d, b, h, 0, 0), c.Tk);
          }
          const AttentionOutputs alone = run_attention(v, one, streaming);
          for (int32_t x = 0; x < dv; ++x)
            ASSERT_EQ(bits(got.out[static_cast<size_t>(b) * d.o_sb + static_cast<size_t>(h) * d.o_sh + x]),
                      bits(alone.out[x]))
                << "b=" << b << " h=" << h << " channel " << x;
        }
      }
    });
  }
  // The status of heads run together: head 1 overflows at key 300, head 2 at
  // key 3; the first in the flat [B, H, Tq, Tk] order is head 1's.
  const int32_t H = 4, Tk = 330;
  ag_attention_dims d = contiguous_dims(1, H, 1, Tk, 2, 1);
  d.k_sb = Tk * 2, d.v_sb = Tk, d.kv_group = H, d.streaming = 1;
  AttentionInputs in = make_inputs(d, 3100);
  in.q = {0.0f, 0.0f, 1e20f, 0.0f, 0.0f, -1e20f, 0.0f, 0.0f};
  for (float& x : in.k) x = 1e-30f;
  in.k[300 * 2] = 1e20f;    // head 1 . key 300 = +1e40
  in.k[3 * 2 + 1] = 1e20f;  // head 2 . key 3 = -1e40
  for_each_variant([&](Variant v) {
    std::vector<float> out(H), work(AG_ATTENTION_STREAMING_WORK_FLOATS);
    EXPECT_EQ(AG_VARIANT(attention, v)(in.q.data(), in.k.data(), in.v.data(), nullptr, nullptr, nullptr, 1.0f, 0.0f, &d,
                                       out.data(), nullptr, nullptr, work.data()),
              1 + Tk + 300);
  });
}

// ----------------------------------------------------------------------------
// Multi-head attention
// ----------------------------------------------------------------------------

struct MhaCase {
  int32_t B, Tq, Tk, d_model, h;
  bool biases, causal, mask, key_bias, want_weights;
  bool streaming = false;  // needs want_weights false
  int32_t h_kv = 0;        // key/value heads; 0: h
  int32_t rope = 0;        // 1: RoPE interleaved, 2: half-split; 0: none
};

// sum_k |X_rk W_kc| + |b_c| for X [rows, n] (double), W [n, out]: the
// magnitude that bounds a projection's rounding error.
std::vector<double> abs_project(const std::vector<double>& X, const float* W, const float* b, int32_t rows, int32_t n,
                                int32_t out) {
  std::vector<double> Y(static_cast<size_t>(rows) * out);
  for (int32_t r = 0; r < rows; ++r)
    for (int32_t c = 0; c < out; ++c) {
      double s = b ? std::fabs(b[c]) : 0.0;
      for (int32_t k = 0; k < n; ++k)
        s += std::fabs(X[static_cast<size_t>(r) * n + k]) * std::fabs(W[static_cast<size_t>(k) * out + c]);
      Y[static_cast<size_t>(r) * out + c] = s;
    }
  return Y;
}

// The error of a projection P [rows, heads * d_k] (ref values x, bounds e)
// after each head is turned by RoPE (the rope kernel's bound, registry.inc):
// the rotation moves pair (a, b)'s errors by at most e_a + e_b, and the
// kernel adds 4 u (|x_a| + |x_b|) on its float inputs, |x| + e at most.
std::vector<double> rotated_error(const std::vector<double>& x, const std::vector<double>& e, int32_t dk,
                                  bool interleaved) {
  std::vector<double> out(e.size());
  for (size_t at = 0; at < e.size(); ++at) {
    const int32_t c = static_cast<int32_t>(at % dk), half = dk / 2;
    const size_t partner = at - c + (interleaved ? (c ^ 1) : (c < half ? c + half : c - half));
    out[at] = 1.01 * ((e[at] + e[partner]) * (1.0 + 4.0 * kU) + 4.0 * kU * (std::fabs(x[at]) + std::fabs(x[partner])));
  }
  return out;
}

void check_mha(const MhaCase& mc, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "B=" << mc.B << " Tq=" << mc.Tq << " Tk=" << mc.Tk << " d_model=" << mc.d_model
                                    << " h=" << mc.h << " biases=" << mc.biases << " causal=" << mc.causal << " mask="
                                    << mc.mask << " key_bias=" << mc.key_bias << " streaming=" << mc.streaming);
  const int32_t B = mc.B, Tq = mc.Tq, Tk = mc.Tk, dm = mc.d_model, h = mc.h, dk = dm / h;
  const int32_t hkv = mc.h_kv > 0 ? mc.h_kv : h, dkv = hkv * dk, group = h / hkv;
  const size_t nq = static_cast<size_t>(B) * Tq * dm, nk = static_cast<size_t>(B) * Tk * dm,
               nw = static_cast<size_t>(dm) * dm, nwkv = static_cast<size_t>(dm) * dkv;
  const std::vector<float> xq = random_floats(nq, -1.0f, 1.0f, seed), xk = random_floats(nk, -1.0f, 1.0f, seed + 1),
                           xv = random_floats(nk, -1.0f, 1.0f, seed + 2);
  // Weights of the usual initial size, 1/sqrt(d_model), so scores stay O(1).
  const float ws = 1.0f / std::sqrt(static_cast<float>(dm));
  const std::vector<float> wq = random_floats(nw, -2 * ws, 2 * ws, seed + 3),
                           wk = random_floats(nwkv, -2 * ws, 2 * ws, seed + 4),
                           wv = random_floats(nwkv, -ws, ws, seed + 5), wo = random_floats(nw, -ws, ws, seed + 6);
  const std::vector<float> bq = random_floats(dm, -0.5f, 0.5f, seed + 7),
                           bk = random_floats(dkv, -0.5f, 0.5f, seed + 8),
                           bv = random_floats(dkv, -0.5f, 0.5f, seed + 9),
                           bo = random_floats(dm, -0.5f, 0.5f, seed + 10);
  ag_mha_dims d{};
  d.B = B, d.Tq = Tq, d.Tk = Tk, d.d_model = dm, d.h = h, d.causal = mc.causal;
  d.streaming = mc.streaming;
  d.h_kv = mc.h_kv;
  d.rope = mc.rope != 0, d.rope_interleaved = mc.rope == 1;
  const double rope_base = mc.rope == 2 ? 500000.0 : 10000.0;
  std::vector<float> mask, key_bias;
  if (mc.mask) {  // [B, 1, Tq, Tk]: broadcast over heads
    d.m_sb = Tq * Tk, d.m_sh = 0, d.m_si = Tk, d.m_sj = 1;
    mask = random_floats(static_cast<size_t>(B) * Tq * Tk, -1.0f, 1.0f, seed + 11);
    for (size_t i = 1; i < mask.size(); i += 5) mask[i] = -kInfF;
  }
  if (mc.key_bias) {  // key padding: the last key of batch 0 is padded
    d.kb_sb = Tk;
    key_bias.assign(static_cast<size_t>(B) * Tk, 0.0f);
    key_bias[Tk - 1] = -kInfF;
  }
  const float* bqp = mc.biases ? bq.data() : nullptr;
  const float* bkp = mc.biases ? bk.data() : nullptr;
  const float* bvp = mc.biases ? bv.data() : nullptr;
  const float* bop = mc.biases ? bo.data() : nullptr;
  const float* mp = mc.mask ? mask.data() : nullptr;
  const float* kbp = mc.key_bias ? key_bias.data() : nullptr;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));

  const reference::MhaResult ref =
      reference::multi_head_attention(xq.data(), xk.data(), xv.data(), wq.data(), wk.data(), wv.data(), wo.data(), bqp,
                                      bkp, bvp, bop, mp, kbp, scale, d, rope_base);
  auto widen = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
  const std::vector<double> aQ = abs_project(widen(xq), wq.data(), bqp, B * Tq, dm, dm);
  const std::vector<double> aK = abs_project(widen(xk), wk.data(), bkp, B * Tk, dm, dkv);
  const std::vector<double> aV = abs_project(widen(xv), wv.data(), bvp, B * Tk, dm, dkv);

  for_each_variant([&](Variant v) {
    // Projection error bounds: the variant's matmul bound plus u for the
    // bias addition, on sum|x w| + |b|.
    const double proj_c = 1.01 * projection_c(v, dm);
    std::vector<double> eQ = aQ, eK = aK, eV = aV;
    for (double& e : eQ) e *= proj_c;
    for (double& e : eK) e *= proj_c;
    for (double& e : eV) e *= proj_c;
    if (mc.rope) {
      eQ = rotated_error(ref.q, eQ, dk, mc.rope == 1);
      eK = rotated_error(ref.k, eK, dk, mc.rope == 1);
    }
    std::vector<float> out(nq, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> weights(mc.want_weights ? static_cast<size_t>(B) * h * Tq * Tk : 0,
                               std::numeric_limits<float>::quiet_NaN());
    std::vector<float> work(ag_mha_workspace_floats(&d), std::numeric_limits<float>::quiet_NaN());
    AG_VARIANT(multi_head_attention, v)
    (xq.data(), xk.data(), xv.data(), wq.data(), wk.data(), wv.data(), wo.data(), bqp, bkp, bvp, bop, mp, kbp, scale,
     rope_base, &d, out.data(), mc.want_weights ? weights.data() : nullptr, work.data());
    // Forward error of the concatenated heads, then of the output.
    std::vector<double> e_heads(nq, 0.0), heads_abs(nq, 0.0);
    for (int32_t b = 0; b < B; ++b) {
      for (int32_t hh = 0; hh < h; ++hh) {
        for (int32_t i = 0; i < Tq; ++i) {
          const size_t qrow = (static_cast<size_t>(b) * Tq + i) * dm + static_cast<size_t>(hh) * dk;
          const size_t wrow = ((static_cast<size_t>(b) * h + hh) * Tq + i) * Tk;
          // Score errors from the projections and the score's own rounding.
          std::vector<double> s(Tk, -INFINITY), es(Tk, 0.0);
          double m = -INFINITY;
          for (int32_t j = 0; j < Tk; ++j) {
            if (mc.causal && j > i) continue;
            const size_t krow = (static_cast<size_t>(b) * Tk + j) * dkv + static_cast<size_t>(hh / group) * dk;
            double dot = 0.0, prop = 0.0, mag = 0.0;
            for (int32_t c = 0; c < dk; ++c) {
              const double qa = std::fabs(ref.q_rot[qrow + c]), ka = std::fabs(ref.k_rot[krow + c]);
              dot += ref.q_rot[qrow + c] * ref.k_rot[krow + c];
              prop += eQ[qrow + c] * (ka + eK[krow + c]) + qa * eK[krow + c];
              mag += (qa + eQ[qrow + c]) * (ka + eK[krow + c]);
            }
            double sij = scale * dot;
            double extra = 0.0;
            if (mp) {
              const float mv = mask[static_cast<size_t>(b) * d.m_sb + static_cast<size_t>(i) * d.m_si + j];
              sij += mv;
              extra += std::fabs(mv);
            }
            if (kbp) {
              sij += key_bias[static_cast<size_t>(b) * d.kb_sb + j];
              extra += std::fabs(key_bias[static_cast<size_t>(b) * d.kb_sb + j]);
            }
            s[j] = sij;
            if (std::isinf(sij)) continue;
            es[j] = 1.01 * (scale * prop + scores_c(v, dk) * scale * mag + 3.0 * kU * (scale * mag + extra));
            m = std::max(m, sij);
          }
          double D = 0.0;
          for (int32_t j = 0; j < Tk; ++j)
            if (!std::isinf(s[j])) D = std::max(D, es[j] + 1.01 * kU * std::fabs(s[j] - m));
          const double rel =
              1.01 * (2.0 * D + 2.0 * exp_rel(v) + (2.0 * ceil_log2(Tk) + 3.0 + normalize_roundings(v)) * kU);
          for (int32_t j = 0; j < Tk; ++j) {
            const double a = ref.weights[wrow + j];
            if (mc.want_weights) {
              note(g_mha_weights, v, std::fabs(weights[wrow + j] - a), rel * a + kTinyAbs);
              ASSERT_LE(std::fabs(weights[wrow + j] - a), rel * a + kTinyAbs)
                  << "weight b=" << b << " h=" << hh << " i=" << i << " j=" << j;
            }
          }
          for (int32_t c = 0; c < dk; ++c) {
            double ya = 0.0, ev = 0.0;
            for (int32_t j = 0; j < Tk; ++j) {
              const size_t vat = (static_cast<size_t>(b) * Tk + j) * dkv + static_cast<size_t>(hh / group) * dk + c;
              const double a = ref.weights[wrow + j];
              ya += a * (std::fabs(ref.v[vat]) + eV[vat]);
              ev += a * eV[vat];
            }
            const size_t at = qrow + c;
            if (m == -INFINITY) continue;  // no visible key: exactly 0
            const double tiles = mc.streaming ? (Tk + AG_ATTENTION_TILE_K - 1) / AG_ATTENTION_TILE_K : 1;
            e_heads[at] = mc.streaming ? 1.01 * (streaming_c(v, D, Tk) * ya + ev) + Tk * tiles * kTinyAbs * 4.0
                                       : 1.01 * (rel * ya + ev + (ceil_log2(Tk) + 5.0) * kU * (1.0 + rel) * ya) +
                                             Tk * kTinyAbs * 4.0;
            heads_abs[at] = std::fabs(ref.heads[at]) + e_heads[at];
          }
        }
      }
    }
    for (int32_t r = 0; r < B * Tq; ++r) {
      for (int32_t n = 0; n < dm; ++n) {
        double prop = 0.0, mag = bop ? std::fabs(bo[n]) : 0.0;
        for (int32_t c = 0; c < dm; ++c) {
          const double w = std::fabs(wo[static_cast<size_t>(c) * dm + n]);
          prop += e_heads[static_cast<size_t>(r) * dm + c] * w;
          mag += heads_abs[static_cast<size_t>(r) * dm + c] * w;
        }
        const double tol = 1.01 * (prop + projection_c(v, dm) * mag) + reference_slack(dm, mag);
        const size_t at = static_cast<size_t>(r) * dm + n;
        note(mc.streaming ? g_mha_stream : g_mha_out, v, std::fabs(out[at] - ref.out[at]), tol);
        ASSERT_LE(std::fabs(out[at] - ref.out[at]), tol)
            << "out row " << r << " col " << n << " got " << out[at] << " ref " << ref.out[at];
      }
    }
  });
}

TEST(MultiHeadAttention, SelfAndCrossAttentionOverHeadsBatchesAndOptions) {
  uint32_t seed = 2000;
  for (int32_t h : {1, 2, 4, 8}) {
    for (auto [Tq, Tk] : {std::pair{5, 5}, std::pair{3, 7}, std::pair{9, 4}}) {
      for (int32_t B : {1, 2}) {
        for (int flags = 0; flags < 8; ++flags) {
          const bool biases = flags & 1, causal = flags & 2, masks = flags & 4;
          const bool want_weights = (flags % 3) != 0;
          check_mha(MhaCase{B, Tq, Tk, 16, h, biases, causal, masks, masks, want_weights}, seed += 13);
          if (!want_weights) check_mha(MhaCase{B, Tq, Tk, 16, h, biases, causal, masks, masks, false, true}, seed);
        }
      }
    }
  }
}

TEST(MultiHeadAttention, WiderModelsAndOddHeadWidths) {
  // d_k = 5 and 3 (tails of the four-lane value mixture), and a longer key
  // sequence crossing the mixture's blocks of 8 and the dot's blocks of 64.
  check_mha(MhaCase{2, 4, 65, 40, 8, true, false, true, true, true}, 3000);
  check_mha(MhaCase{1, 17, 33, 24, 8, true, true, false, false, true}, 3001);
  check_mha(MhaCase{3, 2, 129, 64, 4, false, false, false, true, false}, 3002);
  check_mha(MhaCase{1, 1, 1, 8, 8, true, true, false, false, true}, 3003);
}

TEST(MultiHeadAttention, StreamingOverSeveralBlocksAndTiles) {
  // Tq past one query block of 64 and Tk past one key tile of 256, neither a
  // multiple of them, heads read in place at stride d_model (no split or
  // merge copies).
  check_mha(MhaCase{1, 70, 530, 32, 4, true, false, false, true, false, true}, 3100);
  check_mha(MhaCase{2, 130, 267, 24, 3, true, true, true, false, false, true}, 3101);
  check_mha(MhaCase{1, 130, 267, 24, 3, true, true, true, false, false, false}, 3101);
}

// kvHeads (grouped-query projections, Ainslie et al. 2023): W_K and W_V
// project to h_kv d_k columns and query head i reads key/value head
// i / (h / h_kv), read in place (ASan sees a read past the narrower K and V);
// rope: each head's q and k turned before the scores, both layouts, odd and
// even head counts, both paths, self- and cross-attention.
TEST(MultiHeadAttention, SharedKeyValueHeadsAndRope) {
  uint32_t seed = 3200;
  for (int32_t hkv : {0, 1, 2, 4}) {
    for (int32_t rope : {0, 1, 2}) {
      for (auto [Tq, Tk] : {std::pair{5, 5}, std::pair{3, 7}}) {
        const bool causal = Tq == Tk;
        check_mha(MhaCase{2, Tq, Tk, 16, 4, true, causal, false, true, true, false, hkv, rope}, seed += 7);
        check_mha(MhaCase{1, Tq, Tk, 16, 4, false, causal, true, false, false, true, hkv, rope}, seed += 7);
      }
    }
  }
  // d_k = 6 (a half of 3: the half-split layout's scalar tail), h_kv = 3 of 6,
  // and streaming over several blocks and tiles.
  check_mha(MhaCase{1, 9, 9, 36, 6, true, true, false, false, true, false, 3, 2}, 3300);
  check_mha(MhaCase{1, 70, 270, 24, 4, true, false, false, true, false, true, 2, 1}, 3301);
}

TEST(MultiHeadAttention, WorkspaceSize) {
  ag_mha_dims d{};
  d.B = 2, d.Tq = 3, d.Tk = 5, d.d_model = 8, d.h = 2;
  // Q and the heads [B, Tq, d_model], K and V [B, Tk, d_model], then one
  // head's score grid [Tq, Tk], or the streaming tile and row statistics.
  EXPECT_EQ(ag_mha_workspace_floats(&d), size_t{2 * 2 * 3 * 8 + 2 * 2 * 5 * 8 + 3 * 5});
  d.streaming = 1;
  EXPECT_EQ(ag_mha_workspace_floats(&d), size_t{2 * 2 * 3 * 8 + 2 * 2 * 5 * 8 + 64 * 256 + 2 * 64});
  EXPECT_EQ(AG_ATTENTION_STREAMING_WORK_FLOATS, 64 * 256 + 2 * 64);
  // One key/value head (of d_k = 4 columns) and the rope table [2, 5, 4] and row [4].
  d.h_kv = 1, d.rope = 1;
  EXPECT_EQ(ag_mha_workspace_floats(&d), size_t{2 * 2 * 3 * 8 + 2 * 2 * 5 * 4 + 2 * 5 * 4 + 4 + 64 * 256 + 2 * 64});
}

TEST(Attention, ScoresThatOverflowAreReportedNotMasked) {
  // Finite inputs, but q . k = +-1e40 overflows float32. Without the status the
  // row would come out NaN (+Infinity) or all zeros (-Infinity, taken for a
  // fully masked row). The status is 1 + the flat [B, H, Tq, Tk] index of the
  // first overflow; a -Infinity that comes from the mask is not one.
  const float q[2] = {1e20f, 0.0f};
  const float k_pos[4] = {1.0f, 0.0f, 1e20f, 0.0f};
  const float k_neg[4] = {-1e20f, 0.0f, -1e19f, 0.0f};
  const float vals[2] = {1.0f, 2.0f};
  const float mask[2] = {0.0f, -INFINITY};
  ag_attention_dims d = contiguous_dims(1, 1, 1, 2, 2, 1);
  for_each_variant([&](Variant v) {
    for (int32_t streaming : {0, 1}) {
      SCOPED_TRACE(::testing::Message() << "streaming=" << streaming);
      d.streaming = streaming;
      float out[1];
      std::vector<float> work_buffer(streaming ? AG_ATTENTION_STREAMING_WORK_FLOATS : 2);
      float* work = work_buffer.data();
      EXPECT_EQ(AG_VARIANT(attention, v)(q, k_pos, vals, nullptr, nullptr, nullptr, 1.0f, 0.0f, &d, out, nullptr,
                                         nullptr, work),
                2);
      EXPECT_EQ(AG_VARIANT(attention, v)(q, k_neg, vals, nullptr, nullptr, nullptr, 1.0f, 0.0f, &d, out, nullptr,
                                         nullptr, work),
                1);
      // The overflowing key masked out: nothing overflowed that is seen, and the
      // -Infinity of the mask is no overflow.
      d.m_sj = 1;
      EXPECT_EQ(
          AG_VARIANT(attention, v)(q, k_pos, vals, mask, nullptr, nullptr, 1.0f, 0.0f, &d, out, nullptr, nullptr, work),
          2);
      const float q_small[2] = {1.0f, 0.0f};
      EXPECT_EQ(AG_VARIANT(attention, v)(q_small, k_pos, vals, mask, nullptr, nullptr, 1.0f, 0.0f, &d, out, nullptr,
                                         nullptr, work),
                0);
      EXPECT_EQ(out[0], 1.0f);
      d.m_sj = 0;
    }
  });
}

TEST(Attention, NonFiniteQOrKIsReportedAsAnOverflow) {
  // Without causal masking and without a soft cap every score is formed and
  // checked, so a q or k entry that is not finite (the JS layer leaves that
  // check to the kernel there) makes every score it enters NaN or infinite,
  // and the status names the first such score in flat order; masked keys and
  // a key bias included. Tq = 5, Tk = 7 (tails of the 4-lane loops), d_k = 3;
  // both paths, with and without a mask.
  const int32_t Tq = 5, Tk = 7, dk = 3, dv = 2;
  ag_attention_dims d = contiguous_dims(1, 1, Tq, Tk, dk, dv);
  std::vector<float> q(Tq * dk), k(Tk * dk), vals(Tk * dv), mask(Tq * Tk, 0.0f);
  for (size_t i = 0; i < q.size(); ++i) q[i] = 0.25f * static_cast<float>(i % 5) - 0.5f;
  for (size_t i = 0; i < k.size(); ++i) k[i] = 0.125f * static_cast<float>(i % 7) - 0.375f;
  for (size_t i = 0; i < vals.size(); ++i) vals[i] = static_cast<float>(i);
  for (int32_t i = 0; i < Tq; ++i) mask[i * Tk + 4] = -INFINITY;  // key 4 hidden from every query
  struct Case {
    const char* what;
    bool in_q;
    int32_t row, col;
    float value;
    int32_t expected;  // 1 + the flat index of the first score it enters
  };
  const Case cases[] = {
      {"NaN in q row 2", true, 2, 1, NAN, 1 + 2 * Tk},
      {"+Infinity in q row 4", true, 4, 0, INFINITY, 1 + 4 * Tk},
      {"-Infinity in k row 5", false, 5, 2, -INFINITY, 1 + 5},
      {"NaN in k row 4 (the masked key)", false, 4, 0, NAN, 1 + 4},
  };
  for_each_variant([&](Variant v) {
    for (const Case& c : cases) {
      for (int32_t streaming : {0, 1}) {
        for (bool masked : {false, true}) {
          SCOPED_TRACE(::testing::Message() << c.what << ", streaming=" << streaming << ", mask=" << masked);
          std::vector<float> qx = q, kx = k;
          (c.in_q ? qx : kx)[c.row * dk + c.col] = c.value;
          d.streaming = streaming;
          d.m_si = masked ? Tk : 0, d.m_sj = masked ? 1 : 0;
          std::vector<float> out(Tq * dv), work(streaming ? AG_ATTENTION_STREAMING_WORK_FLOATS : Tq * Tk);
          EXPECT_EQ(AG_VARIANT(attention, v)(qx.data(), kx.data(), vals.data(), masked ? mask.data() : nullptr, nullptr,
                                             nullptr, 0.5f, 0.0f, &d, out.data(), nullptr, nullptr, work.data()),
                    c.expected);
        }
      }
    }
  });
}

}  // namespace
}  // namespace ag::test
