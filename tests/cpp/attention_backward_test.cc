// Tests of attention_backward, both variants, against the analytic float64
// backward of reference_attention_backward.cc, within the first-order bound
// that registry.inc derives (never a tolerance picked from what passed):
//   dV:  (rho + g_k u) sum_i a_ij |dY_ic|
//   dQ:  (kappa_i + g_q u) |scale| sum_j a_ij (A_ij + W_i) |k_jc|
//   dK:  (kappa + g_k u) |scale| sum_i a_ij (A_ij + W_i) |q_ic|
// with D_i (a row's largest score error plus u |s_ij - max|) from the score
// bound of attention (the variant's dot or GEMM over d_k, then the product by
// scale and the mask's addition: two roundings), eta_i attention's streaming
// bound, rho_i the recomputed weights', kappa_i = rho_i + eta_i +
// (2 gamma + 3) u. For dK and dV, whose sums run over the rows i, the
// largest kappa_i and rho_i of the problem stand for each row's (a larger
// coefficient on non-negative terms). Weights in the subnormal range add
// 2^-147 each (the "count" sums of the reference). Products of two u-sized
// errors are second order; a 1% margin covers them.
//
// The reduction orders differ between the variants (the scalar dot and
// cascade against the simd128 GEMM) and from the reference's (left to right
// in double), so each variant is compared with the reference within its own
// bound, never with the other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "kernels.h"
#include "reference_attention_backward.h"
#include "test_util.h"

namespace ag::test {
namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kTinyAbs = 0x1p-147;

// exp's relative bound per variant (registry.inc, exp): 1 and 2 ulp.
double exp_rel(Variant v) { return 2.0 * (v == Variant::kScalar ? 1.0 : 2.0) * kU; }
// The variant's dot over n products: the scalar pairwise bound or the GEMM's.
double dot_c(Variant v, int32_t n) {
  if (v == Variant::kScalar) return (2.0 * ceil_log2(n) + 1.0) * kU;
  return (std::min(n, 256) + (n + 255) / 256) * kU;
}

double g_worst[2][3];  // [variant][dq, dk, dv]: the largest |error| / bound
class UsageReport : public ::testing::Environment {
 public:
  void TearDown() override {
    const char* names[] = {"dQ", "dK", "dV"};
    for (int x = 0; x < 3; ++x)
      std::printf("[ bound usage ] attention_backward %s scalar %.3f  simd128 %.3f (max |error| / bound)\n", names[x],
                  g_worst[0][x], g_worst[1][x]);
  }
};
const ::testing::Environment* const g_usage_report = ::testing::AddGlobalTestEnvironment(new UsageReport);

// A problem: dims (strides included), the tensors, an optional mask.
struct Problem {
  ag_attention_dims d{};
  std::vector<float> q, k, v, dy, mask;
  bool has_mask = false;
  float scale = 1.0f;
  int32_t Hkv() const { return d.kv_group > 1 ? d.H / d.kv_group : d.H; }
};

size_t span(int32_t B, int32_t H, int32_t T, int32_t d, int32_t sb, int32_t sh, int32_t st) {
  return static_cast<size_t>(B - 1) * sb + static_cast<size_t>(H - 1) * sh + static_cast<size_t>(T - 1) * st +
         static_cast<size_t>(d);
}

// Strides of a [B, H, T, d] tensor: heads interleaved ([B, T, H d], as
// multi-head attention reads them) or contiguous, each row padded by pad.
void set_strides(bool interleaved, int32_t H, int32_t T, int32_t d, int32_t pad, int32_t* sb, int32_t* sh,
                 int32_t* st) {
  *st = interleaved ? H * d + pad : d + pad;
  *sh = interleaved ? d : T * *st;
  *sb = interleaved ? T * *st : H * *sh;
}

Problem make_problem(int32_t B, int32_t H, int32_t Tq, int32_t Tk, int32_t dk, int32_t dv, bool interleaved,
                     uint32_t seed, int32_t kv_group = 1, int32_t pad = 0) {
  Problem p;
  ag_attention_dims& d = p.d;
  d.B = B, d.H = H, d.Tq = Tq, d.Tk = Tk, d.d_k = dk, d.d_v = dv, d.kv_group = kv_group;
  const int32_t Hkv = kv_group > 1 ? H / kv_group : H;
  set_strides(interleaved, H, Tq, dk, pad, &d.q_sb, &d.q_sh, &d.q_st);
  set_strides(interleaved, Hkv, Tk, dk, pad, &d.k_sb, &d.k_sh, &d.k_st);
  set_strides(interleaved, Hkv, Tk, dv, pad, &d.v_sb, &d.v_sh, &d.v_st);
  set_strides(interleaved, H, Tq, dv, pad, &d.o_sb, &d.o_sh, &d.o_st);
  p.q = random_floats(span(B, H, Tq, dk, d.q_sb, d.q_sh, d.q_st), -1.0f, 1.0f, seed);
  p.k = random_floats(span(B, Hkv, Tk, dk, d.k_sb, d.k_sh, d.k_st), -1.0f, 1.0f, seed + 1);
  p.v = random_floats(span(B, Hkv, Tk, dv, d.v_sb, d.v_sh, d.v_st), -2.0f, 2.0f, seed + 2);
  p.dy = random_floats(span(B, H, Tq, dv, d.o_sb, d.o_sh, d.o_st), -1.0f, 1.0f, seed + 3);
  p.scale = 1.0f / std::sqrt(static_cast<float>(dk));
  return p;
}

// A dense additive mask [B, H, Tq, Tk]: random values in [-2, 2), -Infinity
// with probability `hidden`, and the rows listed in `blind` fully hidden.
void add_mask(Problem& p, double hidden, uint32_t seed, std::vector<int32_t> blind = {}) {
  ag_attention_dims& d = p.d;
  d.m_sj = 1, d.m_si = d.Tk, d.m_sh = d.Tq * d.Tk, d.m_sb = d.H * d.Tq * d.Tk;
  p.mask = random_floats(static_cast<size_t>(d.B) * d.H * d.Tq * d.Tk, -2.0f, 2.0f, seed);
  const std::vector<float> coin = random_floats(p.mask.size(), 0.0f, 1.0f, seed + 1);
  for (size_t x = 0; x < p.mask.size(); ++x)
    if (coin[x] < hidden) p.mask[x] = -kInfF;
  for (size_t x = 0; x < p.mask.size(); ++x) {
    const int32_t i = static_cast<int32_t>((x / d.Tk) % d.Tq);
    if (std::find(blind.begin(), blind.end(), i) != blind.end()) p.mask[x] = -kInfF;
  }
  p.has_mask = true;
}

struct Grads {
  int32_t status;
  std::vector<float> dq, dk, dv;
};

// One call, the inputs starting `offset` floats past an aligned address, the
// outputs filled with NaN first (an element of dq, dk, dv that is not written
// fails every comparison; one outside the strided elements must stay NaN).
Grads run(Variant variant, const Problem& p, int offset = 0) {
  const ag_attention_dims& d = p.d;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OffsetBuffer q(p.q, offset), k(p.k, offset), v(p.v, offset), dy(p.dy, offset);
  OffsetBuffer mask(p.has_mask ? p.mask : std::vector<float>{}, offset);
  OffsetBuffer dq(p.q.size(), offset, nan), dk(p.k.size(), offset, nan), dv(p.v.size(), offset, nan);
  OffsetBuffer work(ag_attention_backward_workspace_floats(&d), offset, nan);  // exactly as documented
  const int32_t status =
      AG_VARIANT(attention_backward, variant)(q.data(), k.data(), v.data(), p.has_mask ? mask.data() : nullptr, p.scale,
                                              &d, dy.data(), dq.data(), dk.data(), dv.data(), work.data());
  return {status, dq.values(), dk.values(), dv.values()};
}

// Every gradient element within its bound (file comment); a row with no
// visible key gives dQ = +0, a key that no query sees dK = dV = +0; every
// element outside the strided tensors untouched.
void check(Variant variant, const Problem& p, int offset = 0) {
  const ag_attention_dims& d = p.d;
  const Grads got = run(variant, p, offset);
  ASSERT_EQ(got.status, 0);
  const reference::AttentionBackwardResult ref = reference::attention_backward(
      p.q.data(), p.k.data(), p.v.data(), p.has_mask ? p.mask.data() : nullptr, p.scale, d, p.dy.data());
  const int32_t group = d.kv_group > 1 ? d.kv_group : 1, Hkv = p.Hkv();
  const double nt = (d.Tk + AG_ATTENTION_TILE_K - 1) / AG_ATTENTION_TILE_K;
  const double nb = (d.Tq + AG_ATTENTION_BLOCK_Q - 1) / AG_ATTENTION_BLOCK_Q;
  const double e = exp_rel(variant);
  const bool scalar = variant == Variant::kScalar;
  const double g = scalar ? ceil_log2(AG_ATTENTION_TILE_K) + 6.0 : AG_ATTENTION_TILE_K + 2.0;
  const double g_q = g + nt, g_k = (scalar ? 12.0 : 66.0) + nb * group;
  const double gamma = dot_c(variant, d.d_v) / kU;
  const double sc = dot_c(variant, d.d_k);
  // Per row: kappa_i for dQ; the largest kappa and rho for dK and dV.
  const size_t rows = static_cast<size_t>(d.B) * d.H * d.Tq;
  std::vector<double> kappa(rows, 0.0);
  double kappa_max = 0.0, rho_max = 0.0;
  std::vector<bool> blind(rows, true);
  for (int32_t b = 0; b < d.B; ++b)
    for (int32_t h = 0; h < d.H; ++h)
      for (int32_t i = 0; i < d.Tq; ++i) {
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        const double* s = &ref.forward.scores[row * d.Tk];
        double m = -INFINITY;
        for (int32_t j = 0; j < d.Tk; ++j) m = std::max(m, s[j]);
        double D = 0.0;
        for (int32_t j = 0; j < d.Tk; ++j) {
          if (std::isinf(s[j])) continue;
          const double sa = ref.forward.score_abs[row * d.Tk + j];
          const double ma = p.has_mask
                                ? std::fabs(p.mask[static_cast<size_t>(b) * d.m_sb + static_cast<size_t>(h) * d.m_sh +
                                                   static_cast<size_t>(i) * d.m_si + static_cast<size_t>(j) * d.m_sj])
                                : 0.0;
          D = std::max(D, 1.01 * (sc * sa + 2.0 * kU * (sa + ma)) + kU * std::fabs(s[j] - m));
        }
        blind[row] = m == -INFINITY;
        const double eta = 2.0 * D + 2.0 * nt * e + (g + 64.0 + 4.0 * nt - 1.0) * kU;
        const double rho = 2.0 * D + (nt + 1.0) * e + (4.0 * nt + 67.0) * kU;
        kappa[row] = rho + eta + (2.0 * gamma + 3.0) * kU;
        kappa_max = std::max(kappa_max, kappa[row]);
        rho_max = std::max(rho_max, rho);
      }
  auto expect_close = [&](int which, float got_x, double ref_x, double bound, const char* what, size_t at) {
    g_worst[scalar ? 0 : 1][which] = std::max(g_worst[scalar ? 0 : 1][which], std::fabs(got_x - ref_x) / bound);
    ASSERT_LE(std::fabs(got_x - ref_x), bound) << what << " at " << at << ": got " << got_x << " ref " << ref_x;
  };
  std::vector<bool> written_q(p.q.size(), false), written_k(p.k.size(), false), written_v(p.v.size(), false);
  for (int32_t b = 0; b < d.B; ++b)
    for (int32_t h = 0; h < d.H; ++h)
      for (int32_t i = 0; i < d.Tq; ++i) {
        const size_t row = (static_cast<size_t>(b) * d.H + h) * d.Tq + i;
        for (int32_t c = 0; c < d.d_k; ++c) {
          const size_t at =
              static_cast<size_t>(b) * d.q_sb + static_cast<size_t>(h) * d.q_sh + static_cast<size_t>(i) * d.q_st + c;
          written_q[at] = true;
          const size_t r = row * d.d_k + c;
          if (blind[row]) {
            ASSERT_EQ(bits(got.dq[at]), bits(0.0f)) << "a row with no visible key: dQ = +0, at " << at;
            continue;
          }
          const double bound = 1.01 * (kappa[row] + g_q * kU) * ref.dq_abs[r] + kTinyAbs * ref.dq_count[r] +
                               reference_slack(d.Tk * (d.d_v + 2), ref.dq_abs[r]);
          expect_close(0, got.dq[at], ref.dq[r], bound, "dQ", at);
        }
      }
  // dK and dV: per key j of each key/value head, with the largest kappa (dK) or rho (dV).
  struct KeyGradient {
    int which;
    const char* name;
    const std::vector<float>& got;
    const std::vector<double>&ref, &abs, &count;
    std::vector<bool>& written;
    int32_t width, sb, sh, st;
    double coeff, n;
  };
  for (const KeyGradient& t : {KeyGradient{1, "dK", got.dk, ref.dk, ref.dk_abs, ref.dk_count, written_k, d.d_k, d.k_sb,
                                           d.k_sh, d.k_st, kappa_max, d.Tq * group * (d.d_v + 2.0)},
                               KeyGradient{2, "dV", got.dv, ref.dv, ref.dv_abs, ref.dv_count, written_v, d.d_v, d.v_sb,
                                           d.v_sh, d.v_st, rho_max, d.Tq * group * 1.0}})
    for (int32_t b = 0; b < d.B; ++b)
      for (int32_t h = 0; h < Hkv; ++h)
        for (int32_t j = 0; j < d.Tk; ++j)
          for (int32_t c = 0; c < t.width; ++c) {
            const size_t at =
                static_cast<size_t>(b) * t.sb + static_cast<size_t>(h) * t.sh + static_cast<size_t>(j) * t.st + c;
            t.written[at] = true;
            const size_t r = ((static_cast<size_t>(b) * Hkv + h) * d.Tk + j) * t.width + c;
            if (t.count[r] == 0.0)
              ASSERT_EQ(bits(t.got[at]), bits(0.0f)) << "a key no query sees: " << t.name << " = +0";
            const double bound = 1.01 * (t.coeff + g_k * kU) * t.abs[r] + kTinyAbs * t.count[r] +
                                 reference_slack(static_cast<int64_t>(t.n), t.abs[r]);
            expect_close(t.which, t.got[at], t.ref[r], bound, t.name, at);
          }
  for (size_t x = 0; x < p.q.size(); ++x)
    if (!written_q[x]) ASSERT_TRUE(std::isnan(got.dq[x])) << "dq written outside the tensor at " << x;
  for (size_t x = 0; x < p.k.size(); ++x)
    if (!written_k[x]) ASSERT_TRUE(std::isnan(got.dk[x])) << "dk written outside the tensor at " << x;
  for (size_t x = 0; x < p.v.size(); ++x)
    if (!written_v[x]) ASSERT_TRUE(std::isnan(got.dv[x])) << "dv written outside the tensor at " << x;
}

void check_both(const Problem& p, int offset = 0) {
  for_each_variant([&](Variant v) { check(v, p, offset); });
}

TEST(AttentionBackward, OneSliceAtLengthsAroundTheBlockAndTheTile) {
  // Tq around the block of 64 query rows, Tk around the tile of 256 keys,
  // widths around the four lanes; every start offset.
  uint32_t seed = 100;
  for (int32_t Tq : {1, 5, 64, 67}) {
    for (int32_t Tk : {1, 7, 256, 261}) {
      for (int32_t dk : {1, 4, 9}) {
        SCOPED_TRACE(::testing::Message() << "Tq=" << Tq << " Tk=" << Tk << " d_k=" << dk);
        const int32_t dv = dk == 4 ? 6 : dk;
        check_both(make_problem(1, 1, Tq, Tk, dk, dv, false, seed), static_cast<int>(seed % 4));
        seed += 10;
      }
    }
  }
}

TEST(AttentionBackward, BatchesAndHeadsReadInPlace) {
  // [B, T, H d] tensors with padded rows (heads interleaved) and [B, H, T, d].
  for (bool interleaved : {true, false}) {
    SCOPED_TRACE(::testing::Message() << "interleaved=" << interleaved);
    check_both(make_problem(2, 3, 9, 13, 8, 5, interleaved, 200, 1, 3));
    check_both(make_problem(2, 2, 70, 40, 4, 4, interleaved, 210, 1, 1), 2);
  }
}

TEST(AttentionBackward, SharedKeyValueHeadsAddIntoOneGradient) {
  for (int32_t group : {2, 4}) {
    SCOPED_TRACE(::testing::Message() << "kv_group=" << group);
    check_both(make_problem(2, 4, 11, 17, 8, 8, true, 300 + group, group));
  }
}

TEST(AttentionBackward, CausalWithOffsetsAndAWindow) {
  for (int32_t offset : {0, 3, -2, 250}) {
    for (int32_t window : {0, 5}) {
      for (int32_t Tq : {9, 70}) {
        SCOPED_TRACE(::testing::Message() << "causal_offset=" << offset << " window=" << window << " Tq=" << Tq);
        Problem p = make_problem(1, 2, Tq, 300, 4, 3, false, 400 + offset + window);
        p.d.causal = 1, p.d.causal_offset = offset, p.d.window = window;
        check_both(p);
      }
    }
  }
}

TEST(AttentionBackward, MasksWithHiddenKeysAndBlindRows) {
  // -Infinity entries, and rows 0 and 3 hidden entirely: zero gradients, never NaN.
  Problem p = make_problem(2, 2, 6, 10, 5, 4, true, 500);
  add_mask(p, 0.3, 501, {0, 3});
  check_both(p);
  // Broadcast masks: one [Tq, Tk] for every batch and head, a key-padding
  // row [B, 1, 1, Tk].
  Problem shared = make_problem(2, 3, 7, 9, 4, 4, false, 510);
  add_mask(shared, 0.2, 511);
  shared.d.m_sb = 0, shared.d.m_sh = 0;
  check_both(shared);
  Problem padding = make_problem(2, 3, 7, 9, 4, 4, false, 520);
  add_mask(padding, 0.4, 521);
  padding.d.m_sh = 0, padding.d.m_si = 0, padding.d.m_sb = 9 * 7 * 3;
  check_both(padding);
  // With causal: some rows see only masked keys.
  Problem causal = make_problem(1, 1, 12, 12, 3, 3, false, 530);
  add_mask(causal, 0.5, 531);
  causal.d.causal = 1;
  check_both(causal);
}

TEST(AttentionBackward, HiddenKeysAddNothingEvenWhereDPOverflows) {
  // dY . v_j overflows float32 (|dY| |v| ~ 1e40) for every key, and row 0
  // sees none of them (its mask hides all): its dQ is +0, not 0 * Infinity.
  // (A fuzz regression, tests/fuzz/regressions/attention.) Row 1 sees every
  // key: its dS = scale P (dP - D) is not finite from key 0 on, reported as
  // -(1 + 1 Tk + 0).
  Problem p = make_problem(1, 1, 2, 3, 2, 2, false, 650);
  add_mask(p, 0.0, 651, {0});
  for (float& x : p.dy) x = 1e20f;
  for (float& x : p.v) x = 1e20f;
  for_each_variant([&](Variant v) {
    const Grads g = run(v, p);
    EXPECT_EQ(g.status, -(1 + 3 + 0));
    for (int32_t c = 0; c < 2; ++c) EXPECT_EQ(bits(g.dq[c]), bits(0.0f)) << "c=" << c;
  });
}

TEST(AttentionBackward, LargeScoresNeedTheMax) {
  // Scores near 80 (scale 10, |q.k| up to 8): exp of the raw scores would overflow.
  Problem p = make_problem(1, 1, 8, 20, 8, 4, false, 600);
  p.scale = 10.0f;
  check_both(p);
}

TEST(AttentionBackward, ScoreGradientOverflowIsNamed) {
  // Finite scores, weights and dQ, dK, dV in float64, but for query 0
  // dP = dY_0 . v_j = (3e38, -3e38) and D = sum_j P_0j dP_0j ~ 1.9e38, so
  // dP_01 - D ~ -4.9e38 is past FLT_MAX: the status is -(1 + 0 Tk + 1).
  Problem p = make_problem(1, 1, 2, 2, 4, 2, false, 710);
  p.q = {1, 0, 1, 0, 0, 1, 0, 1};
  p.k = {1, 2, 1, 0, -1, -2, 0, 1};
  p.v = {3e38f, 0, -3e38f, 1};
  p.dy = {1, 0, 0, 1};
  p.scale = 0.5f;
  for_each_variant([&](Variant v) { EXPECT_EQ(run(v, p).status, -(1 + 1)); });
}

TEST(AttentionBackward, StatusIsAttentionsStreamingStatus) {
  // One score overflows float32: the status names it as attention does.
  Problem p = make_problem(1, 1, 2, 330, 2, 1, false, 700);
  p.q = {1e20f, 0.0f, 0.0f, -1e20f};
  for (float& x : p.k) x = 1e-30f;
  p.k[300 * 2] = 1e20f;
  p.scale = 1.0f;
  for_each_variant([&](Variant v) { EXPECT_EQ(run(v, p).status, 1 + 300); });
}

TEST(AttentionBackward, WorkspaceIsOTd) {
  ag_attention_dims d{};
  d.B = 3, d.H = 5, d.Tq = 1000, d.Tk = 7000, d.d_k = 16, d.d_v = 12;
  EXPECT_EQ(ag_attention_backward_workspace_floats(&d),
            static_cast<size_t>(AG_ATTENTION_STREAMING_WORK_FLOATS) + 2 * 64 * 256 + 1000 * (12 + 3));
}

}  // namespace
}  // namespace ag::test
