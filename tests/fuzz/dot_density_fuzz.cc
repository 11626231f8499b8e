// Fuzz target for dot_density (registry.inc, family "random"): the exact
// density of q.k for q, k ~ N(0, I_d), both variants.
//
// Input: d in [1, 4096] (mostly small, where the closed forms and the odd/even
// recurrences start) and n finite x (any magnitude: subnormal to FLT_MAX); a
// few x are repeated with the opposite sign.
//
// Asserted, besides no sanitizer report:
//  - the two variants agree bit for bit (registry.inc);
//  - f_d(x) = f_d(-x), bit for bit (the density is a function of |x|);
//  - every y is >= 0 and finite, except +Infinity at x = 0 for d = 1;
//  - for d = 2 and d = 4 every y against the closed forms exp(-|x|)/2 and
//    (1 + |x|) exp(-|x|)/4, and for two x of each input y against the
//    independent float64 reference of tests/cpp, within the registry's bound
//    (2u relatively, 2^-149 + 2u |y| among subnormals; the reference carries
//    1e-11 relatively of its own).
#include <stddef.h>
#include <stdint.h>

#include <cmath>

#include "fuzz_check.h"
#include "fuzz_input.h"
#include "kernels.h"
#include "reference_dot_density.h"

namespace ag::fuzz {
namespace {

bool close_to(float got, double want) {
  if (std::isinf(want)) return std::isinf(got) && got > 0;
  return std::fabs(static_cast<double>(got) - want) <= 2.0 * kU * want + 1e-11 * want + kTiny;
}

}  // namespace
}  // namespace ag::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ag::fuzz;
  Input in(data, size);
  const int32_t d = in.chance(64) ? in.size(1, 4096) : in.size(1, 12);
  const int32_t half = in.size(1, 40);
  // x [2 half]: half values, then the first ones again with the sign flipped.
  const int32_t n = 2 * half;
  Buffer x(n, in.offset(), 0.0f);
  for (int32_t i = 0; i < half; ++i) x[i] = in.finite();
  for (int32_t i = 0; i < half; ++i) x[half + i] = -x[i];
  Buffer ys = in.output(n), yv = in.output(n);
  ag_dot_density__scalar(x.data(), n, d, ys.data());
  ag_dot_density__simd128(x.data(), n, d, yv.data());
  for (int32_t i = 0; i < n; ++i) {
    AG_FUZZ_CHECK(bits(ys[i]) == bits(yv[i]), "dot_density d=%d x=%.9g: scalar %.9g, simd128 %.9g", d, x[i], ys[i],
                  yv[i]);
    const float y = ys[i];
    if (d == 1 && x[i] == 0.0f) {
      AG_FUZZ_CHECK(y == INFINITY, "dot_density d=1 at x=0: %.9g, not +Infinity", y);
    } else {
      AG_FUZZ_CHECK(std::isfinite(y) && y >= 0.0f, "dot_density d=%d x=%.9g: %.9g", d, x[i], y);
    }
    if (i < half)
      AG_FUZZ_CHECK(bits(y) == bits(ys[half + i]), "dot_density d=%d: f(%.9g) = %.9g but f(%.9g) = %.9g", d, x[i], y,
                    x[half + i], ys[half + i]);
    const double a = std::fabs(static_cast<double>(x[i]));
    if (d == 2) AG_FUZZ_CHECK(close_to(y, std::exp(-a) / 2), "dot_density d=2 x=%.9g: %.9g, not exp(-|x|)/2", x[i], y);
    if (d == 4)
      AG_FUZZ_CHECK(close_to(y, (1 + a) * std::exp(-a) / 4), "dot_density d=4 x=%.9g: %.9g, not (1+|x|)exp(-|x|)/4",
                    x[i], y);
  }
  for (int k = 0; k < 2; ++k) {
    const int32_t i = in.size(0, half - 1);
    const double want = ag::reference::dot_density(x[i], d);
    AG_FUZZ_CHECK(close_to(ys[i], want), "dot_density d=%d x=%.9g: %.9g, the reference gives %.17g", d, x[i], ys[i],
                  want);
  }
  return 0;
}
