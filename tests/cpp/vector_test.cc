// Tests of the vector family against the float64 references, for both
// variants, every length of kLengths and start offsets 0..3.
//
// Tolerances come from the bounds in registry.inc (derivations next to each
// test), not from observed errors: the scalar and simd128 variants sum in
// different orders, so they are each held to the bound rather than to each
// other, except where the contract makes them bit-identical (the exact
// sixty-fourths case, and weighted_sum against this variant's dot).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "kernels.h"
#include "reference_vector.h"
#include "test_util.h"

namespace ag::test {
namespace {

namespace ref = ag::reference;

// Largest |error| / tolerance seen by a test, printed so that the margin to
// the bound is visible in the log (the assertions do the checking).
class Margin {
 public:
  explicit Margin(const char* what) : what_(what) {}
  ~Margin() {
    std::printf("[  margin  ] %-28s max |error| / tolerance = %.3g (n = %d), %.3g for n >= 2\n", what_, worst_,
                worst_n_, worst_n2_);
  }
  void check(double got, double expected, double tol, int32_t n) {
    const double err = std::fabs(got - expected);
    EXPECT_LE(err, tol) << "got " << got << " expected " << expected;
    if (tol <= 0) return;
    if (err / tol > worst_) {
      worst_ = err / tol;
      worst_n_ = n;
    }
    if (n >= 2) worst_n2_ = std::max(worst_n2_, err / tol);
  }

 private:
  const char* what_;
  double worst_ = 0.0, worst_n2_ = 0.0;
  int32_t worst_n_ = 0;
};

uint32_t seed_for(int32_t n, int offset, uint32_t salt) {
  return 1000003u * static_cast<uint32_t>(n) + 17u * offset + salt;
}

// Inputs in [-1, 1): mixed signs, so sums cancel and the bound, relative to
// sum|terms| rather than to the result, is what is tested.
struct Pair {
  OffsetBuffer a, b;
};
Pair random_pair(int32_t n, int offset) {
  return {OffsetBuffer(random_floats(n, -1.0f, 1.0f, seed_for(n, offset, 1)), offset),
          OffsetBuffer(random_floats(n, -1.0f, 1.0f, seed_for(n, offset, 2)), offset)};
}

TEST(Vector, DotWithinPairwiseBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "dot scalar" : "dot simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double sum_abs = ref::dot_abs(p.a.data(), p.b.data(), n);
      margin.check(AG_VARIANT(dot, v)(p.a.data(), p.b.data(), n), ref::dot(p.a.data(), p.b.data(), n),
                   pairwise_bound(n, sum_abs) + reference_slack(n, sum_abs), n);
    });
  });
}

TEST(Vector, SquaredNormWithinPairwiseBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "squared_norm scalar" : "squared_norm simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::squared_norm(p.a.data(), n);  // = sum|terms|
      margin.check(AG_VARIANT(squared_norm, v)(p.a.data(), n), expected,
                   pairwise_bound(n, expected) + reference_slack(n, expected), n);
    });
  });
}

// A difference a_i - b_i rounds once before it is squared: 3u per term instead
// of a product's u, hence two more u than dot's bound (see registry.inc).
TEST(Vector, SquaredDistanceWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "squared_distance scalar" : "squared_distance simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::squared_distance(p.a.data(), p.b.data(), n);
      margin.check(AG_VARIANT(squared_distance, v)(p.a.data(), p.b.data(), n), expected,
                   pairwise_bound(n, expected) + 2 * kU * expected + reference_slack(n, expected), n);
    });
  });
}

// |a|: the scaled sum of squares has relative error <= (2L + 1)u
// (L = ceil(log2 n)); the square root halves it and adds one rounding; the
// power-of-two scalings are exact: relative error <= (L + 1.5)u, tested with
// (L + 2)u for the second-order terms.
double norm_tolerance(int32_t n, double norm) { return (ceil_log2(n) + 2.0) * kU * norm; }

TEST(Vector, NormWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "norm scalar" : "norm simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::norm(p.a.data(), n);
      margin.check(AG_VARIANT(norm, v)(p.a.data(), n), expected, norm_tolerance(n, expected), n);
    });
  });
}

// Runs body(a, at) on a copy a of each of three vectors of length n (zeros,
// values in [-1, 1), values near FLT_MAX) for each place `at` where a test
// puts a non-finite entry: the head, the middle and the tail (in the SIMD
// variant's zero-padded remainder for lengths that are not multiples of 8).
template <typename Body>
void for_each_fill_and_place(int32_t n, Body&& body) {
  const std::vector<float> fills[] = {std::vector<float>(n, 0.0f), random_floats(n, -1.0f, 1.0f, seed_for(n, 0, 4)),
                                      std::vector<float>(n, FLT_MAX)};
  for (const std::vector<float>& fill : fills) {
    for (int32_t at : {0, n / 2, n - 1}) {
      SCOPED_TRACE(::testing::Message() << "fill " << fill[0] << " at " << at);
      std::vector<float> a = fill;
      body(a, at);
    }
  }
}

// Non-finite input (registry.inc, norm): NaN wherever the NaN is, also beside
// an Infinity; +Infinity for +-Infinity. A vector of zeros and NaNs is where
// a norm scaled by its largest finite |a_i| (0 there) could return 0: the
// NaN goes in at each place of for_each_fill_and_place.
TEST(Vector, NormOfNaNIsNaNOfInfinityIsInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      for_each_fill_and_place(n, [&](std::vector<float>& a, int32_t at) {
        a[at] = nan;
        EXPECT_TRUE(std::isnan(AG_VARIANT(norm, v)(OffsetBuffer(a, offset).data(), n)));
        a[at] = -nan;
        EXPECT_TRUE(std::isnan(AG_VARIANT(norm, v)(OffsetBuffer(a, offset).data(), n)));
        for (float x : {inf, -inf}) {
          a[at] = x;
          EXPECT_EQ(AG_VARIANT(norm, v)(OffsetBuffer(a, offset).data(), n), inf) << x;
        }
        if (n >= 2) {  // a NaN and an Infinity: NaN, whichever comes first
          a[at] = nan;
          a[at == 0 ? n - 1 : 0] = inf;
          EXPECT_TRUE(std::isnan(AG_VARIANT(norm, v)(OffsetBuffer(a, offset).data(), n)));
        }
      });
      // Every entry NaN, and the zero vector (still +0).
      EXPECT_TRUE(std::isnan(AG_VARIANT(norm, v)(OffsetBuffer(std::vector<float>(n, nan), offset).data(), n)));
      const float zero = AG_VARIANT(norm, v)(OffsetBuffer(std::vector<float>(n, -0.0f), offset).data(), n);
      EXPECT_EQ(bits(zero), bits(0.0f));
    });
  });
}

// normalize and angle scale each vector by a power of two near its largest
// |a_i|, which passes over NaN (as norm's does), so a NaN must reach the
// result some other way: in float64, a / |a| with |a| = NaN is NaN in every
// entry, and an angle with a NaN entry in a or in b is NaN. Never a number,
// whether the NaN lies among zeros, small values or values near FLT_MAX, and
// when every entry is NaN.
TEST(Vector, NormalizeAndAngleOfNaNAreNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for_each_variant([&](Variant v) {
    for_each_length_and_offset([&](int32_t n, int offset) {
      const OffsetBuffer other(random_floats(n, 0.5f, 1.0f, seed_for(n, offset, 5)), offset);  // no zero
      const auto expect_nan = [&](const std::vector<float>& a) {
        const OffsetBuffer in(a, offset);
        OffsetBuffer out(n, offset, 0.0f);
        AG_VARIANT(normalize, v)(in.data(), n, out.data());
        for (int32_t i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(out.data()[i])) << "normalize: out[" << i << "]";
        EXPECT_TRUE(std::isnan(AG_VARIANT(angle, v)(in.data(), other.data(), n))) << "angle(a, b), the NaN in a";
        EXPECT_TRUE(std::isnan(AG_VARIANT(angle, v)(other.data(), in.data(), n))) << "angle(a, b), the NaN in b";
        EXPECT_TRUE(std::isnan(AG_VARIANT(angle, v)(in.data(), in.data(), n))) << "angle(a, a)";
      };
      for_each_fill_and_place(n, [&](std::vector<float>& a, int32_t at) {
        for (float x : {nan, -nan}) {
          a[at] = x;
          expect_nan(a);
        }
      });
      expect_nan(std::vector<float>(n, nan));
    });
  });
}

// a_i / |a|: |a| to (L + 1.5)u as above, one division: (L + 3)u relative per
// element, plus 2^-149 absolute for an element that underflows when scaled.
TEST(Vector, NormalizeWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "normalize scalar" : "normalize simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      OffsetBuffer out(n, offset, std::nanf(""));
      AG_VARIANT(normalize, v)(p.a.data(), n, out.data());
      const std::vector<double> expected = ref::normalize(p.a.data(), n);
      for (int32_t i = 0; i < n; ++i) {
        margin.check(out.data()[i], expected[i], (ceil_log2(n) + 3.0) * kU * std::fabs(expected[i]) + 0x1p-149, n);
      }
    });
  });
}

// cos = a.b / (|a| |b|): the dot error (2L + 1)u sum|a_i b_i| divided by
// |a| |b|, plus |cos| times (L + 1.5)u for each norm and two roundings:
// (2L + 5)u |cos|, tested with (2L + 6)u.
double cosine_tolerance(int32_t n, double sum_abs, double norms, double cos) {
  const int L = ceil_log2(n);
  return (pairwise_bound(n, sum_abs) + reference_slack(n, sum_abs)) / norms + (2.0 * L + 6.0) * kU * std::fabs(cos);
}

TEST(Vector, CosineWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "cosine scalar" : "cosine simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::cosine(p.a.data(), p.b.data(), n);
      const double norms = ref::norm(p.a.data(), n) * ref::norm(p.b.data(), n);
      const float got = AG_VARIANT(cosine, v)(p.a.data(), p.b.data(), n);
      margin.check(got, expected, cosine_tolerance(n, ref::dot_abs(p.a.data(), p.b.data(), n), norms, expected), n);
      EXPECT_LE(std::fabs(got), 1.0f);
    });
  });
}

// theta = 2 atan2(|x - y|, |x + y|) with x, y the computed unit vectors. x
// differs from a^ by its norm's relative error (L + 1.5)u and a rounding per
// element, and theta moves by at most |dx| + |dy|: (2L + 5)u absolute. The
// two lengths |x -+ y| carry (L + 2.5)u each and atan2 a couple of u, relative
// to theta: (2L + 7)u theta. Tested with (2L + 8)u (1 + theta).
double angle_tolerance(int32_t n, double theta) { return (2.0 * ceil_log2(n) + 8.0) * kU * (1.0 + theta); }

TEST(Vector, AngleWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "angle scalar" : "angle simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::angle(p.a.data(), p.b.data(), n);
      margin.check(AG_VARIANT(angle, v)(p.a.data(), p.b.data(), n), expected, angle_tolerance(n, expected), n);
    });
  });
}

// Nearly parallel and nearly opposite vectors, where acos(cos) would lose
// half the digits (cos(1e-4) rounds to 1 in float32): the angle must still be
// within the absolute bound above.
TEST(Vector, AngleAccurateForNearlyParallelVectors) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "angle near 0/pi scalar" : "angle near 0/pi simd128");
    for (int32_t n : {2, 3, 17, 64, 1000}) {
      for (float sign : {1.0f, -1.0f}) {
        std::vector<float> a = random_floats(n, 0.5f, 1.0f, seed_for(n, 0, 3));
        std::vector<float> b(a);
        b[0] = a[0] * (1.0f + 1e-4f);  // theta ~ 1e-4 / sqrt(n)
        for (float& x : b) x *= sign;
        const double expected = ref::angle(a.data(), b.data(), n);
        margin.check(AG_VARIANT(angle, v)(a.data(), b.data(), n), expected, angle_tolerance(n, expected), n);
      }
    }
  });
}

// a.b^ = a.b / |b|: the dot error (2L + 1)u sum|a_i b_i| over |b|, plus |p|
// times (L + 1.5)u for |b| and two roundings; tested with (L + 4)u |p|.
double projection_tolerance(int32_t n, double sum_abs, double norm_b, double p) {
  return (pairwise_bound(n, sum_abs) + reference_slack(n, sum_abs)) / norm_b + (ceil_log2(n) + 4.0) * kU * std::fabs(p);
}

TEST(Vector, ScalarProjectionWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "scalar_projection scalar" : "scalar_projection simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      const double expected = ref::scalar_projection(p.a.data(), p.b.data(), n);
      margin.check(AG_VARIANT(scalar_projection, v)(p.a.data(), p.b.data(), n), expected,
                   projection_tolerance(n, ref::dot_abs(p.a.data(), p.b.data(), n), ref::norm(p.b.data(), n), expected),
                   n);
    });
  });
}

// out_i = (a.b / |b|^2) b_i: the dot error over |b|^2, plus |c| times
// 2 (L + 1.5)u for |b|^2 and three roundings: (2L + 6)u |c|, times |b_i|.
TEST(Vector, VectorProjectionWithinBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "vector_projection scalar" : "vector_projection simd128");
    for_each_length_and_offset([&](int32_t n, int offset) {
      Pair p = random_pair(n, offset);
      OffsetBuffer out(n, offset, std::nanf(""));
      AG_VARIANT(vector_projection, v)(p.a.data(), p.b.data(), n, out.data());
      const std::vector<double> expected = ref::vector_projection(p.a.data(), p.b.data(), n);
      const double sum_abs = ref::dot_abs(p.a.data(), p.b.data(), n);
      const double b2 = ref::squared_norm(p.b.data(), n);
      const double c = ref::dot(p.a.data(), p.b.data(), n) / b2;
      const double c_tol = (pairwise_bound(n, sum_abs) + reference_slack(n, sum_abs)) / b2 +
                           (2.0 * ceil_log2(n) + 7.0) * kU * std::fabs(c);
      for (int32_t i = 0; i < n; ++i) {
        margin.check(out.data()[i], expected[i], c_tol * std::fabs(p.b.data()[i]) + 0x1p-149, n);
      }
    });
  });
}

// y_c = sum_j alpha_j V_jc: dot's bound per channel. T runs over kLengths,
// d over a set that exercises the 4-wide channel groups and their tails.
TEST(Vector, WeightedSumWithinPairwiseBound) {
  for_each_variant([](Variant v) {
    Margin margin(v == Variant::kScalar ? "weighted_sum scalar" : "weighted_sum simd128");
    for_each_length_and_offset([&](int32_t T, int offset) {
      for (int32_t d : {1, 3, 4, 5, 8, 13}) {
        OffsetBuffer alpha(random_floats(T, 0.0f, 1.0f, seed_for(T, offset, 4)), offset);
        OffsetBuffer V(random_floats(static_cast<size_t>(T) * d, -1.0f, 1.0f, seed_for(T, offset, 5 + d)), offset);
        OffsetBuffer y(d, offset, std::nanf(""));
        AG_VARIANT(weighted_sum, v)(alpha.data(), V.data(), T, d, y.data());
        std::vector<double> y_abs;
        const std::vector<double> expected = ref::weighted_sum(alpha.data(), V.data(), T, d, &y_abs);
        for (int32_t c = 0; c < d; ++c) {
          margin.check(y.data()[c], expected[c], pairwise_bound(T, y_abs[c]) + reference_slack(T, y_abs[c]), T);
        }
      }
    });
  });
}

// registry.inc: per channel, weighted_sum sums in dot's order, so each y_c is
// bit for bit this variant's dot of alpha with the column V[:, c].
TEST(Vector, WeightedSumChannelIsThisVariantsDot) {
  for_each_variant([](Variant v) {
    for (int32_t T : {1, 7, 64, 65, 129, 1000}) {
      const int32_t d = 7;
      std::vector<float> alpha = random_floats(T, -1.0f, 1.0f, seed_for(T, 0, 6));
      std::vector<float> V = random_floats(static_cast<size_t>(T) * d, -1.0f, 1.0f, seed_for(T, 0, 7));
      std::vector<float> y(d);
      AG_VARIANT(weighted_sum, v)(alpha.data(), V.data(), T, d, y.data());
      for (int32_t c = 0; c < d; ++c) {
        std::vector<float> column(T);
        for (int32_t j = 0; j < T; ++j) column[j] = V[static_cast<size_t>(j) * d + c];
        EXPECT_EQ(bits(y[c]), bits(AG_VARIANT(dot, v)(alpha.data(), column.data(), T))) << "T=" << T << " c=" << c;
      }
    }
  });
}

// A sum that tells pairwise from sequential accumulation: n terms of
// 1 + 2^-18. Added one after another (or block sums of 4 or 64 added one
// after another), once the running sum passes 2^9 (2^13 for blocks of 64)
// each addition drops its 2^-18 parts, being under half an ulp: at
// n = 2^16 + 3 about 0.25 (0.22) is lost, beyond the bound 35 u n ~ 0.137.
// Pairwise, equal halves add exactly: n = 2^16 gives 65536.25 exactly.
TEST(Vector, SumsArePairwiseNotSequential) {
  for_each_variant([](Variant v) {
    for (int32_t n : {65536, 65539}) {
      const std::vector<float> ones(n, 1.0f), terms(n, 1.0f + 0x1p-18f);
      const double expected = n * (1.0 + 0x1p-18);
      const float dot = AG_VARIANT(dot, v)(ones.data(), terms.data(), n);
      if (n == 65536) EXPECT_EQ(dot, expected);
      EXPECT_LE(std::fabs(dot - expected), pairwise_bound(n, expected));
      std::vector<float> y(3);
      std::vector<float> V(static_cast<size_t>(n) * 3, 1.0f + 0x1p-18f);
      AG_VARIANT(weighted_sum, v)(ones.data(), V.data(), n, 3, y.data());
      for (float c : y) EXPECT_LE(std::fabs(c - expected), pairwise_bound(n, expected));
      // matmul: pairwise in the scalar variant; the simd128 GEMM sums blocks
      // of 256 in k order (gemm_simd128.h), with its own, wider bound.
      const double matmul_bound = v == Variant::kScalar ? pairwise_bound(n, expected) : gemm_bound(n, expected);
      std::vector<float> C(2);
      AG_VARIANT(matmul_nt, v)(ones.data(), terms.data(), 1, n, 1, C.data());
      EXPECT_LE(std::fabs(C[0] - expected), matmul_bound);
      AG_VARIANT(matmul, v)(ones.data(), V.data(), 1, n, 1, C.data());  // V as a [n, 1] column
      EXPECT_LE(std::fabs(C[0] - expected), matmul_bound);
    }
  });
}

// Multiples of 1/64 in [-2, 2), n <= 1000: every partial sum is exact in
// float32 (test_util.h), so both variants must give the reference exactly.
TEST(Vector, ExactCaseAgreesBitForBit) {
  for_each_variant([](Variant v) {
    for (int32_t n : kLengths) {
      if (n > 1000) continue;
      for (int offset = 0; offset <= kMaxOffset; ++offset) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " offset=" << offset);
        OffsetBuffer a(random_sixty_fourths(n, seed_for(n, offset, 8)), offset);
        OffsetBuffer b(random_sixty_fourths(n, seed_for(n, offset, 9)), offset);
        const double dot = ref::dot(a.data(), b.data(), n);
        const double sq = ref::squared_norm(a.data(), n);
        const double dist = ref::squared_distance(a.data(), b.data(), n);
        ASSERT_LT(dist, 4096.0);  // the exactness argument needs the sum below 2^12
        EXPECT_EQ(AG_VARIANT(dot, v)(a.data(), b.data(), n), dot);
        EXPECT_EQ(AG_VARIANT(squared_norm, v)(a.data(), n), sq);
        EXPECT_EQ(AG_VARIANT(squared_distance, v)(a.data(), b.data(), n), dist);
        for (int32_t d : {1, 5, 8}) {
          OffsetBuffer V(random_sixty_fourths(static_cast<size_t>(n) * d, seed_for(n, offset, 10 + d)), offset);
          std::vector<float> y(d);
          AG_VARIANT(weighted_sum, v)(a.data(), V.data(), n, d, y.data());
          const std::vector<double> expected = ref::weighted_sum(a.data(), V.data(), n, d, nullptr);
          for (int32_t c = 0; c < d; ++c) EXPECT_EQ(y[c], expected[c]) << "d=" << d << " c=" << c;
        }
      }
    }
  });
}

constexpr float kInf = std::numeric_limits<float>::infinity();

// Results beyond FLT_MAX are +-Infinity (registry.inc).
TEST(Vector, OverflowingResultsAreInfinite) {
  for_each_variant([](Variant v) {
    for (int32_t n : {1, 5, 64, 129}) {
      std::vector<float> big(n, 2e19f), minus_big(n, -2e19f);  // products 4e38 > FLT_MAX
      EXPECT_EQ(AG_VARIANT(dot, v)(big.data(), big.data(), n), kInf);
      EXPECT_EQ(AG_VARIANT(dot, v)(big.data(), minus_big.data(), n), -kInf);
      EXPECT_EQ(AG_VARIANT(squared_norm, v)(big.data(), n), kInf);
      EXPECT_EQ(AG_VARIANT(squared_distance, v)(big.data(), minus_big.data(), n), kInf);
      std::vector<float> y(3);
      std::vector<float> V(static_cast<size_t>(n) * 3, -2e19f);
      AG_VARIANT(weighted_sum, v)(big.data(), V.data(), n, 3, y.data());
      for (float c : y) EXPECT_EQ(c, -kInf);
      std::vector<float> huge(n, 3e38f);
      if (n > 1) EXPECT_EQ(AG_VARIANT(norm, v)(huge.data(), n), kInf);  // sqrt(n) 3e38 > FLT_MAX
      std::vector<float> ones(n, 1.0f);
      if (n > 1) EXPECT_EQ(AG_VARIANT(scalar_projection, v)(huge.data(), ones.data(), n), kInf);
    }
  });
}

// Scaling by a power of two near 1/max|a_i| keeps every intermediate in range:
// inputs near FLT_MAX and subnormal inputs give the right finite answers.
TEST(Vector, NoIntermediateOverflowOrUnderflow) {
  const float tiny = 0x1p-149f;  // the smallest subnormal
  for_each_variant([&](Variant v) {
    // Up to 2^125, so that 4 * scale = 2^127 is still finite.
    for (float scale : {tiny, 0x1p-140f, 0x1p-126f, 1.0f, 0x1p100f, 0x1p125f}) {
      SCOPED_TRACE(::testing::Message() << "scale=" << scale);
      // |(3, 4)| = 5 exactly: the scaled sum 0.5625 + 1 and its square root 1.25
      // are exact, and so are the power-of-two scalings.
      const float a[2] = {3 * scale, 4 * scale};
      EXPECT_EQ(AG_VARIANT(norm, v)(a, 2), 5 * scale);
      float unit[2];
      AG_VARIANT(normalize, v)(a, 2, unit);
      EXPECT_NEAR(unit[0], 0.6, 2 * kU);
      EXPECT_NEAR(unit[1], 0.8, 2 * kU);
      const float b[2] = {4 * scale, -3 * scale};
      EXPECT_NEAR(AG_VARIANT(cosine, v)(a, b, 2), 0.0, 4 * kU);
      EXPECT_NEAR(AG_VARIANT(angle, v)(a, b, 2), M_PI / 2, 12 * kU * M_PI);
      EXPECT_NEAR(AG_VARIANT(cosine, v)(a, a, 2), 1.0, 4 * kU);
      EXPECT_NEAR(AG_VARIANT(angle, v)(a, a, 2), 0.0, 12 * kU);
    }
    // Near FLT_MAX. With four elements of 2e38, a.b^ = 8e38 / 2 = 4e38 is
    // beyond FLT_MAX: +Infinity. With two, a.b = 4e38 overflows but
    // a.b^ = 2.83e38 does not, and must come out finite.
    const float big = 2e38f;
    const float a[4] = {big, big, big, big};
    const float ones[4] = {1, 1, 1, 1};
    EXPECT_EQ(AG_VARIANT(scalar_projection, v)(a, ones, 4), kInf);
    const float c[2] = {big, big};
    const double proj = 2.0 * big / std::sqrt(2.0);
    EXPECT_NEAR(AG_VARIANT(scalar_projection, v)(c, ones, 2), proj, 6 * kU * proj);
    float out[2];
    AG_VARIANT(vector_projection, v)(c, ones, 2, out);
    EXPECT_NEAR(out[0], big, 8 * kU * big);
    EXPECT_NEAR(out[1], big, 8 * kU * big);
    const double norm_c = std::sqrt(2.0) * big;  // 2.83e38 < FLT_MAX though |c|^2 overflows
    EXPECT_NEAR(AG_VARIANT(norm, v)(c, 2), norm_c, 3 * kU * norm_c);
    // Mixed magnitudes: the subnormal element is negligible next to 1e38.
    const float mixed[3] = {1e38f, tiny, -1e38f};
    EXPECT_NEAR(AG_VARIANT(norm, v)(mixed, 3), std::sqrt(2.0) * 1e38, 3 * kU * std::sqrt(2.0) * 1e38);
  });
}

TEST(Vector, ZeroVectorConventions) {
  for_each_variant([](Variant v) {
    const float zero[5] = {0, 0, 0, 0, 0};
    const float a[5] = {1, 2, 3, 4, 5};
    EXPECT_EQ(AG_VARIANT(norm, v)(zero, 5), 0.0f);
    EXPECT_EQ(AG_VARIANT(squared_norm, v)(zero, 5), 0.0f);
    // cosine of a zero vector is 0 by the registry's convention, not NaN.
    EXPECT_EQ(AG_VARIANT(cosine, v)(zero, a, 5), 0.0f);
    EXPECT_EQ(AG_VARIANT(cosine, v)(a, zero, 5), 0.0f);
    // a = 0 is allowed in projections (only b must be non-zero).
    EXPECT_EQ(AG_VARIANT(scalar_projection, v)(zero, a, 5), 0.0f);
  });
}

// Worked values a reader can check by hand.
TEST(Vector, WorkedExamples) {
  for_each_variant([](Variant v) {
    const float a[2] = {3, 4}, b[2] = {4, 3};
    EXPECT_EQ(AG_VARIANT(dot, v)(a, b, 2), 24.0f);
    EXPECT_EQ(AG_VARIANT(norm, v)(a, 2), 5.0f);
    EXPECT_EQ(AG_VARIANT(squared_distance, v)(a, b, 2), 2.0f);
    EXPECT_NEAR(AG_VARIANT(cosine, v)(a, b, 2), 0.96, 2 * kU);
    EXPECT_NEAR(AG_VARIANT(scalar_projection, v)(a, b, 2), 4.8, 8 * kU);
    const float x[2] = {1, 0}, y[2] = {0, 2};
    EXPECT_NEAR(AG_VARIANT(angle, v)(x, y, 2), M_PI / 2, 4 * kU);
  });
}

}  // namespace
}  // namespace ag::test
