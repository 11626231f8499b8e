// The check of one softmax row, shared by the softmax and attention targets:
// the weights y [n] that a kernel computed from the float logits z [n]
// against the softmax of the same floats recomputed in double.
//
// t_j = z_j - max z rounds exactly as in the kernels (one float subtraction,
// recomputed here), then exp (its relative bound e, or a few 2^-149 among
// subnormals), the pairwise sum of positive terms ((2 ceil(log2 n) + 1) u)
// and one division (u): to first order 2e + (2 ceil(log2 n) + 2) u relatively
// (registry.inc, softmax, with the rounding D of z_j - max z already in t_j);
// here expm1 of 1% more than that plus 2u, which also bounds the higher
// orders. Besides: every weight in [0, 1], a -Infinity logit gets exactly +0,
// a row with no finite logit is all +0, any other row sums to 1 within
// (2 ceil(log2 n) + 6) u (registry.inc).
#ifndef AG_TESTS_FUZZ_SOFTMAX_ROW_H_
#define AG_TESTS_FUZZ_SOFTMAX_ROW_H_

#include <stdint.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "fuzz_check.h"

namespace ag::fuzz {

// Subnormal weights are off by a few multiples of 2^-149 whatever the
// relative bound (tests/cpp/softmax_test.cc).
inline constexpr double kTinyAbs = 0x1p-147;

inline void check_softmax_row(Variant v, const char* what, const float* z, const float* y, int32_t n, int64_t row) {
  float m = -INFINITY;
  for (int32_t j = 0; j < n; ++j) m = std::max(m, z[j]);
  if (m == -INFINITY) {
    for (int32_t j = 0; j < n; ++j)
      AG_FUZZ_CHECK(bits(y[j]) == 0u, "%s %s row %lld: no finite logit, yet weight %d is %.9g", name(v), what,
                    static_cast<long long>(row), j, y[j]);
    return;
  }
  std::vector<double> p(n);
  double total = 0.0;
  for (int32_t j = 0; j < n; ++j) total += (p[j] = std::exp(static_cast<double>(z[j] - m)));
  const double rel = std::expm1(1.01 * (2.0 * exp_rel(v) + (2.0 * ceil_log2(n) + 4.0) * kU));
  double sum = 0.0;
  for (int32_t j = 0; j < n; ++j) {
    const double want = p[j] / total;
    AG_FUZZ_CHECK(y[j] >= 0.0f && y[j] <= 1.0f, "%s %s row %lld: weight %d is %.9g", name(v), what,
                  static_cast<long long>(row), j, y[j]);
    AG_FUZZ_CHECK(std::fabs(y[j] - want) <= rel * want + kTinyAbs,
                  "%s %s row %lld n=%d: weight %d is %.9g, the softmax of the float logits %.17g", name(v), what,
                  static_cast<long long>(row), n, j, y[j], want);
    if (z[j] == -INFINITY)
      AG_FUZZ_CHECK(bits(y[j]) == 0u, "%s %s row %lld: a -Infinity logit got weight %.9g", name(v), what,
                    static_cast<long long>(row), y[j]);
    sum += y[j];
  }
  AG_FUZZ_CHECK(std::fabs(sum - 1.0) <= (2.0 * ceil_log2(n) + 6.0) * kU, "%s %s row %lld n=%d: weights sum to 1 %+.3g",
                name(v), what, static_cast<long long>(row), n, sum - 1.0);
}

}  // namespace ag::fuzz

#endif  // AG_TESTS_FUZZ_SOFTMAX_ROW_H_
