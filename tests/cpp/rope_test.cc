// Tests of the kernel "rope" (registry.inc) on both variants against a
// float64 reference: rotary position embedding, both pair layouts.
//
// There is no reduction in rope: each element is two products and one sum,
// in the same order in both variants, so they must agree bit for bit, and
// each must be within the registry bound 4 u (|x_a| + |x_b|) of the float64
// rotation (plus 3 * 2^-149 for subnormal products).
#include <gtest/gtest.h>
#include <stdint.h>

#include <cmath>
#include <vector>

#include "kernels.h"
#include "reference_rope.h"
#include "test_util.h"

namespace {

using namespace ag::test;  // NOLINT: the shared test helpers

struct RopeRun {
  std::vector<float> out;
};

RopeRun run_rope(Variant v, const std::vector<float>& x, const std::vector<double>& pos, int32_t rows, int32_t T,
                 int32_t d, double base, bool interleaved, int offset) {
  const OffsetBuffer xin(x, offset);
  OffsetBuffer out(x.size(), offset, -1.0f);
  std::vector<float> work(2 * static_cast<size_t>(T) * d);
  AG_VARIANT(rope, v)(xin.data(), pos.data(), rows, T, d, base, interleaved ? 1 : 0, out.data(), work.data());
  return {out.values()};
}

TEST(Rope, BothLayoutsAgainstTheReference) {
  for (const int32_t d : {2, 4, 6, 8, 10, 12, 64, 130}) {
    for (const bool interleaved : {true, false}) {
      const int32_t rows = 3, T = 7;
      const std::vector<float> x = random_floats(static_cast<size_t>(rows) * T * d, -3.0f, 3.0f, 40 + d);
      const std::vector<double> pos = {0.0, 1.0, 2.5, 7.0, 100.0, 1e6 + 0.3, 16777216.0};
      for (const double base : {10000.0, 500000.0, 2.0, 3141.592653589793}) {
        SCOPED_TRACE(::testing::Message() << "d=" << d << " interleaved=" << interleaved << " base=" << base);
        std::vector<double> mag;
        const std::vector<double> want = ag::reference::rope(x.data(), pos.data(), rows, T, d, base, interleaved, &mag);
        std::vector<float> first;
        for_each_variant([&](Variant v) {
          for (int offset = 0; offset <= kMaxOffset; ++offset) {
            const RopeRun got = run_rope(v, x, pos, rows, T, d, base, interleaved, offset);
            for (size_t j = 0; j < want.size(); ++j) {
              const double tol = 4.0 * kU * mag[j] + 3.0 * 0x1p-149;
              ASSERT_LE(std::fabs(got.out[j] - want[j]), tol) << "j=" << j << " offset=" << offset;
            }
            if (first.empty()) first = got.out;
            // No reduction: every variant and offset gives the same floats.
            for (size_t j = 0; j < want.size(); ++j) ASSERT_EQ(bits(got.out[j]), bits(first[j])) << "j=" << j;
          }
        });
      }
    }
  }
}

// Position 0 is the identity (cos 0 = 1, sin 0 = 0 exactly), and each pair
// keeps its length (a rotation), within the bound.
TEST(Rope, PositionZeroIsTheIdentityAndLengthsStay) {
  const int32_t T = 2, d = 10;
  const std::vector<float> x = random_floats(static_cast<size_t>(T) * d, -5.0f, 5.0f, 77);
  const std::vector<double> pos = {0.0, 12345.0};
  for_each_variant([&](Variant v) {
    for (const bool interleaved : {true, false}) {
      const RopeRun got = run_rope(v, x, pos, 1, T, d, 10000.0, interleaved, 0);
      for (int32_t j = 0; j < d; ++j) ASSERT_EQ(bits(got.out[j]), bits(x[j])) << "j=" << j;
      for (int32_t p = 0; p < d / 2; ++p) {
        const int32_t a = d + (interleaved ? 2 * p : p), b = d + (interleaved ? 2 * p + 1 : p + d / 2);
        const double before = std::hypot(x[a], x[b]), after = std::hypot(got.out[a], got.out[b]);
        ASSERT_LE(std::fabs(after - before), 8.0 * kU * (std::fabs(x[a]) + std::fabs(x[b]))) << "p=" << p;
      }
    }
  });
}

// Relative positions (RoFormer, eq. 16): the dot product of q at m and k at
// n depends on m - n only: shifting both by s changes it by no more than the
// rounding of the two rotations and of the dot.
TEST(Rope, ScoresDependOnTheOffsetOnly) {
  const int32_t d = 16;
  const std::vector<float> q = random_floats(d, -1.0f, 1.0f, 90), k = random_floats(d, -1.0f, 1.0f, 91);
  for_each_variant([&](Variant v) {
    for (const bool interleaved : {true, false}) {
      const auto score = [&](double m, double n) {
        const RopeRun rq = run_rope(v, q, {m}, 1, 1, d, 10000.0, interleaved, 0);
        const RopeRun rk = run_rope(v, k, {n}, 1, 1, d, 10000.0, interleaved, 0);
        double s = 0.0;
        for (int32_t j = 0; j < d; ++j) s += static_cast<double>(rq.out[j]) * rk.out[j];
        return s;
      };
      // Each rotated element is off by at most 4 u (|x_a| + |x_b|) and at most |x_a| + |x_b| in size,
      // so a score moves by at most 2 * 4 u sum_j (|q_a| + |q_b|)(|k_a| + |k_b|), and a difference twice that.
      double qk = 0.0;
      for (int32_t j = 0; j < d; ++j) {
        const int32_t p = interleaved ? (j ^ 1) : (j < d / 2 ? j + d / 2 : j - d / 2);
        qk += (std::fabs(q[j]) + std::fabs(q[p])) * (std::fabs(k[j]) + std::fabs(k[p]));
      }
      const double s0 = score(3.0, 1.0);
      for (const double shift : {1.0, 10.0, 1000.0, 0.25}) {
        ASSERT_LE(std::fabs(score(3.0 + shift, 1.0 + shift) - s0), 2 * 2 * 4.0 * kU * qk) << "shift=" << shift;
      }
      ASSERT_GT(std::fabs(score(5.0, 1.0) - s0), 1e-3);  // another offset, another score
    }
  });
}

}  // namespace
