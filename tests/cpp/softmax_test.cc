// Tests of the softmax family (exp, softmax, softmax_naive, log_sum_exp,
// entropy_bits, softmax_jacobian), both variants, against the float64
// reference in reference_attention.cc.
//
// Tolerances come from the error analysis of each kernel (registry.inc and
// the kernel files), not from what passed. The two variants sum in different
// orders (scalar: blocks of 4 in a binary tree; simd128: 8 partial sums over
// blocks of 64, then a tree) and use different exp and log2 (the C library's
// against the simd128 polynomials), so they are compared with the reference,
// each within its own bound, never with each other, except where the kernel
// documents identical operations (the Jacobian).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"
#include "reference_attention.h"
#include "test_util.h"

namespace ag::test {
namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();

// Error bound of each variant's exp in units in the last place of the float32
// result (the ulp of the exact value: 2^-149 in the subnormal range).
//  scalar: the C library's expf; glibc and musl both document/measure < 1 ulp.
//  simd128: the bound stated in registry.inc, checked by ExpUlpSweep below.
double exp_ulp_bound(Variant v) { return v == Variant::kScalar ? 1.0 : 2.0; }
// The relative error that a bound of E ulp allows: an ulp is at most 2u of the
// value in the normal range.
double exp_rel_bound(Variant v) { return 2.0 * exp_ulp_bound(v) * kU; }
// log2 in entropy_bits, in ulps of the result: the C library's log2f (< 1 ulp)
// and the simd128 polynomial (checked by EntropyTermSweep).
double log2_ulp_bound(Variant v) { return v == Variant::kScalar ? 1.0 : 2.0; }

// Size of one float32 ulp at the magnitude of the double x.
double ulp_at(double x) {
  const double a = std::fabs(x);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);  // a = f 2^e, f in [0.5, 1)
  return std::ldexp(1.0, e - 24);
}

float float_from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Subnormal and underflowing weights: exp's result and the division each
// round to a multiple of 2^-149, whatever the relative bound says; 2^-147
// covers both with room.
constexpr double kTinyAbs = 0x1p-147;

// The largest |error| / bound seen per variant and kernel, printed once at the
// end of the run, so that a log shows how much of each bound is used.
struct Usage {
  const char* name;
  double worst[2] = {0.0, 0.0};
};
Usage g_softmax{"softmax"}, g_naive{"softmax_naive"}, g_lse{"log_sum_exp"}, g_entropy{"entropy_bits"},
    g_jacobian{"softmax_jacobian"};
void note(Usage& u, Variant v, double err, double bound) {
  double& w = u.worst[v == Variant::kScalar ? 0 : 1];
  if (bound > 0.0) w = std::max(w, err / bound);
}
class UsageReport : public ::testing::Environment {
 public:
  void TearDown() override {
    for (const Usage* u : {&g_softmax, &g_naive, &g_lse, &g_entropy, &g_jacobian})
      std::printf("[ bound usage ] %-18s scalar %.3f  simd128 %.3f (max |error| / bound)\n", u->name, u->worst[0],
                  u->worst[1]);
  }
};
const ::testing::Environment* const g_usage_report = ::testing::AddGlobalTestEnvironment(new UsageReport);

// ----------------------------------------------------------------------------
// exp
// ----------------------------------------------------------------------------

// Every 97th float32 (in bit order) in [-104, 89], through the kernel in
// batches, against double exp, in ulps of the exact result. Above ln(FLT_MAX)
// the result must be +Infinity; below, finite within the bound.
TEST(Exp, UlpSweepEvery97thFloat) {
  const double ln_flt_max = std::log(static_cast<double>(FLT_MAX));
  for_each_variant([&](Variant v) {
    auto exp_kernel = AG_VARIANT(exp, v);
    std::vector<float> x, y;
    double max_ulp = 0.0;
    float worst = 0.0f;
    int64_t count = 0, bad_overflow = 0;
    auto flush = [&]() {
      y.resize(x.size());
      exp_kernel(x.data(), static_cast<int32_t>(x.size()), y.data());
      for (size_t i = 0; i < x.size(); ++i) {
        const double ref = std::exp(static_cast<double>(x[i]));
        if (static_cast<double>(x[i]) > ln_flt_max) {
          bad_overflow += y[i] != kInfF;
          continue;
        }
        const double err = std::fabs(static_cast<double>(y[i]) - ref) / ulp_at(ref);
        if (!(err <= max_ulp)) {  // also catches NaN
          max_ulp = std::isnan(err) ? INFINITY : err;
          worst = x[i];
        }
      }
      count += static_cast<int64_t>(x.size());
      x.clear();
    };
    // Negative floats from -104 up to -0 (descending bit patterns), then
    // positive ones from +0 to 89.
    const uint32_t neg_lo = 0x80000000u, neg_hi = 0xC2D00000u;  // -0, -104
    const uint32_t pos_hi = 0x42B20000u;                        // 89
    for (uint32_t b = neg_hi; b >= neg_lo + 97; b -= 97) {
      x.push_back(float_from_bits(b));
      if (x.size() == 8192) flush();
    }
    for (uint32_t b = 0; b <= pos_hi; b += 97) {
      x.push_back(float_from_bits(b));
      if (x.size() == 8192) flush();
    }
    flush();
    RecordProperty(std::string("max_ulp_") + variant_name(v), std::to_string(max_ulp));
    std::printf("[ exp %s ] %lld inputs, max error %.3f ulp at x = %.9g\n", variant_name(v),
                static_cast<long long>(count), max_ulp, worst);
    EXPECT_GT(count, 20000000);
    EXPECT_LE(max_ulp, exp_ulp_bound(v)) << "worst x = " << worst;
    EXPECT_EQ(bad_overflow, 0);
  });
}

TEST(Exp, SpecialValuesAndRangeEnds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // The largest float whose exp is finite, and the next one.
  const float last_finite = 88.72283172607421875f, first_inf = std::nextafter(last_finite, 100.0f);
  const std::vector<float> x = {0.0f,    -0.0f,   kInfF,   -kInfF, nan,   last_finite, first_inf, 100.0f,
                                -103.0f, -104.0f, -200.0f, 1.0f,   -1.0f, 0.5f,        1e-8f,     -1e-8f};
  for_each_variant([&](Variant v) {
    for (int offset = 0; offset <= kMaxOffset; ++offset) {
      OffsetBuffer in(x, offset), out(x.size(), offset);
      AG_VARIANT(exp, v)(in.data(), static_cast<int32_t>(x.size()), out.data());
      const float* y = out.data();
      EXPECT_EQ(bits(y[0]), bits(1.0f));  // exp(0) = 1 exactly
      EXPECT_EQ(bits(y[1]), bits(1.0f));
      EXPECT_EQ(y[2], kInfF);
      EXPECT_EQ(bits(y[3]), bits(0.0f));
      EXPECT_TRUE(std::isnan(y[4]));
      EXPECT_TRUE(std::isfinite(y[5]));
      EXPECT_NEAR(y[5], std::exp(static_cast<double>(last_finite)), 2 * ulp_at(FLT_MAX));
      EXPECT_EQ(y[6], kInfF);
      EXPECT_EQ(y[7], kInfF);
      // exp(-103) ~ 1.4e-45 ~ 2^-149: the smallest subnormal, within 1 ulp.
      EXPECT_NEAR(y[8], std::exp(-103.0), 0x1p-149);
      EXPECT_EQ(bits(y[9]), bits(0.0f));  // exp(-104) < 2^-150 rounds to +0
      EXPECT_EQ(bits(y[10]), bits(0.0f));
      for (int i = 11; i < 16; ++i) {
        const double ref = std::exp(static_cast<double>(x[i]));
        EXPECT_LE(std::fabs(y[i] - ref), exp_ulp_bound(v) * ulp_at(ref)) << "x = " << x[i];
      }
    }
  });
}

TEST(Exp, AllLengthsAndOffsets) {
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const std::vector<float> x = random_floats(n, -20.0f, 20.0f, 1000 + n);
      OffsetBuffer in(x, offset), out(n, offset, -1.0f);
      AG_VARIANT(exp, v)(in.data(), n, out.data());
      for (int32_t i = 0; i < n; ++i) {
        const double ref = std::exp(static_cast<double>(x[i]));
        ASSERT_LE(std::fabs(out.data()[i] - ref), exp_ulp_bound(v) * ulp_at(ref)) << "i = " << i;
      }
    });
  });
}

// ----------------------------------------------------------------------------
// softmax
// ----------------------------------------------------------------------------

// Bound on |y_i - ref_i| for the stable softmax, from the analysis:
//   the float z_i differs from the exact x_i / T + mask_i by eta_i, with
//   |eta_i| <= u |x_i / T| (division, unless T = 1) + u |z_i| (mask addition)
//   + u |z_i - m| (the subtraction of the max; the max itself is one of the
//   float z's and cancels between numerator and sum). With D = max |eta_i|,
//   y_i / ref_i = e^{eta_i} (1 + e_i)(1 + d) / (sum_j ref_j e^{eta_j}(1 + e_j)(1 + s))
//   where |e_i| <= exp's relative bound, |s| <= (2 ceil(log2 n) + 1) u (the
//   pairwise sum of positive terms) and |d| <= c u (c = normalize_roundings:
//   1 for the division, 2 for a reciprocal and a product), so to first order
//   |y_i / ref_i - 1| <= 2 D + 2 e + (2 ceil(log2 n) + 1 + c) u. Two more u
//   (and a 1% margin) cover the second-order terms; kTinyAbs covers the
//   subnormal range, where relative bounds do not hold.
struct SoftmaxCase {
  int32_t rows, n;
  float temperature;
  bool with_mask;
};

double softmax_relative_bound(Variant v, int32_t n, double max_eta) {
  return 1.01 * (2.0 * max_eta + 2.0 * exp_rel_bound(v) + (2.0 * ceil_log2(n) + 3.0 + normalize_roundings(v)) * kU);
}

void check_softmax(Variant v, const std::vector<float>& x, const std::vector<float>* mask, int32_t rows, int32_t n,
                   float temperature, int offset) {
  OffsetBuffer xb(x, offset), yb(x.size(), offset, -1.0f);
  std::unique_ptr<OffsetBuffer> mb;
  if (mask) mb = std::make_unique<OffsetBuffer>(*mask, offset);
  AG_VARIANT(softmax, v)(xb.data(), mb ? mb->data() : nullptr, rows, n, temperature, yb.data());
  const std::vector<double> ref = reference::softmax(x.data(), mask ? mask->data() : nullptr, rows, n, temperature);
  const float* y = yb.data();
  for (int32_t r = 0; r < rows; ++r) {
    // The float z's as the kernel forms them, for the eta bound.
    std::vector<double> z(n);
    double m = -INFINITY;
    for (int32_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(r) * n + i;
      float zi = x[at] / temperature;
      if (mask) zi += (*mask)[at];
      z[i] = zi;
      m = std::max(m, z[i]);
    }
    double max_eta = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      if (std::isinf(z[i])) continue;
      const size_t at = static_cast<size_t>(r) * n + i;
      double eta = kU * std::fabs(z[i] - m);
      if (temperature != 1.0f) eta += kU * std::fabs(static_cast<double>(x[at]) / temperature);
      if (mask) eta += kU * std::fabs(z[i]);
      max_eta = std::max(max_eta, eta);
    }
    const double rel = softmax_relative_bound(v, n, max_eta);
    double sum = 0.0;
    for (int32_t i = 0; i < n; ++i) {
      const size_t at = static_cast<size_t>(r) * n + i;
      ASSERT_FALSE(std::isnan(y[at])) << "row " << r << " i " << i;
      ASSERT_GE(y[at], 0.0f);
      note(g_softmax, v, std::fabs(y[at] - ref[at]), rel * ref[at] + kTinyAbs);
      ASSERT_LE(std::fabs(y[at] - ref[at]), rel * ref[at] + kTinyAbs)
          << "row " << r << " i " << i << " y " << y[at] << " ref " << ref[at];
      if (std::isinf(z[i])) {
        ASSERT_EQ(bits(y[at]), bits(0.0f)) << "a -Infinity logit must give an exact +0 weight";
      }
      sum += y[at];
    }
    if (m == -INFINITY) {
      EXPECT_EQ(sum, 0.0) << "a fully masked row gives all-zero weights";
    } else {
      // registry.inc: each row sums to 1 within (2 ceil(log2 n) + 5 + c) u,
      // c = normalize_roundings (the sum, here in double, is exact to well
      // below that).
      EXPECT_LE(std::fabs(sum - 1.0), (2.0 * ceil_log2(n) + 5.0 + normalize_roundings(v)) * kU) << "row " << r;
    }
  }
}

TEST(Softmax, AllLengthsOffsetsTemperaturesAndMasks) {
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const int32_t rows = n >= 1000 ? 2 : 3;
      const size_t total = static_cast<size_t>(rows) * n;
      const std::vector<float> x = random_floats(total, -10.0f, 10.0f, 7 * n + 1);
      std::vector<float> mask = random_floats(total, -3.0f, 3.0f, 11 * n + 2);
      // Every third entry masked out; the first row keeps at least its
      // first entry visible only when it is not a multiple of 3.
      for (size_t i = 0; i < total; i += 3) mask[i] = -kInfF;
      for (float temperature : {1.0f, 0.5f, 3.0f}) {
        SCOPED_TRACE(::testing::Message() << "temperature " << temperature);
        check_softmax(v, x, nullptr, rows, n, temperature, offset);
        check_softmax(v, x, &mask, rows, n, temperature, offset);
      }
    });
  });
}

// XNNPACK's habit: logits in [90, 100] overflow exp unless the max is
// subtracted. The stable softmax must be accurate there; the naive one must
// overflow (exp(x) = +Infinity for every x > 88.72, so every weight is
// Infinity / Infinity = NaN).
TEST(Softmax, LogitsIn90To100) {
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const int32_t rows = 2;
      const std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, 90.0f, 100.0f, 5 * n + 3);
      check_softmax(v, x, nullptr, rows, n, 1.0f, offset);
      OffsetBuffer xb(x, offset), yb(x.size(), offset);
      AG_VARIANT(softmax_naive, v)(xb.data(), rows, n, yb.data());
      for (size_t i = 0; i < x.size(); ++i) ASSERT_TRUE(std::isnan(yb.data()[i])) << "i = " << i;
    });
  });
}

TEST(Softmax, FullyMaskedRowsGiveZerosNotNaN) {
  for_each_variant([&](Variant v) {
    for (int32_t n : {1, 3, 4, 5, 8, 17, 64, 65}) {
      const int32_t rows = 3;
      const std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, -5.0f, 5.0f, n);
      std::vector<float> mask(static_cast<size_t>(rows) * n, 0.0f);
      for (int32_t i = 0; i < n; ++i) mask[n + i] = -kInfF;  // row 1: nothing visible
      mask[2 * n + n - 1] = -kInfF;                          // row 2: last entry hidden
      std::vector<float> y(x.size(), -1.0f);
      AG_VARIANT(softmax, v)(x.data(), mask.data(), rows, n, 1.0f, y.data());
      for (int32_t i = 0; i < n; ++i) EXPECT_EQ(bits(y[n + i]), bits(0.0f)) << "n " << n << " i " << i;
      check_softmax(v, x, &mask, rows, n, 1.0f, 0);
    }
  });
}

// registry.inc: a non-finite x gives 1 + its flat index (the first one), so
// that the caller may leave the input's check to the kernel. Both variants,
// with and without the temperature, at every position of rows long enough
// for the vector loops and their tails.
TEST(Softmax, NonFiniteInputGivesItsIndex) {
  for_each_variant([&](Variant v) {
    for (int32_t n : {1, 3, 4, 5, 16, 17, 67}) {
      const int32_t rows = 3;
      for (float bad : {std::nanf(""), kInfF, -kInfF}) {
        for (int32_t at : {0, n - 1, n + n / 2, 3 * n - 1}) {
          for (float temperature : {1.0f, 2.0f}) {
            std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, -5.0f, 5.0f, n + at);
            x[at] = bad;
            if (at + n < rows * n) x[at + n] = bad;  // a later one is not reported
            std::vector<float> y(x.size(), -1.0f);
            const int32_t status = AG_VARIANT(softmax, v)(x.data(), nullptr, rows, n, temperature, y.data());
            EXPECT_EQ(status, 1 + at) << "n " << n << " at " << at << " value " << bad << " T " << temperature;
          }
        }
      }
    }
  });
}

// The simd128 variant finds a NaN x_i by the NaN sum of its row's exps, not
// in the pass that takes the max (softmax_simd128.cc). Rows whose spread
// max - min passes 86.5 take exp4 rather than exp4_normal: a NaN must show
// on both paths, and with a -NaN and a NaN with a payload too.
TEST(Softmax, NaNInputGivesItsIndexOnBothExpPaths) {
  const float nans[] = {std::nanf(""), -std::nanf(""), std::nanf("0x12345")};
  for_each_variant([&](Variant v) {
    for (int32_t n : {2, 5, 16, 67, 256}) {
      for (float spread : {10.0f, 120.0f}) {
        for (float bad : nans) {
          for (int32_t at : {0, n / 2, n - 1}) {
            const int32_t rows = 2;
            std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, -1.0f, 1.0f, n + at);
            x[static_cast<size_t>(n) + (at + 1) % n] = -spread;  // row 1: its spread
            x[static_cast<size_t>(n) + at] = bad;
            std::vector<float> y(x.size(), -1.0f);
            const int32_t status = AG_VARIANT(softmax, v)(x.data(), nullptr, rows, n, 1.0f, y.data());
            EXPECT_EQ(status, 1 + n + at) << "n " << n << " spread " << spread << " at " << at;
            // Row 0 is whole and right (its z_i - max z, all within [-2, 0], round by at most 2u).
            const std::vector<double> ref = reference::softmax(x.data(), nullptr, 1, n, 1.0);
            const double rel = softmax_relative_bound(v, n, 2.0 * kU);
            for (int32_t i = 0; i < n; ++i) EXPECT_LE(std::fabs(y[i] - ref[i]), rel * ref[i] + kTinyAbs) << "i " << i;
          }
        }
      }
    }
  });
}

// Each row's weights depend on that row alone: the simd128 variant scales
// row r in the same pass that takes the max of row r + 1 (softmax_simd128.cc),
// and a row after a non-finite one takes its max on its own. Every row whose
// x is all finite, rows after a bad one included, equals the softmax of that
// row alone bit for bit (registry.inc leaves a bad row's weights
// unspecified: it is not a right answer, and the caller throws).
TEST(Softmax, RowsAreIndependentOfTheirNeighbours) {
  for_each_variant([&](Variant v) {
    for (int32_t n : {1, 3, 4, 7, 8, 9, 16, 17, 64, 67, 256}) {
      const int32_t rows = 5;
      std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, -20.0f, 20.0f, 3 * n + 1);
      x[static_cast<size_t>(n) + n / 2] = std::nanf("");  // row 1
      x[static_cast<size_t>(3) * n] = kInfF;              // row 3
      std::vector<float> y(x.size(), -1.0f);
      const int32_t status = AG_VARIANT(softmax, v)(x.data(), nullptr, rows, n, 1.0f, y.data());
      EXPECT_EQ(status, 1 + n + n / 2) << "n " << n;
      for (int32_t r = 0; r < rows; ++r) {
        std::vector<float> alone(n, -1.0f);
        const int32_t row_status =
            AG_VARIANT(softmax, v)(x.data() + static_cast<size_t>(r) * n, nullptr, 1, n, 1.0f, alone.data());
        for (int32_t i = 0; i < n; ++i) {
          if (row_status != 0) break;
          ASSERT_EQ(bits(y[static_cast<size_t>(r) * n + i]), bits(alone[i])) << "n " << n << " row " << r << " i " << i;
        }
        EXPECT_EQ(row_status != 0, r == 1 || r == 3) << "n " << n << " row " << r;
      }
    }
  });
}

// The worked example of the first article: scores 5, -4, 0.
TEST(Softmax, WorkedExample) {
  const float x[3] = {5.0f, -4.0f, 0.0f};
  // exp(5), exp(-4), exp(0) over their sum, from the closed form in double.
  const double expected[3] = {0.9931854005948175, 0.00012256881570915675, 0.0066920305894733485};
  for_each_variant([&](Variant v) {
    float y[3];
    AG_VARIANT(softmax, v)(x, nullptr, 1, 3, 1.0f, y);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[i], expected[i], 8 * kU * expected[i]);
  });
}

TEST(SoftmaxNaive, MatchesReferenceBelowOverflow) {
  // Without a max, z_i = x_i exactly, so only exp, the sum and the division
  // round: |y_i / ref_i - 1| <= 2 e + (2 ceil(log2 n) + 2) u to first order.
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const int32_t rows = 2;
      const std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, -20.0f, 20.0f, 3 * n + 7);
      OffsetBuffer xb(x, offset), yb(x.size(), offset);
      AG_VARIANT(softmax_naive, v)(xb.data(), rows, n, yb.data());
      const std::vector<double> ref = reference::softmax(x.data(), nullptr, rows, n, 1.0);
      const double rel = softmax_relative_bound(v, n, 0.0);
      for (size_t i = 0; i < x.size(); ++i) {
        note(g_naive, v, std::fabs(yb.data()[i] - ref[i]), rel * ref[i] + kTinyAbs);
        ASSERT_LE(std::fabs(yb.data()[i] - ref[i]), rel * ref[i] + kTinyAbs) << "i = " << i;
      }
    });
  });
}

TEST(SoftmaxNaive, OneLargeLogitPoisonsItsRowOnly) {
  for_each_variant([&](Variant v) {
    // Row 0: 89 overflows exp (> 88.72): Infinity / Infinity = NaN there and
    // finite / Infinity = 0 elsewhere. Row 1: 88 does not overflow.
    const float x[8] = {1.0f, 89.0f, 2.0f, 3.0f, 1.0f, 88.0f, 2.0f, 3.0f};
    float y[8];
    AG_VARIANT(softmax_naive, v)(x, 2, 4, y);
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], 0.0f);
    const std::vector<double> ref = reference::softmax(x + 4, nullptr, 1, 4, 1.0);
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(std::isfinite(y[4 + i]));
      EXPECT_LE(std::fabs(y[4 + i] - ref[i]), softmax_relative_bound(v, 4, 0.0) * ref[i] + kTinyAbs);
    }
  });
}

// ----------------------------------------------------------------------------
// log_sum_exp
// ----------------------------------------------------------------------------

// out = m + log S with S = sum exp(x_i - m) in [1, n]. The computed S has
// relative error <= e + (2 ceil(log2 n) + 1) u (exp, then the pairwise sum),
// which log turns into an absolute error of about the same size; log itself
// adds 1 ulp (2u |log S|) in the scalar variant's logf, which the simd128
// variant uses too, and the final addition u |out|. x - m is exact here
// (Sterbenz) only when x and m are close, so u |x_i - m| per term is added as
// for softmax.
TEST(LogSumExp, AllLengthsAndOffsets) {
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      for (float lo : {-10.0f, 90.0f, -300.0f}) {
        const int32_t rows = 2;
        const std::vector<float> x = random_floats(static_cast<size_t>(rows) * n, lo, lo + 20.0f, 13 * n + 5);
        OffsetBuffer xb(x, offset), out(rows, offset);
        AG_VARIANT(log_sum_exp, v)(xb.data(), rows, n, out.data());
        const std::vector<double> ref = reference::log_sum_exp(x.data(), rows, n);
        for (int32_t r = 0; r < rows; ++r) {
          double m = -INFINITY, max_eta = 0.0;
          for (int32_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x[r * n + i]));
          for (int32_t i = 0; i < n; ++i) max_eta = std::max(max_eta, kU * std::fabs(x[r * n + i] - m));
          const double tol = 1.01 * (max_eta + exp_rel_bound(v) + (2.0 * ceil_log2(n) + 2.0) * kU +
                                     2.0 * kU * std::fabs(ref[r] - m) + kU * std::fabs(ref[r]));
          note(g_lse, v, std::fabs(out.data()[r] - ref[r]), tol);
          ASSERT_LE(std::fabs(out.data()[r] - ref[r]), tol) << "row " << r << " lo " << lo;
        }
      }
    });
  });
}

TEST(LogSumExp, RowOfMinusInfinityAndMixedRows) {
  for_each_variant([&](Variant v) {
    const float x[8] = {-kInfF, -kInfF, -kInfF, -kInfF, -kInfF, 2.0f, -kInfF, 2.0f};
    float out[2];
    AG_VARIANT(log_sum_exp, v)(x, 2, 4, out);
    EXPECT_EQ(out[0], -kInfF);
    // log(2 e^2) = 2 + ln 2.
    EXPECT_NEAR(out[1], 2.0 + std::log(2.0), 4 * kU * 3.0);
  });
}

// ----------------------------------------------------------------------------
// entropy_bits
// ----------------------------------------------------------------------------

// Each term t_i = p_i log2 p_i has relative error <= 2u (per ulp of log2) + u
// (the product); the pairwise sum adds (2 ceil(log2 n) + 1) u sum |t_i|.
double entropy_tolerance(Variant v, int32_t n, double sum_abs) {
  return 1.01 * ((2.0 * log2_ulp_bound(v) + 1.0) * kU + (2.0 * ceil_log2(n) + 1.0) * kU) * sum_abs;
}

TEST(EntropyBits, AllLengthsAndOffsets) {
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      // A distribution: positive weights normalised in double, with a few
      // exact zeros (0 log 0 = 0) and a wide range of magnitudes.
      std::vector<float> raw = random_floats(n, -30.0f, 0.0f, 17 * n + 9);
      std::vector<double> w(n);
      double total = 0.0;
      for (int32_t i = 0; i < n; ++i) total += (w[i] = (i % 5 == 4) ? 0.0 : std::exp(raw[i]));
      std::vector<float> p(n);
      for (int32_t i = 0; i < n; ++i) p[i] = static_cast<float>(w[i] / (total > 0 ? total : 1.0));
      if (total == 0.0) p[0] = 1.0f;
      OffsetBuffer pb(p, offset);
      const float h = AG_VARIANT(entropy_bits, v)(pb.data(), n);
      double sum_abs = 0.0;
      const double ref = reference::entropy_bits(p.data(), n, &sum_abs);
      note(g_entropy, v, std::fabs(h - ref), entropy_tolerance(v, n, sum_abs));
      ASSERT_LE(std::fabs(h - ref), entropy_tolerance(v, n, sum_abs));
    });
  });
}

TEST(EntropyBits, ExactCases) {
  for_each_variant([&](Variant v) {
    // Uniform over 2^k outcomes: every p_i log2 p_i = -k 2^-k exactly, so
    // H = k bits with no rounding at all.
    for (int k = 0; k <= 12; ++k) {
      const std::vector<float> p(size_t{1} << k, std::ldexp(1.0f, -k));
      EXPECT_EQ(AG_VARIANT(entropy_bits, v)(p.data(), static_cast<int32_t>(p.size())), static_cast<float>(k));
    }
    // One-hot: 0 bits, +0 (not -0); zeros contribute nothing.
    const float one_hot[5] = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
    EXPECT_EQ(bits(AG_VARIANT(entropy_bits, v)(one_hot, 5)), bits(0.0f));
    // A fair coin and a biased one.
    const float coin[2] = {0.5f, 0.5f};
    EXPECT_EQ(AG_VARIANT(entropy_bits, v)(coin, 2), 1.0f);
    const float biased[2] = {0.25f, 0.75f};
    const double h = -(0.25 * std::log2(0.25) + 0.75 * std::log2(0.75));
    EXPECT_NEAR(AG_VARIANT(entropy_bits, v)(biased, 2), h, 8 * kU * h);
  });
}

// The single term -p log2 p over every 97th float in (0, 1], subnormals
// included: checks the log2 of each variant against its stated bound.
TEST(EntropyBits, TermSweepEvery97thFloat) {
  for_each_variant([&](Variant v) {
    double worst_rel = 0.0;
    float worst_p = 0.0f;
    int64_t count = 0;
    for (uint32_t b = 1; b <= 0x3F800000u; b += 97) {
      const float p = float_from_bits(b);
      const float h = AG_VARIANT(entropy_bits, v)(&p, 1);
      const double ref = -static_cast<double>(p) * std::log2(static_cast<double>(p));
      ++count;
      if (ref == 0.0) {
        ASSERT_EQ(h, 0.0f);
        continue;
      }
      // Relative to the term, plus the subnormal spacing of the product.
      const double err = std::max(0.0, std::fabs(h - ref) - 0x1p-150) / ref;
      if (err > worst_rel) worst_rel = err, worst_p = p;
    }
    std::printf("[ entropy term %s ] %lld inputs, max relative error %.3f u at p = %.9g\n", variant_name(v),
                static_cast<long long>(count), worst_rel / kU, worst_p);
    EXPECT_LE(worst_rel, (2.0 * log2_ulp_bound(v) + 1.0) * kU) << "worst p = " << worst_p;
  });
}

// ----------------------------------------------------------------------------
// softmax_jacobian
// ----------------------------------------------------------------------------

TEST(SoftmaxJacobian, AllLengthsAndOffsets) {
  for_each_variant([&](Variant v) {
    for (int32_t n : kLengths) {
      if (n > 1000) continue;  // J is n^2: 4099^2 floats would only slow the test down
      for (int offset = 0; offset <= kMaxOffset; ++offset) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " offset=" << offset);
        std::vector<float> raw = random_floats(n, -4.0f, 4.0f, 19 * n);
        const std::vector<double> a = reference::softmax(raw.data(), nullptr, 1, n, 1.0);
        std::vector<float> alpha(a.begin(), a.end());
        OffsetBuffer ab(alpha, offset), J(static_cast<size_t>(n) * n, offset);
        AG_VARIANT(softmax_jacobian, v)(ab.data(), n, J.data());
        const std::vector<double> ref = reference::softmax_jacobian(alpha.data(), n);
        for (size_t i = 0; i < ref.size(); ++i) {
          // Off the diagonal one rounding (u); on it at most two (2u), since
          // 1 - alpha_i is exact for alpha_i >= 1/2 and rounds once below.
          const double bound = 2.0 * kU * std::fabs(ref[i]) + 0x1p-149;
          note(g_jacobian, v, std::fabs(J.data()[i] - ref[i]), bound);
          ASSERT_LE(std::fabs(J.data()[i] - ref[i]), bound) << "i = " << i;
        }
      }
    }
  });
}

TEST(SoftmaxJacobian, VariantsAgreeBitForBit) {
  // Both variants do the same single product per entry (documented), so the
  // outputs must be identical.
  for (int32_t n : {1, 3, 4, 5, 17, 64, 65}) {
    std::vector<float> raw = random_floats(n, -4.0f, 4.0f, n);
    const std::vector<double> a = reference::softmax(raw.data(), nullptr, 1, n, 1.0);
    std::vector<float> alpha(a.begin(), a.end());
    std::vector<float> js(static_cast<size_t>(n) * n), jv(js.size());
    ag_softmax_jacobian__scalar(alpha.data(), n, js.data());
    ag_softmax_jacobian__simd128(alpha.data(), n, jv.data());
    for (size_t i = 0; i < js.size(); ++i) ASSERT_EQ(bits(js[i]), bits(jv[i])) << "n " << n << " i " << i;
  }
}

TEST(Softmax, OverflowOfTheLogitsIsReportedNotMasked) {
  // x / temperature and x + mask can overflow float32 with finite inputs; the
  // status is 1 + the flat index of the first such entry, 0 when none did,
  // and a -Infinity from the mask is no overflow.
  const float x[4] = {1.0f, 2.0f, 1e38f, 3e38f};
  const float mask[4] = {0.0f, -INFINITY, 0.0f, 0.0f};
  const float neg[2] = {-3e38f, -3e38f};
  for_each_variant([&](Variant v) {
    float y[4];
    EXPECT_EQ(AG_VARIANT(softmax, v)(x, nullptr, 2, 2, 1.0f, y), 0);
    EXPECT_EQ(AG_VARIANT(softmax, v)(x, mask, 1, 2, 1.0f, y), 0);
    EXPECT_EQ(y[0], 1.0f);
    // Row 0: 1e37 and 2e37 fit; row 1: 1e38 / 1e-37 = 1e75 does not (index 2).
    EXPECT_EQ(AG_VARIANT(softmax, v)(x, nullptr, 2, 2, 1e-37f, y), 3);
    EXPECT_EQ(AG_VARIANT(softmax, v)(x + 2, nullptr, 1, 2, 0.5f, y), 2);  // 2e38 fits, 6e38 does not
    EXPECT_EQ(AG_VARIANT(softmax, v)(neg, neg, 1, 2, 1.0f, y), 1);        // -6e38: -Infinity, not masked
  });
}

TEST(SoftmaxBackward, AllLengthsAndOffsets) {
  // dx_ij = y_ij (dy_ij - s_i), s_i = y_i . dy_i in the variant's dot order,
  // then a subtraction and a product (registry.inc): |error| <= y_ij
  // ((2 ceil(log2 n) + 1) u sum_k y_ik |dy_ik| + 2 u |dy_ij - s_i|), plus
  // 2^-149 for a product in the subnormal range. The variants' dots sum in
  // different orders, so each is compared with the reference.
  double worst[2] = {0.0, 0.0};
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const int32_t rows = 3;
      std::vector<float> raw = random_floats(static_cast<size_t>(rows) * n, -6.0f, 6.0f, 23 * n + offset);
      const std::vector<double> a = reference::softmax(raw.data(), nullptr, rows, n, 1.0);
      const std::vector<float> y(a.begin(), a.end());
      const std::vector<float> dy = random_floats(y.size(), -3.0f, 3.0f, 29 * n + offset);
      OffsetBuffer yb(y, offset), dyb(dy, offset), dx(y.size(), offset, std::nanf(""));
      AG_VARIANT(softmax_backward, v)(yb.data(), dyb.data(), rows, n, dx.data());
      std::vector<double> s_abs, d_abs;
      const std::vector<double> ref = reference::softmax_backward(y.data(), dy.data(), rows, n, &s_abs, &d_abs);
      for (size_t i = 0; i < ref.size(); ++i) {
        const double bound =
            (2.0 * ceil_log2(n) + 1.0) * kU * s_abs[i] + 2.0 * kU * d_abs[i] + 0x1p-149 + reference_slack(n, s_abs[i]);
        const double err = std::fabs(dx.data()[i] - ref[i]);
        worst[v == Variant::kScalar ? 0 : 1] = std::max(worst[v == Variant::kScalar ? 0 : 1], err / bound);
        ASSERT_LE(err, bound) << "i = " << i << " got " << dx.data()[i] << " ref " << ref[i];
      }
    });
  });
  std::printf("[ bound usage ] %-18s scalar %.3f  simd128 %.3f (max |error| / bound)\n", "softmax_backward", worst[0],
              worst[1]);
}

TEST(SoftmaxBackward, AOneHotRowPassesNothingBack) {
  // y one-hot: dx = 0 whatever dy (the softmax is saturated, its Jacobian
  // zero): exactly, since s = dy_k and dy_k - s = 0, and the other weights are 0.
  const float y[5] = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};
  const float dy[5] = {3.0f, -1.0f, 0.25f, 7.0f, -2.0f};
  for_each_variant([&](Variant v) {
    float dx[5];
    AG_VARIANT(softmax_backward, v)(y, dy, 1, 5, dx);
    for (float x : dx) EXPECT_EQ(x, 0.0f);
  });
}

}  // namespace
}  // namespace ag::test
