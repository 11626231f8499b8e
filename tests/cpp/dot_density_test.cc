// dot_density (the exact density of q.k for q, k ~ N(0, I_d)) against the
// independent float64 reference (reference_dot_density.h) and closed forms, and
// greedy_packing against a recomputation with the variant's own dot and
// normalize. Tolerances come from registry.inc.
#include <gtest/gtest.h>
#include <stdint.h>

#include <cmath>
#include <vector>

#include "kernels.h"
#include "reference_dot_density.h"
#include "test_util.h"

namespace ag::test {
namespace {

constexpr int32_t kDims[] = {1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 512, 1001, 2048, 4095, 4096};

// x values for dimension d: 0, tiny values, and a grid out to 9 standard deviations.
std::vector<float> grid(int32_t d) {
  std::vector<float> x = {0.0f, 1e-30f, -1e-6f, 0.001f};
  const double s = std::sqrt(static_cast<double>(d));
  for (int k = -36; k <= 36; ++k) x.push_back(static_cast<float>(k * s / 4.0 + 0.37 * s / 4.0));
  for (float v : {37.5f, -80.0f, 150.0f, 400.0f, 1e5f, -3e38f}) x.push_back(v);
  return x;
}

// Registry bound: 2u relative for normal results, 2^-149 + 2u |y| when
// subnormal; the reference carries ~1e-11 relative of its own (log-space sums).
void expect_density(float got, double want, const char* what) {
  if (std::isinf(want)) {
    EXPECT_TRUE(std::isinf(got) && got > 0) << what;
    return;
  }
  const double tol = 2 * kU * want + 1e-11 * want + 0x1p-149;
  EXPECT_NEAR(static_cast<double>(got), want, tol) << what;
}

TEST(Density, MatchesReferenceForEveryDimension) {
  for_each_variant([](Variant v) {
    for (int32_t d : kDims) {
      SCOPED_TRACE(::testing::Message() << "d=" << d);
      const std::vector<float> x = grid(d);
      // Unaligned start (offset 1) and a length that leaves a remainder of 4.
      std::vector<float> in(x.size() + 1), y(x.size(), -1.0f);
      std::copy(x.begin(), x.end(), in.begin() + 1);
      AG_VARIANT(dot_density, v)(in.data() + 1, static_cast<int32_t>(x.size()), d, y.data());
      for (size_t i = 0; i < x.size(); ++i) {
        SCOPED_TRACE(::testing::Message() << "x=" << x[i]);
        expect_density(y[i], ag::reference::dot_density(x[i], d), "density");
      }
    }
  });
}

TEST(Density, ClosedFormsAtSmallDimensions) {
  for_each_variant([](Variant v) {
    const std::vector<float> x = {0.0f, 0.5f, -1.25f, 3.0f, 10.0f, -20.0f};
    std::vector<float> y2(x.size()), y4(x.size());
    AG_VARIANT(dot_density, v)(x.data(), static_cast<int32_t>(x.size()), 2, y2.data());
    AG_VARIANT(dot_density, v)(x.data(), static_cast<int32_t>(x.size()), 4, y4.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const double a = std::fabs(static_cast<double>(x[i]));
      expect_density(y2[i], std::exp(-a) / 2, "Laplace, d = 2");
      expect_density(y4[i], (1 + a) * std::exp(-a) / 4, "d = 4");
    }
  });
}

TEST(Density, IntegratesToOneWithVarianceD) {
  for_each_variant([](Variant v) {
    for (int32_t d : {2, 3, 10, 64, 1001, 4096}) {
      SCOPED_TRACE(::testing::Message() << "d=" << d);
      // Midpoint rule over +-14 standard deviations (+-40 for small d's heavier tails).
      const double s = std::sqrt(static_cast<double>(d)), half = std::max(14 * s, 40.0);
      const int m = 20000;
      const double h = 2 * half / m;
      std::vector<float> x(m), y(m);
      for (int i = 0; i < m; ++i) x[i] = static_cast<float>(-half + (i + 0.5) * h);
      AG_VARIANT(dot_density, v)(x.data(), m, d, y.data());
      double mass = 0, var = 0;
      for (int i = 0; i < m; ++i) {
        mass += y[i] * h;
        var += static_cast<double>(x[i]) * x[i] * y[i] * h;
      }
      EXPECT_NEAR(mass, 1.0, 1e-4);
      EXPECT_NEAR(var, d, 1e-3 * d);
    }
  });
}

TEST(Density, VariantsAgreeBitForBit) {
  for (int32_t d : kDims) {
    const std::vector<float> x = grid(d);
    std::vector<float> a(x.size()), b(x.size());
    ag_dot_density__scalar(x.data(), static_cast<int32_t>(x.size()), d, a.data());
    ag_dot_density__simd128(x.data(), static_cast<int32_t>(x.size()), d, b.data());
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(bits(a[i]), bits(b[i])) << "d=" << d << " x=" << x[i];
  }
}

// greedy_packing: the kept set is what a plain recomputation with the same
// normals, normalize and dot keeps; every kept pair is within eps of
// perpendicular (in double, within the dot bound); a run split across calls
// gives the same set; capacity stops the scan.
TEST(Packing, MatchesRecomputationAndKeepsPairsNearPerpendicular) {
  for_each_variant([](Variant v) {
    for (int32_t d : {1, 2, 3, 8, 33, 128}) {
      SCOPED_TRACE(::testing::Message() << "d=" << d);
      const int32_t count = d >= 128 ? 3000 : 1500, capacity = count;
      const float eps = 0.2f;
      std::vector<float> dirs(static_cast<size_t>(capacity) * d), work(d);
      const int32_t kept = AG_VARIANT(greedy_packing, v)(5, 6, d, 0, count, eps, 0, capacity, dirs.data(), work.data());

      // Recomputation.
      const uint64_t blocks = (d + 3) / 4;
      std::vector<float> z(d), u(d);
      std::vector<std::vector<float>> mine;
      for (int32_t c = 0; c < count; ++c) {
        const uint64_t ctr = blocks * c;
        ag_philox_normal(5, 6, static_cast<uint32_t>(ctr), static_cast<uint32_t>(ctr >> 32), d, z.data());
        AG_VARIANT(normalize, v)(z.data(), d, u.data());
        bool ok = true;
        for (const auto& w : mine) ok = ok && std::fabs(AG_VARIANT(dot, v)(u.data(), w.data(), d)) <= eps;
        if (ok) mine.push_back(u);
      }
      ASSERT_EQ(kept, static_cast<int32_t>(mine.size()));
      for (int32_t j = 0; j < kept; ++j) {
        for (int32_t q = 0; q < d; ++q) ASSERT_EQ(bits(dirs[static_cast<size_t>(j) * d + q]), bits(mine[j][q]));
      }
      // Pairwise |cos| <= eps (double check, slack of the float dot bound on unit vectors).
      const double slack = (2 * ceil_log2(d) + 1) * kU + 4 * kU;
      for (int32_t i = 0; i < kept; ++i) {
        for (int32_t j = 0; j < i; ++j) {
          double s = 0;
          for (int32_t q = 0; q < d; ++q)
            s += static_cast<double>(dirs[static_cast<size_t>(i) * d + q]) * dirs[static_cast<size_t>(j) * d + q];
          ASSERT_LE(std::fabs(s), eps + slack);
        }
      }
      if (d == 1) EXPECT_EQ(kept, 1);
      if (d == 2) EXPECT_LE(kept, 2);    // in the plane, at most two directions are nearly perpendicular
      if (d == 128) EXPECT_GT(kept, d);  // far more than d near-perpendicular directions

      // Split into two calls: the same set.
      std::vector<float> dirs2(dirs.size());
      const int32_t k1 =
          AG_VARIANT(greedy_packing, v)(5, 6, d, 0, count / 3, eps, 0, capacity, dirs2.data(), work.data());
      const int32_t k2 = AG_VARIANT(greedy_packing, v)(5, 6, d, count / 3, count - count / 3, eps, k1, capacity,
                                                       dirs2.data(), work.data());
      EXPECT_EQ(k2, kept);
      for (size_t i = 0; i < static_cast<size_t>(kept) * d; ++i) ASSERT_EQ(bits(dirs2[i]), bits(dirs[i]));

      // Capacity stops the scan.
      const int32_t cap = std::min(kept, 3);
      std::vector<float> small(static_cast<size_t>(cap) * d);
      EXPECT_EQ(AG_VARIANT(greedy_packing, v)(5, 6, d, 0, count, eps, 0, cap, small.data(), work.data()), cap);
    }
  });
}

}  // namespace
}  // namespace ag::test
